import { createHmac, timingSafeEqual } from "node:crypto";
import createPaystack from "paystack-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_KEY, startPaystack, type PaystackHarness } from "@jumbe/sandbox/paystack/test-support";

/**
 * The Paystack sandbox (sandbox/paystack) driven by `paystack-api` 2.0.6, a widely used community Node
 * client (github.com/pariola/paystack). It takes no base URL: the constructor sets the public property
 * `endpoint` to https://api.paystack.co, which every call reads; this file sets it to the sandbox's
 * loopback address after construction and changes nothing else. Jumbe's Paystack client
 * (app/.server/infrastructure/clients/paystack.ts) calls transaction initialize and verify only (no
 * charge_authorization, no refunds), and receives `charge.success` webhooks signed with
 * `x-paystack-signature`: the HMAC-SHA512 (hex) of the body with the secret key.
 *
 * A quirk of the library, not of the sandbox: its resources live on the shared prototype, bound to
 * the instance constructed last, so two instances with different keys cannot be used side by side;
 * each test below constructs the one it uses just before using it.
 */
let h: PaystackHarness;
beforeAll(async () => {
  h = await startPaystack();
});
afterAll(async () => {
  await h.close();
});

function paystack(key = SECRET_KEY) {
  const client = createPaystack(key);
  expect(client.endpoint).toBe("https://api.paystack.co");
  client.endpoint = h.base;
  return client;
}

/** Paystack's refusal as paystack-api surfaces it: request-promise's StatusCodeError, the JSON body as `error`. */
async function refusal(promise: Promise<unknown>): Promise<{ name: string; statusCode: number; error: unknown }> {
  try {
    await promise;
  } catch (error) {
    const { name, statusCode, error: body } = error as { name: string; statusCode?: number; error?: unknown };
    if (statusCode === undefined) throw error;
    return { name, statusCode, error: body };
  }
  throw new Error("the call was expected to fail");
}

const CALLBACK = "http://localhost:3000/billing/card/return";

describe("transaction initialize and verify, as Jumbe calls them", () => {
  it("initializes a KES payment, verifies it abandoned, then success once the card pays", async () => {
    const client = paystack();
    const initialized = await client.transaction.initialize({
      email: "owner@duka.co.ke",
      amount: 250_000,
      currency: "KES",
      reference: "fidelity-card-1",
      callback_url: CALLBACK,
      channels: ["card"],
      metadata: { organizationId: "org-1", paymentId: "pay-1" },
    });
    expect(initialized).toEqual({
      status: true,
      message: "Authorization URL created",
      data: {
        authorization_url: expect.stringMatching(/\/sandbox\/paystack\/checkout\/\w+$/),
        access_code: expect.any(String),
        reference: "fidelity-card-1",
      },
    });

    const before = await client.transaction.verify({ reference: "fidelity-card-1" });
    expect(before).toMatchObject({ status: true, message: "Verification successful", data: { status: "abandoned", paid_at: null } });

    const paid = await h.control("/transactions/fidelity-card-1/pay", { method: "POST", body: JSON.stringify({ card: "success" }) });
    expect(paid.status).toBe(200);
    const after = await client.transaction.verify({ reference: "fidelity-card-1" });
    expect(after).toMatchObject({
      status: true,
      data: {
        status: "success",
        reference: "fidelity-card-1",
        amount: 250_000,
        currency: "KES",
        channel: "card",
        gateway_response: "Successful",
        paid_at: expect.any(String),
        metadata: { organizationId: "org-1", paymentId: "pay-1" },
        customer: { email: "owner@duka.co.ke" },
        authorization: { last4: "4081", reusable: expect.any(Boolean) },
      },
    });
  });

  it("refuses what Paystack refuses, as request-promise's StatusCodeError with Paystack's { status: false, message }", async () => {
    const client = paystack();
    const cases: [Promise<unknown>, number, string][] = [
      [client.transaction.initialize({ email: "not-an-email", amount: 1000, currency: "KES" }), 400, "Invalid Email Address Passed"],
      [client.transaction.initialize({ email: "owner@duka.co.ke", amount: 0, currency: "KES" }), 400, "Invalid Amount Sent"],
      [
        client.transaction.initialize({ email: "owner@duka.co.ke", amount: 1000, currency: "USD" }),
        400,
        "Currency not supported by merchant",
      ],
      [client.transaction.verify({ reference: "no-such-reference" }), 400, "Transaction reference not found"],
    ];
    for (const [call, statusCode, message] of cases)
      expect(await refusal(call)).toEqual({
        name: "StatusCodeError",
        statusCode,
        error: expect.objectContaining({ status: false, message }),
      });

    await client.transaction.initialize({ email: "owner@duka.co.ke", amount: 1000, currency: "KES", reference: "fidelity-dup" });
    expect(
      await refusal(client.transaction.initialize({ email: "owner@duka.co.ke", amount: 1000, currency: "KES", reference: "fidelity-dup" })),
    ).toMatchObject({ statusCode: 400, error: { status: false, message: "Duplicate Transaction Reference" } });
  });

  it("refuses a wrong secret key with 401 Invalid key", async () => {
    const wrong = paystack("sk_test_not_the_key");
    expect(await refusal(wrong.transaction.verify({ reference: "fidelity-card-1" }))).toEqual({
      name: "StatusCodeError",
      statusCode: 401,
      error: expect.objectContaining({ status: false, message: "Invalid key" }),
    });
  });
});

describe("the charge.success webhook", () => {
  it("is signed as Paystack's docs say (HMAC-SHA512 hex of the body with the secret key), and paystack-api's own check accepts it", async () => {
    const client = paystack();
    await client.transaction.initialize({ email: "owner@duka.co.ke", amount: 99_900, currency: "KES", reference: "fidelity-hook-1" });
    await h.control("/transactions/fidelity-hook-1/pay", { method: "POST", body: JSON.stringify({ card: "success" }) });
    await h.control("/webhooks/flush", { method: "POST" });

    const delivered = h.receiver.received.find((hook) => hook.body.includes("fidelity-hook-1"));
    if (!delivered) throw new Error("no webhook for fidelity-hook-1");
    const signature = String(delivered.headers["x-paystack-signature"]);
    const expected = createHmac("sha512", SECRET_KEY).update(delivered.body).digest("hex");
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    expect(timingSafeEqual(Buffer.from(signature), Buffer.from(expected))).toBe(true);
    const event = JSON.parse(delivered.body) as { event: string; data: Record<string, unknown> };
    expect(event).toMatchObject({ event: "charge.success", data: { reference: "fidelity-hook-1", amount: 99_900, status: "success" } });

    // paystack-api's Events.middleware: HMAC of JSON.stringify(req.body), then the event is emitted.
    const seen: Record<string, unknown>[] = [];
    const onSuccess = (data: Record<string, unknown>) => void seen.push(data);
    client.Events.on("charge.success", onSuccess);
    const answered: number[] = [];
    const res = { sendStatus: (status: number) => answered.push(status) };
    client.Events.middleware({ body: event, headers: { "x-paystack-signature": signature } }, res);
    client.Events.middleware(
      { body: { ...event, data: { ...event.data, amount: 1 } }, headers: { "x-paystack-signature": signature } },
      res,
    );
    client.Events.off("charge.success", onSuccess);
    expect(answered).toEqual([200, 200]);
    expect(seen).toEqual([expect.objectContaining({ reference: "fidelity-hook-1", amount: 99_900 })]);
  });
});
