import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { englishOf, type Said } from "../../infrastructure/words/said";
import { queryRows } from "../../infrastructure/db/query";
import { decryptSecret, encryptSecret } from "../../infrastructure/security/crypto";
import { Refusal } from "../../infrastructure/refusal";
import { log } from "../../infrastructure/log";
import { recordActivity } from "../activity";
import { catalogueEntry } from "./catalogue";
import { providerFor, type ProviderAccount, type ProviderTokens } from "./providers";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { m } from "~/paraglide/messages";

/** Who is acting: the signed-in member of their organisation. */
export interface IntegrationActor {
  organizationId: string;
  userId: string;
  meta?: RequestMeta;
}

/** A connection as the page shows it: never its tokens. */
export interface ConnectionView {
  provider: string;
  status: "connected" | "disconnected";
  accountLabel: string | null;
  health: "healthy" | "unhealthy";
  lastSyncAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  connectedAt: string;
  /** What the connector's sync counted (sync_state.counts: HubSpot's contacts synced, messages logged). */
  counts: Record<string, number>;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The organisation's connections, by provider (disconnected ones too: their last error stays readable). */
export async function listConnections(organizationId: string): Promise<ConnectionView[]> {
  const rows = await queryRows<{
    provider: string;
    status: ConnectionView["status"];
    account_label: string | null;
    health: ConnectionView["health"];
    last_sync_at: Date | string | null;
    last_error: string | null;
    last_error_at: Date | string | null;
    connected_at: Date | string;
    counts: Record<string, number> | null;
  }>(
    db(),
    sql`
    select provider, status, account_label, health, last_sync_at, last_error, last_error_at, connected_at,
      sync_state->'counts' as counts
    from integration_connections where organization_id = ${organizationId} order by provider`,
  );
  return rows.map((row) => ({
    provider: row.provider,
    status: row.status,
    accountLabel: row.account_label,
    health: row.health,
    lastSyncAt: iso(row.last_sync_at),
    lastError: row.last_error,
    lastErrorAt: iso(row.last_error_at),
    connectedAt: new Date(row.connected_at).toISOString(),
    counts: row.counts && typeof row.counts === "object" ? row.counts : {},
  }));
}

/**
 * Stores a connection's tokens, sealed, with the account they belong to: a new row, or the
 * organisation's row for the provider made connected and healthy again (connecting anew replaces it).
 */
export async function saveConnection(
  actor: IntegrationActor,
  providerId: string,
  tokens: ProviderTokens,
  account: ProviderAccount,
  context: Record<string, string>,
) {
  const access = encryptSecret(tokens.accessToken);
  const refresh = tokens.refreshToken ? encryptSecret(tokens.refreshToken) : null;
  const expires = tokens.expiresAt?.toISOString() ?? null;
  await db().execute(sql`
    insert into integration_connections (organization_id, provider, status, account_label, external_account_id, scopes,
      access_token_sealed, refresh_token_sealed, token_expires_at, health, context, created_by)
    values (${actor.organizationId}, ${providerId}, 'connected', ${account.label}, ${account.externalId}, ${sql.param(tokens.scopes)}::text[],
      ${access}, ${refresh}, ${expires}::timestamptz, 'healthy', ${JSON.stringify(context)}::jsonb, ${actor.userId})
    on conflict (organization_id, provider) do update set
      status = 'connected', account_label = excluded.account_label, external_account_id = excluded.external_account_id,
      scopes = excluded.scopes, access_token_sealed = excluded.access_token_sealed, refresh_token_sealed = excluded.refresh_token_sealed,
      token_expires_at = excluded.token_expires_at, health = 'healthy', last_error = null, last_error_at = null,
      refresh_claimed_until = null, context = excluded.context, created_by = excluded.created_by,
      -- The same account again keeps its sync's place; another account starts afresh.
      sync_state = case when integration_connections.external_account_id = excluded.external_account_id
                        then integration_connections.sync_state else '{}'::jsonb end,
      connected_at = now(), disconnected_at = null, updated_at = now()`);
}

/**
 * Disconnects: the tokens are cleared at once (the row stays, disconnected, for its history), then
 * revoked at the provider as far as it allows; a revoke that fails is said in the log, and the
 * connection is disconnected all the same. 404 when the organisation has no such connection.
 */
export async function disconnectIntegration(actor: IntegrationActor, providerId: string) {
  const entry = catalogueEntry(providerId);
  const [row] = await queryRows<{ access: string | null; refresh: string | null; context: Record<string, string>; label: string | null }>(
    db(),
    sql`
    with old as (
      select id, access_token_sealed, refresh_token_sealed from integration_connections
      where organization_id = ${actor.organizationId} and provider = ${providerId} and status = 'connected' for update
    )
    update integration_connections c set status = 'disconnected', access_token_sealed = null, refresh_token_sealed = null,
      token_expires_at = null, refresh_claimed_until = null, disconnected_at = now(), updated_at = now()
    from old where c.id = old.id
    returning old.access_token_sealed as access, old.refresh_token_sealed as refresh, c.context, c.account_label as label`,
  );
  if (!entry || !row)
    throw new Refusal({ domain: "integration", status: 404, code: "not_connected", message: m.integrations_not_connected() });
  const revoked = await revokeQuietly(providerId, row);
  const what = row.label ? `${entry.name}: ${row.label}` : entry.name;
  // Not revoked (no connector installed, or the provider did not confirm): said, so someone removes Jumbe there.
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: revoked ? "success" : "warning",
    action: revoked ? "Integration disconnected" : "Integration disconnected without revoking its access",
    details: what,
    meta: actor.meta,
  });
  return { name: entry.name, revoked };
}

async function revokeQuietly(providerId: string, row: { access: string | null; refresh: string | null; context: Record<string, string> }) {
  const provider = providerFor(providerId);
  if (!provider) return false;
  try {
    await provider.revoke(
      { accessToken: row.access ? decryptSecret(row.access) : null, refreshToken: row.refresh ? decryptSecret(row.refresh) : null },
      row.context,
    );
    return true;
  } catch (error) {
    log().warn({ provider: providerId, error: (error as Error).message }, "integration revoke failed");
    return false;
  }
}

/**
 * A sync's outcome, for the connectors (issue 45): the time, where it got to (`state`, merged into
 * sync_state), and an activity record; a failure marks the connection unhealthy with its reason.
 */
export async function recordSync(
  organizationId: string,
  providerId: string,
  outcome: { ok: true; summary: Said; state?: Record<string, unknown> } | { ok: false; error: string },
) {
  const name = catalogueEntry(providerId)?.name ?? providerId;
  if (outcome.ok)
    await db().execute(sql`
      update integration_connections set last_sync_at = now(), health = 'healthy', last_error = null, updated_at = now(),
        sync_state = sync_state || ${JSON.stringify(outcome.state ?? {})}::jsonb
      where organization_id = ${organizationId} and provider = ${providerId} and status = 'connected'`);
  else await markUnhealthy(organizationId, providerId, outcome.error);
  await recordActivity({
    organizationId,
    type: "settings",
    status: outcome.ok ? "success" : "error",
    action: outcome.ok ? "Integration synced" : "Integration sync failed",
    details: outcome.ok ? englishOf(outcome.summary) : `${name}: ${outcome.error}`,
  });
}

/** The connection no longer works: unhealthy, with the reason and its time, for the card. */
export async function markUnhealthy(organizationId: string, providerId: string, error: string) {
  await db().execute(sql`
    update integration_connections set health = 'unhealthy', last_error = ${error.slice(0, 500)}, last_error_at = now(),
      refresh_claimed_until = null, updated_at = now()
    where organization_id = ${organizationId} and provider = ${providerId}`);
}
