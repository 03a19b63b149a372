import { releaseHeldMessages, wakeDispatcher } from "../messaging";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import {
  organizations,
  whatsappAccounts,
  whatsappPhoneNumbers,
  whatsappRegistrationPins,
  whatsappSignupAttempts,
} from "../../infrastructure/db/schema";
import { decryptSecret, encryptSecret, randomDigits } from "../../infrastructure/security/crypto";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { wakeWorkers } from "../../infrastructure/jobs/worker";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { CurrentUser } from "../auth";
import { log } from "../../infrastructure/log";
import {
  describeGraphFailure,
  graphClient,
  type GraphClient,
  type GraphPhoneNumber,
} from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { e164, phoneDigits } from "./phone-format";
import { isUniqueViolation } from "../../infrastructure/db/errors";

/**
 * Embedded Signup, server side: exchange the code at once (Meta's codes expire after 30 seconds), check that
 * the token really grants the WABA the browser named, register the number, subscribe the app, and
 * store it all. A failure on any step leaves nothing half-connected.
 */

export type SignupFailureReason = "not_granted" | "taken" | "no_numbers" | "graph";

export class EmbeddedSignupError extends Error {
  constructor(
    readonly reason: SignupFailureReason,
    message: string,
    readonly step?: string,
  ) {
    super(message);
    this.name = "EmbeddedSignupError";
  }
}

export interface EmbeddedSignupInput {
  code: string;
  wabaId: string;
  /** From the session-info message; when absent every number of the WABA is connected. */
  phoneNumberId?: string;
}

export interface ConnectedAccount {
  accountId: string;
  wabaId: string;
  numbers: { phoneNumberId: string; displayPhoneNumber: string; verifiedName?: string; qualityRating?: string }[];
}

export async function completeEmbeddedSignup(
  current: CurrentUser,
  input: EmbeddedSignupInput,
  meta: RequestMeta,
  client: GraphClient = graphClient(),
): Promise<ConnectedAccount> {
  const organizationId = current.organization.id;
  const base = { organizationId, userId: current.user.id, meta };
  let subscribedHere = false;
  let token: string | undefined;
  try {
    await assertWabaAvailable(organizationId, input.wabaId);
    const exchanged = await client.exchangeCode(input.code);
    token = exchanged.accessToken;
    const debug = await client.debugToken(token);
    assertGrantsWaba(debug, input.wabaId);
    const expiresAt = tokenExpiry(debug.expiresAt, exchanged.expiresIn);

    const listed = await client.listPhoneNumbers(input.wabaId, token);
    const chosen = input.phoneNumberId ? listed.filter((n) => n.id === input.phoneNumberId) : listed;
    if (input.phoneNumberId && !chosen.length)
      throw new EmbeddedSignupError(
        "not_granted",
        englishOf(words("app_activity_detail_signup_number_not_in_account", { number: input.phoneNumberId, waba: input.wabaId })),
      );
    if (!chosen.length) throw new EmbeddedSignupError("no_numbers", englishOf(words("app_activity_detail_signup_no_numbers")));

    const registered = new Map<string, Date>();
    for (const number of chosen) {
      // Registration is needed once per number for the Cloud API; a registered number says CLOUD_API.
      if (number.platformType === "CLOUD_API") continue;
      const pin = await registrationPin(organizationId, number.id);
      await client.registerPhoneNumber(number.id, token, pin);
      registered.set(number.id, new Date());
    }

    const wasSubscribed = (await liveConnectionOf(input.wabaId))?.subscribed ?? false;
    await client.subscribeApp(input.wabaId, token);
    subscribedHere = !wasSubscribed;

    const waba = await client.getWaba(input.wabaId, token).catch(() => undefined);
    const account = await storeConnection(organizationId, input.wabaId, waba?.name, token, expiresAt, chosen, registered);
    subscribedHere = false;

    await recordSignupAttempt({ organizationId, userId: current.user.id, wabaId: input.wabaId, outcome: "connected" });
    await recordActivity({
      ...base,
      type: "settings",
      status: "success",
      action: "WhatsApp account connected",
      details: `WhatsApp Business Account ${input.wabaId} with ${chosen.map((n) => e164(n.displayPhoneNumber)).join(", ")}`,
    });
    wakeWorkers();
    return account;
  } catch (error) {
    // Undo the one outside change that would keep webhooks flowing for an account Jumbe does not
    // store, unless a live connection (another tenant's that won a race, say) now relies on it.
    if (subscribedHere && token && !(await liveConnectionOf(input.wabaId))) {
      await client
        .unsubscribeApp(input.wabaId, token)
        .catch((undo: unknown) => log().error({ err: undo, wabaId: input.wabaId }, "could not undo the app subscription"));
    }
    const reason = describeGraphFailure(error);
    await recordSignupAttempt({ organizationId, userId: current.user.id, wabaId: input.wabaId, outcome: "failed", reason });
    await recordActivity({ ...base, type: "settings", status: "error", action: "WhatsApp connection failed", details: reason });
    throw error;
  }
}

/** Keeps the attempt's outcome: the setup steps read the latest one (signupStatus in connections.ts). */
async function recordSignupAttempt(attempt: {
  organizationId: string;
  userId: string;
  wabaId: string;
  outcome: "connected" | "failed";
  reason?: string;
}) {
  await db()
    .insert(whatsappSignupAttempts)
    .values({ ...attempt, reason: attempt.reason?.slice(0, 1000) ?? null });
}

// A failure's words are stored in English (the activity log's details, the attempt's reason) and said
// in the log's reader's words (activity/stored-details.ts).
const taken = () => englishOf(words("app_activity_detail_signup_account_taken"));

/**
 * A live WABA belongs to one tenant: another tenant's is refused before anything happens at Meta.
 * A disconnected link no longer holds it, so anyone may connect it then.
 */
async function assertWabaAvailable(organizationId: string, wabaId: string) {
  const [owner] = await db()
    .select({ organizationId: whatsappAccounts.organizationId })
    .from(whatsappAccounts)
    .where(and(eq(whatsappAccounts.wabaId, wabaId), eq(whatsappAccounts.status, "connected")))
    .limit(1);
  if (owner && owner.organizationId !== organizationId) throw new EmbeddedSignupError("taken", taken());
}

/** The token must grant management of exactly the WABA the browser reported (a spoofed message names another). */
function assertGrantsWaba(debug: Awaited<ReturnType<GraphClient["debugToken"]>>, wabaId: string) {
  const management = debug.granularScopes.find((g) => g.scope === "whatsapp_business_management");
  if (!debug.isValid || !management?.targetIds.includes(wabaId))
    throw new EmbeddedSignupError("not_granted", englishOf(words("app_activity_detail_signup_not_granted", { waba: wabaId })));
}

function tokenExpiry(expiresAt: number | undefined, expiresIn: number | undefined) {
  if (expiresAt && expiresAt > 0) return new Date(expiresAt * 1000);
  if (expiresIn && expiresIn > 0) return new Date(Date.now() + expiresIn * 1000);
  return null;
}

/** The PIN Jumbe set before for this number, or a new one stored (encrypted) before Meta sees it. */
async function registrationPin(organizationId: string, phoneNumberId: string) {
  const [existing] = await db()
    .select()
    .from(whatsappRegistrationPins)
    .where(eq(whatsappRegistrationPins.phoneNumberId, phoneNumberId))
    .limit(1);
  if (existing) {
    if (existing.organizationId !== organizationId)
      await db().update(whatsappRegistrationPins).set({ organizationId }).where(eq(whatsappRegistrationPins.phoneNumberId, phoneNumberId));
    return decryptSecret(existing.pinEncrypted);
  }
  const pin = randomDigits(6);
  await db()
    .insert(whatsappRegistrationPins)
    .values({ phoneNumberId, organizationId, pinEncrypted: encryptSecret(pin) })
    .onConflictDoNothing();
  const [stored] = await db()
    .select()
    .from(whatsappRegistrationPins)
    .where(eq(whatsappRegistrationPins.phoneNumberId, phoneNumberId))
    .limit(1);
  return stored ? decryptSecret(stored.pinEncrypted) : pin;
}

/** Any tenant's live connection of the WABA (which Meta's subscription then serves), or undefined. */
async function liveConnectionOf(wabaId: string) {
  const [row] = await db()
    .select({ subscribed: whatsappAccounts.subscribed })
    .from(whatsappAccounts)
    .where(and(eq(whatsappAccounts.wabaId, wabaId), eq(whatsappAccounts.status, "connected")))
    .limit(1);
  return row;
}

/** PostgreSQL's unique_violation, as the driver or drizzle's wrapper carries it. */
/**
 * Changes Meta sent for an account before it was connected wait unrouted; connecting it queues their
 * replay (the webhook receiver's handler runs it: composition/job-handlers.ts).
 */
export const REPLAY_UNROUTED_QUEUE = "whatsapp.replay-unrouted";

async function storeConnection(
  organizationId: string,
  wabaId: string,
  name: string | undefined,
  token: string,
  tokenExpiresAt: Date | null,
  numbers: GraphPhoneNumber[],
  registered: Map<string, Date>,
): Promise<ConnectedAccount> {
  try {
    const connected = await writeConnection(organizationId, wabaId, name, token, tokenExpiresAt, numbers, registered);
    // Messages that waited for this account's reconnection go now.
    if (await releaseHeldMessages(connected.accountId)) wakeDispatcher();
    return connected;
  } catch (error) {
    // A tenant that won a race for the WABA or a number committed first: its live row refuses ours.
    throw isUniqueViolation(error) ? new EmbeddedSignupError("taken", taken()) : error;
  }
}

// long: one transaction stores a connection whole: the account row, its numbers, the organisation's number and the webhooks kept for it, each write keyed on the row the one before returned
async function writeConnection(
  ...[organizationId, wabaId, name, token, tokenExpiresAt, numbers, registered]: Parameters<typeof storeConnection>
): Promise<ConnectedAccount> {
  // long: the connection's transaction: the account row, its numbers, the organisation's number and the webhooks kept for it, each keyed on the row the one before returned
  return db().transaction(async (tx) => {
    const encrypted = encryptSecret(token);
    // The tenant's own earlier link to this WABA (live, or disconnected and kept as history) comes back rather than a second row.
    const [own] = await tx
      .select({ id: whatsappAccounts.id })
      .from(whatsappAccounts)
      .where(and(eq(whatsappAccounts.wabaId, wabaId), eq(whatsappAccounts.organizationId, organizationId)))
      .orderBy(sql`${whatsappAccounts.status} = 'connected' desc`, desc(whatsappAccounts.connectedAt))
      .limit(1);
    const [account] = own
      ? await tx
          .update(whatsappAccounts)
          .set({
            name: sql`coalesce(${name ?? null}, ${whatsappAccounts.name})`,
            accessTokenEncrypted: encrypted,
            tokenExpiresAt,
            // A new token: Meta's earlier refusal (190) no longer stands.
            tokenRefusedAt: null,
            tokenRefusal: null,
            // Connected again: an administrator's request to do so (admin console) is met.
            reconnectRequestedAt: null,
            reconnectReason: null,
            subscribed: true,
            status: "connected",
            connectedAt: sql`now()`,
            disconnectedAt: null,
            updatedAt: sql`now()`,
          })
          .where(eq(whatsappAccounts.id, own.id))
          .returning({ id: whatsappAccounts.id })
      : await tx
          .insert(whatsappAccounts)
          .values({
            organizationId,
            wabaId,
            name: name ?? null,
            accessTokenEncrypted: encrypted,
            tokenExpiresAt,
            subscribed: true,
            status: "connected",
          })
          // Another tenant's live link to it: nothing is inserted and the attempt is refused below.
          .onConflictDoNothing({ target: whatsappAccounts.wabaId, where: sql`status = 'connected'` })
          .returning({ id: whatsappAccounts.id });
    if (!account) throw new EmbeddedSignupError("taken", taken());

    for (const number of numbers) {
      const values = {
        organizationId,
        accountId: account.id,
        phoneNumberId: number.id,
        displayPhoneNumber: number.displayPhoneNumber,
        phoneDigits: phoneDigits(number.displayPhoneNumber),
        verifiedName: number.verifiedName ?? null,
        qualityRating: number.qualityRating ?? null,
        status: registered.has(number.id) ? "CONNECTED" : (number.status ?? null),
        codeVerificationStatus: number.codeVerificationStatus ?? null,
        platformType: registered.has(number.id) ? "CLOUD_API" : (number.platformType ?? null),
        messagingLimit: number.messagingLimit ?? null,
        registeredAt: registered.get(number.id) ?? null,
        disconnectedAt: null,
      };
      const [ownNumber] = await tx
        .select({ id: whatsappPhoneNumbers.id })
        .from(whatsappPhoneNumbers)
        .where(and(eq(whatsappPhoneNumbers.phoneNumberId, number.id), eq(whatsappPhoneNumbers.organizationId, organizationId)))
        .orderBy(sql`${whatsappPhoneNumbers.disconnectedAt} is null desc`, desc(whatsappPhoneNumbers.createdAt))
        .limit(1);
      const [saved] = ownNumber
        ? await tx
            .update(whatsappPhoneNumbers)
            .set({
              ...values,
              registeredAt: sql`coalesce(${values.registeredAt}, ${whatsappPhoneNumbers.registeredAt})`,
              updatedAt: sql`now()`,
            })
            .where(eq(whatsappPhoneNumbers.id, ownNumber.id))
            .returning({ id: whatsappPhoneNumbers.id })
        : await tx
            .insert(whatsappPhoneNumbers)
            .values(values)
            .onConflictDoNothing({ target: whatsappPhoneNumbers.phoneNumberId, where: isNull(whatsappPhoneNumbers.disconnectedAt) })
            .returning({ id: whatsappPhoneNumbers.id });
      if (!saved)
        throw new EmbeddedSignupError(
          "taken",
          englishOf(words("app_activity_detail_signup_number_taken", { number: e164(number.displayPhoneNumber) })),
        );
    }

    const primary = numbers[0]!;
    await tx
      .update(organizations)
      .set({ whatsappNumber: sql`coalesce(${organizations.whatsappNumber}, ${e164(primary.displayPhoneNumber)})`, updatedAt: sql`now()` })
      .where(eq(organizations.id, organizationId));
    // Webhooks that beat the callback here (PARTNER_ADDED usually does) were kept; apply them now.
    await enqueueJob(REPLAY_UNROUTED_QUEUE, { wabaId }, { executor: tx, uniqueKey: `replay-unrouted:${wabaId}` });
    return {
      accountId: account.id,
      wabaId,
      numbers: numbers.map((n) => ({
        phoneNumberId: n.id,
        displayPhoneNumber: e164(n.displayPhoneNumber),
        verifiedName: n.verifiedName,
        qualityRating: n.qualityRating,
      })),
    };
  });
}
