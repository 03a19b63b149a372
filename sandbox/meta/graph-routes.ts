import type { IncomingMessage, ServerResponse } from "node:http";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { SandboxContext } from "./context";
import { redactPath } from "./faults";
import { REGISTRATION_LIMIT, REGISTRATION_WINDOW_MS, type PhoneNumber, type Template, type TokenRecord, type Waba } from "./state";
import { APP_NAME, type GraphFaultError, type GraphStep } from "./types";
import { newTraceId, parseHttpUrl, serializeLikeMeta } from "./util";
import { fail, ok, param, parseFields, pick, selfUrl, unsupported, type GraphResult } from "./graph-common";
import { createTemplate, deleteTemplates, editTemplate, listTemplates, templateNode } from "./graph-templates";
import { MEDIA_BODY_LIMIT, type StoredMedia } from "./media";
import { catalogProducts, commerceSettings, createCatalog, findProduct, productItem, wabaCatalogs } from "./catalogs";
import { batchStatus, itemsBatch } from "./catalog-batch";

const VERSION = /^v\d+\.\d+$/;

const unknownPath = (rest: string) => fail(400, 2500, `Unknown path components: ${rest}`);

const invalidParameter = (details: string) =>
  fail(400, 100, "(#100) Invalid parameter", { errorData: { messaging_product: "whatsapp", details } });

/** The largest JSON or form body the Graph API takes here (the router's parsers and the send fast path). */
const JSON_LIMIT_BYTES = 1024 * 1024;

/** A body that could not be read (malformed, not an object, too large): Graph's envelope, a 4xx. */
const unparseableBody = (status: number) =>
  fail(status >= 400 && status < 500 ? status : 400, 100, "(#100) The request body could not be parsed.");

/** Graph API under /graph/:version/…: OAuth code exchange, debug_token, WABA, phone number and template endpoints. */
export function graphRouter(ctx: SandboxContext): Router {
  const router = Router({ caseSensitive: true });
  // An upload session's POST carries the file's raw bytes (Meta takes up to 100 MB, a PDF).
  const rawUpload = express.raw({ type: () => true, limit: "100mb" });
  // POST /{phone-number-id}/media is multipart with the file (documents up to 100 MB): read raw, parsed by the media desk.
  const rawMedia = express.raw({ type: () => true, limit: MEDIA_BODY_LIMIT });
  router.use(
    "/graph",
    (req: Request, res: Response, next: NextFunction) =>
      /^\/[^/]+\/upload:/.test(req.path)
        ? rawUpload(req, res, next)
        : req.method === "POST" && /^\/[^/]+\/[^/]+\/media\/?$/.test(req.path)
          ? rawMedia(req, res, next)
          : next(),
    express.json({ limit: JSON_LIMIT_BYTES }),
    express.urlencoded({ extended: false, limit: JSON_LIMIT_BYTES }),
    (req: Request, res: Response) => handle(ctx, req, res),
    // Body parser failures (malformed JSON, too large) still answer with a Graph envelope.
    (error: unknown, req: Request, res: Response, _next: NextFunction) => {
      respond(ctx, req, res, unparseableBody((error as { status?: number }).status ?? 400), undefined, newTraceId());
    },
  );
  return router;
}

const SEND_PATH = /^\/graph(\/v\d+\.\d+\/[^/?#]+\/messages)$/;

/**
 * `POST /graph/{version}/{phone-number-id}/messages` with a JSON body, answered without Express: the
 * same `handle` (token, faults, the message desk, the answer and the call log) behind a request and
 * a response that carry only what it reads. One send is the whole of a benchmark's traffic to the
 * sandbox, and Express's routing and body parser were a fifth of the sandbox's CPU for it. Anything
 * else, or a body this path does not read (compressed, another charset), goes to the Express router.
 * Answers true when it took the request.
 */
export function graphSendFastPath(ctx: SandboxContext, publicPath: string) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? "";
    if (req.method !== "POST" || !url.startsWith(publicPath) || !url.endsWith("/messages")) return false;
    const match = SEND_PATH.exec(url.slice(publicPath.length));
    const type = req.headers["content-type"] ?? "";
    const encoding = req.headers["content-encoding"];
    if (!match || !/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type) || (encoding && encoding !== "identity")) return false;
    const path = match[1]!;
    const shimReq = {
      method: "POST",
      path,
      originalUrl: url,
      query: {},
      body: undefined as unknown,
      get: (name: string) => {
        const value = req.headers[name.toLowerCase()];
        return Array.isArray(value) ? value[0] : value;
      },
    };
    const shimRes = {
      setHeader: (name: string, value: string) => void res.setHeader(name, value),
      status(code: number) {
        res.statusCode = code;
        return shimRes;
      },
      type(value: string) {
        // As Express sets it (mime-types writes the charset in lower case).
        res.setHeader(
          "Content-Type",
          value.replace(/charset=([^;\s]+)/i, (_m, charset: string) => `charset=${charset.toLowerCase()}`),
        );
        return shimRes;
      },
      send(body: string) {
        res.setHeader("Content-Length", Buffer.byteLength(body));
        res.end(body);
        return shimRes;
      },
    };
    const asRequest = shimReq as unknown as Request;
    const asResponse = shimRes as unknown as Response;
    const unreadable = (status: number) => {
      respond(ctx, asRequest, asResponse, unparseableBody(status), undefined, newTraceId());
    };
    if (Number(req.headers["content-length"] ?? 0) > JSON_LIMIT_BYTES) {
      req.resume();
      unreadable(413);
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > JSON_LIMIT_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on("error", () => res.destroy());
    req.on("end", () => {
      if (over) return unreadable(413);
      const text = Buffer.concat(chunks, size).toString("utf8");
      if (text.length) {
        // As express.json (strict): an object or an array, else the body could not be parsed.
        const first = text.trimStart()[0];
        try {
          if (first !== "{" && first !== "[") throw new SyntaxError("not an object or array");
          shimReq.body = JSON.parse(text);
        } catch {
          return unreadable(400);
        }
      } else shimReq.body = {};
      handle(ctx, asRequest, asResponse);
    });
    return true;
  };
}

function handle(ctx: SandboxContext, req: Request, res: Response) {
  const traceId = newTraceId();
  const method = req.method === "HEAD" ? "GET" : req.method.toUpperCase();
  let segments: string[];
  try {
    segments = req.path.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return respond(ctx, req, res, unknownPath(req.path), undefined, traceId);
  }
  const [version, ...rest] = segments;
  if (!version || !VERSION.test(version)) {
    return respond(
      ctx,
      req,
      res,
      fail(400, 2500, `Unknown path components: /${version ?? ""} (the sandbox expects a Graph version such as v23.0 first)`),
      undefined,
      traceId,
    );
  }
  const { step, run } = resolve(ctx, req, method, rest);
  const fault = ctx.faults.take(step);
  respond(ctx, req, res, fault ? faultResult(fault, step) : run(), step, traceId);
}

/** An injected fault as Meta's envelope. */
function faultResult(fault: GraphFaultError, step: GraphStep | undefined): GraphResult {
  return fail(fault.status ?? 400, fault.code, fault.message ?? `(#${fault.code}) Sandbox fault injected for ${step}`, {
    type: fault.type,
    subcode: fault.subcode,
    isTransient: fault.isTransient,
  });
}

function respond(ctx: SandboxContext, req: Request, res: Response, result: GraphResult, step: GraphStep | undefined, traceId: string) {
  const body = result.error ? { error: { ...result.error, fbtrace_id: traceId } } : result.body;
  res.setHeader("x-fb-trace-id", traceId);
  res.setHeader("Cache-Control", "no-store");
  const version = req.path.split("/").filter(Boolean)[0];
  if (version && VERSION.test(version)) res.setHeader("facebook-api-version", version);
  if (result.status === 401)
    res.setHeader("WWW-Authenticate", `OAuth "Facebook Platform" "invalid_token" "${result.error?.message.replace(/"/g, "'") ?? ""}"`);
  res.status(result.status).type("application/json; charset=UTF-8").send(serializeLikeMeta(body));
  const search = req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?")) : "";
  ctx.calls.add({
    at: new Date(ctx.options.now()).toISOString(),
    method: req.method,
    path: redactPath(req.path, search),
    status: result.status,
    ...(step ? { step } : {}),
    ...(result.error ? { errorCode: result.error.code } : {}),
  });
}

function bearerToken(req: Request): string | undefined {
  const header = req.get("authorization");
  const match = header ? /^(?:Bearer|OAuth)\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? param(req, "access_token");
}

interface Route {
  step?: GraphStep;
  run: () => GraphResult;
}

function resolve(ctx: SandboxContext, req: Request, method: string, rest: string[]): Route {
  const { store } = ctx;
  const [first, edge, ...deeper] = rest;
  if (!first) return { run: () => unknownPath("/") };
  if (first === "oauth" && edge === "access_token" && deeper.length === 0 && method === "GET")
    return { step: "oauth", run: () => exchangeCode(ctx, req) };
  if (first === "debug_token" && !edge && method === "GET") return { step: "debug_token", run: () => debugToken(ctx, req) };
  if (deeper.length > 0) return { run: () => unknownPath(`/${rest.slice(1).join("/")}`) };

  const id = first;
  if (edge === "uploads" && !deeper.length)
    return {
      step: method === "POST" ? "upload.create" : undefined,
      run: () => {
        const auth = authenticate(ctx, req);
        if ("status" in auth) return auth;
        return method === "POST" ? ctx.uploads.create(req, id, auth) : unsupported(method, `${id}/uploads`);
      },
    };
  if (id.startsWith("upload:") && !edge) {
    const step: GraphStep | undefined = method === "POST" ? "upload.send" : method === "GET" ? "upload.status" : undefined;
    return {
      step,
      run: () => {
        const auth = authenticate(ctx, req);
        if ("status" in auth) return auth;
        const upload = ctx.uploads.find(id, req);
        // Another system user's session is as unknown as a made-up one.
        if (!upload || upload.userId !== auth.userId || !step) return unsupported(method, id);
        return method === "POST" ? ctx.uploads.send(req, upload) : ctx.uploads.status(upload);
      },
    };
  }
  const shop = shopRoute(ctx, req, method, id, edge);
  if (shop) return shop;
  const conversions = datasetRoute(ctx, req, method, id, edge);
  if (conversions) return conversions;
  const waba = store.wabas.get(id);
  const phone = store.phoneNumbers.get(id);
  const template = ctx.templates.get(id);
  const media = ctx.media.get(id);

  // Every remaining endpoint needs the business token, and the token must grant the object.
  const guarded = (allowed: boolean, body: (token: TokenRecord) => GraphResult) => (): GraphResult => {
    const auth = authenticate(ctx, req);
    if ("status" in auth) return auth;
    if (!allowed || !grants(auth, waba, phone, template, media)) return unsupported(method, id);
    return body(auth);
  };

  if (!edge && media) {
    const step: GraphStep | undefined = method === "GET" ? "media.get" : method === "DELETE" ? "media.delete" : undefined;
    return {
      step,
      run: guarded(!!step, () => (method === "GET" ? ctx.media.node(req, media) : ctx.media.remove(req, media))),
    };
  }

  if (!edge && template) {
    const step: GraphStep | undefined = method === "GET" ? "template.get" : method === "POST" ? "template.edit" : undefined;
    return {
      step,
      run: guarded(!!step, () => (method === "GET" ? templateNode(req, template) : editTemplate(ctx, req, template))),
    };
  }
  if (!edge) {
    const step: GraphStep | undefined = waba ? "waba" : phone ? "phone_number" : undefined;
    return {
      step,
      run: guarded(method === "GET", () => (waba ? wabaNode(ctx, req, waba) : phoneNode(req, phone!))),
    };
  }
  switch (edge) {
    case "subscribed_apps":
      return {
        step: "subscribed_apps",
        run: guarded(!!waba && ["GET", "POST", "DELETE"].includes(method), () => subscribedApps(ctx, req, method, waba!)),
      };
    case "phone_numbers":
      return { step: "phone_numbers", run: guarded(!!waba && method === "GET", () => phoneNumbers(ctx, req, waba!)) };
    case "register":
    case "deregister":
      return { step: edge, run: guarded(!!phone && method === "POST", () => registration(ctx, req, edge, phone!)) };
    case "messages":
      return {
        step: phone && method === "POST" ? "messages.send" : undefined,
        run: guarded(!!phone && method === "POST", () => ctx.messages.post(phone!, req.body)),
      };
    case "media":
      return {
        step: phone && method === "POST" ? "media.upload" : undefined,
        run: guarded(!!phone && method === "POST", () => ctx.media.upload(req, phone!)),
      };
    case "product_catalogs":
      return {
        step: waba ? "catalog.connect" : undefined,
        run: guarded(!!waba && ["GET", "POST", "DELETE"].includes(method), () => wabaCatalogs(store, req, method, waba!)),
      };
    case "whatsapp_commerce_settings":
      return {
        step: phone ? "commerce_settings" : undefined,
        run: guarded(!!phone && ["GET", "POST"].includes(method), () => commerceSettings(store, req, method, phone!)),
      };
    case "message_templates": {
      const step = TEMPLATE_EDGE_STEPS[method];
      const answer = method === "GET" ? listTemplates : method === "POST" ? createTemplate : deleteTemplates;
      return { step: waba ? step : undefined, run: guarded(!!waba && !!step, () => answer(ctx, req, waba!)) };
    }
    default:
      return {
        run: () => {
          const auth = authenticate(ctx, req);
          if ("status" in auth) return auth;
          if ((!waba && !phone && !template && !media) || !grants(auth, waba, phone, template, media)) return unsupported(method, id);
          return unknownPath(`/${edge}`);
        },
      };
  }
}

/**
 * The catalog endpoints addressed by a business, a catalog or a product item id: the token must be
 * the owning business's. Undefined when `id` is none of them (or the edge is another's).
 */
function shopRoute(ctx: SandboxContext, req: Request, method: string, id: string, edge: string | undefined): Route | undefined {
  const { store } = ctx;
  const business = edge === "owned_product_catalogs" ? store.businesses.get(id) : undefined;
  const catalog = store.catalogs.get(id);
  const item = !edge ? findProduct(store, id) : undefined;
  if (!business && !catalog && !item) return undefined;
  const owner = business?.id ?? catalog?.businessId ?? item!.catalog.businessId;
  const guarded = (allowed: boolean, body: () => GraphResult) => (): GraphResult => {
    const auth = authenticate(ctx, req);
    if ("status" in auth) return auth;
    if (!allowed || auth.businessId !== owner) return unsupported(method, id);
    return body();
  };
  if (business) return { step: "catalog.create", run: guarded(method === "POST", () => createCatalog(store, req, business.id)) };
  if (item)
    return {
      step: "catalog.product",
      run: guarded(["GET", "POST", "DELETE"].includes(method), () => productItem(store, req, method, item)),
    };
  if (edge === "products")
    return { step: "catalog.product", run: guarded(["GET", "POST"].includes(method), () => catalogProducts(store, req, method, catalog!)) };
  if (edge === "items_batch") return { step: "catalog.batch", run: guarded(method === "POST", () => itemsBatch(store, req, catalog!)) };
  if (edge === "check_batch_request_status")
    return { step: "catalog.batch", run: guarded(method === "GET", () => batchStatus(req, catalog!)) };
  if (!edge)
    return {
      step: "catalog.get",
      run: guarded(method === "GET", () =>
        ok({ id: catalog!.id, name: catalog!.name, vertical: catalog!.vertical, product_count: catalog!.products.length }),
      ),
    };
  return { run: guarded(false, () => unknownPath(`/${edge}`)) };
}

/**
 * The Conversions API for Business Messaging (datasets.ts): `GET`/`POST /{waba_id}/dataset` and
 * `POST /{dataset_id}/events`, with the business token of the WABA. Undefined when it is neither.
 */
function datasetRoute(ctx: SandboxContext, req: Request, method: string, id: string, edge: string | undefined): Route | undefined {
  const waba = edge === "dataset" ? ctx.store.wabas.get(id) : undefined;
  const dataset = ctx.datasets.get(id);
  if (!waba && !dataset) return undefined;
  const guarded = (allowed: boolean, wabaId: string, body: () => GraphResult) => (): GraphResult => {
    const auth = authenticate(ctx, req);
    if ("status" in auth) return auth;
    if (!allowed || !auth.wabaIds.includes(wabaId)) return unsupported(method, id);
    return body();
  };
  if (waba)
    return {
      step: "dataset",
      run: guarded(method === "GET" || method === "POST", waba.id, () =>
        method === "GET" ? ctx.datasets.list(waba.id) : ctx.datasets.create(waba.id, req),
      ),
    };
  if (edge === "events")
    return { step: "dataset.events", run: guarded(method === "POST", dataset!.wabaId, () => ctx.datasets.events(dataset!, req)) };
  return { run: guarded(false, dataset!.wabaId, () => unknownPath(`/${edge ?? ""}`)) };
}

const TEMPLATE_EDGE_STEPS: Record<string, GraphStep | undefined> = {
  GET: "template.list",
  POST: "template.create",
  DELETE: "template.delete",
};

function grants(
  token: TokenRecord,
  waba: Waba | undefined,
  phone: PhoneNumber | undefined,
  template: Template | undefined,
  media?: StoredMedia,
) {
  if (waba) return token.wabaIds.includes(waba.id);
  if (phone) return token.wabaIds.includes(phone.wabaId);
  if (template) return token.wabaIds.includes(template.wabaId);
  if (media) return token.wabaIds.includes(media.wabaId);
  return false;
}

/**
 * A media file's bytes at the URL GET /{media-id} answers (Meta's lookaside stand-in): the
 * business token of the media's WABA as Bearer, else 401; an unknown, deleted or forged URL 404.
 */
export function mediaDownload(ctx: SandboxContext) {
  return (req: Request, res: Response) => {
    const traceId = newTraceId();
    const step: GraphStep = "media.download";
    const fault = ctx.faults.take(step);
    if (fault) return respond(ctx, req, res, faultResult(fault, step), step, traceId);
    const auth = authenticate(ctx, req);
    if ("status" in auth) return respond(ctx, req, res, auth, step, traceId);
    const media = ctx.media.file(req.query.mid, req.query.hash);
    if (!media || !auth.wabaIds.includes(media.wabaId))
      return respond(ctx, req, res, fail(404, 100, "(#100) The media file does not exist or its URL is no longer valid."), step, traceId);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Type", media.mimeType);
    res.setHeader("Content-Length", String(media.fileSize));
    res.status(200).end(req.method === "HEAD" ? undefined : media.bytes);
    ctx.calls.add({ at: new Date(ctx.options.now()).toISOString(), method: req.method, path: req.path, status: 200, step });
  };
}

function authenticate(ctx: SandboxContext, req: Request): TokenRecord | GraphResult {
  const token = bearerToken(req);
  if (!token) return fail(401, 190, "An active access token must be used to query information about the current user.");
  const record = ctx.store.tokens.get(token);
  if (!record) return fail(401, 190, "Invalid OAuth access token - Cannot parse access token", { subcode: 467 });
  const now = ctx.options.now();
  if (record.expiresAt && record.expiresAt <= now) {
    return fail(
      401,
      190,
      `Error validating access token: Session has expired on ${new Date(record.expiresAt).toUTCString()}. The current time is ${new Date(now).toUTCString()}.`,
      {
        subcode: 463,
      },
    );
  }
  return record;
}

// ---- OAuth and debug_token --------------------------------------------------------------------

function exchangeCode(ctx: SandboxContext, req: Request): GraphResult {
  const { options, store } = ctx;
  if (param(req, "client_id") !== options.appId || param(req, "client_secret") !== options.appSecret) {
    return fail(400, 1, "Error validating client secret.");
  }
  const code = param(req, "code");
  if (!code) return fail(400, 100, "Missing authorization code");
  const record = store.codes.get(code);
  if (!record) return fail(400, 100, "Invalid verification code format.", { subcode: 36008 });
  if (record.used) return fail(400, 100, "This authorization code has been used.", { subcode: 36009 });
  // Single use from here on, whatever happens next.
  record.used = true;
  if (options.now() - record.issuedAt > options.codeTtlMs)
    return fail(400, 100, "This authorization code has expired.", { subcode: 36007 });
  const token = store.issueToken(record);
  return ok({
    access_token: token.token,
    token_type: "bearer",
    ...(token.expiresAt ? { expires_in: Math.round((token.expiresAt - token.issuedAt) / 1000) } : {}),
  });
}

function debugToken(ctx: SandboxContext, req: Request): GraphResult {
  const { options, store } = ctx;
  const appToken = param(req, "access_token") ?? bearerToken(req);
  if (appToken !== `${options.appId}|${options.appSecret}`) return fail(400, 190, "Invalid OAuth access token signature.");
  const input = param(req, "input_token");
  if (!input) return fail(400, 100, "(#100) The parameter input_token is required");
  const token = store.tokens.get(input);
  const now = options.now();
  if (!token) {
    return ok({
      data: {
        is_valid: false,
        app_id: options.appId,
        error: { code: 190, message: "Invalid OAuth access token - Cannot parse access token" },
        scopes: [],
      },
    });
  }
  const expiresAt = token.expiresAt ? Math.floor(token.expiresAt / 1000) : 0;
  if (token.expiresAt && token.expiresAt <= now) {
    return ok({
      data: {
        app_id: options.appId,
        type: "SYSTEM_USER",
        application: APP_NAME,
        is_valid: false,
        expires_at: expiresAt,
        error: {
          code: 190,
          subcode: 463,
          message: `Error validating access token: Session has expired on ${new Date(token.expiresAt).toUTCString()}.`,
        },
        scopes: [],
      },
    });
  }
  return ok({
    data: {
      app_id: options.appId,
      type: "SYSTEM_USER",
      application: APP_NAME,
      is_valid: true,
      expires_at: expiresAt,
      data_access_expires_at: 0,
      user_id: token.userId,
      scopes: ["whatsapp_business_management", "whatsapp_business_messaging", "business_management"],
      granular_scopes: [
        { scope: "whatsapp_business_management", target_ids: [...token.wabaIds] },
        { scope: "whatsapp_business_messaging", target_ids: [...token.wabaIds] },
        { scope: "business_management" },
      ],
    },
  });
}

// ---- nodes and fields ---------------------------------------------------------------------------

function wabaNode(ctx: SandboxContext, req: Request, waba: Waba): GraphResult {
  const business = ctx.store.businesses.get(waba.businessId);
  const all: Record<string, unknown> = {
    id: waba.id,
    name: waba.name,
    currency: "USD",
    timezone_id: waba.timezoneId,
    message_template_namespace: waba.namespace,
    account_review_status: "APPROVED",
    business_verification_status: "verified",
    ownership_type: "CLIENT_OWNED",
    is_enabled_for_insights: false,
    owner_business_info: { id: waba.businessId, name: business?.name ?? "" },
  };
  const requested = parseFields(param(req, "fields")) ?? ["id", "name", "timezone_id", "message_template_namespace"];
  return pick(all, requested, "WhatsAppBusinessAccount");
}

function phoneFields(phone: PhoneNumber): Record<string, unknown> {
  return {
    id: phone.id,
    display_phone_number: phone.displayPhoneNumber,
    verified_name: phone.verifiedName,
    quality_rating: phone.qualityRating,
    code_verification_status: "VERIFIED",
    status: phone.status,
    name_status: "APPROVED",
    new_name_status: "NONE",
    platform_type: phone.platformType,
    throughput: { level: phone.platformType === "CLOUD_API" ? phone.throughput : "NOT_APPLICABLE" },
    whatsapp_business_manager_messaging_limit: phone.messagingLimit,
    messaging_limit_tier: phone.messagingLimit,
    is_official_business_account: false,
    is_pin_enabled: phone.pin !== null,
    account_mode: "LIVE",
    last_onboarded_time: phone.registeredAt ? new Date(phone.registeredAt).toISOString().replace(/\.\d{3}Z$/, "+0000") : undefined,
  };
}

const DEFAULT_PHONE_FIELDS = ["id", "display_phone_number", "verified_name", "quality_rating"];
/** The edge's default adds `status`, which Meta's OpenAPI description requires of every listed number. */
const DEFAULT_PHONE_EDGE_FIELDS = [...DEFAULT_PHONE_FIELDS, "status"];

function phoneNode(req: Request, phone: PhoneNumber): GraphResult {
  return pick(phoneFields(phone), parseFields(param(req, "fields")) ?? DEFAULT_PHONE_FIELDS, "WhatsAppBusinessPhoneNumber");
}

const cursorOf = (id: string) => Buffer.from(`phone:${id}`).toString("base64url");
const idOfCursor = (cursor: string) => {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  return decoded.startsWith("phone:") ? decoded.slice(6) : undefined;
};

function phoneNumbers(ctx: SandboxContext, req: Request, waba: Waba): GraphResult {
  const all = [...ctx.store.phoneNumbers.values()].filter((p) => p.wabaId === waba.id);
  const fields = parseFields(param(req, "fields")) ?? DEFAULT_PHONE_EDGE_FIELDS;
  const limitText = param(req, "limit");
  const limit = limitText === undefined ? 25 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) return fail(400, 100, "(#100) Param limit must be a positive integer");
  let start = 0;
  let end = all.length;
  const after = param(req, "after");
  const before = param(req, "before");
  if (after) {
    const index = all.findIndex((p) => p.id === idOfCursor(after));
    if (index < 0) return fail(400, 100, "(#100) Invalid cursor: after");
    start = index + 1;
  } else if (before) {
    const index = all.findIndex((p) => p.id === idOfCursor(before));
    if (index < 0) return fail(400, 100, "(#100) Invalid cursor: before");
    end = index;
    start = Math.max(0, end - limit);
  }
  const page = all.slice(start, Math.min(end, start + limit));
  const data: Record<string, unknown>[] = [];
  for (const phone of page) {
    const node = pick(phoneFields(phone), fields, "WhatsAppBusinessPhoneNumber");
    if (node.error) return node;
    data.push(node.body as Record<string, unknown>);
  }
  if (page.length === 0) return ok({ data: [] });
  const paging: Record<string, unknown> = { cursors: { before: cursorOf(page[0]!.id), after: cursorOf(page[page.length - 1]!.id) } };
  if (start + page.length < all.length) {
    const next = selfUrl(req);
    next.searchParams.set("fields", fields.join(","));
    next.searchParams.set("limit", String(limit));
    next.searchParams.set("after", cursorOf(page[page.length - 1]!.id));
    paging.next = next.toString();
  }
  if (start > 0) {
    const previous = selfUrl(req);
    previous.searchParams.set("fields", fields.join(","));
    previous.searchParams.set("limit", String(limit));
    previous.searchParams.set("before", cursorOf(page[0]!.id));
    paging.previous = previous.toString();
  }
  return ok({ data, paging });
}

// ---- subscriptions and registration ------------------------------------------------------------

function subscribedApps(ctx: SandboxContext, req: Request, method: string, waba: Waba): GraphResult {
  const { store, options } = ctx;
  if (method === "GET") {
    const sub = store.subscriptions.get(waba.id);
    if (!sub) return ok({ data: [] });
    return ok({
      data: [
        {
          whatsapp_business_api_data: {
            id: options.appId,
            name: APP_NAME,
            link: `https://www.facebook.com/games/?app_id=${options.appId}`,
          },
          ...(sub.overrideCallbackUri ? { override_callback_uri: sub.overrideCallbackUri } : {}),
        },
      ],
    });
  }
  if (method === "DELETE") {
    store.subscriptions.delete(waba.id);
    store.changed();
    return ok({ success: true });
  }
  const override = param(req, "override_callback_uri");
  const verifyToken = param(req, "verify_token");
  if (override !== undefined && override !== "") {
    if (!parseHttpUrl(override)) return fail(400, 100, "(#100) Param override_callback_uri must be a valid URL");
    if (!verifyToken) return fail(400, 100, "(#100) The parameter verify_token is required");
  }
  store.subscriptions.set(waba.id, {
    wabaId: waba.id,
    subscribedAt: ctx.options.now(),
    ...(override ? { overrideCallbackUri: override } : {}),
  });
  store.changed();
  return ok({ success: true });
}

function registration(ctx: SandboxContext, req: Request, edge: "register" | "deregister", phone: PhoneNumber): GraphResult {
  const now = ctx.options.now();
  const recent = phone.registrationCalls.filter((t) => t > now - REGISTRATION_WINDOW_MS);
  const limited = recent.length >= REGISTRATION_LIMIT;
  // Refused calls count too, so a number over the limit stays blocked while calls keep coming.
  phone.registrationCalls = [...recent, now];
  ctx.store.changed();
  if (limited) {
    return fail(400, 133016, "(#133016) Account register deregister rate limit exceeded", {
      errorData: {
        messaging_product: "whatsapp",
        details: `Registration or deregistration failed because there were too many attempts for this phone number in a short period of time (limit ${REGISTRATION_LIMIT} per 72 hours).`,
      },
    });
  }
  if (edge === "deregister") {
    phone.status = "DISCONNECTED";
    phone.platformType = "NOT_APPLICABLE";
    phone.registeredAt = null;
    return ok({ success: true });
  }
  if (param(req, "messaging_product") !== "whatsapp") return invalidParameter("Param messaging_product must be 'whatsapp'");
  const pin = param(req, "pin");
  if (pin === undefined) return invalidParameter("The parameter pin is required.");
  if (!/^\d{6}$/.test(pin)) return invalidParameter("Param pin must be 6 characters long.");
  if (phone.pin !== null && phone.pin !== pin) {
    return fail(400, 133005, "(#133005) Two step verification PIN Mismatch", {
      errorData: { messaging_product: "whatsapp", details: "Two step verification PIN Mismatch" },
    });
  }
  phone.pin ??= pin;
  phone.platformType = "CLOUD_API";
  phone.status = "CONNECTED";
  phone.registeredAt = now;
  return ok({ success: true });
}
