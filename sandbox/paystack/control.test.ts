import { afterEach, describe, expect, it } from "vitest";
import { paystackSignature } from "./index";
import { SECRET_KEY, startPaystack, type PaystackHarness } from "./test-support";

let h: PaystackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const post = (body?: unknown): RequestInit => ({ method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });

describe("webhook delivery", () => {
  it("retries until the receiver answers 200, with the same signed bytes", async () => {
    h = await startPaystack({ webhookAttempts: 4 });
    h.receiver.answer(500, 503);
    const { reference } = await h.newTransaction();
    h.sandbox.pay(reference, "success");
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(3);
    const bodies = new Set(h.receiver.received.map((r) => r.body));
    expect(bodies.size).toBe(1);
    for (const r of h.receiver.received) expect(r.headers["x-paystack-signature"]).toBe(paystackSignature(r.body, SECRET_KEY));
    const [record] = h.sandbox.webhooks();
    expect(record).toMatchObject({ index: 0, event: "charge.success", reference, state: "delivered" });
    expect(record!.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
  });

  it("gives up after the last attempt, and records a receiver that cannot be reached", async () => {
    h = await startPaystack({ webhookAttempts: 2 });
    h.receiver.answer(500, 500);
    const { reference } = await h.newTransaction();
    h.sandbox.pay(reference, "success");
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(2);
    expect(h.sandbox.webhooks()[0]).toMatchObject({ state: "failed" });

    h.sandbox.setWebhookUrl("http://127.0.0.1:1/webhooks/paystack");
    const second = await h.newTransaction();
    h.sandbox.pay(second.reference, "success");
    await h.sandbox.flushWebhooks();
    const unreachable = h.sandbox.webhooks()[1]!;
    expect(unreachable.state).toBe("failed");
    expect(unreachable.attempts).toHaveLength(2);
    expect(unreachable.attempts[0]!.error).toBeTruthy();
  });

  it("the signature does not verify with another key or over changed bytes", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction();
    h.sandbox.pay(reference, "success");
    await h.sandbox.flushWebhooks();
    const { body, headers } = h.receiver.received[0]!;
    expect(headers["x-paystack-signature"]).toMatch(/^[0-9a-f]{128}$/);
    expect(paystackSignature(body, "sk_test_another_key_0000")).not.toBe(headers["x-paystack-signature"]);
    expect(paystackSignature(body.replace("250000", "2500000"), SECRET_KEY)).not.toBe(headers["x-paystack-signature"]);
  });
});

describe("the control API", () => {
  it("lists transactions and pays one with each card", async () => {
    h = await startPaystack();
    const a = await h.newTransaction();
    const b = await h.newTransaction();
    const c = await h.newTransaction();
    const d = await h.newTransaction();

    const list = await h.control("/transactions");
    expect(list.status).toBe(200);
    expect(list.json.transactions.map((t: { reference: string }) => t.reference)).toEqual([
      d.reference,
      c.reference,
      b.reference,
      a.reference,
    ]);

    expect((await h.control(`/transactions/${a.reference}/pay`, post({ card: "success" }))).json.transaction).toMatchObject({
      status: "success",
      card: { last4: "4081" },
    });
    expect((await h.control(`/transactions/${b.reference}/pay`, post({ card: "declined" }))).json.transaction).toMatchObject({
      status: "failed",
      gatewayResponse: "Insufficient Funds",
    });
    expect((await h.control(`/transactions/${c.reference}/pay`, post({ card: "3ds" }))).json.transaction).toMatchObject({
      status: "success",
      card: { last4: "0409" },
    });
    expect((await h.control(`/transactions/${d.reference}/pay`, post({ card: "3ds", otp: "999999" }))).json.transaction).toMatchObject({
      status: "failed",
      gatewayResponse: "3DS Authentication Failed",
    });

    const flushed = await h.control("/webhooks/flush", post());
    expect(flushed.json.webhooks.map((w: { reference: string; state: string }) => [w.reference, w.state])).toEqual([
      [a.reference, "delivered"],
      [c.reference, "delivered"],
    ]);
    expect((await h.control("/webhooks")).json.webhooks).toHaveLength(2);
    expect((await h.verify(a.reference)).json.data.status).toBe("success");
  });

  it("refuses bad payments with 400, 404 and 409", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction();
    expect((await h.control(`/transactions/${reference}/pay`, post({ card: "gold" }))).status).toBe(400);
    expect((await h.control(`/transactions/${reference}/pay`, post({ card: "success", otp: 123 }))).status).toBe(400);
    expect((await h.control("/transactions/nope/pay", post({ card: "success" }))).status).toBe(404);
    expect((await h.control("/transactions/nope")).status).toBe(404);
    expect((await h.control(`/transactions/${reference}/pay`, post({ card: "success" }))).status).toBe(200);
    const again = await h.control(`/transactions/${reference}/pay`, post({ card: "success" }));
    expect(again.status).toBe(409);
    expect(again.json.message).toContain("already been paid");
    expect((await h.control(`/transactions/${reference}/pay`, { method: "POST", body: "{oops" })).status).toBe(400);
    const big = await h.control(`/transactions/${reference}/pay`, post({ card: "success", pad: "x".repeat(70_000) }));
    expect(big.status).toBe(413);
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
  });

  it("resends a webhook's exact bytes as a new record (a duplicate delivery)", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction();
    await h.control(`/transactions/${reference}/pay`, post({ card: "success" }));
    await h.sandbox.flushWebhooks();
    const resent = await h.control("/webhooks/0/resend", post());
    expect(resent.status).toBe(200);
    expect(resent.json.webhook).toMatchObject({ index: 1, resendOf: 0, reference });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(2);
    expect(h.receiver.received[1]!.body).toBe(h.receiver.received[0]!.body);
    expect(h.receiver.received[1]!.headers["x-paystack-signature"]).toBe(h.receiver.received[0]!.headers["x-paystack-signature"]);
    expect((await h.control("/webhooks/7/resend", post())).status).toBe(404);
    expect((await h.control("/webhooks/x/resend", post())).status).toBe(404);
  });

  it("resets transactions and webhooks", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction();
    h.sandbox.pay(reference, "success");
    await h.sandbox.flushWebhooks();
    expect((await h.control("/reset", post())).json).toEqual({ ok: true });
    expect((await h.control("/transactions")).json.transactions).toEqual([]);
    expect((await h.control("/webhooks")).json.webhooks).toEqual([]);
    expect((await h.verify(reference)).status).toBe(400);
  });
});

describe("with a control token", () => {
  const token = "t".repeat(40);

  it("gates the control API and the console, not the API or the checkout", async () => {
    h = await startPaystack({ controlToken: token });
    const { access_code, reference } = await h.newTransaction();
    expect((await h.control("/transactions")).status).toBe(401);
    expect((await h.control(`/transactions/${reference}/pay`, post({ card: "success" }))).status).toBe(401);
    expect(h.sandbox.transaction(reference)?.status).toBe("abandoned");
    const allowed = await h.control("/transactions", { headers: { "X-Sandbox-Token": token } });
    expect(allowed.status).toBe(200);

    const consoleDenied = await fetch(`${h.base}`);
    expect(consoleDenied.status).toBe(401);
    expect(await consoleDenied.text()).toContain("Sandbox token");
    const consoleShown = await fetch(`${h.base}`, { headers: { "X-Sandbox-Token": token } });
    expect(consoleShown.status).toBe(200);
    const html = await consoleShown.text();
    expect(html).toContain(reference);
    expect(html).toContain(`/sandbox/paystack/checkout/${access_code}`);

    expect((await fetch(`${h.base}/checkout/${access_code}`)).status).toBe(200);
    expect((await h.verify(reference)).status).toBe(200);
  });
});

describe("the console", () => {
  it("pays a transaction and resends a webhook with plain form posts", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction();
    const paid = await h.postForm("/sandbox/paystack/console/pay", { reference, card: "success" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toContain("/sandbox/paystack?notice=");
    expect(h.sandbox.transaction(reference)?.status).toBe("success");
    await h.sandbox.flushWebhooks();
    const resent = await h.postForm("/sandbox/paystack/console/webhooks/0/resend", {});
    expect(resent.status).toBe(303);
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(2);
    const html = await (await fetch(h.base)).text();
    expect(html).toContain("charge.success");
    expect(html).toContain("resend of 0");
  });
});
