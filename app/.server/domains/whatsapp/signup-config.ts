import { createHmac } from "node:crypto";
import { env } from "../../infrastructure/config/env";
import type { CurrentUser } from "../auth";
import { embeddedSignupState } from "./signup-state";

/**
 * What the Connect button needs. Production: Meta's JavaScript SDK with the app and configuration
 * ids (Embedded Signup v4). Sandbox: the local dialog that plays Meta's popup, which also works as a
 * plain link when JavaScript is off.
 */
export function embeddedSignupConfig(current: CurrentUser) {
  const config = env();
  const state = embeddedSignupState(current);
  const callbackUrl = `${config.APP_URL}/embedded-callback`;
  const dialog = new URL("/sandbox/meta/dialog/oauth", config.APP_URL);
  dialog.search = new URLSearchParams({
    client_id: config.META_APP_ID,
    config_id: config.META_CONFIG_ID,
    redirect_uri: callbackUrl,
    state,
    response_type: "code",
    display: "page",
    // As Meta's SDK passes them: the business's name prefilled for a new business.
    extras: JSON.stringify({ setup: { business: { name: current.organization.name } } }),
    // The sandbox's stand-in for the Facebook user signed in to the popup: it offers this tenant's
    // own test businesses and no one else's. Opaque: derived from the organisation, not its id.
    sandbox_user: sandboxUser(current.organization.id),
  }).toString();
  return {
    mode: config.sandbox ? ("sandbox" as const) : ("facebook" as const),
    appId: config.META_APP_ID,
    configId: config.META_CONFIG_ID,
    graphVersion: config.GRAPH_API_VERSION,
    state,
    // Relative, so the link works on whatever host the browser used.
    dialogUrl: config.sandbox ? `${dialog.pathname}${dialog.search}` : null,
  };
}

/** The tenant's key in the Meta sandbox's signup dialog. */
export function sandboxUser(organizationId: string) {
  return createHmac("sha256", env().SESSION_SECRET).update(`meta-sandbox-user:${organizationId}`).digest("base64url").slice(0, 24);
}

export type EmbeddedSignupConfig = ReturnType<typeof embeddedSignupConfig>;
