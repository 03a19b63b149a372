import { createHash, timingSafeEqual } from "node:crypto";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { PaystackContext } from "./context";
import { failure, ok, transactionData } from "./shapes";

export const BODY_LIMIT = "64kb";
const REFERENCE = /^[A-Za-z0-9.=-]{1,100}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const SUPPORTED_CURRENCIES = new Set(["KES"]);
const MAX_AMOUNT = 100_000_000_00; // KES 100 million in cents: far above any card top-up.

const digest = (value: string) => createHash("sha256").update(value).digest();

class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** `Authorization: Bearer <secret key>`, compared in constant time; Paystack's 401 otherwise. */
function requireSecretKey(secretKey: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
    if (bearer !== undefined && timingSafeEqual(digest(bearer), digest(secretKey))) return next();
    res.status(401).json(failure("Invalid key", "invalid_Key"));
  };
}

/** Body parsers bounded at 64 KB (413), whose errors answer in Paystack's shape. */
export function paystackBodies() {
  return [
    express.json({ limit: BODY_LIMIT }),
    express.urlencoded({ extended: false, limit: BODY_LIMIT }),
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      const status = (error as { status?: number } | undefined)?.status;
      if (status === 413) return void res.status(413).json(failure("Request body too large: the limit is 64 KB.", "request_too_large"));
      if (status && status >= 400 && status < 500)
        return void res.status(400).json(failure("The request body is not valid JSON.", "invalid_body"));
      next(error);
    },
  ];
}

function field(body: Record<string, unknown>, key: string): unknown {
  const value = body[key];
  return value === "" ? undefined : value;
}

function amountOf(value: unknown): number {
  const n = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0 || n > MAX_AMOUNT)
    throw new ApiError(400, "Invalid Amount Sent", "invalid_amount");
  return n;
}

function metadataOf(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw new ApiError(400, "Invalid metadata: send an object or a JSON string of one", "invalid_metadata");
    }
  }
  if (typeof value !== "object" || Array.isArray(value)) throw new ApiError(400, "Invalid metadata: send an object", "invalid_metadata");
  return value;
}

function callbackUrlOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new ApiError(400, "Invalid callback_url", "invalid_callback_url");
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return url.href;
  } catch {
    // refused below
  }
  throw new ApiError(400, "Invalid callback_url: it must be an absolute http(s) URL", "invalid_callback_url");
}

function initializeInput(body: Record<string, unknown>) {
  const email = field(body, "email");
  if (typeof email !== "string" || !EMAIL.test(email.trim())) throw new ApiError(400, "Invalid Email Address Passed", "invalid_email");
  const amount = amountOf(field(body, "amount"));
  const currency = field(body, "currency") ?? "KES";
  if (typeof currency !== "string" || !SUPPORTED_CURRENCIES.has(currency.toUpperCase()))
    throw new ApiError(400, "Currency not supported by merchant", "unsupported_currency");
  const reference = field(body, "reference");
  if (reference !== undefined && (typeof reference !== "string" || !REFERENCE.test(reference)))
    throw new ApiError(400, "Invalid transaction reference: only letters, digits, -, . and = are allowed", "invalid_reference");
  return {
    email: email.trim(),
    amount,
    currency: currency.toUpperCase(),
    reference: reference as string | undefined,
    callbackUrl: callbackUrlOf(field(body, "callback_url")),
    metadata: metadataOf(field(body, "metadata")),
  };
}

/** POST /transaction/initialize and GET /transaction/verify/:reference, with Paystack's shapes. */
export function apiRouter(ctx: PaystackContext): Router {
  const router = Router({ caseSensitive: true });
  router.use("/transaction", requireSecretKey(ctx.options.secretKey));

  router.post("/transaction/initialize", ...paystackBodies(), (req: Request, res: Response) => {
    const body = (req.body && typeof req.body === "object" ? req.body : {}) as Record<string, unknown>;
    try {
      const input = initializeInput(body);
      if (input.reference !== undefined && ctx.store.has(input.reference))
        throw new ApiError(400, "Duplicate Transaction Reference", "duplicate_reference");
      const tx = ctx.store.create(input);
      const origin = ctx.options.publicOrigin?.() ?? `${req.protocol}://${req.get("host")}`;
      res.json(
        ok("Authorization URL created", {
          authorization_url: `${origin.replace(/\/$/, "")}${ctx.options.publicPath}/checkout/${tx.accessCode}`,
          access_code: tx.accessCode,
          reference: tx.reference,
        }),
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      res.status(error.httpStatus).json(failure(error.message, error.code));
    }
  });

  router.get("/transaction/verify/:reference", (req, res) => {
    const tx = ctx.store.get(String(req.params.reference));
    if (!tx) return void res.status(400).json(failure("Transaction reference not found", "transaction_not_found"));
    res.json(ok("Verification successful", transactionData(tx, ctx.domain)));
  });

  // Anything else under /transaction: Paystack's 404 shape rather than the app's page.
  router.use(
    "/transaction",
    (_req, res) => void res.status(404).json(failure("Not found: the sandbox serves initialize and verify only", "not_found", "api_error")),
  );
  return router;
}
