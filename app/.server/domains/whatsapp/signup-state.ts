import { createHmac } from "node:crypto";
import { env } from "../../infrastructure/config/env";
import { constantTimeEqual } from "../../infrastructure/security/crypto";
import type { CurrentUser } from "../auth";

/**
 * The `state` carried through Embedded Signup and back to /embedded-callback: bound to the browser's
 * session, so a link crafted elsewhere cannot attach someone else's WhatsApp account to this tenant.
 */
export function embeddedSignupState(current: CurrentUser) {
  return createHmac("sha256", env().SESSION_SECRET).update(`embedded-signup:${current.session.id}`).digest("base64url").slice(0, 32);
}

export function isValidSignupState(current: CurrentUser, state: string | null | undefined) {
  return !!state && constantTimeEqual(state, embeddedSignupState(current));
}
