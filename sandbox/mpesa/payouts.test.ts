import { constants, publicEncrypt } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_INITIATOR_NAME, SANDBOX_INITIATOR_PASSWORD } from "./payouts";
import { startHarness, type Harness } from "./test-support";

// M-Pesa B2C in the local Daraja: a payout request is only accepted at once; its result reaches the
// ResultURL later; magic amounts give each failure; the status query tells what a silent one became.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface ResultBody {
  Result: {
    ResultType: number;
    ResultCode: number;
    ResultDesc: string;
    OriginatorConversationID: string;
    ConversationID: string;
    TransactionID: string;
    ResultParameters?: { ResultParameter: { Key: string; Value: string | number }[] };
  };
}

const credential = (harness: Harness, password = SANDBOX_INITIATOR_PASSWORD) =>
  publicEncrypt({ key: harness.sandbox.credentialCertificate, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(password)).toString(
    "base64",
  );

function payoutBody(harness: Harness, extra: Record<string, unknown> = {}) {
  return {
    OriginatorConversationID: "jumbe-settlement-2026-10-p1",
    InitiatorName: SANDBOX_INITIATOR_NAME,
    SecurityCredential: credential(harness),
    CommandID: "BusinessPayment",
    Amount: 12_500,
    PartyA: "600996",
    PartyB: "254712345678",
    Remarks: "Jumbe partner settlement October 2026",
    QueueTimeOutURL: harness.receiver.url("/b2c/timeout"),
    ResultURL: harness.receiver.url("/b2c/result"),
    Occasion: "Settlement",
    ...extra,
  };
}

async function pay(harness: Harness, body: unknown) {
  return harness.call("/mpesa/b2c/v3/paymentrequest", { json: body, token: await harness.token() });
}

const results = (harness: Harness, path = "/b2c/result") =>
  harness.receiver.received.filter((r) => r.path === path).map((r) => r.body as unknown as ResultBody);
const parameter = (body: ResultBody, key: string) => body.Result.ResultParameters?.ResultParameter.find((p) => p.Key === key)?.Value;

describe("B2C payouts", () => {
  it("accepts a payout, then posts its result with the receipt and the receiver's name", async () => {
    h = await startHarness();
    const answer = await pay(h, payoutBody(h));
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      OriginatorConversationID: "jumbe-settlement-2026-10-p1",
      ConversationID: expect.stringMatching(/^AG_\d{8}_/),
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
    await h.sandbox.flush();
    const [result] = results(h);
    expect(result!.Result).toMatchObject({
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: "The service request is processed successfully.",
      OriginatorConversationID: "jumbe-settlement-2026-10-p1",
      ConversationID: answer.json.ConversationID,
    });
    const receipt = parameter(result!, "TransactionReceipt");
    expect(receipt).toMatch(/^[A-Z]{2}[1-9A-Z][A-Z0-9]{7}$/);
    expect(result!.Result.TransactionID).toBe(receipt);
    expect(parameter(result!, "TransactionAmount")).toBe(12_500);
    expect(parameter(result!, "ReceiverPartyPublicName")).toBe("254712345678 - Wanjiku Kamau");
    expect(parameter(result!, "TransactionCompletedDateTime")).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/);
    expect(h.sandbox.payout("jumbe-settlement-2026-10-p1")).toMatchObject({ state: "paid", receipt });
  });

  it("pays an OriginatorConversationID once: a repeat ends as a duplicate (15) and pays nothing", async () => {
    h = await startHarness();
    await pay(h, payoutBody(h));
    await h.sandbox.flush();
    const fundsAfterFirst = parameter(results(h)[0]!, "B2CUtilityAccountAvailableFunds");
    expect((await pay(h, payoutBody(h))).json.ResponseCode).toBe("0");
    await h.sandbox.flush();
    const [first, repeat] = results(h);
    expect(first!.Result.ResultCode).toBe(0);
    expect(repeat!.Result).toMatchObject({ ResultCode: 15, ResultDesc: "Duplicate OriginatorConversationID.", TransactionID: "" });
    expect(h.sandbox.payouts()).toHaveLength(1);
    // The account was debited once.
    expect(fundsAfterFirst).toBe(5_000_000 - 12_500);
  });

  it("fails by magic amount: insufficient funds (1), duplicate (15), invalid initiator (2001)", async () => {
    h = await startHarness();
    for (const [amount, id] of [
      [1001, "magic-1001"],
      [1015, "magic-1015"],
      [2001, "magic-2001"],
    ] as const)
      await pay(h, payoutBody(h, { Amount: amount, OriginatorConversationID: id }));
    await h.sandbox.flush();
    expect(Object.fromEntries(results(h).map((r) => [r.Result.OriginatorConversationID, r.Result.ResultCode]))).toEqual({
      "magic-1001": 1,
      "magic-1015": 15,
      "magic-2001": 2001,
    });
    expect(h.sandbox.payouts().map((p) => p.state)).toEqual(["failed", "failed", "failed"]);
    expect(results(h).every((r) => !r.Result.ResultParameters)).toBe(true);
  });

  it("ends a wrong initiator password with 2001 on the ResultURL, as Daraja checks it late", async () => {
    h = await startHarness();
    expect((await pay(h, payoutBody(h, { SecurityCredential: credential(h, "not-the-password") }))).json.ResponseCode).toBe("0");
    await h.sandbox.flush();
    expect(results(h)[0]!.Result).toMatchObject({ ResultCode: 2001, ResultDesc: "The initiator information is invalid." });
  });

  it("calls the QueueTimeOutURL for a payout that expires in the queue (1408), paying nothing", async () => {
    h = await startHarness();
    await pay(h, payoutBody(h, { Amount: 1408, OriginatorConversationID: "magic-1408" }));
    await h.sandbox.flush();
    expect(results(h)).toEqual([]);
    expect(results(h, "/b2c/timeout")[0]!.Result).toMatchObject({ OriginatorConversationID: "magic-1408", ResultType: 1 });
    expect(h.sandbox.payout("magic-1408")?.state).toBe("expired");
  });

  it("sends no result for 1404; the transaction status query tells it was paid, with its receipt", async () => {
    h = await startHarness();
    await pay(h, payoutBody(h, { Amount: 1404, OriginatorConversationID: "magic-1404" }));
    await h.sandbox.flush();
    expect(results(h)).toEqual([]);
    const query = await h.call("/mpesa/transactionstatus/v1/query", {
      token: await h.token(),
      json: {
        Initiator: SANDBOX_INITIATOR_NAME,
        SecurityCredential: credential(h),
        CommandID: "TransactionStatusQuery",
        OriginalConversationID: "magic-1404",
        PartyA: "600996",
        IdentifierType: "4",
        ResultURL: h.receiver.url("/b2c/status"),
        QueueTimeOutURL: h.receiver.url("/b2c/timeout"),
        Remarks: "Settlement check",
        Occasion: "",
      },
    });
    expect(query.json.ResponseCode).toBe("0");
    await h.sandbox.flush();
    const [status] = results(h, "/b2c/status");
    expect(status!.Result.ResultCode).toBe(0);
    expect(parameter(status!, "TransactionStatus")).toBe("Completed");
    expect(parameter(status!, "ReceiptNo")).toBe(h.sandbox.payout("magic-1404")!.receipt);
    expect(parameter(status!, "Amount")).toBe(1404);
  });

  it("refuses bad requests in Daraja's words and changes nothing", async () => {
    h = await startHarness();
    const cases: [Record<string, unknown>, string][] = [
      [{ OriginatorConversationID: undefined }, "Bad Request - Invalid OriginatorConversationID"],
      [{ PartyB: "0712345678" }, "Bad Request - Invalid PartyB"],
      [{ CommandID: "Withdraw" }, "Bad Request - Invalid CommandID"],
      [{ Amount: -5 }, "Bad Request - Invalid Amount"],
      // Daraja moves whole shillings only (issue 72): 620.69 is refused, never rounded.
      [{ Amount: 620.69 }, "Bad Request - Invalid Amount"],
      [{ Amount: "620.69" }, "Bad Request - Invalid Amount"],
      [{ Remarks: "x".repeat(101) }, "Bad Request - Invalid Remarks"],
      [{ ResultURL: "http://203.0.113.9/result" }, "Bad Request - Invalid ResultURL"],
    ];
    for (const [extra, message] of cases) {
      const answer = await pay(h, payoutBody(h, extra));
      expect([answer.status, answer.json.errorCode, answer.json.errorMessage]).toEqual([400, "400.002.02", message]);
    }
    const unauthorised = await h.call("/mpesa/b2c/v3/paymentrequest", { json: payoutBody(h) });
    expect([unauthorised.status, unauthorised.json.errorCode]).toEqual([404, "404.001.03"]);
    expect(h.sandbox.payouts()).toEqual([]);
  });

  it("lists payouts on the control API and the console", async () => {
    h = await startHarness();
    await pay(h, payoutBody(h));
    await h.sandbox.flush();
    const listed = await h.control<{ OriginatorConversationID: string; state: string }[]>("/payouts");
    expect(listed.json.map((p) => [p.OriginatorConversationID, p.state])).toEqual([["jumbe-settlement-2026-10-p1", "paid"]]);
    const page = await h.call("/");
    expect(page.text).toContain("Payouts (B2C)");
    expect(page.text).toContain("jumbe-settlement-2026-10-p1");
    expect(page.text).toContain("Expires in the queue");
  });
});
