import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, startReceiver, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function register(harness: Harness, extra: Record<string, unknown> = {}, version = "v2") {
  return harness.call(`/mpesa/c2b/${version}/registerurl`, {
    token: await harness.token(),
    json: {
      ShortCode: "600999",
      ResponseType: "Completed",
      ConfirmationURL: harness.receiver.url("/c2b/confirm"),
      ValidationURL: harness.receiver.url("/c2b/validate"),
      ...extra,
    },
  });
}

const pay = (harness: Harness, extra: Record<string, unknown> = {}) =>
  harness.control("/c2b", { msisdn: "254708374149", amount: 5000, billRefNumber: "ACC123", shortCode: "600999", ...extra });

describe("C2B URL registration", () => {
  it.each(["v1", "v2"])("%s registers the URLs and answers Daraja's (misspelt) body", async (version) => {
    h = await startHarness();
    const answer = await register(h, {}, version);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ OriginatorCoversationID: expect.any(String), ResponseCode: "0", ResponseDescription: "Success" });
    expect((await h.control("/registrations")).json).toEqual([
      expect.objectContaining({
        shortCode: "600999",
        responseType: "Completed",
        version,
        confirmationUrl: h.receiver.url("/c2b/confirm"),
        validationUrl: h.receiver.url("/c2b/validate"),
      }),
    ]);
  });

  it.each([
    ["ShortCode", { ShortCode: "12" }],
    ["ResponseType", { ResponseType: "completed" }],
    ["ConfirmationURL", { ConfirmationURL: "http://jumbe.example/confirm" }],
    ["ConfirmationURL", { ConfirmationURL: "https://jumbe.example/webhooks/mpesa/confirm" }],
    ["ValidationURL", { ValidationURL: "https://jumbe.example/safaricom/validate" }],
    ["ValidationURL", { ValidationURL: "https://jumbe.example/validate?query=1" }],
  ])("answers 400 Invalid %s for %j", async (field, extra) => {
    h = await startHarness();
    const answer = await register(h, extra);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ requestId: expect.any(String), errorCode: "400.002.02", errorMessage: `Bad Request - Invalid ${field}` });
    expect(h.sandbox.registrations()).toEqual([]);
  });

  it("c2bUrlKeywordCheck: false lets a URL with mpesa in it through", async () => {
    h = await startHarness({ c2bUrlKeywordCheck: false });
    expect((await register(h, { ConfirmationURL: "https://jumbe.example/webhooks/mpesa/confirm" })).status).toBe(200);
  });
});

describe("C2B payments through the control API", () => {
  it("validation accepts: the confirmation follows with Daraja's all-string payload", async () => {
    const now = Date.UTC(2023, 11, 10, 10, 34, 16);
    h = await startHarness({ now: () => now });
    await register(h);
    const answer = await pay(h, { transId: "RKTQDM7W6S", firstName: "JOHN" });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      transId: "RKTQDM7W6S",
      outcome: "completed",
      validation: { called: true, result: "accepted", resultCode: "0", status: 200 },
      confirmations: [{ url: h.receiver.url("/c2b/confirm"), status: 200 }],
    });
    const [validation, confirmation] = [h.receiver.on("/c2b/validate")[0]!.body, h.receiver.on("/c2b/confirm")[0]!.body];
    expect(validation).toEqual({
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
    });
    expect(confirmation).toEqual({ ...validation, OrgAccountBalance: expect.stringMatching(/^\d+\.\d{2}$/) });
    for (const value of Object.values(confirmation)) expect(typeof value).toBe("string");
  });

  it("validation rejects: no confirmation", async () => {
    h = await startHarness();
    await register(h);
    h.receiver.answer("/c2b/validate", { status: 200, body: '{"ResultCode":"C2B00012","ResultDesc":"Rejected"}' });
    const answer = await pay(h);
    expect(answer.json).toMatchObject({
      outcome: "rejected",
      validation: { result: "rejected", resultCode: "C2B00012" },
      confirmations: [],
    });
    expect(h.receiver.on("/c2b/confirm")).toHaveLength(0);
  });

  it("validation unreachable: ResponseType Completed confirms, Cancelled does not", async () => {
    h = await startHarness();
    const dead = await startReceiver();
    await dead.close();
    await register(h, { ValidationURL: `${dead.origin}/validate` });
    const completed = await pay(h);
    expect(completed.json).toMatchObject({ outcome: "completed", validation: { result: "unreachable", status: null } });
    expect(h.receiver.on("/c2b/confirm")).toHaveLength(1);

    await register(h, { ValidationURL: `${dead.origin}/validate`, ResponseType: "Cancelled" });
    const cancelled = await pay(h);
    expect(cancelled.json).toMatchObject({ outcome: "cancelled", validation: { result: "unreachable" }, confirmations: [] });
    expect(h.receiver.on("/c2b/confirm")).toHaveLength(1);
  });

  it("a validation URL that answers 500 or no ResultCode counts as unreachable", async () => {
    h = await startHarness();
    await register(h, { ResponseType: "Cancelled" });
    h.receiver.answer("/c2b/validate", { status: 500, body: "oops" }, { status: 200, body: '{"ok":true}' });
    expect((await pay(h)).json.outcome).toBe("cancelled");
    expect((await pay(h)).json.outcome).toBe("cancelled");
  });

  it("a validation URL that does not answer in time counts as unreachable", async () => {
    h = await startHarness({ validationTimeoutMs: 50 });
    await register(h);
    h.receiver.answer("/c2b/validate", "hang");
    const answer = await pay(h);
    expect(answer.json).toMatchObject({ outcome: "completed", validation: { result: "unreachable", answer: "No answer within 50 ms." } });
  });

  it("hashed and masked MSISDNs, duplicate confirmations, and an unregistered shortcode", async () => {
    h = await startHarness();
    await register(h);
    await pay(h, { msisdnFormat: "hashed", confirmations: 2 });
    const confirms = h.receiver.on("/c2b/confirm");
    expect(confirms).toHaveLength(2);
    expect(confirms[0]!.body.MSISDN).toBe(createHash("sha256").update("254708374149").digest("hex"));
    expect(confirms[1]!.body).toEqual(confirms[0]!.body);
    await pay(h, { msisdnFormat: "masked" });
    expect(h.receiver.on("/c2b/confirm")[2]!.body.MSISDN).toBe("0708***149");
    const unregistered = await pay(h, { shortCode: "600000" });
    expect(unregistered.json).toMatchObject({ outcome: "unregistered", validation: { called: false } });
  });

  it.each([
    [{ msisdn: "0708374149" }, /msisdn/],
    [{ amount: 0 }, /amount/],
    [{ amount: 10.5 }, /amount/],
    [{ billRefNumber: "" }, /billRefNumber/],
    [{ billRefNumber: "x".repeat(21) }, /billRefNumber/],
    [{ transId: "abc" }, /transId/],
    [{ msisdnFormat: "sha1" }, /msisdnFormat/],
  ])("refuses %j with 400", async (extra, message) => {
    h = await startHarness();
    const answer = await pay(h, extra);
    expect(answer.status).toBe(400);
    expect(answer.json.message).toMatch(message);
  });
});

describe("C2B simulate: POST /mpesa/c2b/v2/simulate", () => {
  it("accepts at once, then validates and confirms", async () => {
    h = await startHarness();
    await register(h);
    const answer = await h.call("/mpesa/c2b/v2/simulate", {
      token: await h.token(),
      json: { ShortCode: 600999, CommandID: "CustomerPayBillOnline", Amount: "10", Msisdn: "254708374149", BillRefNumber: "ACC9" },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      ConversationID: expect.stringMatching(/^AG_/),
      OriginatorCoversationID: expect.any(String),
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
    await h.sandbox.flush();
    expect(h.receiver.on("/c2b/validate")).toHaveLength(1);
    expect(h.receiver.on("/c2b/confirm")[0]!.body).toMatchObject({
      TransAmount: "10.00",
      BillRefNumber: "ACC9",
      BusinessShortCode: "600999",
    });
  });

  it.each([
    ["ShortCode", { ShortCode: "x" }],
    ["CommandID", { CommandID: "Pay" }],
    ["Amount", { Amount: -1 }],
    ["Msisdn", { Msisdn: "0708374149" }],
    ["BillRefNumber", { BillRefNumber: undefined }],
  ])("answers 400 Invalid %s", async (field, extra) => {
    h = await startHarness();
    const body: Record<string, unknown> = {
      ShortCode: 600999,
      CommandID: "CustomerPayBillOnline",
      Amount: 10,
      Msisdn: "254708374149",
      BillRefNumber: "A1",
      ...extra,
    };
    const answer = await h.call("/mpesa/c2b/v1/simulate", { token: await h.token(), json: body });
    expect(answer.status).toBe(400);
    expect(answer.json.errorMessage).toBe(`Bad Request - Invalid ${field}`);
  });
});
