import { productsAtSend } from "./products";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { databaseIsDown, noteDatabaseError } from "../../infrastructure/db/availability";
import { outageBackoffMs } from "../../infrastructure/jobs/worker";
import { createIdler } from "../../infrastructure/jobs/idle";
import { log } from "../../infrastructure/log";
import { recordActivity } from "../activity";
import type { CampaignParameters } from "../../infrastructure/db/schema/campaigns";
import { prepareTemplate, summaryOf, resolveSenderNumber, wakeDispatcher } from "../messaging";
import {
  holdQueuedMessages,
  pauseCampaign,
  recheckCampaign,
  refreshLeftOut,
  startChecked,
  withdrawUnsent,
  type CheckedCampaign,
  type StoredCampaign,
} from "./lifecycle";
import { finalCounts, refreshSendingFigures } from "./progress";
import { campaignOutcome, outcomeWords } from "./outcome";
import { keepFinishedOutcome } from "./late-failures";
import { englishOf, words } from "../../infrastructure/words/said";
import { parameterValue } from "./variables";
import { buttonValues } from "./template-values";
import { onFeederWake } from "./wake";
import { notifyCampaignFinished } from "../notifications";
import { announceApprovalRequest } from "./approval-request";
import { chargeColumns, holdForQueued, sendPrice, WALLET_EMPTY_PAUSE } from "../billing";
import { isRefusal, type Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";
import { baseLocale } from "~/paraglide/runtime";

/**
 * Seconds of the number's rate kept queued ahead of the dispatcher: enough that it never waits for
 * the feeder, little enough that a pause holds back a few hundred messages, not a whole campaign.
 */
export const LEAD_SECONDS = 2;
const LEAD_MIN = 50;
/** Recipients turned into messages per transaction. */
const FEED_BATCH = 1000;

/** One round: starts what is due, tops up each sending campaign's queue, holds paused ones, ends finished ones. */
export async function feedCampaigns() {
  const started = await startDueCampaigns();
  await holdStoppedCampaigns();
  const sending = await rawQuery<{ id: string; organization_id: string }>(
    `select id, organization_id from campaigns where status = 'sending' order by updated_at limit 100`,
  );
  let fed = 0;
  let completed = 0;
  for (const { id, organization_id: organizationId } of sending) {
    try {
      const result = await feedCampaign(id);
      fed += result.fed;
      if (result.walletEmpty) {
        await pauseCampaign({ organizationId }, id, WALLET_EMPTY_PAUSE).catch((refusal) => {
          if (!isRefusal(refusal, "campaign")) throw refusal;
        });
        continue;
      }
      if (result.done && (await completeCampaign(id))) completed++;
    } catch (error) {
      // The number was disconnected, Meta refuses the token, the template is no longer approved:
      // the campaign pauses itself and says why; the tenant resumes it once it is put right.
      if (!isRefusal(error, "send")) throw error;
      await pauseCampaign({ organizationId }, id, error.message).catch((refusal) => {
        if (!isRefusal(refusal, "campaign")) throw refusal;
      });
    }
  }
  if (fed) wakeDispatcher();
  // The figures pages and the live stream show, counted here rather than while a page waits.
  if (sending.length) await refreshSendingFigures();
  return { started, fed, completed };
}

/** Scheduled campaigns whose time has come: each checked again and started (audience frozen), or failed with why. */
async function startDueCampaigns() {
  let started = 0;
  const due = await rawQuery<StoredCampaign>(
    `select * from campaigns where status = 'scheduled' and scheduled_for <= now() order by scheduled_for limit 20`,
  );
  for (const candidate of due) {
    let checked: CheckedCampaign | null = null;
    let refusal: Refusal | null = null;
    try {
      checked = await recheckCampaign(candidate);
    } catch (error) {
      if (!isRefusal(error, "campaign")) throw error;
      refusal = error;
    }
    const result = await db().transaction(async (tx) => {
      // Another instance may have started it meanwhile, or someone paused or cancelled it.
      const rows = await queryRows<StoredCampaign>(
        tx,
        sql`
        select * from campaigns where id = ${candidate.id} and status = 'scheduled' and scheduled_for <= now()
        for update skip locked`,
      );
      const row = rows[0];
      if (!row) return null;
      if (checked) return { row, start: await startChecked(tx, row, checked) };
      await tx.execute(sql`
          update campaigns set status = 'failed', notice = ${refusal!.message}, finished_at = now(), updated_at = now(), counted_at = null
          where id = ${row.id}`);
      return { row, start: null };
    });
    if (!result) continue;
    const campaign = result.row;
    const what = campaign.kind === "broadcast" ? "Broadcast" : "Campaign";
    // Its frozen audience is above the approval threshold (it grew, or approval was turned on since): it waits.
    if (result.start?.status === "awaiting_approval") {
      await announceApprovalRequest(
        { organizationId: campaign.organization_id, userId: null },
        campaign,
        result.start.recipients,
        result.start.threshold,
      );
      continue;
    }
    await recordActivity({
      organizationId: campaign.organization_id,
      type: "message",
      status: refusal ? "error" : "success",
      action: refusal ? `${what} failed to start` : `${what} started`,
      // The refusal's words are English here (no reader's request): the log reads them back as the checks' messages.
      details: englishOf(
        refusal
          ? words("app_activity_detail_campaign_reason", { name: campaign.name, reason: refusal.message })
          : words("app_activity_detail_started_as_scheduled", { name: campaign.name }),
      ),
    });
    if (!refusal) started++;
  }
  return started;
}

/** Paused and cancelled campaigns of the last minutes: a message a worker put back after the pause is held too. */
async function holdStoppedCampaigns() {
  const stopped = await rawQuery<{ id: string; status: string }>(
    `select id, status from campaigns where status in ('paused', 'cancelled') and updated_at > now() - interval '5 minutes'`,
  );
  for (const campaign of stopped) {
    if (campaign.status === "paused") await holdQueuedMessages(db(), campaign.id);
    else await db().transaction((tx) => withdrawUnsent(tx, campaign.id));
  }
}

interface Pending {
  /** A bigint: text from PostgreSQL's driver, a number from PGlite's. */
  id: string | number;
  phone: string;
  contact_id: string | null;
  name: string | null;
  attributes: Record<string, unknown> | null;
  opt_in: string | null;
}

interface FeedCampaignRow {
  id: string;
  organization_id: string;
  kind: string;
  status: string;
  phone_number_id: string;
  template_name: string;
  template_language: string;
  template_category: string;
  parameters: CampaignParameters;
}

/** One recipient's body, header and button values; null when one would be empty (they are left out). */
function recipientValues(sources: CampaignParameters, recipient: Pending) {
  const fields = { name: recipient.name, phone: recipient.phone, attributes: recipient.attributes };
  const parameters = sources.body.map((source) => parameterValue(source, fields));
  const headerText = sources.header ? parameterValue(sources.header, fields) : undefined;
  const buttons = buttonValues(sources.buttons, fields);
  if (parameters.some((p) => !p) || headerText === "" || buttons.some((b) => !b.value)) return null;
  return { parameters, headerText, buttons };
}

/**
 * Tops up one sending campaign's queue to LEAD_SECONDS of its number's rate: the next pending
 * recipients become queued messages in one transaction with their rows, so none is sent twice or
 * skipped whatever crashes. Several instances share a campaign: each takes rows the others have not
 * locked. The campaign row is share-locked, so a pause waits for the batch and then holds it.
 */
// long: one transaction under the campaign's share lock: recipients locked, messages queued, rows marked; its steps must see the same locked rows
export async function feedCampaign(campaignId: string): Promise<{ fed: number; done: boolean; walletEmpty?: boolean }> {
  const [known] = await rawQuery<FeedCampaignRow>(`select * from campaigns where id = $1 and status = 'sending'`, [campaignId]);
  if (!known) return { fed: 0, done: false };
  // The number and template, read before the transaction (PGlite has one connection).
  const sender = await resolveSenderNumber(known.organization_id, known.phone_number_id);
  const template = await prepareTemplate(known.organization_id, sender, {
    name: known.template_name,
    language: known.template_language,
    header: known.parameters.headerMedia,
  });
  // A catalog or multi-product template's products as the catalogue holds them now (decision 146).
  const products = await productsAtSend(known.organization_id, template, known.parameters.products);
  // The notice is written after the batch commits: updating the share-locked row inside would deadlock two feeders.
  let noticeNow: string | null | undefined;
  let walletEmpty = false;
  // long: the feeder's transaction: recipients locked, messages queued, rows marked, under the campaign's share lock, each step on the rows the one before locked
  const outcome = await db().transaction(async (tx) => {
    const campaign = await queryRow<FeedCampaignRow>(
      tx,
      sql`select * from campaigns where id = ${campaignId} and status = 'sending' for share`,
    );
    if (!campaign) return { fed: 0, done: false };
    // One pass over the campaign's waiting messages for both counts (the partial index keeps entries
    // of sent messages until a vacuum, so each pass costs more than the few it counts).
    const [state] = await queryRows<{ waiting: number; limited: number; rate: number }>(
      tx,
      sql`
        select w.waiting, w.limited,
               coalesce((select rate from sending_buckets where phone_number_id = ${campaign.phone_number_id}), 80) as rate
        from (select count(*)::int as waiting, (count(*) filter (where error_title = 'messaging_limit_reached'))::int as limited
              from messages where campaign_id = ${campaignId} and accepted_at is null and failed_at is null) w`,
    );
    const { waiting, limited, rate } = state!;
    // Stored as Jumbe says it (English: the feeder runs outside any request); the page says it in the reader's language.
    const notice = limited
      ? limited === 1
        ? m.messaging_notice_limit_one({ count: limited }, { locale: baseLocale })
        : m.messaging_notice_limit_other({ count: limited }, { locale: baseLocale })
      : null;
    noticeNow = notice;
    const room = Math.min(FEED_BATCH, Math.max(LEAD_MIN, rate * LEAD_SECONDS) - waiting);
    if (room <= 0) return { fed: 0, done: false };
    const pending = await queryRows<Pending>(
      tx,
      sql`
        select r.id, r.phone, r.contact_id, c.name, c.attributes, c.opt_in
        from campaign_recipients r left join contacts c on c.id = r.contact_id
        where r.campaign_id = ${campaignId} and r.state = 'pending'
        order by r.id limit ${room} for update of r skip locked`,
    );
    if (!pending.length) {
      const [left] = await queryRows<{ more: boolean }>(
        tx,
        sql`select exists (select 1 from campaign_recipients where campaign_id = ${campaignId} and state = 'pending') as more`,
      );
      return { fed: 0, done: waiting === 0 && !left!.more };
    }
    const marketing = campaign.template_category.toLowerCase() === "marketing";
    const send: { recipient: Pending; graph: Record<string, unknown>; body: string }[] = [];
    const leftOut: { id: string | number; reason: string }[] = [];
    for (const recipient of pending) {
      // Their consent may have changed since the start: a STOP in between is honoured.
      if (marketing && recipient.contact_id && recipient.opt_in !== "opted_in") {
        leftOut.push({ id: recipient.id, reason: "not_opted_in" });
        continue;
      }
      if (products === null) {
        leftOut.push({ id: recipient.id, reason: "no_products" });
        continue;
      }
      const values = recipientValues(campaign.parameters, recipient);
      if (!values) {
        leftOut.push({ id: recipient.id, reason: "missing_value" });
        continue;
      }
      const { parameters } = values;
      const composed = template.compose(recipient.phone, { ...values, products });
      send.push({
        recipient,
        graph: composed.graph,
        body: summaryOf({ kind: "template", template: { name: template.name, parameters } }).slice(0, 4096),
      });
    }
    // A prepaid wallet holds the messages' prices now: as many as it covers go; with none, the campaign pauses itself.
    const price = await sendPrice(tx, campaign.organization_id);
    const charge = chargeColumns(price);
    if (send.length) {
      const affordable = await holdForQueued(tx, price, {
        organizationId: campaign.organization_id,
        count: send.length,
        campaignId,
        description: `${send.length} message${send.length === 1 ? "" : "s"} of a ${campaign.kind} queued`,
      });
      if (affordable < send.length) {
        send.splice(affordable);
        if (!affordable) walletEmpty = true;
      }
    }
    if (send.length) {
      const inserted = await queryRows<{ id: string; recipient_phone: string }>(
        tx,
        sql`
          insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload,
                                source, recipient_phone, template_id, next_attempt_at, pricing_category, campaign_id, price_cents, charge_state)
          select ${campaign.organization_id}, m.contact_id, 'outbound', 'queued', m.body, ${campaign.phone_number_id}, 'template',
                 m.payload, ${campaign.kind}, m.phone, ${template.templateId}, now(), ${template.category}, ${campaignId},
                 ${charge.priceCents}::int, ${charge.chargeState}
          from unnest(${sql.param(send.map((s) => s.recipient.contact_id))}::uuid[], ${sql.param(send.map((s) => s.body))}::text[],
                      ${sql.param(send.map((s) => JSON.stringify(s.graph)))}::jsonb[], ${sql.param(send.map((s) => s.recipient.phone))}::text[])
               as m(contact_id, body, payload, phone)
          returning id, recipient_phone`,
      );
      const byPhone = new Map(inserted.map((row) => [row.recipient_phone, row.id]));
      await tx.execute(sql`
        update campaign_recipients r set state = 'queued', message_id = q.message_id
        from unnest(${sql.param(send.map((s) => s.recipient.id))}::bigint[], ${sql.param(send.map((s) => byPhone.get(s.recipient.phone)!))}::uuid[])
             as q(id, message_id)
        where r.id = q.id`);
    }
    if (leftOut.length)
      await tx.execute(sql`
        update campaign_recipients r set state = 'left_out', reason = l.reason
        from unnest(${sql.param(leftOut.map((l) => l.id))}::bigint[], ${sql.param(leftOut.map((l) => l.reason))}::text[]) as l(id, reason)
        where r.id = l.id`);
    return { fed: send.length, done: false };
  });
  if (walletEmpty) return { ...outcome, walletEmpty };
  if (noticeNow !== undefined)
    await rawQuery(`update campaigns set notice = $2 where id = $1 and status = 'sending' and notice is distinct from $2`, [
      campaignId,
      noticeNow,
    ]);
  return outcome;
}

/** A sending campaign with nobody pending and nothing waiting ends: completed, with its final figures. */
async function completeCampaign(campaignId: string) {
  const counts = await finalCounts(campaignId);
  // Completed and its notification written together: the notification exists exactly when the change does.
  const row = await db().transaction(async (tx) => {
    const [done] = await queryRows<{ organization_id: string; name: string; kind: string; created_by: string | null }>(
      tx,
      sql`
        update campaigns c set status = 'completed', finished_at = now(), updated_at = now(), counts = ${JSON.stringify(counts)}::jsonb, counted_at = now()
        where id = ${campaignId} and status = 'sending'
          and not exists (select 1 from campaign_recipients where campaign_id = c.id and state = 'pending')
          and not exists (select 1 from messages where campaign_id = c.id and accepted_at is null and failed_at is null)
        returning organization_id, name, kind, created_by`,
    );
    if (!done) return undefined;
    // What happened, counted in this transaction: what the notification and the activity line both say.
    const outcome = await campaignOutcome(tx, campaignId);
    await notifyCampaignFinished(
      tx,
      { organizationId: done.organization_id, id: campaignId, name: done.name, kind: done.kind, createdBy: done.created_by },
      outcomeWords(outcome),
    );
    // Its activity line in the same transaction, and what both said kept: failures Meta reports
    // later are told after them, each once (late-failures.ts, decision 114).
    await recordActivity(
      {
        organizationId: done.organization_id,
        type: "message",
        status: outcome.failed ? "warning" : "success",
        action: `${done.kind === "broadcast" ? "Broadcast" : "Campaign"} completed`,
        details: englishOf(words("app_activity_detail_campaign_finished", { name: done.name, outcome: outcomeWords(outcome) })),
      },
      tx,
    );
    await keepFinishedOutcome(tx, campaignId, outcome);
    return done;
  });
  if (!row) return false;
  await refreshLeftOut(db(), campaignId);
  return true;
}

/**
 * Starts this process's campaign feeder: rounds back to back while campaigns send, a poll every
 * `pollMs` otherwise (scheduled campaigns start within it); wakeFeeder() wakes it at once.
 */
export function startCampaignFeeder(options: { pollMs?: number; busyMs?: number } = {}) {
  const pollMs = options.pollMs ?? 1000;
  const busyMs = options.busyMs ?? 100;
  const idler = createIdler();
  const unhook = onFeederWake(idler.wake);
  const loop = async () => {
    let failures = 0;
    while (idler.running) {
      idler.begin();
      if (databaseIsDown()) {
        await idler.idle(outageBackoffMs(++failures));
        continue;
      }
      try {
        const round = await feedCampaigns();
        failures = 0;
        const busy = (await rawQuery<{ n: number }>(`select count(*)::int as n from campaigns where status = 'sending'`))[0]!.n > 0;
        await idler.idle(round.fed || round.started ? 0 : busy ? busyMs : pollMs);
      } catch (error) {
        if (noteDatabaseError(error)) {
          await idler.idle(outageBackoffMs(++failures));
          continue;
        }
        log().error({ err: error }, "campaign feeder error");
        await idler.idle(1000);
      }
    }
  };
  const running = loop();
  return async function stop() {
    unhook();
    idler.stop();
    await running;
  };
}
