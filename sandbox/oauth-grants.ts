import { randomBytes } from "node:crypto";

/** Who granted what: the test account (HubSpot portal, Shopify shop, Google user), the app, the scopes. */
export interface Grant {
  account: string;
  clientId: string;
  scopes: string[];
}

interface CodeRecord extends Grant {
  code: string;
  redirectUri: string;
  expiresAt: number;
}

export interface AccessRecord extends Grant {
  token: string;
  issuedAt: number;
  /** Null: never expires (Shopify's offline tokens). */
  expiresAt: number | null;
  revoked: boolean;
}

export interface RefreshRecord extends Grant {
  token: string;
  issuedAt: number;
  revoked: boolean;
}

export interface GrantsSnapshot {
  codes: CodeRecord[];
  access: AccessRecord[];
  refresh: RefreshRecord[];
}

export type AccessCheck =
  { state: "valid"; record: AccessRecord } | { state: "expired"; record: AccessRecord; expiredMsAgo: number } | { state: "unknown" };

export type Redeemed = { ok: true; grant: Grant } | { ok: false; reason: "unknown" | "client_mismatch" | "redirect_mismatch" };

export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string;
  /** Null: the token does not expire. */
  expiresInSeconds: number | null;
  grant: Grant;
}

export interface GrantOptions {
  prefixes: { code: string; access: string; refresh: string };
  /** How long an access token lives; null: forever. */
  accessTtlMs: number | null;
  /** How long a code may wait for its exchange. Default 10 minutes. */
  codeTtlMs?: number;
  now: () => number;
}

const KEEP_EXPIRED_MS = 24 * 60 * 60_000;

const token = (prefix: string, bytes = 24) => `${prefix}${randomBytes(bytes).toString("base64url")}`;

/**
 * The OAuth 2 bookkeeping the integration sandboxes share: single-use authorization codes bound to
 * the app and the redirect URI, access tokens with a lifetime, refresh tokens, revocation, and a
 * control that expires an account's access tokens at once (so a client's refresh is exercised).
 * Expired tokens are remembered for a day, so an API can say "expired" rather than "unknown".
 */
export class OAuthGrants {
  private codes = new Map<string, CodeRecord>();
  private access = new Map<string, AccessRecord>();
  private refresh = new Map<string, RefreshRecord>();

  constructor(private readonly options: GrantOptions) {}

  issueCode(grant: Grant, redirectUri: string): string {
    const code = token(this.options.prefixes.code, 18);
    const ttl = this.options.codeTtlMs ?? 10 * 60_000;
    this.codes.set(code, { ...grant, scopes: [...grant.scopes], code, redirectUri, expiresAt: this.options.now() + ttl });
    return code;
  }

  /** Spends a code: the same app, the same redirect URI, once, before it expires. */
  redeemCode(code: string, clientId: string, redirectUri: string | undefined): Redeemed {
    const record = this.codes.get(code);
    if (!record || record.expiresAt <= this.options.now()) return { ok: false, reason: "unknown" };
    if (record.clientId !== clientId) return { ok: false, reason: "client_mismatch" };
    if (redirectUri !== undefined && record.redirectUri !== redirectUri) return { ok: false, reason: "redirect_mismatch" };
    this.codes.delete(code);
    return { ok: true, grant: { account: record.account, clientId: record.clientId, scopes: record.scopes } };
  }

  issueTokens(grant: Grant, withRefresh: boolean, reuseRefresh?: string): IssuedTokens {
    const now = this.options.now();
    const ttl = this.options.accessTtlMs;
    const accessToken = token(this.options.prefixes.access);
    this.access.set(accessToken, {
      ...grant,
      token: accessToken,
      issuedAt: now,
      expiresAt: ttl === null ? null : now + ttl,
      revoked: false,
    });
    let refreshToken = reuseRefresh;
    if (withRefresh && !refreshToken) {
      refreshToken = token(this.options.prefixes.refresh);
      this.refresh.set(refreshToken, { ...grant, token: refreshToken, issuedAt: now, revoked: false });
    }
    this.prune();
    return {
      accessToken,
      ...(refreshToken ? { refreshToken } : {}),
      expiresInSeconds: ttl === null ? null : Math.round(ttl / 1000),
      grant,
    };
  }

  /** A new access token for a live refresh token of this app (the refresh token stays the same). */
  refreshTokens(refreshToken: string, clientId: string): IssuedTokens | undefined {
    const record = this.refresh.get(refreshToken);
    if (!record || record.revoked || record.clientId !== clientId) return undefined;
    return this.issueTokens({ account: record.account, clientId: record.clientId, scopes: record.scopes }, true, refreshToken);
  }

  /**
   * Takes in tokens issued elsewhere (the demo's, sandbox/demo-grants.ts): each one only when this
   * sandbox has never known it, so a token revoked since (a disconnect) stays revoked.
   */
  adopt(grant: Grant, tokens: { accessToken?: string; accessExpiresAt?: number | null; refreshToken?: string }) {
    const now = this.options.now();
    const own = { account: grant.account, clientId: grant.clientId, scopes: [...grant.scopes] };
    if (tokens.accessToken && !this.access.has(tokens.accessToken))
      this.access.set(tokens.accessToken, {
        ...own,
        token: tokens.accessToken,
        issuedAt: now,
        expiresAt: tokens.accessExpiresAt ?? null,
        revoked: false,
      });
    if (tokens.refreshToken && !this.refresh.has(tokens.refreshToken))
      this.refresh.set(tokens.refreshToken, { ...own, token: tokens.refreshToken, issuedAt: now, revoked: false });
  }

  checkAccess(accessToken: string): AccessCheck {
    const record = this.access.get(accessToken);
    if (!record || record.revoked) return { state: "unknown" };
    const now = this.options.now();
    if (record.expiresAt !== null && record.expiresAt <= now) return { state: "expired", record, expiredMsAgo: now - record.expiresAt };
    return { state: "valid", record };
  }

  refreshRecord(refreshToken: string): RefreshRecord | undefined {
    const record = this.refresh.get(refreshToken);
    return record && !record.revoked ? record : undefined;
  }

  /** Revokes a refresh token (true when it was live). Access tokens made from it stay, as HubSpot's do. */
  revokeRefresh(refreshToken: string): boolean {
    const record = this.refresh.get(refreshToken);
    if (!record || record.revoked) return false;
    record.revoked = true;
    return true;
  }

  /** Revokes a token of either kind and, as Google does, the whole grant it belongs to. */
  revokeGrantOf(anyToken: string): boolean {
    const record = this.access.get(anyToken) ?? this.refresh.get(anyToken);
    if (!record || record.revoked) return false;
    this.revokeWhere((r) => r.account === record.account && r.clientId === record.clientId);
    return true;
  }

  /** Every token of an account (an uninstall). */
  revokeAccount(account: string, clientId?: string) {
    this.revokeWhere((r) => r.account === account && (clientId === undefined || r.clientId === clientId));
  }

  /** Makes an account's live access tokens expired now; answers how many. */
  expireAccess(account: string): number {
    const now = this.options.now();
    let count = 0;
    for (const record of this.access.values())
      if (record.account === account && !record.revoked && (record.expiresAt === null || record.expiresAt > now)) {
        record.expiresAt = now;
        count++;
      }
    return count;
  }

  liveAccess(): AccessRecord[] {
    const now = this.options.now();
    return [...this.access.values()].filter((r) => !r.revoked && (r.expiresAt === null || r.expiresAt > now));
  }

  liveRefresh(): RefreshRecord[] {
    return [...this.refresh.values()].filter((r) => !r.revoked);
  }

  snapshot(): GrantsSnapshot {
    this.prune();
    return { codes: [...this.codes.values()], access: [...this.access.values()], refresh: [...this.refresh.values()] };
  }

  restore(saved: GrantsSnapshot | undefined) {
    for (const c of saved?.codes ?? []) this.codes.set(c.code, c);
    for (const a of saved?.access ?? []) this.access.set(a.token, a);
    for (const r of saved?.refresh ?? []) this.refresh.set(r.token, r);
  }

  reset() {
    this.codes.clear();
    this.access.clear();
    this.refresh.clear();
  }

  private revokeWhere(match: (record: Grant) => boolean) {
    for (const record of this.access.values()) if (match(record)) record.revoked = true;
    for (const record of this.refresh.values()) if (match(record)) record.revoked = true;
  }

  private prune() {
    const now = this.options.now();
    for (const [key, record] of this.codes) if (record.expiresAt <= now) this.codes.delete(key);
    for (const [key, record] of this.access)
      if (record.revoked || (record.expiresAt !== null && record.expiresAt + KEEP_EXPIRED_MS < now)) this.access.delete(key);
  }
}
