import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { decryptSecret, encryptSecret } from "../../infrastructure/security/crypto";
import { Refusal } from "../../infrastructure/refusal";
import { recordActivity } from "../activity";
import { catalogueEntry } from "./catalogue";
import { markUnhealthy } from "./connections";
import { providerFor, ProviderError } from "./providers";
import { removeExpiredStates } from "./oauth";
import { m } from "~/paraglide/messages";

/** A token this close to its expiry is refreshed before it is used (and by the recurring job). */
export const REFRESH_AHEAD_SECONDS = 300;
/** How long one instance's claim to refresh a connection lasts if it never finishes (it crashed). */
export const REFRESH_CLAIM_SECONDS = 60;
/** The recurring job's period; it refreshes tokens expiring within REFRESH_AHEAD_SECONDS + this. */
export const TOKEN_REFRESH_EVERY_SECONDS = 60;
export const TOKEN_REFRESH_QUEUE = "integrations.refresh-tokens";

interface TokenRow {
  id: string;
  access_token_sealed: string | null;
  refresh_token_sealed: string | null;
  fresh: boolean;
  context: Record<string, string>;
}

const notConnected = () =>
  new Refusal({ domain: "integration", status: 404, code: "not_connected", message: m.integrations_not_connected() });

async function readTokens(organizationId: string, providerId: string, aheadSeconds: number) {
  const [row] = await queryRows<TokenRow>(
    db(),
    sql`
    select id, access_token_sealed, refresh_token_sealed, context,
           (token_expires_at is null or token_expires_at > now() + make_interval(secs => ${aheadSeconds})) as fresh
    from integration_connections
    where organization_id = ${organizationId} and provider = ${providerId} and status = 'connected'`,
  );
  return row ?? null;
}

/**
 * The access token to call the provider with, for the connectors. One that expires within
 * REFRESH_AHEAD_SECONDS is refreshed first, by one instance only (refreshConnection); another
 * instance meanwhile uses the current token while it still works, or waits for the new one. A failed
 * refresh marks the connection unhealthy and answers 502 in words. 404 without a connection.
 */
export async function tokenForUse(organizationId: string, providerId: string): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const row = await readTokens(organizationId, providerId, REFRESH_AHEAD_SECONDS);
    if (!row?.access_token_sealed) throw notConnected();
    if (row.fresh) return decryptSecret(row.access_token_sealed);
    if (!row.refresh_token_sealed) return expiredForGood(organizationId, providerId);
    const refreshed = await refreshConnection(row.id);
    if (refreshed.outcome === "refreshed") return refreshed.accessToken;
    if (refreshed.outcome === "failed")
      throw new Refusal({ domain: "integration", status: 502, code: "integration_unhealthy", message: refreshed.message });
    // Another instance holds the claim: its token is still good until it expires; else wait for it.
    const current = await readTokens(organizationId, providerId, 0);
    if (current?.fresh && current.access_token_sealed) return decryptSecret(current.access_token_sealed);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Refusal({ domain: "integration", status: 502, code: "integration_unhealthy", message: m.integrations_refresh_busy() });
}

/** A token past its time with nothing to refresh it: only connecting again helps. */
async function expiredForGood(organizationId: string, providerId: string): Promise<never> {
  const name = catalogueEntry(providerId)?.name ?? providerId;
  await markUnhealthy(organizationId, providerId, "The access token expired and there is no refresh token.");
  throw new Refusal({
    domain: "integration",
    status: 502,
    code: "integration_unhealthy",
    message: m.integrations_refresh_failed({ name }),
  });
}

type RefreshOutcome =
  { outcome: "refreshed"; accessToken: string } | { outcome: "busy" } | { outcome: "failed"; message: string } | { outcome: "fresh" };

// The claim is the row's: the update waits on another's lock and then sees its claim, so two
// instances never call the provider with the same refresh token (providers that rotate refresh
// tokens would revoke the grant on the second use).

/**
 * Refreshes one connection's token, once across instances: a conditional update claims the row (it
 * takes the row's lock, and only one claim is live at a time); the provider is called outside any
 * transaction; the new tokens are written sealed and the claim released in one update. A token
 * refreshed by someone else meanwhile is not refreshed again ("fresh").
 */
export async function refreshConnection(connectionId: string, aheadSeconds = REFRESH_AHEAD_SECONDS): Promise<RefreshOutcome> {
  const [claimed] = await queryRows<TokenRow & { organization_id: string; provider: string; needed: boolean }>(
    db(),
    sql`
    update integration_connections set refresh_claimed_until = now() + make_interval(secs => ${REFRESH_CLAIM_SECONDS})
    where id = ${connectionId} and status = 'connected' and refresh_token_sealed is not null
      and (refresh_claimed_until is null or refresh_claimed_until < now())
      and token_expires_at <= now() + make_interval(secs => ${aheadSeconds})
    returning id, organization_id, provider, access_token_sealed, refresh_token_sealed, context, true as fresh, true as needed`,
  );
  if (!claimed) return (await claimState(connectionId, aheadSeconds)) ?? { outcome: "busy" };
  const provider = providerFor(claimed.provider);
  const name = catalogueEntry(claimed.provider)?.name ?? claimed.provider;
  try {
    if (!provider) throw new ProviderError("No connector is installed for it on this server.");
    const tokens = await provider.refresh(decryptSecret(claimed.refresh_token_sealed!), claimed.context);
    await db().execute(sql`
      update integration_connections set access_token_sealed = ${encryptSecret(tokens.accessToken)},
        refresh_token_sealed = coalesce(${tokens.refreshToken ? encryptSecret(tokens.refreshToken) : null}, refresh_token_sealed),
        token_expires_at = ${tokens.expiresAt?.toISOString() ?? null}::timestamptz, refresh_claimed_until = null,
        health = 'healthy', last_error = null, updated_at = now()
      where id = ${connectionId}`);
    return { outcome: "refreshed", accessToken: tokens.accessToken };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await markUnhealthy(claimed.organization_id, claimed.provider, `Token refresh failed: ${reason}`);
    await recordActivity({
      organizationId: claimed.organization_id,
      type: "settings",
      status: "error",
      action: "Integration token refresh failed",
      details: `${name}: ${reason}`,
    });
    if (!(error instanceof ProviderError)) throw error;
    return { outcome: "failed", message: m.integrations_refresh_failed({ name }) };
  }
}

/** Why no claim was taken: the token was refreshed meanwhile (fresh), or another holds the claim (null). */
async function claimState(connectionId: string, aheadSeconds: number): Promise<RefreshOutcome | null> {
  const [row] = await queryRows<{ fresh: boolean }>(
    db(),
    sql`select (token_expires_at is null or token_expires_at > now() + make_interval(secs => ${aheadSeconds})) as fresh
        from integration_connections where id = ${connectionId}`,
  );
  return row?.fresh ? { outcome: "fresh" } : null;
}

/**
 * The recurring job: every connection whose token expires within the next period and a bit is
 * refreshed now, so a sync never starts on a token about to lapse; and states nobody came back for
 * are removed. Answers how many were refreshed.
 */
export async function refreshExpiringTokens(limit = 100): Promise<number> {
  await removeExpiredStates();
  const due = await queryRows<{ id: string }>(
    db(),
    sql`
    select id from integration_connections
    where status = 'connected' and refresh_token_sealed is not null
      and token_expires_at <= now() + make_interval(secs => ${REFRESH_AHEAD_SECONDS + TOKEN_REFRESH_EVERY_SECONDS})
      and (refresh_claimed_until is null or refresh_claimed_until < now())
      -- One that just failed is tried again a quarter of an hour on, not every minute.
      and (health = 'healthy' or last_error_at is null or last_error_at < now() - interval '15 minutes')
    order by token_expires_at limit ${limit}`,
  );
  let refreshed = 0;
  for (const { id } of due) {
    const outcome = await refreshConnection(id, REFRESH_AHEAD_SECONDS + TOKEN_REFRESH_EVERY_SECONDS);
    if (outcome.outcome === "refreshed") refreshed++;
  }
  return refreshed;
}
