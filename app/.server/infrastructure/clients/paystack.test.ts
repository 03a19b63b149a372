import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { SECRET_KEY, startPaystack, type PaystackHarness } from "@jumbe/sandbox/paystack/test-support";
import {
  PaystackError,
  paystackClient,
  paystackDeclineWords,
  parsePaystackEvent,
  verifyPaystackSignature,
  type InitializeInput,
} from "./paystack";

let h: PaystackHarness | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const input = (reference: string, extra: Partial<InitializeInput> = {}): InitializeInput => ({
  email: "owner@duka.co.ke",
  amountCents: 250_000,
  reference,
  callbackUrl: "http://localhost:3000/billing/card/return",
  metadata: { organisationId: "org_1", topupId: "top_1" },
  ...extra,
});

async function setup() {
  h = await startPaystack();
  return paystackClient({ baseUrl: h.base, secretKey: SECRET_KEY, timeoutMs: 5000 });
}

/** A local server answering every request with `handler` (or never, when it does nothing). */
async function fakePaystack(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer(handler);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failure(promise: Promise<unknown>): Promise<PaystackError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PaystackError);
  return error as PaystackError;
}

describe("paystackClient against the sandbox", () => {
  it("initializes, is paid through the control API, and verifies as success", async () => {
    const client = await setup();
    const started = await client.initializeTransaction(input("jmb-card-0001"));
    expect(started.reference).toBe("jmb-card-0001");
    expect(started.accessCode).toMatch(/^[a-z0-9]{15}$/);
    expect(started.authorizationUrl).toBe(`${h!.base}/checkout/${started.accessCode}`);
    expect(h!.sandbox.transaction("jmb-card-0001")).toMatchObject({
      amount: 250_000,
      currency: "KES",
      email: "owner@duka.co.ke",
      callbackUrl: "http://localhost:3000/billing/card/return",
      metadata: { organisationId: "org_1", topupId: "top_1" },
    });

    const paid = await h!.control("/transactions/jmb-card-0001/pay", { method: "POST", body: JSON.stringify({ card: "success" }) });
    expect(paid.status).toBe(200);

    const verified = await client.verifyTransaction("jmb-card-0001");
    expect(verified).toMatchObject({
      reference: "jmb-card-0001",
      status: "success",
      amountCents: 250_000,
      currency: "KES",
      gatewayResponse: "Successful",
      channel: "card",
      cardLast4: "4081",
      cardBrand: "visa",
      customerEmail: "owner@duka.co.ke",
      metadata: { organisationId: "org_1", topupId: "top_1" },
    });
    expect(verified.paidAt).toBeInstanceOf(Date);
    expect(verified.paidAt!.getTime()).not.toBeNaN();
  });

  it("verifies a declined card as failed, with words for the owner", async () => {
    const client = await setup();
    await client.initializeTransaction(input("jmb-card-0002"));
    h!.sandbox.pay("jmb-card-0002", "declined");
    const verified = await client.verifyTransaction("jmb-card-0002");
    expect(verified).toMatchObject({ status: "failed", gatewayResponse: "Insufficient Funds", paidAt: null, amountCents: 250_000 });
    expect(paystackDeclineWords(verified.gatewayResponse)).toContain("does not have enough money");
  });

  it("verifies an unpaid transaction as abandoned, and one waiting for its 3-D Secure code as pending", async () => {
    const client = await setup();
    const started = await client.initializeTransaction(input("jmb-card-0003"));
    expect(await client.verifyTransaction("jmb-card-0003")).toMatchObject({
      status: "abandoned",
      paidAt: null,
      cardLast4: null,
      gatewayResponse: "The transaction was not completed",
    });
    const checkout = new URL(started.authorizationUrl);
    await fetch(checkout, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "number=4084080000000409&expiry=12%2F39&cvv=000",
      redirect: "manual",
    });
    expect((await client.verifyTransaction("jmb-card-0003")).status).toBe("pending");
  });

  it("throws PaystackError 401 with a wrong key, 400 for an unknown or duplicate reference", async () => {
    const client = await setup();
    const wrong = paystackClient({ baseUrl: h!.base, secretKey: "sk_test_not_the_right_key_00", timeoutMs: 5000 });
    const denied = await failure(wrong.initializeTransaction(input("jmb-card-0004")));
    expect(denied).toMatchObject({ httpStatus: 401, kind: "api" });
    expect(denied.message).toContain("Invalid key");
    expect(h!.sandbox.transactions()).toHaveLength(0);

    await client.initializeTransaction(input("jmb-card-0004"));
    expect(await failure(wrong.verifyTransaction("jmb-card-0004"))).toMatchObject({ httpStatus: 401 });
    const unknown = await failure(client.verifyTransaction("jmb-no-such"));
    expect(unknown).toMatchObject({ httpStatus: 400 });
    expect(unknown.message).toContain("Transaction reference not found");
    const duplicate = await failure(client.initializeTransaction(input("jmb-card-0004")));
    expect(duplicate).toMatchObject({ httpStatus: 400 });
    expect(duplicate.message).toContain("Duplicate Transaction Reference");
  });

  it("refuses a bad amount before calling", async () => {
    const client = await setup();
    await expect(client.initializeTransaction(input("jmb-card-0005", { amountCents: 10.5 }))).rejects.toThrow(TypeError);
    await expect(client.initializeTransaction(input("jmb-card-0005", { amountCents: 0 }))).rejects.toThrow(TypeError);
    expect(h!.sandbox.transactions()).toHaveLength(0);
  });
});

describe("paystackClient when Paystack misbehaves", () => {
  it("times out with httpStatus 0", async () => {
    const baseUrl = await fakePaystack(() => {}); // never answers
    const error = await failure(paystackClient({ baseUrl, secretKey: SECRET_KEY, timeoutMs: 150 }).verifyTransaction("jmb-x"));
    expect(error).toMatchObject({ httpStatus: 0, kind: "timeout" });
  });

  it("reports a server that cannot be reached", async () => {
    const baseUrl = await fakePaystack((_req, res) => res.end());
    servers[0]!.closeAllConnections();
    await new Promise<void>((resolve) => servers.shift()!.close(() => resolve()));
    const error = await failure(paystackClient({ baseUrl, secretKey: SECRET_KEY, timeoutMs: 2000 }).verifyTransaction("jmb-x"));
    expect(error).toMatchObject({ httpStatus: 0, kind: "network" });
  });

  it("reports an answer that is not Paystack's", async () => {
    const html = await fakePaystack((_req, res) => res.writeHead(502, { "Content-Type": "text/html" }).end("<h1>Bad gateway</h1>"));
    expect(await failure(paystackClient({ baseUrl: html, secretKey: SECRET_KEY }).verifyTransaction("jmb-x"))).toMatchObject({
      httpStatus: 502,
      kind: "malformed",
    });
    const otherReference = await fakePaystack((_req, res) =>
      res
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ status: true, message: "ok", data: { reference: "someone-else", amount: 100, status: "success" } })),
    );
    expect(await failure(paystackClient({ baseUrl: otherReference, secretKey: SECRET_KEY }).verifyTransaction("jmb-x"))).toMatchObject({
      kind: "malformed",
    });
  });

  it("reads its configuration from env() when none is given", async () => {
    const seen: string[] = [];
    const baseUrl = await fakePaystack((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res
        .writeHead(400, { "Content-Type": "application/json" })
        .end(JSON.stringify({ status: false, message: "Transaction reference not found" }));
    });
    const before = env();
    setEnv({ ...parseEnv({ ...process.env, PAYSTACK_BASE_URL: `${baseUrl}/` }) });
    try {
      expect(await failure(paystackClient().verifyTransaction("ref/with slash"))).toMatchObject({ httpStatus: 400 });
    } finally {
      setEnv(before);
    }
    expect(seen).toEqual([`GET /transaction/verify/ref%2Fwith%20slash Bearer ${env().PAYSTACK_SECRET_KEY}`]);
  });
});

describe("verifyPaystackSignature", () => {
  it("accepts the sandbox's webhook and refuses a missing, wrong or tampered one", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction();
    h.sandbox.pay(reference, "success");
    await h.sandbox.flushWebhooks();
    const { body, headers } = h.receiver.received[0]!;
    const signature = headers["x-paystack-signature"] as string;

    expect(verifyPaystackSignature(body, signature, SECRET_KEY)).toBe(true);
    expect(verifyPaystackSignature(Buffer.from(body), signature, SECRET_KEY)).toBe(true);
    expect(verifyPaystackSignature(body, signature.toUpperCase(), SECRET_KEY)).toBe(true);
    expect(verifyPaystackSignature(body, undefined, SECRET_KEY)).toBe(false);
    expect(verifyPaystackSignature(body, "", SECRET_KEY)).toBe(false);
    expect(verifyPaystackSignature(body, "not-hex", SECRET_KEY)).toBe(false);
    expect(verifyPaystackSignature(body, signature.slice(0, 64), SECRET_KEY)).toBe(false);
    expect(verifyPaystackSignature(body, signature, "sk_test_another_key_000")).toBe(false);
    expect(verifyPaystackSignature(body.replace('"amount":250000', '"amount":2500000'), signature, SECRET_KEY)).toBe(false);
    expect(verifyPaystackSignature(`${body} `, signature, SECRET_KEY)).toBe(false);
  });

  it("uses PAYSTACK_SECRET_KEY by default", () => {
    const body = JSON.stringify({ event: "charge.success", data: { reference: "r" } });
    const signed = createHmac("sha512", env().PAYSTACK_SECRET_KEY).update(body).digest("hex");
    expect(verifyPaystackSignature(body, signed)).toBe(true);
    expect(verifyPaystackSignature(body, createHmac("sha512", "other").update(body).digest("hex"))).toBe(false);
  });
});

describe("parsePaystackEvent", () => {
  it("reads the sandbox's charge.success, parsed or raw", async () => {
    h = await startPaystack();
    const { reference } = await h.newTransaction({ amount: 123_456 });
    h.sandbox.pay(reference, "success");
    await h.sandbox.flushWebhooks();
    const { body } = h.receiver.received[0]!;
    const expected = { event: "charge.success", reference, amountCents: 123_456, currency: "KES", status: "success" };
    expect(parsePaystackEvent(JSON.parse(body))).toEqual(expected);
    expect(parsePaystackEvent(body)).toEqual(expected);
    expect(parsePaystackEvent(Buffer.from(body))).toEqual(expected);
  });

  const good = { event: "charge.success", data: { reference: "r1", amount: 100, currency: "KES", status: "success" } };
  it.each([
    ["not JSON", "{nope", "not JSON"],
    ["an array", [good], "not a JSON object"],
    ["null", null, "not a JSON object"],
    ["no event", { data: good.data }, "`event`"],
    ["no data", { event: "charge.success" }, "`data`"],
    ["no reference", { ...good, data: { ...good.data, reference: "" } }, "`data.reference`"],
    ["a fractional amount", { ...good, data: { ...good.data, amount: 10.5 } }, "`data.amount`"],
    ["an amount as text", { ...good, data: { ...good.data, amount: "100" } }, "`data.amount`"],
    ["no currency", { ...good, data: { ...good.data, currency: undefined } }, "`data.currency`"],
    ["no status", { ...good, data: { ...good.data, status: 3 } }, "`data.status`"],
  ])("throws on %s", (_label, body, message) => {
    expect(() => parsePaystackEvent(body)).toThrow(message);
  });
});

describe("paystackDeclineWords", () => {
  it.each([
    ["Insufficient Funds", "does not have enough money"],
    ["3DS Authentication Failed", "one-time code"],
    ["Declined", "declined the payment"],
    ["Do Not Honor", "declined the payment"],
    ["Expired Card", "expired"],
    ["The transaction was not completed", "nothing was charged"],
    ["Issuer or Switch Inoperative", "did not answer in time"],
    ["Transaction not permitted to cardholder", "declined the payment"],
    ["Stolen Card, Pick-Up", "refused this card"],
    ["", "did not go through"],
    ["Something new", 'the bank said: "Something new"'],
  ])("%j reads plainly", (said, words) => {
    expect(paystackDeclineWords(said)).toContain(words);
  });
});
