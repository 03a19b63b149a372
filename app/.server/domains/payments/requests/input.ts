import { randomInt } from "node:crypto";
import { Refusal } from "../../../infrastructure/refusal";
import {
  PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES,
  PAYMENT_REQUEST_MAX_EXPIRY_MINUTES,
  PAYMENT_REQUEST_MAX_KES,
  PAYMENT_REQUEST_MIN_EXPIRY_MINUTES,
  PAYMENT_REQUEST_REFERENCE,
} from "~/lib/schemas/payment-requests";
import { m } from "~/paraglide/messages";

/** What a payment request asks for, checked: the composer's form and the API both come through here. */
export interface PaymentRequestInput {
  amountKes: number;
  description: string;
  /** Upper-cased; generated when not given. */
  reference: string;
  expiresInMinutes: number;
  shortcodeId: string | null;
}

export const refusePaymentRequest = (status: 402 | 404 | 409 | 422 | 502, code: string, message: string, field?: string) =>
  new Refusal({ domain: "payment", status, code, message, field });

const REFERENCE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A short reference a payer can read off and type (no 0/O, 1/I): "JR" and six. */
export function newReference() {
  let out = "JR";
  for (let i = 0; i < 6; i++) out += REFERENCE_LETTERS[randomInt(REFERENCE_LETTERS.length)];
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks what was asked (numbers or the form's strings); a refusal names its field. */
export function checkRequestInput(raw: {
  amount: unknown;
  description: unknown;
  reference?: unknown;
  expiresInMinutes?: unknown;
  shortcodeId?: unknown;
}): PaymentRequestInput {
  const amount = typeof raw.amount === "string" ? Number(raw.amount.replace(/,/g, "").trim()) : raw.amount;
  if (typeof amount !== "number" || !Number.isInteger(amount) || amount < 1 || amount > PAYMENT_REQUEST_MAX_KES)
    throw refusePaymentRequest(422, "invalid_amount", m.payreq_refusal_amount(), "amount");
  const description = typeof raw.description === "string" ? raw.description.trim() : "";
  if (!description || description.length > 100)
    throw refusePaymentRequest(422, "invalid_description", m.payreq_refusal_description(), "description");
  const given = typeof raw.reference === "string" ? raw.reference.trim() : raw.reference == null ? "" : null;
  if (given === null || (given && !PAYMENT_REQUEST_REFERENCE.test(given)))
    throw refusePaymentRequest(422, "invalid_reference", m.payreq_refusal_reference(), "reference");
  const expiry =
    raw.expiresInMinutes === undefined || raw.expiresInMinutes === null || raw.expiresInMinutes === ""
      ? PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES
      : Number(raw.expiresInMinutes);
  if (!Number.isInteger(expiry) || expiry < PAYMENT_REQUEST_MIN_EXPIRY_MINUTES || expiry > PAYMENT_REQUEST_MAX_EXPIRY_MINUTES)
    throw refusePaymentRequest(422, "invalid_expiry", m.payreq_refusal_expiry(), "expiresInMinutes");
  const shortcodeId = typeof raw.shortcodeId === "string" && raw.shortcodeId.trim() ? raw.shortcodeId.trim() : null;
  // Not one of ours: the same answer as another tenant's shortcode.
  if (shortcodeId && !UUID.test(shortcodeId))
    throw refusePaymentRequest(422, "unknown_shortcode", m.payreq_refusal_no_shortcode(), "shortcodeId");
  return { amountKes: amount, description, reference: (given || newReference()).toUpperCase(), expiresInMinutes: expiry, shortcodeId };
}
