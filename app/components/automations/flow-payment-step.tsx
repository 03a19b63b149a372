import { Field, SelectField } from "~/components/ui/field";
import { PAYMENT_REQUEST_EXPIRY_CHOICES } from "~/lib/schemas/payment-requests";
import type { StepValues } from "~/lib/schemas/flow-form";
import { m } from "~/paraglide/messages";

// What the hints show as examples of a variable: written as members write them, never translated.
const EXAMPLE_TOTAL = "{{total}}";
const EXAMPLE_ORDER = "{{order}}";

type Errors = Record<string, string[] | undefined>;
type Option = { value: string; label: string };

/** The expiries the composer offers, in its words. */
export const expiryOptions = (): Option[] =>
  PAYMENT_REQUEST_EXPIRY_CHOICES.map((minutes) => ({
    value: String(minutes),
    label:
      minutes < 24 * 60 ? m.payreq_form_expiry_hours({ count: minutes / 60 }) : m.payreq_form_expiry_days({ count: minutes / (24 * 60) }),
  }));

/**
 * A payment step's fields (issue 76): amount (a number or a variable), what for, reference, expiry,
 * the shortcode, and where the flow goes when it is paid or not.
 */
export function PaymentStepFields({
  values,
  errors,
  targets,
  shortcodes,
}: {
  values: StepValues;
  errors: Errors;
  targets: Option[];
  shortcodes: { id: string; label: string }[];
}) {
  const value = (name: string) => values[name] ?? "";
  return (
    <>
      {!shortcodes.length ? <p className="text-sm text-amber-800">{m.automations_flows_payment_no_shortcode()}</p> : null}
      <Field
        name="amount"
        label={m.automations_flows_field_amount()}
        hint={m.automations_flows_field_amount_hint({ example: EXAMPLE_TOTAL })}
        defaultValue={value("amount")}
        errors={errors.amount}
      />
      <Field
        name="description"
        label={m.payreq_form_description()}
        hint={m.automations_flows_field_payment_description_hint({ example: EXAMPLE_ORDER })}
        defaultValue={value("description")}
        errors={errors.description}
      />
      <Field
        name="reference"
        label={m.payreq_form_reference()}
        hint={m.payreq_form_reference_hint()}
        defaultValue={value("reference")}
        errors={errors.reference}
      />
      <SelectField
        name="expiresInMinutes"
        label={m.payreq_form_expiry()}
        defaultValue={value("expiresInMinutes")}
        errors={errors.expiresInMinutes}
        options={expiryOptions()}
      />
      <SelectField
        name="shortcodeId"
        label={m.payreq_form_shortcode()}
        defaultValue={value("shortcodeId")}
        errors={errors.shortcodeId}
        options={[
          { value: "", label: m.automations_flows_shortcode_default() },
          ...shortcodes.map((s) => ({ value: s.id, label: s.label })),
        ]}
      />
      <SelectField
        name="paid"
        label={m.automations_flows_field_paid()}
        defaultValue={value("paid")}
        errors={errors.paid}
        options={targets}
      />
      <SelectField
        name="else"
        label={m.automations_flows_field_unpaid()}
        defaultValue={value("else")}
        errors={errors.else}
        options={targets}
      />
    </>
  );
}
