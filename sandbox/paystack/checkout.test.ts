import { afterEach, describe, expect, it } from "vitest";
import { paystackSignature } from "./index";
import { SECRET_KEY, startPaystack, type PaystackHarness } from "./test-support";

let h: PaystackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CALLBACK = "http://localhost:3000/billing/card/return";
const checkoutPath = (accessCode: string) => `/sandbox/paystack/checkout/${accessCode}`;
const returnUrl = (reference: string) => `${CALLBACK}?trxref=${reference}&reference=${reference}`;

async function page(path: string) {
  const response = await fetch(`${h!.origin}${path}`, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), html: await response.text() };
}

describe("the hosted checkout", () => {
  it("shows the merchant, the amount in KES, a card form and the test cards, with no script", async () => {
    h = await startPaystack({ merchantName: "Jumbe Technologies Limited" });
    const { access_code, reference } = await h.newTransaction({ amount: 250_050 });
    const shown = await page(checkoutPath(access_code));
    expect(shown.status).toBe(200);
    expect(shown.html).toContain("Pay Jumbe Technologies Limited");
    expect(shown.html).toContain("KES 2,500.50");
    expect(shown.html).toContain(`<form method="post" action="${checkoutPath(access_code)}"`);
    for (const name of ['name="number"', 'name="expiry"', 'name="cvv"']) expect(shown.html).toContain(name);
    for (const card of ["4084 0840 8408 4081", "4084 0800 0067 0037", "4084 0800 0000 0409", "123456"]) expect(shown.html).toContain(card);
    expect(shown.html).toContain(`href="${returnUrl(reference).replace(/&/g, "&amp;")}">Cancel payment</a>`);
    expect(shown.html).not.toContain("<script");
    expect(shown.html).toContain('<style nonce="test-nonce">');
  });

  it("pays with the success card: redirects to the callback with trxref and reference, and sends a signed charge.success", async () => {
    h = await startPaystack();
    const { access_code, reference } = await h.newTransaction({ metadata: { organisationId: "org_9" } });
    const paid = await h.postForm(checkoutPath(access_code), { number: "4084 0840 8408 4081", expiry: "12/39", cvv: "408" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(returnUrl(reference));
    expect(h.sandbox.transaction(reference)).toMatchObject({ status: "success", card: { last4: "4081", brand: "visa" } });

    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
    const { body, headers } = h.receiver.received[0]!;
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["x-paystack-signature"]).toBe(paystackSignature(body, SECRET_KEY));
    const event = JSON.parse(body);
    expect(event).toMatchObject({
      event: "charge.success",
      data: { reference, status: "success", amount: 250_000, currency: "KES", metadata: { organisationId: "org_9" } },
    });
    expect(event.data.authorization).toMatchObject({ last4: "4081", exp_month: "12", exp_year: "2039" });

    // The checkout link now says it is paid; paying again changes nothing.
    const again = await page(checkoutPath(access_code));
    expect(again.html).toContain("This payment was successful");
    const twice = await h.postForm(checkoutPath(access_code), { number: "4084084084084081", expiry: "12/39", cvv: "408" });
    expect(twice.status).toBe(200);
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
  });

  it("declines the insufficient-funds card on the page (no redirect, no webhook), and another card can still pay", async () => {
    h = await startPaystack();
    const { access_code, reference } = await h.newTransaction();
    const declined = await h.postForm(checkoutPath(access_code), { number: "4084080000670037", expiry: "09/40", cvv: "787" });
    expect(declined.status).toBe(200);
    const html = await declined.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain("Insufficient Funds");
    expect(html).toContain("Cancel payment");
    expect(h.sandbox.transaction(reference)).toMatchObject({ status: "failed", gatewayResponse: "Insufficient Funds" });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(0);

    const retry = await h.postForm(checkoutPath(access_code), { number: "4084084084084081", expiry: "09/40", cvv: "408" });
    expect(retry.status).toBe(303);
    expect(h.sandbox.transaction(reference)?.status).toBe("success");
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
  });

  it("asks for 3-D Secure and pays with the documented code", async () => {
    h = await startPaystack();
    const { access_code, reference } = await h.newTransaction();
    const asked = await h.postForm(checkoutPath(access_code), { number: "4084080000000409", expiry: "1/2031", cvv: "000" });
    expect(asked.status).toBe(303);
    expect(asked.headers.get("location")).toBe(`${checkoutPath(access_code)}/otp`);
    expect(h.sandbox.transaction(reference)?.status).toBe("ongoing");
    expect((await h.verify(reference)).json.data.status).toBe("ongoing");

    const otpPage = await page(`${checkoutPath(access_code)}/otp`);
    expect(otpPage.status).toBe(200);
    expect(otpPage.html).toContain('name="otp"');
    expect(otpPage.html).toContain("0409");
    // Opening the checkout link meanwhile leads back to the code.
    expect((await page(checkoutPath(access_code))).location).toBe(`${checkoutPath(access_code)}/otp`);

    const done = await h.postForm(`${checkoutPath(access_code)}/otp`, { otp: "123456" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(returnUrl(reference));
    expect(h.sandbox.transaction(reference)).toMatchObject({ status: "success", gatewayResponse: "Approved", card: { last4: "0409" } });
    await h.sandbox.flushWebhooks();
    expect(JSON.parse(h.receiver.received[0]!.body).data.reference).toBe(reference);
  });

  it("fails the payment when the 3-D Secure code is wrong", async () => {
    h = await startPaystack();
    const { access_code, reference } = await h.newTransaction();
    await h.postForm(checkoutPath(access_code), { number: "4084080000000409", expiry: "12/39", cvv: "000" });
    const wrong = await h.postForm(`${checkoutPath(access_code)}/otp`, { otp: "000000" });
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toContain("3DS Authentication Failed");
    expect(h.sandbox.transaction(reference)).toMatchObject({ status: "failed", gatewayResponse: "3DS Authentication Failed" });
    // The code page is gone: it leads back to the card form.
    expect((await page(`${checkoutPath(access_code)}/otp`)).location).toBe(checkoutPath(access_code));
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(0);
  });

  it.each([
    [{ number: "4111 1111 1111 1111", expiry: "12/39", cvv: "123" }, "only the test cards"],
    [{ number: "12ab", expiry: "12/39", cvv: "123" }, "card number"],
    [{ number: "4084084084084081", expiry: "01/20", cvv: "408" }, "expired"],
    [{ number: "4084084084084081", expiry: "13/39", cvv: "408" }, "01 to 12"],
    [{ number: "4084084084084081", expiry: "12/39", cvv: "4" }, "CVV"],
  ])("refuses %j on the page with 422 and leaves the transaction alone", async (fields, message) => {
    h = await startPaystack();
    const { access_code, reference } = await h.newTransaction();
    const answer = await h.postForm(checkoutPath(access_code), fields);
    expect(answer.status).toBe(422);
    const html = await answer.text();
    expect(html).toContain(message);
    expect(html).toContain('autocomplete="cc-csc" required>'); // the CVV is never shown back
    expect(h.sandbox.transaction(reference)?.status).toBe("abandoned");
  });

  it("answers an unknown access code with a 404 page, and an oversized form with 413", async () => {
    h = await startPaystack();
    const missing = await page(checkoutPath("nosuchcode12345"));
    expect(missing.status).toBe(404);
    expect(missing.html).toContain("not valid");
    const { access_code } = await h.newTransaction();
    const big = await h.postForm(checkoutPath(access_code), { number: "4".repeat(20_000), expiry: "12/39", cvv: "123" });
    expect(big.status).toBe(413);
  });

  it("without a callback URL, shows the success page instead of redirecting", async () => {
    h = await startPaystack();
    const { access_code } = await h.newTransaction({ callback_url: undefined });
    const paid = await h.postForm(checkoutPath(access_code), { number: "4084084084084081", expiry: "12/39", cvv: "408" });
    expect(paid.status).toBe(200);
    const html = await paid.text();
    expect(html).toContain("This payment was successful");
    expect(html).not.toContain("Cancel payment");
  });
});
