import type { OrgRole } from "../../infrastructure/db/schema";
import { webhookDisabledMail } from "../../infrastructure/mail/messages";
import { ROLE_WORDS } from "~/lib/schemas/team";
import { intlLocale } from "~/lib/intl";
import { notify } from "./notify";
import type { Executor } from "../../infrastructure/db/client";

/**
 * What each product event says in the bell (decision 031): the domain code that sees the event
 * calls one of these, inside its own transaction where it has one, so the notification exists
 * exactly when the change does. Each key names the cause, so a retried webhook or job notifies
 * nobody twice. Titles and bodies are stored as written here, in English (issue 43 leaves them so).
 */

const DECISIONS: Record<string, string> = { APPROVED: "approved", REJECTED: "rejected", PAUSED: "paused", DISABLED: "disabled" };

/** Meta decided a template: approved, rejected (with the reason), paused or disabled. Other events notify nobody. */
export async function notifyTemplateDecision(
  tx: Executor,
  change: { organizationId: string; templateId: string; name: string; event: string; at: string; reason: string | null },
) {
  const decided = DECISIONS[change.event];
  if (!decided) return;
  const body =
    change.event === "APPROVED"
      ? `It can be sent now.`
      : change.event === "REJECTED"
        ? `${change.reason ? `Meta's reason: ${change.reason}. ` : ""}Edit it and submit it again.`
        : change.event === "PAUSED"
          ? "People reported or ignored it. Campaigns sending it are paused until Meta lifts the pause."
          : "It can no longer be sent. Campaigns sending it are paused.";
  await notify(
    {
      organizationId: change.organizationId,
      event: "template_decision",
      title: `Meta ${decided} the template ${change.name}`,
      body,
      link: `/templates?dialog=view&template=${change.templateId}`,
      dedupeKey: `template:${change.templateId}:${change.event}:${change.at}`,
    },
    tx,
  );
}

const what = (kind: string) => (kind === "broadcast" ? "Broadcast" : "Campaign");

/** A campaign paused: by Jumbe (`reason`: a template, the number's quality, Meta's refusal) or by a member (not told of their own act). */
export async function notifyCampaignPaused(
  executor: Executor,
  campaign: { organizationId: string; id: string; name: string; kind: string; createdBy?: string | null },
  pause: { reason?: string | null; by?: string | null; at?: Date },
) {
  const at = pause.at ?? new Date();
  await notify(
    {
      organizationId: campaign.organizationId,
      event: "campaign_paused",
      title: `${what(campaign.kind)} paused: ${campaign.name}`,
      body: pause.reason ?? "A member paused it. Nothing more is sent until it is resumed.",
      link: `/messaging/campaigns/${campaign.id}`,
      dedupeKey: `campaign-paused:${campaign.id}:${at.getTime()}`,
      userIds: [campaign.createdBy],
      excludeUserId: pause.reason ? null : (pause.by ?? null),
    },
    executor,
  );
}

/** A campaign has sent to everyone (once: its key is the campaign): what happened, counted as it finished. */
export async function notifyCampaignFinished(
  executor: Executor,
  campaign: { organizationId: string; id: string; name: string; kind: string; createdBy?: string | null },
  /** What happened, in the campaigns' own words ("1,200 sent, 3 failed..."). */
  outcomeWords: string,
) {
  await notify(
    {
      organizationId: campaign.organizationId,
      event: "campaign_finished",
      title: `${what(campaign.kind)} finished: ${campaign.name}`,
      body: `${outcomeWords}. Failures WhatsApp reports later show on its page, with the results.`,
      link: `/messaging/campaigns/${campaign.id}`,
      dedupeKey: `campaign-finished:${campaign.id}`,
      userIds: [campaign.createdBy],
    },
    executor,
  );
}

/** Meta flagged or downgraded a number's quality. Other quality events notify nobody. */
export async function notifyQualityDrop(
  tx: Executor,
  phone: { organizationId: string; phoneNumberId: string; display: string; event: string; at: string; limit: string | null },
) {
  if (phone.event !== "FLAGGED" && phone.event !== "DOWNGRADE") return;
  await notify(
    {
      organizationId: phone.organizationId,
      event: "quality_drop",
      title: phone.event === "FLAGGED" ? `Quality of ${phone.display} flagged as low` : `Messaging limit of ${phone.display} lowered`,
      body:
        phone.event === "FLAGGED"
          ? "People blocked or reported its messages. Its campaigns are paused: review the template and the audience, then resume."
          : `Meta lowered the number's messaging limit${phone.limit ? ` to ${phone.limit}` : ""} after its quality dropped.`,
      link: "/whatsapp",
      dedupeKey: `quality:${phone.phoneNumberId}:${phone.event}:${phone.at}`,
    },
    tx,
  );
}

/**
 * Webhooks out keep failing: once when the endpoint has failed for an hour with no success, and
 * once when it is disabled after three days (that e-mail keeps its own words). Keyed by the start
 * of the failing spell, so every further failed attempt adds nothing.
 */
export async function notifyWebhookFailing(
  tx: Executor,
  endpoint: { organizationId: string; url: string; failingSince: string; disabled: boolean },
) {
  const mail = endpoint.disabled ? webhookDisabledMail("", endpoint.url) : undefined;
  await notify(
    {
      organizationId: endpoint.organizationId,
      event: "webhook_failing",
      title: endpoint.disabled ? "Webhook endpoint disabled" : "Webhook deliveries are failing",
      body: endpoint.disabled
        ? `No delivery to ${endpoint.url} has succeeded for three days, so Jumbe stopped sending to it. Re-enable it once it answers; the failed events can be redelivered.`
        : `Deliveries to ${endpoint.url} have failed for over an hour. Jumbe keeps retrying for three days, then disables the endpoint.`,
      link: "/developers",
      dedupeKey: `webhook-${endpoint.disabled ? "disabled" : "failing"}:${endpoint.failingSince}`,
      mail: mail ? { subject: mail.subject, text: mail.text } : undefined,
    },
    tx,
  );
}

/** Someone accepted an invitation: the inviter, owners and admins hear of it (not the new member). */
export async function notifyInvitationAccepted(
  tx: Executor,
  joined: {
    organizationId: string;
    invitationId: string;
    userId: string;
    name: string;
    email: string;
    role: OrgRole;
    invitedBy: string | null;
  },
) {
  await notify(
    {
      organizationId: joined.organizationId,
      event: "invitation",
      title: `${joined.name || joined.email} joined the team`,
      body: `${joined.email} accepted the invitation and joined as ${ROLE_WORDS[joined.role]}.`,
      link: "/settings/team",
      dedupeKey: `invitation-accepted:${joined.invitationId}`,
      userIds: [joined.invitedBy],
      excludeUserId: joined.userId,
    },
    tx,
  );
}

/** A member's role changed: they are told (the change applies to their next click). */
export async function notifyRoleChanged(
  executor: Executor | undefined,
  change: { organizationId: string; memberId: string; from: OrgRole; to: OrgRole; by: string; at?: Date },
) {
  const at = change.at ?? new Date();
  await notify(
    {
      organizationId: change.organizationId,
      event: "role_changed",
      title: `Your role is now ${ROLE_WORDS[change.to]}`,
      body: `${change.by} changed your role from ${ROLE_WORDS[change.from]} to ${ROLE_WORDS[change.to]}.`,
      link: "/settings/team",
      dedupeKey: `role:${change.memberId}:${change.to}:${at.getTime()}`,
      userIds: [change.memberId],
      roles: [],
    },
    executor,
  );
}

/** A campaign waits for approval: the owners and admins, but not the member who asked. */
export async function notifyApprovalRequested(
  executor: Executor,
  campaign: { organizationId: string; id: string; name: string; kind: string },
  request: { by?: string | null; recipients: number; at?: Date },
) {
  const at = request.at ?? new Date();
  await notify(
    {
      organizationId: campaign.organizationId,
      event: "approval_requested",
      title: `${what(campaign.kind)} awaiting your approval: ${campaign.name}`,
      body: `It would reach ${request.recipients.toLocaleString(intlLocale("en"))} people. An owner or admin other than its author approves or declines it on its page.`,
      link: `/messaging/campaigns/${campaign.id}`,
      dedupeKey: `approval-requested:${campaign.id}:${at.getTime()}`,
      excludeUserId: request.by ?? null,
    },
    executor,
  );
}

/** An owner or admin approved or declined a campaign: its author is told (not the one who decided). */
export async function notifyApprovalDecided(
  executor: Executor,
  campaign: { organizationId: string; id: string; name: string; kind: string; createdBy?: string | null },
  decision: { by: string; approved: boolean; outcome?: "sending" | "scheduled"; reason?: string },
) {
  await notify(
    {
      organizationId: campaign.organizationId,
      event: "approval_decided",
      title: `${what(campaign.kind)} ${decision.approved ? "approved" : "declined"}: ${campaign.name}`,
      body: decision.approved
        ? decision.outcome === "sending"
          ? "It is sending now."
          : "It will send at its scheduled time."
        : `Reason: ${decision.reason ?? ""}`,
      link: `/messaging/campaigns/${campaign.id}`,
      dedupeKey: `approval-decided:${campaign.id}`,
      userIds: [campaign.createdBy],
      roles: [],
      excludeUserId: decision.by,
    },
    executor,
  );
}
