import { createHash, timingSafeEqual } from "node:crypto";
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { MpesaContext } from "./context";
import type { SandboxShortcode } from "./shortcodes";
import { conversationId, darajaError, originatorConversationId } from "./daraja-format";
import {
  checkB2c,
  checkRegisterUrl,
  checkSimulate,
  checkStkPush,
  checkStkQuery,
  checkTransactionStatus,
  fitsProduct,
  TRANSACTION_DESC_DELIVERED_MAX,
  type Rejection,
} from "./validation";

/** Daraja's request bodies are small; anything over this answers 413 in Daraja's error shape. */
export const MAX_BODY = "64kb";

const digest = (value: string) => createHash("sha256").update(value).digest();
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

const reject = (res: Response, r: Rejection) => darajaError(res, r.status, r.errorCode, r.errorMessage);

/** `Authorization: Basic base64(key:secret)` as [key, secret], or undefined. */
function basicCredentials(req: Request): [string, string] | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.get("authorization") ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** GET /oauth/v1/generate?grant_type=client_credentials: a Bearer token, `expires_in` a string. */
function generateToken(ctx: MpesaContext): RequestHandler {
  return (req, res) => {
    ctx.tokens.noteRequest();
    res.setHeader("Cache-Control", "no-store");
    const credentials = basicCredentials(req);
    const app = credentials ? ctx.shortcodes.byConsumerKey(credentials[0]) : undefined;
    if (!credentials || !app || !same(credentials[1], app.consumerSecret))
      return darajaError(res, 400, "400.008.01", "Invalid Authentication passed");
    if (req.query.grant_type !== "client_credentials") return darajaError(res, 400, "400.008.02", "Invalid grant type passed");
    const { token, expiresIn } = ctx.tokens.issue(app.consumerKey);
    res.json({ access_token: token, expires_in: String(expiresIn) });
  };
}

/** Every API call needs a live Bearer token: else 404 `404.001.03`, as Daraja answers. */
function requireToken(ctx: MpesaContext): RequestHandler {
  return (req, res, next) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
    const consumerKey = token ? ctx.tokens.appOf(token) : undefined;
    if (!consumerKey) return darajaError(res, 404, "404.001.03", "Invalid Access Token");
    res.locals.mpesaApp = ctx.shortcodes.byConsumerKey(consumerKey);
    next();
  };
}

/** JSON bodies up to MAX_BODY whatever their Content-Type; a JSON object or Daraja's 400. */
function jsonBody(): RequestHandler[] {
  return [
    express.json({ limit: MAX_BODY, type: () => true, strict: false }),
    (req, res, next) => {
      const body = req.body as unknown;
      if (!body || typeof body !== "object" || Array.isArray(body))
        return darajaError(res, 400, "400.002.02", "Bad Request - Invalid JSON");
      next();
    },
  ];
}

/** The body parser's failures in Daraja's shape: 413 too large, 400 not JSON. */
function bodyErrors(error: unknown, _req: Request, res: Response, next: NextFunction) {
  const type = (error as { type?: string } | null)?.type;
  if (type === "entity.too.large") return darajaError(res, 413, "413.001.01", `Request Entity Too Large - at most ${MAX_BODY}`);
  if (type === "entity.parse.failed" || type === "encoding.unsupported" || type === "charset.unsupported")
    return darajaError(res, 400, "400.002.02", "Bad Request - Invalid JSON");
  next(error);
}

/** The app (and its shortcode) the request's token was issued to. */
const appOf = (res: Response) => res.locals.mpesaApp as SandboxShortcode | undefined;

function stkPush(ctx: MpesaContext): RequestHandler {
  return (req, res) => {
    const app = appOf(res);
    const checked = checkStkPush(req.body as Record<string, unknown>, ctx.options, app);
    if (!checked.ok) return reject(res, checked.rejection);
    const request = checked.value;
    if (ctx.prompts.pendingOn(request.phone))
      return darajaError(
        res,
        500,
        "500.001.1001",
        "Unable to lock subscriber, a transaction is already in process for the current subscriber",
      );
    const prompt = ctx.prompts.create({
      phone: request.phone,
      partyA: request.partyA,
      shortcode: request.partyB,
      businessShortCode: request.shortcode,
      payee: ctx.shortcodes.describe(request.shortcode),
      amount: request.amount,
      accountReference: request.accountReference,
      transactionDesc: request.transactionDesc,
      transactionType: request.transactionType,
      callbackUrl: request.callbackUrl,
    });
    // A till called as a paybill (or the other way round, or another PartyB) is accepted, then ends as 2028 at once.
    if (app && !fitsProduct(app, request.transactionType, request.partyB))
      void ctx.prompts.answer(prompt.CheckoutRequestID, "not_permitted").catch(() => {});
    // Production accepts a TransactionDesc of any length, but a very long one never reaches the phone ("observed" only).
    const undeliverable = request.transactionDesc.length > TRANSACTION_DESC_DELIVERED_MAX;
    res.on("finish", () =>
      prompt.state !== "pending"
        ? undefined
        : undeliverable
          ? void ctx.prompts.answer(prompt.CheckoutRequestID, "push_failed").catch(() => {})
          : ctx.prompts.answerIfMagic(prompt),
    );
    res.json({
      MerchantRequestID: prompt.MerchantRequestID,
      CheckoutRequestID: prompt.CheckoutRequestID,
      ResponseCode: "0",
      ResponseDescription: "Success. Request accepted for processing",
      CustomerMessage: "Success. Request accepted for processing",
    });
  };
}

function stkQuery(ctx: MpesaContext): RequestHandler {
  return (req, res) => {
    const checked = checkStkQuery(req.body as Record<string, unknown>, appOf(res));
    if (!checked.ok) return reject(res, checked.rejection);
    const id = checked.value.checkoutRequestId;
    const prompt = ctx.prompts.get(id);
    if (!prompt) return darajaError(res, 400, "400.002.02", "Bad Request - Invalid CheckoutRequestID");
    if (prompt.state === "pending") return darajaError(res, 500, "500.001.1001", "The transaction is being processed", id);
    res.json({
      ResponseCode: "0",
      ResponseDescription: "The service request has been accepted successsfully",
      MerchantRequestID: prompt.MerchantRequestID,
      CheckoutRequestID: prompt.CheckoutRequestID,
      ResultCode: String(prompt.resultCode),
      ResultDesc: prompt.resultDesc,
    });
  };
}

function registerUrl(ctx: MpesaContext, version: "v1" | "v2"): RequestHandler {
  return (req, res) => {
    const checked = checkRegisterUrl(req.body as Record<string, unknown>, ctx.options);
    if (!checked.ok) return reject(res, checked.rejection);
    ctx.c2b.register({ ...checked.value, version });
    res.json({ OriginatorCoversationID: originatorConversationId(), ResponseCode: "0", ResponseDescription: "Success" });
  };
}

/** Sandbox-only C2B simulate: accepted at once; validation and confirmation follow after callbackDelayMs. */
function simulate(ctx: MpesaContext): RequestHandler {
  return (req, res) => {
    const checked = checkSimulate(req.body as Record<string, unknown>);
    if (!checked.ok) return reject(res, checked.rejection);
    const { shortCode, commandId, amount, msisdn, billRefNumber } = checked.value;
    void ctx.poster.schedule(ctx.options.callbackDelayMs, () => ctx.c2b.pay({ shortCode, commandId, amount, msisdn, billRefNumber }));
    res.json({
      ConversationID: conversationId(),
      OriginatorCoversationID: originatorConversationId(),
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
  };
}

/**
 * B2C payment request: accepted at once (only accepted: the outcome goes to the ResultURL). v1 has no
 * OriginatorConversationID in the request; the answer makes one up.
 */
function b2cPayment(ctx: MpesaContext, version: "v1" | "v3"): RequestHandler {
  return (req, res) => {
    const checked = checkB2c(req.body as Record<string, unknown>, { originatorRequired: version === "v3" });
    if (!checked.ok) return reject(res, checked.rejection);
    const request = checked.value;
    const payout = ctx.payouts.accept({
      ...request,
      originatorConversationId: request.originatorConversationId || originatorConversationId(),
    });
    res.json({
      ConversationID: payout.ConversationID,
      OriginatorConversationID: payout.OriginatorConversationID,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
  };
}

/** Transaction status query: accepted at once; the payout's state goes to the ResultURL. */
function transactionStatus(ctx: MpesaContext): RequestHandler {
  return (req, res) => {
    const checked = checkTransactionStatus(req.body as Record<string, unknown>);
    if (!checked.ok) return reject(res, checked.rejection);
    if (!ctx.payouts.credentialOk(checked.value.initiatorName, checked.value.securityCredential))
      return darajaError(res, 400, "400.002.02", "Bad Request - Invalid Initiator");
    const { ConversationID } = ctx.payouts.query(checked.value);
    res.json({
      OriginatorConversationID: originatorConversationId(),
      ConversationID,
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    });
  };
}

/** Daraja's endpoints: OAuth, STK push and query, C2B URL registration and simulate, B2C and its status query. */
export function darajaRouter(ctx: MpesaContext): Router {
  const router = Router({ caseSensitive: true });
  router.get("/oauth/v1/generate", generateToken(ctx));
  const api = Router({ caseSensitive: true });
  api.use(requireToken(ctx), ...jsonBody());
  api.post("/stkpush/v1/processrequest", stkPush(ctx));
  api.post("/stkpushquery/v1/query", stkQuery(ctx));
  api.post("/c2b/v1/registerurl", registerUrl(ctx, "v1"));
  api.post("/c2b/v2/registerurl", registerUrl(ctx, "v2"));
  api.post("/c2b/v1/simulate", simulate(ctx));
  api.post("/c2b/v2/simulate", simulate(ctx));
  api.post("/b2c/v1/paymentrequest", b2cPayment(ctx, "v1"));
  api.post("/b2c/v3/paymentrequest", b2cPayment(ctx, "v3"));
  api.post("/transactionstatus/v1/query", transactionStatus(ctx));
  api.use((_req: Request, res: Response) => darajaError(res, 404, "404.001.01", "Resource not found"));
  api.use(bodyErrors);
  router.use("/mpesa", api);
  return router;
}
