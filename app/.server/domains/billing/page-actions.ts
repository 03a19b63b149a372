import { data } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { formFailure } from "../../infrastructure/http/forms";
import { redirectWithToast } from "../../infrastructure/http/toast";
import { DisputeSchema } from "~/lib/schemas/billing";
import { BillingRefusal, disputeInvoice } from "./settings";

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
    return redirectWithToast(back, "success", `${number} is disputed. Jumbe's billing team will reply; the invoice is on hold meanwhile.`);
  } catch (error) {
    if (!(error instanceof BillingRefusal)) throw error;
    if (error.status === 404) throw data(error.message, { status: 404 });
    if (error.field)
      return formFailure(submission.reply({ fieldErrors: { [error.field]: [error.message] } }), 422, undefined, {
        intent,
        invoice: invoiceId,
      });
    return formFailure(submission.reply({ formErrors: [error.message] }), error.status, undefined, { intent, invoice: invoiceId });
  }
}
