import { env } from "~/.server/infrastructure/config/env";

export { smsParts, smsEncoding, type SmsParts } from "~/lib/sms-parts";

/**
 * Jumbe's client for Africa's Talking's bulk SMS API (issue 77): send, the incoming inbox, the
 * balance. Each organisation has its own AT application, so the username and API key come with every
 * call, never from a module-level setting (the official SDK switches every client in the process to
 * AT's sandbox once one is named "sandbox": decision 145). With the sandbox on, AFRICASTALKING_BASE_URL
 * is the local stand-in (sandbox/africastalking), which answers the same shapes.
 */

/**
 * AT refused the call (`auth`: a wrong username or key, 401; `refused`: another 4xx, AT's own text in
 * the message), failed (`server`: a 5xx), could not be reached (`timeout`, `network`: `httpStatus` 0)
 * or answered nonsense (`malformed`). After a timeout or network error a send may have gone out:
 * never resend blindly (the delivery reports name the messages that did).
 */
export class AfricastalkingError extends Error {
  httpStatus: number;
  kind: "auth" | "refused" | "server" | "timeout" | "network" | "malformed";
  constructor(message: string, httpStatus: number, kind: AfricastalkingError["kind"], options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AfricastalkingError";
    this.httpStatus = httpStatus;
    this.kind = kind;
  }
}

/** An organisation's AT application. */
export interface AfricastalkingCredentials {
  username: string;
  apiKey: string;
}

export interface SendSmsInput extends AfricastalkingCredentials {
  /** A registered sender ID or shortcode; AT's default sender without one. */
  from?: string;
  /** E.164 numbers (+2547...), 1 to 1000. */
  to: string[];
  message: string;
  /** AT queues the send and answers at once (large batches). */
  enqueue: boolean;
}

export interface SmsRecipient {
  number: string;
  /** AT's code: 100 Processed, 101 Sent, 102 Queued (accepted); 401-409, 500-502 refused. */
  statusCode: number;
  status: string;
  accepted: boolean;
  /** The cost in cents of the currency (KES), rounded to the cent; 0 when refused. */
  costCents: number;
  currency: string | null;
  /** What AT said, verbatim ("KES 0.8000"). */
  cost: string;
  /** What delivery reports carry as `id`; null when refused ("None"). */
  messageId: string | null;
}

export interface SendSmsResult {
  /** AT's summary ("Sent to 1/1 Total Cost: KES 0.8000"). */
  summary: string;
  recipients: SmsRecipient[];
  totalCostCents: number;
}

export interface IncomingSms {
  id: number;
  from: string;
  to: string;
  text: string;
  linkId: string | null;
  date: string;
}

export interface SmsBalance {
  currency: string;
  amountCents: number;
  /** Verbatim ("KES 1000.0000"). */
  text: string;
}

export interface AfricastalkingClient {
  sendSms(input: SendSmsInput): Promise<SendSmsResult>;
  /** Incoming SMS after `lastReceivedId` (0: from the start), up to 100 a call. */
  fetchIncoming(input: AfricastalkingCredentials & { lastReceivedId: number }): Promise<IncomingSms[]>;
  fetchBalance(input: AfricastalkingCredentials): Promise<SmsBalance>;
}

/** Answers larger than this are not read: 1000 recipients take about 200 KB. */
export const AFRICASTALKING_ANSWER_LIMIT_BYTES = 1024 * 1024;
const MAX_RECIPIENTS = 1000;
const ACCEPTED = new Set([100, 101, 102]);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const timedOut = (error: unknown) => error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

function configOf(config: Partial<{ baseUrl: string; timeoutMs: number }>) {
  // Read per call: with PORT=0 the sandbox's base URL is known only once the server listens.
  const settings = env();
  return {
    baseUrl: (config.baseUrl ?? settings.AFRICASTALKING_BASE_URL).replace(/\/+$/, ""),
    timeoutMs: config.timeoutMs ?? settings.AFRICASTALKING_TIMEOUT_MS,
  };
}

function checkCredentials({ username, apiKey }: AfricastalkingCredentials) {
  if (!username || !/^[\w.-]{1,100}$/.test(username)) throw new TypeError("username must be an Africa's Talking application username");
  if (!apiKey || !/^[\x21-\x7e]{1,200}$/.test(apiKey)) throw new TypeError("apiKey must be printable ASCII without spaces");
}

/** The body as text, reading at most the limit (a longer answer is `malformed`, not read to its end). */
async function readBounded(response: Response, what: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? 0);
  const tooLarge = () => new AfricastalkingError(`Africa's Talking ${what} answered more than we read`, response.status, "malformed");
  if (declared > AFRICASTALKING_ANSWER_LIMIT_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > AFRICASTALKING_ANSWER_LIMIT_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** One call: the JSON of an answer with the expected status, or an AfricastalkingError. */
async function call(
  config: ReturnType<typeof configOf>,
  what: string,
  credentials: AfricastalkingCredentials,
  request: { method: "GET" | "POST"; path: string; form?: URLSearchParams; expect: number },
): Promise<Json> {
  let text: string;
  let status: number;
  try {
    const response = await fetch(`${config.baseUrl}${request.path}`, {
      method: request.method,
      headers: {
        apiKey: credentials.apiKey,
        Accept: "application/json",
        ...(request.form ? { "Content-Type": "application/x-www-form-urlencoded" } : {}),
      },
      body: request.form?.toString(),
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: "error",
    });
    status = response.status;
    text = await readBounded(response, what);
  } catch (cause) {
    if (cause instanceof AfricastalkingError) throw cause;
    if (timedOut(cause))
      throw new AfricastalkingError(`Africa's Talking ${what} timed out after ${config.timeoutMs} ms`, 0, "timeout", { cause });
    throw new AfricastalkingError(`Africa's Talking ${what}: could not reach ${config.baseUrl}`, 0, "network", { cause });
  }
  if (status !== request.expect) {
    // AT refuses in plain text ("The supplied authentication is invalid"); keep a short excerpt.
    const said = text.replace(/\s+/g, " ").trim().slice(0, 200) || `HTTP ${status}`;
    const kind = status === 401 ? "auth" : status >= 500 ? "server" : status >= 400 ? "refused" : "malformed";
    throw new AfricastalkingError(`Africa's Talking ${what}: ${said}`, status, kind);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) return parsed;
  } catch {
    // below
  }
  throw new AfricastalkingError(
    `Africa's Talking ${what} answered HTTP ${status} with a body that is not a JSON object`,
    status,
    "malformed",
  );
}

/** "KES 0.8000" → { currency: "KES", cents: 80 }; "0" (a refused recipient) → 0 cents, no currency. */
export function parseAtAmount(text: string): { currency: string | null; cents: number } | null {
  const trimmed = text.trim();
  if (/^0(\.0+)?$/.test(trimmed)) return { currency: null, cents: 0 };
  const m = /^([A-Z]{3})\s+(-?\d{1,12})(?:\.(\d{1,6}))?$/.exec(trimmed);
  if (!m) return null;
  const [, currency, whole, fraction = ""] = m;
  const sign = whole!.startsWith("-") ? -1 : 1;
  const units = Math.abs(Number(whole)) * 100 + Number(fraction.padEnd(3, "0").slice(0, 2));
  const roundUp = Number(fraction.padEnd(3, "0")[2]) >= 5 ? 1 : 0;
  return { currency: currency!, cents: sign * (units + roundUp) };
}

function recipientFrom(value: unknown): SmsRecipient {
  if (!isObject(value) || typeof value.number !== "string" || typeof value.status !== "string")
    throw new AfricastalkingError("Africa's Talking send answered a recipient without number or status", 201, "malformed");
  const statusCode = typeof value.statusCode === "number" ? value.statusCode : Number(value.statusCode);
  if (!Number.isInteger(statusCode))
    throw new AfricastalkingError(`Africa's Talking send answered no statusCode for ${value.number}`, 201, "malformed");
  const cost = typeof value.cost === "string" ? value.cost : "0";
  const amount = parseAtAmount(cost);
  if (!amount)
    throw new AfricastalkingError(`Africa's Talking send answered a cost it cannot read: ${cost.slice(0, 40)}`, 201, "malformed");
  const messageId = typeof value.messageId === "string" && value.messageId !== "None" && value.messageId !== "" ? value.messageId : null;
  const accepted = ACCEPTED.has(statusCode);
  return {
    number: value.number,
    statusCode,
    status: value.status,
    accepted,
    costCents: amount.cents,
    currency: amount.currency,
    cost,
    messageId,
  };
}

function checkSendInput(input: SendSmsInput) {
  checkCredentials(input);
  if (!Array.isArray(input.to) || input.to.length === 0 || input.to.length > MAX_RECIPIENTS)
    throw new TypeError(`to must list 1 to ${MAX_RECIPIENTS} numbers`);
  for (const number of input.to) if (!/^\+[1-9]\d{6,14}$/.test(number)) throw new TypeError(`${number} is not an E.164 number`);
  if (!input.message) throw new TypeError("message is required");
  if (input.from !== undefined && !/^[\w .&-]{1,20}$/.test(input.from)) throw new TypeError("from must be a sender ID or shortcode");
}

/** Africa's Talking's SMS API; the base URL and timeout from env() unless given. */
export function africastalkingClient(config: Partial<{ baseUrl: string; timeoutMs: number }> = {}): AfricastalkingClient {
  return {
    async sendSms(input) {
      checkSendInput(input);
      const form = new URLSearchParams({ username: input.username, to: input.to.join(","), message: input.message, bulkSMSMode: "1" });
      if (input.from !== undefined) form.set("from", input.from);
      if (input.enqueue) form.set("enqueue", "1");
      const body = await call(configOf(config), "send", input, { method: "POST", path: "/version1/messaging", form, expect: 201 });
      const data = isObject(body.SMSMessageData) ? body.SMSMessageData : undefined;
      if (!data || !Array.isArray(data.Recipients))
        throw new AfricastalkingError("Africa's Talking send answered without SMSMessageData.Recipients", 201, "malformed");
      const recipients = data.Recipients.map(recipientFrom);
      return {
        summary: typeof data.Message === "string" ? data.Message : "",
        recipients,
        totalCostCents: recipients.reduce((sum, r) => sum + (r.accepted ? r.costCents : 0), 0),
      };
    },

    async fetchIncoming(input) {
      checkCredentials(input);
      if (!Number.isSafeInteger(input.lastReceivedId) || input.lastReceivedId < 0) throw new TypeError("lastReceivedId must be 0 or more");
      const query = new URLSearchParams({ username: input.username, lastReceivedId: String(input.lastReceivedId) });
      const body = await call(configOf(config), "fetch messages", input, {
        method: "GET",
        path: `/version1/messaging?${query}`,
        expect: 200,
      });
      const data = isObject(body.SMSMessageData) ? body.SMSMessageData : undefined;
      if (!data || !Array.isArray(data.Messages))
        throw new AfricastalkingError("Africa's Talking fetch answered without SMSMessageData.Messages", 200, "malformed");
      return data.Messages.map((m): IncomingSms => {
        const id = isObject(m) ? Number(m.id) : NaN;
        if (!isObject(m) || !Number.isSafeInteger(id) || typeof m.from !== "string" || typeof m.text !== "string")
          throw new AfricastalkingError("Africa's Talking fetch answered a message without id, from or text", 200, "malformed");
        return {
          id,
          from: m.from,
          to: typeof m.to === "string" ? m.to : "",
          text: m.text,
          linkId: typeof m.linkId === "string" && m.linkId !== "" ? m.linkId : null,
          date: typeof m.date === "string" ? m.date : "",
        };
      });
    },

    async fetchBalance(input) {
      checkCredentials(input);
      const query = new URLSearchParams({ username: input.username });
      const body = await call(configOf(config), "balance", input, { method: "GET", path: `/version1/user?${query}`, expect: 200 });
      const text = isObject(body.UserData) && typeof body.UserData.balance === "string" ? body.UserData.balance : "";
      const amount = parseAtAmount(text);
      if (!amount?.currency) throw new AfricastalkingError("Africa's Talking balance answered without UserData.balance", 200, "malformed");
      return { currency: amount.currency, amountCents: amount.cents, text };
    },
  };
}
