import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordAdminAction } from "../audit";
import { holdQueuedMessages, resumeCampaign } from "../../campaigns";
import { recordActivity } from "../../activity";
import { log } from "../../../infrastructure/log";
import { isTenant } from "./tenants";
import { isUuid } from "../../../infrastructure/db/keyset";
import { wakeDispatcher, failMessagesIn } from "../../messaging";
import { Refusal, isRefusal } from "../../../infrastructure/refusal";
import { m } from "~/paraglide/messages";
import { englishOf, words } from "../../../infrastructure/words/said";

/**
 * Hours a message outside a campaign may wait out a suspension: reactivating sends those queued
 * since, and fails older ones (organization_suspended), so a one-time code or a reply never goes
 * out days late. A campaign's messages wait with their paused campaign instead.
 */
export const SUSPENSION_HOLD_HOURS = 24;

/** campaigns.paused_reason of the campaigns a suspension paused: reactivating resumes exactly these. */
export const SUSPENSION_PAUSE = "suspended";

/** A refused change to a tenant: 404 for an unknown one, 409 for one in the wrong state. */
// A 404 is never shown as such: the console answers it with the product's Not Found page.
export const TENANT_NOT_FOUND = "Not Found";

export const refuseTenant = (status: 404 | 409, message: string) => new Refusal({ domain: "tenant", status, message });

interface Locked {
  id: string;
  name: string;
  status: string;
  suspended_at: string | Date | null;
  suspension_reason: string | null;
}

async function lockTenant(tx: Executor, id: string): Promise<Locked> {
  if (!isUuid(id)) throw refuseTenant(404, TENANT_NOT_FOUND);
  const rows = await queryRows<Locked>(
    tx,
    sql`
    select id, name, status, suspended_at, suspension_reason from organizations o
    where id = ${id} and ${isTenant()} for update`,
  );
  const row = rows[0];
  if (!row) throw refuseTenant(404, TENANT_NOT_FOUND);
  return row;
}

/**
 * Suspends an organisation, at once everywhere, in one transaction with its audit record: the
 * status (signed-in pages refuse it), every member's session deleted, its API key refused (the key
 * check reads the status), and its scheduled and sending campaigns paused with their waiting
 * messages held back. Messages queued outside a campaign, and any a worker had already claimed, are
 * held by the dispatcher when it comes to them (it asks again just before each call to Meta:
 * messaging/suspension-hold.ts): `next_attempt_at = 'infinity'`, never failed nor charged.
 */
export async function suspendTenant(admin: CurrentUser, meta: RequestMeta, id: string, reason: string) {
  const { tenant, paused } = await db().transaction(async (tx) => {
    const tenant = await lockTenant(tx, id);
    if (tenant.status === "suspended") throw refuseTenant(409, m.admin_tenant_already_suspended());
    await tx.execute(sql`
      update organizations set status = 'suspended', suspended_at = now(), suspension_reason = ${reason}, updated_at = now()
      where id = ${id}`);
    const ended = await queryRows<unknown>(
      tx,
      sql`
      delete from sessions where user_id in (select id from users where organization_id = ${id}) returning id`,
    );
    const paused = await queryRows<{ id: string; kind: string; name: string }>(
      tx,
      sql`
      update campaigns set status = 'paused', paused_reason = ${SUSPENSION_PAUSE}, paused_by = null, updated_at = now()
      where organization_id = ${id} and status in ('scheduled', 'sending')
      returning id, kind, name`,
    );
    for (const campaign of paused) await holdQueuedMessages(tx, campaign.id);
    await recordAdminAction(tx, admin, meta, {
      action: "organization.suspend",
      organizationId: id,
      targetType: "organization",
      targetId: id,
      reason,
      before: { status: tenant.status },
      after: { status: "suspended", sessionsEnded: ended.length, campaignsPaused: paused.length },
    });
    return { tenant, paused: paused };
  });
  for (const campaign of paused)
    await recordActivity({
      organizationId: id,
      type: "message",
      status: "warning",
      action: `${campaign.kind === "broadcast" ? "Broadcast" : "Campaign"} paused`,
      details: englishOf(words("app_activity_detail_campaign_suspended", { name: campaign.name })),
    });
  return { name: tenant.name, campaignsPaused: paused.length };
}

/**
 * Reactivates a suspended organisation (status active, the suspension's time and reason cleared),
 * audited in the same transaction with its held messages outside campaigns made due again (those
 * queued more than SUSPENSION_HOLD_HOURS ago failed instead); then
 * the campaigns the suspension paused resume (not those a member paused), each through the
 * campaigns' own resume, which checks it can still go on, and makes theirs due.
 */
export async function reactivateTenant(admin: CurrentUser, meta: RequestMeta, id: string, reason: string) {
  const tenant = await db().transaction(async (tx) => {
    const tenant = await lockTenant(tx, id);
    if (tenant.status !== "suspended") throw refuseTenant(409, m.admin_tenant_not_suspended());
    await tx.execute(sql`
      update organizations set status = 'active', suspended_at = null, suspension_reason = null, updated_at = now() where id = ${id}`);
    // What the dispatcher held (suspension-hold.ts), along messages_queued_pair_idx: due again, but
    // one queued more than a day ago (a code, a reply, a reminder) is failed rather than sent late.
    const stale = await queryRows<{ id: string; createdAt: string }>(
      tx,
      sql`
      select id, created_at::text as "createdAt" from messages
      where organization_id = ${id} and direction = 'outbound' and accepted_at is null and failed_at is null
        and campaign_id is null and next_attempt_at = 'infinity'
        and created_at < now() - make_interval(hours => ${SUSPENSION_HOLD_HOURS})`,
    );
    await failMessagesIn(
      tx,
      stale.map((m) => ({
        id: m.id,
        createdAt: m.createdAt,
        organizationId: id,
        code: null,
        title: "organization_suspended",
        details: `Not sent: the organisation was suspended, and the message waited more than ${SUSPENSION_HOLD_HOURS} hours.`,
      })),
    );
    await tx.execute(sql`
      update messages set next_attempt_at = now()
      where organization_id = ${id} and direction = 'outbound' and accepted_at is null and failed_at is null
        and campaign_id is null and next_attempt_at = 'infinity'`);
    await recordAdminAction(tx, admin, meta, {
      action: "organization.reactivate",
      organizationId: id,
      targetType: "organization",
      targetId: id,
      reason,
      before: { status: "suspended", suspendedAt: tenant.suspended_at, suspensionReason: tenant.suspension_reason },
      after: { status: "active" },
    });
    return tenant;
  });
  const paused = await queryRows<{ id: string }>(
    db(),
    sql`
    select id from campaigns where organization_id = ${id} and status = 'paused' and paused_reason = ${SUSPENSION_PAUSE}
    order by created_at`,
  );
  let resumed = 0;
  for (const { id: campaignId } of paused) {
    try {
      await resumeCampaign({ organizationId: id, userId: null }, campaignId);
      resumed++;
    } catch (error) {
      // It can no longer go on (its number or template went meanwhile): it stays paused for the tenant to decide.
      if (!isRefusal(error, "campaign")) throw error;
      log().info({ campaignId, reason: error.message }, "suspension-paused campaign not resumed");
    }
  }
  wakeDispatcher();
  return { name: tenant.name, campaignsResumed: resumed };
}
