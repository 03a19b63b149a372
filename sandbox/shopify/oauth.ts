import { createHmac } from "node:crypto";
import express, { Router, type Request, type Response } from "express";
import type { ShopifyContext } from "./context";
import { escapeHtml, page } from "./html";
import type { Shop } from "./state";

/** The access scopes an app may ask for in this sandbox. */
export const KNOWN_SCOPES = new Set([
  "read_orders",
  "write_orders",
  "read_customers",
  "write_customers",
  "read_fulfillments",
  "read_products",
]);

const forms = express.urlencoded({ extended: false, limit: "16kb" });

/**
 * The `hmac` Shopify adds to the redirect: hex HMAC-SHA256, keyed with the app's secret, of the
 * other query parameters sorted by name and joined as a query string (`code=…&host=…&shop=…`).
 */
export function installHmac(params: Record<string, string>, secret: string) {
  const message = new URLSearchParams(
    Object.entries(params)
      .filter(([key]) => key !== "hmac" && key !== "signature")
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ).toString();
  return createHmac("sha256", secret).update(message).digest("hex");
}

interface InstallRequest {
  shop: Shop;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
}

function installRequest(ctx: ShopifyContext, shop: Shop, fields: Record<string, unknown>): InstallRequest | { error: string } {
  if (fields.client_id !== ctx.options.clientId) return { error: "Oauth error invalid_request: The client_id is not known." };
  const redirectUri = typeof fields.redirect_uri === "string" ? fields.redirect_uri : "";
  if (!/^https?:\/\//.test(redirectUri) || !URL.canParse(redirectUri))
    return { error: "Oauth error invalid_request: The redirect_uri is missing or not a URL." };
  const scopes = (typeof fields.scope === "string" ? fields.scope : "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) return { error: `Oauth error invalid_scope: ${unknown.join(", ")}` };
  return { shop, clientId: ctx.options.clientId, redirectUri, scopes, state: typeof fields.state === "string" ? fields.state : undefined };
}

function installPage(ctx: ShopifyContext, res: Response, request: InstallRequest) {
  const hidden = (name: string, value: string | undefined) =>
    value === undefined ? "" : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const scopes = request.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join("") || "<li>No access to store data</li>";
  page(res, {
    title: `Install ${ctx.options.appName} · Shopify sandbox`,
    body:
      `<main><p class="brand">Shopify · sandbox</p><h1>Install ${escapeHtml(ctx.options.appName)}</h1><p>on <strong>${escapeHtml(request.shop.name)}</strong> (<code>${escapeHtml(request.shop.domain)}</code>). It asks to:</p><ul>${scopes}</ul>` +
      `<form method="post" action="${escapeHtml(`${ctx.options.publicPath}/shops/${request.shop.domain}/admin/oauth/authorize`)}" class="card">` +
      hidden("client_id", request.clientId) +
      hidden("redirect_uri", request.redirectUri) +
      hidden("scope", request.scopes.join(",")) +
      hidden("state", request.state) +
      `<div class="actions"><button type="submit" name="decision" value="install">Install app</button><button type="submit" class="secondary" name="decision" value="cancel">Cancel</button></div></form></main>`,
  });
}

function errorPage(res: Response, status: number, message: string) {
  page(res, {
    title: "Shopify sandbox",
    status,
    body: `<main><p class="brand">Shopify · sandbox</p><h1>Something went wrong</h1><p class="error" role="alert">${escapeHtml(message)}</p></main>`,
  });
}

/** The redirect back to the app with code, host, shop, state, timestamp and their hmac. */
function redirectWithCode(ctx: ShopifyContext, res: Response, request: InstallRequest) {
  const code = ctx.state.grants.issueCode(
    { account: request.shop.domain, clientId: request.clientId, scopes: request.scopes },
    request.redirectUri,
  );
  ctx.state.changed();
  const name = request.shop.domain.replace(/\.myshopify\.com$/, "");
  const params: Record<string, string> = {
    code,
    host: Buffer.from(`admin.shopify.com/store/${name}`).toString("base64").replace(/=+$/, ""),
    shop: request.shop.domain,
    timestamp: String(Math.floor(ctx.options.now() / 1000)),
    ...(request.state === undefined ? {} : { state: request.state }),
  };
  const url = new URL(request.redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  url.searchParams.set("hmac", installHmac(params, ctx.options.clientSecret));
  res.redirect(303, url.href);
}

function accessToken(ctx: ShopifyContext, req: Request, res: Response, shop: Shop) {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (body.client_id !== ctx.options.clientId || body.client_secret !== ctx.options.clientSecret)
    return void res.status(400).json({ error: "invalid_client", error_description: "Client credentials are invalid" });
  const redeemed = ctx.state.grants.redeemCode(typeof body.code === "string" ? body.code : "", ctx.options.clientId, undefined);
  if (!redeemed.ok || redeemed.grant.account !== shop.domain)
    return void res
      .status(400)
      .json({ error: "invalid_request", error_description: "The authorization code was not found or was already used" });
  // A new install replaces the app's earlier token for this shop.
  ctx.state.grants.revokeAccount(shop.domain, ctx.options.clientId);
  const issued = ctx.state.grants.issueTokens(redeemed.grant, false);
  ctx.state.changed();
  res.set("Cache-Control", "no-store").json({ access_token: issued.accessToken, scope: redeemed.grant.scopes.join(",") });
}

/**
 * Shopify's install for a test shop (any `<name>.myshopify.com`; its address in the sandbox is
 * `/shops/<shop>/...`): the grant page at `admin/oauth/authorize` (a form, no JavaScript), the
 * signed redirect back, and `POST admin/oauth/access_token` (JSON or form) for an offline token.
 */
export function oauthRouter(ctx: ShopifyContext): Router {
  const router = Router({ caseSensitive: true });
  const shopOf = (req: Request) => ctx.state.shop(String(req.params.shop));

  router.get("/shops/:shop/admin/oauth/authorize", (req, res) => {
    const shop = shopOf(req);
    if (!shop) return errorPage(res, 404, "There's no store at this address: a test shop is <name>.myshopify.com.");
    const request = installRequest(ctx, shop, req.query as Record<string, unknown>);
    if ("error" in request) return errorPage(res, 400, request.error);
    installPage(ctx, res, request);
  });

  router.post("/shops/:shop/admin/oauth/authorize", forms, (req, res) => {
    const shop = shopOf(req);
    if (!shop) return errorPage(res, 404, "There's no store at this address.");
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const request = installRequest(ctx, shop, fields);
    if ("error" in request) return errorPage(res, 400, request.error);
    if (fields.decision !== "install") return errorPage(res, 200, "The app was not installed. You can close this page.");
    redirectWithCode(ctx, res, request);
  });

  router.post("/shops/:shop/admin/oauth/access_token", express.json({ limit: "16kb" }), forms, (req, res) => {
    const shop = shopOf(req);
    if (!shop) return void res.status(404).json({ errors: "Not Found" });
    accessToken(ctx, req, res, shop);
  });

  return router;
}
