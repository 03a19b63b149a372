import { Form } from "react-router";
import { getFormProps, getTextareaProps, type SubmissionResult } from "~/components/ui/form-state";
import { Button, ButtonLink } from "~/components/ui/button";
import { FormError, TextareaField } from "~/components/ui/field";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { DISPUTE_REASON_LIMIT } from "~/lib/schemas/billing-rules";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyDisputeSchema = lazySchema(() => import("~/lib/schemas/billing"), "DisputeSchema");

type Result = SubmissionResult<string[]> | null | undefined;

/** A dispute of one invoice with its reason (10 to 1,000 characters). */
export function DisputeForm({
  result,
  invoiceId,
  number,
  action,
  cancelTo,
  busy = false,
}: {
  result: Result;
  invoiceId: string;
  number: string;
  action: string;
  cancelTo?: string;
  /** A post on its way (a hydrated page); a page sent as a document has app/assets/forms.js hold the button. */
  busy?: boolean;
}) {
  const [form, fields] = useSchemaForm(lazyDisputeSchema, result, { id: `dispute-${invoiceId}` });
  return (
    <Form method="post" action={action} {...getFormProps(form)} className="grid gap-1">
      <FormError id={form.errorId} errors={form.errors} />
      <input type="hidden" name="invoice" value={invoiceId} />
      <TextareaField
        label={m.billing_dispute_reason_label({ number })}
        markRequired
        maxLength={DISPUTE_REASON_LIMIT}
        hint={m.billing_dispute_reason_hint()}
        errors={fields.reason.errors}
        {...getTextareaProps(fields.reason)}
        key={fields.reason.key}
      />
      <div className="flex gap-2">
        <Button type="submit" name="intent" value="dispute" variant="danger" pending={busy}>
          {m.billing_dispute_number({ number })}
        </Button>
        {cancelTo ? (
          <ButtonLink to={cancelTo} variant="secondary" replace preventScrollReset>
            {m.billing_cancel()}
          </ButtonLink>
        ) : null}
      </div>
    </Form>
  );
}
