/**
 * What a connector gives the generic OAuth flow (issue 45). HubSpot, Shopify and Google Sheets each
 * implement this over their one client module (infrastructure/clients/) and register it from the
 * composition root; the flow itself (state, callback, sealed tokens, refresh, revoke) is written once
 * in oauth.ts and tokens.ts.
 */

/** Tokens as a provider answers them. */
export interface ProviderTokens {
  accessToken: string;
  /** Null when the provider gives none (Shopify's offline token) or keeps the old one on refresh. */
  refreshToken: string | null;
  /** Null for a token that does not expire. */
  expiresAt: Date | null;
  /** The scopes granted (may be fewer than asked). */
  scopes: string[];
}

/** The account the tokens belong to, as the card shows it. */
export interface ProviderAccount {
  /** For people: a portal's domain, a shop's name, an e-mail address. */
  label: string;
  /** The provider's id of it: HubSpot's portal id, the shop's domain, Google's subject. */
  externalId: string;
}

/** A provider's answer that is not a success, in words for the card and the activity log. */
export class ProviderError extends Error {
  /** True when the grant itself is gone (revoked, invalid_grant): only connecting again helps. */
  readonly grantGone: boolean;
  constructor(message: string, options: { grantGone?: boolean } = {}) {
    super(message);
    this.name = "ProviderError";
    this.grantGone = options.grantGone ?? false;
  }
}

export interface AuthorizeRequest {
  state: string;
  redirectUri: string;
  /** PKCE's S256 challenge, for providers with `pkce`. */
  codeChallenge?: string;
  /** What the connect form asked for (a Shopify shop's domain), checked by `startContext`. */
  context: Record<string, string>;
  /**
   * In sandbox mode, the organisation's opaque key for the sandboxes' consent pages (their stand-in
   * for the person signed in there): they offer that organisation's test accounts only (issue 74).
   */
  sandboxUser?: string;
}

export interface CodeExchange {
  code: string;
  redirectUri: string;
  codeVerifier?: string;
  context: Record<string, string>;
  /** Every parameter of the callback, for providers that sign it (Shopify's `hmac`). */
  callbackParams: URLSearchParams;
}

export interface IntegrationProvider {
  /** The catalogue's id. */
  id: string;
  /** Whether the flow sends a PKCE challenge (Google does; HubSpot and Shopify take a client secret). */
  pkce?: boolean;
  /**
   * Checks what the connect form posted beyond the provider (Shopify's `shop`) and answers what the
   * callback needs; a message in words when it is not acceptable. Without it nothing is asked.
   */
  startContext?(form: Record<string, string>): { ok: true; context: Record<string, string> } | { ok: false; message: string };
  /** The provider's consent page, with the state, redirect URI and scopes. */
  authorizeUrl(request: AuthorizeRequest): string;
  /**
   * Checks the callback's own parameters before its state is spent (Shopify's signed `hmac` and its
   * `shop` against the one the connect asked for): a message in words when they are not the
   * provider's genuine answer to this connect, and the state stays for the genuine one.
   */
  checkCallback?(params: URLSearchParams, context: Record<string, string>): string | null;
  /** The callback's code for tokens. Throws ProviderError. */
  exchangeCode(exchange: CodeExchange): Promise<ProviderTokens>;
  /** A new access token for the refresh token. Throws ProviderError (grantGone when it was revoked). */
  refresh(refreshToken: string, context: Record<string, string>): Promise<ProviderTokens>;
  /** Revokes what can be revoked at the provider; best effort (disconnecting never waits on it). */
  revoke(tokens: { accessToken: string | null; refreshToken: string | null }, context: Record<string, string>): Promise<void>;
  /** Whose tokens these are. Throws ProviderError. */
  account(tokens: ProviderTokens, context: Record<string, string>): Promise<ProviderAccount>;
}

const registry = new Map<string, IntegrationProvider>();

/** Registers a connector (the composition root does, once per process; tests register their doubles). */
export function registerProvider(provider: IntegrationProvider) {
  registry.set(provider.id, provider);
}

/** Takes a provider out of the registry (tests, after their double). */
export function unregisterProvider(id: string) {
  registry.delete(id);
}

/** The registered provider with this id, or null when no connector is installed for it. */
export function providerFor(id: string): IntegrationProvider | null {
  return registry.get(id) ?? null;
}
