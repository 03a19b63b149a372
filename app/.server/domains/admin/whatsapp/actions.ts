import { performance } from "node:perf_hooks";
import { eq, sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { whatsappAccounts } from "../../../infrastructure/db/schema";
import { env } from "../../../infrastructure/config/env";
import type { CurrentUser } from "../../auth/guards";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordActivity } from "../../activity/record";
import { decryptSecret } from "../../../infrastructure/security/crypto";
import {
  createGraphClient,
  describeGraphFailure,
  GraphApiError,
  type GraphClient,
} from "../../../infrastructure/clients/whatsapp-graph/graph-client";
import { graphCallsRecorded, recordGraphCall, withGraphCallContext } from "../../../infrastructure/clients/whatsapp-graph/graph-call-log";
import { markDisconnected, unsubscribeForDisconnect } from "../../whatsapp/connections";
import { recordAdminAction } from "../audit";
import { Refusal } from "../../../infrastructure/refusal";

/**
 * Manage Account on the admin console's WhatsApp tab: Test Connection, resubscribe, disconnect and
 * mark for reconnection. Each Graph call is the administrator's (origin admin in graph_call_log) and
 * each action is in the audit log with its before and after.
 */

type Account = typeof whatsappAccounts.$inferSelect;

/** Why Manage Account refused: the status the page answers with and the sentence it shows. */
const refusal = (status: 409 | 502, message: string) => new Refusal({ domain: "admin_whatsapp", status, message });

export async function findAccount(accountId: string): Promise<Account | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(accountId)) return undefined;
  const [account] = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.id, accountId)).limit(1);
  return account;
}

/**
 * The administrator's Graph client: one attempt per call (Test Connection shows what one call did,
 * and how long it took), every call recorded.
 */
function adminGraphClient(): GraphClient {
  const config = env();
  return createGraphClient({
    baseUrl: config.GRAPH_API_BASE_URL,
    version: config.GRAPH_API_VERSION,
    appId: config.META_APP_ID,
    appSecret: config.META_APP_SECRET,
    timeoutMs: config.GRAPH_API_TIMEOUT_MS,
    attempts: 1,
    callLog: { records: () => true, record: recordGraphCall },
  });
}

function asAdmin<T>(account: Account, work: () => Promise<T>) {
  return withGraphCallContext(
    { origin: "admin", organizationId: account.organizationId, accountId: account.id, wabaId: account.wabaId },
    work,
  );
}

export interface ConnectionTest {
  ok: boolean;
  latencyMs: number;
  /** What Meta answered: the WABA's id and name, or its error (or the network's) in words. */
  answer: string;
  at: string;
}

/** Test Connection: GET /{waba-id}?fields=id,name,... with the stored token, timed; audited whatever the outcome. */
export async function testConnection(current: CurrentUser, meta: RequestMeta, account: Account): Promise<ConnectionTest> {
  const started = performance.now();
  let result: Omit<ConnectionTest, "latencyMs" | "at">;
  try {
    const waba = await asAdmin(account, () => adminGraphClient().getWaba(account.wabaId, decryptSecret(account.accessTokenEncrypted)));
    result = { ok: true, answer: `Meta answered: WhatsApp Business Account ${waba.id}${waba.name ? ` (${waba.name})` : ""}.` };
  } catch (error) {
    result = { ok: false, answer: failureWords(error) };
  }
  const test = { ...result, latencyMs: Math.round(performance.now() - started), at: new Date().toISOString() };
  await graphCallsRecorded();
  await recordAdminAction(db(), current, meta, {
    action: "whatsapp.test",
    organizationId: account.organizationId,
    targetType: "whatsapp_account",
    targetId: account.id,
    after: { ok: test.ok, latencyMs: test.latencyMs, answer: test.answer },
  });
  return test;
}

function failureWords(error: unknown) {
  if (error instanceof GraphApiError)
    return `Meta refused the call (HTTP ${error.status}): ${error.summary}${error.code === 190 ? ". The stored token is no longer accepted: the organisation must connect the account again." : ""}`;
  return `Meta could not be reached: ${describeGraphFailure(error)}`;
}

/** Resubscribe: POST /{waba}/subscribed_apps, so Meta sends the WABA's webhooks to Jumbe again. Answers the toast's sentence. */
export async function resubscribeAccount(current: CurrentUser, meta: RequestMeta, account: Account): Promise<string> {
  if (account.status !== "connected") throw refusal(409, "This account is disconnected: only its organisation can connect it again.");
  try {
    await asAdmin(account, () => adminGraphClient().subscribeApp(account.wabaId, decryptSecret(account.accessTokenEncrypted)));
  } catch (error) {
    await graphCallsRecorded();
    throw refusal(502, `Not resubscribed. ${failureWords(error)}`);
  }
  await graphCallsRecorded();
  await db().transaction(async (tx) => {
    await tx.update(whatsappAccounts).set({ subscribed: true, updatedAt: new Date() }).where(eq(whatsappAccounts.id, account.id));
    await recordAdminAction(tx, current, meta, {
      action: "whatsapp.resubscribe",
      organizationId: account.organizationId,
      targetType: "whatsapp_account",
      targetId: account.id,
      before: { subscribed: account.subscribed },
      after: { subscribed: true },
    });
  });
  return "Resubscribed: Meta sends this account's webhooks to Jumbe.";
}

/**
 * Disconnect (the tenant's own logic): Meta unsubscribed, then the account and its numbers disconnected.
 * Step-up is the caller's. Answers the toast's sentence.
 */
export async function disconnectAsAdmin(current: CurrentUser, meta: RequestMeta, account: Account, reason: string): Promise<string> {
  if (account.status !== "connected") throw refusal(409, "This account is already disconnected.");
  const failure = await asAdmin(account, () => unsubscribeForDisconnect(account, adminGraphClient()));
  await graphCallsRecorded();
  if (failure) throw refusal(502, `Not disconnected: Meta could not be reached to unsubscribe (${failure}).`);
  await db().transaction(async (tx) => {
    await markDisconnected(tx, account);
    await recordAdminAction(tx, current, meta, {
      action: "whatsapp.disconnect",
      organizationId: account.organizationId,
      targetType: "whatsapp_account",
      targetId: account.id,
      reason,
      before: { status: account.status, subscribed: account.subscribed },
      after: { status: "disconnected", subscribed: false },
    });
  });
  // The tenant's activity log says it happened, and that it was Jumbe (no member of theirs).
  await recordActivity({
    organizationId: account.organizationId,
    userId: null,
    type: "settings",
    status: "warning",
    action: "WhatsApp account disconnected by Jumbe",
    details: `WhatsApp Business Account ${account.wabaId}. Reason: ${reason}`,
  });
  return "Disconnected. The organisation can connect it again from its WhatsApp page.";
}

/** Mark for reconnection: the tenant's WhatsApp page asks them to connect it again, with the reason, until they do. Answers the toast's sentence. */
export async function requestReconnection(current: CurrentUser, meta: RequestMeta, account: Account, reason: string): Promise<string> {
  if (account.status !== "connected") throw refusal(409, "This account is disconnected: its organisation already has to connect it again.");
  await db().transaction(async (tx) => {
    const [after] = await tx
      .update(whatsappAccounts)
      .set({ reconnectRequestedAt: sql`now()`, reconnectReason: reason, updatedAt: new Date() })
      .where(eq(whatsappAccounts.id, account.id))
      .returning({ at: whatsappAccounts.reconnectRequestedAt });
    await recordAdminAction(tx, current, meta, {
      action: "whatsapp.reconnect_requested",
      organizationId: account.organizationId,
      targetType: "whatsapp_account",
      targetId: account.id,
      reason,
      before: { reconnectRequestedAt: account.reconnectRequestedAt?.toISOString() ?? null, reconnectReason: account.reconnectReason },
      after: { reconnectRequestedAt: after?.at?.toISOString() ?? null, reconnectReason: reason },
    });
  });
  return "Marked for reconnection: the organisation sees the request and its reason on its WhatsApp page.";
}
