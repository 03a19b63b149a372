import type { OrgRole } from "../../infrastructure/db/schema";
import { storedMessageOf } from "./stored-words";
import { notify, NOTIFICATION_CHANNEL } from "./notify";
import { inEnglish } from "./words";
import { sql } from "drizzle-orm";
import { queryRows } from "../../infrastructure/db/query";
import { words, type Message, type MessageKey, type Said } from "../../infrastructure/words/said";
import type { Executor } from "../../infrastructure/db/client";

/**
 * What each product event says in the bell (decision 031): the domain code that sees the event
 * calls one of these, inside its own transaction where it has one, so the notification exists
 * exactly when the change does. Each key names the cause, so a retried webhook or job notifies
 * nobody twice. What each says is kept as messages and inputs (words.ts), said in each reader's
 * language when shown, with its English stored beside them.
 */

const DECISIONS: Record<string, { title: MessageKey; body: MessageKey }> = {
  APPROVED: { title: "app_notice_template_approved_title", body: "app_notice_template_approved_body" },
  REJECTED: { title: "app_notice_template_rejected_title", body: "app_notice_template_rejected_body" },
  PAUSED: { title: "app_notice_template_paused_title", body: "app_notice_template_paused_body" },
  DISABLED: { title: "app_notice_template_disabled_title", body: "app_notice_template_disabled_body" },
};

const ROLE_MESSAGES: Record<OrgRole, MessageKey> = {
  owner: "validation_role_owner",
  admin: "validation_role_admin",
  agent: "validation_role_agent",
  viewer: "validation_role_viewer",
};

/** A role's name as a message, said in the reader's language with the sentence around it. */
const roleWords = (role: OrgRole): Message => words(ROLE_MESSAGES[role]);

/** Meta decided a template: approved, rejected (with the reason), paused or disabled. Other events notify nobody. */
export async function notifyTemplateDecision(
  tx: Executor,
  change: { organizationId: string; templateId: string; name: string; event: string; at: string; reason: string | null },
) {
  const decided = DECISIONS[change.event];
  if (!decided) return;
  // Meta's reason is Meta's own text: kept as Meta wrote it, inside the reader's sentence.
  const body =
    change.event === "REJECTED" && change.reason
      ? words("app_notice_template_rejected_reason_body", { reason: change.reason })
      : words(decided.body);
  await notify(
    {
      organizationId: change.organizationId,
      event: "template_decision",
      words: { title: words(decided.title, { name: change.name }), body },
      link: `/templates?dialog=view&template=${change.templateId}`,
      dedupeKey: `template:${change.templateId}:${change.event}:${change.at}`,
    },
    tx,
  );
}

/**
 * A campaign's title message, by its kind: a broadcast has its own sentence rather than its name as
 * an input, since Swahili agrees the verb with the noun ("kampeni imesitishwa", "tangazo limesitishwa").
 */
const byKind = (kind: string, campaign: MessageKey, broadcast: MessageKey, name: string) =>
  words(kind === "broadcast" ? broadcast : campaign, { name });

/**
 * A pause reason in messages: Jumbe's own sentences (stored in English on the campaign, see
 * stored-words.ts) become the message they are, so each reader gets them in their language; any
 * other text (Meta's, a provider's) is kept as written.
 */
export function pauseReasonWords(reason: string): Said {
  return storedMessageOf(reason) ?? reason;
}

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
      words: {
        title: byKind(campaign.kind, "app_notice_campaign_paused_title", "app_notice_broadcast_paused_title", campaign.name),
        body: pause.reason ? pauseReasonWords(pause.reason) : words("app_notice_paused_by_member_body"),
      },
      link: `/messaging/campaigns/${campaign.id}`,
      dedupeKey: `campaign-paused:${campaign.id}:${at.getTime()}`,
      userIds: [campaign.createdBy],
      excludeUserId: pause.reason ? null : (pause.by ?? null),
    },
    executor,
  );
}

type FinishedCampaign = { organizationId: string; id: string; name: string; kind: string; createdBy?: string | null };

const finishedTitle = (campaign: FinishedCampaign) =>
  byKind(campaign.kind, "app_notice_campaign_finished_title", "app_notice_broadcast_finished_title", campaign.name);
const finishedKey = (campaignId: string) => `campaign-finished:${campaignId}`;

/** A campaign has sent to everyone (once: its key is the campaign): what happened, counted as it finished. */
export async function notifyCampaignFinished(
  executor: Executor,
  campaign: FinishedCampaign,
  /** What happened, in messages ("1,200 sent, 3 failed...": outcome.ts's outcomeWords). */
  outcome: Said,
) {
  await notify(
    {
      organizationId: campaign.organizationId,
      event: "campaign_finished",
      words: { title: finishedTitle(campaign), body: words("app_notice_finished_body", { outcome }) },
      link: `/messaging/campaigns/${campaign.id}`,
      dedupeKey: finishedKey(campaign.id),
      userIds: [campaign.createdBy],
    },
    executor,
  );
}

/**
 * Failures Meta reported after the campaign finished (decision 114): its "finished" notification,
 * for everyone who has it, says the outcome as it is now, with how many of the failures came after
 * the end, and is unread again (the bells that are open are told, when the transaction commits).
 * The same row, not a second one: the bell holds one line a campaign, and nothing is counted twice.
 * Answers how many members' notifications changed.
 */
export async function retellCampaignFinished(
  executor: Executor,
  campaign: FinishedCampaign,
  /** What happened, counted now (outcome.ts's outcomeWords). */
  outcome: Said,
  /** How many of the failures Meta reported after it finished. */
  failedLater: number,
): Promise<number> {
  const said = { title: finishedTitle(campaign), body: words("app_notice_finished_later_body", { outcome, count: failedLater }) };
  const { title, body } = inEnglish(said);
  const rows = await queryRows<{ n: number }>(
    executor,
    sql`
    with changed as (
      update notifications set title = ${title.slice(0, 200)}, body = ${body.slice(0, 2000)}, words = ${JSON.stringify(said)}::jsonb,
             read_at = null
      where organization_id = ${campaign.organizationId} and event = 'campaign_finished' and dedupe_key = ${finishedKey(campaign.id)}
      returning user_id
    )
    select count(pg_notify(${NOTIFICATION_CHANNEL}, user_id::text))::int as n from changed`,
  );
  return Number(rows[0]?.n ?? 0);
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
      words:
        phone.event === "FLAGGED"
          ? {
              title: words("app_notice_quality_flagged_title", { number: phone.display }),
              body: words("app_notice_quality_flagged_body"),
            }
          : {
              title: words("app_notice_limit_lowered_title", { number: phone.display }),
              // Meta's tier (TIER_1K...) as Meta names it.
              body: phone.limit
                ? words("app_notice_limit_lowered_to_body", { limit: phone.limit })
                : words("app_notice_limit_lowered_body"),
            },
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
  await notify(
    {
      organizationId: endpoint.organizationId,
      event: "webhook_failing",
      words: endpoint.disabled
        ? {
            title: words("app_notice_webhook_disabled_title"),
            body: words("app_notice_webhook_disabled_body", { url: endpoint.url }),
          }
        : {
            title: words("app_notice_webhook_failing_title"),
            body: words("app_notice_webhook_failing_body", { url: endpoint.url }),
          },
      link: "/developers",
      dedupeKey: `webhook-${endpoint.disabled ? "disabled" : "failing"}:${endpoint.failingSince}`,
      mail: endpoint.disabled ? { kind: "webhook_disabled", url: endpoint.url } : undefined,
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
      words: {
        title: words("app_notice_joined_title", { name: joined.name || joined.email }),
        body: words("app_notice_joined_body", { email: joined.email, role: roleWords(joined.role) }),
      },
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
      words: {
        title: words("app_notice_role_title", { role: roleWords(change.to) }),
        body: words("app_notice_role_body", { by: change.by, from: roleWords(change.from), to: roleWords(change.to) }),
      },
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
      words: {
        title: byKind(campaign.kind, "app_notice_campaign_approval_title", "app_notice_broadcast_approval_title", campaign.name),
        // The count stays a number: grouped as each reader's language groups it ("1,234", "1 234").
        body: words("app_notice_approval_body", { count: request.recipients }),
      },
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
      words: {
        title: decision.approved
          ? byKind(campaign.kind, "app_notice_campaign_approved_title", "app_notice_broadcast_approved_title", campaign.name)
          : byKind(campaign.kind, "app_notice_campaign_declined_title", "app_notice_broadcast_declined_title", campaign.name),
        body: decision.approved
          ? words(decision.outcome === "sending" ? "app_notice_approved_sending_body" : "app_notice_approved_scheduled_body")
          : words("app_notice_declined_body", { reason: decision.reason ?? "" }),
      },
      link: `/messaging/campaigns/${campaign.id}`,
      dedupeKey: `approval-decided:${campaign.id}`,
      userIds: [campaign.createdBy],
      roles: [],
      excludeUserId: decision.by,
    },
    executor,
  );
}
