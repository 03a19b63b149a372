import { createHash, createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import { encryptSecret, decryptSecret, randomToken, sha256 } from "../../infrastructure/security/crypto";
import { Refusal } from "../../infrastructure/refusal";
import { recordActivity } from "../activity";
import { catalogueEntry, type CatalogueEntry } from "./catalogue";
import { providerFor, ProviderError, type IntegrationProvider, type ProviderTokens } from "./providers";
import { saveConnection, type IntegrationActor } from "./connections";
import { m } from "~/paraglide/messages";

/** How long a member has on the provider's consent page before the state is refused. */
export const OAUTH_STATE_MINUTES = 10;

const refuse = (status: 400 | 404 | 409 | 502 | 503, code: string, message: string, field?: string) =>
  new Refusal({ domain: "integration", status, code, message, field });

/** Where the provider sends the member back: one fixed address per provider, registered with it. */
export function callbackUrl(providerId: string) {
  return `${env().APP_URL}/integrations/${providerId}/callback`;
}

/**
 * The catalogue's entry and its registered provider, for connecting with OAuth: 404 for an unknown
 * id, 409 for a coming-soon one (it cannot be connected), 400 for one not connected this way, 503
 * when this server has no connector installed for it.
 */
export function connectableProvider(providerId: string): { entry: CatalogueEntry; provider: IntegrationProvider } {
  const entry = connectableEntry(providerId);
  return { entry, provider: installedProvider(entry) };
}

/** The catalogue's entry, if it is one connected with OAuth (the refusals of connectableProvider but the last). */
export function connectableEntry(providerId: string): CatalogueEntry {
  const entry = catalogueEntry(providerId);
  if (!entry) throw refuse(404, "unknown_integration", m.integrations_unknown());
  if (entry.availability === "coming-soon")
    throw refuse(409, "integration_coming_soon", m.integrations_coming_soon_refused({ name: entry.name }));
  if (entry.connect !== "oauth") throw refuse(400, "not_oauth", m.integrations_not_oauth({ name: entry.name }));
  return entry;
}

function installedProvider(entry: CatalogueEntry): IntegrationProvider {
  const provider = providerFor(entry.id);
  if (!provider) throw refuse(503, "connector_missing", m.integrations_connector_missing({ name: entry.name }));
  return provider;
}

const challengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

/**
 * Step one: a one-time state bound to the organisation, the member and the provider (only its hash
 * is stored), and the provider's consent page to send the member to.
 */
export async function startConnect(actor: IntegrationActor, providerId: string, form: Record<string, string>): Promise<string> {
  const { provider } = connectableProvider(providerId);
  let context: Record<string, string> = {};
  if (provider.startContext) {
    const checked = provider.startContext(form);
    if (!checked.ok) throw refuse(400, "invalid_connect_input", checked.message);
    context = checked.context;
  }
  const state = randomToken(32);
  const verifier = provider.pkce ? randomToken(48) : null;
  await db().execute(sql`
    insert into integration_oauth_states (state_hash, organization_id, user_id, provider, code_verifier_sealed, context, expires_at)
    values (${sha256(state)}, ${actor.organizationId}, ${actor.userId}, ${provider.id}, ${verifier ? encryptSecret(verifier) : null},
            ${JSON.stringify(context)}::jsonb, now() + make_interval(mins => ${OAUTH_STATE_MINUTES}))`);
  return provider.authorizeUrl({
    state,
    redirectUri: callbackUrl(provider.id),
    ...(verifier ? { codeChallenge: challengeOf(verifier) } : {}),
    context,
    ...(env().sandbox ? { sandboxUser: sandboxUser(actor.organizationId) } : {}),
  });
}

/**
 * The organisation's key at the integration sandboxes' consent pages: opaque (derived from the
 * organisation with the session secret, never its id) and stable, so a tenant finds its own test
 * accounts again and no one else's, as Meta's signup dialog does with its `sandbox_user`.
 */
export function sandboxUser(organizationId: string) {
  return createHmac("sha256", env().SESSION_SECRET).update(`integrations-sandbox-user:${organizationId}`).digest("base64url").slice(0, 24);
}

/** The state's row as it stands, without spending it: the same refusal as claimState when there is none or it is past its time. */
async function liveState(actor: IntegrationActor, providerId: string, state: string): Promise<{ context: Record<string, string> }> {
  const [row] = await queryRows<{ live: boolean; context: Record<string, string> }>(
    db(),
    sql`
    select expires_at > now() as live, context from integration_oauth_states
    where state_hash = ${sha256(state)} and organization_id = ${actor.organizationId} and user_id = ${actor.userId} and provider = ${providerId}`,
  );
  if (!row || !row.live) throw refuse(400, "invalid_state", m.integrations_state_invalid());
  return row;
}

interface ClaimedState {
  live: boolean;
  code_verifier_sealed: string | null;
  context: Record<string, string>;
}

/**
 * Takes the state once: it is deleted whether it is still live or not, and only when it was issued to
 * this member of this organisation for this provider (anyone else's answers as if it did not exist).
 */
async function claimState(actor: IntegrationActor, providerId: string, state: string): Promise<ClaimedState> {
  const [row] = await queryRows<ClaimedState>(
    db(),
    sql`
    delete from integration_oauth_states
    where state_hash = ${sha256(state)} and organization_id = ${actor.organizationId} and user_id = ${actor.userId} and provider = ${providerId}
    returning expires_at > now() as live, code_verifier_sealed, context`,
  );
  if (!row || !row.live) throw refuse(400, "invalid_state", m.integrations_state_invalid());
  return row;
}

/**
 * Step two, the callback: the state checked, the callback's own signature checked (400, the state
 * kept), the state spent, the code exchanged for tokens, the account read, and the connection stored
 * with its tokens sealed. A provider's refusal is logged and answered 502 in words; nothing is stored then.
 */
export async function finishConnect(actor: IntegrationActor, providerId: string, params: URLSearchParams) {
  const entry = connectableEntry(providerId);
  // The state first: a return that no connect of this member started is refused whatever is installed.
  const state = params.get("state") ?? "";
  if (!state) throw refuse(400, "invalid_state", m.integrations_state_invalid());
  const denied = params.get("error");
  const code = params.get("code") ?? "";
  if (!denied && code) {
    // A return the provider did not sign for this connect (a tampered shop, a forged hmac) is refused
    // before the state is spent: it changes nothing, and the genuine return still finishes the connect.
    const { context } = await liveState(actor, entry.id, state);
    const problem = installedProvider(entry).checkCallback?.(params, context);
    if (problem) throw refuse(400, "callback_not_genuine", problem);
  }
  const claimed = await claimState(actor, entry.id, state);
  const provider = installedProvider(entry);
  if (denied || !code) {
    // The provider's own error code (access_denied), or nothing at all: data, as the provider wrote it.
    await connectFailed(actor, entry.name, denied ? denied.slice(0, 100) : "—");
    throw refuse(400, "connect_declined", m.integrations_connect_declined({ name: entry.name }));
  }
  let tokens: ProviderTokens;
  let account: { label: string; externalId: string };
  try {
    tokens = await provider.exchangeCode({
      code,
      redirectUri: callbackUrl(provider.id),
      ...(claimed.code_verifier_sealed ? { codeVerifier: decryptSecret(claimed.code_verifier_sealed) } : {}),
      context: claimed.context,
      callbackParams: params,
    });
    account = await provider.account(tokens, claimed.context);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await connectFailed(actor, entry.name, error.message);
    throw refuse(502, "provider_refused", m.integrations_connect_failed({ name: entry.name, reason: error.message }));
  }
  await saveConnection(actor, provider.id, tokens, account, claimed.context);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Integration connected",
    details: `${entry.name}: ${account.label}`,
    meta: actor.meta,
  });
  return { name: entry.name, account: account.label };
}

async function connectFailed(actor: IntegrationActor, name: string, reason: string) {
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "error",
    action: "Integration connection failed",
    details: `${name}: ${reason}`,
    meta: actor.meta,
  });
}

/** States past their time (the member never came back): removed by the refresh job. */
export async function removeExpiredStates() {
  await db().execute(sql`delete from integration_oauth_states where expires_at < now()`);
}
