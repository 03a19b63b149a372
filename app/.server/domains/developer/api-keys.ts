import { and, eq, isNull, sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { apiKeyReaders, apiKeys } from "../../infrastructure/db/schema";
import { constantTimeEqual, decryptSecret, encryptSecret, randomToken, sha256 } from "../../infrastructure/security/crypto";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { CurrentUser, Role } from "../auth";
import {
  bucketPrefix,
  countHitStatement,
  rateLimitResult,
  windowOf,
  type CountedHit,
  type RateLimitRule,
} from "../../infrastructure/security/rate-limit";

/** `jmb_live_` and 43 characters of base64url: 256 random bits, recognisable in logs and by secret scanners. */
export const KEY_PREFIX = "jmb_live_";
const KEY_SHAPE = /^jmb_live_[A-Za-z0-9_-]{43}$/;

function newKey() {
  const key = `${KEY_PREFIX}${randomToken(32)}`;
  return { key, keyHash: sha256(key), keyEncrypted: encryptSecret(key), prefix: key.slice(0, KEY_PREFIX.length + 4) };
}

export interface ApiKeyView {
  key: string;
  prefix: string;
  createdAt: string;
}

async function liveKey(organizationId: string) {
  const [row] = await db()
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.organizationId, organizationId), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row;
}

/**
 * Notes that a member was shown the key in full (made, regenerated or revealed): they hold it from
 * now on, so they cannot approve a campaign made with it (decision 045).
 */
async function noteKeyHolder(executor: Executor, apiKeyId: string, userId: string) {
  await executor.insert(apiKeyReaders).values({ apiKeyId, userId }).onConflictDoNothing();
}

/** Whether the member has held this key: they made or regenerated it, or revealed it since (decision 045). */
export async function hasHeldApiKey(executor: Executor, apiKeyId: string, userId: string) {
  const found = await queryRows<unknown>(
    executor,
    sql`
    select 1 from api_key_readers where api_key_id = ${apiKeyId} and user_id = ${userId}
    union all
    select 1 from api_keys where id = ${apiKeyId} and created_by = ${userId}
    limit 1`,
  );
  return found.length > 0;
}

/** The tenant's live key, made on first use. Every read is logged, and its reader noted: the key is a credential. */
export async function readApiKey(current: CurrentUser, meta: RequestMeta): Promise<ApiKeyView> {
  const organizationId = current.organization.id;
  let row = await liveKey(organizationId);
  if (!row) {
    const fresh = newKey();
    [row] = await db()
      .insert(apiKeys)
      .values({
        organizationId,
        createdBy: current.user.id,
        keyHash: fresh.keyHash,
        keyEncrypted: fresh.keyEncrypted,
        prefix: fresh.prefix,
      })
      .onConflictDoNothing()
      .returning();
    // Two first reads at once: the other one's key won.
    row ??= await liveKey(organizationId);
    if (!row) throw new Error("API key could not be created");
    await recordActivity({
      organizationId,
      userId: current.user.id,
      type: "security",
      status: "success",
      action: "API key created",
      details: `Key ${row.prefix}...`,
      meta,
    });
  }
  await noteKeyHolder(db(), row.id, current.user.id);
  await recordActivity({
    organizationId,
    userId: current.user.id,
    type: "security",
    status: "success",
    action: "API key viewed",
    details: `Key ${row.prefix}...`,
    meta,
  });
  return { key: decryptSecret(row.keyEncrypted), prefix: row.prefix, createdAt: row.createdAt.toISOString() };
}

/** The live key's prefix and age, without reading (or logging) the secret. */
export async function apiKeySummary(organizationId: string) {
  const row = await liveKey(organizationId);
  return row ? { prefix: row.prefix, createdAt: row.createdAt.toISOString(), lastUsedAt: row.lastUsedAt?.toISOString() ?? null } : null;
}

/** A new key; the old one stops working in the same transaction. */
export async function regenerateApiKey(current: CurrentUser, meta: RequestMeta): Promise<ApiKeyView> {
  const organizationId = current.organization.id;
  const fresh = newKey();
  const { created, revoked } = await db().transaction(async (tx) => {
    const revokedRows = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(apiKeys.organizationId, organizationId), isNull(apiKeys.revokedAt)))
      .returning({ prefix: apiKeys.prefix });
    const [row] = await tx
      .insert(apiKeys)
      .values({
        organizationId,
        createdBy: current.user.id,
        keyHash: fresh.keyHash,
        keyEncrypted: fresh.keyEncrypted,
        prefix: fresh.prefix,
      })
      .returning();
    // The new key is shown to whoever regenerated it: they hold it.
    await noteKeyHolder(tx, row!.id, current.user.id);
    return { created: row!, revoked: revokedRows[0]?.prefix };
  });
  await recordActivity({
    organizationId,
    userId: current.user.id,
    type: "security",
    status: "warning",
    action: "API key regenerated",
    details: revoked ? `Key ${revoked}... revoked; new key ${created.prefix}...` : `New key ${created.prefix}...`,
    meta,
  });
  return { key: fresh.key, prefix: created.prefix, createdAt: created.createdAt.toISOString() };
}

/**
 * The tenant a presented key belongs to with the key's rate-limit hit counted, or null (unknown,
 * malformed or revoked). A key of a suspended organisation answers `suspended` and counts nothing.
 * `role` is what the key may do (decision 052): the organisation role of the member who made or last
 * regenerated it, as it is now (a member demoted since narrows the key); a key whose maker has left
 * the organisation acts as an admin, as every key did before, until someone regenerates it. One
 * statement on every API call: the key's row (its organisation's and maker's by primary key), the
 * hit against `rule` for the key, and `last_used_at`, written at most once a minute per key.
 * `prefetch` adds a read of the caller's (a SQL expression of the key's organisation id,
 * `k.organization_id`), answered as `prefetched`.
 */
export async function authenticateApiKey(
  presented: string,
  rule: RateLimitRule,
  prefetch?: (organizationExpr: string) => string,
): Promise<
  | { suspended: true; keyId: string; organizationId: string }
  | {
      suspended: false;
      keyId: string;
      /** The key's recognisable start (jmb_live_ and four characters), safe to show and log: never the secret. */
      prefix: string;
      organizationId: string;
      role: Role;
      rate: ReturnType<typeof rateLimitResult>;
      prefetched: unknown;
    }
  | null
> {
  if (!KEY_SHAPE.test(presented)) return null;
  const keyHash = sha256(presented);
  const [row] = await rawQuery<
    { id: string; prefix: string; organization_id: string; key_hash: string; suspended: boolean; role: Role; prefetched?: unknown } & (
      CountedHit | { hits: null }
    )
  >(
    `with k as (
       select k.id, k.prefix, k.organization_id, k.key_hash, o.status = 'suspended' as suspended,
              coalesce(u.org_role::text, 'admin') as role
       from api_keys k join organizations o on o.id = k.organization_id
       left join users u on u.id = k.created_by and u.organization_id = k.organization_id
       where k.key_hash = $1 and k.revoked_at is null limit 1),
     touched as (
       update api_keys set last_used_at = now()
       where id = (select id from k where not suspended) and (last_used_at is null or last_used_at < now() - interval '1 minute')),
     hit as (${countHitStatement("$2::text || k.id::text", "$3", "from k where not k.suspended")})
     select k.id, k.prefix, k.organization_id, k.key_hash, k.suspended, k.role, hit.hits, hit.window_start, hit.window_stamp${prefetch ? `, case when not k.suspended then ${prefetch("k.organization_id")} end as prefetched` : ""}
     from k left join hit on true`,
    [keyHash, bucketPrefix(rule), windowOf(rule)],
  );
  if (!row || !constantTimeEqual(row.key_hash, keyHash)) return null;
  if (row.suspended || row.hits === null) return { suspended: true, keyId: row.id, organizationId: row.organization_id };
  return {
    suspended: false,
    keyId: row.id,
    prefix: row.prefix,
    organizationId: row.organization_id,
    role: row.role,
    rate: rateLimitResult(rule, row as CountedHit),
    prefetched: row.prefetched ?? null,
  };
}
