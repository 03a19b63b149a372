import { Router } from "express";
import { HANDOVER_TOOL, MAGIC, SANDBOX_MODEL } from "./answer";
import { INVALID_API_KEY } from "./api";
import type { LlmContext } from "./context";

/** Forgets the requests recorded; held `magic:timeout` requests stay held. */
export function resetLog(ctx: LlmContext) {
  ctx.log.reset();
}

/**
 * JSON control API for tests (gated by the sandbox token): the requests received, newest first,
 * the magic values, and a reset. Errors answer `{ message }`.
 */
export function controlRouter(ctx: LlmContext): Router {
  const router = Router({ caseSensitive: true });
  router.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });

  router.get("/requests", (_req, res) => {
    res.json({ requests: ctx.log.list(), held: ctx.holds.size });
  });

  router.get("/magic", (_req, res) => {
    res.json({ model: SANDBOX_MODEL, invalidApiKey: INVALID_API_KEY, handoverTool: HANDOVER_TOOL, magic: MAGIC });
  });

  router.post("/reset", (_req, res) => {
    resetLog(ctx);
    res.json({ ok: true });
  });

  router.use((_req, res) => void res.status(404).json({ message: "No such control endpoint." }));
  return router;
}
