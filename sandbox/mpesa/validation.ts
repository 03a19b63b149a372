import { isDarajaTimestamp, stkPasswordOf } from "./daraja-format";
import type { SandboxShortcode } from "./shortcodes";
import type { ResolvedOptions } from "./types";

/** A rejection in Daraja's words: HTTP status, errorCode, errorMessage. */
export interface Rejection {
  status: number;
  errorCode: string;
  errorMessage: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; rejection: Rejection };

export const MSISDN = /^254[17]\d{8}$/;
export const TRANSACTION_TYPES = ["CustomerPayBillOnline", "CustomerBuyGoodsOnline"] as const;
export const MAX_AMOUNT = 250_000;
/**
 * TransactionDesc: Safaricom's documentation says 1 to 13 characters, and the sandbox refuses a
 * longer one by default (`transactionDescLimit: "documented"`) in Daraja's field error, 400
 * `400.002.02` "Bad Request - Invalid TransactionDesc", as it refuses an over-long AccountReference.
 * Safaricom's production is observed to take longer ones (mpesa-node sends 20 by default) up to
 * about 182, a longer one being accepted and then failing to reach the phone (ResultCode 1025):
 * `transactionDescLimit: "observed"` behaves so. Neither the 182 nor the 1025 is documented (decision 110).
 */
export const TRANSACTION_DESC_DOCUMENTED_MAX = 13;
export const TRANSACTION_DESC_DELIVERED_MAX = 182;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** Words Daraja's production refuses in C2B URLs. */
const C2B_URL_KEYWORDS = ["m-pesa", "mpesa", "safaricom", "exec", "exe", "cmd", "sql", "query"];

type Body = Record<string, unknown>;

export const badRequest = (field: string): Rejection => ({
  status: 400,
  errorCode: "400.002.02",
  errorMessage: `Bad Request - Invalid ${field}`,
});
const wrongCredentials: Rejection = { status: 500, errorCode: "500.001.1001", errorMessage: "[MerchantValidate] - Wrong credentials" };
const noMerchant: Rejection = { status: 500, errorCode: "500.001.1001", errorMessage: "Merchant does not exist" };

/** Digits given as a JSON number or a string of digits (Daraja takes both), as a string. */
function digits(value: unknown, pattern: RegExp): string | undefined {
  const text =
    typeof value === "number" && Number.isSafeInteger(value) ? String(value) : typeof value === "string" ? value.trim() : undefined;
  return text !== undefined && pattern.test(text) ? text : undefined;
}

/** Whole shillings from 1 to 250 000, as a number or a numeric string. */
export function wholeAmount(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d+(\.0+)?$/.test(value.trim()) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_AMOUNT ? n : undefined;
}

function text(value: unknown, max = Number.POSITIVE_INFINITY): string | undefined {
  const s = typeof value === "number" && Number.isFinite(value) ? String(value) : typeof value === "string" ? value : undefined;
  return s !== undefined && s.trim().length >= 1 && s.length <= max ? s : undefined;
}

/** https anywhere, or http to this machine's loopback (the sandbox's one allowance). */
export function callbackUrlOk(value: unknown, options: { keywordCheck?: boolean } = {}): value is string {
  if (typeof value !== "string" || value.length > 1024) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || !url.hostname) return false;
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) return false;
  if (options.keywordCheck) {
    const lower = value.toLowerCase();
    if (C2B_URL_KEYWORDS.some((word) => lower.includes(word))) return false;
  }
  return true;
}

/** The shortcode, timestamp and password every Lipa na M-Pesa Online call carries. */
function checkCredentials(body: Body): Checked<{ shortcode: string; timestamp: string }> {
  const shortcode = digits(body.BusinessShortCode, /^\d{5,7}$/);
  if (!shortcode) return { ok: false, rejection: badRequest("BusinessShortCode") };
  if (typeof body.Password !== "string" || body.Password.length === 0) return { ok: false, rejection: badRequest("Password") };
  if (!isDarajaTimestamp(body.Timestamp)) return { ok: false, rejection: badRequest("Timestamp") };
  return { ok: true, value: { shortcode, timestamp: body.Timestamp } };
}

/**
 * The BusinessShortCode must be the one the token's app was made for (another app's shortcode, or
 * one the sandbox does not know, is "Merchant does not exist" to this app), and the Password made
 * with that shortcode's passkey ("Wrong credentials" otherwise), as Daraja answers (reference §1.3).
 */
function checkMerchant(body: Body, shortcode: string, timestamp: string, app: SandboxShortcode | undefined): Rejection | undefined {
  if (!app || shortcode !== app.shortcode) return noMerchant;
  if (body.Password !== stkPasswordOf(shortcode, app.passkey, timestamp)) return wrongCredentials;
  return undefined;
}

/**
 * Whether the push fits the shortcode's product: a paybill takes CustomerPayBillOnline with PartyB
 * the paybill; a till CustomerBuyGoodsOnline with PartyB its till number. Daraja accepts a push that
 * does not and ends it with ResultCode 2028 ("not permitted according to product assignment").
 */
export function fitsProduct(app: SandboxShortcode, transactionType: string, partyB: string): boolean {
  if (app.kind === "till") return transactionType === "CustomerBuyGoodsOnline" && partyB === app.tillNumber;
  return transactionType === "CustomerPayBillOnline" && partyB === app.shortcode;
}

export interface StkPushRequest {
  shortcode: string;
  transactionType: string;
  amount: number;
  partyA: string;
  partyB: string;
  phone: string;
  callbackUrl: string;
  accountReference: string;
  transactionDesc: string;
}

/** M-Pesa Express (STK push) request: the field rules, then the merchant and its password. */
export function checkStkPush(body: Body, options: ResolvedOptions, app: SandboxShortcode | undefined): Checked<StkPushRequest> {
  const credentials = checkCredentials(body);
  if (!credentials.ok) return credentials;
  const fail = (field: string) => ({ ok: false as const, rejection: badRequest(field) });
  const transactionType = body.TransactionType;
  if (typeof transactionType !== "string" || !(TRANSACTION_TYPES as readonly string[]).includes(transactionType))
    return fail("TransactionType");
  const amount = wholeAmount(body.Amount);
  if (amount === undefined) return fail("Amount");
  const partyA = digits(body.PartyA, MSISDN);
  if (!partyA) return fail("PartyA");
  const partyB = digits(body.PartyB, /^\d{5,7}$/);
  if (!partyB) return fail("PartyB");
  const phone = digits(body.PhoneNumber, MSISDN);
  if (!phone) return fail("PhoneNumber");
  if (!callbackUrlOk(body.CallBackURL)) return fail("CallBackURL");
  const accountReference = text(body.AccountReference, 12);
  if (accountReference === undefined) return fail("AccountReference");
  // "observed": any length, as production is observed to take; api.ts fails the push beyond TRANSACTION_DESC_DELIVERED_MAX.
  const transactionDesc = text(
    body.TransactionDesc,
    options.transactionDescLimit === "observed" ? Number.POSITIVE_INFINITY : TRANSACTION_DESC_DOCUMENTED_MAX,
  );
  if (transactionDesc === undefined) return fail("TransactionDesc");
  const { shortcode, timestamp } = credentials.value;
  const merchant = checkMerchant(body, shortcode, timestamp, app);
  if (merchant) return { ok: false, rejection: merchant };
  return {
    ok: true,
    value: { shortcode, transactionType, amount, partyA, partyB, phone, callbackUrl: body.CallBackURL, accountReference, transactionDesc },
  };
}

/** STK query request: credentials, then the CheckoutRequestID. */
export function checkStkQuery(body: Body, app: SandboxShortcode | undefined): Checked<{ checkoutRequestId: string }> {
  const credentials = checkCredentials(body);
  if (!credentials.ok) return credentials;
  const id = body.CheckoutRequestID;
  if (typeof id !== "string" || !/^ws_CO_\w{1,80}$/.test(id)) return { ok: false, rejection: badRequest("CheckoutRequestID") };
  const merchant = checkMerchant(body, credentials.value.shortcode, credentials.value.timestamp, app);
  if (merchant) return { ok: false, rejection: merchant };
  return { ok: true, value: { checkoutRequestId: id } };
}

export interface RegisterUrlRequest {
  shortCode: string;
  responseType: "Completed" | "Cancelled";
  confirmationUrl: string;
  validationUrl: string;
}

export function checkRegisterUrl(body: Body, options: ResolvedOptions): Checked<RegisterUrlRequest> {
  const fail = (field: string) => ({ ok: false as const, rejection: badRequest(field) });
  const shortCode = digits(body.ShortCode, /^\d{5,7}$/);
  if (!shortCode) return fail("ShortCode");
  const responseType = body.ResponseType;
  if (responseType !== "Completed" && responseType !== "Cancelled") return fail("ResponseType");
  const keywordCheck = options.c2bUrlKeywordCheck;
  if (!callbackUrlOk(body.ConfirmationURL, { keywordCheck })) return fail("ConfirmationURL");
  if (!callbackUrlOk(body.ValidationURL, { keywordCheck })) return fail("ValidationURL");
  return { ok: true, value: { shortCode, responseType, confirmationUrl: body.ConfirmationURL, validationUrl: body.ValidationURL } };
}

export interface SimulateRequest {
  shortCode: string;
  commandId: "CustomerPayBillOnline" | "CustomerBuyGoodsOnline";
  amount: number;
  msisdn: string;
  billRefNumber: string;
}

export function checkSimulate(body: Body): Checked<SimulateRequest> {
  const fail = (field: string) => ({ ok: false as const, rejection: badRequest(field) });
  const shortCode = digits(body.ShortCode, /^\d{5,7}$/);
  if (!shortCode) return fail("ShortCode");
  const commandId = body.CommandID;
  if (commandId !== "CustomerPayBillOnline" && commandId !== "CustomerBuyGoodsOnline") return fail("CommandID");
  const amount = wholeAmount(body.Amount);
  if (amount === undefined) return fail("Amount");
  const msisdn = digits(body.Msisdn, MSISDN);
  if (!msisdn) return fail("Msisdn");
  const billRefNumber = body.BillRefNumber === undefined || body.BillRefNumber === null ? "" : text(body.BillRefNumber, 20);
  if (billRefNumber === undefined || (commandId === "CustomerPayBillOnline" && billRefNumber === "")) return fail("BillRefNumber");
  return { ok: true, value: { shortCode, commandId, amount, msisdn, billRefNumber } };
}

export const B2C_COMMANDS = ["BusinessPayment", "SalaryPayment", "PromotionPayment"] as const;

export interface B2cRequest {
  originatorConversationId: string;
  initiatorName: string;
  securityCredential: string;
  commandId: string;
  amount: number;
  partyA: string;
  partyB: string;
  remarks: string;
  occasion: string;
  resultUrl: string;
  queueTimeoutUrl: string;
}

/**
 * B2C payment request (v3; v1 without OriginatorConversationID gets one made up): the field rules.
 * The initiator's credential is checked when the payout is processed, as Daraja does: a wrong one
 * is accepted here and ends with ResultCode 2001 on the ResultURL.
 */
export function checkB2c(body: Body, options: { originatorRequired: boolean }): Checked<B2cRequest> {
  const fail = (field: string) => ({ ok: false as const, rejection: badRequest(field) });
  const originator = body.OriginatorConversationID;
  if (options.originatorRequired && (typeof originator !== "string" || !/^[\w-]{1,64}$/.test(originator)))
    return fail("OriginatorConversationID");
  const initiatorName = text(body.InitiatorName, 64);
  if (initiatorName === undefined) return fail("InitiatorName");
  const securityCredential = text(body.SecurityCredential, 2048);
  if (securityCredential === undefined) return fail("SecurityCredential");
  const commandId = body.CommandID;
  if (typeof commandId !== "string" || !(B2C_COMMANDS as readonly string[]).includes(commandId)) return fail("CommandID");
  const amount =
    typeof body.Amount === "number"
      ? body.Amount
      : typeof body.Amount === "string" && /^\d+$/.test(body.Amount)
        ? Number(body.Amount)
        : NaN;
  if (!Number.isInteger(amount) || amount < 1) return fail("Amount");
  const partyA = digits(body.PartyA, /^\d{5,7}$/);
  if (!partyA) return fail("PartyA");
  const partyB = digits(body.PartyB, MSISDN);
  if (!partyB) return fail("PartyB");
  const remarks = text(body.Remarks, 100);
  if (remarks === undefined) return fail("Remarks");
  const occasion = body.Occasion === undefined || body.Occasion === null || body.Occasion === "" ? "" : text(body.Occasion, 100);
  if (occasion === undefined) return fail("Occasion");
  if (!callbackUrlOk(body.QueueTimeOutURL)) return fail("QueueTimeOutURL");
  if (!callbackUrlOk(body.ResultURL)) return fail("ResultURL");
  return {
    ok: true,
    value: {
      originatorConversationId: typeof originator === "string" && originator ? originator : "",
      initiatorName,
      securityCredential,
      commandId,
      amount,
      partyA,
      partyB,
      remarks,
      occasion,
      resultUrl: body.ResultURL,
      queueTimeoutUrl: body.QueueTimeOutURL,
    },
  };
}

export interface TransactionStatusRequest {
  initiatorName: string;
  securityCredential: string;
  transactionId?: string;
  originalConversationId?: string;
  resultUrl: string;
}

/** Transaction status query: a TransactionID or an OriginalConversationID, and where to post the answer. */
export function checkTransactionStatus(body: Body): Checked<TransactionStatusRequest> {
  const fail = (field: string) => ({ ok: false as const, rejection: badRequest(field) });
  const initiatorName = text(body.Initiator, 64);
  if (initiatorName === undefined) return fail("Initiator");
  const securityCredential = text(body.SecurityCredential, 2048);
  if (securityCredential === undefined) return fail("SecurityCredential");
  if (body.CommandID !== "TransactionStatusQuery") return fail("CommandID");
  const transactionId = typeof body.TransactionID === "string" && /^\w{1,32}$/.test(body.TransactionID) ? body.TransactionID : undefined;
  const originalConversationId =
    typeof body.OriginalConversationID === "string" && /^[\w-]{1,64}$/.test(body.OriginalConversationID)
      ? body.OriginalConversationID
      : undefined;
  if (!transactionId && !originalConversationId) return fail("TransactionID");
  if (!digits(body.PartyA, /^\d{5,7}$/)) return fail("PartyA");
  if (!callbackUrlOk(body.QueueTimeOutURL)) return fail("QueueTimeOutURL");
  if (!callbackUrlOk(body.ResultURL)) return fail("ResultURL");
  return { ok: true, value: { initiatorName, securityCredential, transactionId, originalConversationId, resultUrl: body.ResultURL } };
}
