import { Form } from "react-router";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, TextareaField } from "~/components/ui/field";
import { StepUpField } from "~/components/ui/step-up-field";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { RESOLUTION_NOTE_MAX } from "~/lib/admin-billing";
import { formatKes } from "~/lib/invoice";

interface DisputeFormProps {
  result?: SubmissionResult<string[]> | null;
  stepUp: boolean;
  busy: boolean;
}

/** Resolve a dispute with a credit note: all of the invoice, or the amount typed. */
export function CreditDisputeForm({
  previousStatus,
  number,
  totalCents,
  result,
  stepUp,
  busy,
}: DisputeFormProps & { previousStatus: string; number: string; totalCents: number }) {
  const [form, fields] = useServerCheckedForm<{ amount: string; note: string; confirmation: string }>(result, { id: "credit-dispute" });
  return (
    <Card aria-labelledby="credit-title">
      <CardHeader
        id="credit-title"
        title="Resolve with a credit note"
        description="A numbered credit note (CRN) the tenant sees with the invoice."
      />
      <p className="mt-3 rounded-md bg-slate-50 p-3 text-sm text-slate-700" data-testid="credit-effect">
        {creditEffectWords(previousStatus, number, totalCents)}
      </p>
      <Form method="post" className="mt-4 space-y-4" {...getFormProps(form)} noValidate>
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label="Amount to credit (KES, VAT included)"
          name={fields.amount.name}
          inputMode="decimal"
          placeholder={(totalCents / 100).toFixed(2)}
          hint={`Leave it empty to credit all ${formatKes(totalCents)}.`}
          defaultValue={fields.amount.initialValue}
          errors={fields.amount.errors}
          key={fields.amount.key}
        />
        <TextareaField
          label="Note to the tenant (optional)"
          name={fields.note.name}
          maxLength={RESOLUTION_NOTE_MAX}
          defaultValue={fields.note.initialValue}
          errors={fields.note.errors}
          key={fields.note.key}
        />
        <StepUpField needed={stepUp} error={fields.confirmation.errors?.[0]} id="credit-confirmation" />
        <Button type="submit" name="intent" value="credit" pending={busy}>
          Issue credit note
        </Button>
      </Form>
    </Card>
  );
}

/** Reject a dispute: the invoice returns to what it was, and the tenant reads the note. */
export function RejectDisputeForm({ previousStatus, result, stepUp, busy }: DisputeFormProps & { previousStatus: string }) {
  const [form, fields] = useServerCheckedForm<{ note: string; confirmation: string }>(result, { id: "reject-dispute" });
  return (
    <Card aria-labelledby="reject-title">
      <CardHeader
        id="reject-title"
        title="Reject the dispute"
        description={`The invoice returns to ${previousStatus}; the tenant sees your note on their billing page.`}
      />
      <Form method="post" className="mt-4 space-y-4" {...getFormProps(form)} noValidate>
        <FormError id={form.errorId} errors={form.errors} />
        <TextareaField
          label="Note to the tenant"
          name={fields.note.name}
          maxLength={RESOLUTION_NOTE_MAX}
          markRequired
          defaultValue={fields.note.initialValue}
          errors={fields.note.errors}
          key={fields.note.key}
        />
        <StepUpField needed={stepUp} error={fields.confirmation.errors?.[0]} id="reject-confirmation" />
        <Button type="submit" name="intent" value="reject" variant="danger" pending={busy}>
          Reject dispute
        </Button>
      </Form>
    </Card>
  );
}

/** What a credit note will do, shown before the administrator confirms it. */
function creditEffectWords(previousStatus: string, number: string, totalCents: number) {
  if (previousStatus === "pending" || previousStatus === "overdue")
    return `${number} is unpaid. Crediting all ${formatKes(totalCents)} voids it. Crediting part of it lowers what is due by that amount, and the rest stays due; nothing is added to or taken from the wallet.`;
  return `${number} is ${previousStatus === "paid" ? "paid" : previousStatus}. The credit goes back to the tenant's wallet as money they can spend.`;
}
