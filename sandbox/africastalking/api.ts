import { createHash, timingSafeEqual } from "node:crypto";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { AfricastalkingContext } from "./context";
import { SLOW_ANSWER_NUMBER } from "./magic";
import { fetchInbox, sendSms } from "./messaging";
import { kesString, type Account } from "./state";

export const BODY_LIMIT = "64kb";
const MAX_RECIPIENTS = 1000;
const MAX_MESSAGE = 1600;

const digest = (value: string) => createHash("sha256").update(value).digest();

/** AT answers its refusals in plain text (decision 145 records which texts are the sandbox's own). */
const plain = (res: Response, status: number, text: string) => void res.status(status).type("text/plain").send(text);

const field = (source: Record<string, unknown> | undefined, name: string) => {
  const value = source?.[name];
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
};

/** The account named by `username` whose key the `apiKey` header carries (any case), or a 401. */
function authenticate(ctx: AfricastalkingContext, req: Request, res: Response, username: string | undefined): Account | undefined {
  if (username === undefined) return void plain(res, 400, "Request is missing required form field 'username'");
  const key = req.get("apikey");
  const account = ctx.state.account(username);
  if (!key || !account || !timingSafeEqual(digest(key), digest(account.apiKey))) {
    return void plain(res, 401, "The supplied authentication is invalid");
  }
  return account;
}

function bodies() {
  return [
    express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 50 }),
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      const status = (error as { status?: number } | undefined)?.status;
      if (status === 413) return plain(res, 413, "Request entity too large");
      if (status && status >= 400 && status < 500) return plain(res, 400, "Invalid request body");
      next(error);
    },
  ];
}

/**
 * AT's bulk SMS API as the official client calls it: `POST /version1/messaging` (form-encoded, 201),
 * `GET /version1/messaging` (the inbox, 100 a page) and `GET /version1/user` (the balance).
 */
export function apiRouter(ctx: AfricastalkingContext): Router {
  const router = Router({ caseSensitive: true });

  router.post("/version1/messaging", ...bodies(), (req: Request, res: Response) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const account = authenticate(ctx, req, res, field(form, "username"));
    if (!account) return;
    const to = field(form, "to");
    const message = typeof form.message === "string" && form.message !== "" ? form.message : undefined;
    if (to === undefined) return plain(res, 400, "Request is missing required form field 'to'");
    if (message === undefined) return plain(res, 400, "Request is missing required form field 'message'");
    if (message.length > MAX_MESSAGE) return plain(res, 400, `The message is longer than ${MAX_MESSAGE} characters`);
    const bulkMode = field(form, "bulkSMSMode");
    if (bulkMode !== undefined && bulkMode !== "1")
      return plain(res, 400, "Premium SMS (bulkSMSMode=0) is not available in this sandbox: send with bulkSMSMode=1");
    const numbers = to
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    if (numbers.length === 0) return plain(res, 400, "Request is missing required form field 'to'");
    if (numbers.length > MAX_RECIPIENTS) return plain(res, 400, `At most ${MAX_RECIPIENTS} recipients a request`);
    const { body } = sendSms(ctx, account, {
      to: numbers,
      message,
      from: field(form, "from"),
      enqueue: field(form, "enqueue") === "1",
    });
    if (!numbers.includes(SLOW_ANSWER_NUMBER)) return void res.status(201).json(body);
    // Sent, but the answer is late: a client that gives up first never learns the message ids.
    const timer = setTimeout(() => res.status(201).json(body), ctx.options.slowAnswerMs);
    res.on("close", () => clearTimeout(timer));
  });

  router.get("/version1/messaging", (req, res) => {
    const query = req.query as Record<string, unknown>;
    const account = authenticate(ctx, req, res, field(query, "username"));
    if (!account) return;
    const raw = field(query, "lastReceivedId") ?? "0";
    if (!/^\d{1,15}$/.test(raw)) return plain(res, 400, "lastReceivedId must be a number");
    res.status(200).json({ SMSMessageData: { Messages: fetchInbox(ctx, account, Number(raw)) } });
  });

  router.get("/version1/user", (req, res) => {
    const account = authenticate(ctx, req, res, field(req.query as Record<string, unknown>, "username"));
    if (!account) return;
    res.status(200).json({ UserData: { balance: kesString(account.balance) } });
  });

  return router;
}
