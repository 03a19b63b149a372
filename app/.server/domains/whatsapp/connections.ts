import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { preparedQuery } from "../../infrastructure/db/prepared";
import { whatsappAccounts, whatsappPhoneNumbers, whatsappSignupAttempts } from "../../infrastructure/db/schema";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { CurrentUser } from "../auth";
import type { Job } from "../../infrastructure/jobs/queue";
import {
  describeGraphFailure,
  GraphApiError,
  graphClient,
  type GraphClient,
} from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { e164, qualityLabel } from "./phone-format";
import { isUniqueViolation } from "../../infrastructure/db/errors";
import { releaseMessagingLimitHolds, wakeDispatcher } from "../messaging";
import { m } from "~/paraglide/messages";

// One statement: the accounts, each with its numbers (none for an account without any). Built once
// (the ORM took 0.1 ms a call to write this join of two whole tables).
const connectionRows = preparedQuery((database) =>
  database
    .select({ account: whatsappAccounts, number: whatsappPhoneNumbers })
    .from(whatsappAccounts)
    .leftJoin(
      whatsappPhoneNumbers,
      and(
        eq(whatsappPhoneNumbers.accountId, whatsappAccounts.id),
        eq(whatsappPhoneNumbers.organizationId, sql.placeholder("organizationId")),
      ),
    )
    .where(eq(whatsappAccounts.organizationId, sql.placeholder("organizationId")))
    .orderBy(whatsappAccounts.createdAt, whatsappAccounts.id, whatsappPhoneNumbers.createdAt),
);

/** The tenant's WhatsApp accounts and their numbers, for the setup page, the dashboard and the API. */
export async function listConnections(organizationId: string) {
  const rows = await connectionRows({ organizationId });
  const accounts = [...new Map(rows.map((row) => [row.account.id, row.account])).values()];
  const numbers = rows.flatMap((row) => (row.number ? [row.number] : []));
  return accounts.map((account) => ({
    id: account.id,
    wabaId: account.wabaId,
    name: account.name,
    status: account.status,
    connectedAt: account.connectedAt.toISOString(),
    disconnectedAt: account.disconnectedAt?.toISOString() ?? null,
    tokenExpiresAt: account.tokenExpiresAt?.toISOString() ?? null,
    confirmedByMeta: account.accountEvent !== null,
    /** Meta refused the token (190): sending waits until Embedded Signup connects the account again. */
    needsReconnection:
      account.status === "connected" && account.tokenRefusedAt
        ? { since: account.tokenRefusedAt.toISOString(), reason: account.tokenRefusal ?? "" }
        : null,
    /** A platform administrator asked the tenant to connect it again (the admin console's Manage Account), and why. */
    reconnectRequested: account.reconnectRequestedAt
      ? { since: account.reconnectRequestedAt.toISOString(), reason: account.reconnectReason ?? "" }
      : null,
    numbers: numbers
      // A live account shows its live numbers; a disconnected one keeps showing what it had.
      .filter((n) => n.accountId === account.id && (account.status === "disconnected" || n.disconnectedAt === null))
      .map((n) => ({
        id: n.id,
        phoneNumberId: n.phoneNumberId,
        number: e164(n.displayPhoneNumber),
        verifiedName: n.verifiedName,
        quality: qualityLabel(n.qualityRating),
        qualityEvent: n.qualityEvent,
        status: n.status,
        messagingLimit: n.messagingLimit,
        registered: n.platformType === "CLOUD_API",
      })),
  }));
}

export type Connection = Awaited<ReturnType<typeof listConnections>>[number];

/**
 * GET /api/embedded-signup/status. Step 1 is completed while a WABA is connected (a disconnected one
 * no longer counts), error when the tenant's latest signup attempt failed, else pending; Verify
 * Number when a live account's number is registered for the Cloud API; Complete Setup when the app
 * is subscribed and the account live. So the steps always agree with `completed` and the status line.
 */
export async function signupStatus(organizationId: string, known?: Connection[]) {
  const [connections, [lastAttempt]] = await Promise.all([
    known ?? listConnections(organizationId),
    db()
      .select({ outcome: whatsappSignupAttempts.outcome })
      .from(whatsappSignupAttempts)
      .where(eq(whatsappSignupAttempts.organizationId, organizationId))
      .orderBy(desc(whatsappSignupAttempts.createdAt), desc(whatsappSignupAttempts.id))
      .limit(1),
  ]);
  const live = connections.filter((c) => c.status === "connected");
  const connected = live.length > 0;
  const verified = live.some((c) => c.numbers.some((n) => n.registered));
  const completed = live.length > 0 && live.some((c) => c.numbers.some((n) => n.registered));
  const failedLast = lastAttempt?.outcome === "failed";
  return {
    completed,
    steps: [
      {
        id: "embedded-signup",
        title: m.whatsapp_step_signup(),
        status: failedLast && !completed ? "error" : connected ? "completed" : "pending",
      },
      { id: "verify-number", title: m.whatsapp_step_verify(), status: verified ? "completed" : "pending" },
      { id: "complete-setup", title: m.whatsapp_step_complete(), status: completed ? "completed" : "pending" },
    ] as { id: string; title: string; status: "pending" | "completed" | "error" }[],
  };
}

export class ConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectionError";
  }
}

async function ownedAccount(organizationId: string, accountId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(accountId)) return undefined;
  const [account] = await db()
    .select()
    .from(whatsappAccounts)
    .where(and(eq(whatsappAccounts.id, accountId), eq(whatsappAccounts.organizationId, organizationId)))
    .limit(1);
  return account;
}

/** What the disconnect question names, for an account of the tenant that is connected; else null. */
export async function disconnectQuestion(organizationId: string, accountId: string) {
  const account = await ownedAccount(organizationId, accountId);
  if (!account || account.status !== "connected") return null;
  const numbers = await db()
    .select({ display: whatsappPhoneNumbers.displayPhoneNumber })
    .from(whatsappPhoneNumbers)
    .where(and(eq(whatsappPhoneNumbers.accountId, account.id), isNull(whatsappPhoneNumbers.disconnectedAt)))
    .orderBy(whatsappPhoneNumbers.createdAt);
  const name = account.name ?? m.whatsapp_account_fallback({ waba: account.wabaId });
  return { accountId: account.id, label: numbers.length ? `${name} (${numbers.map((n) => e164(n.display)).join(", ")})` : name };
}

/**
 * Disconnect: Meta stops sending this WABA's webhooks to Jumbe (app unsubscribed); the account,
 * numbers, messages and history stay. Returns undefined for an account the tenant does not own.
 */
export async function disconnectAccount(current: CurrentUser, accountId: string, meta: RequestMeta, client: GraphClient = graphClient()) {
  const account = await ownedAccount(current.organization.id, accountId);
  if (!account) return undefined;
  if (account.status === "disconnected") return account;
  const failure = await unsubscribeForDisconnect(account, client);
  if (failure) {
    await recordActivity({
      organizationId: current.organization.id,
      userId: current.user.id,
      type: "settings",
      status: "error",
      action: "WhatsApp disconnect failed",
      details: failure,
      meta,
    });
    throw new ConnectionError(m.whatsapp_refusal_disconnect_unreachable());
  }
  await db().transaction((tx) => markDisconnected(tx, account));
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "settings",
    status: "warning",
    action: "WhatsApp account disconnected",
    details: `WhatsApp Business Account ${account.wabaId}`,
    meta,
  });
  return { ...account, status: "disconnected" as const };
}

/**
 * The first half of a disconnect (the tenant's, or an administrator's): Meta stops sending the WABA's
 * webhooks to Jumbe. Answers Meta's failure in words, or null when done. An expired or revoked token
 * (190) cannot unsubscribe, and cannot be used either: the disconnect goes ahead.
 */
export async function unsubscribeForDisconnect(account: { wabaId: string; accessTokenEncrypted: string }, client: GraphClient) {
  try {
    await client.unsubscribeApp(account.wabaId, decryptSecret(account.accessTokenEncrypted));
    return null;
  } catch (error) {
    if (error instanceof GraphApiError && error.code === 190) return null;
    return describeGraphFailure(error);
  }
}

/** The second half, inside the caller's transaction: the account, numbers, messages and history stay; the numbers are free. */
export async function markDisconnected(tx: Executor, account: { id: string; organizationId: string }) {
  const now = new Date();
  await tx
    .update(whatsappAccounts)
    .set({ status: "disconnected", subscribed: false, disconnectedAt: now, updatedAt: now })
    .where(eq(whatsappAccounts.id, account.id));
  // The numbers stay as history and are free for whoever connects them next.
  await tx
    .update(whatsappPhoneNumbers)
    .set({ disconnectedAt: now, updatedAt: now })
    .where(and(eq(whatsappPhoneNumbers.accountId, account.id), isNull(whatsappPhoneNumbers.disconnectedAt)));
  await refreshPrimaryNumber(tx, account.organizationId);
}

/** Reconnect with the stored token; an expired token needs Embedded Signup again. */
export async function reconnectAccount(current: CurrentUser, accountId: string, meta: RequestMeta, client: GraphClient = graphClient()) {
  const account = await ownedAccount(current.organization.id, accountId);
  if (!account) return undefined;
  if (account.status === "connected") return account;
  if (account.tokenExpiresAt && account.tokenExpiresAt.getTime() <= Date.now())
    throw new ConnectionError(m.whatsapp_refusal_access_expired());
  // After a disconnect the WABA or its numbers may have been connected by another tenant since.
  if (await heldElsewhere(current.organization.id, account.id, account.wabaId)) throw new ConnectionError(m.whatsapp_failure_taken());
  try {
    await client.subscribeApp(account.wabaId, decryptSecret(account.accessTokenEncrypted));
  } catch (error) {
    await recordActivity({
      organizationId: current.organization.id,
      userId: current.user.id,
      type: "settings",
      status: "error",
      action: "WhatsApp reconnect failed",
      details: describeGraphFailure(error),
      meta,
    });
    throw new ConnectionError(
      error instanceof GraphApiError && error.code === 190
        ? m.whatsapp_refusal_access_refused()
        : m.whatsapp_refusal_reconnect_unreachable(),
    );
  }
  try {
    await db().transaction(async (tx) => {
      await tx
        .update(whatsappAccounts)
        .set({
          status: "connected",
          subscribed: true,
          disconnectedAt: null,
          connectedAt: new Date(),
          updatedAt: new Date(),
          // Connected again: an administrator's request to do so is met.
          reconnectRequestedAt: null,
          reconnectReason: null,
        })
        .where(eq(whatsappAccounts.id, account.id));
      await tx
        .update(whatsappPhoneNumbers)
        .set({ disconnectedAt: null, updatedAt: new Date() })
        .where(eq(whatsappPhoneNumbers.accountId, account.id));
      await refreshPrimaryNumber(tx, current.organization.id);
    });
  } catch (error) {
    // Another tenant connected the WABA or a number between the check above and this write.
    if (isUniqueViolation(error)) throw new ConnectionError(m.whatsapp_failure_taken());
    throw error;
  }
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "settings",
    status: "success",
    action: "WhatsApp account reconnected",
    details: `WhatsApp Business Account ${account.wabaId}`,
    meta,
  });
  return { ...account, status: "connected" as const };
}

/** Whether another tenant's live link holds the WABA or one of this account's numbers. */
async function heldElsewhere(organizationId: string, accountId: string, wabaId: string) {
  const found = await queryRows<unknown>(
    db(),
    sql`
    select 1 from whatsapp_accounts where waba_id = ${wabaId} and status = 'connected' and organization_id <> ${organizationId}
    union all
    select 1 from whatsapp_phone_numbers p
    where p.disconnected_at is null and p.organization_id <> ${organizationId}
      and p.phone_number_id in (select phone_number_id from whatsapp_phone_numbers where account_id = ${accountId})
    limit 1`,
  );
  return found.length > 0;
}

/** organizations.whatsapp_number: the first number of a connected account, or none. */
async function refreshPrimaryNumber(tx: Executor, organizationId: string) {
  await tx.execute(sql`
    update organizations set whatsapp_number = (
      select '+' || p.phone_digits from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
      where p.organization_id = ${organizationId} and a.status = 'connected' and p.disconnected_at is null
      order by p.created_at limit 1
    ), updated_at = now()
    where id = ${organizationId}`);
}

/** Job: re-read a number from Graph after a quality event (the event names the change, Graph the state). */
export async function refreshPhoneNumbers(jobs: Job<{ phoneNumberId: string }>[], tx: Executor, client: GraphClient = graphClient()) {
  for (const job of jobs) {
    const found = await queryRows<{ phone_number_id: string; access_token_encrypted: string }>(
      tx,
      sql`
      select p.phone_number_id, a.access_token_encrypted from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
      where p.phone_number_id = ${job.payload.phoneNumberId} and p.disconnected_at is null`,
    );
    const row = found[0];
    if (!row) continue;
    const number = await client.getPhoneNumber(row.phone_number_id, decryptSecret(row.access_token_encrypted));
    await tx.execute(sql`
      update whatsapp_phone_numbers set quality_rating = ${number.qualityRating ?? null}, status = coalesce(${number.status ?? null}, status),
        messaging_limit = coalesce(${number.messagingLimit ?? null}, messaging_limit), verified_name = coalesce(${number.verifiedName ?? null}, verified_name), updated_at = now()
      where phone_number_id = ${row.phone_number_id} and disconnected_at is null`);
    // Graph found a higher tier: what the old limit held goes now (decision 045). The job runs outside a transaction: due at once.
    if (number.messagingLimit && (await releaseMessagingLimitHolds(tx, row.phone_number_id))) wakeDispatcher();
  }
}
