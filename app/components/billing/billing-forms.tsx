import { Form, Link } from "react-router";

import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult } from "~/components/ui/form-state";

import { Button, ButtonLink } from "~/components/ui/button";

import { Field, FormError, RadioGroupField, TextareaField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import {
  BILLING_MESSAGES,
  DISPUTE_REASON_LIMIT,
  TOPUP_DEFAULT_KES,
  TOPUP_METHODS,
  TOPUP_METHOD_WORDS,
  TOPUP_PRESETS_KES,
} from "~/lib/schemas/billing-rules";
import { BILLING_TYPE_WORDS, longDate, planPriceWords, type PlanPrice } from "~/lib/billing-words";

// Loaded when the form is first used (decision 061).
const lazyDisputeSchema = lazySchema(() => import("~/lib/schemas/billing"), "DisputeSchema");
const lazyPlanChoiceSchema = lazySchema(() => import("~/lib/schemas/billing"), "PlanChoiceSchema");
const lazyTopupSchema = lazySchema(() => import("~/lib/schemas/billing"), "TopupSchema");
const lazyWalletAlertsSchema = lazySchema(() => import("~/lib/schemas/billing"), "WalletAlertsSchema");

/**
 * The forms of /billing and an invoice's page. Each is a real POST (it works without JavaScript);
 * the server answers a refusal at its field with what was typed kept.
 */

type Result = SubmissionResult<string[]> | null | undefined;

const METHOD_HINTS = {
  mpesa: "A prompt on your phone: approve it with your M-Pesa PIN.",
  card: "Visa or Mastercard, on Paystack's secure payment page.",
  bank: "We show our bank details and a reference to quote; the money is credited once it arrives.",
} as const;

/** A wallet top-up: the amount (with presets), the payment method and the M-Pesa phone. */
export function TopupForm({
  result,
  amount,
  phone,
  busy,
  presetHref,
}: {
  result: Result;
  amount: number | null;
  phone: string | null;
  busy: boolean;
  presetHref: (amount: number) => string;
}) {
  const [form, fields] = useSchemaForm(lazyTopupSchema, result, {
    id: "topup",
    defaultValue: { amount: String(amount ?? TOPUP_DEFAULT_KES), method: "mpesa", phone: phone ?? "" },
  });
  return (
    <Form method="post" action="/billing?dialog=topup" {...getFormProps(form)} className="grid gap-1">
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Amount (KES)"
        markRequired
        inputMode="numeric"
        autoComplete="off"
        hint={BILLING_MESSAGES.bounds}
        errors={fields.amount.errors}
        {...getInputProps(fields.amount, { type: "text" })}
        key={fields.amount.key}
      />
      <ul aria-label="Choose an amount" className="-mt-2 mb-3 flex flex-wrap gap-2">
        {TOPUP_PRESETS_KES.map((preset) => (
          <li key={preset}>
            <Link to={presetHref(preset)} replace preventScrollReset className="amount-chip">
              KES {preset.toLocaleString("en-US")}
            </Link>
          </li>
        ))}
      </ul>
      <RadioGroupField
        legend="Payment method"
        name={fields.method.name}
        id={fields.method.id}
        defaultValue={typeof fields.method.initialValue === "string" ? fields.method.initialValue : "mpesa"}
        errors={fields.method.errors}
        options={TOPUP_METHODS.map((method) => ({ value: method, label: TOPUP_METHOD_WORDS[method], description: METHOD_HINTS[method] }))}
        key={fields.method.key}
      />
      <Field
        label="M-Pesa phone number"
        inputMode="tel"
        autoComplete="tel"
        hint="The phone that gets the prompt, such as 0712 345 678. Not needed for a card or a bank transfer."
        errors={fields.phone.errors}
        {...getInputProps(fields.phone, { type: "tel" })}
        key={fields.phone.key}
      />
      <div>
        <Button type="submit" name="intent" value="topup" pending={busy} pendingText="Starting the payment...">
          Continue to payment
        </Button>
      </div>
    </Form>
  );
}

export interface PlanOption extends PlanPrice {
  code: string;
  name: string;
}

/** A change of plan or billing type, from the start of the next period. */
export function PlanForm({
  result,
  plans,
  current,
  nextPeriod,
  busy,
}: {
  result: Result;
  plans: PlanOption[];
  current: string;
  nextPeriod: string;
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(lazyPlanChoiceSchema, result, { id: "plan" });
  return (
    <Form method="post" action="/billing?dialog=plan" {...getFormProps(form)} className="grid gap-1">
      <FormError id={form.errorId} errors={form.errors} />
      <RadioGroupField
        legend="Plan"
        name={fields.choice.name}
        id={fields.choice.id}
        defaultValue={typeof fields.choice.initialValue === "string" ? fields.choice.initialValue : current}
        errors={fields.choice.errors}
        hint={`The change applies from the next billing period, on ${longDate(nextPeriod)}. Choosing your current plan cancels a pending change.`}
        options={plans.map((plan) => ({
          value: `${plan.code}/${plan.billingType}`,
          label: `${plan.name} · ${BILLING_TYPE_WORDS[plan.billingType] ?? plan.billingType} · ${plan.messageLimit.toLocaleString("en-US")} messages a month`,
          description: planPriceWords(plan),
        }))}
        key={fields.choice.key}
      />
      <div>
        <Button type="submit" name="intent" value="plan" pending={busy}>
          Change from {longDate(nextPeriod)}
        </Button>
      </div>
    </Form>
  );
}

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
        label="Low-balance alert (KES)"
        inputMode="numeric"
        className="sm:max-w-xs"
        hint="Owners and admins get an e-mail and a notification when the balance falls below this. Empty: no alert."
        errors={fields.lowBalance.errors}
        {...getInputProps(fields.lowBalance, { type: "text" })}
        key={fields.lowBalance.key}
      />
      <fieldset className="mt-2 rounded-lg border border-slate-200 p-4">
        <legend className="px-1 text-sm font-medium text-slate-700">Send me an M-Pesa prompt when my balance falls below</legend>
        <p className="mb-3 text-xs text-slate-500">
          You still approve each prompt on the phone with your PIN. Leave all three empty to turn it off.
        </p>
        <div className="grid gap-x-3 sm:grid-cols-3">
          <Field
            label="Balance below (KES)"
            inputMode="numeric"
            errors={fields.autoTopupBelow.errors}
            {...getInputProps(fields.autoTopupBelow, { type: "text" })}
            key={fields.autoTopupBelow.key}
          />
          <Field
            label="Prompt amount (KES)"
            inputMode="numeric"
            errors={fields.autoTopupAmount.errors}
            {...getInputProps(fields.autoTopupAmount, { type: "text" })}
            key={fields.autoTopupAmount.key}
          />
          <Field
            label="Phone to prompt"
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
          Save alerts
        </Button>
      </div>
    </Form>
  );
}

/** A dispute of one invoice with its reason (10 to 1,000 characters). */
export function DisputeForm({
  result,
  invoiceId,
  number,
  action,
  cancelTo,
  busy,
}: {
  result: Result;
  invoiceId: string;
  number: string;
  action: string;
  cancelTo?: string;
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(lazyDisputeSchema, result, { id: `dispute-${invoiceId}` });
  return (
    <Form method="post" action={action} {...getFormProps(form)} className="grid gap-1">
      <FormError id={form.errorId} errors={form.errors} />
      <input type="hidden" name="invoice" value={invoiceId} />
      <TextareaField
        label={`What is wrong with ${number}?`}
        markRequired
        maxLength={DISPUTE_REASON_LIMIT}
        hint="At least 10 characters. Jumbe's billing team reads it and replies; the invoice is on hold meanwhile."
        errors={fields.reason.errors}
        {...getTextareaProps(fields.reason)}
        key={fields.reason.key}
      />
      <div className="flex gap-2">
        <Button type="submit" name="intent" value="dispute" variant="danger" pending={busy}>
          Dispute {number}
        </Button>
        {cancelTo ? (
          <ButtonLink to={cancelTo} variant="secondary" replace preventScrollReset>
            Cancel
          </ButtonLink>
        ) : null}
      </div>
    </Form>
  );
}
