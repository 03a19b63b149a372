import { randomBytes } from "node:crypto";

/** Money in ten-thousandths of a shilling, as AT's cost strings carry four decimals ("KES 0.8000"). */
export type Kes4 = number;

export const toKes4 = (kes: number | string): Kes4 => Math.round(Number(kes) * 10_000);
/** "KES 0.8000" */
export const kesString = (amount: Kes4) => `KES ${(amount / 10_000).toFixed(4)}`;

export interface AccountInput {
  username: string;
  apiKey: string;
  /** Registered alphanumeric sender IDs. */
  senderIds?: string[];
  /** Shortcodes: senders too, and where the console's incoming SMS go. */
  shortcodes?: string[];
  /** Default 1000. */
  balanceKes?: number;
  deliveryReportUrl?: string;
  incomingUrl?: string;
  optOutUrl?: string;
}

export interface Account {
  username: string;
  apiKey: string;
  senderIds: string[];
  shortcodes: string[];
  balance: Kes4;
  deliveryReportUrl?: string;
  incomingUrl?: string;
  optOutUrl?: string;
  /** `${sender}\n${number}`: numbers that opted out of a sender. */
  blacklist: Set<string>;
}

export interface SentRecipient {
  number: string;
  statusCode: number;
  status: string;
  cost: string;
  messageId: string;
  /** The latest delivery report's status, once one was sent. */
  reported?: string;
}

export interface SentMessage {
  index: number;
  username: string;
  from: string;
  message: string;
  encoding: string;
  parts: number;
  enqueue: boolean;
  at: number;
  recipients: SentRecipient[];
}

export interface IncomingMessage {
  /** Increasing per sandbox: what `lastReceivedId` pages on. */
  id: number;
  username: string;
  from: string;
  to: string;
  text: string;
  linkId: string;
  date: string;
  networkCode: string;
}

export const DEFAULT_SENDER = "AFRICASTKNG";
const KEEP = 2000;

/** "ATXid_" and 32 hex digits, as AT's message ids. */
export const newMessageId = () => `ATXid_${randomBytes(16).toString("hex")}`;

/** AT's incoming-message date: "2026-03-04 10:30:00" (UTC). */
export const atDate = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, "");

function checkUrl(url: string | undefined, name: string) {
  if (url === undefined || url === "") return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    throw new Error(`Africa's Talking sandbox: ${name} must be an absolute http(s) URL; got "${url}".`);
  return url;
}

export function makeAccount(input: AccountInput): Account {
  if (!input?.username || !/^[\w.-]{1,64}$/.test(input.username))
    throw new Error("Africa's Talking sandbox: an account needs a username (letters, digits, . _ -).");
  if (!input.apiKey || input.apiKey.length < 8)
    throw new Error(`Africa's Talking sandbox: account "${input.username}" needs an apiKey of 8 characters or more.`);
  const balanceKes = input.balanceKes ?? 1000;
  if (!Number.isFinite(balanceKes) || balanceKes < 0) throw new Error("Africa's Talking sandbox: balanceKes must be 0 or more.");
  return {
    username: input.username,
    apiKey: input.apiKey,
    senderIds: [...(input.senderIds ?? [])],
    shortcodes: [...(input.shortcodes ?? [])],
    balance: toKes4(balanceKes),
    deliveryReportUrl: checkUrl(input.deliveryReportUrl, "deliveryReportUrl"),
    incomingUrl: checkUrl(input.incomingUrl, "incomingUrl"),
    optOutUrl: checkUrl(input.optOutUrl, "optOutUrl"),
    blacklist: new Set(),
  };
}

/** Accounts, the messages sent (newest last, the last 2000) and the incoming inbox, in memory. */
export class SmsState {
  accounts = new Map<string, Account>();
  sent: SentMessage[] = [];
  inbox: IncomingMessage[] = [];
  private nextSent = 0;
  private acceptedRecipients = 0;
  private nextIncoming = 1;

  constructor(private readonly initial: AccountInput[]) {
    this.reset();
  }

  /** AT's usernames are case-sensitive here: "Jumbe" is not "jumbe". */
  account(username: unknown) {
    return typeof username === "string" ? this.accounts.get(username) : undefined;
  }

  upsert(input: AccountInput) {
    const account = makeAccount(input);
    const before = this.accounts.get(account.username);
    if (before && input.balanceKes === undefined) account.balance = before.balance;
    if (before) account.blacklist = before.blacklist;
    this.accounts.set(account.username, account);
    return account;
  }

  /** Every message sent since the sandbox started (resets too), also those no longer kept. */
  get sentTotal() {
    return this.nextSent;
  }

  /** Every recipient AT accepted (100-102) since the sandbox started: one send may have many. */
  get acceptedTotal() {
    return this.acceptedRecipients;
  }

  record(message: Omit<SentMessage, "index">) {
    const stored = { ...message, index: this.nextSent++ };
    this.acceptedRecipients += message.recipients.filter((r) => r.statusCode >= 100 && r.statusCode <= 102).length;
    this.sent.push(stored);
    if (this.sent.length > KEEP) this.sent.splice(0, this.sent.length - KEEP);
    return stored;
  }

  findRecipient(messageId: string) {
    for (const message of this.sent) {
      const recipient = message.recipients.find((r) => r.messageId === messageId);
      if (recipient) return { message, recipient };
    }
    return undefined;
  }

  receive(message: Omit<IncomingMessage, "id">) {
    const stored = { ...message, id: this.nextIncoming++ };
    this.inbox.push(stored);
    if (this.inbox.length > KEEP) this.inbox.splice(0, this.inbox.length - KEEP);
    return stored;
  }

  reset() {
    this.accounts = new Map();
    for (const input of this.initial) this.upsert(input);
    this.sent = [];
    this.inbox = [];
  }
}
