import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Mpesa from "mpesa-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { darajaClient } from "~/.server/infrastructure/clients/daraja";
import { SANDBOX_INITIATOR_NAME, SANDBOX_INITIATOR_PASSWORD } from "@jumbe/sandbox/mpesa/credential-keys";
import { KEY, PASSKEY, SECRET, SHORTCODE, startHarness, type Harness } from "@jumbe/sandbox/mpesa/test-support";

/**
 * The Daraja sandbox (sandbox/mpesa) driven by `mpesa-node` 0.1.3, the library Safaricom published
 * (github.com/safaricom/mpesa-node-library). It takes no base URL: its constructor sets the public
 * property `baseURL` to https://sandbox.safaricom.co.ke or https://api.safaricom.co.ke from
 * `environment`, and every call (OAuth included) reads that property. This file sets it to the
 * sandbox's loopback address after construction and changes nothing else (no method replaced, no
 * transport mocked). Its B2C SecurityCredential is the initiator password encrypted with the
 * certificate at `certPath`: the sandbox's public key, written to a temporary file.
 *
 * mpesa-node knows Daraja's v1 paths only: C2B register and simulate v1 and B2C v1, where Jumbe calls
 * C2B v2 (register and simulate) and B2C v3 (app/.server/infrastructure/clients/daraja.ts). Those are
 * posted with the library's own transport (`request()`: an axios instance with its base URL and a
 * fresh token), with bodies as Jumbe sends them and Safaricom's documentation gives them.
 */
let h: Harness;
let mpesa: Mpesa;
let certDir: string;

beforeAll(async () => {
  h = await startHarness();
  certDir = mkdtempSync(path.join(tmpdir(), "mpesa-node-cert-"));
  const certPath = path.join(certDir, "sandbox-cert.pem");
  writeFileSync(certPath, h.sandbox.credentialCertificate);
  mpesa = new Mpesa({
    consumerKey: KEY,
    consumerSecret: SECRET,
    environment: "sandbox",
    shortCode: SHORTCODE,
    initiatorName: SANDBOX_INITIATOR_NAME,
    lipaNaMpesaShortCode: SHORTCODE,
    lipaNaMpesaShortPass: PASSKEY,
    securityCredential: SANDBOX_INITIATOR_PASSWORD,
    certPath,
  });
  expect(mpesa.baseURL).toBe("https://sandbox.safaricom.co.ke");
  mpesa.baseURL = h.base;
});
afterAll(async () => {
  await h.close();
  rmSync(certDir, { recursive: true, force: true });
});

/** Daraja's refusal as mpesa-node surfaces it: axios's error, with the answer's status and JSON. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await promise;
  } catch (error) {
    const response = (error as { response?: { status: number; data: unknown } }).response;
    if (!response) throw error;
    return { status: response.status, data: response.data };
  }
  throw new Error("the call was expected to fail");
}

const darajaError = (errorCode: string, errorMessage: string) => ({ requestId: expect.any(String), errorCode, errorMessage });

describe("OAuth", () => {
  it("issues a token with expires_in as a string, and refuses wrong credentials with 400.008.01", async () => {
    const { status, data } = await mpesa.oAuth();
    expect(status).toBe(200);
    expect(data).toEqual({ access_token: expect.any(String), expires_in: "3599" });

    const wrong = new Mpesa({ consumerKey: KEY, consumerSecret: "not-the-secret" });
    wrong.baseURL = h.base;
    expect(await refusal(wrong.oAuth())).toEqual({ status: 400, data: darajaError("400.008.01", "Invalid Authentication passed") });
  });
});

describe("M-Pesa Express (STK push and query)", () => {
  it("pushes with a description within the documented 13 characters, and the query tells the result", async () => {
    const pushed = await mpesa.lipaNaMpesaOnline(254708374149, 10, h.receiver.url("/stk"), "JUMBE-TOPUP", "Jumbe top-up");
    expect(pushed.status).toBe(200);
    expect(pushed.data).toEqual({
      MerchantRequestID: expect.stringMatching(/^\d+-\d+-\d+$/),
      CheckoutRequestID: expect.stringMatching(/^ws_CO_/),
      ResponseCode: "0",
      ResponseDescription: "Success. Request accepted for processing",
      CustomerMessage: "Success. Request accepted for processing",
    });
    const checkoutRequestId = String(pushed.data.CheckoutRequestID);
    await h.receiver.waitFor(1);
    await h.sandbox.flush();
    const callback = h.receiver.on("/stk")[0]!.body.Body.stkCallback;
    expect(callback).toMatchObject({ CheckoutRequestID: checkoutRequestId, ResultCode: 0 });

    const queried = await mpesa.lipaNaMpesaQuery(checkoutRequestId);
    expect(queried.data).toMatchObject({ ResponseCode: "0", CheckoutRequestID: checkoutRequestId, ResultCode: "0" });
  });

  it("refuses mpesa-node's default description (20 characters) and a 13-character account reference as Daraja answers a bad field", async () => {
    // mpesa-node's own default TransactionDesc is "Lipa na mpesa online": over Safaricom's documented 13.
    expect(await refusal(mpesa.lipaNaMpesaOnline(254712000001, 10, h.receiver.url("/stk"), "JUMBE"))).toEqual({
      status: 400,
      data: darajaError("400.002.02", "Bad Request - Invalid TransactionDesc"),
    });
    expect(await refusal(mpesa.lipaNaMpesaOnline(254712000001, 10, h.receiver.url("/stk"), "THIRTEEN-CHAR", "Top-up"))).toEqual({
      status: 400,
      data: darajaError("400.002.02", "Bad Request - Invalid AccountReference"),
    });
    expect(h.sandbox.allPrompts().filter((prompt) => prompt.phone === "254712000001")).toEqual([]);
  });

  it("answers a query while the customer has not answered with Daraja's 500 'being processed'", async () => {
    const pushed = await mpesa.lipaNaMpesaOnline(254712000002, 10, h.receiver.url("/stk-pending"), "JUMBE", "Top-up");
    const checkoutRequestId = String(pushed.data.CheckoutRequestID);
    expect(await refusal(mpesa.lipaNaMpesaQuery(checkoutRequestId))).toEqual({
      status: 500,
      data: darajaError("500.001.1001", "The transaction is being processed"),
    });
    await h.sandbox.answer(checkoutRequestId, "cancel");
    expect((await mpesa.lipaNaMpesaQuery(checkoutRequestId)).data).toMatchObject({ ResultCode: "1032" });
  });

  it("Jumbe's own client never sends an over-long AccountReference or TransactionDesc: it refuses before calling", async () => {
    const client = darajaClient({ baseUrl: h.base, consumerKey: KEY, consumerSecret: SECRET, shortcode: SHORTCODE, passkey: PASSKEY });
    const before = h.sandbox.tokenRequests();
    const push = { phone: "0712000003", amountKes: 10, callbackUrl: h.receiver.url("/stk-jumbe") };
    await expect(client.stkPush({ ...push, accountReference: "JUMBE", description: "Lipa na mpesa online" })).rejects.toThrow(RangeError);
    await expect(client.stkPush({ ...push, accountReference: "THIRTEEN-CHAR", description: "Top-up" })).rejects.toThrow(RangeError);
    expect(h.sandbox.tokenRequests()).toBe(before);
    expect(h.sandbox.allPrompts().filter((prompt) => prompt.phone === "254712000003")).toEqual([]);
  });
});

describe("C2B", () => {
  it("registers URLs and simulates a paybill payment (v1 through mpesa-node, v2 as Jumbe calls it)", async () => {
    const v1 = await mpesa.c2bRegister(h.receiver.url("/c2b/confirmation"), h.receiver.url("/c2b/validation"));
    expect(v1.data).toMatchObject({ ResponseCode: "0" });
    const transport = await mpesa.request();
    const v2 = await transport.post<Record<string, unknown>>("/mpesa/c2b/v2/registerurl", {
      ShortCode: SHORTCODE,
      ResponseType: "Completed",
      ConfirmationURL: h.receiver.url("/c2b/confirmation"),
      ValidationURL: h.receiver.url("/c2b/validation"),
    });
    expect(v2.data).toMatchObject({ ResponseCode: "0" });
    expect(
      await refusal(mpesa.c2bRegister("https://jumbe.example/mpesa/confirmation", "https://jumbe.example/mpesa/validation")),
    ).toMatchObject({ status: 400, data: { errorCode: "400.002.02" } });

    const simulated = await mpesa.c2bSimulate(254712000004, 150, "ACC1");
    expect(simulated.data).toMatchObject({ ResponseCode: "0" });
    // Jumbe's simulate is v2 (darajaClient().simulateC2b), with the body it sends; Daraja's answer
    // keeps its own spelling of OriginatorCoversationID.
    const v2Simulated = await transport.post<Record<string, unknown>>("/mpesa/c2b/v2/simulate", {
      ShortCode: SHORTCODE,
      CommandID: "CustomerPayBillOnline",
      Amount: 200,
      Msisdn: "254712000007",
      BillRefNumber: "ACC2",
    });
    expect(v2Simulated.data).toEqual({
      ConversationID: expect.any(String),
      OriginatorCoversationID: expect.any(String),
      ResponseCode: "0",
      ResponseDescription: expect.any(String),
    });
    await h.sandbox.flush();
    const confirmations = h.receiver.on("/c2b/confirmation").map((r) => r.body);
    expect(confirmations).toEqual([
      expect.objectContaining({ TransAmount: "150.00", BillRefNumber: "ACC1", BusinessShortCode: SHORTCODE }),
      expect.objectContaining({ TransAmount: "200.00", BillRefNumber: "ACC2", BusinessShortCode: SHORTCODE }),
    ]);
  });
});

describe("B2C and transaction status", () => {
  it("pays through B2C (v1 through mpesa-node, v3 as Jumbe calls it), then the status query reports the receipt", async () => {
    const v1 = await mpesa.b2c(SHORTCODE, 254712000005, 100, h.receiver.url("/b2c/timeout"), h.receiver.url("/b2c/result"));
    expect(v1.data).toEqual({
      ConversationID: expect.any(String),
      OriginatorConversationID: expect.any(String),
      ResponseCode: "0",
      ResponseDescription: expect.any(String),
    });
    // The credential mpesa-node made for its own call: the password encrypted with the certificate.
    const sent = JSON.parse(String(v1.config.data)) as { SecurityCredential: string };
    const transport = await mpesa.request();
    const v3 = await transport.post<Record<string, unknown>>("/mpesa/b2c/v3/paymentrequest", {
      OriginatorConversationID: "fidelity-b2c-1",
      InitiatorName: SANDBOX_INITIATOR_NAME,
      SecurityCredential: sent.SecurityCredential,
      CommandID: "BusinessPayment",
      Amount: 120,
      PartyA: Number(SHORTCODE),
      PartyB: 254712000006,
      Remarks: "Fidelity payout",
      QueueTimeOutURL: h.receiver.url("/b2c/timeout"),
      ResultURL: h.receiver.url("/b2c/result"),
      Occasion: "",
    });
    expect(v3.data).toMatchObject({ OriginatorConversationID: "fidelity-b2c-1", ResponseCode: "0" });

    await h.sandbox.flush();
    const results = h.receiver.on("/b2c/result").map((r) => r.body as unknown as { Result: Record<string, unknown> });
    expect(results.map((r) => r.Result.ResultCode)).toEqual([0, 0]);
    const receipt = String(results[0]!.Result.TransactionID);

    const status = await mpesa.transactionStatus(
      receipt,
      SHORTCODE,
      4,
      h.receiver.url("/status/timeout"),
      h.receiver.url("/status/result"),
    );
    expect(status.data).toMatchObject({ ResponseCode: "0" });
    await h.sandbox.flush();
    const [answer] = h.receiver
      .on("/status/result")
      .map((r) => r.body as unknown as { Result: { ResultCode: number; ResultParameters: unknown } });
    expect(answer?.Result.ResultCode).toBe(0);
    expect(JSON.stringify(answer?.Result.ResultParameters)).toContain(receipt);
  });
});
