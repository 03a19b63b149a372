import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { clearSessionCookieHeader } from "../../infrastructure/http/cookies";
import { deleteSessionByToken, findSession, sessionToken } from "./sessions";

/** Deletes this request's session row and returns the header that clears the cookie. */
export async function signOut(request: Request, meta: RequestMeta) {
  const token = sessionToken(request);
  if (token) {
    const found = await findSession(request);
    await deleteSessionByToken(token);
    if (found)
      await recordActivity({
        organizationId: found.organization.id,
        userId: found.user.id,
        type: "login",
        status: "success",
        action: "Signed out",
        meta,
      });
  }
  return clearSessionCookieHeader();
}
