import { createHash } from "node:crypto";
import { stableNumericId } from "./util";

/**
 * The demo business's WhatsApp connection, known to both sides like the admin console's demo
 * accounts (console-demo.ts): Jumbe's demo seed stores its tenant connected to the sandbox's demo
 * number with this token and PIN, its templates approved under these ids; a sandbox started with
 * `demoConnection` (sandbox mode's, beside the seed) has the number registered, the WABA subscribed,
 * the token accepted and the same templates approved. Everything is derived from the app id, so
 * neither side reads the other's state.
 */

export type { DemoConnection } from "./types";

/** The demo business's ids at Meta, derived from the app id. */
export function businessDemoIds(appId: string) {
  return {
    businessId: stableNumericId(`${appId}:demo-business`),
    wabaId: stableNumericId(`${appId}:demo-waba`),
    phoneNumberId: stableNumericId(`${appId}:demo-phone`),
  };
}

const digest = (appId: string, what: string) => createHash("sha256").update(`jumbe-meta-sandbox:${appId}:business-demo:${what}`).digest();

/** The demo business's token (shaped like Meta's "EAA…"), never expiring. */
export const businessDemoToken = (appId: string) => `EAAG${digest(appId, "token").toString("base64url")}`;

/** The two-step verification PIN the demo number was registered with. */
export const businessDemoPin = (appId: string) => String(digest(appId, "pin").readUInt32BE(0) % 1_000_000).padStart(6, "0");

/** A demo template's id: 16 digits below Number.MAX_SAFE_INTEGER, as Meta's (webhooks carry it as a number). */
export function businessDemoTemplateId(appId: string, name: string, language: string) {
  const value = digest(appId, `template:${name}:${language}`).readBigUInt64BE(0) % 8_000_000_000_000_000n;
  return (value + 1_000_000_000_000_000n).toString();
}
