import { afterEach, describe, expect, it } from "vitest";
import { eatStamp, stkPasswordOf } from "./daraja-format";
import { PASSKEY, SHORTCODE, startHarness, type Harness } from "./test-support";

const TILL = {
  label: "Duka till",
  kind: "till",
  shortcode: "7100001",
  tillNumber: "5100001",
  consumerKey: "till-app-key",
  consumerSecret: "till-app-secret",
  passkey: "till-passkey-0001",
} as const;
const PAYBILL = {
  label: "Shop paybill",
  kind: "paybill",
  shortcode: "600100",
  consumerKey: "paybill-app-key",
  consumerSecret: "paybill-app-secret",
  passkey: "paybill-passkey-0001",
} as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A push body signed for `code` with `passkey`. */
function body(code: string, passkey: string, extra: Record<string, unknown> = {}) {
  const ts = eatStamp(Date.now());
  return {
    ...h!.pushBody("254711000000"),
    BusinessShortCode: code,
    Password: stkPasswordOf(code, passkey, ts),
    Timestamp: ts,
    ...extra,
  };
}

function queryBody(code: string, passkey: string, id: string) {
  const ts = eatStamp(Date.now());
  return { BusinessShortCode: code, Password: stkPasswordOf(code, passkey, ts), Timestamp: ts, CheckoutRequestID: id };
}

describe("several shortcodes, each with its own app", () => {
  it("each app gets a token with its own key and secret, and only with them", async () => {
    h = await startHarness({ shortcodes: [TILL, PAYBILL] });
    await expect(h.token(TILL.consumerKey, TILL.consumerSecret)).resolves.toBeTruthy();
    await expect(h.token(PAYBILL.consumerKey, PAYBILL.consumerSecret)).resolves.toBeTruthy();
    await expect(h.token(TILL.consumerKey, PAYBILL.consumerSecret)).rejects.toThrow(/400\.008\.01/);
    await expect(h.token()).resolves.toBeTruthy(); // the default app is unchanged
  });

  it("a token from one app may not use another app's shortcode", async () => {
    h = await startHarness({ shortcodes: [TILL, PAYBILL] });
    const paybillToken = await h.token(PAYBILL.consumerKey, PAYBILL.consumerSecret);
    const answer = await h.push(body(SHORTCODE, PASSKEY), paybillToken);
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ errorCode: "500.001.1001", errorMessage: "Merchant does not exist" });
    const query = await h.call("/mpesa/stkpushquery/v1/query", {
      json: queryBody(TILL.shortcode, TILL.passkey, "ws_CO_1"),
      token: paybillToken,
    });
    expect(query.json).toMatchObject({ errorCode: "500.001.1001", errorMessage: "Merchant does not exist" });
  });

  it("a Password made with the wrong passkey is Daraja's 'Wrong credentials', on push and on query", async () => {
    h = await startHarness({ shortcodes: [PAYBILL] });
    const token = await h.token(PAYBILL.consumerKey, PAYBILL.consumerSecret);
    const push = await h.push(body(PAYBILL.shortcode, "not-the-passkey", { PartyB: PAYBILL.shortcode }), token);
    expect(push.status).toBe(500);
    expect(push.json).toMatchObject({ errorCode: "500.001.1001", errorMessage: "[MerchantValidate] - Wrong credentials" });
    const query = await h.call("/mpesa/stkpushquery/v1/query", {
      json: queryBody(PAYBILL.shortcode, "not-the-passkey", "ws_CO_191220191020363925"),
      token,
    });
    expect(query.json).toMatchObject({ errorCode: "500.001.1001", errorMessage: "[MerchantValidate] - Wrong credentials" });
    // The right passkey and a made-up CheckoutRequestID: the passkey is good, the id unknown.
    const good = await h.call("/mpesa/stkpushquery/v1/query", {
      json: queryBody(PAYBILL.shortcode, PAYBILL.passkey, "ws_CO_191220191020363925"),
      token,
    });
    expect(good.status).toBe(400);
    expect(good.json).toMatchObject({ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid CheckoutRequestID" });
  });

  it("a till takes CustomerBuyGoodsOnline to its till number, signed by its store number", async () => {
    h = await startHarness({ shortcodes: [TILL] });
    const token = await h.token(TILL.consumerKey, TILL.consumerSecret);
    const answer = await h.push(
      body(TILL.shortcode, TILL.passkey, {
        TransactionType: "CustomerBuyGoodsOnline",
        PartyB: TILL.tillNumber,
        PhoneNumber: "254712000001",
        PartyA: "254712000001",
      }),
      token,
    );
    expect(answer.json.ResponseCode).toBe("0");
    const prompt = h.sandbox.prompt(answer.json.CheckoutRequestID)!;
    expect(prompt).toMatchObject({ state: "pending", shortcode: TILL.tillNumber, businessShortCode: TILL.shortcode });
    expect(prompt.payee).toContain("Duka till");
    const phone = await h.call("/phone?phone=254712000001");
    expect(phone.text).toContain(`to ${TILL.tillNumber} for account`);
    expect(phone.text).toContain("For: Duka till: till 5100001, store 7100001");
  });

  it.each([
    ["a till called as a paybill", TILL, { TransactionType: "CustomerPayBillOnline", PartyB: TILL.tillNumber }],
    ["a till paid to its store number", TILL, { TransactionType: "CustomerBuyGoodsOnline", PartyB: TILL.shortcode }],
    ["a paybill called as a till", PAYBILL, { TransactionType: "CustomerBuyGoodsOnline", PartyB: PAYBILL.shortcode }],
  ] as const)("%s is accepted, then ends as 2028 without a prompt", async (_name, code, extra) => {
    h = await startHarness({ shortcodes: [TILL, PAYBILL] });
    const token = await h.token(code.consumerKey, code.consumerSecret);
    const answer = await h.push(body(code.shortcode, code.passkey, extra), token);
    expect(answer.json.ResponseCode).toBe("0");
    const id = answer.json.CheckoutRequestID;
    const query = await h.call("/mpesa/stkpushquery/v1/query", { json: queryBody(code.shortcode, code.passkey, id), token });
    expect(query.json).toMatchObject({ ResultCode: "2028", ResultDesc: "The request is not permitted according to product assignment" });
    await h.receiver.waitFor(1);
    expect(h.receiver.on("/stk")[0]!.body.Body.stkCallback.ResultCode).toBe(2028);
  });

  it("the control API adds a till at run time and lists shortcodes without secrets; reset forgets it", async () => {
    h = await startHarness();
    const added = await h.control("/shortcodes", TILL);
    expect(added.status).toBe(201);
    expect(added.json).toEqual({
      label: "Duka till",
      kind: "till",
      shortcode: "7100001",
      tillNumber: "5100001",
      consumerKey: "till-app-key",
    });
    expect((await h.control("/shortcodes", TILL)).status).toBe(409);
    expect((await h.control("/shortcodes", { ...TILL, consumerKey: "x", shortcode: "12", tillNumber: "9" })).status).toBe(400);
    expect((await h.control("/shortcodes", { ...TILL, consumerKey: "y", shortcode: "7100009", tillNumber: "" })).json).toMatchObject({
      message: expect.stringMatching(/tillNumber/),
    });
    const list = await h.control("/shortcodes");
    expect(list.text).not.toContain(TILL.consumerSecret);
    expect(list.text).not.toContain(TILL.passkey);
    await expect(h.token(TILL.consumerKey, TILL.consumerSecret)).resolves.toBeTruthy();
    const consolePage = await h.call("");
    expect(consolePage.text).toContain("Duka till");
    expect(consolePage.text).not.toContain(TILL.consumerSecret);
    await h.control("/reset", {});
    await expect(h.token(TILL.consumerKey, TILL.consumerSecret)).rejects.toThrow(/400\.008\.01/);
  });

  it("refuses bad shortcodes in its options", async () => {
    await expect(startHarness({ shortcodes: [{ ...TILL, tillNumber: undefined }] })).rejects.toThrow(/tillNumber/);
    await expect(startHarness({ shortcodes: [{ ...PAYBILL, shortcode: SHORTCODE }] })).rejects.toThrow(/already/);
  });
});
