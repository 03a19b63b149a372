import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIAL_PUBLIC_KEY, SANDBOX_INITIATOR_NAME, SANDBOX_INITIATOR_PASSWORD } from "@jumbe/sandbox/mpesa/credential-keys";
import { KEY, PASSKEY, SECRET, SHORTCODE, startHarness, type Harness } from "@jumbe/sandbox/mpesa/test-support";
import { clearDarajaTokens, DarajaError, darajaClient, parseB2cResult, type B2cPaymentInput } from "./daraja";

// The Daraja client's B2C payouts against the local Daraja: the request is accepted, the result
// arrives on the ResultURL and parses into a receipt; the status query tells what a silent payout became.

let h: Harness | undefined;
beforeEach(() => clearDarajaTokens());
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const clientFor = (harness: Harness, initiator: { name: string; password: string; certificate: string } | null = null) =>
  darajaClient({
    baseUrl: harness.base,
    consumerKey: KEY,
    consumerSecret: SECRET,
    shortcode: SHORTCODE,
    passkey: PASSKEY,
    timeoutMs: 5000,
    environment: "sandbox",
    b2cShortcode: "600996",
    b2cInitiator: initiator ?? {
      name: SANDBOX_INITIATOR_NAME,
      password: SANDBOX_INITIATOR_PASSWORD,
      certificate: SANDBOX_CREDENTIAL_PUBLIC_KEY,
    },
  });

const payout = (harness: Harness, extra: Partial<B2cPaymentInput> = {}): B2cPaymentInput => ({
  originatorConversationId: "stl_2026-10_kilimo-digital",
  phone: "0712 345 678",
  amountKes: 18_640,
  remarks: "Jumbe partner settlement October 2026",
  occasion: "Settlement",
  resultUrl: harness.receiver.url("/b2c/result"),
  queueTimeoutUrl: harness.receiver.url("/b2c/timeout"),
  ...extra,
});

const posted = (harness: Harness, path: string) => harness.receiver.received.filter((r) => r.path === path).map((r) => r.body);

describe("the Daraja client's B2C payouts", () => {
  it("pays: accepted at once, then a result with the receipt, the amount and the receiver's name", async () => {
    h = await startHarness();
    const accepted = await clientFor(h).b2cPayment(payout(h));
    expect(accepted).toEqual({ conversationId: expect.stringMatching(/^AG_/), originatorConversationId: "stl_2026-10_kilimo-digital" });
    // The request as Daraja got it: the phone normalised, the password encrypted.
    const [sent] = h.sandbox.payouts();
    expect(sent).toMatchObject({ partyB: "254712345678", partyA: "600996", amount: 18_640, commandId: "BusinessPayment" });
    await h.sandbox.flush();
    const result = parseB2cResult(posted(h, "/b2c/result")[0]);
    expect(result).toMatchObject({
      resultCode: 0,
      expired: false,
      originatorConversationId: "stl_2026-10_kilimo-digital",
      conversationId: accepted.conversationId,
      receipt: h.sandbox.payout("stl_2026-10_kilimo-digital")!.receipt,
      amountKes: 18_640,
      receiverName: "254712345678 - Wanjiku Kamau",
      transactionStatus: null,
    });
    expect(result.completedAt).toBeInstanceOf(Date);
  });

  it("sends a retry with the same id safely: Daraja answers 15 and pays once", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await client.b2cPayment(payout(h));
    await client.b2cPayment(payout(h));
    await h.sandbox.flush();
    expect(posted(h, "/b2c/result").map((b) => parseB2cResult(b).resultCode)).toEqual([0, 15]);
    expect(h.sandbox.payouts().filter((p) => p.state === "paid")).toHaveLength(1);
  });

  it("a wrong initiator password ends with 2001; a queue timeout parses as expired", async () => {
    h = await startHarness();
    await clientFor(h, { name: SANDBOX_INITIATOR_NAME, password: "wrong-password", certificate: SANDBOX_CREDENTIAL_PUBLIC_KEY }).b2cPayment(
      payout(h),
    );
    await clientFor(h).b2cPayment(payout(h, { originatorConversationId: "stl_timeout", amountKes: 1408 }));
    await h.sandbox.flush();
    expect(parseB2cResult(posted(h, "/b2c/result")[0])).toMatchObject({ resultCode: 2001, receipt: null });
    expect(parseB2cResult(posted(h, "/b2c/timeout")[0])).toMatchObject({
      expired: true,
      originatorConversationId: "stl_timeout",
      receipt: null,
    });
  });

  it("asks the status of a payout whose result never came, and reads its receipt from the answer", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await client.b2cPayment(payout(h, { originatorConversationId: "stl_silent", amountKes: 1404 }));
    await h.sandbox.flush();
    expect(posted(h, "/b2c/result")).toEqual([]);
    await client.transactionStatus({
      originatorConversationId: "stl_silent",
      resultUrl: h.receiver.url("/b2c/status"),
      queueTimeoutUrl: h.receiver.url("/b2c/timeout"),
    });
    await h.sandbox.flush();
    expect(parseB2cResult(posted(h, "/b2c/status")[0])).toMatchObject({
      resultCode: 0,
      transactionStatus: "Completed",
      receipt: h.sandbox.payout("stl_silent")!.receipt,
      amountKes: 1404,
    });
  });

  it("refuses what Daraja would refuse before sending, and says when payouts are not set up", async () => {
    h = await startHarness();
    const client = clientFor(h);
    await expect(client.b2cPayment(payout(h, { phone: "0201234567" }))).rejects.toThrow(/Not a Kenyan mobile number/);
    await expect(client.b2cPayment(payout(h, { amountKes: 5 }))).rejects.toThrow(/10 to 150,000/);
    await expect(client.b2cPayment(payout(h, { originatorConversationId: "no spaces" }))).rejects.toThrow(/originatorConversationId/);
    const off = darajaClient({ baseUrl: h.base, consumerKey: KEY, consumerSecret: SECRET, b2cInitiator: null, b2cShortcode: "600996" });
    await expect(off.b2cPayment(payout(h))).rejects.toBeInstanceOf(DarajaError);
    expect(h.sandbox.payouts()).toEqual([]);
  });

  it("parses a result whose single parameter is an object, and refuses what is not a result", () => {
    expect(
      parseB2cResult({
        Result: {
          ResultType: 0,
          ResultCode: "0",
          ResultDesc: "ok",
          OriginatorConversationID: "x-1",
          ConversationID: "AG_1",
          TransactionID: "TKR1234567",
          ResultParameters: { ResultParameter: { Key: "TransactionAmount", Value: 250 } },
        },
      }),
    ).toMatchObject({ resultCode: 0, amountKes: 250, receipt: "TKR1234567" });
    for (const bad of [null, "text", {}, { Result: { ResultCode: 0 } }, { Result: { ResultCode: "x", OriginatorConversationID: "a" } }])
      expect(() => parseB2cResult(bad)).toThrow(TypeError);
  });
});
