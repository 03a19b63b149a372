import { and, eq, lt, ne, sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { sessions, type Organization, type User } from "../../infrastructure/db/schema";
import { randomToken, sha256 } from "../../infrastructure/security/crypto";
import { messagesUsedThisMonthSql } from "../billing";
import { shellCountsSql } from "../notifications";
import { INBOX_CHANNEL, NOTIFICATION_CHANNEL } from "../../infrastructure/db/channels";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { SESSION_COOKIE, readCookie, sessionCookieHeader } from "../../infrastructure/http/cookies";
import { env } from "../../infrastructure/config/env";
import { processState } from "../../infrastructure/process-state";
import { databaseSessionCache, SessionCache } from "./session-cache";

const DAY = 24 * 60 * 60 * 1000;
export const PERSISTENT_SESSION_MS = 30 * DAY;
// A browser-session cookie still needs a server-side end: one idle day.
export const BROWSER_SESSION_MS = 1 * DAY;
const TOUCH_EVERY_MS = 60 * 60 * 1000;

function lifetime(persistent: boolean) {
  return persistent ? PERSISTENT_SESSION_MS : BROWSER_SESSION_MS;
}

/** Starts a session for `userId` and returns the Set-Cookie header that carries it. */
export async function createSession(userId: string, persistent: boolean, meta: RequestMeta) {
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + lifetime(persistent));
  await db()
    .insert(sessions)
    .values({
      id: sha256(token),
      userId,
      persistent,
      expiresAt,
      ipAddress: meta.ip,
      userAgent: meta.userAgent,
    });
  return { token, setCookie: sessionCookieHeader(token, persistent ? lifetime(true) / 1000 : undefined) };
}

export function sessionToken(request: Request) {
  return readCookie(request, SESSION_COOKIE) || undefined;
}

/** The signed-in user's row as pages need it: every column but the password hash and the two-factor secret. */
export type SessionUser = Omit<User, "passwordHash" | "totpSecret" | "totpLastStep">;

export interface FoundSession {
  session: { id: string; persistent: boolean; lastUsedAt: Date; expiresAt: Date; confirmedAt: Date };
  user: SessionUser;
  organization: Organization;
  /** The messages the organisation used this month, when asked for (`monthUsage`); otherwise null. */
  messagesUsedThisMonth: number | null;
  /**
   * The signed-in shell's counts (the bell's unread notifications, the inbox's unread conversations),
   * when asked for (`shell`); otherwise null. The inbox's count is read whatever the role: the shell
   * shows it only to those who may open the inbox.
   */
  shell: { unread: number; inboxUnread: number } | null;
}

export interface FindSessionOptions {
  /** Read the month's messages used in the same statement (what /api/auth/me answers with). */
  monthUsage?: boolean;
  /** Read the shell's counts in the same statement (a page's GET: one round trip instead of two). */
  shell?: boolean;
}

interface SessionRow {
  session_id: string;
  persistent: boolean;
  last_used_at: Date | string;
  expires_at: Date | string;
  confirmed_at: Date | string;
  admin_bell_seen_at: Date | string | null;
  suspended_at: Date | string | null;
  suspension_reason: string | null;
  template_review: boolean;
  locale: User["locale"];
  default_locale: Organization["defaultLocale"];
  message_retention_days: number;
  media_retention_days: number;
  log_retention_days: number;
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
  phone_number: string | null;
  usertype: User["usertype"];
  org_role: User["orgRole"];
  platform_role: User["platformRole"];
  staff_suspended_at: Date | string | null;
  two_factor_required: boolean;
  avatar_url: string | null;
  is_verified: boolean;
  user_created_at: Date | string;
  last_login_at: Date | string | null;
  password_changed_at: Date | string | null;
  two_factor_enabled_at: Date | string | null;
  organization_id: string;
  organization_name: string;
  business_id: string;
  plan_type: string;
  billing_type: string;
  message_limit: number;
  message_limit_override: number | null;
  message_limit_override_reason: string | null;
  status: Organization["status"];
  whatsapp_number: string | null;
  organization_created_at: Date | string;
  organization_updated_at: Date | string;
  kra_pin: string | null;
  postal_address: string | null;
  county: string | null;
  industry: string | null;
  time_zone: string;
  require_two_factor: boolean;
  approval_threshold: number | null;
  closure_requested_at: Date | string | null;
  closure_requested_by: string | null;
  erase_after: Date | string | null;
  next_plan_type: string | null;
  next_billing_type: string | null;
  next_plan_from: string | null;
}

// Every request of a signed-in page runs this, so it goes straight to the driver with the columns
// pages use (no password hash), one indexed join. Read from the database on every request: that is
// what makes revocation and suspension instant across instances.
const SESSION_COLUMNS = `
  s.id as session_id, s.persistent, s.last_used_at, s.expires_at, s.confirmed_at, u.admin_bell_seen_at,
  u.id as user_id, u.email, u.first_name, u.last_name, u.phone_number, u.usertype, u.org_role, u.platform_role, u.staff_suspended_at,
  u.two_factor_required, u.avatar_url, u.is_verified,
  u.created_at as user_created_at, u.last_login_at, u.password_changed_at, u.two_factor_enabled_at,
  o.id as organization_id, o.name as organization_name, o.business_id, o.plan_type, o.billing_type, o.message_limit,
  o.message_limit_override, o.message_limit_override_reason,
  o.status, o.whatsapp_number, o.created_at as organization_created_at, o.updated_at as organization_updated_at,
  o.kra_pin, o.postal_address, o.county, o.industry, o.time_zone, o.require_two_factor, o.approval_threshold,
  o.closure_requested_at, o.closure_requested_by, o.erase_after,
  o.next_plan_type, o.next_billing_type, o.next_plan_from::text as next_plan_from,
  o.suspended_at, o.suspension_reason, o.template_review, u.locale, o.default_locale,
  o.message_retention_days, o.media_retention_days, o.log_retention_days`;
const SESSION_FROM = `
  from sessions s join users u on u.id = s.user_id join organizations o on o.id = u.organization_id
  where s.id = $1 and s.expires_at > $2`;
// The same lookup with the month's usage, or the shell's counts, as more columns: one round trip instead of two.
const SHELL = shellCountsSql("u.id", "o.id");
const FIND_SESSION_SQL = {
  plain: `select ${SESSION_COLUMNS} ${SESSION_FROM}`,
  usage: `select ${SESSION_COLUMNS}, ${messagesUsedThisMonthSql("o.id")} as messages_used ${SESSION_FROM}`,
  shell: `select ${SESSION_COLUMNS}, ${SHELL.unread} as shell_unread, ${SHELL.inboxUnread} as shell_inbox_unread ${SESSION_FROM}`,
  both: `select ${SESSION_COLUMNS}, ${messagesUsedThisMonthSql("o.id")} as messages_used,
         ${SHELL.unread} as shell_unread, ${SHELL.inboxUnread} as shell_inbox_unread ${SESSION_FROM}`,
};

// On a cached lookup, what the instance does not hold a copy of (the month's usage, the shell's counts: decisions
// 170 and 182) in one statement of its own.
const SHELL_BY_ID = shellCountsSql("$1::uuid", "$2::uuid");
const EXTRAS_SQL = {
  usage: `select ${messagesUsedThisMonthSql("$1::uuid")} as messages_used`,
  shell: `select ${SHELL_BY_ID.unread} as shell_unread, ${SHELL_BY_ID.inboxUnread} as shell_inbox_unread`,
  both: `select ${messagesUsedThisMonthSql("$2::uuid")} as messages_used,
         ${SHELL_BY_ID.unread} as shell_unread, ${SHELL_BY_ID.inboxUnread} as shell_inbox_unread`,
};

type Extras = { messages_used?: number; shell_unread?: number; shell_inbox_unread?: number };
type Shape = keyof typeof FIND_SESSION_SQL;
type Lookup = Pick<FoundSession, "session" | "user" | "organization">;

/** This instance's cache of session lookups (decision 166); SESSION_CACHE_MS read on each use. */
const cacheState = processState<{ cache: SessionCache<FoundSession["session"], SessionUser, Organization> }>("session-cache", () => ({
  cache: databaseSessionCache(() => env().SESSION_CACHE_MS, { member: NOTIFICATION_CHANNEL, organization: INBOX_CHANNEL }),
}));

export function sessionCache() {
  return cacheState.cache;
}

/** Tests: lookups go through `cache` from now on (a second instance's, with a listener of its own). */
export function setSessionCache(cache: SessionCache<FoundSession["session"], SessionUser, Organization>) {
  cacheState.cache = cache;
}

/**
 * A request of this instance that may have written is over (any method but GET and HEAD): see
 * SessionCache.afterWrite. The answer waits for it, so the person's next request sees their write.
 */
export async function sessionWriteDone(request: Request) {
  const token = sessionToken(request);
  // Without a session (Meta's webhooks, the API's keys, callbacks) there is no person's next request
  // to protect: those go on using the cache, and nothing waits on the LISTEN connection for them.
  if (!token || token.length > 100) return;
  await sessionCache().afterWrite(sha256(token));
}

const date = (value: Date | string) => (value instanceof Date ? value : new Date(value));
const maybeDate = (value: Date | string | null) => (value === null ? null : date(value));

/** The live session of this request with its user and organisation, or null. */
export async function findSession(request: Request, options: FindSessionOptions = {}): Promise<FoundSession | null> {
  const token = sessionToken(request);
  if (!token || token.length > 100) return null;
  const key = sha256(token);
  const shape: Shape = options.monthUsage ? (options.shell ? "both" : "usage") : options.shell ? "shell" : "plain";
  // A request that may write checks its permissions against the database itself, never a copy.
  const reads = request.method === "GET" || request.method === "HEAD";
  const cache = sessionCache();
  const cached = reads ? cache.get(key) : undefined;
  if (cached && cached.session.expiresAt.getTime() > Date.now()) {
    const found = await withExtras(cache, cached, shape);
    if (Date.now() - found.session.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
      const touched = await touchSession(found.session.id, found.session.persistent);
      cache.patchSession(key, touched);
    }
    return found;
  }
  const ticket = reads ? cache.ticket() : undefined;
  // Expiry by the application's clock, as sessions are written (and as tests move it).
  const [row] = await rawQuery<SessionRow & Extras>(FIND_SESSION_SQL[shape], [key, new Date()]);
  if (!row) return null;
  const found = fromRow(row);
  // A request that may write: what it changes may show in the month's usage, read afresh after it (decision 170).
  if (!reads) cache.writing(key, found.organization.id);
  if (Date.now() - found.session.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    const touched = await touchSession(found.session.id, found.session.persistent);
    found.session = { ...found.session, ...touched };
  }
  cache.put(key, ticket, { ...copyOf(found), userId: found.user.id, organizationId: found.organization.id });
  if (found.messagesUsedThisMonth !== null) cache.putUsage(found.organization.id, ticket, found.messagesUsedThisMonth);
  if (found.shell) cache.putShell(found.user.id, found.organization.id, ticket, found.shell);
  return found;
}

/** Each request gets its own objects: a caller may change them (a step-up's confirmation) without touching the cache. */
function copyOf(lookup: Lookup): Lookup {
  return { session: { ...lookup.session }, user: { ...lookup.user }, organization: { ...lookup.organization } };
}

/**
 * A cached lookup with what the request asked for beside it: the month's usage and the shell's counts
 * from this instance's copies when read within the TTL (decisions 170 and 182), else read now and
 * kept. A page's hit, and /api/auth/me's, then sends no statement at all.
 */
async function withExtras(cache: SessionCache<FoundSession["session"], SessionUser, Organization>, cached: Lookup, shape: Shape) {
  const organizationId = cached.organization.id;
  const userId = cached.user.id;
  const wantsUsage = shape === "usage" || shape === "both";
  const wantsShell = shape === "shell" || shape === "both";
  const usage = wantsUsage ? cache.usage(organizationId) : undefined;
  const shell = wantsShell ? cache.shell(userId, organizationId) : undefined;
  const kept: Extras = {
    ...(usage === undefined ? {} : { messages_used: usage }),
    ...(shell === undefined ? {} : { shell_unread: shell.unread, shell_inbox_unread: shell.inboxUnread }),
  };
  const readUsage = wantsUsage && usage === undefined;
  const readShell = wantsShell && shell === undefined;
  const read: Shape = readUsage ? (readShell ? "both" : "usage") : readShell ? "shell" : "plain";
  if (read === "plain") return { ...copyOf(cached), ...extrasOf(kept) };
  const ticket = cache.ticket();
  // Each statement names its parameters: the month's usage the organisation only.
  const params = read === "usage" ? [organizationId] : [userId, organizationId];
  const [extras = {}] = await rawQuery<Extras>(EXTRAS_SQL[read], params);
  if (extras.messages_used !== undefined) cache.putUsage(organizationId, ticket, Number(extras.messages_used));
  if (extras.shell_unread !== undefined)
    cache.putShell(userId, organizationId, ticket, {
      unread: Number(extras.shell_unread),
      inboxUnread: Number(extras.shell_inbox_unread ?? 0),
    });
  return { ...copyOf(cached), ...extrasOf({ ...extras, ...kept }) };
}

function extrasOf(row: Extras): Pick<FoundSession, "messagesUsedThisMonth" | "shell"> {
  return {
    messagesUsedThisMonth: row.messages_used === undefined ? null : Number(row.messages_used),
    shell: row.shell_unread === undefined ? null : { unread: Number(row.shell_unread), inboxUnread: Number(row.shell_inbox_unread ?? 0) },
  };
}

function fromRow(row: SessionRow & Extras): FoundSession {
  return {
    session: {
      id: row.session_id,
      persistent: row.persistent,
      lastUsedAt: date(row.last_used_at),
      expiresAt: date(row.expires_at),
      confirmedAt: date(row.confirmed_at),
    },
    user: {
      id: row.user_id,
      organizationId: row.organization_id,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      phoneNumber: row.phone_number,
      usertype: row.usertype,
      orgRole: row.org_role,
      platformRole: row.platform_role,
      staffSuspendedAt: maybeDate(row.staff_suspended_at),
      twoFactorRequired: row.two_factor_required,
      avatarUrl: row.avatar_url,
      isVerified: row.is_verified,
      createdAt: date(row.user_created_at),
      lastLoginAt: maybeDate(row.last_login_at),
      passwordChangedAt: maybeDate(row.password_changed_at),
      twoFactorEnabledAt: maybeDate(row.two_factor_enabled_at),
      adminBellSeenAt: maybeDate(row.admin_bell_seen_at),
      locale: row.locale,
    },
    organization: {
      id: row.organization_id,
      name: row.organization_name,
      businessId: row.business_id,
      planType: row.plan_type,
      billingType: row.billing_type,
      messageLimit: row.message_limit,
      messageLimitOverride: row.message_limit_override,
      messageLimitOverrideReason: row.message_limit_override_reason,
      status: row.status,
      whatsappNumber: row.whatsapp_number,
      createdAt: date(row.organization_created_at),
      updatedAt: date(row.organization_updated_at),
      kraPin: row.kra_pin,
      postalAddress: row.postal_address,
      county: row.county,
      industry: row.industry,
      timeZone: row.time_zone,
      requireTwoFactor: row.require_two_factor,
      approvalThreshold: row.approval_threshold,
      closureRequestedAt: maybeDate(row.closure_requested_at),
      closureRequestedBy: row.closure_requested_by,
      eraseAfter: maybeDate(row.erase_after),
      nextPlanType: row.next_plan_type,
      nextBillingType: row.next_billing_type,
      nextPlanFrom: row.next_plan_from,
      suspendedAt: maybeDate(row.suspended_at),
      suspensionReason: row.suspension_reason,
      templateReview: row.template_review,
      defaultLocale: row.default_locale,
      messageRetentionDays: row.message_retention_days,
      mediaRetentionDays: row.media_retention_days,
      logRetentionDays: row.log_retention_days,
    },
    ...extrasOf(row),
  };
}

// Sliding expiry, written at most once an hour per session; answers the times written.
async function touchSession(id: string, persistent: boolean) {
  const touched = { lastUsedAt: new Date(), expiresAt: new Date(Date.now() + lifetime(persistent)) };
  await db().update(sessions).set(touched).where(eq(sessions.id, id));
  return touched;
}

export async function deleteSessionByToken(token: string) {
  await db()
    .delete(sessions)
    .where(eq(sessions.id, sha256(token)));
}

/** Ends every session of the user, except the one carrying `keepToken` when given. */
export async function deleteUserSessions(userId: string, keepToken?: string) {
  const where = keepToken ? and(eq(sessions.userId, userId), ne(sessions.id, sha256(keepToken))) : eq(sessions.userId, userId);
  await db().delete(sessions).where(where);
}

export async function deleteExpiredSessions() {
  await db()
    .delete(sessions)
    .where(lt(sessions.expiresAt, sql`now()`));
}
