import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { env } from "../../../infrastructure/config/env";
import { HubspotError, hubspotClient, type HubspotClient } from "../../../infrastructure/clients/hubspot";
import { RetryLater } from "../../../infrastructure/jobs/queue";
import { tokenForUse } from "../tokens";
import { learnLimit, paceCall, pausePortal } from "./pacer";

/** How many 429s in a row one call sits out before its job is put back to run later (RetryLater). */
const MAX_WAITS = 6;

/** The organisation's live HubSpot connection: its portal (Hub ID) and where its sync got to. */
export interface HubspotConnection {
  organizationId: string;
  hubId: string;
  syncState: Record<string, unknown>;
  /** When it was (last) connected: a new grant checks Jumbe's HubSpot properties again. */
  connectedAt: string;
}

export async function hubspotConnection(organizationId: string): Promise<HubspotConnection | null> {
  const [row] = await queryRows<{ external_account_id: string | null; sync_state: Record<string, unknown>; connected_at: Date | string }>(
    db(),
    sql`select external_account_id, sync_state, connected_at from integration_connections
        where organization_id = ${organizationId} and provider = 'hubspot' and status = 'connected'`,
  );
  return row?.external_account_id
    ? {
        organizationId,
        hubId: row.external_account_id,
        syncState: row.sync_state ?? {},
        connectedAt: new Date(row.connected_at).toISOString(),
      }
    : null;
}

/** The pacer's key: the app and the portal, as HubSpot counts its limit. */
const paceKey = (hubId: string) => `${env().HUBSPOT_CLIENT_ID ?? "app"}:${hubId}`;

/** A token HubSpot called expired (401) is taken as expired here too, so tokenForUse refreshes it (once, across instances). */
async function expireToken(organizationId: string) {
  await db().execute(sql`
    update integration_connections set token_expires_at = least(token_expires_at, now())
    where organization_id = ${organizationId} and provider = 'hubspot' and status = 'connected'`);
}

/**
 * One HubSpot call for a connection, as every sync step makes it (decision 083): paced under the
 * portal's limit; a 429 pauses the portal for as long as HubSpot asks and the call is made again
 * (after MAX_WAITS in a row the job is put back with RetryLater, so nothing is dropped); a 401 takes
 * the token as expired, refreshes it through tokenForUse and tries once more. A revoked grant ends
 * in tokenForUse's refusal (the connection is marked unhealthy there).
 */
export async function hubspotCall<T>(
  connection: HubspotConnection,
  work: (client: HubspotClient, token: string) => Promise<T>,
): Promise<T> {
  const key = paceKey(connection.hubId);
  const client = hubspotClient({ observeRateLimit: ({ max, intervalMs }) => learnLimit(key, { max, intervalMs }) });
  let refreshed = false;
  let redialled = false;
  for (let waits = 0; ;) {
    const token = await tokenForUse(connection.organizationId, "hubspot");
    const answered = await paceCall(key);
    try {
      return await work(client, token);
    } catch (error) {
      if (!(error instanceof HubspotError)) throw error;
      if (error.kind === "expired_token" && !refreshed) {
        refreshed = true;
        await expireToken(connection.organizationId);
        continue;
      }
      // A kept-alive connection HubSpot closed as the call went out: nothing reached it, so once more on a new one.
      if (error.kind === "network" && !redialled) {
        redialled = true;
        continue;
      }
      if (error.kind === "rate_limited") {
        const waitMs = error.retryAfterMs ?? 10_000;
        pausePortal(key, waitMs);
        if (++waits > MAX_WAITS) throw new RetryLater(waitMs, error.message);
        continue;
      }
      throw error;
    } finally {
      answered();
    }
  }
}
