import { rawQuery } from "../../infrastructure/db/client";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { deviceOf } from "../../infrastructure/http/user-agent";
import { m } from "~/paraglide/messages";

export { deviceOf };

// The names deviceOf gives browsers and systems (user-agent.ts): product names, the same in every language.
const BROWSER_ON_SYSTEM = /^(Edge|Opera|Samsung Internet|Firefox|Chrome|Safari) on (Android|iOS|Windows|macOS|ChromeOS|Linux)$/;

/**
 * A browser in a few words for the person reading ("Chrome on Android", "Chrome kwenye Android"):
 * deviceOf's, in the request's language. The activity log keeps deviceOf's English.
 */
export function deviceName(userAgent: string | null | undefined) {
  if (!userAgent) return m.validation_auth_device_unknown();
  const device = deviceOf(userAgent);
  const parts = BROWSER_ON_SYSTEM.exec(device);
  return parts ? m.validation_auth_device_on({ browser: parts[1]!, system: parts[2]! }) : device;
}

export interface ActiveSession {
  /** The session's key (the SHA-256 of its cookie's token: it opens nothing by itself). */
  id: string;
  device: string;
  ip: string | null;
  signedInAt: Date;
  lastUsedAt: Date;
  current: boolean;
}

/** The user's live sessions, this one first, then the most recently used. */
export async function listSessions(userId: string, currentSessionId: string, now = new Date()): Promise<ActiveSession[]> {
  const rows = await rawQuery<{
    id: string;
    user_agent: string | null;
    ip_address: string | null;
    created_at: Date | string;
    last_used_at: Date | string;
  }>(
    `select id, user_agent, ip_address, created_at, last_used_at from sessions
     where user_id = $1 and expires_at > $2
     order by (id = $3) desc, last_used_at desc, id`,
    [userId, now, currentSessionId],
  );
  return rows.map((r) => ({
    id: r.id,
    device: deviceName(r.user_agent),
    ip: r.ip_address,
    signedInAt: new Date(r.created_at),
    lastUsedAt: new Date(r.last_used_at),
    current: r.id === currentSessionId,
  }));
}

interface SessionOwner {
  userId: string;
  organizationId: string;
  currentSessionId: string;
}

/** Ends one of the user's other sessions at once. Answers false when there is no such session of theirs. */
export async function signOutSession(owner: SessionOwner, sessionId: string, meta?: RequestMeta) {
  if (!sessionId || sessionId.length > 100 || sessionId === owner.currentSessionId) return false;
  const ended = await rawQuery<{ user_agent: string | null }>(`delete from sessions where id = $1 and user_id = $2 returning user_agent`, [
    sessionId,
    owner.userId,
  ]);
  if (!ended.length) return false;
  await recordActivity({
    organizationId: owner.organizationId,
    userId: owner.userId,
    type: "security",
    status: "success",
    action: "Session signed out",
    details: deviceOf(ended[0]!.user_agent),
    meta,
  });
  return true;
}

/** Ends every session of the user but this one. Answers how many ended. */
export async function signOutOtherSessions(owner: SessionOwner, meta?: RequestMeta) {
  const ended = await rawQuery(`delete from sessions where user_id = $1 and id <> $2 returning id`, [owner.userId, owner.currentSessionId]);
  if (ended.length)
    await recordActivity({
      organizationId: owner.organizationId,
      userId: owner.userId,
      type: "security",
      status: "success",
      action: "Other sessions signed out",
      details: `${ended.length} session${ended.length === 1 ? "" : "s"} ended`,
      meta,
    });
  return ended.length;
}
