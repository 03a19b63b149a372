import { googleSubject } from "../demo-grants";
import { createHash } from "node:crypto";
import express, { Router, type Request, type Response } from "express";
import type { GoogleContext } from "./context";
import { escapeHtml, page } from "./html";

export const DRIVE_FILE_SCOPE = "https://www.googleapis.com/auth/drive.file";
export const SPREADSHEETS_SCOPE = "https://www.googleapis.com/auth/spreadsheets";
/** The scopes an app may ask for in this sandbox. */
export const KNOWN_SCOPES = new Set([
  DRIVE_FILE_SCOPE,
  SPREADSHEETS_SCOPE,
  "https://www.googleapis.com/auth/spreadsheets.readonly",
  "openid",
  "email",
  "profile",
  "https://www.googleapis.com/auth/userinfo.email",
]);

const forms = express.urlencoded({ extended: false, limit: "16kb" });

interface ConsentRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  offline: boolean;
  promptConsent: boolean;
  loginHint?: string;
  /**
   * The sandbox's stand-in for the person signed in to Google: Jumbe passes an opaque key per
   * organisation (as for Meta's signup dialog), and only that caller's accounts are offered.
   */
  caller?: string;
  /** PKCE (RFC 7636): the challenge and its method, checked against the verifier at /token. */
  codeChallenge?: string;
  codeChallengeMethod?: "S256" | "plain";
}

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The authorization request, or Google's error page name and words ("Error 400: invalid_request"). */
function consentRequest(ctx: GoogleContext, fields: Record<string, unknown>): ConsentRequest | { error: string; detail: string } {
  if (fields.client_id !== ctx.options.clientId) return { error: "Error 401: invalid_client", detail: "The OAuth client was not found." };
  const redirectUri = text(fields.redirect_uri) ?? "";
  if (!/^https?:\/\//.test(redirectUri) || !URL.canParse(redirectUri))
    return {
      error: "Error 400: redirect_uri_mismatch",
      detail: "The redirect_uri must be an absolute http(s) URL registered for this app.",
    };
  if (fields.response_type !== "code")
    return { error: "Error 400: invalid_request", detail: "Required parameter is missing or not supported: response_type (code)." };
  const scopes = (text(fields.scope) ?? "").split(/\s+/).filter(Boolean);
  if (!scopes.length) return { error: "Error 400: invalid_request", detail: "Missing required parameter: scope" };
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) return { error: "Error 400: invalid_scope", detail: `Some requested scopes were invalid: ${unknown.join(", ")}` };
  const accessType = text(fields.access_type) ?? "online";
  if (accessType !== "online" && accessType !== "offline")
    return { error: "Error 400: invalid_request", detail: `Invalid access_type: ${accessType}` };
  const codeChallenge = text(fields.code_challenge);
  const method = text(fields.code_challenge_method) ?? (codeChallenge ? "plain" : undefined);
  if (method !== undefined && method !== "S256" && method !== "plain")
    return { error: "Error 400: invalid_request", detail: `Invalid code_challenge_method: ${method}` };
  if (codeChallenge !== undefined && !/^[A-Za-z0-9._~-]{43,128}$/.test(codeChallenge))
    return { error: "Error 400: invalid_request", detail: "Invalid code_challenge." };
  return {
    ...(codeChallenge ? { codeChallenge, codeChallengeMethod: method as "S256" | "plain" } : {}),
    clientId: ctx.options.clientId,
    redirectUri,
    scopes,
    state: text(fields.state),
    offline: accessType === "offline",
    promptConsent: (text(fields.prompt) ?? "").split(/\s+/).includes("consent"),
    loginHint: text(fields.login_hint),
    caller: text(fields.sandbox_user)?.slice(0, 200),
  };
}

function redirectBack(res: Response, request: ConsentRequest, params: Record<string, string>) {
  const url = new URL(request.redirectUri);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  res.redirect(303, url.href);
}

const hidden = (name: string, value: string | undefined) =>
  value === undefined ? "" : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

function consentPage(ctx: GoogleContext, res: Response, request: ConsentRequest) {
  // The caller's own accounts first, then test accounts no one has connected; and always a fresh one.
  const offered = ctx.state.usersFor(request.caller);
  const users = [...offered.filter((u) => u.owner !== undefined), ...offered.filter((u) => u.owner === undefined)];
  const chosen = users.find((u) => u.email === request.loginHint) ?? users[0];
  const accounts =
    users
      .map(
        (u) =>
          `<label class="choice"><input type="radio" name="account" value="${escapeHtml(u.email)}"${u === chosen ? " checked" : ""}> <span><strong>${escapeHtml(u.name)}</strong> <small>${escapeHtml(u.email)}</small></span></label>`,
      )
      .join("") +
    `<label class="choice"><input type="radio" name="account" value="new"${chosen ? "" : " checked"}> <span><strong>Use another account</strong> <small>a new test account of your own</small></span></label>`;
  const scopes = request.scopes
    .map(
      (s) =>
        `<li><code>${escapeHtml(s)}</code>${s === DRIVE_FILE_SCOPE ? " — see, edit, create and delete only the Google Drive files you use with this app" : ""}</li>`,
    )
    .join("");
  page(res, {
    title: "Sign in with Google · sandbox",
    body:
      `<main><p class="brand">Google · sandbox</p><h1>Choose an account</h1><p>An app wants access to your Google Account:</p><ul>${scopes}</ul>` +
      (request.offline ? `<p class="muted">It asks for offline access (a refresh token).</p>` : "") +
      `<form method="post" action="${escapeHtml(`${ctx.options.publicPath}/o/oauth2/v2/auth`)}" class="card"><fieldset><legend>Test accounts</legend>${accounts}</fieldset>` +
      hidden("client_id", request.clientId) +
      hidden("redirect_uri", request.redirectUri) +
      hidden("response_type", "code") +
      hidden("scope", request.scopes.join(" ")) +
      hidden("state", request.state) +
      hidden("access_type", request.offline ? "offline" : "online") +
      hidden("prompt", request.promptConsent ? "consent" : undefined) +
      hidden("code_challenge", request.codeChallenge) +
      hidden("code_challenge_method", request.codeChallengeMethod) +
      hidden("sandbox_user", request.caller) +
      `<div class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" class="secondary" name="decision" value="deny">Cancel</button></div></form></main>`,
  });
}

function errorPage(res: Response, error: { error: string; detail: string }) {
  page(res, {
    title: `${error.error} · Google sandbox`,
    status: 400,
    body: `<main><p class="brand">Google · sandbox</p><h1>Access blocked: ${escapeHtml(error.error)}</h1><p class="error" role="alert">${escapeHtml(error.detail)}</p></main>`,
  });
}

/** Google's token errors: `{error, error_description}`, 400 (401 for the client). */
const tokenError = (res: Response, status: number, error: string, description: string) =>
  void res.status(status).json({ error, error_description: description });

function exchange(ctx: GoogleContext, req: Request, res: Response) {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const grantType = text(body.grant_type);
  if (grantType !== "authorization_code" && grantType !== "refresh_token")
    return tokenError(res, 400, "unsupported_grant_type", "Invalid grant_type: " + (grantType ?? ""));
  if (body.client_id !== ctx.options.clientId || body.client_secret !== ctx.options.clientSecret)
    return tokenError(res, 401, "invalid_client", "Unauthorized");
  const ttlSeconds = Math.round(ctx.options.accessTtlMs / 1000);
  // Google answers 3599 for its hour: the second the answer took.
  const expiresIn = ttlSeconds > 1 ? ttlSeconds - 1 : ttlSeconds;
  if (grantType === "authorization_code") {
    const code = text(body.code);
    if (!code) return tokenError(res, 400, "invalid_request", "Missing required parameter: code");
    const challenge = ctx.state.challenges.get(code);
    if (challenge) {
      const verifier = text(body.code_verifier);
      if (!verifier) return tokenError(res, 400, "invalid_request", "Missing code verifier.");
      const computed = challenge.method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
      if (computed !== challenge.challenge) return tokenError(res, 400, "invalid_grant", "Invalid code verifier.");
      ctx.state.challenges.delete(code);
    }
    const redeemed = ctx.state.grants.redeemCode(code, ctx.options.clientId, text(body.redirect_uri) ?? "");
    if (!redeemed.ok)
      return redeemed.reason === "redirect_mismatch"
        ? tokenError(res, 400, "redirect_uri_mismatch", "Bad Request")
        : tokenError(res, 400, "invalid_grant", "Bad Request");
    const offline = redeemed.grant.scopes.includes("offline");
    const grant = { ...redeemed.grant, scopes: redeemed.grant.scopes.filter((s) => s !== "offline") };
    const issued = ctx.state.grants.issueTokens(grant, offline);
    ctx.state.changed();
    return void res.set("Cache-Control", "no-store").json({
      access_token: issued.accessToken,
      expires_in: expiresIn,
      ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
      scope: grant.scopes.join(" "),
      token_type: "Bearer",
    });
  }
  const refreshToken = text(body.refresh_token);
  if (!refreshToken) return tokenError(res, 400, "invalid_request", "Missing required parameter: refresh_token");
  const issued = ctx.state.grants.refreshTokens(refreshToken, ctx.options.clientId);
  if (!issued) return tokenError(res, 400, "invalid_grant", "Token has been expired or revoked.");
  ctx.state.changed();
  res
    .set("Cache-Control", "no-store")
    .json({ access_token: issued.accessToken, expires_in: expiresIn, scope: issued.grant.scopes.join(" "), token_type: "Bearer" });
}

/**
 * Google's OAuth 2 for a web server app: the consent page (`/o/oauth2/v2/auth`, a form without
 * JavaScript; a refresh token with `access_type=offline`, again only with `prompt=consent` once the
 * account has consented), `POST /token` (authorization_code and refresh_token grants, form-encoded)
 * and `POST /revoke`. Open, as Google's are.
 */
export function oauthRouter(ctx: GoogleContext): Router {
  const router = Router({ caseSensitive: true });

  router.get("/o/oauth2/v2/auth", (req, res) => {
    const request = consentRequest(ctx, req.query as Record<string, unknown>);
    if ("error" in request) return errorPage(res, request);
    consentPage(ctx, res, request);
  });

  router.post("/o/oauth2/v2/auth", forms, (req, res) => {
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const request = consentRequest(ctx, fields);
    if ("error" in request) return errorPage(res, request);
    if (fields.decision !== "allow") return redirectBack(res, request, { error: "access_denied" });
    // Only an account offered to this caller (another organisation's is as unknown as a wrong one), or a new one.
    const user =
      fields.account === "new"
        ? ctx.state.newUserFor(request.caller)
        : ctx.state.usersFor(request.caller).find((u) => u.email === String(fields.account ?? ""));
    if (!user) return consentPage(ctx, res, request);
    ctx.state.claim(user, request.caller);
    // A refresh token comes with offline access on the first consent, and later only with prompt=consent.
    const refresh = request.offline && (request.promptConsent || !ctx.state.consented(user.email, request.clientId));
    ctx.state.noteConsent(user.email, request.clientId);
    const code = ctx.state.grants.issueCode(
      { account: user.email, clientId: request.clientId, scopes: [...request.scopes, ...(refresh ? ["offline"] : [])] },
      request.redirectUri,
    );
    if (request.codeChallenge)
      ctx.state.challenges.set(code, { challenge: request.codeChallenge, method: request.codeChallengeMethod ?? "plain" });
    redirectBack(res, request, { code, scope: request.scopes.join(" ") });
  });

  router.post("/token", forms, (req, res) => exchange(ctx, req, res));

  // Google's tokeninfo: whose token it is (the e-mail with the `email` scope), its scopes and expiry.
  // Google takes the token as `access_token` in a posted form (keeping it out of URLs and their logs),
  // in the query string, or as a Bearer header (how google-auth-library's getTokenInfo posts it).
  const tokeninfo = (req: Request, res: Response) => {
    const posted = (req.body ?? {}) as Record<string, unknown>;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
    const token = text(posted.access_token) ?? text(req.query.access_token) ?? bearer;
    const check = token ? ctx.state.grants.checkAccess(token) : { state: "unknown" as const };
    if (check.state !== "valid") return tokenError(res, 400, "invalid_token", "Invalid Value");
    const record = check.record;
    const email = record.scopes.includes("email") || record.scopes.includes("https://www.googleapis.com/auth/userinfo.email");
    // Google's subject: 21 digits, stable for the account.
    const sub = googleSubject(record.account);
    const expiresIn = record.expiresAt === null ? 3599 : Math.max(0, Math.floor((record.expiresAt - ctx.options.now()) / 1000));
    res.json({
      azp: record.clientId,
      aud: record.clientId,
      sub,
      scope: record.scopes.join(" "),
      exp: String(Math.floor(ctx.options.now() / 1000) + expiresIn),
      expires_in: String(expiresIn),
      ...(email ? { email: record.account, email_verified: "true" } : {}),
      access_type: "offline",
    });
  };
  router.get("/tokeninfo", tokeninfo);
  router.post("/tokeninfo", forms, tokeninfo);

  router.post("/revoke", forms, (req, res) => {
    const token = text((req.body as Record<string, unknown> | undefined)?.token) ?? text(req.query.token);
    if (!token || !ctx.state.grants.revokeGrantOf(token)) return tokenError(res, 400, "invalid_token", "Token expired or revoked");
    ctx.state.changed();
    res.json({});
  });

  return router;
}
