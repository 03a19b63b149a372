import { Form, href } from "react-router";

import { getFormProps, getInputProps, getSelectProps } from "~/components/ui/form-state";

import type { Member } from "~/.server/domains/team/members";
import { Button, ButtonLink } from "~/components/ui/button";

import { Card, CardHeader } from "~/components/ui/card";

import { CheckboxField, Field, FormError, PasswordField, SelectField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { INVITE_ROLES, ROLE_SUMMARIES } from "~/lib/schemas/team-rules";

// Loaded when the form is first used (decision 061).
const lazyApprovalSettingSchema = lazySchema(() => import("~/lib/schemas/approval"), "ApprovalSettingSchema");
const lazyHandoverSchema = lazySchema(() => import("~/lib/schemas/team"), "HandoverSchema");
const lazyInviteSchema = lazySchema(() => import("~/lib/schemas/team"), "InviteSchema");

const ROLE_OPTIONS = INVITE_ROLES.map((role) => ({ value: role, label: ROLE_SUMMARIES[role] }));

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
      <CardHeader title="Broadcast approval" />
      <p className="mt-1 text-sm text-slate-600" data-testid="approval-state">
        {words}
      </p>
      {!canConfigure ? <p className="mt-1 text-xs text-slate-500">Only the owner can change this.</p> : null}
      {canConfigure ? (
        <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-3 sm:max-w-xl">
          <FormError id={form.errorId} errors={form.errors} />
          <CheckboxField
            label="Require approval for large campaigns and broadcasts"
            hint="Someone other than the author (an owner or admin) approves them before anything is sent."
            errors={fields.enabled.errors}
            {...getInputProps(fields.enabled, { type: "checkbox", value: "on" })}
            key={fields.enabled.key}
          />
          <Field
            label="When they reach more than (recipients)"
            inputMode="numeric"
            errors={fields.threshold.errors}
            hint="A whole number from 0 to 1,000,000. With 0, every campaign and broadcast needs approval."
            {...getInputProps(fields.threshold, { type: "text" })}
            key={fields.threshold.key}
          />
          <div>
            <Button type="submit" name="intent" value="approval">
              Save approval setting
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
      <CardHeader title="Invite a member" />
      <p className="mt-1 text-sm text-slate-600">They get an e-mail with a link to join, valid for 7 days and usable once.</p>
      <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start">
        <div className="sm:col-span-3">
          <FormError id={form.errorId} errors={form.errors} />
        </div>
        <Field
          label="E-mail"
          markRequired
          autoComplete="off"
          errors={fields.email.errors}
          {...getInputProps(fields.email, { type: "email" })}
          key={fields.email.key}
        />
        <SelectField
          label="Role"
          markRequired
          errors={fields.role.errors}
          {...getSelectProps(fields.role)}
          defaultValue={fields.role.initialValue ?? "agent"}
          key={fields.role.key}
          options={ROLE_OPTIONS}
        />
        <div className="sm:pt-6">
          <Button type="submit" name="intent" value="invite">
            Send invitation
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
          Make {member.name} the owner?
        </p>
        <p className="mt-1 text-sm text-amber-900">
          {member.email} becomes the owner, with billing and closing the account. You become an admin. Enter your password to confirm.
        </p>
        <FormError id={form.errorId} errors={form.errors} />
        <input type="hidden" name="member" value={member.id} />
        <div className="mt-3 max-w-sm">
          <PasswordField
            label="Your password"
            markRequired
            autoComplete="current-password"
            errors={fields.password.errors}
            {...getInputProps(fields.password, { type: "password" })}
            key={fields.password.key}
          />
        </div>
        <div className="flex gap-2">
          <Button type="submit" name="intent" value="handover">
            Hand over the ownership
          </Button>
          <ButtonLink to={href("/settings/team")} variant="secondary">
            Cancel
          </ButtonLink>
        </div>
      </Form>
    </div>
  );
}
