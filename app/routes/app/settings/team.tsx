import { data, Form, href, useNavigation } from "react-router";
import { getFormProps, getInputProps, getSelectProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { Route } from "./+types/team";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { changeMemberRole, listMembers, removeMember, transferOwnership, type Member } from "~/.server/domains/team/members";
import {
  inviteMember,
  listOpenInvitations,
  resendInvitation,
  revokeInvitation,
  type OpenInvitation,
} from "~/.server/domains/team/invitations";
import { approvalInWords, setBroadcastApproval } from "~/.server/domains/team/broadcast-approval";
import { ApprovalSettingSchema, thresholdOf } from "~/lib/schemas/approval";
import { HandoverSchema, INVITE_ROLES, InviteSchema, ROLE_SUMMARIES, ROLE_WORDS, RoleChangeSchema } from "~/lib/schemas/team";
import { formatDay, formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { CheckboxField, Field, FormError, PasswordField, SelectField } from "~/components/ui/field";
import { Table, type Column } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import { useSchemaForm } from "~/components/ui/use-schema-form";
import { SettingsHeader } from "~/components/settings/settings-header";
import { refusalOf, throwIfNotFound, refusalToast, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";

// The team is seen by all, changed by owners and admins (the page's forms check team:manage).
export const handle: PermissionHandle = { permission: "team:view" };

export const meta: Route.MetaFunction = () => [{ title: "Team | Account Settings | Jumbe" }];

const ROLE_OPTIONS = INVITE_ROLES.map((role) => ({ value: role, label: ROLE_SUMMARIES[role] }));

/** The organisation's members and open invitations; owners and admins manage them, everyone sees them. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "team:view");
  const canManage = can(current.role, "team:manage");
  const params = args.url.searchParams;
  const [members, invitations] = await Promise.all([
    listMembers(current.organization.id),
    canManage ? listOpenInvitations(current.organization.id) : Promise.resolve([] as OpenInvitation[]),
  ]);
  const chosen = (key: string) => members.find((m) => m.id === params.get(key) && m.id !== current.user.id && m.role !== "owner") ?? null;
  return {
    me: current.user.id,
    organization: current.organization.name,
    members,
    invitations,
    canManage,
    canHandOver: can(current.role, "ownership:transfer"),
    // Broadcast approval (decision 033): everyone reads it, the owner alone changes it.
    approvalThreshold: current.organization.approvalThreshold,
    approvalWords: approvalInWords(current.organization.approvalThreshold),
    canConfigureApproval: can(current.role, "approvals:configure"),
    removing: canManage && params.get("confirm") === "remove" ? chosen("member") : null,
    handingOver: can(current.role, "ownership:transfer") ? chosen("handover") : null,
  };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "team:view");
  const form = await readForm(args.request);
  const meta = requestMeta(args.request, args.context);
  const intent = String(form.get("intent") ?? "");
  const here = href("/settings/team");
  const text = (name: string) => String(form.get(name) ?? "");
  try {
    switch (intent) {
      case "invite": {
        const submission = parseWithZod(form, { schema: InviteSchema });
        if (submission.status !== "success") return formFailure(submission.reply(), 400, undefined, { intent });
        try {
          await inviteMember(current, submission.value, meta);
        } catch (error) {
          // Refused for the address (a member already, an account elsewhere): said at the field.
          const refusal = refusalOf(error);
          if (!refusal.field) throw refusal;
          return refusalReply(submission, refusal, { extra: { intent } });
        }
        return redirectWithToast(here, "success", `Invitation sent to ${submission.value.email.toLowerCase()}.`);
      }
      case "role": {
        const submission = parseWithZod(form, { schema: RoleChangeSchema });
        if (submission.status !== "success") return formFailure(null, 400, "Choose a role.", { intent });
        await changeMemberRole(current, text("member"), submission.value.role, meta);
        return redirectWithToast(here, "success", `Role changed to ${ROLE_WORDS[submission.value.role]}.`);
      }
      case "remove": {
        if (form.get("confirm") !== "yes") return formFailure(null, 400, "Confirm the removal first.", { intent });
        await removeMember(current, text("member"), meta);
        return redirectWithToast(here, "success", "Member removed. They have been signed out everywhere.");
      }
      case "resend":
        await resendInvitation(current, text("invitation"), meta);
        return redirectWithToast(here, "success", "Invitation sent again, with a new link valid for 7 days.");
      case "revoke":
        await revokeInvitation(current, text("invitation"), meta);
        return redirectWithToast(here, "success", "Invitation withdrawn. Its link no longer works.");
      case "handover": {
        const submission = parseWithZod(form, { schema: HandoverSchema });
        if (submission.status !== "success") return formFailure(submission.reply({ hideFields: ["password"] }), 400, undefined, { intent });
        try {
          await transferOwnership(current, text("member"), submission.value.password, meta);
        } catch (error) {
          const refusal = refusalOf(error);
          if (refusal.code !== "wrong_password") throw refusal;
          return refusalReply(submission, refusal, { field: "password", status: 400, hideFields: ["password"], extra: { intent } });
        }
        return redirectWithToast(here, "success", "You have handed over the ownership. You are now an admin.");
      }
      case "approval": {
        const submission = parseWithZod(form, { schema: ApprovalSettingSchema });
        if (submission.status !== "success") return formFailure(submission.reply(), 400, undefined, { intent });
        const threshold = thresholdOf(submission.value);
        try {
          await setBroadcastApproval(current, threshold, meta);
        } catch (error) {
          const refusal = refusalOf(error);
          if (!refusal.field) throw refusal;
          return refusalReply(submission, refusal, { extra: { intent } });
        }
        return redirectWithToast(here, "success", approvalInWords(threshold));
      }
    }
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    return refusalToast(refusal, { intent });
  }
  throw data("Unknown action.", { status: 400 });
}

export default function Team({ loaderData, actionData }: Route.ComponentProps) {
  const {
    me,
    members,
    invitations,
    canManage,
    canHandOver,
    removing,
    handingOver,
    approvalThreshold,
    approvalWords,
    canConfigureApproval,
  } = loaderData;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const columns: Column<Member>[] = [
    {
      key: "name",
      header: "Member",
      cell: (m) => (
        <span>
          <span className="font-medium text-slate-900">{m.name}</span>
          {m.id === me ? <span className="text-slate-500"> (you)</span> : null}
          <span className="block text-sm text-slate-600">{m.email}</span>
        </span>
      ),
    },
    {
      key: "role",
      header: "Role",
      cell: (m) =>
        canManage && m.role !== "owner" && m.id !== me ? (
          <Form method="post" className="flex items-center gap-2">
            <input type="hidden" name="member" value={m.id} />
            <label className="sr-only" htmlFor={`role-${m.id}`}>
              Role of {m.name}
            </label>
            <select
              id={`role-${m.id}`}
              name="role"
              defaultValue={m.role}
              className="min-w-32 rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm"
            >
              {INVITE_ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_WORDS[role]}
                </option>
              ))}
            </select>
            <Button type="submit" name="intent" value="role" variant="secondary" size="sm" disabled={busy}>
              Change
            </Button>
          </Form>
        ) : (
          <Badge tone={m.role === "owner" ? "success" : "neutral"}>{ROLE_WORDS[m.role]}</Badge>
        ),
    },
    { key: "joined", header: "Joined", hideOnPhone: true, cell: (m) => formatDay(m.joinedAt) },
    { key: "seen", header: "Last sign-in", hideOnPhone: true, cell: (m) => (m.lastLoginAt ? formatWhen(m.lastLoginAt) : "Not yet") },
    ...(canManage || canHandOver
      ? [
          {
            key: "actions",
            header: <span className="sr-only">Actions</span>,
            align: "right" as const,
            cell: (m: Member) =>
              m.role === "owner" || m.id === me ? null : (
                <span className="inline-flex gap-2">
                  {canHandOver ? (
                    <ButtonLink to={`?handover=${m.id}`} variant="secondary" size="sm" aria-label={`Make ${m.name} the owner`}>
                      Make owner
                    </ButtonLink>
                  ) : null}
                  {canManage ? (
                    <ButtonLink to={`?confirm=remove&member=${m.id}`} variant="secondary" size="sm" aria-label={`Remove ${m.name}`}>
                      Remove
                    </ButtonLink>
                  ) : null}
                </span>
              ),
          },
        ]
      : []),
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="team" />
      <Card padding="none">
        <div className="px-4 pt-4">
          <CardHeader title="Members" />
          <p className="mt-1 text-sm text-slate-600">
            One owner; admins can do everything but hand over the ownership; agents answer chats, manage contacts and send campaigns;
            viewers see without changing.
          </p>
        </div>
        <Table caption="Members" columns={columns} rows={members} rowKey={(m) => m.id} empty="No members." />
        {removing ? (
          <div className="px-4 pb-4">
            <ConfirmPanel
              title={`Remove ${removing.name}?`}
              intent="remove"
              confirmLabel="Remove member"
              cancelTo={href("/settings/team")}
              busy={busy}
              fields={{ member: removing.id }}
            >
              {removing.email} loses access at once and is signed out everywhere. What they did stays in the activity log.
            </ConfirmPanel>
          </div>
        ) : null}
        {handingOver ? (
          <HandoverPanel member={handingOver} result={actionData?.intent === "handover" ? actionData.result : undefined} busy={busy} />
        ) : null}
      </Card>
      {canManage ? <InviteCard result={actionData?.intent === "invite" ? actionData.result : undefined} busy={busy} /> : null}
      {canManage ? <Invitations invitations={invitations} busy={busy} /> : null}
      <ApprovalCard
        words={approvalWords}
        threshold={approvalThreshold}
        canConfigure={canConfigureApproval}
        result={actionData?.intent === "approval" ? actionData.result : undefined}
        busy={busy}
      />
    </div>
  );
}

/**
 * Broadcast approval (maker-checker): its state in words for every member; the owner's form turns it
 * on with a threshold of recipients, or off.
 */
function ApprovalCard({
  words,
  threshold,
  canConfigure,
  result,
  busy,
}: {
  words: string;
  threshold: number | null;
  canConfigure: boolean;
  result: Parameters<typeof useSchemaForm>[1];
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(ApprovalSettingSchema, result, {
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
            <Button type="submit" name="intent" value="approval" disabled={busy}>
              Save approval setting
            </Button>
          </div>
        </Form>
      ) : null}
    </Card>
  );
}

function InviteCard({ result, busy }: { result: Parameters<typeof useSchemaForm>[1]; busy: boolean }) {
  const [form, fields] = useSchemaForm(InviteSchema, result, { id: "invite", shouldValidate: "onBlur" });
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
          <Button type="submit" name="intent" value="invite" disabled={busy}>
            Send invitation
          </Button>
        </div>
      </Form>
    </Card>
  );
}

function Invitations({ invitations, busy }: { invitations: OpenInvitation[]; busy: boolean }) {
  const columns: Column<OpenInvitation>[] = [
    { key: "email", header: "E-mail", cell: (i) => <span className="font-medium text-slate-900">{i.email}</span> },
    { key: "role", header: "Role", cell: (i) => ROLE_WORDS[i.role] },
    { key: "sent", header: "Sent", hideOnPhone: true, cell: (i) => `${formatWhen(i.sentAt)}${i.invitedBy ? ` by ${i.invitedBy}` : ""}` },
    {
      key: "expires",
      header: "Link",
      cell: (i) => (i.expired ? <Badge tone="warning">Expired</Badge> : `Valid until ${formatDay(i.expiresAt)}`),
    },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      align: "right",
      cell: (i) => (
        <Form method="post" className="inline-flex gap-2">
          <input type="hidden" name="invitation" value={i.id} />
          <Button
            type="submit"
            name="intent"
            value="resend"
            variant="secondary"
            size="sm"
            disabled={busy}
            aria-label={`Resend to ${i.email}`}
          >
            Resend
          </Button>
          <Button
            type="submit"
            name="intent"
            value="revoke"
            variant="secondary"
            size="sm"
            disabled={busy}
            aria-label={`Withdraw ${i.email}`}
          >
            Withdraw
          </Button>
        </Form>
      ),
    },
  ];
  return (
    <Card padding="none">
      <div className="px-4 pt-4">
        <CardHeader title="Invitations" />
      </div>
      <Table caption="Open invitations" columns={columns} rows={invitations} rowKey={(i) => i.id} empty="No open invitations." />
    </Card>
  );
}

function HandoverPanel({ member, result, busy }: { member: Member; result: Parameters<typeof useSchemaForm>[1]; busy: boolean }) {
  const [form, fields] = useSchemaForm(HandoverSchema, result, { id: "handover" });
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
          <Button type="submit" name="intent" value="handover" disabled={busy}>
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

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
