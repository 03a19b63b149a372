import { and, eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { mpesaShortcodes } from "../../infrastructure/db/schema";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { darajaClient, type DarajaClient } from "../../infrastructure/clients/daraja";
import { env } from "../../infrastructure/config/env";

/**
 * How the rest of Jumbe reaches an organisation's own M-Pesa shortcode (issue 76): by the
 * organisation (a foreign id is not found), or by the token in a Daraja callback's URL, and the
 * Daraja client that speaks for it with its own, decrypted, credentials.
 */
export type MpesaShortcode = typeof mpesaShortcodes.$inferSelect;

/** The organisation's shortcode by id, or its default when id is null; null when there is none (or it is another tenant's). */
export async function shortcodeForOrganization(organizationId: string, shortcodeId: string | null): Promise<MpesaShortcode | null> {
  const where = shortcodeId
    ? and(eq(mpesaShortcodes.organizationId, organizationId), eq(mpesaShortcodes.id, shortcodeId))
    : and(eq(mpesaShortcodes.organizationId, organizationId), eq(mpesaShortcodes.isDefault, true));
  const [row] = await db().select().from(mpesaShortcodes).where(where).limit(1);
  return row ?? null;
}

/** The shortcode a callback URL's token names: what binds an unsigned Daraja callback to its tenant. */
export async function shortcodeByCallbackToken(token: string): Promise<MpesaShortcode | null> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
  const [row] = await db().select().from(mpesaShortcodes).where(eq(mpesaShortcodes.callbackToken, token)).limit(1);
  return row ?? null;
}

/** Where a shortcode of this environment is reached (MPESA_SHORTCODE_BASE_URLS, docs/configuration.md). */
export function shortcodeBaseUrl(environment: MpesaShortcode["environment"]): string {
  return env().mpesaShortcodeBaseUrls[environment];
}

/**
 * The Daraja client for this shortcode: its app's key and secret, its passkey, its kind and codes,
 * at the base URL of its environment.
 */
export function darajaForShortcode(shortcode: MpesaShortcode): DarajaClient;
/** @deprecated The base URL comes from the shortcode's environment: call `darajaForShortcode(shortcode)`. */
export function darajaForShortcode(shortcode: MpesaShortcode, baseUrl: string): DarajaClient;
export function darajaForShortcode(shortcode: MpesaShortcode, baseUrl?: string): DarajaClient {
  return darajaClient({
    baseUrl: baseUrl ?? shortcodeBaseUrl(shortcode.environment),
    consumerKey: decryptSecret(shortcode.consumerKeySealed),
    consumerSecret: decryptSecret(shortcode.consumerSecretSealed),
    shortcode: shortcode.businessShortCode,
    kind: shortcode.kind,
    tillNumber: shortcode.tillNumber,
    passkey: decryptSecret(shortcode.passkeySealed),
    environment: shortcode.environment,
    b2cInitiator: null,
  });
}
