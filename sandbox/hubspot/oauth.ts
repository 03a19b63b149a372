import { randomUUID } from "node:crypto";
import express, { Router, type Request, type Response } from "express";
import type { HubspotContext } from "./context";
import { escapeHtml, page } from "./html";

/** The scopes a HubSpot app may ask for in this sandbox. */
export const KNOWN_SCOPES = new Set([
  "oauth",
  "crm.objects.contacts.read",
  "crm.objects.contacts.write",
  "crm.lists.read",
  "crm.lists.write",
  "crm.schemas.contacts.read",
  "crm.schemas.contacts.write",
]);

const forms = express.urlencoded({ extended: false, limit: "16kb" });

interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  state: string | undefined;
  scopes: string[];
  optionalScopes: string[];
  /**
   * The sandbox's stand-in for the HubSpot user signed in to the install page: Jumbe passes an opaque
   * key per organisation (as for Meta's signup dialog), and only that caller's portals are offered.
   */
  caller: string | undefined;
}

const splitScopes = (value: unknown) => (typeof value === "string" ? value.split(/[\s+,]+/).filter(Boolean) : []);

/** The authorize request from a query or a form, or why HubSpot would refuse it. */
function authorizeRequest(ctx: HubspotContext, fields: Record<string, unknown>): AuthorizeRequest | { error: string } {
  if (fields.client_id !== ctx.options.clientId) return { error: "This app could not be found: the client_id is unknown." };
  const redirectUri = typeof fields.redirect_uri === "string" ? fields.redirect_uri : "";
  if (!/^https?:\/\//.test(redirectUri) || !URL.canParse(redirectUri))
    return { error: "The redirect_uri must be an absolute http(s) URL." };
  const scopes = splitScopes(fields.scope);
  const optionalScopes = splitScopes(fields.optional_scope);
  const unknown = [...scopes, ...optionalScopes].filter((s) => !KNOWN_SCOPES.has(s));
  if (!scopes.length) return { error: "Authorization failed: the request asks for no scope." };
  if (unknown.length) return { error: `Authorization failed because of invalid scopes: ${unknown.join(", ")}.` };
  return {
    clientId: ctx.options.clientId,
    redirectUri,
    state: typeof fields.state === "string" ? fields.state : undefined,
    scopes,
    optionalScopes,
    caller: typeof fields.sandbox_user === "string" && fields.sandbox_user ? fields.sandbox_user.slice(0, 200) : undefined,
  };
}

function redirectBack(res: Response, request: AuthorizeRequest, params: Record<string, string>) {
  const url = new URL(request.redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  res.redirect(303, url.href);
}

function chooserPage(ctx: HubspotContext, res: Response, request: AuthorizeRequest) {
  const base = ctx.options.publicPath;
  const portals = ctx.state.portalsFor(request.caller);
  const hidden = (name: string, value: string | undefined) =>
    value === undefined ? "" : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  // The caller's own portals first, then test portals no one has connected; and always a fresh one.
  const ordered = [...portals.filter((p) => p.owner !== undefined), ...portals.filter((p) => p.owner === undefined)];
  const choices =
    ordered
      .map(
        (p, i) =>
          `<label class="choice"><input type="radio" name="hub_id" value="${p.hubId}"${i === 0 ? " checked" : ""}> <span><strong>${escapeHtml(p.name)}</strong> <small>Hub ID ${p.hubId} · ${escapeHtml(p.user)}</small></span></label>`,
      )
      .join("") +
    `<label class="choice"><input type="radio" name="hub_id" value="new"${ordered.length ? "" : " checked"}> <span><strong>Create a new test account</strong> <small>an empty portal of your own</small></span></label>`;
  const scopeItems = [...request.scopes, ...request.optionalScopes].map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join("");
  page(res, {
    title: "Choose an account · HubSpot sandbox",
    body:
      `<main><p class="brand">HubSpot · sandbox</p><h1>Choose an account</h1>` +
      `<p>An app wants to connect to your HubSpot account. It asks for:</p><ul>${scopeItems}</ul>` +
      `<form method="post" action="${escapeHtml(`${base}/oauth/authorize`)}" class="card"><fieldset><legend>Test accounts</legend>${choices}</fieldset>` +
      hidden("client_id", request.clientId) +
      hidden("redirect_uri", request.redirectUri) +
      hidden("scope", request.scopes.join(" ")) +
      hidden("optional_scope", request.optionalScopes.join(" ") || undefined) +
      hidden("state", request.state) +
      hidden("sandbox_user", request.caller) +
      `<div class="actions"><button type="submit" name="decision" value="allow">Connect app</button>` +
      `<button type="submit" class="secondary" name="decision" value="deny">Cancel</button></div></form>` +
      `<p class="muted">You are back at the app once you choose. Nothing leaves this machine.</p></main>`,
  });
}

function errorPage(res: Response, message: string) {
  page(res, {
    title: "Authorization failed · HubSpot sandbox",
    status: 400,
    body: `<main><p class="brand">HubSpot · sandbox</p><h1>Authorization failed</h1><p class="error" role="alert">${escapeHtml(message)}</p></main>`,
  });
}

/** RFC 6749's `error` for each of HubSpot's token error statuses. */
const RFC_ERRORS: Record<string, string> = {
  BAD_GRANT_TYPE: "unsupported_grant_type",
  BAD_CLIENT_ID: "invalid_client",
  BAD_CLIENT_SECRET: "invalid_client",
  BAD_AUTH_CODE: "invalid_grant",
  BAD_REFRESH_TOKEN: "invalid_grant",
  BAD_REDIRECT_URI: "invalid_grant",
};

/** HubSpot's token errors: 400 with RFC 6749's `error` and `error_description`, and its own `status` and `message`. */
const tokenError = (res: Response, status: string, message: string) =>
  void res.status(400).json({
    error: RFC_ERRORS[status] ?? "invalid_request",
    error_description: message,
    status,
    message,
    correlationId: randomUUID(),
    requestId: randomUUID(),
  });

function exchangeToken(ctx: HubspotContext, req: Request, res: Response) {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const field = (name: string) => (typeof body[name] === "string" && body[name] !== "" ? (body[name] as string) : undefined);
  const grantType = field("grant_type");
  if (grantType !== "authorization_code" && grantType !== "refresh_token")
    return tokenError(res, "BAD_GRANT_TYPE", "grant_type must be authorization_code or refresh_token");
  if (field("client_id") !== ctx.options.clientId) return tokenError(res, "BAD_CLIENT_ID", "missing or unknown client id");
  if (field("client_secret") !== ctx.options.clientSecret) return tokenError(res, "BAD_CLIENT_SECRET", "missing or invalid client secret");
  let issued;
  if (grantType === "authorization_code") {
    const redeemed = ctx.state.grants.redeemCode(field("code") ?? "", ctx.options.clientId, field("redirect_uri") ?? "");
    if (!redeemed.ok)
      return redeemed.reason === "redirect_mismatch"
        ? tokenError(res, "BAD_REDIRECT_URI", "redirect_uri does not match initial auth code URL")
        : tokenError(res, "BAD_AUTH_CODE", "missing or unknown auth code");
    issued = ctx.state.grants.issueTokens(redeemed.grant, true);
  } else {
    issued = ctx.state.grants.refreshTokens(field("refresh_token") ?? "", ctx.options.clientId);
    if (!issued) return tokenError(res, "BAD_REFRESH_TOKEN", "missing or unknown refresh token");
  }
  ctx.state.changed();
  res.set("Cache-Control", "no-store").json({
    token_type: "bearer",
    refresh_token: issued.refreshToken,
    access_token: issued.accessToken,
    expires_in: issued.expiresInSeconds,
  });
}

/** Token metadata: `GET /oauth/v1/access-tokens/:token` and `/refresh-tokens/:token`. */
function tokenInfo(ctx: HubspotContext, kind: "access" | "refresh", token: string) {
  const now = ctx.options.now();
  const check = kind === "access" ? ctx.state.grants.checkAccess(token) : undefined;
  const record = kind === "access" ? (check?.state === "valid" ? check.record : undefined) : ctx.state.grants.refreshRecord(token);
  if (!record) return undefined;
  const portal = ctx.state.portal(Number(record.account));
  const common = {
    token,
    user: portal?.user ?? null,
    hub_domain: portal?.domain ?? null,
    scopes: record.scopes,
    hub_id: Number(record.account),
    user_id: portal?.userId ?? null,
  };
  if (kind === "refresh") return { ...common, client_id: record.clientId, token_type: "refresh" };
  const expiresAt = check?.state === "valid" ? check.record.expiresAt : now;
  return {
    ...common,
    app_id: ctx.options.appId,
    expires_in: Math.max(0, Math.round(((expiresAt ?? now) - now) / 1000)),
    token_type: "access",
  };
}

/** The dated OAuth API's versions the sandbox answers. */
export const DATED_VERSIONS = ["2026-03", "v3"] as const;

/** The app's own credentials in a dated endpoint's body; false (and the answer sent) when wrong. */
function appCredentials(ctx: HubspotContext, req: Request, res: Response) {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (body.client_id === ctx.options.clientId && body.client_secret === ctx.options.clientSecret) return true;
  tokenError(res, body.client_id === ctx.options.clientId ? "BAD_CLIENT_SECRET" : "BAD_CLIENT_ID", "missing or unknown client credentials");
  return false;
}

/** RFC 7662 introspection with HubSpot's metadata: `{active: false}` for a token it does not know or that expired. */
function introspect(ctx: HubspotContext, req: Request, res: Response) {
  if (!appCredentials(ctx, req, res)) return;
  const token = String((req.body as Record<string, unknown>).token ?? "");
  const info = tokenInfo(ctx, "access", token) ?? tokenInfo(ctx, "refresh", token);
  res.set("Cache-Control", "no-store");
  if (!info) return void res.json({ active: false });
  const { token: _token, ...metadata } = info;
  const expiresIn = "expires_in" in metadata ? metadata.expires_in : undefined;
  res.json({
    active: true,
    client_id: ctx.options.clientId,
    scope: info.scopes.join(" "),
    ...metadata,
    ...(expiresIn === undefined ? {} : { exp: Math.floor(ctx.options.now() / 1000) + expiresIn }),
  });
}

/** RFC 7009 revocation: a refresh token (or its grant's access token) is revoked; 200 whether or not it was known. */
function revoke(ctx: HubspotContext, req: Request, res: Response) {
  if (!appCredentials(ctx, req, res)) return;
  const token = String((req.body as Record<string, unknown>).token ?? "");
  if (ctx.state.grants.revokeRefresh(token) || ctx.state.grants.revokeGrantOf(token)) ctx.state.changed();
  res.status(200).json({});
}

/**
 * HubSpot's OAuth: the install page at `/oauth/authorize` (choose a test portal; a form, no
 * JavaScript), the token endpoint (form-encoded; authorization_code and refresh_token grants), token
 * metadata and refresh-token deletion. Open, as HubSpot's are.
 */
export function oauthRouter(ctx: HubspotContext): Router {
  const router = Router({ caseSensitive: true });

  router.get("/oauth/authorize", (req, res) => {
    const request = authorizeRequest(ctx, req.query as Record<string, unknown>);
    if ("error" in request) return errorPage(res, request.error);
    chooserPage(ctx, res, request);
  });

  router.post("/oauth/authorize", forms, (req, res) => {
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const request = authorizeRequest(ctx, fields);
    if ("error" in request) return errorPage(res, request.error);
    if (fields.decision !== "allow")
      return redirectBack(res, request, { error: "access_denied", error_description: "The user did not connect the app." });
    // Only a portal offered to this caller (another organisation's is as unknown as a wrong id), or a new one.
    const portal =
      fields.hub_id === "new"
        ? ctx.state.newPortalFor(request.caller)
        : ctx.state.portalsFor(request.caller).find((p) => p.hubId === Number(fields.hub_id));
    if (!portal) return chooserPage(ctx, res, request);
    ctx.state.claim(portal, request.caller);
    const code = ctx.state.grants.issueCode(
      { account: String(portal.hubId), clientId: request.clientId, scopes: [...request.scopes, ...request.optionalScopes] },
      request.redirectUri,
    );
    ctx.state.changed();
    redirectBack(res, request, { code });
  });

  // The dated API (2026-03; v3 is its earlier name) takes everything in the body. The v1 endpoints
  // below are deprecated and end on 2027-02-16; HubSpot answers both until then, and so does the sandbox.
  for (const version of DATED_VERSIONS) {
    router.post(`/oauth/${version}/token`, forms, (req, res) => exchangeToken(ctx, req, res));
    router.post(`/oauth/${version}/token/introspect`, forms, (req, res) => introspect(ctx, req, res));
    router.post(`/oauth/${version}/token/revoke`, forms, (req, res) => revoke(ctx, req, res));
  }
  router.post("/oauth/v1/token", forms, (req, res) => exchangeToken(ctx, req, res));

  for (const kind of ["access", "refresh"] as const) {
    router.get(`/oauth/v1/${kind}-tokens/:token`, (req, res) => {
      const info = tokenInfo(ctx, kind, String(req.params.token));
      if (!info)
        return void res.status(404).json({ status: "error", message: `${kind} token not found or expired`, correlationId: randomUUID() });
      res.set("Cache-Control", "no-store").json(info);
    });
  }

  router.delete("/oauth/v1/refresh-tokens/:token", (req, res) => {
    if (!ctx.state.grants.revokeRefresh(String(req.params.token)))
      return void res.status(404).json({ status: "error", message: "refresh token not found", correlationId: randomUUID() });
    ctx.state.changed();
    res.status(204).end();
  });

  return router;
}
