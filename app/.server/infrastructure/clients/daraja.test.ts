import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KEY, PASSKEY, SECRET, SHORTCODE, startHarness, type Harness } from "@jumbe/sandbox/mpesa/test-support";
import {
  clearDarajaTokens,
  DarajaError,
  darajaClient,
  darajaTimestamp,
  mpesaResultWords,
  normaliseMpesaPhone,
  parseC2bPayload,
  parseStkCallback,
  stkPassword,
} from "./daraja";

let h: Harness | undefined;
let now = Date.UTC(2026, 10, 24, 9, 0, 0);

beforeEach(() => {
  clearDarajaTokens();
  now = Date.UTC(2026, 10, 24, 9, 0, 0);
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const clientFor = (harness: Harness, overrides: Record<string, unknown> = {}) =>
  darajaClient({
    baseUrl: harness.base,
    consumerKey: KEY,
    consumerSecret: SECRET,
    shortcode: SHORTCODE,
    passkey: PASSKEY,
    timeoutMs: 5000,
    environment: "sandbox",
    now: () => now,
    ...overrides,
  });

const push = (phone = "0712345678") => ({
  phone,
  amountKes: 500,
  accountReference: "JUMBE-1",
  description: "Wallet top-up",
  callbackUrl: h!.receiver.url("/stk"),
});

/** The DarajaError a promise rejects with. */
async function refusalOf(promise: Promise<unknown>): Promise<DarajaError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DarajaError) return error;
    throw error;
  }
  throw new Error("expected a DarajaError");
}

/** A server that answers every request with `handler`'s status and body (or never, with "hang"). */
async function stubServer(handler: () => { status: number; body: string } | "hang") {
  const server = http.createServer((req, res) => {
    req.resume();
    const answer = handler();
    if (answer === "hang") return;
    res.writeHead(answer.status, { "Content-Type": "text/html" }).end(answer.body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("OAuth tokens", () => {
  it("caches the token per base URL and consumer key", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await client.stkPush(push("0712345671"));
    await client.stkPush(push("0712345672"));
    expect(h.sandbox.tokenRequests()).toBe(1);
    await clientFor(h, { consumerKey: "another-key" })
      .stkPush(push("0712345673"))
      .catch(() => {});
    expect(h.sandbox.tokenRequests()).toBe(2);
  });

  it("concurrent calls share one token request (single flight)", async () => {
    h = await startHarness();
    const client = clientFor(h);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => client.stkPush(push(`071234567${i}`))));
    expect(new Set(answers.map((a) => a.checkoutRequestId)).size).toBe(5);
    expect(h.sandbox.tokenRequests()).toBe(1);
  });

  it("refreshes about 5 minutes before expiry", async () => {
    h = await startHarness({ now: () => now });
    const client = clientFor(h);
    await client.stkPush(push("0712345671"));
    now += (3599 - 301) * 1000;
    await client.stkPush(push("0712345672"));
    expect(h.sandbox.tokenRequests()).toBe(1);
    now += 2000;
    await client.stkPush(push("0712345673"));
    expect(h.sandbox.tokenRequests()).toBe(2);
  });

  it("on 404.001.03 gets a fresh token and tries once more", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await client.stkPush(push("0712345671"));
    h.sandbox.revokeTokens();
    const second = await client.stkPush(push("0712345672"));
    expect(second.checkoutRequestId).toMatch(/^ws_CO_/);
    expect(h.sandbox.tokenRequests()).toBe(2);
    expect(h.sandbox.prompts()).toHaveLength(2);
  });

  it("wrong consumer credentials: DarajaError 400 400.008.01", async () => {
    h = await startHarness();
    const error = await refusalOf(clientFor(h, { consumerSecret: "wrong" }).stkQuery("ws_CO_1"));
    expect(error).toMatchObject({
      httpStatus: 400,
      errorCode: "400.008.01",
      errorMessage: "Invalid Authentication passed",
      inDoubt: false,
    });
    expect(error.requestId).toEqual(expect.any(String));
  });
});

describe("STK push and query", () => {
  it("pushes with the EAT timestamp and password, numbers for phone and amount, and reads the answer", async () => {
    h = await startHarness();
    const accepted = await clientFor(h).stkPush({ ...push("+254 712 345 678"), accountReference: " JUMBE-1 " });
    expect(accepted).toEqual({
      merchantRequestId: expect.stringMatching(/^\d{5}-\d{8}-\d$/),
      checkoutRequestId: expect.stringMatching(/^ws_CO_\d+712345678$/),
      customerMessage: "Success. Request accepted for processing",
    });
    expect(h.sandbox.prompt(accepted.checkoutRequestId)).toMatchObject({
      phone: "254712345678",
      amount: 500,
      accountReference: "JUMBE-1",
      transactionDesc: "Wallet top-up",
      shortcode: SHORTCODE,
    });
  });

  it("query: pending while the prompt waits, then done with a numeric ResultCode", async () => {
    h = await startHarness();
    const client = clientFor(h);
    const { checkoutRequestId } = await client.stkPush(push());
    expect(await client.stkQuery(checkoutRequestId)).toEqual({ state: "pending" });
    await h.sandbox.answer(checkoutRequestId, "wrong_pin");
    expect(await client.stkQuery(checkoutRequestId)).toEqual({
      state: "done",
      resultCode: 2001,
      resultDesc: "The initiator information is invalid.",
    });
    const error = await refusalOf(client.stkQuery("ws_CO_00000000000000000712345678"));
    expect(error).toMatchObject({ httpStatus: 400, errorCode: "400.002.02", errorMessage: "Bad Request - Invalid CheckoutRequestID" });
  });

  it("maps Daraja's refusals to DarajaError", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await client.stkPush(push());
    expect(await refusalOf(client.stkPush(push()))).toMatchObject({
      httpStatus: 500,
      errorCode: "500.001.1001",
      errorMessage: "Unable to lock subscriber, a transaction is already in process for the current subscriber",
    });
    expect(await refusalOf(clientFor(h, { passkey: "not-the-passkey" }).stkPush(push("0712000001")))).toMatchObject({
      httpStatus: 500,
      errorCode: "500.001.1001",
      errorMessage: "[MerchantValidate] - Wrong credentials",
    });
    expect(await refusalOf(client.stkPush({ ...push("0712000002"), callbackUrl: "http://jumbe.example/cb" }))).toMatchObject({
      httpStatus: 400,
      errorCode: "400.002.02",
      errorMessage: "Bad Request - Invalid CallBackURL",
    });
    const error = await refusalOf(client.stkPush({ ...push("0712000002"), callbackUrl: "http://jumbe.example/cb" }));
    expect(error.message).toBe("M-Pesa (Daraja) 400 400.002.02: Bad Request - Invalid CallBackURL");
  });

  it("refuses bad input before calling Daraja", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await expect(client.stkPush(push("0201234567"))).rejects.toThrow(RangeError);
    await expect(client.stkPush({ ...push(), amountKes: 10.5 })).rejects.toThrow(/whole shillings/);
    await expect(client.stkPush({ ...push(), amountKes: 0 })).rejects.toThrow(RangeError);
    await expect(client.stkPush({ ...push(), accountReference: "THIRTEEN-CHAR" })).rejects.toThrow(/accountReference/);
    await expect(client.stkPush({ ...push(), description: "Fourteen chars" })).rejects.toThrow(/description/);
    await expect(client.stkPush({ ...push(), callbackUrl: "/relative" })).rejects.toThrow(/callbackUrl/);
    expect(h.sandbox.tokenRequests()).toBe(0);
  });

  it("a timeout is a DarajaError in doubt; a refused connection is not; a non-JSON answer keeps its status", async () => {
    const hanging = await stubServer(() => "hang");
    const refused = await stubServer(() => "hang");
    await refused.close();
    const bodies = ["<html>Bad Gateway</html>", "x".repeat(300_000)];
    const gateway = await stubServer(() => ({ status: 502, body: bodies.shift() ?? "" }));
    try {
      const base = { consumerKey: KEY, consumerSecret: SECRET, shortcode: SHORTCODE, passkey: PASSKEY, environment: "sandbox" as const };
      const timeout = await refusalOf(darajaClient({ ...base, baseUrl: hanging.base, timeoutMs: 100 }).stkQuery("ws_CO_1"));
      expect(timeout).toMatchObject({ httpStatus: 0, errorCode: null, inDoubt: true, errorMessage: "M-Pesa did not answer within 0.1 s." });
      const down = await refusalOf(darajaClient({ ...base, baseUrl: refused.base, timeoutMs: 2000 }).stkQuery("ws_CO_1"));
      expect(down).toMatchObject({ httpStatus: 0, inDoubt: false, errorMessage: "Could not reach M-Pesa (ECONNREFUSED)." });
      const bad = await refusalOf(darajaClient({ ...base, baseUrl: gateway.base, timeoutMs: 2000 }).stkQuery("ws_CO_1"));
      expect(bad).toMatchObject({ httpStatus: 502, errorCode: null, errorMessage: "M-Pesa answered HTTP 502: <html>Bad Gateway</html>" });
      const huge = await refusalOf(darajaClient({ ...base, baseUrl: gateway.base, timeoutMs: 2000 }).stkQuery("ws_CO_1"));
      expect(huge).toMatchObject({ httpStatus: 502, inDoubt: true, errorMessage: `M-Pesa answered HTTP 502: ${"x".repeat(200)}` });
    } finally {
      await hanging.close();
      await gateway.close();
    }
  });

  it("end to end: the sandbox's callback parses into the payment", async () => {
    h = await startHarness({ now: () => Date.UTC(2023, 11, 10, 10, 34, 16) });
    const { checkoutRequestId } = await clientFor(h).stkPush(push("0768130105"));
    await h.sandbox.answer(checkoutRequestId, "accept");
    const callback = parseStkCallback(h.receiver.on("/stk")[0]!.body);
    expect(callback).toEqual({
      merchantRequestId: expect.any(String),
      checkoutRequestId,
      resultCode: 0,
      resultDesc: "The service request is processed successfully.",
      amountKes: 500,
      receipt: expect.stringMatching(/^RLA[A-Z0-9]{7}$/),
      transactionDate: new Date("2023-12-10T10:34:16Z"),
      phone: "254768130105",
    });
  });
});

const TILL = {
  label: "Duka till",
  kind: "till" as const,
  shortcode: "7100001",
  tillNumber: "5100001",
  consumerKey: "till-app-key",
  consumerSecret: "till-app-secret",
  passkey: "till-passkey-0001",
};
const tillClient = (harness: Harness, overrides: Record<string, unknown> = {}) =>
  clientFor(harness, {
    consumerKey: TILL.consumerKey,
    consumerSecret: TILL.consumerSecret,
    shortcode: TILL.shortcode,
    passkey: TILL.passkey,
    kind: "till",
    tillNumber: TILL.tillNumber,
    ...overrides,
  });

describe("tills (CustomerBuyGoodsOnline)", () => {
  it("a till's push is BuyGoods, signed by the store number, PartyB the till", async () => {
    h = await startHarness({ shortcodes: [TILL] });
    const seen: Record<string, unknown>[] = [];
    const spy: typeof fetch = async (input, init) => {
      if (typeof init?.body === "string") seen.push(JSON.parse(init.body) as Record<string, unknown>);
      return fetch(input, init);
    };
    const accepted = await tillClient(h, { fetch: spy }).stkPush(push("0712000011"));
    expect(seen[0]).toMatchObject({
      TransactionType: "CustomerBuyGoodsOnline",
      BusinessShortCode: TILL.shortcode,
      PartyB: Number(TILL.tillNumber),
      Password: stkPassword(TILL.shortcode, TILL.passkey, seen[0]!.Timestamp as string),
    });
    expect(h.sandbox.prompt(accepted.checkoutRequestId)).toMatchObject({ state: "pending", shortcode: TILL.tillNumber });
    expect(await tillClient(h).stkQuery(accepted.checkoutRequestId)).toEqual({ state: "pending" });
  });

  it("a paybill's push is unchanged: PayBill to the paybill", async () => {
    h = await startHarness();
    const seen: Record<string, unknown>[] = [];
    const spy: typeof fetch = async (input, init) => {
      if (typeof init?.body === "string") seen.push(JSON.parse(init.body) as Record<string, unknown>);
      return fetch(input, init);
    };
    await clientFor(h, { fetch: spy, kind: "paybill" }).stkPush(push("0712000012"));
    expect(seen[0]).toMatchObject({ TransactionType: "CustomerPayBillOnline", BusinessShortCode: SHORTCODE, PartyB: Number(SHORTCODE) });
  });

  it("a till without its till number is refused before anything is sent", async () => {
    h = await startHarness({ shortcodes: [TILL] });
    await expect(tillClient(h, { tillNumber: "" }).stkPush(push())).rejects.toThrow(/till number/);
    expect(h.sandbox.prompts()).toHaveLength(0);
  });

  it("a till set up as a paybill ends as ResultCode 2028", async () => {
    h = await startHarness({ shortcodes: [TILL] });
    const client = tillClient(h, { kind: "paybill", tillNumber: "" });
    const { checkoutRequestId } = await client.stkPush(push("0712000013"));
    expect(await client.stkQuery(checkoutRequestId)).toMatchObject({ state: "done", resultCode: 2028 });
  });
});

describe("C2B", () => {
  it("registers the v2 URLs, and simulate sends a confirmation that parses", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await client.registerC2bUrls({
      validationUrl: h.receiver.url("/c2b/validate"),
      confirmationUrl: h.receiver.url("/c2b/confirm"),
      responseType: "Completed",
    });
    expect(h.sandbox.registrations()).toEqual([
      expect.objectContaining({ version: "v2", shortCode: SHORTCODE, responseType: "Completed" }),
    ]);
    const accepted = await client.simulateC2b({ msisdn: "0708374149", amountKes: 1200, billRefNumber: "ACME-42" });
    expect(accepted).toEqual({
      conversationId: expect.stringMatching(/^AG_/),
      originatorConversationId: expect.any(String),
      responseDescription: "Accept the service request successfully.",
    });
    await h.sandbox.flush();
    const payment = parseC2bPayload(h.receiver.on("/c2b/confirm")[0]!.body);
    expect(payment).toMatchObject({
      amountCents: 120_000,
      billRefNumber: "ACME-42",
      msisdn: "254708374149",
      shortCode: SHORTCODE,
      transactionType: "Pay Bill",
    });
  });

  it("a refused registration is a DarajaError; simulate refuses production", async () => {
    h = await startHarness();
    const error = await refusalOf(
      clientFor(h).registerC2bUrls({
        validationUrl: "https://jumbe.example/v",
        confirmationUrl: "https://jumbe.example/mpesa/c",
        responseType: "Completed",
      }),
    );
    expect(error).toMatchObject({ httpStatus: 400, errorMessage: "Bad Request - Invalid ConfirmationURL" });
    await expect(
      clientFor(h, { environment: "production" }).simulateC2b({ msisdn: "0708374149", amountKes: 1, billRefNumber: "A" }),
    ).rejects.toThrow(/only in Safaricom's sandbox/);
  });
});

describe("parseStkCallback", () => {
  const success = {
    Body: {
      stkCallback: {
        MerchantRequestID: "96657-188398728-1",
        CheckoutRequestID: "ws_CO_10122023133400273768130105",
        ResultCode: 0,
        ResultDesc: "The service request is processed successfully.",
        CallbackMetadata: {
          Item: [
            { Name: "Amount", Value: 1 },
            { Name: "MpesaReceiptNumber", Value: "RLA0R69NXM" },
            { Name: "Balance" },
            { Name: "TransactionDate", Value: 20231210133416 },
            { Name: "PhoneNumber", Value: 254768130105 },
          ],
        },
      },
    },
  };

  it("reads the reference's success sample, items by name", () => {
    expect(parseStkCallback(success)).toEqual({
      merchantRequestId: "96657-188398728-1",
      checkoutRequestId: "ws_CO_10122023133400273768130105",
      resultCode: 0,
      resultDesc: "The service request is processed successfully.",
      amountKes: 1,
      receipt: "RLA0R69NXM",
      transactionDate: new Date("2023-12-10T10:34:16.000Z"),
      phone: "254768130105",
    });
  });

  it("takes items in any order, Amount as a decimal or a string, and no PhoneNumber", () => {
    const items = [
      { Name: "PhoneNumber" },
      { Name: "TransactionDate", Value: "20231210133416" },
      { Name: "Balance" },
      { Name: "MpesaReceiptNumber", Value: "RLA0R69NXM" },
      { Name: "Amount", Value: 1.5 },
    ];
    const parsed = parseStkCallback({ Body: { stkCallback: { ...success.Body.stkCallback, CallbackMetadata: { Item: items } } } });
    expect(parsed).toMatchObject({ amountKes: 1.5, phone: null, transactionDate: new Date("2023-12-10T10:34:16Z") });
    items[4] = { Name: "Amount", Value: "100.00" as unknown as number };
    expect(parseStkCallback({ Body: { stkCallback: { ...success.Body.stkCallback, CallbackMetadata: { Item: items } } } }).amountKes).toBe(
      100,
    );
  });

  it("reads a failure without metadata", () => {
    expect(
      parseStkCallback({
        Body: {
          stkCallback: { MerchantRequestID: "m", CheckoutRequestID: "ws_CO_1", ResultCode: 1032, ResultDesc: "Request cancelled by user" },
        },
      }),
    ).toEqual({
      merchantRequestId: "m",
      checkoutRequestId: "ws_CO_1",
      resultCode: 1032,
      resultDesc: "Request cancelled by user",
      amountKes: null,
      receipt: null,
      transactionDate: null,
      phone: null,
    });
  });

  const cb = (stkCallback: Record<string, unknown>) => ({ Body: { stkCallback: { ...success.Body.stkCallback, ...stkCallback } } });
  const withItems = (Item: unknown[]) => cb({ CallbackMetadata: { Item } });
  it.each([
    ["null", null, /no Body.stkCallback/],
    ["a string", "ok", /no Body.stkCallback/],
    ["no stkCallback", { Body: {} }, /no Body.stkCallback/],
    ["no CheckoutRequestID", cb({ CheckoutRequestID: undefined }), /CheckoutRequestID/],
    ["ResultCode not a number", cb({ ResultCode: "zero" }), /ResultCode/],
    ["success without metadata", cb({ CallbackMetadata: undefined }), /CallbackMetadata/],
    ["success without a receipt", withItems([{ Name: "Amount", Value: 1 }]), /MpesaReceiptNumber/],
    ["success without an amount", withItems([{ Name: "MpesaReceiptNumber", Value: "RLA0R69NXM" }]), /Amount/],
    [
      "a bad TransactionDate",
      withItems([
        { Name: "Amount", Value: 1 },
        { Name: "MpesaReceiptNumber", Value: "RLA0R69NXM" },
        { Name: "TransactionDate", Value: 20231310133416 },
      ]),
      /TransactionDate/,
    ],
  ])("throws on %s", (_name, body, message) => {
    expect(() => parseStkCallback(body)).toThrow(message);
  });
});

describe("parseC2bPayload", () => {
  const sample = {
    TransactionType: "Pay Bill",
    TransID: "RKTQDM7W6S",
    TransTime: "20231210133416",
    TransAmount: "5000.00",
    BusinessShortCode: "600999",
    BillRefNumber: "ACC123",
    InvoiceNumber: "",
    OrgAccountBalance: "",
    ThirdPartyTransID: "",
    MSISDN: "254708374149",
    FirstName: "JOHN",
    MiddleName: "",
    LastName: "",
  };

  it("reads the reference's sample: amount in cents, time from EAT", () => {
    expect(parseC2bPayload(sample)).toEqual({
      transactionType: "Pay Bill",
      transId: "RKTQDM7W6S",
      transTime: new Date("2023-12-10T10:34:16Z"),
      amountCents: 500_000,
      shortCode: "600999",
      billRefNumber: "ACC123",
      msisdn: "254708374149",
      firstName: "JOHN",
    });
  });

  it.each([
    ["10.5", 1050],
    ["0.01", 1],
    ["7", 700],
    [12.3, 1230],
  ])("TransAmount %j is %i cents", (amount, cents) => {
    expect(parseC2bPayload({ ...sample, TransAmount: amount }).amountCents).toBe(cents);
  });

  it("passes a hashed MSISDN through", () => {
    const hash = "a".repeat(64);
    expect(parseC2bPayload({ ...sample, MSISDN: hash, FirstName: undefined }).msisdn).toBe(hash);
  });

  it.each([
    ["not an object", [], /JSON object/],
    ["no TransID", { ...sample, TransID: undefined }, /TransID/],
    ["a bad TransTime", { ...sample, TransTime: "2023-12-10" }, /TransTime/],
    ["TransAmount text", { ...sample, TransAmount: "abc" }, /TransAmount/],
    ["TransAmount negative", { ...sample, TransAmount: "-5.00" }, /TransAmount/],
    ["TransAmount with 3 decimals", { ...sample, TransAmount: "1.234" }, /TransAmount/],
    ["TransAmount zero", { ...sample, TransAmount: "0.00" }, /TransAmount/],
    ["a bad shortcode", { ...sample, BusinessShortCode: "ABC" }, /BusinessShortCode/],
    ["an object for a field", { ...sample, BillRefNumber: { x: 1 } }, /BillRefNumber/],
  ])("throws on %s", (_name, body, message) => {
    expect(() => parseC2bPayload(body)).toThrow(message);
  });
});

describe("formats", () => {
  it("darajaTimestamp is EAT and stkPassword matches Safaricom's published sample", () => {
    expect(darajaTimestamp(new Date("2016-02-16T13:56:27Z"))).toBe("20160216165627");
    expect(darajaTimestamp(new Date("2024-01-31T21:00:00Z"))).toBe("20240201000000");
    expect(stkPassword("174379", PASSKEY, "20160216165627")).toBe(
      "MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMTYwMjE2MTY1NjI3",
    );
  });

  it.each([
    ["0712345678", "254712345678"],
    ["0112345678", "254112345678"],
    ["+254712345678", "254712345678"],
    ["254712345678", "254712345678"],
    ["712345678", "254712345678"],
    ["+254 712 345-678", "254712345678"],
    ["(0712) 345 678", "254712345678"],
    ["+2540712345678", "254712345678"],
    ["0201234567", null],
    ["+255712345678", null],
    ["07123456789", null],
    ["071234567", null],
    ["", null],
    ["phone", null],
  ])("normaliseMpesaPhone(%j) is %j", (input, expected) => {
    expect(normaliseMpesaPhone(input)).toBe(expected);
  });

  it("mpesaResultWords has plain words for every code in the reference, and falls back to ResultDesc", () => {
    for (const code of [0, 1, 1032, 1037, 2001, 1001, 1019, 1025, 9999, 17, 26, 1031]) {
      const words = mpesaResultWords(code, "SAFARICOM TEXT");
      expect(words, String(code)).not.toContain("SAFARICOM TEXT");
      expect(words.length).toBeGreaterThan(20);
    }
    expect(mpesaResultWords(1032)).toBe("You cancelled the M-Pesa prompt on your phone.");
    expect(mpesaResultWords(4999, "Something new")).toBe("Something new");
    expect(mpesaResultWords(4999)).toBe("M-Pesa could not complete the payment (code 4999).");
  });
});
