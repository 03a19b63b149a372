import { data, href } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/team";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { changeMemberRole, listMembers, removeMember, transferOwnership } from "~/.server/domains/team/members";
import {
  inviteMember,
  listOpenInvitations,
  resendInvitation,
  revokeInvitation,
  type OpenInvitation,
} from "~/.server/domains/team/invitations";
import { approvalInWords, setBroadcastApproval } from "~/.server/domains/team/broadcast-approval";
import { ApprovalSettingSchema, thresholdOf } from "~/lib/schemas/approval";
import { HandoverSchema, InviteSchema, RoleChangeSchema } from "~/lib/schemas/team";
import { ROLE_WORDS } from "~/lib/schemas/team-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Table } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import { ApprovalCard, HandoverPanel, InviteCard } from "~/components/settings/team/team-forms";
import { Invitations } from "~/components/settings/team/invitations";
import { memberColumns } from "~/components/settings/team/member-columns";
import { SettingsHeader } from "~/components/settings/settings-header";
import { refusalOf, throwIfNotFound, refusalToast, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// The team is seen by all, changed by owners and admins (the page's forms check team:manage).
// The members, their roles and invitations: sent as a document without React (decision 066); the
// server checks every field and app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "team:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_team_meta_title() }];

/** The organisation's members and open invitations; owners and admins manage them, everyone sees them. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const canManage = can(current.role, "team:manage");
  const params = args.url.searchParams;
  const [members, invitations] = await Promise.all([
    listMembers(current.organization.id),
    canManage ? listOpenInvitations(current.organization.id) : Promise.resolve([] as OpenInvitation[]),
  ]);
  const chosen = (key: string) =>
    members.find((member) => member.id === params.get(key) && member.id !== current.user.id && member.role !== "owner") ?? null;
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

// The member or invitation a button names; removing asks for a confirmation first.
const MemberRoleSchema = z.object({ ...RoleChangeSchema.shape, member: postedText });
const RemoveSchema = z.object({ member: postedText, confirm: postedText });
const InvitationSchema = z.object({ invitation: postedText });
const MemberHandoverSchema = z.object({ ...HandoverSchema.shape, member: postedText });

/**
 * Every member may post here (team:view); what each may change is the team domain's to refuse, with
 * its own words in a toast (403): inviting, roles and removals need team:manage, the handover
 * ownership:transfer, the approval setting approvals:configure.
 */
export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const here = href("/settings/team");
  // Refused for a field (the address is a member already, an account elsewhere): said at the field.
  const atField = (submission: Parameters<typeof refusalReply>[0], error: unknown, posted: string) => {
    const refusal = refusalOf(error);
    if (!refusal.field) throw refusal;
    return refusalReply(submission, refusal, { extra: { intent: posted } });
  };
  return intentAction(args, {
    permission: "team:view",
    intents: {
      invite: intent(InviteSchema, async ({ value, submission, user, intent: posted }) => {
        try {
          await inviteMember(user, value, meta);
        } catch (error) {
          return atField(submission, error, posted);
        }
        return redirectWithToast(here, "success", m.settings_team_invited_toast({ email: value.email.toLowerCase() }));
      }),
      role: intent(
        MemberRoleSchema,
        async ({ value, user }) => {
          await changeMemberRole(user, value.member, value.role, meta);
          return redirectWithToast(here, "success", m.settings_team_role_changed_toast({ role: ROLE_WORDS[value.role] }));
        },
        { invalid: (_, posted) => formFailure(null, 400, m.settings_team_choose_role(), { intent: posted }) },
      ),
      remove: intent(RemoveSchema, async ({ value, user, intent: posted }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, m.settings_team_confirm_removal_first(), { intent: posted });
        await removeMember(user, value.member, meta);
        return redirectWithToast(here, "success", m.settings_team_removed_toast());
      }),
      resend: intent(InvitationSchema, async ({ value, user }) => {
        await resendInvitation(user, value.invitation, meta);
        return redirectWithToast(here, "success", m.settings_team_resent_toast());
      }),
      revoke: intent(InvitationSchema, async ({ value, user }) => {
        await revokeInvitation(user, value.invitation, meta);
        return redirectWithToast(here, "success", m.settings_team_revoked_toast());
      }),
      handover: intent(
        MemberHandoverSchema,
        async ({ value, submission, user, intent: posted }) => {
          try {
            await transferOwnership(user, value.member, value.password, meta);
          } catch (error) {
            const refusal = refusalOf(error);
            if (refusal.code !== "wrong_password") throw refusal;
            return refusalReply(submission, refusal, {
              field: "password",
              status: 400,
              hideFields: ["password"],
              extra: { intent: posted },
            });
          }
          return redirectWithToast(here, "success", m.settings_team_handed_over_toast());
        },
        { reply: { hideFields: ["password"] } },
      ),
      approval: intent(ApprovalSettingSchema, async ({ value, submission, user, intent: posted }) => {
        const threshold = thresholdOf(value);
        try {
          await setBroadcastApproval(user, threshold, meta);
        } catch (error) {
          return atField(submission, error, posted);
        }
        return redirectWithToast(here, "success", approvalInWords(threshold));
      }),
    },
    refused: (refusal, posted) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent: posted });
    },
    unknown: () => {
      throw data(m.settings_unknown_action(), { status: 400 });
    },
  });
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
  const columns = memberColumns({ me, canManage, canHandOver });
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="team" />
      <Card padding="none">
        <div className="px-4 pt-4">
          <CardHeader title={m.settings_team_members_title()} />
          <p className="mt-1 text-sm text-slate-600">{m.settings_team_members_description()}</p>
        </div>
        <Table
          caption={m.settings_team_members_title()}
          columns={columns}
          rows={members}
          rowKey={(member) => member.id}
          empty={m.settings_team_no_members()}
        />
        {removing ? (
          <div className="px-4 pb-4">
            <ConfirmPanel
              title={m.settings_team_remove_title({ name: removing.name })}
              intent="remove"
              confirmLabel={m.settings_team_remove_confirm()}
              cancelTo={href("/settings/team")}
              fields={{ member: removing.id }}
            >
              {m.settings_team_remove_explain({ email: removing.email })}
            </ConfirmPanel>
          </div>
        ) : null}
        {handingOver ? (
          <HandoverPanel member={handingOver} result={actionData?.intent === "handover" ? actionData.result : undefined} />
        ) : null}
      </Card>
      {canManage ? <InviteCard result={actionData?.intent === "invite" ? actionData.result : undefined} /> : null}
      {canManage ? <Invitations invitations={invitations} /> : null}
      <ApprovalCard
        words={approvalWords}
        threshold={approvalThreshold}
        canConfigure={canConfigureApproval}
        result={actionData?.intent === "approval" ? actionData.result : undefined}
      />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
