import { data, Form, useNavigation, useSearchParams } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/staff";
import { requireDeclaredStaff, type CurrentUser } from "~/.server/domains/auth/guards";
import type { SubmissionOf } from "~/.server/infrastructure/http/intents";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { adminFormAction } from "~/.server/domains/admin/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { checkStepUp, STEP_UP_FIELD, stepUpNeeded } from "~/.server/domains/admin/step-up";
import { changeStaff, inviteStaff, revokeStaffInvitation, staffPage } from "~/.server/domains/admin/staff/staff";
import type { SubmissionResult } from "~/components/ui/form-state";
import { InviteForm, ManageForms, TwoFactorBadge } from "~/components/admin/staff/staff-forms";
import { Button, ButtonLink } from "~/components/ui/button";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { Table } from "~/components/ui/table";
import { StepUpField } from "~/components/ui/step-up-field";
import { closeDialogHref, UrlDialog } from "~/components/ui/dialog";
import { PageTitle } from "~/components/ui/page-title";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { formatWhen } from "~/lib/dates";
import type { PlatformRole } from "~/lib/roles";
import { staffRoleWords } from "~/lib/staff";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

/**
 * The console's staff (issue 74, decision 112): who runs the console, their roles, two-factor sign-in
 * and status; owners invite, change roles, suspend and reactivate, each with the step-up. Only the
 * console's owners open it (platform:staff; 404 to other staff, as the console is to anyone else).
 */
export const handle: PermissionHandle = { permission: "platform:staff" };

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_staff_title() }) }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const page = await staffPage(platformScope(current));
  return { ...page, me: current.user.id, stepUpNeeded: stepUpNeeded(current) };
}

const text = z.optional(z.string());
const StaffFormSchema = z.object({ intent: text, email: text, role: text, staff: text, invitation: text, [STEP_UP_FIELD]: text });
const HIDDEN = [STEP_UP_FIELD];

/** The button's intent as posted (its first value, as the form's other fields are read). */
function postedIntent(payload: Record<string, unknown>) {
  const posted = payload.intent;
  return String((Array.isArray(posted) ? posted[0] : posted) ?? "");
}

export async function action(args: Route.ActionArgs) {
  return adminFormAction(args, {
    permission: "platform:staff",
    schema: StaffFormSchema,
    invalid: (submission) =>
      formFailure(submission.reply({ hideFields: HIDDEN }), 400, undefined, { intent: postedIntent(submission.payload) }),
    handle: ({ value, submission, form, user }) => changeStaffAs(args, user, form, value, submission),
  });
}

async function changeStaffAs(
  args: Route.ActionArgs,
  current: CurrentUser,
  form: FormData,
  values: z.output<typeof StaffFormSchema>,
  submission: SubmissionOf<typeof StaffFormSchema>,
) {
  const intent = postedIntent(submission.payload);
  if (!["invite", "role", "suspend", "reactivate", "revoke"].includes(intent))
    return formFailure(submission.reply({ formErrors: [m.admin_staff_choose_action()], hideFields: HIDDEN }), 400, undefined, { intent });
  const stepUp = await checkStepUp(current, form);
  if (!stepUp.ok)
    return formFailure(
      submission.reply({ fieldErrors: { [STEP_UP_FIELD]: [stepUp.message] }, hideFields: HIDDEN }),
      stepUp.status,
      undefined,
      { intent },
    );
  const meta = requestMeta(args.request, args.context);
  try {
    if (intent === "invite") {
      const done = await inviteStaff(current, meta, { email: values.email ?? "", role: values.role ?? "" });
      return redirectWithToast("/admin/staff", "success", m.admin_staff_invited_toast({ email: done.email }));
    }
    if (intent === "revoke") {
      const done = await revokeStaffInvitation(current, meta, values.invitation ?? "");
      return redirectWithToast("/admin/staff", "success", m.admin_staff_revoked_toast({ email: done.email }));
    }
    const change = intent === "role" ? { kind: "role" as const, role: values.role ?? "" } : { kind: intent as "suspend" | "reactivate" };
    const done = await changeStaff(current, meta, values.staff ?? "", change);
    const toast = !done.changed
      ? m.admin_staff_unchanged_toast()
      : intent === "role"
        ? m.admin_staff_role_changed_toast({ email: done.email, role: staffRoleWords(values.role as PlatformRole) })
        : intent === "suspend"
          ? m.admin_staff_suspended_toast({ email: done.email })
          : m.admin_staff_reactivated_toast({ email: done.email });
    return redirectWithToast("/admin/staff", "success", toast);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status === 404) throw data("Not Found", { status: 404 });
    return refusalReply(submission, refusal, { hideFields: HIDDEN, extra: { intent } });
  }
}

export default function AdminStaff({ loaderData, actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const { members, invitations, me, stepUpNeeded } = loaderData;
  const result = (intent: string) =>
    actionData && "intent" in actionData && actionData.intent === intent ? (actionData.result as SubmissionResult<string[]>) : undefined;
  const chosen = members.find((member) => member.id === searchParams.get("staff"));
  const manageHref = (id: string) => `?${new URLSearchParams({ dialog: "manage", staff: id })}`;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <PageTitle>{m.admin_staff_title()}</PageTitle>
          <p className="mt-1 max-w-3xl text-slate-600">{m.admin_staff_intro()}</p>
        </div>
        <ButtonLink to={`?${new URLSearchParams({ dialog: "invite" })}`} preventScrollReset>
          {m.admin_staff_invite()}
        </ButtonLink>
      </div>

      <Card>
        <Table
          caption={m.admin_staff_title()}
          rows={members}
          rowKey={(member) => member.id}
          empty={m.admin_staff_not_found()}
          columns={[
            {
              key: "name",
              header: m.admin_staff_column_name(),
              cell: (member) => (
                <span className="block min-w-0 break-words">
                  <span className="font-medium text-slate-900">{member.name || member.email}</span>{" "}
                  {member.id === me ? <span className="text-slate-500">{m.admin_staff_you()}</span> : null}
                  <span className="block text-xs break-all text-slate-500">{member.email}</span>
                </span>
              ),
            },
            { key: "role", header: m.admin_staff_column_role(), cell: (member) => staffRoleWords(member.role) },
            {
              key: "twoFactor",
              header: m.admin_staff_column_two_factor(),
              cell: (member) => <TwoFactorBadge member={member} />,
              hideOnPhone: true,
            },
            {
              key: "status",
              header: m.admin_staff_column_status(),
              cell: (member) =>
                member.suspendedAt ? (
                  <Badge tone="danger">{m.admin_staff_status_suspended()}</Badge>
                ) : (
                  <Badge tone="success">{m.admin_staff_status_active()}</Badge>
                ),
            },
            {
              key: "lastSignIn",
              header: m.admin_staff_column_last_sign_in(),
              cell: (member) => (member.lastLoginAt ? formatWhen(member.lastLoginAt) : m.admin_staff_never()),
              hideOnPhone: true,
            },
            {
              key: "actions",
              header: <span className="sr-only">{m.admin_staff_column_actions()}</span>,
              cell: (member) =>
                member.id === me ? null : (
                  <ButtonLink to={manageHref(member.id)} variant="secondary" size="sm" preventScrollReset>
                    {m.admin_staff_manage()}
                  </ButtonLink>
                ),
              align: "right",
            },
          ]}
        />
      </Card>

      <Card>
        <h2 className="text-base font-semibold text-slate-900">{m.admin_staff_invitations()}</h2>
        {invitations.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">{m.admin_staff_no_invitations()}</p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-100">
            {invitations.map((invitation) => (
              <li key={invitation.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
                <span className="min-w-0 text-sm break-all">
                  <span className="font-medium text-slate-900">{invitation.email}</span> · {staffRoleWords(invitation.role)} ·{" "}
                  {invitation.expired
                    ? m.admin_staff_invitation_expired()
                    : m.admin_staff_invitation_expires({ when: formatWhen(invitation.expiresAt) })}
                </span>
                <Form method="post" className="flex flex-wrap items-end gap-2">
                  <input type="hidden" name="invitation" value={invitation.id} />
                  <StepUpField needed={stepUpNeeded} id={`revoke-${invitation.id}-confirmation`} />
                  <Button type="submit" name="intent" value="revoke" variant="secondary" size="sm" pending={busy}>
                    {m.admin_staff_revoke()}
                  </Button>
                </Form>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <UrlDialog name="invite" searchParams={searchParams} title={m.admin_staff_invite()} description={m.admin_staff_invite_description()}>
        <InviteForm result={result("invite")} stepUpNeeded={stepUpNeeded} cancel={closeDialogHref(searchParams)} busy={busy} />
      </UrlDialog>
      {chosen ? (
        <UrlDialog name="manage" searchParams={searchParams} title={m.admin_staff_manage_title({ email: chosen.email })}>
          <ManageForms member={chosen} result={result} stepUpNeeded={stepUpNeeded} cancel={closeDialogHref(searchParams)} busy={busy} />
        </UrlDialog>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
