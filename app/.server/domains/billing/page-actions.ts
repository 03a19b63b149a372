import { parseWithZod } from "@conform-to/zod/v4";
import { formFailure } from "../../infrastructure/http/forms";
import { redirectWithToast } from "../../infrastructure/http/toast";
import { DisputeSchema } from "~/lib/schemas/billing";
import { disputeInvoice } from "./settings";
import { refusalOf, throwIfNotFound, refusalReply } from "../../infrastructure/http/refusal-reply";
import { m } from "~/paraglide/messages";

/** The dispute of an invoice (shared with the invoice's own page): 404 for another organisation's. */
export async function disputeAction(
  actor: { organizationId: string; userId: string },
  invoiceId: string,
  form: FormData,
  intent: string,
  back: string,
) {
  const submission = parseWithZod(form, { schema: DisputeSchema });
  if (submission.status !== "success") return formFailure(submission.reply(), 422, undefined, { intent, invoice: invoiceId });
  try {
    const { number } = await disputeInvoice(actor, invoiceId, submission.value.reason);
    return redirectWithToast(back, "success", m.billing_dispute_saved_toast({ number }));
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    return refusalReply(submission, refusal, { status: refusal.field ? 422 : refusal.status, extra: { intent, invoice: invoiceId } });
  }
}
