import express, { Router, type NextFunction, type Request, type Response } from "express";
import { incomingAction, optOutAction, type Outcome } from "./actions";
import type { AfricastalkingContext } from "./context";
import { kesString, toKes4, type Account } from "./state";

/** An account as the control API shows it: never its key. */
export function accountView(account: Account) {
  return {
    username: account.username,
    senderIds: account.senderIds,
    shortcodes: account.shortcodes,
    balance: kesString(account.balance),
    deliveryReportUrl: account.deliveryReportUrl ?? null,
    incomingUrl: account.incomingUrl ?? null,
    optOutUrl: account.optOutUrl ?? null,
    optedOut: [...account.blacklist].map((key) => {
      const [senderId, phoneNumber] = key.split("\n");
      return { senderId, phoneNumber };
    }),
  };
}

const answer = (res: Response, outcome: Outcome) =>
  outcome.ok
    ? res.json({ message: outcome.message, ...(outcome.data as object) })
    : res.status(outcome.status).json({ message: outcome.message });

/**
 * JSON control API for tests (gated by the sandbox token): accounts (create or change one, its
 * balance), the messages sent, the callbacks with their attempts, an incoming SMS, an opt-out,
 * chaos, flush and reset. Errors answer `{ message }`.
 */
export function controlRouter(ctx: AfricastalkingContext): Router {
  const router = Router({ caseSensitive: true });
  router.use(express.json({ limit: "64kb" }));
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (error as { status?: number } | undefined)?.status;
    if (status && status >= 400 && status < 500)
      return void res.status(status === 413 ? 413 : 400).json({ message: "The body must be JSON up to 64 KB." });
    next(error);
  });
  const body = (req: Request) => (req.body && typeof req.body === "object" ? (req.body as Record<string, unknown>) : {});

  router.get("/accounts", (_req, res) => void res.json({ accounts: [...ctx.state.accounts.values()].map(accountView) }));
  router.put("/accounts/:username", (req, res) => {
    try {
      const account = ctx.state.upsert({ ...(body(req) as object), username: String(req.params.username) } as Parameters<
        typeof ctx.state.upsert
      >[0]);
      res.json({ account: accountView(account) });
    } catch (error) {
      res.status(400).json({ message: error instanceof Error ? error.message : String(error) });
    }
  });
  router.post("/accounts/:username/balance", (req, res) => {
    const account = ctx.state.account(req.params.username);
    if (!account) return void res.status(404).json({ message: `No account ${req.params.username}.` });
    const kes = body(req).balanceKes;
    if (typeof kes !== "number" || !Number.isFinite(kes) || kes < 0)
      return void res.status(400).json({ message: "balanceKes must be a number, 0 or more." });
    account.balance = toKes4(kes);
    res.json({ account: accountView(account) });
  });
  // The last 2,000 kept, newest first; `total`: every one sent since the sandbox started.
  router.get(
    "/messages",
    (_req, res) =>
      void res.json({ messages: ctx.state.sent.slice().reverse(), total: ctx.state.sentTotal, accepted: ctx.state.acceptedTotal }),
  );
  router.get("/inbox", (_req, res) => void res.json({ messages: ctx.state.inbox.slice().reverse() }));
  router.get("/callbacks", (_req, res) => void res.json({ callbacks: ctx.sender.list() }));
  router.post("/incoming", (req, res) => void answer(res, incomingAction(ctx, body(req))));
  router.post("/opt-out", (req, res) => void answer(res, optOutAction(ctx, body(req))));
  router.post("/chaos", (req, res) => {
    const b = body(req);
    const duplicate = b.duplicate ?? 0;
    if (typeof duplicate !== "number" || !Number.isInteger(duplicate) || duplicate < 0 || duplicate > 5)
      return void res.status(400).json({ message: "duplicate must be an integer from 0 to 5." });
    if (b.reorder !== undefined && typeof b.reorder !== "boolean")
      return void res.status(400).json({ message: "reorder must be true or false." });
    ctx.sender.chaos = { duplicate, reorder: b.reorder === true };
    res.json({ chaos: ctx.sender.chaos });
  });
  router.post("/flush", async (_req, res) => {
    await ctx.sender.flush();
    res.json({ callbacks: ctx.sender.list() });
  });
  router.post("/reset", (_req, res) => {
    ctx.state.reset();
    ctx.sender.reset();
    res.json({ message: "Reset." });
  });
  return router;
}
