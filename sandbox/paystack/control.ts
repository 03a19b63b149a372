import express, { Router, type NextFunction, type Request, type Response } from "express";
import { cardFor, TEST_OTP, type CardOutcome } from "./cards";
import type { PaystackContext } from "./context";
import { controlExpiry } from "./payments";
import type { SandboxTransaction } from "./state";

const OUTCOMES: readonly CardOutcome[] = ["success", "declined", "3ds"];

/** A transaction as the control API and the console show it. */
export function transactionView(ctx: PaystackContext, tx: SandboxTransaction) {
  return {
    reference: tx.reference,
    accessCode: tx.accessCode,
    checkoutPath: `${ctx.options.publicPath}/checkout/${tx.accessCode}`,
    status: tx.status,
    gatewayResponse: tx.gatewayResponse,
    amount: tx.amount,
    currency: tx.currency,
    email: tx.email,
    callbackUrl: tx.callbackUrl,
    metadata: tx.metadata ?? null,
    createdAt: tx.createdAt.toISOString(),
    paidAt: tx.paidAt?.toISOString() ?? null,
    card: tx.card ? { last4: tx.card.last4, brand: tx.card.brand } : null,
    log: tx.log.map((entry) => ({ at: entry.at.toISOString(), action: entry.action })),
  };
}

export type TransactionView = ReturnType<typeof transactionView>;

/** What paying through the control API answers, or an error with its status. */
export function payByControl(
  ctx: PaystackContext,
  reference: string,
  input: { card?: unknown; otp?: unknown },
): { status: number; body: Record<string, unknown> } {
  const tx = ctx.store.get(reference);
  if (!tx) return { status: 404, body: { message: `No transaction with reference ${reference}.` } };
  const outcome = input.card ?? "success";
  if (typeof outcome !== "string" || !OUTCOMES.includes(outcome as CardOutcome))
    return { status: 400, body: { message: 'card must be "success", "declined" or "3ds".' } };
  if (input.otp !== undefined && typeof input.otp !== "string") return { status: 400, body: { message: "otp must be a string." } };
  const card = cardFor(outcome as CardOutcome);
  let result = ctx.desk.payWithCard(tx, card, controlExpiry(new Date(ctx.options.now())));
  // 3-D Secure: the code comes at once, the documented one unless the test says otherwise.
  if (result.kind === "otp") result = ctx.desk.submitOtp(tx, (input.otp as string | undefined) ?? TEST_OTP);
  if (result.kind === "refused") return { status: 409, body: { message: result.message, transaction: transactionView(ctx, tx) } };
  return { status: 200, body: { transaction: transactionView(ctx, tx) } };
}

/**
 * JSON control API for tests (gated by the sandbox token): transactions, paying one as the
 * checkout would, the webhooks sent, redelivering one, reset. Errors answer `{ message }`.
 */
export function controlRouter(ctx: PaystackContext): Router {
  const router = Router({ caseSensitive: true });
  router.use(express.json({ limit: "64kb" }));
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (error as { status?: number } | undefined)?.status;
    if (status === 413) return void res.status(413).json({ message: "Request body too large: the limit is 64 KB." });
    if (status && status >= 400 && status < 500) return void res.status(400).json({ message: "The body must be JSON." });
    next(error);
  });
  router.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  const body = (req: Request) =>
    (req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;

  router.get("/transactions", (_req, res) => {
    res.json({ transactions: ctx.store.list().map((tx) => transactionView(ctx, tx)) });
  });

  router.get("/transactions/:reference", (req, res) => {
    const tx = ctx.store.get(String(req.params.reference));
    if (!tx) return void res.status(404).json({ message: `No transaction with reference ${String(req.params.reference)}.` });
    res.json({ transaction: transactionView(ctx, tx) });
  });

  router.post("/transactions/:reference/pay", (req, res) => {
    const answer = payByControl(ctx, String(req.params.reference), body(req));
    res.status(answer.status).json(answer.body);
  });

  router.get("/webhooks", (_req, res) => {
    res.json({ webhooks: ctx.sender.list() });
  });

  // Waits until no delivery is pending: tests wait for this, not for time.
  router.post("/webhooks/flush", async (_req, res) => {
    await ctx.sender.flush();
    res.json({ webhooks: ctx.sender.list() });
  });

  router.post("/webhooks/:index/resend", (req, res) => {
    const index = String(req.params.index);
    const record = /^\d{1,9}$/.test(index) ? ctx.sender.resend(Number(index)) : undefined;
    if (!record) return void res.status(404).json({ message: `No webhook with index ${index}.` });
    res.json({ webhook: record });
  });

  router.post("/reset", (_req, res) => {
    ctx.store.reset();
    ctx.sender.reset();
    res.json({ ok: true });
  });

  router.use((_req, res) => void res.status(404).json({ message: "No such control endpoint." }));
  return router;
}
