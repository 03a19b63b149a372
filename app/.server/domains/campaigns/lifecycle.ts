import { sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { isUuid } from "../../infrastructure/db/keyset";
import type {
  CampaignAudience,
  CampaignParameters,
  CampaignSmsFallback,
  LeftOutReason,
  ParameterSource,
} from "../../infrastructure/db/schema/campaigns";
import { checkSmsFallback, type SmsFallbackInput } from "./sms-fallback";
import { recordActivity, momentInWords } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import { attributeDefinitions } from "../contacts";
import {
  prepareTemplate,
  type PreparedTemplate,
  refuseWhileClosing,
  resolveSenderNumber,
  type SenderNumber,
  wakeDispatcher,
} from "../messaging";
import { checkAudience, contactSources, countAudience, freezeAudience, type AudienceCount } from "./audience";
import { estimateSendCost, walletState } from "../billing";
import { campaignNotFound, campaignRefusalOfSend, refuseCampaign } from "./refusals";
import { checkParameterSources } from "./variables";
import { checkCampaignProducts } from "./products";
import { buttonSources, checkButtonSources, checkHeaderMediaFits, headerMediaInput, templateRefusal } from "./template-values";
import { wakeFeeder } from "./wake";
import { leftOutOf } from "./progress";
import { notifyCampaignPaused } from "../notifications";
import { announceApprovalRequest, needsApproval, requestApproval } from "./approval-request";
import type { Actor } from "./actor";
import { isRefusal } from "../../infrastructure/refusal";
import { statusWords } from "~/lib/campaign-live";
import { m } from "~/paraglide/messages";
import { baseLocale, getLocale } from "~/paraglide/runtime";

export const CAMPAIGN_NAME_MAX = 80;
/** How far ahead a campaign may be scheduled. */
export const SCHEDULE_MAX_DAYS = 365;

export type { Actor } from "./actor";

export interface CampaignInput {
  name: string;
  kind?: "campaign" | "broadcast";
  /** A connected number (Meta's id or the number); the tenant's first otherwise. */
  from?: string;
  template: { name: string; language?: string };
  parameters: CampaignParameters;
  audience: CampaignAudience;
  /** When to start: null or absent, now (or a draft, with `draft`). */
  scheduledFor?: Date | null;
  draft?: boolean;
  /** An SMS to whoever WhatsApp cannot reach (decision 152); null or absent: off. */
  smsFallback?: SmsFallbackInput | null;
}

/** A checked campaign, ready to count, store or start: its sender, template, values and audience. */
export interface CheckedCampaign {
  name: string;
  kind: "campaign" | "broadcast";
  sender: SenderNumber;
  template: PreparedTemplate;
  parameters: CampaignParameters;
  audience: CampaignAudience;
  /** The audience's contacts as SQL on `c` (the segment read now, outside any transaction). */
  sources: SQL;
  scheduledFor: Date | null;
  smsFallback: CampaignSmsFallback | null;
}

const sendRefusalAsCampaign = (error: unknown, field: string) => {
  // A closing organisation is the whole form's trouble, not one field's.
  if (isRefusal(error, "send")) return campaignRefusalOfSend(error, error.code === "organization_closing" ? undefined : field);
  return error;
};

/** Checks everything a campaign needs before anyone confirms it; refuses with the field it is about. */
/** `stored`: a saved campaign checked again as it starts (its products are read again at send, not refused now). */
export async function checkCampaign(
  organizationId: string,
  input: CampaignInput,
  now = new Date(),
  options: { stored?: boolean } = {},
): Promise<CheckedCampaign> {
  const name = String(input.name ?? "")
    .replace(/\s+/g, " ")
    .trim();
  if (!name) throw refuseCampaign(422, "invalid_campaign", m.messaging_campaign_name_required(), "name");
  if ([...name].length > CAMPAIGN_NAME_MAX)
    throw refuseCampaign(422, "invalid_campaign", m.messaging_campaign_name_too_long({ max: CAMPAIGN_NAME_MAX }), "name");
  const sender = await resolveSenderNumber(organizationId, input.from).catch((error) => {
    throw sendRefusalAsCampaign(error, "from");
  });
  if (!input.template?.name) throw refuseCampaign(422, "template_not_found", m.messaging_campaign_template_required(), "template");
  const headerMedia = headerMediaInput(input.parameters?.headerMedia);
  const template = await prepareTemplate(organizationId, sender, { ...input.template, header: headerMedia }).catch((error) => {
    throw templateRefusal(error);
  });
  checkHeaderMediaFits(template, headerMedia);
  const parameters = await checkValues(organizationId, template, input.parameters);
  const products = await checkCampaignProducts(organizationId, template, input.parameters?.products, options);
  const audience = await checkAudience(organizationId, input.audience ?? {});
  let scheduledFor: Date | null = null;
  if (input.scheduledFor) {
    const at = new Date(input.scheduledFor);
    if (Number.isNaN(at.getTime())) throw refuseCampaign(422, "invalid_schedule", m.messaging_campaign_schedule_required(), "scheduledFor");
    if (at.getTime() < now.getTime() - 60_000)
      throw refuseCampaign(422, "invalid_schedule", m.messaging_campaign_schedule_past(), "scheduledFor");
    if (at.getTime() > now.getTime() + SCHEDULE_MAX_DAYS * 86_400_000)
      throw refuseCampaign(422, "invalid_schedule", m.messaging_campaign_schedule_too_far({ days: SCHEDULE_MAX_DAYS }), "scheduledFor");
    scheduledFor = at;
  }
  return {
    name,
    kind: input.kind === "broadcast" ? "broadcast" : "campaign",
    sender,
    template,
    parameters: { ...parameters, ...(headerMedia ? { headerMedia } : {}), ...(products ? { products } : {}) },
    audience,
    sources: await contactSources(organizationId, audience),
    scheduledFor,
    smsFallback: await checkSmsFallback(organizationId, input.smsFallback, template),
  };
}

/** The body's, a text header's and the buttons' values, each a known field or a fixed text. */
async function checkValues(organizationId: string, template: PreparedTemplate, given: CampaignParameters | undefined) {
  const definitions = await attributeDefinitions(organizationId);
  const body = checkParameterSources(given?.body ?? [], template.body.count, definitions);
  let header: ParameterSource | undefined;
  if (template.headerTakesText) {
    if (!given?.header) throw refuseCampaign(422, "invalid_parameters", m.messaging_campaign_header_value_required(), "parameters");
    header = checkParameterSources([given.header], 1, definitions, "header")[0];
  }
  const buttons = checkButtonSources(template, given?.buttons, definitions);
  return { body, ...(header ? { header } : {}), ...(buttons.length ? { buttons } : {}) };
}

export const rulesOf = (organizationId: string, checked: CheckedCampaign) => ({
  organizationId,
  marketing: checked.template.category === "marketing",
  parameters: [
    ...checked.parameters.body,
    ...(checked.parameters.header ? [checked.parameters.header] : []),
    ...buttonSources(checked.parameters.buttons),
  ],
});

/** What confirming would do: who receives it, who is left out and why, and the estimated cost in KES. */
export async function estimateCampaign(organizationId: string, checked: CheckedCampaign) {
  const count = await countAudience(rulesOf(organizationId, checked), checked.audience, checked.sources);
  // What the organisation's plan charges for it (decision 035), not Meta's rates.
  const cost = await estimateSendCost(db(), organizationId, count.recipients);
  return {
    ...count,
    estimatedCostCents: cost.totalCents,
    perMessageKes: cost.perMessageKes,
    includedLeft: cost.includedLeft,
    billingType: cost.billingType,
  };
}

/**
 * What a prepaid wallet can pay now (its balance less what queued messages hold), beside an
 * estimate: the review warns before confirming a send the wallet cannot cover. Null when postpaid.
 */
export async function walletAvailableCents(organizationId: string, estimate: { billingType: string }): Promise<number | null> {
  if (estimate.billingType !== "prepaid") return null;
  return (await walletState(db(), organizationId)).availableCents;
}

/**
 * Stores a checked campaign: a draft, scheduled for its time, or started at once (its audience
 * frozen in the same transaction). Refuses one that would reach nobody, unless it is a draft. With
 * broadcast approval on, one above the threshold waits for approval instead (approval.ts).
 */
export async function createCampaign(actor: Actor, input: CampaignInput, now = new Date()) {
  return (await confirmCampaign(actor, input, now)).id;
}

export type ConfirmedStatus = "draft" | "scheduled" | "sending" | "awaiting_approval";

/** createCampaign, answering the status the campaign got too (the page's message says what happened). */
export async function confirmCampaign(
  actor: Actor,
  input: CampaignInput,
  now = new Date(),
): Promise<{ id: string; status: ConfirmedStatus }> {
  const checked = await checkCampaign(actor.organizationId, input, now);
  const estimate = await estimateCampaign(actor.organizationId, checked);
  if (!input.draft && estimate.recipients === 0)
    throw refuseCampaign(422, "empty_audience", m.messaging_campaign_audience_empty(), "audience");
  const planned = input.draft ? "draft" : checked.scheduledFor && checked.scheduledFor > now ? "scheduled" : "sending";
  const { id, status, recipients, threshold } = await db().transaction(async (tx) => {
    const rows = await queryRows<{ id: string }>(
      tx,
      sql`
      insert into campaigns (organization_id, kind, name, status, phone_number_id, template_name, template_language, template_category,
                             parameters, audience, segment_id, scheduled_for, estimated_cost_cents, created_by, api_key_id, sms_fallback)
      values (${actor.organizationId}, ${checked.kind}, ${checked.name}, ${planned === "sending" ? "scheduled" : planned},
              ${checked.sender.phoneNumberId}, ${checked.template.name}, ${checked.template.language},
              ${checked.template.category.toUpperCase()}, ${JSON.stringify(checked.parameters)}::jsonb,
              ${JSON.stringify(checked.audience)}::jsonb, ${checked.audience.segmentId ?? null},
              ${checked.scheduledFor?.toISOString() ?? null}::timestamptz, ${estimate.estimatedCostCents}, ${actor.userId ?? null},
              ${actor.apiKeyId ?? null}, ${checked.smsFallback ? JSON.stringify(checked.smsFallback) : null}::jsonb)
      returning id`,
    );
    const campaignId = rows[0]!.id;
    if (planned === "sending") {
      // Started now: the frozen audience is what the approval compares.
      const started = await startInTransaction(tx, actor.organizationId, campaignId, checked);
      return { id: campaignId, status: started.status, recipients: started.recipients, threshold: started.threshold };
    }
    if (planned === "scheduled") {
      // Scheduled: counted now with the engine's rules; its start compares the frozen count again.
      const approval = await needsApproval(tx, actor.organizationId, estimate.recipients);
      if (approval.waits) await requestApproval(tx, campaignId);
      const status: ConfirmedStatus = approval.waits ? "awaiting_approval" : "scheduled";
      return { id: campaignId, status, recipients: estimate.recipients, threshold: approval.threshold };
    }
    return { id: campaignId, status: planned as ConfirmedStatus, recipients: estimate.recipients, threshold: null };
  });
  const what = checked.kind === "broadcast" ? "Broadcast" : "Campaign";
  const at = planned === "scheduled" ? await momentInWords(actor.organizationId, checked.scheduledFor!) : null;
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "message",
    status: "success",
    action:
      status === "draft"
        ? `${what} saved as draft`
        : planned === "scheduled"
          ? `${what} scheduled`
          : status === "awaiting_approval"
            ? `${what} confirmed`
            : `${what} started`,
    // The moment is the organisation's own time as momentInWords writes it (English), kept as data.
    details: englishOf(
      at
        ? words(recipients === 1 ? "app_activity_detail_campaign_to_one_on" : "app_activity_detail_campaign_to_other_on", {
            name: checked.name,
            template: checked.template.name,
            count: recipients,
            at,
          })
        : words(recipients === 1 ? "app_activity_detail_campaign_to_one" : "app_activity_detail_campaign_to_other", {
            name: checked.name,
            template: checked.template.name,
            count: recipients,
          }),
    ),
    meta: actor.meta,
  });
  if (status === "awaiting_approval")
    await announceApprovalRequest(actor, { id, kind: checked.kind, name: checked.name }, recipients, threshold);
  if (status === "sending") wakeFeeder();
  return { id, status };
}

/**
 * Freezes the audience and marks the campaign sending (inside the caller's transaction), or, when
 * broadcast approval is on and the frozen recipients are above the threshold (and it has not been
 * approved), awaiting approval with its audience frozen: approving it then sends exactly those.
 */
async function startInTransaction(
  tx: Executor,
  organizationId: string,
  campaignId: string,
  checked: CheckedCampaign,
): Promise<AudienceCount & { status: "sending" | "awaiting_approval"; threshold: number | null }> {
  const frozen = await freezeAudience(tx, campaignId, rulesOf(organizationId, checked), checked.audience, checked.sources);
  await tx.execute(sql`
    update campaigns set status = 'sending', started_at = now(), updated_at = now(), audience_size = ${frozen.total},
           left_out = ${JSON.stringify(frozen.leftOut)}::jsonb,
           estimated_cost_cents = ${(await estimateSendCost(tx, organizationId, frozen.recipients)).totalCents}
    where id = ${campaignId}`);
  const approval = await needsApproval(tx, organizationId, frozen.recipients, campaignId);
  if (approval.waits) await requestApproval(tx, campaignId);
  return { ...frozen, status: approval.waits ? "awaiting_approval" : "sending", threshold: approval.threshold };
}

export interface StoredCampaign {
  id: string;
  organization_id: string;
  kind: "campaign" | "broadcast";
  name: string;
  status: string;
  phone_number_id: string;
  template_name: string;
  template_language: string;
  parameters: CampaignParameters;
  audience: CampaignAudience;
  scheduled_for: string | Date | null;
  started_at: string | Date | null;
  /** Its author (null for one made through the API), and the frozen audience (null before it started). */
  created_by?: string | null;
  /** The API key it was made with (null for a member's). */
  api_key_id?: string | null;
  audience_size?: number | null;
}

/**
 * Checks a stored campaign again before it starts (a scheduled one whose time has come, a paused one
 * that never started): the number, template and audience may have changed since it was saved. Reads
 * outside any transaction; the start itself is startChecked inside one.
 */
export function recheckCampaign(stored: StoredCampaign) {
  return checkCampaign(
    stored.organization_id,
    {
      name: stored.name,
      kind: stored.kind,
      from: stored.phone_number_id,
      template: { name: stored.template_name, language: stored.template_language },
      parameters: stored.parameters,
      audience: stored.audience,
    },
    new Date(),
    { stored: true },
  );
}

/** Starts a re-checked campaign inside the caller's transaction (which holds its row). */
export function startChecked(tx: Executor, stored: StoredCampaign, checked: CheckedCampaign) {
  return startInTransaction(tx, stored.organization_id, stored.id, checked);
}

export async function readStoredCampaign(executor: Executor, organizationId: string, id: string, lock: boolean) {
  if (!isUuid(id)) throw campaignNotFound();
  const rows = await queryRows<StoredCampaign>(
    executor,
    sql`select * from campaigns where organization_id = ${organizationId} and id = ${id}${lock ? sql` for update` : sql``}`,
  );
  const row = rows[0];
  if (!row) throw campaignNotFound();
  return row;
}

const label = (row: { kind: string }) => (row.kind === "broadcast" ? "Broadcast" : "Campaign");

/** Why a campaign in this state cannot be paused, resumed or cancelled, said for its kind. */
function stateRefusal(row: { kind: string; status: string }, asked: "pause" | "resume" | "ended") {
  // English names the status as stored ("awaiting_approval"); another language says it in words.
  const state = getLocale() === baseLocale ? row.status : statusWords(row.status).toLowerCase();
  const broadcast = row.kind === "broadcast";
  if (asked === "pause")
    return broadcast ? m.messaging_campaign_cannot_pause_broadcast({ state }) : m.messaging_campaign_cannot_pause_campaign({ state });
  if (asked === "resume")
    return broadcast ? m.messaging_campaign_cannot_resume_broadcast({ state }) : m.messaging_campaign_cannot_resume_campaign({ state });
  return broadcast ? m.messaging_campaign_ended_broadcast({ state }) : m.messaging_campaign_ended_campaign({ state });
}

/** "Campaign paused", "Broadcast resumed"… in the tenant's activity log: by the actor, or by Jumbe for `reason`. */
function recordCampaignEvent(actor: Actor, row: { kind: string; name: string }, verb: string, reason?: string) {
  return recordActivity({
    organizationId: actor.organizationId,
    userId: reason ? null : actor.userId,
    type: "message",
    status: reason ? "warning" : "success",
    action: `${label(row)} ${verb}`,
    // Jumbe's reason is stored English (the feeder's), read back in the log's reader's language.
    details: reason ? englishOf(words("app_activity_detail_campaign_reason", { name: row.name, reason })) : `${row.name}.`,
    meta: actor.meta,
  });
}

/**
 * Pauses a scheduled or sending campaign: no new message leaves after the ones already in
 * Meta's hands (the messages waiting are held back at once). `reason` is Jumbe's own when it pauses.
 */
export async function pauseCampaign(actor: Actor, id: string, reason?: string) {
  const row = await db().transaction(async (tx) => {
    const stored = await readStoredCampaign(tx, actor.organizationId, id, true);
    if (stored.status !== "sending" && stored.status !== "scheduled")
      throw refuseCampaign(409, "campaign_state", stateRefusal(stored, "pause"));
    await tx.execute(sql`
      update campaigns set status = 'paused', paused_reason = ${reason ?? null}, paused_by = ${reason ? null : (actor.userId ?? null)}, updated_at = now()
      where id = ${stored.id}`);
    await holdQueuedMessages(tx, stored.id);
    await notifyCampaignPaused(
      tx,
      { organizationId: actor.organizationId, id: stored.id, name: stored.name, kind: stored.kind, createdBy: stored.created_by },
      { reason, by: actor.userId },
    );
    return stored;
  });
  await recordCampaignEvent(actor, row, "paused", reason);
}

/** The campaign's messages still waiting to leave are held back: not due until it resumes. */
export async function holdQueuedMessages(executor: Executor, campaignId: string) {
  await executor.execute(sql`
    update messages set next_attempt_at = 'infinity'
    where campaign_id = ${campaignId} and accepted_at is null and failed_at is null and next_attempt_at <> 'infinity'
      and (locked_until is null or locked_until < now())`);
}

/** Resumes a paused campaign: sending again (or scheduled, if it never started and its time is ahead). */
export async function resumeCampaign(actor: Actor, id: string) {
  const before = await readStoredCampaign(db(), actor.organizationId, id, false);
  // One that never started starts now: checked again first (outside the transaction).
  const starts = before.status === "paused" && !before.started_at && !(before.scheduled_for && new Date(before.scheduled_for) > new Date());
  const checked = starts ? await recheckCampaign(before) : null;
  // One that started goes on where it stopped, unless its organisation is closing (the feeder would pause it again).
  if (!checked) await refuseWhileClosing(actor.organizationId).catch((error) => Promise.reject(sendRefusalAsCampaign(error, "")));
  const row = await db().transaction(async (tx) => {
    const stored = await readStoredCampaign(tx, actor.organizationId, id, true);
    if (stored.status !== "paused") throw refuseCampaign(409, "campaign_state", stateRefusal(stored, "resume"));
    await tx.execute(sql`update campaigns set paused_reason = null, paused_by = null where id = ${stored.id}`);
    if (checked && !stored.started_at) {
      const started = await startChecked(tx, stored, checked);
      if (started.status === "awaiting_approval") return { stored, waits: started };
    } else {
      const next = stored.started_at ? "sending" : "scheduled";
      await tx.execute(sql`update campaigns set status = ${next}, updated_at = now() where id = ${stored.id}`);
      await tx.execute(sql`
        update messages set next_attempt_at = now()
        where campaign_id = ${stored.id} and accepted_at is null and failed_at is null and next_attempt_at = 'infinity'`);
    }
    return { stored, waits: null };
  });
  await recordCampaignEvent(actor, row.stored, "resumed");
  // Starting now, it reaches more people than the approval threshold: it waits for approval instead.
  if (row.waits) await announceApprovalRequest(actor, row.stored, row.waits.recipients, row.waits.threshold);
  wakeFeeder();
  wakeDispatcher();
}

/**
 * Cancels a campaign that has not ended: whoever has not been sent to is left out ("cancelled");
 * the messages already with Meta keep their statuses. A draft is simply cancelled.
 */
export async function cancelCampaign(actor: Actor, id: string) {
  const row = await db().transaction(async (tx) => {
    const stored = await readStoredCampaign(tx, actor.organizationId, id, true);
    if (["completed", "cancelled", "failed"].includes(stored.status))
      throw refuseCampaign(409, "campaign_state", stateRefusal(stored, "ended"));
    // Its figures counted again by the next reader: the end moves them (decision 049).
    await tx.execute(
      sql`update campaigns set status = 'cancelled', finished_at = now(), updated_at = now(), counted_at = null where id = ${stored.id}`,
    );
    await withdrawUnsent(tx, stored.id);
    await refreshLeftOut(tx, stored.id);
    return stored;
  });
  await recordCampaignEvent(actor, row, "cancelled");
}

/** A cancelled campaign's messages that have not left are withdrawn, and their people (and the pending) left out. */
export async function withdrawUnsent(executor: Executor, campaignId: string) {
  await executor.execute(sql`
    with withdrawn as (
      delete from messages
      where campaign_id = ${campaignId} and accepted_at is null and failed_at is null and (locked_until is null or locked_until < now())
      returning id)
    update campaign_recipients r set state = 'left_out', reason = ${"cancelled" satisfies LeftOutReason}, message_id = null
    from withdrawn w where r.message_id = w.id`);
  await executor.execute(sql`
    update campaign_recipients set state = 'left_out', reason = ${"cancelled" satisfies LeftOutReason}
    where campaign_id = ${campaignId} and state = 'pending'`);
}

/**
 * The campaign's left-out figures from its recipient rows (those left out later too: cancelled,
 * erased before their turn, a STOP in between), keeping the duplicates counted at the start.
 */
export async function refreshLeftOut(executor: Executor, campaignId: string) {
  await executor.execute(sql`
    update campaigns c set left_out = ${sql.raw(leftOutOf("c.id"))} || jsonb_strip_nulls(jsonb_build_object('duplicate', c.left_out -> 'duplicate'))
    where c.id = ${campaignId}`);
}
