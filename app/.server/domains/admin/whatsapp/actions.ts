import { performance } from "node:perf_hooks";
import { eq, sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { whatsappAccounts } from "../../../infrastructure/db/schema";
import { env } from "../../../infrastructure/config/env";
import type { CurrentUser } from "../../auth";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordActivity } from "../../activity";
import { decryptSecret } from "../../../infrastructure/security/crypto";
import {
  createGraphClient,
  describeGraphFailure,
  GraphApiError,
  type GraphClient,
} from "../../../infrastructure/clients/whatsapp-graph/graph-client";
import { graphCallsRecorded, recordGraphCall, withGraphCallContext } from "../../../infrastructure/clients/whatsapp-graph/graph-call-log";
import { markDisconnected, unsubscribeForDisconnect } from "../../whatsapp";
import { recordAdminAction } from "../audit";
import { Refusal } from "../../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

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
  let result: Omit<ConnectionTest, "latencyMs" | "at"> & { stored: string };
  try {
    const waba = await asAdmin(account, () => adminGraphClient().getWaba(account.wabaId, decryptSecret(account.accessTokenEncrypted)));
    // The page reads the answer in the administrator's language; the audit log keeps it in English, as it stores everything.
    const answer = (locale?: "en") =>
      waba.name
        ? m.admin_test_answered_named({ id: waba.id, name: waba.name }, { locale })
        : m.admin_test_answered({ id: waba.id }, { locale });
    result = { ok: true, answer: answer(), stored: answer("en") };
  } catch (error) {
    result = { ok: false, answer: failureWords(error), stored: failureWords(error, "en") };
  }
  const { stored, ...answered } = result;
  const test = { ...answered, latencyMs: Math.round(performance.now() - started), at: new Date().toISOString() };
  await graphCallsRecorded();
  await recordAdminAction(db(), current, meta, {
    action: "whatsapp.test",
    organizationId: account.organizationId,
    targetType: "whatsapp_account",
    targetId: account.id,
    after: { ok: test.ok, latencyMs: test.latencyMs, answer: stored },
  });
  return test;
}

/** Why a call to Meta failed, in words (Meta's own summary and the network's reason are as they came). */
function failureWords(error: unknown, locale?: "en") {
  if (error instanceof GraphApiError)
    return error.code === 190
      ? m.admin_test_refused_token({ status: error.status, summary: error.summary }, { locale })
      : m.admin_test_refused({ status: error.status, summary: error.summary }, { locale });
  return m.admin_test_unreachable({ reason: describeGraphFailure(error) }, { locale });
}

/** Resubscribe: POST /{waba}/subscribed_apps, so Meta sends the WABA's webhooks to Jumbe again. Answers the toast's sentence. */
export async function resubscribeAccount(current: CurrentUser, meta: RequestMeta, account: Account): Promise<string> {
  if (account.status !== "connected") throw refusal(409, m.admin_manage_refused_disconnected());
  try {
    await asAdmin(account, () => adminGraphClient().subscribeApp(account.wabaId, decryptSecret(account.accessTokenEncrypted)));
  } catch (error) {
    await graphCallsRecorded();
    throw refusal(502, m.admin_manage_not_resubscribed({ reason: failureWords(error) }));
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
  return m.admin_manage_resubscribed_toast();
}

/**
 * Disconnect (the tenant's own logic): Meta unsubscribed, then the account and its numbers disconnected.
 * Step-up is the caller's. Answers the toast's sentence.
 */
export async function disconnectAsAdmin(current: CurrentUser, meta: RequestMeta, account: Account, reason: string): Promise<string> {
  if (account.status !== "connected") throw refusal(409, m.admin_manage_already_disconnected());
  const failure = await asAdmin(account, () => unsubscribeForDisconnect(account, adminGraphClient()));
  await graphCallsRecorded();
  if (failure) throw refusal(502, m.admin_manage_not_disconnected({ reason: failure }));
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
  return m.admin_manage_disconnected_toast();
}

/** Mark for reconnection: the tenant's WhatsApp page asks them to connect it again, with the reason, until they do. Answers the toast's sentence. */
export async function requestReconnection(current: CurrentUser, meta: RequestMeta, account: Account, reason: string): Promise<string> {
  if (account.status !== "connected") throw refusal(409, m.admin_manage_reconnect_refused());
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
  return m.admin_manage_reconnect_toast();
}
