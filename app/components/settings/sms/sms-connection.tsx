import { Form, href } from "react-router";
import type { SmsConnectionView } from "~/.server/domains/sms";
import { AddressList } from "~/components/ui/address-list";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, PasswordField } from "~/components/ui/field";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { formatWhen } from "~/lib/dates";
import { SMS_KEY_MAX } from "~/lib/sms-limits";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazySaveSchema = lazySchema(() => import("~/lib/schemas/sms"), "SaveSmsSchema");
type LastResult = Parameters<typeof useSchemaForm>[1];

const STATUS_WORDS = {
  untested: () => m.sms_status_untested(),
  working: () => m.sms_status_working(),
  failing: () => m.sms_status_failing(),
};
const STATUS_TONES = { untested: "neutral", working: "success", failing: "danger" } as const;

/** The connection as it stands: username, sender, key's last four, status, the callback URLs to copy, its buttons. */
export function SmsConnectionCard({ connection, canManage }: { connection: SmsConnectionView; canManage: boolean }) {
  const here = href("/settings/sms");
  return (
    <div className="mt-3 space-y-3 rounded-lg border border-slate-200 p-4">
      <div className="flex flex-wrap items-center gap-2">
        <p className="font-medium break-all">{connection.username}</p>
        <Badge tone={STATUS_TONES[connection.status]}>{STATUS_WORDS[connection.status]()}</Badge>
      </div>
      <dl className="grid gap-1 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-slate-600">{m.sms_sender_label()}</dt>
          <dd className="break-all">{connection.senderId || m.sms_sender_default()}</dd>
        </div>
        <div>
          <dt className="text-slate-600">{m.sms_key_label()}</dt>
          <dd>{m.sms_key_hint_shown({ last: connection.apiKeyHint })}</dd>
        </div>
        {connection.testedAt ? (
          <div>
            <dt className="text-slate-600">{m.sms_tested_label()}</dt>
            <dd>{formatWhen(connection.testedAt)}</dd>
          </div>
        ) : null}
        {connection.balanceText ? (
          <div>
            <dt className="text-slate-600">{m.sms_balance_label()}</dt>
            <dd>{connection.balanceText}</dd>
          </div>
        ) : null}
      </dl>
      {connection.statusDetail ? <p className="text-sm text-red-700">{connection.statusDetail}</p> : null}
      <div>
        <h3 className="text-sm font-medium">{m.sms_callbacks_title()}</h3>
        <p className="text-sm text-slate-600">{m.sms_callbacks_help()}</p>
        <AddressList
          className="mt-2 space-y-2 text-sm"
          addresses={[
            [m.sms_callback_delivery(), connection.callbackUrls.delivery],
            [m.sms_callback_incoming(), connection.callbackUrls.incoming],
            [m.sms_callback_optout(), connection.callbackUrls.optout],
          ]}
        />
      </div>
      {canManage ? (
        <div className="flex flex-wrap gap-2">
          <Form method="post" action={here}>
            <Button type="submit" name="intent" value="test" size="sm">
              {m.sms_test()}
            </Button>
          </Form>
          <ButtonLink to={`${here}?confirm=remove`} size="sm" variant="secondary">
            {m.sms_remove()}
          </ButtonLink>
        </div>
      ) : null}
    </div>
  );
}

/** Connect (or change) Africa's Talking: username, API key (empty keeps the stored one), sender ID or shortcode. */
export function SmsConnectForm({ connection, result }: { connection: SmsConnectionView | null; result: LastResult }) {
  const [form, fields] = useSchemaForm(lazySaveSchema, result, {
    id: "sms-connection",
    shouldValidate: "onBlur",
    defaultValue: { username: connection?.username ?? "", senderId: connection?.senderId ?? "" },
  });
  return (
    <Card>
      <CardHeader
        title={connection ? m.sms_change_title() : m.sms_connect_title()}
        description={connection ? undefined : m.sms_connect_description()}
      />
      <Form method="post" action={href("/settings/sms")} {...getFormProps(form)} className="mt-4 grid max-w-3xl gap-x-4 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <FormError id={form.errorId} errors={form.errors} />
        </div>
        <Field
          label={m.sms_username_label()}
          hint={m.sms_username_hint()}
          markRequired
          autoComplete="off"
          spellCheck={false}
          errors={fields.username.errors}
          {...getInputProps(fields.username, { type: "text" })}
          key={fields.username.key}
        />
        <PasswordField
          label={m.sms_key_label()}
          hint={connection ? m.sms_key_keep_hint() : m.sms_key_new_hint()}
          markRequired={!connection}
          autoComplete="off"
          maxLength={SMS_KEY_MAX}
          errors={fields.apiKey.errors}
          {...getInputProps(fields.apiKey, { type: "text" })}
          key={fields.apiKey.key}
        />
        <Field
          label={m.sms_sender_label()}
          hint={m.sms_sender_hint()}
          autoComplete="off"
          maxLength={11}
          errors={fields.senderId.errors}
          {...getInputProps(fields.senderId, { type: "text" })}
          key={fields.senderId.key}
        />
        <div className="sm:col-span-2">
          <Button type="submit" name="intent" value="save">
            {connection ? m.sms_save() : m.sms_connect()}
          </Button>
        </div>
      </Form>
    </Card>
  );
}
