import { and, asc, desc, eq, ne } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { mpesaShortcodes, paymentC2bReceipts, paymentRequests } from "../../infrastructure/db/schema";
import { isUniqueViolation } from "../../infrastructure/db/errors";
import { env } from "../../infrastructure/config/env";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { encryptSecret, randomToken } from "../../infrastructure/security/crypto";
import { recordActivity } from "../activity";
import { can, type Role } from "../auth";
import { PAYMENTS_REFUSALS, refusePayments } from "./refusals";
import type { MpesaShortcode } from "./shortcodes-access";
import type { AddShortcodeInput, EditShortcodeInput } from "~/lib/schemas/payments";
import { englishOf, words, type Said } from "../../infrastructure/words/said";

/**
 * The organisation's own M-Pesa shortcodes (issue 76, decision 136): added, changed, made the
 * default and removed by owners and admins. Secrets are sealed and never read back to a page; the
 * activity log names the shortcode, never a credential.
 */
export interface PaymentsActor {
  user: { id: string };
  organization: { id: string };
  role: Role;
}

/** What a page shows of a shortcode: no credential, only the consumer key's last four characters. */
export interface ShortcodeView {
  id: string;
  label: string;
  kind: MpesaShortcode["kind"];
  businessShortCode: string;
  tillNumber: string;
  environment: MpesaShortcode["environment"];
  consumerKeyHint: string;
  isDefault: boolean;
  status: MpesaShortcode["status"];
  statusDetail: string | null;
  testedAt: string | null;
  callbackUrls: { stk: string; validation: string; confirmation: string };
}

/**
 * Where Daraja calls for this shortcode: the STK callback, and C2B's validation and confirmation
 * (app/routes/webhooks/pay.ts). No "mpesa" in them: Daraja refuses it in C2B addresses (decision 137).
 */
export function shortcodeCallbackUrls(callbackToken: string) {
  const base = `${env().MPESA_CALLBACK_BASE_URL}/webhooks/pay/${callbackToken}`;
  return { stk: `${base}/stk`, validation: `${base}/c2b/validation`, confirmation: `${base}/c2b/confirmation` };
}

function viewOf(row: MpesaShortcode): ShortcodeView {
  return {
    id: row.id,
    label: row.label,
    kind: row.kind,
    businessShortCode: row.businessShortCode,
    tillNumber: row.tillNumber,
    environment: row.environment,
    consumerKeyHint: row.consumerKeyHint,
    isDefault: row.isDefault,
    status: row.status,
    statusDetail: row.statusDetail,
    testedAt: row.testedAt ? row.testedAt.toISOString() : null,
    callbackUrls: shortcodeCallbackUrls(row.callbackToken),
  };
}

/** How the activity log names a shortcode: its name and number, never a credential (activity/stored-details.ts reads it back). */
export function shortcodeInLog(row: Pick<MpesaShortcode, "label" | "kind" | "businessShortCode" | "tillNumber" | "environment">): Said {
  return row.kind === "till"
    ? words("app_activity_detail_shortcode_till", {
        label: row.label,
        till: row.tillNumber ?? "",
        store: row.businessShortCode,
        environment: row.environment,
      })
    : words("app_activity_detail_shortcode_paybill", { label: row.label, number: row.businessShortCode, environment: row.environment });
}

/** "a, b and c": the last two joined by the language's "and". */
function fieldList([first, ...rest]: Said[]): Said {
  if (!rest.length) return first!;
  if (rest.length === 1) return words("app_activity_detail_list_and", { first: first!, last: rest[0]! });
  return words("app_activity_detail_list_more", { first: first!, rest: fieldList(rest) });
}

const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/** The organisation's shortcodes, the default first, then by age. */
export async function listShortcodes(organizationId: string): Promise<ShortcodeView[]> {
  const rows = await db()
    .select()
    .from(mpesaShortcodes)
    .where(eq(mpesaShortcodes.organizationId, organizationId))
    .orderBy(desc(mpesaShortcodes.isDefault), asc(mpesaShortcodes.createdAt), asc(mpesaShortcodes.id));
  return rows.map(viewOf);
}

function requireManager(actor: PaymentsActor) {
  if (!can(actor.role, "payments:manage")) throw refusePayments(403, "forbidden", PAYMENTS_REFUSALS.forbidden);
}

/** The organisation's shortcode by id: another organisation's, or none, is 404. */
export async function ownShortcode(organizationId: string, id: string): Promise<MpesaShortcode> {
  if (!isUuid(id)) throw refusePayments(404, "not_found", PAYMENTS_REFUSALS.notFound);
  const [row] = await db()
    .select()
    .from(mpesaShortcodes)
    .where(and(eq(mpesaShortcodes.organizationId, organizationId), eq(mpesaShortcodes.id, id)))
    .limit(1);
  if (!row) throw refusePayments(404, "not_found", PAYMENTS_REFUSALS.notFound);
  return row;
}

const logEntry = (actor: PaymentsActor, action: string, details: string, meta?: RequestMeta) => ({
  organizationId: actor.organization.id,
  userId: actor.user.id,
  type: "settings" as const,
  status: "success" as const,
  action,
  details,
  meta,
});

/** Connects a shortcode; the organisation's first is its default. A number already connected in that environment is 409. */
export async function addShortcode(actor: PaymentsActor, input: AddShortcodeInput, meta?: RequestMeta): Promise<ShortcodeView> {
  requireManager(actor);
  const tillNumber = input.kind === "till" ? (input.tillNumber ?? "") : "";
  try {
    const row = await db().transaction(async (tx) => {
      const [existing] = await tx
        .select({ id: mpesaShortcodes.id })
        .from(mpesaShortcodes)
        .where(eq(mpesaShortcodes.organizationId, actor.organization.id))
        .limit(1);
      const [inserted] = await tx
        .insert(mpesaShortcodes)
        .values({
          organizationId: actor.organization.id,
          label: input.label,
          kind: input.kind,
          businessShortCode: input.businessShortCode,
          tillNumber,
          environment: input.environment,
          consumerKeySealed: encryptSecret(input.consumerKey),
          consumerKeyHint: input.consumerKey.slice(-4),
          consumerSecretSealed: encryptSecret(input.consumerSecret),
          passkeySealed: encryptSecret(input.passkey),
          callbackToken: randomToken(32),
          isDefault: !existing,
          createdBy: actor.user.id,
        })
        .returning();
      await recordActivity(logEntry(actor, "M-Pesa shortcode added", englishOf(shortcodeInLog(inserted!)), meta), tx);
      return inserted!;
    });
    return viewOf(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw refusePayments(409, "duplicate", PAYMENTS_REFUSALS.duplicate, "businessShortCode");
    throw error;
  }
}

/**
 * Changes the name and any credential given (an empty field keeps the stored one). New
 * credentials make the shortcode untested again. Answers whether anything changed.
 */
export async function updateShortcode(actor: PaymentsActor, input: EditShortcodeInput, meta?: RequestMeta): Promise<boolean> {
  requireManager(actor);
  const row = await ownShortcode(actor.organization.id, input.shortcode);
  const credentials = {
    ...(input.consumerKey ? { consumerKeySealed: encryptSecret(input.consumerKey), consumerKeyHint: input.consumerKey.slice(-4) } : {}),
    ...(input.consumerSecret ? { consumerSecretSealed: encryptSecret(input.consumerSecret) } : {}),
    ...(input.passkey ? { passkeySealed: encryptSecret(input.passkey) } : {}),
  };
  const renamed = input.label !== row.label;
  const newCredentials = Object.keys(credentials).length > 0;
  if (!renamed && !newCredentials) return false;
  const changed = fieldList(
    [
      renamed ? words("app_activity_detail_field_name") : null,
      input.consumerKey ? words("app_activity_detail_field_consumer_key") : null,
      input.consumerSecret ? words("app_activity_detail_field_consumer_secret") : null,
      input.passkey ? words("app_activity_detail_field_passkey") : null,
    ].filter((field) => field !== null),
  );
  await db().transaction(async (tx) => {
    await tx
      .update(mpesaShortcodes)
      .set({
        label: input.label,
        ...credentials,
        ...(newCredentials ? { status: "untested" as const, statusDetail: null, testedAt: null } : {}),
        updatedAt: new Date(),
      })
      .where(eq(mpesaShortcodes.id, row.id));
    const details = englishOf(
      words("app_activity_detail_shortcode_changed", { shortcode: shortcodeInLog({ ...row, label: input.label }), fields: changed }),
    );
    await recordActivity(logEntry(actor, "M-Pesa shortcode changed", details, meta), tx);
  });
  return true;
}

/** Makes this shortcode the one payment requests use when none is named. */
export async function makeDefaultShortcode(actor: PaymentsActor, id: string, meta?: RequestMeta): Promise<ShortcodeView> {
  requireManager(actor);
  const row = await ownShortcode(actor.organization.id, id);
  if (row.isDefault) return viewOf(row);
  await db().transaction(async (tx) => {
    // One default per organisation (a partial unique index): the old one steps down first.
    await tx
      .update(mpesaShortcodes)
      .set({ isDefault: false, updatedAt: new Date() })
      .where(and(eq(mpesaShortcodes.organizationId, actor.organization.id), eq(mpesaShortcodes.isDefault, true)));
    await tx.update(mpesaShortcodes).set({ isDefault: true, updatedAt: new Date() }).where(eq(mpesaShortcodes.id, row.id));
    await recordActivity(logEntry(actor, "M-Pesa shortcode made default", englishOf(shortcodeInLog(row)), meta), tx);
  });
  return viewOf({ ...row, isDefault: true });
}

/** Removes a shortcode; when it was the default, the oldest other one becomes the default. */
export async function removeShortcode(actor: PaymentsActor, id: string, meta?: RequestMeta): Promise<ShortcodeView> {
  requireManager(actor);
  const row = await ownShortcode(actor.organization.id, id);
  await db().transaction(async (tx) => {
    // Its payment requests are the business's records (paid, with receipts): they keep their shortcode.
    const [used] = await tx
      .select({ id: paymentRequests.id })
      .from(paymentRequests)
      .where(eq(paymentRequests.shortcodeId, row.id))
      .limit(1);
    // So are the payments it received (payment_c2b_receipts).
    const [received] = used
      ? [used]
      : await tx.select({ id: paymentC2bReceipts.id }).from(paymentC2bReceipts).where(eq(paymentC2bReceipts.shortcodeId, row.id)).limit(1);
    if (used || received) throw refusePayments(409, "in_use", PAYMENTS_REFUSALS.inUse);
    await tx.delete(mpesaShortcodes).where(eq(mpesaShortcodes.id, row.id));
    if (row.isDefault) {
      const [next] = await tx
        .select({ id: mpesaShortcodes.id })
        .from(mpesaShortcodes)
        .where(and(eq(mpesaShortcodes.organizationId, actor.organization.id), ne(mpesaShortcodes.id, row.id)))
        .orderBy(asc(mpesaShortcodes.createdAt), asc(mpesaShortcodes.id))
        .limit(1);
      if (next) await tx.update(mpesaShortcodes).set({ isDefault: true, updatedAt: new Date() }).where(eq(mpesaShortcodes.id, next.id));
    }
    await recordActivity(logEntry(actor, "M-Pesa shortcode removed", englishOf(shortcodeInLog(row)), meta), tx);
  });
  return viewOf(row);
}
