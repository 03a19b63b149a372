import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TOKEN = "a-sandbox-control-token-of-32-chars-or-more";

/** Posts an HTML form without following the redirect. */
async function submit(harness: Harness, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${harness.base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The notice or error a form's redirect carries. */
const flashOf = (response: Response) => {
  const params = new URL(response.headers.get("location")!, "http://x").searchParams;
  return params.get("notice") ?? params.get("error") ?? "";
};

async function pushed(harness: Harness, phone = "254712345678") {
  const answer = await harness.push(harness.pushBody(phone, { Amount: 1500, AccountReference: "ACME-42" }));
  return answer.json.CheckoutRequestID as string;
}

describe("the phone page", () => {
  it("shows each pending prompt with a PIN form, and refreshes itself only while nothing waits", async () => {
    h = await startHarness();
    const empty = await h.call("/phone");
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('<meta http-equiv="refresh" content="3">');
    expect(empty.text).toContain('nonce="test-nonce"');
    const id = await pushed(h);
    const page = await h.call("/phone");
    expect(page.text).not.toContain("http-equiv");
    expect(page.text).toContain("Do you want to pay KES 1,500 to 174379 for account ACME-42?");
    expect(page.text).toContain(`action="/sandbox/mpesa/phone/${id}"`);
    expect(page.text).toContain('name="pin"');
    expect((await h.call("/phone?phone=254700000000")).text).not.toContain(id);
  });

  it.each([
    ["1234", 0, "accept"],
    ["0000", 2001, "wrong_pin"],
    ["9999", 1, "insufficient_funds"],
  ])("PIN %s answers %i", async (pin, code, outcome) => {
    h = await startHarness();
    const id = await pushed(h);
    const answer = await submit(h, `/phone/${id}`, { pin, action: "pay" });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toMatch(/^\/sandbox\/mpesa\/phone\?phone=254712345678&notice=/);
    expect(h.sandbox.prompt(id)).toMatchObject({ state: "done", outcome, resultCode: code });
    await h.receiver.waitFor(1);
    expect(h.receiver.on("/stk")[0]!.body.Body.stkCallback.ResultCode).toBe(code);
    const after = await h.call(answer.headers.get("location")!.replace("/sandbox/mpesa", ""));
    expect(after.text).toMatch(code === 0 ? /Confirmed\. KES 1,500 sent to 174379/ : /failed/i);
  });

  it("Cancel answers 1032; a PIN that is not 4 digits answers 400 and leaves the prompt pending", async () => {
    h = await startHarness();
    const id = await pushed(h);
    const bad = await submit(h, `/phone/${id}`, { pin: "12", action: "pay" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Enter your 4-digit M-Pesa PIN.");
    expect(h.sandbox.prompt(id)?.state).toBe("pending");
    const cancel = await submit(h, `/phone/${id}`, { action: "cancel" });
    expect(cancel.status).toBe(303);
    expect(h.sandbox.prompt(id)).toMatchObject({ outcome: "cancel", resultCode: 1032 });
    const again = await submit(h, `/phone/${id}`, { pin: "1234", action: "pay" });
    expect(flashOf(again)).toContain("already answered");
    const gone = await submit(h, "/phone/ws_CO_gone", { pin: "1234" });
    expect(flashOf(gone)).toContain("That M-Pesa prompt is gone.");
  });
});

describe("the console", () => {
  it("lists pending prompts with answer buttons, callbacks sent and the magic numbers", async () => {
    h = await startHarness();
    const id = await pushed(h);
    await h.control("/c2b", { msisdn: "254708374149", amount: 100, billRefNumber: "X1" });
    const page = await h.call("/");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`action="/sandbox/mpesa/console/prompts/${id}"`);
    for (const outcome of ["accept", "cancel", "timeout", "wrong_pin", "insufficient_funds"])
      expect(page.text).toContain(`name="outcome" value="${outcome}"`);
    expect(page.text).toContain("254711000404");
    expect(page.text).toContain('action="/sandbox/mpesa/console/c2b"');
  });

  it("answers a prompt with a chosen delivery, sets chaos, simulates a paybill payment and resets", async () => {
    h = await startHarness();
    const id = await pushed(h);
    const answered = await submit(h, `/console/prompts/${id}`, { outcome: "accept", delivery: "duplicate" });
    expect(answered.status).toBe(303);
    await h.receiver.waitFor(2);
    await h.sandbox.flush();
    expect(h.receiver.on("/stk")).toHaveLength(2);
    const callbacksPage = await h.call("/");
    expect(callbacksPage.text).toContain("copy 2");

    const chaos = await submit(h, "/console/chaos", { delivery: "lost", delayMs: "" });
    expect(flashOf(chaos)).toContain("New prompts' callbacks: lost");
    const lostId = await pushed(h, "254712345679");
    expect(h.sandbox.prompt(lostId)?.plan.delivery).toBe("lost");

    const badPlan = await submit(h, `/console/prompts/${lostId}`, { outcome: "accept", delayMs: "-5" });
    expect(badPlan.headers.get("location")).toContain("error=");
    expect(h.sandbox.prompt(lostId)?.state).toBe("pending");

    await h.call("/mpesa/c2b/v2/registerurl", {
      token: await h.token(),
      json: {
        ShortCode: "174379",
        ResponseType: "Completed",
        ConfirmationURL: h.receiver.url("/confirm"),
        ValidationURL: h.receiver.url("/validate"),
      },
    });
    const paid = await submit(h, "/console/c2b", {
      msisdn: "254708374149",
      amount: "700",
      billRefNumber: "ACME-42",
      msisdnFormat: "plain",
    });
    expect(flashOf(paid)).toMatch(/Paid 700\.00 .*validation accepted; confirmation answered 200/);
    expect(h.receiver.on("/confirm")[0]!.body).toMatchObject({ BillRefNumber: "ACME-42", TransAmount: "700.00" });
    const badPay = await submit(h, "/console/c2b", { msisdn: "07", amount: "700", billRefNumber: "A" });
    expect(badPay.headers.get("location")).toContain("error=");

    const reset = await submit(h, "/console/reset", {});
    expect(reset.status).toBe(303);
    expect(h.sandbox.prompts()).toEqual([]);
    expect(h.sandbox.registrations()).toEqual([]);
  });
});

describe("the gate (SANDBOX_CONTROL_TOKEN)", () => {
  it("asks for the token on the console, phone page, their forms and the control API; Daraja's API stays open", async () => {
    h = await startHarness({ controlToken: TOKEN });
    expect((await h.call("/")).status).toBe(401);
    expect((await h.call("/phone")).status).toBe(401);
    expect((await h.control("/prompts")).status).toBe(401);
    const id = await pushed(h);
    expect((await submit(h, `/phone/${id}`, { pin: "1234" })).status).toBe(401);
    expect(h.sandbox.prompt(id)?.state).toBe("pending");
    const withToken = await h.control("/prompts", undefined, { "X-Sandbox-Token": TOKEN });
    expect(withToken.status).toBe(200);
    expect(withToken.json).toHaveLength(1);
    const login = await submit(h, "/token", { token: TOKEN, next: "/sandbox/mpesa/phone" });
    expect(login.status).toBe(303);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    expect((await h.call("/phone", { headers: { cookie } })).status).toBe(200);
  });
});
