import { afterEach, describe, expect, it } from "vitest";
import { startPaystack, type PaystackHarness } from "./test-support";

let h: PaystackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("POST /transaction/initialize", () => {
  it("answers Paystack's envelope with a checkout URL on the origin it was called at", async () => {
    h = await startPaystack();
    const answer = await h.initialize({
      email: "owner@duka.co.ke",
      amount: 100_000,
      currency: "KES",
      reference: "jmb-topup-0001",
      callback_url: "http://localhost:3000/billing/card/return",
      metadata: { organisationId: "org_1" },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: true, message: "Authorization URL created" });
    const data = answer.json.data;
    expect(data.reference).toBe("jmb-topup-0001");
    expect(data.access_code).toMatch(/^[a-z0-9]{15}$/);
    expect(data.authorization_url).toBe(`${h.base}/checkout/${data.access_code}`);
    const listed = h.sandbox.transaction("jmb-topup-0001");
    expect(listed).toMatchObject({ status: "abandoned", amount: 100_000, currency: "KES", metadata: { organisationId: "org_1" } });
  });

  it("generates a reference when none is sent, defaults to KES, and takes a form-encoded body with a string amount", async () => {
    h = await startPaystack();
    const response = await fetch(`${h.base}/transaction/initialize`, {
      method: "POST",
      headers: { Authorization: `Bearer sk_test_sandbox_tests_0123456789`, "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=owner%40duka.co.ke&amount=5000",
    });
    const json = await response.json();
    expect(response.status).toBe(200);
    expect(json.data.reference).toMatch(/^[a-z0-9]{10}$/);
    expect(h.sandbox.transaction(json.data.reference)).toMatchObject({ amount: 5000, currency: "KES" });
  });

  it("uses publicOrigin for the checkout URL when given", async () => {
    h = await startPaystack({ publicOrigin: () => "http://localhost:3999" });
    const data = await h.newTransaction();
    expect(data.authorization_url).toBe(`http://localhost:3999/sandbox/paystack/checkout/${data.access_code}`);
  });

  it.each([
    ["no key", null],
    ["a wrong key", "sk_test_someone_else_000000"],
  ])("refuses %s with 401 Invalid key", async (_label, key) => {
    h = await startPaystack();
    const answer = await h.initialize({ email: "owner@duka.co.ke", amount: 100 }, key);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ status: false, message: "Invalid key" });
    expect(h.sandbox.transactions()).toHaveLength(0);
  });

  it.each([
    [{ amount: 100 }, "Invalid Email Address Passed"],
    [{ email: "not-an-email", amount: 100 }, "Invalid Email Address Passed"],
    [{ email: "a@b.co", amount: 0 }, "Invalid Amount Sent"],
    [{ email: "a@b.co", amount: -5 }, "Invalid Amount Sent"],
    [{ email: "a@b.co", amount: 10.5 }, "Invalid Amount Sent"],
    [{ email: "a@b.co", amount: "ten" }, "Invalid Amount Sent"],
    [{ email: "a@b.co", amount: 100, currency: "NGN" }, "Currency not supported by merchant"],
    [{ email: "a@b.co", amount: 100, reference: "has space" }, "Invalid transaction reference"],
    [{ email: "a@b.co", amount: 100, callback_url: "javascript:alert(1)" }, "Invalid callback_url"],
  ])("refuses %j with 400", async (body, message) => {
    h = await startPaystack();
    const answer = await h.initialize(body);
    expect(answer.status).toBe(400);
    expect(answer.json.status).toBe(false);
    expect(answer.json.message).toContain(message);
    expect(h.sandbox.transactions()).toHaveLength(0);
  });

  it("refuses a duplicate reference", async () => {
    h = await startPaystack();
    await h.newTransaction({ reference: "dup-1" });
    const again = await h.initialize({ email: "a@b.co", amount: 100, reference: "dup-1" });
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ status: false, message: "Duplicate Transaction Reference" });
    expect(h.sandbox.transactions()).toHaveLength(1);
  });

  it("answers malformed JSON with 400 and a body over 64 KB with 413, in Paystack's shape", async () => {
    h = await startPaystack();
    const bad = await h.call("/transaction/initialize", { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.json.status).toBe(false);
    const big = await h.initialize({ email: "a@b.co", amount: 100, metadata: { pad: "x".repeat(70_000) } });
    expect(big.status).toBe(413);
    expect(big.json.status).toBe(false);
    expect(h.sandbox.transactions()).toHaveLength(0);
  });
});

describe("GET /transaction/verify/:reference", () => {
  it("answers abandoned before payment, then success with the card after", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction({ metadata: { organisationId: "org_1" } });
    const before = await h.verify(reference);
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({
      status: true,
      message: "Verification successful",
      data: { status: "abandoned", reference, amount: 250_000, currency: "KES", paid_at: null, authorization: {} },
    });
    h.sandbox.pay(reference, "success");
    const after = await h.verify(reference);
    expect(after.json.data).toMatchObject({
      status: "success",
      reference,
      amount: 250_000,
      currency: "KES",
      gateway_response: "Successful",
      channel: "card",
      domain: "test",
      metadata: { organisationId: "org_1" },
      customer: { email: "owner@duka.co.ke" },
      authorization: { last4: "4081", brand: "visa", bin: "408408", reusable: true },
    });
    expect(new Date(after.json.data.paid_at!).getTime()).not.toBeNaN();
  });

  it("answers failed with the decline reason", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction();
    h.sandbox.pay(reference, "declined");
    const answer = await h.verify(reference);
    expect(answer.json.data).toMatchObject({ status: "failed", gateway_response: "Insufficient Funds", paid_at: null });
  });

  it("answers an unknown reference with 400 and a wrong key with 401", async () => {
    h = await startPaystack();
    const unknown = await h.verify("no-such-ref");
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ status: false, message: "Transaction reference not found" });
    const { reference } = await h.newTransaction();
    const wrongKey = await h.verify(reference, "sk_test_wrong_key_000000");
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.json).toMatchObject({ status: false, message: "Invalid key" });
  });
});
