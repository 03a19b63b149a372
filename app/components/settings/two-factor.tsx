import { Form, useNavigation } from "react-router";

import { getFormProps, getInputProps, type SubmissionResult } from "~/components/ui/form-state";

import type { TwoFactorStatus } from "~/.server/domains/auth/two-factor/enrolment";
import { formatWhen } from "~/lib/dates";

import { Badge } from "~/components/ui/badge";

import { Button } from "~/components/ui/button";

import { Card, CardBody, CardHeader } from "~/components/ui/card";

import { CopyButton } from "~/components/ui/copy-button";

import { Field, PasswordField } from "~/components/ui/field";

import { Notice } from "~/components/ui/notice";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyConfirmSetupSchema = lazySchema(() => import("~/lib/schemas/two-factor"), "ConfirmSetupSchema");
const lazyRenewCodesSchema = lazySchema(() => import("~/lib/schemas/two-factor"), "RenewCodesSchema");
const lazyTurnOffSchema = lazySchema(() => import("~/lib/schemas/two-factor"), "TurnOffSchema");

type Failed = { intent: string; result: unknown } | null;

const resultFor = (failed: Failed, intent: string) =>
  failed?.intent === intent ? (failed.result as SubmissionResult<string[]> | null) : undefined;

/** The secret in groups of four, as authenticator apps show a key to type. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(" ") ?? secret;

/** Two-factor sign-in on the Security page: set up (QR code and key), confirm, recovery codes, turn off. */
export function TwoFactorCard({
  status,
  mustSetUp,
  required,
  issued,
  failed,
}: {
  status: Omit<TwoFactorStatus, "since"> & { since: string | Date | null };
  mustSetUp: boolean;
  required: boolean;
  issued: { recoveryCodes: string[]; message: string } | null;
  failed: Failed;
}) {
  const busy = useNavigation().state === "submitting";
  return (
    <Card aria-labelledby="two-factor-title">
      <CardHeader
        id="two-factor-title"
        title={m.settings_two_factor_title()}
        description={m.settings_two_factor_description()}
        actions={
          status.on ? (
            <Badge tone="success">{m.settings_two_factor_on()}</Badge>
          ) : (
            <Badge tone="neutral">{m.settings_two_factor_off()}</Badge>
          )
        }
      />
      <CardBody className="space-y-4">
        {mustSetUp ? <Notice tone="warning">{m.settings_two_factor_must_set_up()}</Notice> : null}
        {issued ? <RecoveryCodes codes={issued.recoveryCodes} message={issued.message} /> : null}
        {status.on ? (
          <>
            <p className="text-sm text-slate-700">
              {m.settings_two_factor_on_since({
                since: status.since ? formatWhen(status.since) : "—",
                left: String(status.recoveryCodesLeft),
              })}
            </p>
            <RenewCodesForm result={resultFor(failed, "2fa-codes")} busy={busy} />
            {required ? (
              <p className="text-sm text-slate-600">{m.settings_two_factor_cannot_turn_off()}</p>
            ) : (
              <TurnOffForm result={resultFor(failed, "2fa-off")} busy={busy} />
            )}
          </>
        ) : status.setup ? (
          <SetupSteps setup={status.setup} result={resultFor(failed, "2fa-confirm")} busy={busy} />
        ) : (
          <Form method="post">
            <Button type="submit" name="intent" value="2fa-start" disabled={busy}>
              {m.settings_two_factor_set_up()}
            </Button>
          </Form>
        )}
      </CardBody>
    </Card>
  );
}

function SetupSteps({
  setup,
  result,
  busy,
}: {
  setup: { qr: string; secret: string };
  result: SubmissionResult<string[]> | null | undefined;
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(lazyConfirmSetupSchema, result, { id: "two-factor-confirm" });
  return (
    <ol className="space-y-4 text-sm text-slate-700">
      <li>
        <p className="font-medium text-slate-900">{m.settings_two_factor_step_scan()}</p>
        {/* The SVG is drawn on the server from the otpauth:// link (no script, no request elsewhere). */}
        <div className="mt-2 size-48 rounded-lg border border-slate-200 p-1" dangerouslySetInnerHTML={{ __html: setup.qr }} />
        <p className="mt-2">{m.settings_two_factor_cannot_scan()}</p>
        <p className="mt-1 flex flex-wrap items-center gap-2">
          <code data-testid="totp-secret" className="rounded bg-slate-100 px-2 py-1 font-mono text-sm tracking-wider text-slate-900">
            {grouped(setup.secret)}
          </code>
          <CopyButton text={setup.secret} label={m.settings_two_factor_copy_key()} />
        </p>
      </li>
      <li>
        <p className="font-medium text-slate-900">{m.settings_two_factor_step_code()}</p>
        <Form method="post" {...getFormProps(form)} className="mt-2 max-w-xs">
          <Field
            label={m.settings_two_factor_code_label()}
            markRequired
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={7}
            errors={fields.code.errors}
            {...getInputProps(fields.code, { type: "text" })}
            key={fields.code.key}
          />
          <div className="flex gap-2">
            <Button type="submit" name="intent" value="2fa-confirm" disabled={busy}>
              {m.settings_two_factor_turn_on()}
            </Button>
            <Button type="submit" name="intent" value="2fa-cancel" variant="secondary" formNoValidate disabled={busy}>
              {m.settings_cancel()}
            </Button>
          </div>
        </Form>
      </li>
    </ol>
  );
}

function RecoveryCodes({ codes, message }: { codes: string[]; message: string }) {
  const text = `${m.settings_two_factor_codes_file_title()}\n\n${codes.join("\n")}\n`;
  return (
    <Notice tone="success" title={message}>
      <p>{m.settings_two_factor_codes_explain()}</p>
      <ul data-testid="recovery-codes" className="mt-3 grid max-w-sm grid-cols-2 gap-x-6 gap-y-1 font-mono text-base text-slate-900">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <p className="mt-3 flex flex-wrap gap-2">
        <a
          download="jumbe-recovery-codes.txt"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
          className="inline-flex items-center rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50"
        >
          {m.settings_two_factor_codes_download()}
        </a>
        <CopyButton text={codes.join("\n")} label={m.settings_two_factor_codes_copy()} />
      </p>
    </Notice>
  );
}

function RenewCodesForm({ result, busy }: { result: SubmissionResult<string[]> | null | undefined; busy: boolean }) {
  const [form, fields] = useSchemaForm(lazyRenewCodesSchema, result, { id: "two-factor-codes" });
  return (
    <details className="rounded-lg border border-slate-200 p-3" open={result ? true : undefined}>
      <summary className="cursor-pointer text-sm font-semibold text-slate-900">{m.settings_two_factor_renew_title()}</summary>
      <Form method="post" {...getFormProps(form)} className="mt-3 max-w-sm">
        <p className="pb-2 text-sm text-slate-600">{m.settings_two_factor_renew_note()}</p>
        <PasswordField
          label={m.settings_your_password()}
          markRequired
          autoComplete="current-password"
          errors={fields.password.errors}
          {...getInputProps(fields.password, { type: "password" })}
          key={fields.password.key}
        />
        <Button type="submit" name="intent" value="2fa-codes" variant="secondary" disabled={busy}>
          {m.settings_two_factor_renew_button()}
        </Button>
      </Form>
    </details>
  );
}

function TurnOffForm({ result, busy }: { result: SubmissionResult<string[]> | null | undefined; busy: boolean }) {
  const [form, fields] = useSchemaForm(lazyTurnOffSchema, result, { id: "two-factor-off" });
  return (
    <details className="rounded-lg border border-slate-200 p-3" open={result ? true : undefined}>
      <summary className="cursor-pointer text-sm font-semibold text-slate-900">{m.settings_two_factor_turn_off_title()}</summary>
      <Form method="post" {...getFormProps(form)} className="mt-3 max-w-sm">
        <p className="pb-2 text-sm text-slate-600">{m.settings_two_factor_turn_off_note()}</p>
        <PasswordField
          label={m.settings_your_password()}
          markRequired
          autoComplete="current-password"
          errors={fields.password.errors}
          {...getInputProps(fields.password, { type: "password" })}
          key={fields.password.key}
        />
        <Field
          label={m.settings_two_factor_code_or_recovery_label()}
          markRequired
          autoComplete="one-time-code"
          maxLength={20}
          errors={fields.code.errors}
          {...getInputProps(fields.code, { type: "text" })}
          key={fields.code.key}
        />
        <Button type="submit" name="intent" value="2fa-off" variant="danger" disabled={busy}>
          {m.settings_two_factor_turn_off()}
        </Button>
      </Form>
    </details>
  );
}

/** The owner's switch: two-factor sign-in for every member of the organisation. */
export function RequireTwoFactorCard({
  required,
  ownerHasIt,
  withoutTwoFactor,
}: {
  required: boolean;
  ownerHasIt: boolean;
  withoutTwoFactor: number;
}) {
  const busy = useNavigation().state === "submitting";
  return (
    <Card aria-labelledby="require-two-factor-title">
      <CardHeader
        id="require-two-factor-title"
        title={m.settings_two_factor_require_title()}
        description={m.settings_two_factor_require_description()}
        actions={
          required ? (
            <Badge tone="success">{m.settings_two_factor_required()}</Badge>
          ) : (
            <Badge tone="neutral">{m.settings_two_factor_not_required()}</Badge>
          )
        }
      />
      <CardBody className="space-y-3">
        <p className="text-sm text-slate-700">
          {withoutTwoFactor === 0
            ? m.settings_two_factor_everyone_on()
            : byCount(
                withoutTwoFactor,
                () => m.settings_two_factor_without_one({ count: withoutTwoFactor }),
                () => m.settings_two_factor_without_other({ count: withoutTwoFactor }),
              )}
        </p>
        {!required && !ownerHasIt ? (
          <p className="text-sm text-slate-600">{m.settings_two_factor_yourself_first()}</p>
        ) : (
          <Form method="post">
            <input type="hidden" name="required" value={required ? "off" : "on"} />
            <Button type="submit" name="intent" value="2fa-require" variant={required ? "secondary" : "primary"} disabled={busy}>
              {required ? m.settings_two_factor_stop_requiring() : m.settings_two_factor_require_button()}
            </Button>
          </Form>
        )}
      </CardBody>
    </Card>
  );
}
