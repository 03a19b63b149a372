import { Form, href } from "react-router";

import { getFormProps, getInputProps, getSelectProps } from "~/components/ui/form-state";

import type { Member } from "~/.server/domains/team/members";
import { Button, ButtonLink } from "~/components/ui/button";

import { Card, CardHeader } from "~/components/ui/card";

import { CheckboxField, Field, FormError, PasswordField, SelectField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { INVITE_ROLES, ROLE_SUMMARIES } from "~/lib/schemas/team-rules";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyApprovalSettingSchema = lazySchema(() => import("~/lib/schemas/approval"), "ApprovalSettingSchema");
const lazyHandoverSchema = lazySchema(() => import("~/lib/schemas/team"), "HandoverSchema");
const lazyInviteSchema = lazySchema(() => import("~/lib/schemas/team"), "InviteSchema");

// Built when the form renders: the summaries are words.
const roleOptions = () => INVITE_ROLES.map((role) => ({ value: role, label: ROLE_SUMMARIES[role] }));

type LastResult = Parameters<typeof useSchemaForm>[1];

/**
 * Broadcast approval (maker-checker): its state in words for every member; the owner's form turns it
 * on with a threshold of recipients, or off.
 */
export function ApprovalCard({
  words,
  threshold,
  canConfigure,
  result,
}: {
  words: string;
  threshold: number | null;
  canConfigure: boolean;
  result: LastResult;
}) {
  const [form, fields] = useSchemaForm(lazyApprovalSettingSchema, result, {
    id: "approval",
    defaultValue: { enabled: threshold === null ? undefined : "on", threshold: threshold === null ? "500" : String(threshold) },
  });
  return (
    <Card>
      <CardHeader title={m.settings_team_approval_title()} />
      <p className="mt-1 text-sm text-slate-600" data-testid="approval-state">
        {words}
      </p>
      {!canConfigure ? <p className="mt-1 text-xs text-slate-500">{m.settings_team_approval_owner_only()}</p> : null}
      {canConfigure ? (
        <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-3 sm:max-w-xl">
          <FormError id={form.errorId} errors={form.errors} />
          <CheckboxField
            label={m.settings_team_approval_enabled_label()}
            hint={m.settings_team_approval_enabled_hint()}
            errors={fields.enabled.errors}
            {...getInputProps(fields.enabled, { type: "checkbox", value: "on" })}
            key={fields.enabled.key}
          />
          <Field
            label={m.settings_team_approval_threshold_label()}
            inputMode="numeric"
            errors={fields.threshold.errors}
            hint={m.settings_team_approval_threshold_hint()}
            {...getInputProps(fields.threshold, { type: "text" })}
            key={fields.threshold.key}
          />
          <div>
            <Button type="submit" name="intent" value="approval">
              {m.settings_team_approval_save()}
            </Button>
          </div>
        </Form>
      ) : null}
    </Card>
  );
}

/** Invite a member by e-mail, with the role they get. */
export function InviteCard({ result }: { result: LastResult }) {
  const [form, fields] = useSchemaForm(lazyInviteSchema, result, { id: "invite", shouldValidate: "onBlur" });
  return (
    <Card>
      <CardHeader title={m.settings_team_invite_title()} />
      <p className="mt-1 text-sm text-slate-600">{m.settings_team_invite_description()}</p>
      <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start">
        <div className="sm:col-span-3">
          <FormError id={form.errorId} errors={form.errors} />
        </div>
        <Field
          label={m.settings_team_email()}
          markRequired
          autoComplete="off"
          errors={fields.email.errors}
          {...getInputProps(fields.email, { type: "email" })}
          key={fields.email.key}
        />
        <SelectField
          label={m.settings_team_role()}
          markRequired
          errors={fields.role.errors}
          {...getSelectProps(fields.role)}
          defaultValue={fields.role.initialValue ?? "agent"}
          key={fields.role.key}
          options={roleOptions()}
        />
        <div className="sm:pt-6">
          <Button type="submit" name="intent" value="invite">
            {m.settings_team_invite_submit()}
          </Button>
        </div>
      </Form>
    </Card>
  );
}

/** Hand the ownership to a member, confirmed with the owner's password. */
export function HandoverPanel({ member, result }: { member: Member; result: LastResult }) {
  const [form, fields] = useSchemaForm(lazyHandoverSchema, result, { id: "handover" });
  return (
    <div className="px-4 pb-4">
      <Form
        method="post"
        {...getFormProps(form)}
        className="mt-4 rounded-lg border border-amber-200 bg-amber-50 p-4"
        role="alertdialog"
        aria-labelledby="handover-title"
      >
        <p id="handover-title" className="font-semibold text-amber-900">
          {m.settings_team_handover_title({ name: member.name })}
        </p>
        <p className="mt-1 text-sm text-amber-900">{m.settings_team_handover_explain({ email: member.email })}</p>
        <FormError id={form.errorId} errors={form.errors} />
        <input type="hidden" name="member" value={member.id} />
        <div className="mt-3 max-w-sm">
          <PasswordField
            label={m.settings_your_password()}
            markRequired
            autoComplete="current-password"
            errors={fields.password.errors}
            {...getInputProps(fields.password, { type: "password" })}
            key={fields.password.key}
          />
        </div>
        <div className="flex gap-2">
          <Button type="submit" name="intent" value="handover">
            {m.settings_team_handover_submit()}
          </Button>
          <ButtonLink to={href("/settings/team")} variant="secondary">
            {m.settings_cancel()}
          </ButtonLink>
        </div>
      </Form>
    </div>
  );
}
