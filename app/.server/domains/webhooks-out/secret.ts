import { createHmac, randomBytes } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { webhookEndpoints } from "../../infrastructure/db/schema";
import { decryptSecret, encryptSecret } from "../../infrastructure/security/crypto";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { CurrentUser } from "../auth";

/** Standard Webhooks' secret format: `whsec_` and the base64 of the key's bytes (32 random bytes here). */
export const SECRET_PREFIX = "whsec_";
/** After a rotation the old secret signs beside the new one this long, so receivers can switch over. */
export const PREVIOUS_SECRET_HOURS = 24;

export function newWebhookSecret() {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** The HMAC key a secret stands for: its bytes, base64-decoded after the prefix. */
export function secretKey(secret: string) {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

/**
 * The `webhook-signature` header: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, one per
 * secret (the current one first), separated by spaces as the specification allows during a rotation.
 */
export function signatureHeader(id: string, timestamp: number, body: string, secrets: string[]) {
  return secrets
    .map((secret) => `v1,${createHmac("sha256", secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`)
    .join(" ");
}

/**
 * The endpoint's signing secrets: the current one (made here if the endpoint predates secrets) and
 * the previous one while it is still honoured. Null without an endpoint.
 */
export async function signingSecrets(organizationId: string): Promise<{ current: string; previous: string | null } | null> {
  const [row] = await db()
    .select({
      secretEncrypted: webhookEndpoints.secretEncrypted,
      previousSecretEncrypted: webhookEndpoints.previousSecretEncrypted,
      previousLive: sql<boolean>`coalesce(${webhookEndpoints.previousSecretExpiresAt} > now(), false)`,
    })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId))
    .limit(1);
  if (!row) return null;
  const current = row.secretEncrypted ? decryptSecret(row.secretEncrypted) : await ensureSecret(organizationId);
  if (!current) return null;
  return { current, previous: row.previousLive && row.previousSecretEncrypted ? decryptSecret(row.previousSecretEncrypted) : null };
}

/** Gives an endpoint saved before secrets existed its first one; two at once agree on the winner. */
async function ensureSecret(organizationId: string) {
  await db()
    .update(webhookEndpoints)
    .set({ secretEncrypted: encryptSecret(newWebhookSecret()), secretCreatedAt: sql`now()` })
    .where(and(eq(webhookEndpoints.organizationId, organizationId), isNull(webhookEndpoints.secretEncrypted)));
  const [row] = await db()
    .select({ secretEncrypted: webhookEndpoints.secretEncrypted })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId));
  return row?.secretEncrypted ? decryptSecret(row.secretEncrypted) : null;
}

/** The signing secret for the page, or null without an endpoint. Every read is logged: it is a credential. */
export async function readWebhookSecret(current: CurrentUser, meta: RequestMeta) {
  const secrets = await signingSecrets(current.organization.id);
  if (!secrets) return null;
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "security",
    status: "success",
    action: "Webhook signing secret viewed",
    details: englishOf(words("app_activity_detail_webhook_secret", { prefix: secrets.current.slice(0, SECRET_PREFIX.length + 4) })),
    meta,
  });
  return secrets.current;
}

/**
 * A new signing secret; the old one keeps signing beside it for PREVIOUS_SECRET_HOURS. False without
 * an endpoint.
 */
export async function rotateWebhookSecret(current: CurrentUser, meta: RequestMeta) {
  const fresh = newWebhookSecret();
  const rotated = await db()
    .update(webhookEndpoints)
    .set({
      previousSecretEncrypted: sql`${webhookEndpoints.secretEncrypted}`,
      previousSecretExpiresAt: sql`now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
      secretEncrypted: encryptSecret(fresh),
      secretCreatedAt: sql`now()`,
    })
    .where(eq(webhookEndpoints.organizationId, current.organization.id))
    .returning({ organizationId: webhookEndpoints.organizationId });
  if (!rotated.length) return false;
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "security",
    status: "warning",
    action: "Webhook signing secret rotated",
    details: englishOf(
      words("app_activity_detail_webhook_secret_rotated", {
        prefix: fresh.slice(0, SECRET_PREFIX.length + 4),
        hours: PREVIOUS_SECRET_HOURS,
      }),
    ),
    meta,
  });
  return true;
}
