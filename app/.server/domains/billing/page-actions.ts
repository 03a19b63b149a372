import * as z from "zod/mini";
import { formFailure } from "../../infrastructure/http/forms";
import { redirectWithToast } from "../../infrastructure/http/toast";
import type { SubmissionOf } from "../../infrastructure/http/intents";
import { postedText } from "../../infrastructure/http/posted-fields";
import { DisputeSchema } from "~/lib/schemas/billing";
import { disputeInvoice } from "./settings";
import { refusalOf, throwIfNotFound, refusalReply } from "../../infrastructure/http/refusal-reply";
import { m } from "~/paraglide/messages";

/** The dispute form (shared by the billing page and the invoice's own page): the reason, and the invoice the billing page's list names. */
export const DisputeFormSchema = z.object({ ...DisputeSchema.shape, invoice: postedText });

type DisputeSubmission = SubmissionOf<typeof DisputeFormSchema>;

/** A reason that does not fit: the dialog again for the same invoice, its error at the field. */
export function disputeInvalid(submission: DisputeSubmission, intent: string, invoiceId: string) {
  return formFailure(submission.reply(), 422, undefined, { intent, invoice: invoiceId });
}

/** The invoice a post names ("" when it names none, or names it twice), for the answer to a post that does not fit. */
export function postedInvoice(submission: DisputeSubmission) {
  const posted = submission.payload.invoice;
  return typeof posted === "string" ? posted : "";
}

/** The dispute of an invoice: 404 for another organisation's. */
export async function disputeAction(
  actor: { organizationId: string; userId: string },
  invoiceId: string,
  reason: string,
  submission: DisputeSubmission,
  intent: string,
  back: string,
) {
  try {
    const { number } = await disputeInvoice(actor, invoiceId, reason);
    return redirectWithToast(back, "success", m.billing_dispute_saved_toast({ number }));
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    return refusalReply(submission, refusal, { status: refusal.field ? 422 : refusal.status, extra: { intent, invoice: invoiceId } });
  }
}
