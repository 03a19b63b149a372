import { afterEach, describe, expect, it } from "vitest";
import { stkPasswordOf } from "./daraja-format";
import { TRANSACTION_DESC_DELIVERED_MAX, TRANSACTION_DESC_DOCUMENTED_MAX } from "./validation";
import { KEY, PASSKEY, SECRET, SHORTCODE, startHarness, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const basic = (key: string, secret: string) => ({ Authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString("base64")}` });

describe("OAuth: GET /oauth/v1/generate", () => {
  it("issues a token with expires_in as a string for the right client credentials", async () => {
    h = await startHarness();
    const answer = await h.call("/oauth/v1/generate?grant_type=client_credentials", { headers: basic(KEY, SECRET) });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual(["access_token", "expires_in"]);
    expect(answer.json.expires_in).toBe("3599");
    expect(answer.json.access_token).toMatch(/^[A-Za-z0-9]{28}$/);
    expect(h.sandbox.tokenRequests()).toBe(1);
  });

  it.each([
    ["a wrong secret", basic(KEY, "nope")],
    ["a wrong key", basic("other", SECRET)],
    ["no Authorization", {}],
    ["a Bearer header", { Authorization: "Bearer abc" }],
    ["Basic without a colon", { Authorization: `Basic ${Buffer.from("justakey").toString("base64")}` }],
  ])("answers 400 400.008.01 for %s", async (_name, headers) => {
    h = await startHarness();
    const answer = await h.call("/oauth/v1/generate?grant_type=client_credentials", { headers });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ requestId: expect.any(String), errorCode: "400.008.01", errorMessage: "Invalid Authentication passed" });
  });

  it("answers 400 400.008.02 for a missing or wrong grant_type", async () => {
    h = await startHarness();
    for (const path of ["/oauth/v1/generate", "/oauth/v1/generate?grant_type=password"]) {
      const answer = await h.call(path, { headers: basic(KEY, SECRET) });
      expect(answer.status).toBe(400);
      expect(answer.json.errorCode).toBe("400.008.02");
    }
  });

  it("tokens expire after their TTL on the sandbox clock", async () => {
    let now = 1_750_000_000_000;
    h = await startHarness({ tokenTtlSeconds: 60, now: () => now });
    const token = await h.token();
    expect((await h.push(h.pushBody(), token)).status).toBe(200);
    now += 60_000;
    const expired = await h.push(h.pushBody("254712345679"), token);
    expect(expired.status).toBe(404);
    expect(expired.json).toEqual({ requestId: expect.any(String), errorCode: "404.001.03", errorMessage: "Invalid Access Token" });
  });

  it("revokeTokens makes issued tokens invalid", async () => {
    h = await startHarness();
    const token = await h.token();
    h.sandbox.revokeTokens();
    expect((await h.push(h.pushBody(), token)).json.errorCode).toBe("404.001.03");
  });
});

describe("Bearer-protected endpoints", () => {
  const paths = [
    "/mpesa/stkpush/v1/processrequest",
    "/mpesa/stkpushquery/v1/query",
    "/mpesa/c2b/v1/registerurl",
    "/mpesa/c2b/v2/registerurl",
    "/mpesa/c2b/v1/simulate",
    "/mpesa/c2b/v2/simulate",
  ];
  it.each(paths)("%s answers 404 404.001.03 without a token or with an unknown one", async (path) => {
    h = await startHarness();
    for (const token of [undefined, "not-a-token"]) {
      const answer = await h.call(path, { json: {}, token });
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ requestId: expect.any(String), errorCode: "404.001.03", errorMessage: "Invalid Access Token" });
    }
  });

  it("answers an unknown API path 404 in Daraja's shape", async () => {
    h = await startHarness();
    const answer = await h.call("/mpesa/b2b/v1/paymentrequest", { json: {}, token: await h.token() });
    expect(answer.status).toBe(404);
    expect(answer.json.errorCode).toBe("404.001.01");
  });

  it("answers a body over 64 KB 413 and a body that is not JSON 400, in Daraja's shape", async () => {
    h = await startHarness();
    const token = await h.token();
    const big = await h.call("/mpesa/stkpush/v1/processrequest", {
      method: "POST",
      token,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(70 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ errorCode: "413.001.01", requestId: expect.any(String) });
    for (const body of ["{not json", "[1,2]", '"text"']) {
      const bad = await h.call("/mpesa/stkpush/v1/processrequest", {
        method: "POST",
        token,
        headers: { "Content-Type": "application/json" },
        body,
      });
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid JSON" });
    }
  });
});

describe("STK push: POST /mpesa/stkpush/v1/processrequest", () => {
  it("accepts a valid push with Daraja's synchronous body and creates a pending prompt", async () => {
    h = await startHarness();
    const answer = await h.push(h.pushBody());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      MerchantRequestID: expect.stringMatching(/^\d{5}-\d{8}-\d$/),
      CheckoutRequestID: expect.stringMatching(/^ws_CO_\d{17}712345678$/),
      ResponseCode: "0",
      ResponseDescription: "Success. Request accepted for processing",
      CustomerMessage: "Success. Request accepted for processing",
    });
    const pending = await h.control("/prompts");
    expect(pending.json).toEqual([
      {
        CheckoutRequestID: answer.json.CheckoutRequestID,
        MerchantRequestID: answer.json.MerchantRequestID,
        phone: "254712345678",
        amount: 500,
        accountReference: "JUMBE-TOPUP",
        createdAt: expect.any(String),
      },
    ]);
    expect(h.receiver.received).toHaveLength(0);
  });

  it("takes the phone, amount and shortcode as JSON numbers as well as strings, and 2541... numbers", async () => {
    h = await startHarness();
    const answer = await h.push(h.pushBody(254112345678, { Amount: "250000", BusinessShortCode: 174379, PartyB: 174379 }));
    expect(answer.status).toBe(200);
    expect(h.sandbox.prompts()[0]).toMatchObject({ phone: "254112345678", amount: 250000 });
  });

  it("allows an http CallBackURL on loopback only", async () => {
    h = await startHarness();
    for (const url of ["http://localhost:3000/cb", "http://[::1]:3000/cb", "https://jumbe.example/cb"]) {
      const phone = `2547${String(10_000_000 + Math.floor(Math.random() * 89_999_999))}`;
      expect((await h.push(h.pushBody(phone, { CallBackURL: url }))).status, url).toBe(200);
    }
  });

  const invalid: [string, Record<string, unknown>][] = [
    ["BusinessShortCode", { BusinessShortCode: "12" }],
    ["BusinessShortCode", { BusinessShortCode: undefined }],
    ["Password", { Password: "" }],
    ["Timestamp", { Timestamp: "2024-01-01 10:00" }],
    ["Timestamp", { Timestamp: "20241301100000" }],
    ["TransactionType", { TransactionType: "CustomerPayBill" }],
    ["Amount", { Amount: 0 }],
    ["Amount", { Amount: 10.5 }],
    ["Amount", { Amount: "ten" }],
    ["Amount", { Amount: 250001 }],
    ["PartyA", { PartyA: "0712345678" }],
    ["PartyB", { PartyB: "abc" }],
    ["PhoneNumber", { PhoneNumber: "+254712345678" }],
    ["PhoneNumber", { PhoneNumber: "254212345678" }],
    ["CallBackURL", { CallBackURL: "http://jumbe.example/cb" }],
    ["CallBackURL", { CallBackURL: "http://10.0.0.5/cb" }],
    ["CallBackURL", { CallBackURL: "not a url" }],
    ["CallBackURL", { CallBackURL: "ftp://jumbe.example/cb" }],
    ["AccountReference", { AccountReference: "THIRTEEN-CHAR" }],
    ["AccountReference", { AccountReference: "" }],
    ["TransactionDesc", { TransactionDesc: undefined }],
    ["TransactionDesc", { TransactionDesc: "   " }],
    // Safaricom's documented limit (decision 110): 13 characters, so mpesa-node's default "Lipa na mpesa online" is refused.
    ["TransactionDesc", { TransactionDesc: "Fourteen chars" }],
    ["TransactionDesc", { TransactionDesc: "Lipa na mpesa online" }],
  ];
  it.each(invalid)("answers 400 400.002.02 Invalid %s for %j", async (name, extra) => {
    h = await startHarness();
    const body: Record<string, unknown> = h.pushBody("254712345678", extra);
    for (const [k, v] of Object.entries(extra)) if (v === undefined) delete body[k];
    const answer = await h.push(body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ requestId: expect.any(String), errorCode: "400.002.02", errorMessage: `Bad Request - Invalid ${name}` });
    expect(h.sandbox.prompts()).toHaveLength(0);
  });

  it("takes a TransactionDesc of exactly 13 characters, the documented limit", async () => {
    h = await startHarness();
    const answer = await h.push(h.pushBody("254712345678", { TransactionDesc: "Jumbe top-up!" }));
    expect(answer.status).toBe(200);
    expect(h.sandbox.prompt(answer.json.CheckoutRequestID)).toMatchObject({ state: "pending", transactionDesc: "Jumbe top-up!" });
  });

  it('transactionDescLimit "observed": takes a TransactionDesc longer than the documented 13 characters, as production is observed to', async () => {
    h = await startHarness({ transactionDescLimit: "observed" });
    const lengths = { "Lipa na mpesa online": 20, [`${"Jumbe wallet top-up ".repeat(9)}xy`]: TRANSACTION_DESC_DELIVERED_MAX };
    let phone = 254712345600;
    for (const [TransactionDesc, length] of Object.entries(lengths)) {
      expect(TransactionDesc).toHaveLength(length);
      expect(length).toBeGreaterThan(TRANSACTION_DESC_DOCUMENTED_MAX);
      const answer = await h.push(h.pushBody(String(++phone), { TransactionDesc }));
      expect(answer.status, TransactionDesc).toBe(200);
      expect(answer.json.ResponseCode).toBe("0");
      const prompt = h.sandbox.prompt(answer.json.CheckoutRequestID);
      expect(prompt).toMatchObject({ state: "pending", transactionDesc: TransactionDesc });
    }
  });

  it('transactionDescLimit "observed": accepts a TransactionDesc past what reaches a phone, then ends it with ResultCode 1025 (no prompt to answer)', async () => {
    h = await startHarness({ transactionDescLimit: "observed" });
    const answer = await h.push(h.pushBody("254712345678", { TransactionDesc: "x".repeat(TRANSACTION_DESC_DELIVERED_MAX + 1) }));
    expect(answer.status).toBe(200);
    await h.receiver.waitFor(1);
    await h.sandbox.flush();
    expect(h.receiver.on("/stk").map((r) => r.body.Body.stkCallback)).toEqual([
      {
        MerchantRequestID: answer.json.MerchantRequestID,
        CheckoutRequestID: answer.json.CheckoutRequestID,
        ResultCode: 1025,
        ResultDesc: "An error occurred while sending push request",
      },
    ]);
    expect(h.sandbox.prompts().filter((p) => p.state === "pending")).toEqual([]);
    expect((await h.query(answer.json.CheckoutRequestID)).json).toMatchObject({ ResultCode: "1025" });
  });

  it("answers 500 500.001.1001 Wrong credentials for a password from another passkey or timestamp", async () => {
    h = await startHarness();
    const body = h.pushBody();
    for (const Password of [
      stkPasswordOf(SHORTCODE, "wrong-passkey", body.Timestamp),
      stkPasswordOf(SHORTCODE, PASSKEY, "20200101000000"),
    ]) {
      const answer = await h.push({ ...body, Password });
      expect(answer.status).toBe(500);
      expect(answer.json).toEqual({
        requestId: expect.any(String),
        errorCode: "500.001.1001",
        errorMessage: "[MerchantValidate] - Wrong credentials",
      });
    }
    expect(h.sandbox.prompts()).toHaveLength(0);
  });

  it("answers 500 Merchant does not exist for another shortcode", async () => {
    h = await startHarness();
    const ts = h.pushBody().Timestamp;
    const answer = await h.push(
      h.pushBody("254712345678", { BusinessShortCode: "600999", Password: stkPasswordOf("600999", PASSKEY, ts), Timestamp: ts }),
    );
    expect(answer.status).toBe(500);
    expect(answer.json.errorMessage).toBe("Merchant does not exist");
  });

  it("refuses a second push to a phone with a pending prompt, and takes one again once it is answered", async () => {
    h = await startHarness();
    const first = await h.push(h.pushBody());
    const second = await h.push(h.pushBody());
    expect(second.status).toBe(500);
    expect(second.json).toEqual({
      requestId: expect.any(String),
      errorCode: "500.001.1001",
      errorMessage: "Unable to lock subscriber, a transaction is already in process for the current subscriber",
    });
    expect((await h.push(h.pushBody("254712345679"))).status).toBe(200);
    await h.control(`/prompts/${first.json.CheckoutRequestID}`, { outcome: "cancel" });
    const third = await h.push(h.pushBody());
    expect(third.status).toBe(200);
    expect(third.json.CheckoutRequestID).not.toBe(first.json.CheckoutRequestID);
  });
});

describe("STK query: POST /mpesa/stkpushquery/v1/query", () => {
  it("answers 500 'being processed' while pending, then 200 with ResultCode as a string", async () => {
    h = await startHarness();
    const { json: pushed } = await h.push(h.pushBody());
    const pending = await h.query(pushed.CheckoutRequestID);
    expect(pending.status).toBe(500);
    expect(pending.json).toEqual({
      requestId: pushed.CheckoutRequestID,
      errorCode: "500.001.1001",
      errorMessage: "The transaction is being processed",
    });
    await h.control(`/prompts/${pushed.CheckoutRequestID}`, { outcome: "cancel" });
    const done = await h.query(pushed.CheckoutRequestID);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      ResponseCode: "0",
      ResponseDescription: "The service request has been accepted successsfully",
      MerchantRequestID: pushed.MerchantRequestID,
      CheckoutRequestID: pushed.CheckoutRequestID,
      ResultCode: "1032",
      ResultDesc: "Request cancelled by user",
    });
  });

  it("answers 400 for an unknown CheckoutRequestID and 500 for a wrong password", async () => {
    h = await startHarness();
    const unknown = await h.query("ws_CO_01012024000000000712345678");
    expect(unknown.status).toBe(400);
    expect(unknown.json.errorMessage).toBe("Bad Request - Invalid CheckoutRequestID");
    const token = await h.token();
    const wrong = await h.call("/mpesa/stkpushquery/v1/query", {
      token,
      json: { BusinessShortCode: SHORTCODE, Password: "d3Jvbmc=", Timestamp: "20240101000000", CheckoutRequestID: "ws_CO_1" },
    });
    expect(wrong.status).toBe(500);
    expect(wrong.json.errorMessage).toBe("[MerchantValidate] - Wrong credentials");
    const missing = await h.call("/mpesa/stkpushquery/v1/query", { token, json: { BusinessShortCode: SHORTCODE } });
    expect(missing.status).toBe(400);
    expect(missing.json.errorCode).toBe("400.002.02");
  });
});
