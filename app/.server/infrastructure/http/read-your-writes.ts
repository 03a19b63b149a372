import type { MiddlewareFunction } from "react-router";
import { log } from "../log";
import { keyedHash, constantTimeEqual } from "../security/crypto";
import { formatLsn, ownWritesWindowMs, parseLsn, primaryWritePosition, replicaConfigured, withReadScope } from "../db/replica";
import { readCookie, SESSION_COOKIE, WRITE_MARK_COOKIE, writeMarkCookieHeader } from "./cookies";

/**
 * Read-your-writes with a read replica (decision 163). Every GET of a page, a download or the API
 * runs in a read scope, so its heavy reads (readDb) may use the replica; webhooks never do, nor a
 * request that may write (its action's reads all go to the primary).
 *
 * A request that may have written (not GET/HEAD/OPTIONS) by a signed-in person ends by reading the
 * primary's WAL insert position, after its transactions committed, and sends it in a short cookie
 * signed for that session. Their next requests carry it: a heavy read uses the replica only once the
 * replica has replayed past it, else the primary. Nobody waits for replay; other people's reads
 * keep using the replica. Without a replica (PGlite, or no DATABASE_REPLICA_URL) this does nothing.
 */
export const readYourWritesMiddleware: MiddlewareFunction<Response> = async ({ request }, next) => {
  if (!replicaConfigured() || new URL(request.url).pathname.startsWith("/webhooks/")) return next();
  const session = readCookie(request, SESSION_COOKIE);
  // A request that may write reads everything from the primary: what its action wrote a moment ago included.
  if (["GET", "HEAD"].includes(request.method))
    return withReadScope(session ? writeMark(session, readCookie(request, WRITE_MARK_COOKIE)) : null, () => next());
  const response = await next();
  if (!session || request.method === "OPTIONS") return response;
  let position: bigint | null;
  try {
    position = await primaryWritePosition();
  } catch (error) {
    // The primary did not answer: the request's own answer says so; the person's mark stays as it was.
    log().warn({ err: error }, "could not read the primary's WAL position after a write");
    return response;
  }
  if (position === null) return response;
  return withHeader(response, "Set-Cookie", writeMarkCookieHeader(signMark(session, position), markSeconds()));
};

/** Long enough for a replica within the maximum lag to have replayed the write, with a margin. */
function markSeconds() {
  return Math.ceil((ownWritesWindowMs() ?? 65_000) / 1000);
}

function signature(session: string, lsn: string) {
  return keyedHash(`${session}:${lsn}`, "replica-write-mark").slice(0, 32);
}

/** `<lsn>.<signature>`, the LSN as PostgreSQL writes it with `-` for `/` (a cookie's value). */
export function signMark(session: string, position: bigint) {
  const lsn = formatLsn(position).replace("/", "-");
  return `${lsn}.${signature(session, lsn)}`;
}

/** The position in a mark signed for this session; anything else (another session's, forged) is none. */
export function writeMark(session: string, value: string | undefined): bigint | null {
  const match = /^([0-9A-F]{1,8}-[0-9A-F]{1,8})\.([0-9a-f]{32})$/.exec(value ?? "");
  if (!match || !constantTimeEqual(match[2]!, signature(session, match[1]!))) return null;
  return parseLsn(match[1]!.replace("-", "/"));
}

/** The response with one more header (a Response.redirect's headers are immutable: copied then). */
function withHeader(response: Response, name: string, value: string) {
  try {
    response.headers.append(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.append(name, value);
    return copy;
  }
}
