import { Form, Link } from "react-router";

import { getFormProps, getInputProps, type SubmissionResult } from "~/components/ui/form-state";

import { Button } from "~/components/ui/button";

import { Field, FormError, RadioGroupField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { BILLING_MESSAGES, TOPUP_DEFAULT_KES, TOPUP_METHODS, TOPUP_METHOD_WORDS, TOPUP_PRESETS_KES } from "~/lib/schemas/billing-rules";
import { BILLING_TYPE_WORDS, longDate, planPriceWords, type PlanPrice } from "~/lib/billing-words";

// Loaded when the form is first used (decision 061).
const lazyPlanChoiceSchema = lazySchema(() => import("~/lib/schemas/billing"), "PlanChoiceSchema");
const lazyTopupSchema = lazySchema(() => import("~/lib/schemas/billing"), "TopupSchema");

/**
 * The forms of /billing's top-up and plan dialogs. Each is a real POST (it works without JavaScript);
 * the server answers a refusal at its field with what was typed kept. The wallet's alerts, always on
 * the page, are in wallet-alerts-form.tsx; the dispute (here and on an invoice's page) in
 * dispute-form.tsx: these load with a dialog.
 */

export type Result = SubmissionResult<string[]> | null | undefined;

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
