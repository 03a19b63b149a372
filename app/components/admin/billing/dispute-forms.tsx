import { Form } from "react-router";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, TextareaField } from "~/components/ui/field";
import { StepUpField } from "~/components/ui/step-up-field";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { invoiceStatusWords, RESOLUTION_NOTE_MAX } from "~/lib/admin-billing";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

interface DisputeFormProps {
  result?: SubmissionResult<string[]> | null;
  stepUp: boolean;
  busy: boolean;
}

/** Resolve a dispute with a credit note: all of the invoice, or the amount typed. */
export function CreditDisputeForm({
  previousStatus,
  toppedUp,
  number,
  totalCents,
  result,
  stepUp,
  busy,
}: DisputeFormProps & { previousStatus: string; toppedUp: boolean; number: string; totalCents: number }) {
  const [form, fields] = useServerCheckedForm<{ amount: string; note: string; confirmation: string }>(result, { id: "credit-dispute" });
  return (
    <Card aria-labelledby="credit-title">
      <CardHeader id="credit-title" title={m.admin_dispute_credit_title()} description={m.admin_dispute_credit_intro()} />
      <p className="mt-3 rounded-md bg-slate-50 p-3 text-sm text-slate-700" data-testid="credit-effect">
        {creditEffectWords(previousStatus, toppedUp, number, totalCents)}
      </p>
      <Form method="post" className="mt-4 space-y-4" {...getFormProps(form)} noValidate>
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label={m.admin_dispute_credit_amount()}
          name={fields.amount.name}
          inputMode="decimal"
          placeholder={(totalCents / 100).toFixed(2)}
          hint={m.admin_dispute_credit_amount_hint({ total: formatKes(totalCents) })}
          defaultValue={fields.amount.initialValue}
          errors={fields.amount.errors}
          key={fields.amount.key}
        />
        <TextareaField
          label={m.admin_dispute_note_optional()}
          name={fields.note.name}
          maxLength={RESOLUTION_NOTE_MAX}
          defaultValue={fields.note.initialValue}
          errors={fields.note.errors}
          key={fields.note.key}
        />
        <StepUpField needed={stepUp} error={fields.confirmation.errors?.[0]} id="credit-confirmation" />
        <Button type="submit" name="intent" value="credit" pending={busy}>
          {m.admin_dispute_issue_credit()}
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
        title={m.admin_dispute_reject_title()}
        description={m.admin_dispute_reject_intro({ status: invoiceStatusWords(previousStatus) })}
      />
      <Form method="post" className="mt-4 space-y-4" {...getFormProps(form)} noValidate>
        <FormError id={form.errorId} errors={form.errors} />
        <TextareaField
          label={m.admin_dispute_note()}
          name={fields.note.name}
          maxLength={RESOLUTION_NOTE_MAX}
          markRequired
          defaultValue={fields.note.initialValue}
          errors={fields.note.errors}
          key={fields.note.key}
        />
        <StepUpField needed={stepUp} error={fields.confirmation.errors?.[0]} id="reject-confirmation" />
        <Button type="submit" name="intent" value="reject" variant="danger" pending={busy}>
          {m.admin_dispute_reject()}
        </Button>
      </Form>
    </Card>
  );
}

/** What a credit note will do, shown before the administrator confirms it. */
function creditEffectWords(previousStatus: string, toppedUp: boolean, number: string, totalCents: number) {
  if (previousStatus === "pending" || previousStatus === "overdue")
    return m.admin_dispute_effect_unpaid({ number, total: formatKes(totalCents) });
  // A paid top-up's money is in the wallet already (issue 72): the credit leaves it, to be paid back.
  if (toppedUp) return m.admin_dispute_effect_paid_topup({ number, status: invoiceStatusWords(previousStatus) });
  return m.admin_dispute_effect_paid({ number, status: invoiceStatusWords(previousStatus) });
}
