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
        title="Two-factor sign-in"
        description="After your password, a 6-digit code from an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password and others)."
        actions={status.on ? <Badge tone="success">On</Badge> : <Badge tone="neutral">Off</Badge>}
      />
      <CardBody className="space-y-4">
        {mustSetUp ? <Notice tone="warning">Your organisation requires two-factor sign-in. Set it up to continue.</Notice> : null}
        {issued ? <RecoveryCodes codes={issued.recoveryCodes} message={issued.message} /> : null}
        {status.on ? (
          <>
            <p className="text-sm text-slate-700">
              On since {status.since ? formatWhen(status.since) : "—"}. {status.recoveryCodesLeft} of 10 recovery codes left.
            </p>
            <RenewCodesForm result={resultFor(failed, "2fa-codes")} busy={busy} />
            {required ? (
              <p className="text-sm text-slate-600">Your organisation requires two-factor sign-in, so it cannot be turned off.</p>
            ) : (
              <TurnOffForm result={resultFor(failed, "2fa-off")} busy={busy} />
            )}
          </>
        ) : status.setup ? (
          <SetupSteps setup={status.setup} result={resultFor(failed, "2fa-confirm")} busy={busy} />
        ) : (
          <Form method="post">
            <Button type="submit" name="intent" value="2fa-start" disabled={busy}>
              Set up two-factor sign-in
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
        <p className="font-medium text-slate-900">1. Scan this QR code with your authenticator app.</p>
        {/* The SVG is drawn on the server from the otpauth:// link (no script, no request elsewhere). */}
        <div className="mt-2 size-48 rounded-lg border border-slate-200 p-1" dangerouslySetInnerHTML={{ __html: setup.qr }} />
        <p className="mt-2">Can&apos;t scan it? Choose &quot;enter a setup key&quot; in the app and type this key (time-based):</p>
        <p className="mt-1 flex flex-wrap items-center gap-2">
          <code data-testid="totp-secret" className="rounded bg-slate-100 px-2 py-1 font-mono text-sm tracking-wider text-slate-900">
            {grouped(setup.secret)}
          </code>
          <CopyButton text={setup.secret} label="Copy key" />
        </p>
      </li>
      <li>
        <p className="font-medium text-slate-900">2. Enter the 6-digit code the app shows.</p>
        <Form method="post" {...getFormProps(form)} className="mt-2 max-w-xs">
          <Field
            label="Code from the app"
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
              Turn on
            </Button>
            <Button type="submit" name="intent" value="2fa-cancel" variant="secondary" formNoValidate disabled={busy}>
              Cancel
            </Button>
          </div>
        </Form>
      </li>
    </ol>
  );
}

function RecoveryCodes({ codes, message }: { codes: string[]; message: string }) {
  const text = `Jumbe recovery codes (each works once)\n\n${codes.join("\n")}\n`;
  return (
    <Notice tone="success" title={message}>
      <p>
        Each recovery code signs you in once if you lose your phone. Save them now (print them or keep them in a password manager): they are
        not shown again.
      </p>
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
          Download the codes
        </a>
        <CopyButton text={codes.join("\n")} label="Copy the codes" />
      </p>
    </Notice>
  );
}

function RenewCodesForm({ result, busy }: { result: SubmissionResult<string[]> | null | undefined; busy: boolean }) {
  const [form, fields] = useSchemaForm(lazyRenewCodesSchema, result, { id: "two-factor-codes" });
  return (
    <details className="rounded-lg border border-slate-200 p-3" open={result ? true : undefined}>
      <summary className="cursor-pointer text-sm font-semibold text-slate-900">Make new recovery codes</summary>
      <Form method="post" {...getFormProps(form)} className="mt-3 max-w-sm">
        <p className="pb-2 text-sm text-slate-600">Your current recovery codes stop working.</p>
        <PasswordField
          label="Your password"
          markRequired
          autoComplete="current-password"
          errors={fields.password.errors}
          {...getInputProps(fields.password, { type: "password" })}
          key={fields.password.key}
        />
        <Button type="submit" name="intent" value="2fa-codes" variant="secondary" disabled={busy}>
          Make new codes
        </Button>
      </Form>
    </details>
  );
}

function TurnOffForm({ result, busy }: { result: SubmissionResult<string[]> | null | undefined; busy: boolean }) {
  const [form, fields] = useSchemaForm(lazyTurnOffSchema, result, { id: "two-factor-off" });
  return (
    <details className="rounded-lg border border-slate-200 p-3" open={result ? true : undefined}>
      <summary className="cursor-pointer text-sm font-semibold text-slate-900">Turn off two-factor sign-in</summary>
      <Form method="post" {...getFormProps(form)} className="mt-3 max-w-sm">
        <p className="pb-2 text-sm text-slate-600">Your account is then protected by your password alone.</p>
        <PasswordField
          label="Your password"
          markRequired
          autoComplete="current-password"
          errors={fields.password.errors}
          {...getInputProps(fields.password, { type: "password" })}
          key={fields.password.key}
        />
        <Field
          label="Code from the app, or a recovery code"
          markRequired
          autoComplete="one-time-code"
          maxLength={20}
          errors={fields.code.errors}
          {...getInputProps(fields.code, { type: "text" })}
          key={fields.code.key}
        />
        <Button type="submit" name="intent" value="2fa-off" variant="danger" disabled={busy}>
          Turn off
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
        title="Require two-factor sign-in for everyone"
        description="Members who have not set it up are taken to this page, and can do nothing else until they have."
        actions={required ? <Badge tone="success">Required</Badge> : <Badge tone="neutral">Not required</Badge>}
      />
      <CardBody className="space-y-3">
        <p className="text-sm text-slate-700">
          {withoutTwoFactor === 0
            ? "Every member has two-factor sign-in on."
            : `${withoutTwoFactor} ${withoutTwoFactor === 1 ? "member has" : "members have"} not turned it on yet.`}
        </p>
        {!required && !ownerHasIt ? (
          <p className="text-sm text-slate-600">Turn on two-factor sign-in for yourself first.</p>
        ) : (
          <Form method="post">
            <input type="hidden" name="required" value={required ? "off" : "on"} />
            <Button type="submit" name="intent" value="2fa-require" variant={required ? "secondary" : "primary"} disabled={busy}>
              {required ? "Stop requiring it" : "Require it for everyone"}
            </Button>
          </Form>
        )}
      </CardBody>
    </Card>
  );
}
