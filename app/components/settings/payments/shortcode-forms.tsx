import { Form, href } from "react-router";
import type { ShortcodeView } from "~/.server/domains/payments";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, PasswordField, SelectField } from "~/components/ui/field";
import { getFormProps, getInputProps, getSelectProps } from "~/components/ui/form-state";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { CREDENTIAL_MAX, SHORTCODE_LABEL_MAX } from "~/lib/schemas/payments-rules";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyAddSchema = lazySchema(() => import("~/lib/schemas/payments"), "AddShortcodeSchema");
const lazyEditSchema = lazySchema(() => import("~/lib/schemas/payments"), "EditShortcodeSchema");

type LastResult = Parameters<typeof useSchemaForm>[1];

const kindOptions = () => [
  { value: "paybill", label: m.settings_payments_kind_paybill() },
  { value: "till", label: m.settings_payments_kind_till() },
];
const environmentOptions = () => [
  { value: "production", label: m.settings_payments_env_production() },
  { value: "sandbox", label: m.settings_payments_env_sandbox() },
];

/** Connect a shortcode: its name, kind and numbers, the Daraja app's key and secret, the passkey. */
export function AddShortcodeCard({ result, defaultEnvironment }: { result: LastResult; defaultEnvironment: "sandbox" | "production" }) {
  const [form, fields] = useSchemaForm(lazyAddSchema, result, {
    id: "add-shortcode",
    shouldValidate: "onBlur",
    defaultValue: { kind: "paybill", environment: defaultEnvironment },
  });
  return (
    <Card>
      <CardHeader title={m.settings_payments_add_title()} description={m.settings_payments_add_description()} />
      <Form
        method="post"
        action={href("/settings/payments")}
        {...getFormProps(form)}
        className="mt-4 grid max-w-3xl gap-x-4 sm:grid-cols-2"
      >
        <div className="sm:col-span-2">
          <FormError id={form.errorId} errors={form.errors} />
        </div>
        <Field
          label={m.settings_payments_label_label()}
          hint={m.settings_payments_label_hint()}
          markRequired
          maxLength={SHORTCODE_LABEL_MAX}
          errors={fields.label.errors}
          {...getInputProps(fields.label, { type: "text" })}
          key={fields.label.key}
        />
        <SelectField
          label={m.settings_payments_kind_label()}
          markRequired
          errors={fields.kind.errors}
          {...getSelectProps(fields.kind)}
          key={fields.kind.key}
          options={kindOptions()}
        />
        <Field
          label={m.settings_payments_shortcode_label()}
          hint={m.settings_payments_shortcode_hint()}
          markRequired
          inputMode="numeric"
          autoComplete="off"
          errors={fields.businessShortCode.errors}
          {...getInputProps(fields.businessShortCode, { type: "text" })}
          key={fields.businessShortCode.key}
        />
        <Field
          label={m.settings_payments_till_label()}
          hint={m.settings_payments_till_hint()}
          inputMode="numeric"
          autoComplete="off"
          errors={fields.tillNumber.errors}
          {...getInputProps(fields.tillNumber, { type: "text" })}
          key={fields.tillNumber.key}
        />
        <SelectField
          label={m.settings_payments_environment_label()}
          markRequired
          errors={fields.environment.errors}
          {...getSelectProps(fields.environment)}
          key={fields.environment.key}
          options={environmentOptions()}
        />
        <Field
          label={m.settings_payments_consumer_key_label()}
          markRequired
          autoComplete="off"
          spellCheck={false}
          maxLength={CREDENTIAL_MAX}
          errors={fields.consumerKey.errors}
          {...getInputProps(fields.consumerKey, { type: "text" })}
          key={fields.consumerKey.key}
        />
        <PasswordField
          label={m.settings_payments_consumer_secret_label()}
          markRequired
          autoComplete="off"
          maxLength={CREDENTIAL_MAX}
          errors={fields.consumerSecret.errors}
          {...getInputProps(fields.consumerSecret, { type: "text" })}
          key={fields.consumerSecret.key}
        />
        <PasswordField
          label={m.settings_payments_passkey_label()}
          markRequired
          autoComplete="off"
          maxLength={CREDENTIAL_MAX}
          errors={fields.passkey.errors}
          {...getInputProps(fields.passkey, { type: "text" })}
          key={fields.passkey.key}
        />
        <div className="sm:col-span-2">
          <Button type="submit" name="intent" value="add">
            {m.settings_payments_add_submit()}
          </Button>
        </div>
      </Form>
    </Card>
  );
}

/** Change a shortcode's name, or any of its credentials (an empty field keeps the stored one). */
export function EditShortcodeCard({ shortcode, result }: { shortcode: ShortcodeView; result: LastResult }) {
  const here = href("/settings/payments");
  const [form, fields] = useSchemaForm(lazyEditSchema, result, {
    id: "edit-shortcode",
    shouldValidate: "onBlur",
    defaultValue: { shortcode: shortcode.id, label: shortcode.label },
  });
  return (
    <Card>
      <CardHeader title={m.settings_payments_edit_title({ label: shortcode.label })} />
      <Form
        method="post"
        action={`${here}?edit=${shortcode.id}`}
        {...getFormProps(form)}
        className="mt-4 grid max-w-3xl gap-x-4 sm:grid-cols-2"
      >
        <div className="sm:col-span-2">
          <FormError id={form.errorId} errors={form.errors} />
        </div>
        <input type="hidden" name="shortcode" value={shortcode.id} />
        <Field
          label={m.settings_payments_label_label()}
          markRequired
          maxLength={SHORTCODE_LABEL_MAX}
          errors={fields.label.errors}
          {...getInputProps(fields.label, { type: "text" })}
          key={fields.label.key}
          className="sm:col-span-2"
        />
        <Field
          label={m.settings_payments_consumer_key_label()}
          hint={m.settings_payments_keep_hint()}
          autoComplete="off"
          spellCheck={false}
          maxLength={CREDENTIAL_MAX}
          errors={fields.consumerKey.errors}
          {...getInputProps(fields.consumerKey, { type: "text" })}
          key={fields.consumerKey.key}
        />
        <PasswordField
          label={m.settings_payments_consumer_secret_label()}
          hint={m.settings_payments_keep_hint()}
          autoComplete="off"
          maxLength={CREDENTIAL_MAX}
          errors={fields.consumerSecret.errors}
          {...getInputProps(fields.consumerSecret, { type: "text" })}
          key={fields.consumerSecret.key}
        />
        <PasswordField
          label={m.settings_payments_passkey_label()}
          hint={m.settings_payments_keep_hint()}
          autoComplete="off"
          maxLength={CREDENTIAL_MAX}
          errors={fields.passkey.errors}
          {...getInputProps(fields.passkey, { type: "text" })}
          key={fields.passkey.key}
        />
        <div className="flex flex-wrap gap-2 sm:col-span-2">
          <Button type="submit" name="intent" value="edit">
            {m.settings_payments_save()}
          </Button>
          <ButtonLink to={here} variant="secondary">
            {m.settings_payments_cancel()}
          </ButtonLink>
        </div>
      </Form>
    </Card>
  );
}
