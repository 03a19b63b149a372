import { createHash, randomInt } from "node:crypto";
import type { Response } from "express";

/** East Africa Time is UTC+3 all year (no daylight saving). */
const EAT_OFFSET_MS = 3 * 60 * 60 * 1000;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The calendar fields of an instant in Nairobi. */
export function eatParts(ms: number) {
  const d = new Date(ms + EAT_OFFSET_MS);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millis: d.getUTCMilliseconds(),
  };
}

/** `YYYYMMDDHHmmss` in EAT: Daraja's Timestamp, TransactionDate and TransTime. */
export function eatStamp(ms: number): string {
  const p = eatParts(ms);
  return `${p.year}${pad(p.month)}${pad(p.day)}${pad(p.hour)}${pad(p.minute)}${pad(p.second)}`;
}

/** Whether `value` is a real `YYYYMMDDHHmmss` date and time. */
export function isDarajaTimestamp(value: unknown): value is string {
  if (typeof value !== "string" || !/^\d{14}$/.test(value)) return false;
  const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((at, i) => Number(value.slice(at, at + (i === 0 ? 4 : 2))));
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo! - 1 && date.getUTCDate() === d && h! < 24 && mi! < 60 && s! < 60;
}

/** base64(BusinessShortCode + Passkey + Timestamp): the STK Password. */
export function stkPasswordOf(shortcode: string, passkey: string, timestamp: string) {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, "utf8").toString("base64");
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const randomChars = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join("");

/**
 * A receipt like Safaricom's: a letter for the year (A = 2006, so R = 2023), one for the month
 * (A = January), the day (1-9, then A = 10 ...), then 7 random capitals and digits. EAT dates.
 */
export function receiptNumber(ms: number): string {
  const p = eatParts(ms);
  const year = UPPER[(p.year - 2006) % 26]!;
  const month = UPPER[p.month - 1]!;
  const day = p.day < 10 ? String(p.day) : UPPER[p.day - 10]!;
  return `${year}${month}${day}${randomChars(ALNUM, 7)}`;
}

/** `NNNNN-NNNNNNNN-N`, Daraja's MerchantRequestID shape. */
export function merchantRequestId(): string {
  return `${randomInt(10000, 99999)}-${randomInt(10_000_000, 99_999_999)}-${randomInt(1, 4)}`;
}

/** `ws_CO_` + DDMMYYYYHHmmss + milliseconds + the 9-digit national number, as recent samples show. */
export function checkoutRequestId(ms: number, phone: string): string {
  const p = eatParts(ms);
  return `ws_CO_${pad(p.day)}${pad(p.month)}${p.year}${pad(p.hour)}${pad(p.minute)}${pad(p.second)}${pad(p.millis, 3)}${phone.slice(3)}`;
}

/** The requestId of Daraja's error envelope. */
export function requestId(): string {
  return `${randomInt(1000, 99999)}-${randomInt(1_000_000, 99_999_999)}-1`;
}

export function conversationId(): string {
  return `AG_${eatStamp(Date.now()).slice(0, 8)}_${randomChars(ALNUM.toLowerCase() + "0123456789", 20)}`;
}

export function originatorConversationId(): string {
  return `${randomInt(1000, 99999)}-${randomInt(1_000_000, 99_999_999)}-1`;
}

export function tokenValue(): string {
  return randomChars(UPPER + UPPER.toLowerCase() + "0123456789", 28);
}

export const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

/** Daraja's synchronous error envelope. */
export function darajaError(res: Response, status: number, errorCode: string, errorMessage: string, id = requestId()) {
  res.status(status).json({ requestId: id, errorCode, errorMessage });
}
