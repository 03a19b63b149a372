import { constants, publicEncrypt } from "node:crypto";
import { readFileSync } from "node:fs";
import { normalizeKenyanMobile } from "~/lib/phone";
import { env } from "../config/env";
import { processState } from "../process-state";

/**
 * Safaricom's Daraja API: OAuth, M-Pesa Express (STK push and its status query), C2B URL
 * registration and (sandbox only) C2B simulate, B2C payouts and the transaction status query, and
 * the parsers of what Daraja posts back. The base
 * URL comes from configuration, so the same client talks to api.safaricom.co.ke, Safaricom's
 * sandbox or the local one (sandbox/mpesa). Facts: /work/shared/reference/kenya-payments.md §1.
 */

/** A Daraja refusal (its `{requestId, errorCode, errorMessage}` envelope), or no usable answer at all. */
export class DarajaError extends Error {
  /** The HTTP status Daraja answered; 0 when there was no answer (timeout, connection refused). */
  readonly httpStatus: number;
  /** Daraja's errorCode ("400.002.02", "500.001.1001", ...), a ResponseCode, or null. */
  readonly errorCode: string | null;
  readonly errorMessage: string;
  /** Daraja's requestId, for Safaricom support. */
  readonly requestId: string | null;
  /**
   * Whether Safaricom may have acted on the request anyway: a timeout or a cut connection after it
   * was sent. An STK push in doubt may still ring the phone: query it rather than push again.
   */
  readonly inDoubt: boolean;

  constructor(init: { httpStatus: number; errorCode?: string | null; errorMessage: string; requestId?: string | null; inDoubt?: boolean }) {
    const code = init.errorCode ? ` ${init.errorCode}` : "";
    super(`M-Pesa (Daraja) ${init.httpStatus || "no answer"}${code}: ${init.errorMessage}`);
    this.name = "DarajaError";
    this.httpStatus = init.httpStatus;
    this.errorCode = init.errorCode ?? null;
    this.errorMessage = init.errorMessage;
    this.requestId = init.requestId ?? null;
    this.inDoubt = init.inDoubt ?? false;
  }
}

export interface StkPushInput {
  /** 2547XXXXXXXX, 07..., +254..., normalised (normaliseMpesaPhone). */
  phone: string;
  /** Whole shillings, 1 to 250 000. */
  amountKes: number;
  /** Shown to the customer in the prompt; at most 12 characters. */
  accountReference: string;
  /** At most 13 characters. */
  description: string;
  callbackUrl: string;
}

export interface StkPushAccepted {
  merchantRequestId: string;
  checkoutRequestId: string;
  customerMessage: string;
}

export type StkQueryResult = { state: "pending" } | { state: "done"; resultCode: number; resultDesc: string };

export interface StkCallback {
  merchantRequestId: string;
  checkoutRequestId: string;
  resultCode: number;
  resultDesc: string;
  amountKes: number | null;
  receipt: string | null;
  transactionDate: Date | null;
  phone: string | null;
}

export interface C2bPayment {
  transactionType: string;
  transId: string;
  transTime: Date;
  amountCents: number;
  shortCode: string;
  /** The account number the customer typed: free text, expect typos and other cases. */
  billRefNumber: string;
  /** A phone number, or (since Safaricom's data minimisation) a SHA-256 hash or a masked number. */
  msisdn: string;
  firstName: string;
}

export interface DarajaConfig {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  /** BusinessShortCode: the paybill, or for a till the store (head office) number. */
  shortcode: string;
  /**
   * A paybill's STK push is CustomerPayBillOnline to the paybill; a till's is CustomerBuyGoodsOnline
   * with PartyB the till number (reference commerce §4.2). Jumbe's own billing shortcode is a paybill.
   */
  kind: "paybill" | "till";
  /** PartyB of a till's STK push; empty for a paybill. */
  tillNumber: string;
  passkey: string;
  timeoutMs: number;
  /** B2C: the shortcode payouts leave from, and its initiator (null: payouts by M-Pesa are not set up). */
  b2cShortcode: string;
  b2cInitiator: { name: string; password: string; certificate: string } | null;
  /** "sandbox" allows simulateC2b. */
  environment: "sandbox" | "production";
  /** Tests: the clock token expiry is read against, and the HTTP client. */
  now: () => number;
  fetch: typeof fetch;
}

export interface C2bSimulateAccepted {
  conversationId: string;
  originatorConversationId: string;
  responseDescription: string;
}

export interface B2cPaymentInput {
  /** Jumbe's own id for this payout attempt: Daraja's idempotency key (the same id never pays twice). */
  originatorConversationId: string;
  /** 2547XXXXXXXX, 07..., +254..., normalised. */
  phone: string;
  /** Whole shillings, 10 to 150,000. */
  amountKes: number;
  /** At most 100 characters. */
  remarks: string;
  occasion?: string;
  resultUrl: string;
  queueTimeoutUrl: string;
}

export interface B2cAccepted {
  conversationId: string;
  originatorConversationId: string;
}

/** What Daraja posted to a B2C ResultURL or QueueTimeOutURL (or a status query's ResultURL). */
export interface B2cResult {
  resultCode: number;
  resultDesc: string;
  /** ResultType 1: the request expired in Safaricom's queue (QueueTimeOutURL): nothing was paid. */
  expired: boolean;
  originatorConversationId: string;
  conversationId: string;
  /** The M-Pesa receipt of a paid payout (TransactionReceipt, or a status query's ReceiptNo). */
  receipt: string | null;
  amountKes: number | null;
  /** "2547… - Name" as M-Pesa shows the receiver. */
  receiverName: string | null;
  completedAt: Date | null;
  /** A status query's TransactionStatus ("Completed", "Failed", "Expired"); null on a payment's result. */
  transactionStatus: string | null;
}

export interface DarajaClient {
  stkPush(input: StkPushInput): Promise<StkPushAccepted>;
  stkQuery(checkoutRequestId: string): Promise<StkQueryResult>;
  registerC2bUrls(input: { validationUrl: string; confirmationUrl: string; responseType: "Completed" | "Cancelled" }): Promise<void>;
  /** Only accepted: the outcome arrives on resultUrl (or queueTimeoutUrl). Throws DarajaError (inDoubt: send the same id again). */
  b2cPayment(input: B2cPaymentInput): Promise<B2cAccepted>;
  /** What became of a payout, by its OriginatorConversationID (or its receipt): the answer arrives on resultUrl. */
  transactionStatus(input: {
    originatorConversationId?: string;
    transactionId?: string;
    resultUrl: string;
    queueTimeoutUrl: string;
  }): Promise<void>;
  /** Safaricom's sandbox (and the local one) only. */
  simulateC2b(input: { msisdn: string; amountKes: number; billRefNumber: string }): Promise<C2bSimulateAccepted>;
}

/** Tokens are used until this long before they expire (or half their life, when that is shorter). */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;
/** Daraja answers are a few hundred bytes; more than this is not Daraja (an HTML error page, say) and is cut. */
const MAX_ANSWER_BYTES = 64 * 1024;
const INVALID_TOKEN = "404.001.03";
const BEING_PROCESSED = "The transaction is being processed";

interface CachedToken {
  token: string;
  refreshAt: number;
}

const tokens = processState("daraja-tokens", () => ({
  cached: new Map<string, CachedToken>(),
  inFlight: new Map<string, Promise<CachedToken>>(),
}));

/**
 * Forgets the token cached for one app (a connection test must prove the key and secret as they
 * are now, not reuse a token an earlier secret earned).
 */
export function forgetDarajaToken(baseUrl: string, consumerKey: string) {
  tokens.cached.delete(`${baseUrl.replace(/\/+$/, "")}\n${consumerKey}`);
}

/** Forgets every cached OAuth token (tests). */
export function clearDarajaTokens() {
  tokens.cached.clear();
  tokens.inFlight.clear();
}

// ---------------------------------------------------------------------------------------------
// Formats

const EAT_OFFSET_MS = 3 * 60 * 60 * 1000;
const pad = (n: number) => String(n).padStart(2, "0");

/** `YYYYMMDDHHmmss` in East Africa Time (UTC+3, no daylight saving): Daraja's Timestamp. */
export function darajaTimestamp(date: Date): string {
  const d = new Date(date.getTime() + EAT_OFFSET_MS);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

/** base64(BusinessShortCode + Passkey + Timestamp): the STK push and query Password. */
export function stkPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, "utf8").toString("base64");
}

/** A `YYYYMMDDHHmmss` EAT time as an instant, or null when it is not a real date and time. */
function eatInstant(value: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const utc = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(utc);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59)
    return null;
  return new Date(utc - EAT_OFFSET_MS);
}

/**
 * A Kenyan mobile number as Daraja wants it, `2547XXXXXXXX` or `2541XXXXXXXX`, from the ways people
 * write it (0712 345 678, +254 712-345-678, 254712345678, 712345678); null when it is not one.
 */
export function normaliseMpesaPhone(input: string): string | null {
  return normalizeKenyanMobile(input)?.slice(1) ?? null;
}

/** Plain words for an STK ResultCode, for the business owner who paid (reference §1.4). */
const RESULT_WORDS: Record<number, string> = {
  0: "Paid: M-Pesa confirmed the payment.",
  1: "Your M-Pesa balance was not enough for this payment. Top up your M-Pesa account and try again.",
  1032: "You cancelled the M-Pesa prompt on your phone.",
  1031: "You cancelled the M-Pesa prompt on your phone.",
  1037: "We could not reach your phone, or the M-Pesa prompt timed out before the PIN was entered. Check the phone is on and has signal, then try again.",
  2001: "The M-Pesa PIN entered was wrong, so nothing was paid. Try again with the right PIN.",
  1001: "Another M-Pesa payment was still going on on that phone. Wait a minute or two, then try again.",
  1019: "The payment request expired before it was completed. Please try again.",
  1025: "M-Pesa could not send the payment prompt to your phone. Please try again.",
  9999: "M-Pesa could not send the payment prompt to your phone. Please try again.",
  17: "M-Pesa had a problem on its side with this payment. Nothing was paid; please try again in a few minutes.",
  26: "M-Pesa was too busy to take this payment. Nothing was paid; please try again in a few minutes.",
};

export function mpesaResultWords(resultCode: number, resultDesc?: string): string {
  const words = RESULT_WORDS[resultCode];
  if (words) return words;
  const desc = resultDesc?.trim();
  return desc ? desc : `M-Pesa could not complete the payment (code ${resultCode}).`;
}

// ---------------------------------------------------------------------------------------------
// Parsers of what Daraja posts

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

class MalformedError extends Error {
  constructor(what: string, problem: string) {
    super(`Malformed M-Pesa ${what}: ${problem}`);
    this.name = "MalformedMpesaBody";
  }
}

/** A number Daraja may send as a JSON number or a numeric string. */
function numeric(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return null;
}

/** Digits Daraja may send as a JSON number or a string (14-digit dates, phone numbers). */
function digitString(value: unknown): string | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === "string" && /^\d+$/.test(value.trim())) return value.trim();
  return null;
}

/**
 * The STK callback (`{Body: {stkCallback: {...}}}`): ResultCode a number, CallbackMetadata only on
 * success, its items looked up by Name (Balance may come without a Value). Throws on anything else.
 */
export function parseStkCallback(body: unknown): StkCallback {
  const what = "STK callback";
  const callback = isObject(body) && isObject(body.Body) ? body.Body.stkCallback : undefined;
  if (!isObject(callback)) throw new MalformedError(what, "no Body.stkCallback object");
  const { MerchantRequestID: merchant, CheckoutRequestID: checkout, ResultDesc: desc } = callback;
  if (typeof checkout !== "string" || checkout.length === 0) throw new MalformedError(what, "no CheckoutRequestID");
  if (typeof merchant !== "string") throw new MalformedError(what, "no MerchantRequestID");
  const resultCode = numeric(callback.ResultCode);
  if (resultCode === null || !Number.isInteger(resultCode)) throw new MalformedError(what, "ResultCode is not a number");
  const base = {
    merchantRequestId: merchant,
    checkoutRequestId: checkout,
    resultCode,
    resultDesc: typeof desc === "string" ? desc : "",
    amountKes: null,
    receipt: null,
    transactionDate: null,
    phone: null,
  };
  if (resultCode !== 0) return base;

  const items = isObject(callback.CallbackMetadata) ? callback.CallbackMetadata.Item : undefined;
  if (!Array.isArray(items)) throw new MalformedError(what, "a successful callback without CallbackMetadata.Item");
  const item = (name: string) => items.find((i): i is Json => isObject(i) && i.Name === name)?.Value;
  const amountKes = numeric(item("Amount"));
  if (amountKes === null || amountKes <= 0) throw new MalformedError(what, "a successful callback without a positive Amount");
  const receipt = item("MpesaReceiptNumber");
  if (typeof receipt !== "string" || !/^[A-Z0-9]{6,20}$/.test(receipt.trim()))
    throw new MalformedError(what, "a successful callback without an MpesaReceiptNumber");
  const date = digitString(item("TransactionDate"));
  const transactionDate = date ? eatInstant(date) : null;
  if (date && !transactionDate) throw new MalformedError(what, "TransactionDate is not YYYYMMDDHHmmss");
  return { ...base, amountKes, receipt: receipt.trim(), transactionDate, phone: digitString(item("PhoneNumber")) };
}

/** Shillings with at most 2 decimals ("5000.00", "10", 10.5) as whole cents, without float rounding. */
function centsOf(value: unknown): number | null {
  const text = typeof value === "number" && Number.isFinite(value) ? value.toFixed(2) : typeof value === "string" ? value.trim() : "";
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text);
  return m ? Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0")) : null;
}

/** A C2B validation or confirmation body (all strings at Daraja; numbers tolerated). Throws on anything else. */
export function parseC2bPayload(body: unknown): C2bPayment {
  const what = "C2B payload";
  if (!isObject(body)) throw new MalformedError(what, "not a JSON object");
  const text = (key: string, required: boolean) => {
    const value = body[key];
    if (typeof value === "string") return value.trim();
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
    if (value === undefined || value === null) {
      if (required) throw new MalformedError(what, `no ${key}`);
      return "";
    }
    throw new MalformedError(what, `${key} is not text`);
  };
  const transId = text("TransID", true);
  if (!/^[A-Z0-9]{6,20}$/i.test(transId)) throw new MalformedError(what, "TransID is not an M-Pesa receipt");
  const transTime = eatInstant(text("TransTime", true));
  if (!transTime) throw new MalformedError(what, "TransTime is not YYYYMMDDHHmmss");
  const amountCents = centsOf(body.TransAmount);
  if (amountCents === null || amountCents <= 0) throw new MalformedError(what, "TransAmount is not a positive amount");
  const shortCode = text("BusinessShortCode", true);
  if (!/^\d{5,7}$/.test(shortCode)) throw new MalformedError(what, "BusinessShortCode is not a shortcode");
  return {
    transactionType: text("TransactionType", false),
    transId,
    transTime,
    amountCents,
    shortCode,
    billRefNumber: text("BillRefNumber", false),
    msisdn: text("MSISDN", false),
    firstName: text("FirstName", false),
  };
}

/** `DD.MM.YYYY HH:mm:ss` (B2C's TransactionCompletedDateTime) or `YYYYMMDDHHmmss` (FinalisedTime), Nairobi time. */
function b2cInstant(value: unknown): Date | null {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  const dotted = /^(\d{2})\.(\d{2})\.(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  return eatInstant(dotted ? `${dotted[3]}${dotted[2]}${dotted[1]}${dotted[4]}${dotted[5]}${dotted[6]}` : text);
}

/**
 * A B2C result (ResultURL), a queue timeout (QueueTimeOutURL) or a transaction status result, as
 * Daraja posts them: `{Result: {ResultType, ResultCode, ..., ResultParameters: {ResultParameter: [{Key, Value}]}}}`
 * (a single parameter may come as an object, not a list). Throws TypeError when it is not one.
 */
export function parseB2cResult(body: unknown): B2cResult {
  const result = isObject(body) && isObject(body.Result) ? body.Result : null;
  const resultCode = numeric(result?.ResultCode);
  const originatorConversationId = result?.OriginatorConversationID;
  if (!result || resultCode === null || typeof originatorConversationId !== "string" || !originatorConversationId)
    throw new TypeError("Not a Daraja B2C result.");
  const raw = isObject(result.ResultParameters) ? result.ResultParameters.ResultParameter : undefined;
  const list = Array.isArray(raw) ? raw : isObject(raw) ? [raw] : [];
  const params = new Map<string, unknown>();
  for (const item of list) if (isObject(item) && typeof item.Key === "string") params.set(item.Key, item.Value);
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : typeof v === "number" ? String(v) : null);
  const transactionId = str(result.TransactionID);
  const status = str(params.get("TransactionStatus"));
  const receipt =
    str(params.get("TransactionReceipt")) ?? str(params.get("ReceiptNo")) ?? (resultCode === 0 && !status ? transactionId : null);
  const amount = numeric(params.get("TransactionAmount") ?? params.get("Amount"));
  return {
    resultCode,
    resultDesc: str(result.ResultDesc) ?? "",
    expired: numeric(result.ResultType) === 1,
    originatorConversationId,
    conversationId: str(result.ConversationID) ?? "",
    receipt,
    amountKes: amount,
    receiverName: str(params.get("ReceiverPartyPublicName") ?? params.get("CreditPartyName")),
    completedAt: b2cInstant(params.get("TransactionCompletedDateTime") ?? params.get("FinalisedTime")),
    transactionStatus: status,
  };
}

// ---------------------------------------------------------------------------------------------
// The client

function configFromEnv(): DarajaConfig {
  const config = env();
  const b2c = config.mpesaB2c;
  return {
    b2cShortcode: config.MPESA_B2C_SHORTCODE,
    b2cInitiator: b2c ? { name: config.MPESA_B2C_INITIATOR_NAME, password: b2c.initiatorPassword, certificate: b2c.certificate } : null,
    baseUrl: config.MPESA_BASE_URL,
    consumerKey: config.MPESA_CONSUMER_KEY,
    consumerSecret: config.MPESA_CONSUMER_SECRET,
    shortcode: config.MPESA_SHORTCODE,
    kind: "paybill",
    tillNumber: "",
    passkey: config.MPESA_PASSKEY,
    timeoutMs: config.MPESA_TIMEOUT_MS,
    environment: config.MPESA_ENVIRONMENT,
    now: Date.now,
    fetch: (input, init) => globalThis.fetch(input, init),
  };
}

interface Answer {
  status: number;
  json: Json | null;
  text: string;
}

/** One HTTP exchange with Daraja, bounded by timeoutMs; no answer becomes a DarajaError with httpStatus 0. */
async function exchange(config: DarajaConfig, path: string, init: RequestInit): Promise<Answer> {
  let response: Response;
  try {
    response = await config.fetch(`${config.baseUrl}${path}`, {
      ...init,
      redirect: "manual",
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (error) {
    throw networkError(error, config.timeoutMs);
  }
  let text: string;
  try {
    text = await boundedText(response, MAX_ANSWER_BYTES);
  } catch (error) {
    throw networkError(error, config.timeoutMs);
  }
  let json: Json | null = null;
  try {
    const parsed: unknown = JSON.parse(text);
    json = isObject(parsed) ? parsed : null;
  } catch {
    json = null;
  }
  return { status: response.status, json, text };
}

/** The body's first `limit` bytes as text; the rest is not read. */
async function boundedText(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (size >= limit) await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}

function networkError(error: unknown, timeoutMs: number) {
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError")
    return new DarajaError({ httpStatus: 0, errorMessage: `M-Pesa did not answer within ${timeoutMs / 1000} s.`, inDoubt: true });
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  const neverSent = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";
  return new DarajaError({
    httpStatus: 0,
    errorMessage: `Could not reach M-Pesa${code ? ` (${code})` : ""}.`,
    inDoubt: !neverSent,
  });
}

/** Daraja's error envelope (or a ResponseCode other than "0") as a DarajaError. */
function refusal(answer: Answer): DarajaError {
  const json = answer.json;
  const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);
  if (json && (json.errorCode !== undefined || json.errorMessage !== undefined))
    return new DarajaError({
      httpStatus: answer.status,
      errorCode: str(json.errorCode),
      errorMessage: str(json.errorMessage) ?? "M-Pesa refused the request.",
      requestId: str(json.requestId),
    });
  if (json && json.ResponseCode !== undefined && String(json.ResponseCode) !== "0")
    return new DarajaError({
      httpStatus: answer.status,
      errorCode: str(json.ResponseCode),
      errorMessage: str(json.ResponseDescription) ?? str(json.CustomerMessage) ?? "M-Pesa refused the request.",
    });
  const excerpt = answer.text.trim().slice(0, 200);
  return new DarajaError({
    httpStatus: answer.status,
    errorMessage: excerpt ? `M-Pesa answered HTTP ${answer.status}: ${excerpt}` : `M-Pesa answered HTTP ${answer.status} without a body.`,
    inDoubt: answer.status >= 500,
  });
}

const ok = (answer: Answer) =>
  answer.status >= 200 &&
  answer.status < 300 &&
  answer.json !== null &&
  answer.json.errorCode === undefined &&
  (answer.json.ResponseCode === undefined || String(answer.json.ResponseCode) === "0");

const tokenKey = (config: DarajaConfig) => `${config.baseUrl}\n${config.consumerKey}`;

async function fetchToken(config: DarajaConfig): Promise<CachedToken> {
  const basic = Buffer.from(`${config.consumerKey}:${config.consumerSecret}`, "utf8").toString("base64");
  const answer = await exchange(config, "/oauth/v1/generate?grant_type=client_credentials", {
    method: "GET",
    headers: { Authorization: `Basic ${basic}`, Accept: "application/json" },
  });
  const token = answer.json?.access_token;
  if (answer.status !== 200 || typeof token !== "string" || token.length === 0) throw refusal(answer);
  const expiresIn = numeric(answer.json?.expires_in) ?? 3599;
  const lifeMs = Math.max(0, expiresIn * 1000);
  return { token, refreshAt: config.now() + lifeMs - Math.min(REFRESH_MARGIN_MS, lifeMs / 2) };
}

/** A live token for (baseUrl, consumerKey): cached, and one request at a time however many callers ask. */
async function accessToken(config: DarajaConfig, rejected?: string): Promise<string> {
  const key = tokenKey(config);
  const cached = tokens.cached.get(key);
  if (cached && cached.token !== rejected && cached.refreshAt > config.now()) return cached.token;
  if (cached) tokens.cached.delete(key);
  let pending = tokens.inFlight.get(key);
  if (!pending) {
    pending = fetchToken(config).finally(() => tokens.inFlight.delete(key));
    tokens.inFlight.set(key, pending);
    pending.then((fresh) => tokens.cached.set(key, fresh)).catch(() => {});
  }
  return (await pending).token;
}

/** A Bearer POST; on 404.001.03 (Daraja's "Invalid Access Token") a fresh token and one more try. */
async function post(config: DarajaConfig, path: string, body: Json): Promise<Answer> {
  const send = (token: string) =>
    exchange(config, path, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
  const token = await accessToken(config);
  const answer = await send(token);
  if (answer.status !== 404 || answer.json?.errorCode !== INVALID_TOKEN) return answer;
  return send(await accessToken(config, token));
}

function checkStkInput(input: StkPushInput) {
  const phone = normaliseMpesaPhone(input.phone);
  if (!phone) throw new RangeError(`Not a Kenyan mobile number M-Pesa can prompt: "${input.phone}".`);
  if (!Number.isInteger(input.amountKes) || input.amountKes < 1 || input.amountKes > 250_000)
    throw new RangeError("An STK push takes whole shillings from 1 to 250,000.");
  const accountReference = input.accountReference.trim();
  if (accountReference.length < 1 || accountReference.length > 12) throw new RangeError("accountReference must be 1 to 12 characters.");
  const description = input.description.trim();
  if (description.length < 1 || description.length > 13) throw new RangeError("description must be 1 to 13 characters.");
  if (!URL.canParse(input.callbackUrl)) throw new RangeError("callbackUrl must be an absolute URL.");
  return { phone, accountReference, description };
}

const certificates = new Map<string, string>();

/** The certificate's PEM: the value itself, or the file it names (read once). */
function certificatePem(value: string) {
  if (value.includes("-----BEGIN ")) return value.replace(/\\n/g, "\n");
  let pem = certificates.get(value);
  if (!pem) certificates.set(value, (pem = readFileSync(value, "utf8")));
  return pem;
}

/** The initiator password encrypted with Safaricom's certificate (RSA, PKCS#1 v1.5), base64: B2C's SecurityCredential. */
export function securityCredential(password: string, certificate: string) {
  return publicEncrypt({ key: certificatePem(certificate), padding: constants.RSA_PKCS1_PADDING }, Buffer.from(password, "utf8")).toString(
    "base64",
  );
}

function b2cInitiator(c: DarajaConfig) {
  if (!c.b2cInitiator) throw new DarajaError({ httpStatus: 0, errorMessage: "M-Pesa payouts (B2C) are not set up on this server." });
  return { name: c.b2cInitiator.name, credential: securityCredential(c.b2cInitiator.password, c.b2cInitiator.certificate) };
}

function checkB2cInput(input: B2cPaymentInput) {
  const phone = normaliseMpesaPhone(input.phone);
  if (!phone) throw new RangeError(`Not a Kenyan mobile number M-Pesa can pay: "${input.phone}".`);
  if (!Number.isInteger(input.amountKes) || input.amountKes < 10 || input.amountKes > 150_000)
    throw new RangeError("A B2C payment takes whole shillings from 10 to 150,000.");
  if (!/^[\w-]{1,64}$/.test(input.originatorConversationId))
    throw new RangeError("originatorConversationId must be 1 to 64 letters, digits, _ or -.");
  const remarks = input.remarks.trim();
  if (remarks.length < 1 || remarks.length > 100) throw new RangeError("remarks must be 1 to 100 characters.");
  for (const url of [input.resultUrl, input.queueTimeoutUrl]) if (!URL.canParse(url)) throw new RangeError("Result URLs must be absolute.");
  return { phone, remarks };
}

/** Who receives an STK push: the paybill itself, or a till's till number (never its store number). */
function partyB(c: DarajaConfig): string {
  if (c.kind !== "till") return c.shortcode;
  if (!/^\d{5,7}$/.test(c.tillNumber)) throw new RangeError("A till's STK push needs its till number (5 to 7 digits).");
  return c.tillNumber;
}

/** M-Pesa Express: the prompt on the customer's phone (STK push) and its query. */
function expressCalls(config: () => DarajaConfig): Pick<DarajaClient, "stkPush" | "stkQuery"> {
  const credentials = (c: DarajaConfig) => {
    const timestamp = darajaTimestamp(new Date(c.now()));
    return { BusinessShortCode: c.shortcode, Password: stkPassword(c.shortcode, c.passkey, timestamp), Timestamp: timestamp };
  };

  return {
    /** Not retried: a push is not idempotent (a DarajaError with inDoubt may still ring the phone). */
    async stkPush(input) {
      const c = config();
      const { phone, accountReference, description } = checkStkInput(input);
      const answer = await post(c, "/mpesa/stkpush/v1/processrequest", {
        ...credentials(c),
        TransactionType: c.kind === "till" ? "CustomerBuyGoodsOnline" : "CustomerPayBillOnline",
        // Numbers, as Safaricom's own samples send them (reference §1.3).
        Amount: input.amountKes,
        PartyA: Number(phone),
        PartyB: Number(partyB(c)),
        PhoneNumber: Number(phone),
        CallBackURL: input.callbackUrl,
        AccountReference: accountReference,
        TransactionDesc: description,
      });
      const json = answer.json;
      if (!ok(answer) || typeof json?.CheckoutRequestID !== "string" || typeof json.MerchantRequestID !== "string") throw refusal(answer);
      return {
        merchantRequestId: json.MerchantRequestID,
        checkoutRequestId: json.CheckoutRequestID,
        customerMessage: typeof json.CustomerMessage === "string" ? json.CustomerMessage : "",
      };
    },
    async stkQuery(checkoutRequestId) {
      const c = config();
      const answer = await post(c, "/mpesa/stkpushquery/v1/query", { ...credentials(c), CheckoutRequestID: checkoutRequestId });
      const json = answer.json;
      // Still waiting for the customer: Daraja's standard "in progress" refusal.
      if (json?.errorCode === "500.001.1001" && json.errorMessage === BEING_PROCESSED) return { state: "pending" };
      const resultCode = numeric(json?.ResultCode);
      if (!ok(answer) || resultCode === null) throw refusal(answer);
      return { state: "done", resultCode, resultDesc: typeof json?.ResultDesc === "string" ? json.ResultDesc : "" };
    },
  };
}

/** Paybill payments (C2B): the URLs registered, and a payment simulated (sandboxes only). */
function c2bCalls(config: () => DarajaConfig): Pick<DarajaClient, "registerC2bUrls" | "simulateC2b"> {
  return {
    async registerC2bUrls(input) {
      const c = config();
      const answer = await post(c, "/mpesa/c2b/v2/registerurl", {
        ShortCode: c.shortcode,
        ResponseType: input.responseType,
        ConfirmationURL: input.confirmationUrl,
        ValidationURL: input.validationUrl,
      });
      if (!ok(answer)) throw refusal(answer);
    },
    async simulateC2b(input) {
      const c = config();
      if (c.environment === "production" || /\/\/api\.safaricom\.co\.ke(\/|$)/.test(c.baseUrl))
        throw new Error("C2B simulate exists only in Safaricom's sandbox (and the local one).");
      const msisdn = normaliseMpesaPhone(input.msisdn);
      if (!msisdn) throw new RangeError(`Not a Kenyan mobile number: "${input.msisdn}".`);
      if (!Number.isInteger(input.amountKes) || input.amountKes < 1) throw new RangeError("amountKes must be whole shillings, 1 or more.");
      const answer = await post(c, "/mpesa/c2b/v2/simulate", {
        ShortCode: c.shortcode,
        CommandID: "CustomerPayBillOnline",
        Amount: input.amountKes,
        Msisdn: msisdn,
        BillRefNumber: input.billRefNumber,
      });
      const json = answer.json;
      if (!ok(answer) || !json) throw refusal(answer);
      const str = (v: unknown) => (typeof v === "string" ? v : "");
      return {
        conversationId: str(json.ConversationID),
        originatorConversationId: str(json.OriginatorCoversationID ?? json.OriginatorConversationID),
        responseDescription: str(json.ResponseDescription),
      };
    },
  };
}

/** Payouts (B2C): a payment to a phone and its status query. */
function b2cCalls(config: () => DarajaConfig): Pick<DarajaClient, "b2cPayment" | "transactionStatus"> {
  return {
    /** Safe to send again with the same originatorConversationId: Daraja pays an id once (a repeat ends as ResultCode 15). */
    async b2cPayment(input) {
      const c = config();
      const { phone, remarks } = checkB2cInput(input);
      const initiator = b2cInitiator(c);
      const answer = await post(c, "/mpesa/b2c/v3/paymentrequest", {
        OriginatorConversationID: input.originatorConversationId,
        InitiatorName: initiator.name,
        SecurityCredential: initiator.credential,
        CommandID: "BusinessPayment",
        Amount: input.amountKes,
        PartyA: Number(c.b2cShortcode),
        PartyB: Number(phone),
        Remarks: remarks,
        QueueTimeOutURL: input.queueTimeoutUrl,
        ResultURL: input.resultUrl,
        Occasion: input.occasion ?? "",
      });
      const json = answer.json;
      if (!ok(answer) || typeof json?.ConversationID !== "string") throw refusal(answer);
      return {
        conversationId: json.ConversationID,
        originatorConversationId:
          typeof json.OriginatorConversationID === "string" ? json.OriginatorConversationID : input.originatorConversationId,
      };
    },
    async transactionStatus(input) {
      const c = config();
      if (!input.originatorConversationId && !input.transactionId)
        throw new RangeError("A status query needs a payout's id or its receipt.");
      const initiator = b2cInitiator(c);
      const answer = await post(c, "/mpesa/transactionstatus/v1/query", {
        Initiator: initiator.name,
        SecurityCredential: initiator.credential,
        CommandID: "TransactionStatusQuery",
        ...(input.transactionId ? { TransactionID: input.transactionId } : {}),
        ...(input.originatorConversationId ? { OriginalConversationID: input.originatorConversationId } : {}),
        PartyA: Number(c.b2cShortcode),
        IdentifierType: "4",
        ResultURL: input.resultUrl,
        QueueTimeOutURL: input.queueTimeoutUrl,
        Remarks: "Payout status",
        Occasion: "",
      });
      if (!ok(answer)) throw refusal(answer);
    },
  };
}

/** Daraja for Jumbe's configuration (env()), read at each call, or for the given settings. */
export function darajaClient(overrides: Partial<DarajaConfig> = {}): DarajaClient {
  const config = (): DarajaConfig => ({
    ...configFromEnv(),
    ...overrides,
    baseUrl: (overrides.baseUrl ?? env().MPESA_BASE_URL).replace(/\/+$/, ""),
  });
  return { ...expressCalls(config), ...c2bCalls(config), ...b2cCalls(config) };
}
