// The composer's "Request payment" form (issue 76). The server checks again, with the API's input,
// in app/.server/domains/payments/requests/input.ts.
import * as z from "zod/mini";
import { m } from "~/paraglide/messages";

/** Daraja's limits for M-Pesa Express: whole shillings, 1 to 250,000. */
export const PAYMENT_REQUEST_MAX_KES = 250_000;
export const PAYMENT_REQUEST_MIN_EXPIRY_MINUTES = 5;
export const PAYMENT_REQUEST_MAX_EXPIRY_MINUTES = 30 * 24 * 60;
export const PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES = 24 * 60;
/** The expiries the composer offers, in minutes. */
export const PAYMENT_REQUEST_EXPIRY_CHOICES = [60, 6 * 60, 24 * 60, 3 * 24 * 60, 7 * 24 * 60, 30 * 24 * 60] as const;
/** AccountReference: at most 12 characters (shown on the prompt); letters and digits, so a paybill payer can type it. */
export const PAYMENT_REQUEST_REFERENCE = /^[A-Za-z0-9]{1,12}$/;

export const isWholeKes = (value: string) => /^\d{1,6}$/.test(value) && Number(value) >= 1 && Number(value) <= PAYMENT_REQUEST_MAX_KES;

export const PaymentRequestFormSchema = z.object({
  amount: z.string({ error: () => m.payreq_refusal_amount() }).check(
    z.trim(),
    z.refine((value) => isWholeKes(value.replace(/,/g, "")), { error: () => m.payreq_refusal_amount() }),
  ),
  description: z
    .string({ error: () => m.payreq_refusal_description() })
    .check(
      z.trim(),
      z.minLength(1, { error: () => m.payreq_refusal_description(), abort: true }),
      z.maxLength(100, { error: () => m.payreq_refusal_description() }),
    ),
  reference: z.optional(
    z.string().check(
      z.trim(),
      z.refine((value) => value === "" || PAYMENT_REQUEST_REFERENCE.test(value), { error: () => m.payreq_refusal_reference() }),
    ),
  ),
  expiresInMinutes: z.optional(
    z.string().check(
      z.trim(),
      z.refine(
        (value) =>
          /^\d{1,6}$/.test(value) &&
          Number(value) >= PAYMENT_REQUEST_MIN_EXPIRY_MINUTES &&
          Number(value) <= PAYMENT_REQUEST_MAX_EXPIRY_MINUTES,
        { error: () => m.payreq_refusal_expiry() },
      ),
    ),
  ),
  shortcodeId: z.optional(z.string().check(z.trim(), z.maxLength(64))),
});
export type PaymentRequestForm = z.output<typeof PaymentRequestFormSchema>;
