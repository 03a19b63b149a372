import { Form } from "react-router";
import { Link } from "~/components/ui/link";

import { getFormProps, getInputProps, type SubmissionResult } from "~/components/ui/form-state";

import { Button } from "~/components/ui/button";

import { Field, FormError, RadioGroupField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { BILLING_MESSAGES, TOPUP_DEFAULT_KES, TOPUP_METHODS, TOPUP_METHOD_WORDS, TOPUP_PRESETS_KES } from "~/lib/schemas/billing-rules";
import { BILLING_TYPE_WORDS, longDate, planPriceWords, type PlanPrice } from "~/lib/billing-words";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

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

/** What each payment method does, read when the form renders. */
const methodHint = (method: (typeof TOPUP_METHODS)[number]) =>
  method === "card"
    ? m.billing_topup_method_card_hint()
    : method === "bank"
      ? m.billing_topup_method_bank_hint()
      : m.billing_topup_method_mpesa_hint();

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
        label={m.billing_topup_amount_label()}
        markRequired
        inputMode="numeric"
        autoComplete="off"
        hint={BILLING_MESSAGES.bounds}
        errors={fields.amount.errors}
        {...getInputProps(fields.amount, { type: "text" })}
        key={fields.amount.key}
      />
      <ul aria-label={m.billing_topup_presets_label()} className="-mt-2 mb-3 flex flex-wrap gap-2">
        {TOPUP_PRESETS_KES.map((preset) => (
          <li key={preset}>
            <Link to={presetHref(preset)} replace preventScrollReset className="amount-chip">
              KES {formatNumber(preset)}
            </Link>
          </li>
        ))}
      </ul>
      <RadioGroupField
        legend={m.billing_topup_method_legend()}
        name={fields.method.name}
        id={fields.method.id}
        defaultValue={typeof fields.method.initialValue === "string" ? fields.method.initialValue : "mpesa"}
        errors={fields.method.errors}
        options={TOPUP_METHODS.map((method) => ({ value: method, label: TOPUP_METHOD_WORDS[method], description: methodHint(method) }))}
        key={fields.method.key}
      />
      <Field
        label={m.billing_topup_phone_label()}
        inputMode="tel"
        autoComplete="tel"
        hint={m.billing_topup_phone_hint()}
        errors={fields.phone.errors}
        {...getInputProps(fields.phone, { type: "tel" })}
        key={fields.phone.key}
      />
      <div>
        <Button type="submit" name="intent" value="topup" pending={busy} pendingText={m.billing_topup_pending()}>
          {m.billing_topup_submit()}
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
        legend={m.billing_plan()}
        name={fields.choice.name}
        id={fields.choice.id}
        defaultValue={typeof fields.choice.initialValue === "string" ? fields.choice.initialValue : current}
        errors={fields.choice.errors}
        hint={m.billing_plan_hint({ date: longDate(nextPeriod) })}
        options={plans.map((plan) => ({
          value: `${plan.code}/${plan.billingType}`,
          label: m.billing_plan_option({
            plan: plan.name,
            type: BILLING_TYPE_WORDS[plan.billingType] ?? plan.billingType,
            limit: formatNumber(plan.messageLimit),
          }),
          description: planPriceWords(plan),
        }))}
        key={fields.choice.key}
      />
      <div>
        <Button type="submit" name="intent" value="plan" pending={busy}>
          {m.billing_plan_submit({ date: longDate(nextPeriod) })}
        </Button>
      </div>
    </Form>
  );
}
