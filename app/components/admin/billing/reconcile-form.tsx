import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import { Button, buttonClass } from "~/components/ui/button";
import { Field, FormError, TextareaField } from "~/components/ui/field";
import { StepUpField } from "~/components/ui/step-up-field";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { RECONCILE_NOTE_MAX } from "~/lib/admin-billing";
import { m } from "~/paraglide/messages";

/** Reconcile a bank transfer: the statement's reference, the day the money came, and notes. */
export function ReconcileForm({
  invoiceId,
  reference,
  amountDue,
  today,
  cancel,
  result,
  stepUp,
  busy,
}: {
  invoiceId: string;
  /** The reference the tenant was given (a JMB-BT- transfer's, or the invoice's number). */
  reference?: string | null;
  /** The amount due, in words ("KES 17,400.00"): what the statement should show. */
  amountDue: string;
  today: string;
  cancel: string;
  result?: SubmissionResult<string[]> | null;
  stepUp: boolean;
  busy: boolean;
}) {
  const [form, fields] = useServerCheckedForm<{
    reference: string;
    amount: string;
    paymentDate: string;
    note: string;
    confirmation: string;
  }>(result, {
    id: "reconcile-invoice",
    defaultValue: { paymentDate: today },
  });
  return (
    <Form
      method="post"
      action={`/admin/billing/invoices/${invoiceId}`}
      className="space-y-4"
      preventScrollReset
      {...getFormProps(form)}
      noValidate
    >
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label={m.admin_reconcile_reference()}
        name={fields.reference.name}
        maxLength={64}
        markRequired
        hint={reference ? m.admin_reconcile_reference_hint({ reference }) : undefined}
        defaultValue={fields.reference.initialValue}
        errors={fields.reference.errors}
        key={fields.reference.key}
      />
      <Field
        label={m.admin_reconcile_amount()}
        name={fields.amount.name}
        inputMode="decimal"
        maxLength={16}
        hint={m.admin_reconcile_amount_hint({ amount: amountDue })}
        defaultValue={fields.amount.initialValue}
        errors={fields.amount.errors}
        key={fields.amount.key}
      />
      <Field
        label={m.admin_reconcile_payment_date()}
        name={fields.paymentDate.name}
        type="date"
        max={today}
        defaultValue={fields.paymentDate.initialValue}
        markRequired
        errors={fields.paymentDate.errors}
        key={fields.paymentDate.key}
      />
      <TextareaField
        label={m.admin_reconcile_notes()}
        name={fields.note.name}
        maxLength={RECONCILE_NOTE_MAX}
        defaultValue={fields.note.initialValue}
        errors={fields.note.errors}
        key={fields.note.key}
      />
      <StepUpField needed={stepUp} error={fields.confirmation.errors?.[0]} id="reconcile-confirmation" />
      <div className="flex justify-end gap-2">
        <Link to={cancel} replace preventScrollReset className={buttonClass("secondary")}>
          {m.admin_cancel()}
        </Link>
        <Button type="submit" name="intent" value="reconcile" pending={busy}>
          {m.admin_reconcile_submit()}
        </Button>
      </div>
    </Form>
  );
}
