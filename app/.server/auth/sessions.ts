import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import { db } from "../db/client";
import { organizations, sessions, users } from "../db/schema";
import { randomToken, sha256 } from "../security/crypto";
import type { RequestMeta } from "../http/request-meta";
import { SESSION_COOKIE, readCookie, sessionCookieHeader } from "./cookies";

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
  await db().insert(sessions).values({
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

/** The live session of this request with its user and organisation, or null. */
export async function findSession(request: Request) {
  const token = sessionToken(request);
  if (!token || token.length > 100) return null;
  const id = sha256(token);
  const [row] = await db()
    .select({ session: sessions, user: users, organization: organizations })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(organizations, eq(organizations.id, users.organizationId))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, new Date())))
    .limit(1);
  if (!row) return null;
  if (Date.now() - row.session.lastUsedAt.getTime() > TOUCH_EVERY_MS) await touchSession(row.session.id, row.session.persistent);
  return row;
}

// Sliding expiry, written at most once an hour per session.
async function touchSession(id: string, persistent: boolean) {
  await db()
    .update(sessions)
    .set({ lastUsedAt: new Date(), expiresAt: new Date(Date.now() + lifetime(persistent)) })
    .where(eq(sessions.id, id));
}

export async function deleteSessionByToken(token: string) {
  await db().delete(sessions).where(eq(sessions.id, sha256(token)));
}

/** Ends every session of the user, except the one carrying `keepToken` when given. */
export async function deleteUserSessions(userId: string, keepToken?: string) {
  const where = keepToken
    ? and(eq(sessions.userId, userId), ne(sessions.id, sha256(keepToken)))
    : eq(sessions.userId, userId);
  await db().delete(sessions).where(where);
}

export async function deleteExpiredSessions() {
  await db().delete(sessions).where(lt(sessions.expiresAt, sql`now()`));
}
