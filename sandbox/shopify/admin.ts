import express, { Router, type NextFunction, type Request, type Response } from "express";
import { callRecordOf } from "../call-log";
import { magicFaultIn } from "../faults";
import type { AccessRecord } from "../oauth-grants";
import type { ShopifyContext } from "./context";
import { shopPayload } from "./events";
import { graphqlAnswer, isGraphqlPath } from "./graphql";
import type { Shop, Subscription } from "./state";
import { addSubscription, checkSubscription } from "./subscriptions";

export const BODY_LIMIT = "256kb";
/** Shopify's REST bucket: 40 calls, leaking 2 a second (the header shows the fill). */
const BUCKET_SIZE = 40;
const API_VERSION = /^(\d{4}-(01|04|07|10)|unstable)$/;
/**
 * The stable versions Shopify supports while the sandbox's default is 2025-10 (each is supported for
 * at least twelve months). A retired version is answered by the oldest supported one, and
 * `X-Shopify-API-Version` says which answered (Shopify's documented fall-back); a version not yet
 * released is not found.
 */
export const SUPPORTED_API_VERSIONS = ["2025-01", "2025-04", "2025-07", "2025-10", "2026-01"] as const;

/** The version that answers a request for `asked`, or null when none does. */
export function answeringVersion(asked: string): string | null {
  if (!API_VERSION.test(asked)) return null;
  if (asked === "unstable" || (SUPPORTED_API_VERSIONS as readonly string[]).includes(asked)) return asked;
  return asked < SUPPORTED_API_VERSIONS[0] ? SUPPORTED_API_VERSIONS[0] : null;
}

type Json = Record<string, unknown>;

const INVALID_TOKEN = "[API] Invalid API key or access token (unrecognized login or wrong password)";

function jsonBody(req: Request, res: Response, next: NextFunction) {
  const raw = typeof req.body === "string" ? req.body : "";
  res.locals.rawBody = raw;
  try {
    req.body = raw.trim() ? (JSON.parse(raw) as unknown) : {};
    next();
  } catch {
    res.status(400).json({ errors: { error: "822: unexpected token: the body is not JSON" } });
  }
}

/** `X-Shopify-Access-Token` for this shop, the API version, and the faults. */
function authenticate(ctx: ShopifyContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const shop = ctx.state.shops.get(String(req.params.shop));
    const version = answeringVersion(String(req.params.version));
    if (!shop || !version) return void res.status(404).json({ errors: "Not Found" });
    // Every Admin API answer says which version answered it, errors included.
    res.set("X-Shopify-API-Version", version);
    res.locals.apiVersion = version;
    const record = callRecordOf(res);
    if (record) record.account = shop.domain;
    const queued = ctx.faults.next();
    const fault = queued ?? magicFaultIn(`${req.originalUrl} ${String(res.locals.rawBody ?? "")}`);
    if (fault && record) record.fault = queued ? `queued ${fault}` : `magic ${fault}`;
    const token = req.get("x-shopify-access-token") ?? "";
    const check = ctx.state.grants.checkAccess(token);
    if (fault === "401" || check.state !== "valid" || check.record.account !== shop.domain)
      return void res.status(401).json({ errors: INVALID_TOKEN });
    res.locals.grant = check.record;
    res.locals.shop = shop;
    res.set("X-Shopify-Shop-Api-Call-Limit", `1/${BUCKET_SIZE}`);
    // GraphQL answers its throttling in its own body (graphql.ts).
    if (fault === "429" && isGraphqlPath(req.path)) res.locals.throttled = true;
    else if (fault === "429")
      return void res
        .status(429)
        .set({ "Retry-After": "2.0", "X-Shopify-Shop-Api-Call-Limit": `${BUCKET_SIZE}/${BUCKET_SIZE}` })
        .json({ errors: "Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service." });
    if (fault === "500") return void res.status(500).json({ errors: "Internal Server Error" });
    if (fault === "slow") return ctx.slow.hold(res, () => next());
    next();
  };
}

function webhookView(subscription: Subscription) {
  return {
    id: subscription.id,
    address: subscription.address,
    topic: subscription.topic,
    created_at: new Date(subscription.createdAt).toISOString(),
    updated_at: new Date(subscription.updatedAt).toISOString(),
    format: subscription.format,
    fields: [],
    metafield_namespaces: [],
    api_version: subscription.apiVersion,
    private_metafield_namespaces: [],
    admin_graphql_api_id: `gid://shopify/WebhookSubscription/${subscription.id}`,
  };
}

function createWebhook(ctx: ShopifyContext, req: Request, res: Response) {
  const grant = res.locals.grant as AccessRecord;
  const shop = res.locals.shop as Shop;
  const input = ((req.body as Json).webhook ?? {}) as Json;
  const topic = typeof input.topic === "string" ? input.topic : "";
  if (input.format !== undefined && input.format !== "json")
    return void res.status(422).json({ errors: { format: ["is not supported by the sandbox: use json"] } });
  const check = checkSubscription(ctx, grant, shop, topic, input.address);
  if (!check.ok && check.field === "scope")
    return void res.status(403).json({ errors: `[API] This action requires merchant approval for ${check.scope} scope.` });
  if (!check.ok) return void res.status(422).json({ errors: { [check.field]: [check.message] } });
  const subscription = addSubscription(ctx, grant, shop, topic, String(input.address), String(res.locals.apiVersion));
  res.status(201).json({ webhook: webhookView(subscription) });
}

/**
 * The Admin REST API's part an app needs to hear of orders, fulfilments and checkouts:
 * `webhooks.json` (list, create, read, delete its own subscriptions) and `shop.json`, at
 * `/shops/<shop>/admin/api/<version>/...`, with Shopify's errors and headers.
 */
export function adminRouter(ctx: ShopifyContext): Router {
  const router = Router({ caseSensitive: true });
  const api = "/shops/:shop/admin/api/:version";
  router.use(
    api,
    ctx.calls.recorder(),
    express.text({ type: () => true, limit: BODY_LIMIT }),
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      if ((error as { status?: number })?.status === 413) return void res.status(413).json({ errors: "Request Entity Too Large" });
      next(error);
    },
    jsonBody,
    authenticate(ctx),
  );
  const own = (res: Response) => ctx.state.subscriptionsOf((res.locals.shop as Shop).domain, (res.locals.grant as AccessRecord).clientId);
  const subscriptionOr404 = (req: Request, res: Response) => {
    const found = own(res).find((s) => s.id === Number(req.params.id));
    if (!found) res.status(404).json({ errors: "Not Found" });
    return found;
  };

  router.post(`${api}/graphql.json`, (req, res) => graphqlAnswer(ctx, req, res));
  router.get(`${api}/shop.json`, (_req, res) => void res.json({ shop: shopPayload(res.locals.shop as Shop) }));
  router.get(`${api}/webhooks.json`, (req, res) => {
    const topic = typeof req.query.topic === "string" ? req.query.topic : undefined;
    res.json({
      webhooks: own(res)
        .filter((s) => !topic || s.topic === topic)
        .map(webhookView),
    });
  });
  router.get(`${api}/webhooks/count.json`, (_req, res) => void res.json({ count: own(res).length }));
  router.post(`${api}/webhooks.json`, (req, res) => createWebhook(ctx, req, res));
  router.get(`${api}/webhooks/:id.json`, (req, res) => {
    const found = subscriptionOr404(req, res);
    if (found) res.json({ webhook: webhookView(found) });
  });
  router.delete(`${api}/webhooks/:id.json`, (req, res) => {
    const found = subscriptionOr404(req, res);
    if (!found) return;
    ctx.state.subscriptions.delete(found.id);
    ctx.state.changed();
    res.json({});
  });
  router.use(api, (_req, res) => void res.status(404).json({ errors: "Not Found" }));
  return router;
}
