import { Form } from "react-router";
import { getFormProps, getInputProps, type SubmissionResult } from "~/components/ui/form-state";
import { Button } from "~/components/ui/button";
import { Field, FormError } from "~/components/ui/field";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyWalletAlertsSchema = lazySchema(() => import("~/lib/schemas/billing"), "WalletAlertsSchema");

type Result = SubmissionResult<string[]> | null | undefined;

const shillingsValue = (cents: number | null) => (cents === null ? "" : String(Math.round(cents / 100)));

/** The low-balance alert and the automatic M-Pesa prompt; empty fields turn them off. */
export function WalletAlertsForm({
  result,
  alerts,
  busy,
}: {
  result: Result;
  alerts: {
    lowBalanceCents: number | null;
    autoTopupBelowCents: number | null;
    autoTopupAmountCents: number | null;
    autoTopupPhone: string | null;
  };
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(lazyWalletAlertsSchema, result, {
    id: "alerts",
    defaultValue: {
      lowBalance: shillingsValue(alerts.lowBalanceCents),
      autoTopupBelow: shillingsValue(alerts.autoTopupBelowCents),
      autoTopupAmount: shillingsValue(alerts.autoTopupAmountCents),
      autoTopupPhone: alerts.autoTopupPhone ?? "",
    },
  });
  return (
    <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-1">
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label={m.billing_alerts_low_balance_label()}
        inputMode="numeric"
        className="sm:max-w-xs"
        hint={m.billing_alerts_low_balance_hint()}
        errors={fields.lowBalance.errors}
        {...getInputProps(fields.lowBalance, { type: "text" })}
        key={fields.lowBalance.key}
      />
      <fieldset className="mt-2 rounded-lg border border-slate-200 p-4">
        <legend className="px-1 text-sm font-medium text-slate-700">{m.billing_alerts_prompt_legend()}</legend>
        <p className="mb-3 text-xs text-slate-500">{m.billing_alerts_prompt_note()}</p>
        <div className="grid gap-x-3 sm:grid-cols-3">
          <Field
            label={m.billing_alerts_below_label()}
            inputMode="numeric"
            errors={fields.autoTopupBelow.errors}
            {...getInputProps(fields.autoTopupBelow, { type: "text" })}
            key={fields.autoTopupBelow.key}
          />
          <Field
            label={m.billing_alerts_amount_label()}
            inputMode="numeric"
            errors={fields.autoTopupAmount.errors}
            {...getInputProps(fields.autoTopupAmount, { type: "text" })}
            key={fields.autoTopupAmount.key}
          />
          <Field
            label={m.billing_alerts_phone_label()}
            inputMode="tel"
            autoComplete="tel"
            errors={fields.autoTopupPhone.errors}
            {...getInputProps(fields.autoTopupPhone, { type: "tel" })}
            key={fields.autoTopupPhone.key}
          />
        </div>
      </fieldset>
      <div className="mt-3">
        <Button type="submit" name="intent" value="alerts" pending={busy}>
          {m.billing_alerts_save()}
        </Button>
      </div>
    </Form>
  );
}
