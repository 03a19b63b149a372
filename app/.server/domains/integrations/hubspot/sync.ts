import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { words } from "../../../infrastructure/words/said";
import { queryRows } from "../../../infrastructure/db/query";
import { enqueueJob, RetryLater, type Job } from "../../../infrastructure/jobs/queue";
import { isRefusal, Refusal } from "../../../infrastructure/refusal";
import { log } from "../../../infrastructure/log";
import { recordSync } from "../connections";
import { hubspotConnection, type HubspotConnection } from "./calls";
import { receiveContacts } from "./contacts-in";
import { sendContacts } from "./contacts-out";
import { logMessages } from "./messages-log";
import {
  ensureHubspotProperties,
  forgetPropertyCheck,
  isMissingPropertyError,
  missingByObject,
  propertyCheckDue,
  propertyCheckOf,
} from "./properties";
import { refreshSegments } from "./segments";
import { m } from "~/paraglide/messages";

export const HUBSPOT_SYNC_QUEUE = "hubspot.sync";
export const HUBSPOT_SYNC_ALL_QUEUE = "hubspot.sync-all";
/** The recurring sync's period: a change on either side arrives within about this and a sync's time. */
export const HUBSPOT_SYNC_EVERY_SECONDS = 30;

export interface SyncJob {
  organizationId: string;
}

const syncKey = (organizationId: string) => `hubspot.sync:${organizationId}`;

/** Queues one organisation's sync (at most one waits or runs per organisation); null when one is already pending. */
export function enqueueHubspotSync(organizationId: string, executor?: Executor) {
  return enqueueJob(HUBSPOT_SYNC_QUEUE, { organizationId } satisfies SyncJob, {
    uniqueKey: syncKey(organizationId),
    ...(executor ? { executor } : {}),
  });
}

/**
 * The recurring job: a sync queued for every connected HubSpot organisation, in the transaction
 * that claimed the job. A connection whose grant failed is left until its error is a quarter of an
 * hour old (connecting again clears it).
 */
export async function enqueueAllSyncs(tx: Executor) {
  const rows = await queryRows<{ organization_id: string }>(
    tx,
    sql`select organization_id from integration_connections where provider = 'hubspot' and status = 'connected'
        and (health = 'healthy' or last_error_at is null or last_error_at < now() - interval '15 minutes'
             or last_error not like 'Token refresh failed%')`,
  );
  for (const row of rows) await enqueueHubspotSync(row.organization_id, tx);
  return rows.length;
}

/** "Sync now": the sync queued with its activity record; said when one is already under way. */
export async function syncNow(actor: { organizationId: string; userId: string }) {
  const connection = await hubspotConnection(actor.organizationId);
  if (!connection)
    throw new Refusal({ domain: "integration", status: 404, code: "not_connected", message: m.integrations_not_connected() });
  const queued = await db().transaction(async (tx) => {
    const id = await enqueueHubspotSync(actor.organizationId, tx);
    if (id !== null)
      await tx.execute(sql`
        insert into activity_logs (organization_id, user_id, type, status, action, details)
        values (${actor.organizationId}, ${actor.userId}, 'settings', 'success', 'Integration sync requested', 'HubSpot')`);
    return id !== null;
  });
  return { queued };
}

export interface SyncOutcome {
  received: number;
  sent: number;
  refused: number;
  logged: number;
  segmentMembers: number;
}

/**
 * One whole sync of a connection: Jumbe's HubSpot properties made sure of when due (decision 107),
 * HubSpot's changes in, Jumbe's out, the segments, the messages logged. While a property Jumbe
 * writes is missing, what writes it waits (contacts out for the contact properties, the message log
 * for `jumbe_message_id`) rather than failing at every call; the settings page says which and why.
 */
export async function syncConnection(connection: HubspotConnection, options: { retrying: boolean }): Promise<SyncOutcome> {
  const check = propertyCheckDue(connection) ? await ensureHubspotProperties(connection) : propertyCheckOf(connection);
  const missing = missingByObject(check);
  const { received, cursor } = await receiveContacts(connection);
  let sent = 0;
  let refused = 0;
  let logged = 0;
  let segmentMembers = 0;
  try {
    if (!missing.contacts.length) ({ sent, refused } = await sendContacts(connection, options));
    segmentMembers = await refreshSegments(connection);
    if (!missing.communications.length) logged = await logMessages(connection);
  } catch (error) {
    // A property deleted in HubSpot since the last check: the next sync checks (and makes it) again.
    if (isMissingPropertyError(error)) await forgetPropertyCheck(connection);
    throw error;
  }
  const [counts] = await queryRows<{ contacts: number; messages: number }>(
    db(),
    sql`select (select count(*)::int from hubspot_contact_links where organization_id = ${connection.organizationId} and hub_id = ${connection.hubId}) as contacts,
               (select count(*)::int from hubspot_logged_messages where organization_id = ${connection.organizationId} and hub_id = ${connection.hubId}) as messages`,
  );
  const state = { hubspotCursor: cursor, counts: { contacts: counts?.contacts ?? 0, messages: counts?.messages ?? 0, segmentMembers } };
  const moved = received + sent + logged + refused > 0 || connection.syncState.hubspotCursor === undefined;
  if (moved)
    await recordSync(connection.organizationId, "hubspot", {
      ok: true,
      summary: refused
        ? words("app_activity_detail_hubspot_synced_refused", { received, sent, refused, logged })
        : words("app_activity_detail_hubspot_synced", { received, sent, logged }),
      state,
    });
  else
    await db().execute(sql`
      update integration_connections set last_sync_at = now(), health = 'healthy', last_error = null, updated_at = now(),
        sync_state = sync_state || ${JSON.stringify(state)}::jsonb
      where organization_id = ${connection.organizationId} and provider = 'hubspot' and status = 'connected'`);
  return { received, sent, refused, logged, segmentMembers };
}

/**
 * The sync job: runs outside a transaction (it calls HubSpot) and is idempotent (links and logged
 * messages are stored as they are made; a rerun carries on from them). A 429 that lasts puts the
 * job back (RetryLater); a revoked grant has already marked the connection unhealthy (tokenForUse)
 * and ends the job; any other failure is the card's last error and the next period tries again.
 */
export async function runSyncJob(job: Job<SyncJob>) {
  const connection = await hubspotConnection(job.payload.organizationId);
  if (!connection) return;
  try {
    await syncConnection(connection, { retrying: job.attempts > 1 });
  } catch (error) {
    if (error instanceof RetryLater) throw error;
    if (isRefusal(error)) {
      log().warn({ organizationId: connection.organizationId, code: error.code }, "hubspot sync stopped");
      return;
    }
    const reason = error instanceof Error ? error.message : String(error);
    await recordSync(connection.organizationId, "hubspot", { ok: false, error: reason });
  }
}
