import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { smsConnections } from "../../infrastructure/db/schema";
import { env } from "../../infrastructure/config/env";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { decryptSecret, encryptSecret, randomToken } from "../../infrastructure/security/crypto";
import { AfricastalkingError, africastalkingClient, type AfricastalkingCredentials } from "../../infrastructure/clients/africastalking";
import { englishOf, words, type MessageKey, type Said } from "../../infrastructure/words/said";
import { log } from "../../infrastructure/log";
import { recordActivity } from "../activity";
import { can, type Role } from "../auth";
import { refuseSms, SMS_REFUSALS } from "./refusals";
import type { SaveSmsInput } from "~/lib/schemas/sms";
import { m } from "~/paraglide/messages";

/**
 * Settings → SMS (issue 77, decision 148): the organisation's own Africa's Talking application. One
 * connection an organisation; the API key is sealed and never read back to a page, a log or the
 * activity log; the callback URLs carry a random token that binds AT's unsigned callbacks to it.
 */
export interface SmsActor {
  user: { id: string };
  organization: { id: string };
  role: Role;
}

export type SmsConnection = typeof smsConnections.$inferSelect;

/** What a page shows: no key, only its last four characters. */
export interface SmsConnectionView {
  username: string;
  apiKeyHint: string;
  senderId: string;
  status: SmsConnection["status"];
  statusDetail: string | null;
  balanceText: string | null;
  testedAt: string | null;
  callbackUrls: { delivery: string; incoming: string; optout: string };
}

/** Where AT posts for this organisation (app/routes/webhooks/sms.ts). */
export function smsCallbackUrls(callbackToken: string) {
  const base = `${env().APP_URL}/webhooks/sms/${callbackToken}`;
  return { delivery: `${base}/delivery`, incoming: `${base}/incoming`, optout: `${base}/optout` };
}

export const SMS_FAILURES = ["wrong_keys", "refused", "unreachable", "unexpected"] as const;
export type SmsFailure = (typeof SMS_FAILURES)[number];
const FAILURE_WORDS: Record<SmsFailure, MessageKey> = {
  wrong_keys: "sms_reason_wrong_keys",
  refused: "sms_reason_refused",
  unreachable: "sms_reason_unreachable",
  unexpected: "sms_reason_unexpected",
};

/** The stored English of a failure, said in the request's language. */
export function smsStatusInWords(stored: string | null): string | null {
  if (!stored) return null;
  const failure = SMS_FAILURES.find((f) => englishOf(words(FAILURE_WORDS[f])) === stored);
  return failure ? (m[FAILURE_WORDS[failure]] as () => string)() : stored;
}

function viewOf(row: SmsConnection): SmsConnectionView {
  return {
    username: row.username,
    apiKeyHint: row.apiKeyHint,
    senderId: row.senderId,
    status: row.status,
    statusDetail: smsStatusInWords(row.statusDetail),
    balanceText: row.balanceText,
    testedAt: row.testedAt ? row.testedAt.toISOString() : null,
    callbackUrls: smsCallbackUrls(row.callbackToken),
  };
}

/** How the activity log names the connection: the username and sender, never the key. */
export function smsConnectionInLog(row: Pick<SmsConnection, "username" | "senderId">): Said {
  return row.senderId
    ? words("sms_activity_detail_connection", { username: row.username, sender: row.senderId })
    : words("sms_activity_detail_connection_default", { username: row.username });
}

export async function smsConnectionOf(organizationId: string): Promise<SmsConnection | null> {
  const [row] = await db().select().from(smsConnections).where(eq(smsConnections.organizationId, organizationId)).limit(1);
  return row ?? null;
}

export async function smsConnectionView(organizationId: string): Promise<SmsConnectionView | null> {
  const row = await smsConnectionOf(organizationId);
  return row ? viewOf(row) : null;
}

/** The connection a callback's token names; null for an unknown or malformed token. */
export async function smsConnectionByToken(token: string): Promise<SmsConnection | null> {
  if (!/^[A-Za-z0-9_-]{16,100}$/.test(token)) return null;
  const [row] = await db().select().from(smsConnections).where(eq(smsConnections.callbackToken, token)).limit(1);
  return row ?? null;
}

/** The credentials for a call to AT (server-side only: never to a page or a log). */
export function smsCredentials(row: SmsConnection): AfricastalkingCredentials {
  return { username: row.username, apiKey: decryptSecret(row.apiKeySealed) };
}

function requireManager(actor: SmsActor) {
  if (!can(actor.role, "whatsapp:manage")) throw refuseSms(403, "forbidden", SMS_REFUSALS.forbidden);
}

const logEntry = (actor: SmsActor, action: string, details: string, status: "success" | "warning", meta?: RequestMeta) => ({
  organizationId: actor.organization.id,
  userId: actor.user.id,
  type: "settings" as const,
  status,
  action,
  details,
  meta,
});

/**
 * Connects Africa's Talking, or changes the connection (an empty key keeps the stored one). New
 * credentials make it untested again. Answers whether anything changed.
 */
export async function saveSmsConnection(actor: SmsActor, input: SaveSmsInput, meta?: RequestMeta): Promise<boolean> {
  requireManager(actor);
  const existing = await smsConnectionOf(actor.organization.id);
  const apiKey = input.apiKey ?? "";
  if (!existing && !apiKey) throw refuseSms(422, "key_required", SMS_REFUSALS.keyRequired, "apiKey");
  const senderId = input.senderId ?? "";
  if (existing && !apiKey && existing.username === input.username && existing.senderId === senderId) return false;
  const key = apiKey ? { apiKeySealed: encryptSecret(apiKey), apiKeyHint: apiKey.slice(-4) } : {};
  const untested = apiKey || existing?.username !== input.username;
  await db().transaction(async (tx) => {
    if (existing)
      await tx
        .update(smsConnections)
        .set({
          username: input.username,
          senderId,
          ...key,
          ...(untested ? { status: "untested" as const, statusDetail: null, testedAt: null, balanceText: null } : {}),
          updatedAt: new Date(),
        })
        .where(eq(smsConnections.id, existing.id));
    else
      await tx.insert(smsConnections).values({
        organizationId: actor.organization.id,
        username: input.username,
        senderId,
        apiKeySealed: encryptSecret(apiKey),
        apiKeyHint: apiKey.slice(-4),
        callbackToken: randomToken(32),
        createdBy: actor.user.id,
      });
    const details = englishOf(smsConnectionInLog({ username: input.username, senderId }));
    await recordActivity(logEntry(actor, existing ? "SMS connection changed" : "SMS connected", details, "success", meta), tx);
  });
  return true;
}

function failureOf(error: unknown): SmsFailure {
  if (error instanceof AfricastalkingError) {
    if (error.kind === "auth") return "wrong_keys";
    if (error.kind === "refused") return "refused";
    if (error.kind === "timeout" || error.kind === "network" || error.kind === "server") return "unreachable";
  }
  log().warn(
    { err: error instanceof AfricastalkingError ? { kind: error.kind, status: error.httpStatus } : String(error) },
    "SMS test: unexpected answer",
  );
  return "unexpected";
}

export interface SmsTestResult {
  working: boolean;
  /** AT's balance when working; the reason in the request's language when not. */
  balance: string | null;
  reason: string | null;
}

/** "Test connection": AT's balance call with the stored credentials; what it found is stored and logged. */
export async function testSmsConnection(actor: SmsActor, meta?: RequestMeta): Promise<SmsTestResult> {
  requireManager(actor);
  const row = await smsConnectionOf(actor.organization.id);
  if (!row) throw refuseSms(404, "not_connected", SMS_REFUSALS.notConnected);
  let balance: string | null = null;
  let failure: SmsFailure | null = null;
  try {
    balance = (await africastalkingClient().fetchBalance(smsCredentials(row))).text;
  } catch (error) {
    failure = failureOf(error);
  }
  await db().transaction(async (tx) => {
    await tx
      .update(smsConnections)
      .set({
        status: failure ? "failing" : "working",
        statusDetail: failure ? englishOf(words(FAILURE_WORDS[failure])) : null,
        balanceText: balance,
        testedAt: new Date(),
        updatedAt: new Date(),
      })
      .where(eq(smsConnections.id, row.id));
    const details = englishOf(
      failure
        ? words("sms_activity_detail_failing", { connection: smsConnectionInLog(row), reason: words(FAILURE_WORDS[failure]) })
        : smsConnectionInLog(row),
    );
    await recordActivity(logEntry(actor, "SMS connection tested", details, failure ? "warning" : "success", meta), tx);
  });
  return { working: !failure, balance, reason: failure ? (m[FAILURE_WORDS[failure]] as () => string)() : null };
}

/** Disconnects: the key is deleted; the SMS already sent and received stay in their conversations. */
export async function removeSmsConnection(actor: SmsActor, meta?: RequestMeta): Promise<void> {
  requireManager(actor);
  const row = await smsConnectionOf(actor.organization.id);
  if (!row) throw refuseSms(404, "not_connected", SMS_REFUSALS.notConnected);
  await db().transaction(async (tx) => {
    await tx.delete(smsConnections).where(eq(smsConnections.id, row.id));
    await recordActivity(logEntry(actor, "SMS disconnected", englishOf(smsConnectionInLog(row)), "success", meta), tx);
  });
}

export { viewOf as smsConnectionViewOf };
