import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "~/.server/infrastructure/config/env";

/**
 * Jumbe's client for Paystack's card payments in KES (hosted checkout): initialize a transaction,
 * verify it, check a webhook's `x-paystack-signature` and read its event. Amounts are in cents
 * (Paystack's subunit). With the sandbox on, PAYSTACK_BASE_URL is the local stand-in
 * (sandbox/paystack), which answers the same shapes.
 */

/**
 * Paystack refused the call (`httpStatus` is its HTTP status, `message` its own), or it could not
 * be reached (`httpStatus` 0: `kind` "timeout" or "network"), or its answer made no sense
 * ("malformed"). After a timeout or a network error the call may have reached Paystack: verify the
 * reference before starting another transaction.
 */
export class PaystackError extends Error {
  httpStatus: number;
  kind: "api" | "timeout" | "network" | "malformed";
  constructor(message: string, httpStatus: number, kind: PaystackError["kind"] = "api", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PaystackError";
    this.httpStatus = httpStatus;
    this.kind = kind;
  }
}

export interface InitializeInput {
  email: string;
  amountCents: number;
  reference: string;
  callbackUrl: string;
  metadata?: Record<string, unknown>;
}

export interface Initialized {
  authorizationUrl: string;
  accessCode: string;
  reference: string;
}

export interface VerifiedTransaction {
  reference: string;
  /** Paystack's `ongoing`, `processing`, `queued` (and anything unknown) read as "pending". */
  status: "success" | "failed" | "abandoned" | "pending" | "reversed";
  amountCents: number;
  currency: string;
  gatewayResponse: string;
  paidAt: Date | null;
  channel: string | null;
  cardLast4: string | null;
  /** Added: the card's brand ("visa", "mastercard"), when a card was used. */
  cardBrand?: string | null;
  /** Added: the customer's e-mail as Paystack has it. */
  customerEmail?: string | null;
  /** Added: the metadata sent at initialize, as Paystack returns it (null when none). */
  metadata?: Record<string, unknown> | null;
}

export interface PaystackClient {
  initializeTransaction(input: InitializeInput): Promise<Initialized>;
  verifyTransaction(reference: string): Promise<VerifiedTransaction>;
}

export interface PaystackEvent {
  event: string;
  reference: string;
  amountCents: number;
  currency: string;
  status: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const stringOr = <T>(value: unknown, fallback: T) => (typeof value === "string" ? value : fallback);

function configOf(config: Partial<{ baseUrl: string; secretKey: string; timeoutMs: number }>) {
  // Read per call: with PORT=0 the sandbox's base URL is known only once the server listens.
  const settings = env();
  return {
    baseUrl: (config.baseUrl ?? settings.PAYSTACK_BASE_URL).replace(/\/+$/, ""),
    secretKey: config.secretKey ?? settings.PAYSTACK_SECRET_KEY,
    timeoutMs: config.timeoutMs ?? settings.PAYSTACK_TIMEOUT_MS,
  };
}

/** One call to Paystack: the `data` of a `{ status: true }` answer, or a PaystackError. */
async function call(
  config: ReturnType<typeof configOf>,
  what: string,
  path: string,
  init: { method: "GET" | "POST"; body?: unknown },
): Promise<Json> {
  let response: Response;
  try {
    response = await fetch(`${config.baseUrl}${path}`, {
      method: init.method,
      headers: {
        Authorization: `Bearer ${config.secretKey}`,
        Accept: "application/json",
        ...(init.body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: "error",
    });
  } catch (cause) {
    const timedOut = cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
    throw timedOut
      ? new PaystackError(`Paystack ${what} timed out after ${config.timeoutMs} ms`, 0, "timeout", { cause })
      : new PaystackError(`Paystack ${what}: could not reach ${config.baseUrl}`, 0, "network", { cause });
  }
  let parsed: unknown;
  try {
    const text = await response.text();
    parsed = text ? JSON.parse(text) : undefined;
  } catch (cause) {
    if (cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError"))
      throw new PaystackError(`Paystack ${what} timed out after ${config.timeoutMs} ms`, 0, "timeout", { cause });
    throw new PaystackError(`Paystack ${what} answered HTTP ${response.status} with a body that is not JSON`, response.status, "malformed");
  }
  const envelope = isObject(parsed) ? parsed : {};
  if (!response.ok || envelope.status !== true) {
    const message = stringOr(envelope.message, "").trim() || `HTTP ${response.status}`;
    const kind = response.ok || isObject(parsed) ? "api" : "malformed";
    throw new PaystackError(`Paystack ${what}: ${message}`, response.ok ? 502 : response.status, kind);
  }
  if (!isObject(envelope.data)) throw new PaystackError(`Paystack ${what} answered without data`, response.status, "malformed");
  return envelope.data;
}

function checkInitializeInput(input: InitializeInput) {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0)
    throw new TypeError(`amountCents must be a positive whole number of cents; got ${String(input.amountCents)}`);
  if (!input.reference) throw new TypeError("reference is required");
  if (!input.email) throw new TypeError("email is required");
}

const STATUSES = new Set(["success", "failed", "abandoned", "reversed"]);

function verifiedFrom(data: Json, reference: string): VerifiedTransaction {
  if (data.reference !== reference)
    throw new PaystackError(`Paystack verify answered reference ${String(data.reference)} for ${reference}`, 502, "malformed");
  if (!Number.isSafeInteger(data.amount) || (data.amount as number) < 0)
    throw new PaystackError(`Paystack verify answered an amount that is not a whole number of cents for ${reference}`, 502, "malformed");
  const status = stringOr(data.status, "");
  const paidAtText = stringOr(data.paid_at, null) ?? stringOr(data.paidAt, null);
  const paidAt = paidAtText ? new Date(paidAtText) : null;
  const authorization = isObject(data.authorization) ? data.authorization : {};
  const customer = isObject(data.customer) ? data.customer : {};
  return {
    reference,
    status: (STATUSES.has(status) ? status : "pending") as VerifiedTransaction["status"],
    amountCents: data.amount as number,
    currency: stringOr(data.currency, "").toUpperCase(),
    gatewayResponse: stringOr(data.gateway_response, ""),
    paidAt: paidAt && !Number.isNaN(paidAt.getTime()) ? paidAt : null,
    channel: stringOr(data.channel, null),
    cardLast4: stringOr(authorization.last4, null),
    cardBrand: stringOr(authorization.brand, null),
    customerEmail: stringOr(customer.email, null),
    metadata: isObject(data.metadata) ? data.metadata : null,
  };
}

/** Paystack's transaction API; configuration from env() unless given. */
export function paystackClient(config: Partial<{ baseUrl: string; secretKey: string; timeoutMs: number }> = {}): PaystackClient {
  return {
    async initializeTransaction(input) {
      checkInitializeInput(input);
      const data = await call(configOf(config), "initialize", "/transaction/initialize", {
        method: "POST",
        body: {
          email: input.email,
          amount: input.amountCents,
          currency: "KES",
          reference: input.reference,
          callback_url: input.callbackUrl,
          channels: ["card"],
          ...(input.metadata ? { metadata: input.metadata } : {}),
        },
      });
      const authorizationUrl = stringOr(data.authorization_url, "");
      const accessCode = stringOr(data.access_code, "");
      if (!authorizationUrl || !accessCode)
        throw new PaystackError("Paystack initialize answered without an authorization URL", 502, "malformed");
      return { authorizationUrl, accessCode, reference: stringOr(data.reference, input.reference) };
    },

    async verifyTransaction(reference) {
      if (!reference) throw new TypeError("reference is required");
      const data = await call(configOf(config), "verify", `/transaction/verify/${encodeURIComponent(reference)}`, { method: "GET" });
      return verifiedFrom(data, reference);
    },
  };
}

/**
 * Whether `x-paystack-signature` is the HMAC-SHA512 (hex) of the raw body with the secret key,
 * compared in constant time. Missing or malformed: false. Check the raw bytes, before parsing.
 */
export function verifyPaystackSignature(rawBody: string | Buffer, signature: string | undefined, secretKey?: string): boolean {
  if (typeof signature !== "string" || !/^[0-9a-fA-F]{128}$/.test(signature.trim())) return false;
  const key = secretKey ?? env().PAYSTACK_SECRET_KEY;
  const expected = createHmac("sha512", key).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature.trim(), "hex"));
}

/**
 * The fields Jumbe acts on from a webhook body (parsed JSON, or its raw text or bytes): the event
 * name and its transaction's reference, amount in cents, currency and status. Throws a clear Error
 * when the body is not a Paystack event.
 */
export function parsePaystackEvent(body: unknown): PaystackEvent {
  let value = body;
  if (typeof value === "string" || Buffer.isBuffer(value)) {
    try {
      value = JSON.parse(value.toString()) as unknown;
    } catch {
      throw new Error("Paystack event: the body is not JSON");
    }
  }
  if (!isObject(value)) throw new Error("Paystack event: the body is not a JSON object");
  if (typeof value.event !== "string" || !value.event) throw new Error("Paystack event: `event` is missing");
  const data = value.data;
  if (!isObject(data)) throw new Error(`Paystack event ${value.event}: \`data\` is missing`);
  if (typeof data.reference !== "string" || !data.reference)
    throw new Error(`Paystack event ${value.event}: \`data.reference\` is missing`);
  if (!Number.isSafeInteger(data.amount) || (data.amount as number) < 0)
    throw new Error(`Paystack event ${value.event}: \`data.amount\` is not a whole number of cents`);
  if (typeof data.currency !== "string" || !/^[A-Za-z]{3}$/.test(data.currency))
    throw new Error(`Paystack event ${value.event}: \`data.currency\` is missing`);
  if (typeof data.status !== "string" || !data.status) throw new Error(`Paystack event ${value.event}: \`data.status\` is missing`);
  return {
    event: value.event,
    reference: data.reference,
    amountCents: data.amount as number,
    currency: data.currency.toUpperCase(),
    status: data.status,
  };
}

const DECLINES: [RegExp, string][] = [
  [/insufficient/i, "The card does not have enough money for this payment. Try another card, or top up with M-Pesa."],
  [
    /3ds|3-d secure|authenticat|otp|token/i,
    "The card's bank could not confirm it was you (the one-time code was wrong or not entered). Try again and enter the code your bank sends.",
  ],
  [/expired/i, "The card has expired. Try another card."],
  [/not completed|abandon|cancel/i, "The payment was not finished, so nothing was charged. You can try again."],
  [
    /time(d)? ?out|timeout|unavailable|issuer.*(down|inoperative)/i,
    "The card's bank did not answer in time. Nothing was charged; try again in a few minutes.",
  ],
  [/limit|exceed/i, "This payment is over the card's limit. Try a smaller amount, another card, or M-Pesa."],
  [/stolen|lost|fraud|restricted|pick ?up|blocked/i, "The card's bank refused this card. Use another card or call your bank."],
  [
    /invalid (card|number|account)|incorrect|wrong/i,
    "The card details were not accepted. Check the number, expiry date and CVV, or try another card.",
  ],
  [
    /declined|do not honou?r|not permitted|refused/i,
    "The card's bank declined the payment. Try another card, or call your bank to allow online payments.",
  ],
];

/**
 * A card decline in plain English for a business owner: what happened and what to do next.
 * Paystack's `gateway_response` is the bank's wording, which varies; unknown wording gets a
 * general sentence that still names it.
 */
export function paystackDeclineWords(gatewayResponse: string): string {
  const said = (gatewayResponse ?? "").trim();
  for (const [pattern, words] of DECLINES) if (pattern.test(said)) return words;
  if (!said) return "The card payment did not go through. Nothing was charged; try again, or top up with M-Pesa.";
  return `The card payment did not go through (the bank said: "${said.slice(0, 120)}"). Try another card, or top up with M-Pesa.`;
}
