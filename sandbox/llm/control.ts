import express, { Router } from "express";
import { HANDOVER_TOOL, MAGIC, magicOf, SANDBOX_MODEL, type Magic } from "./answer";
import { INVALID_API_KEY } from "./api";
import type { LlmContext } from "./context";

/** The next `times` chat completions answer as `magic` asks. */
export function queueFault(ctx: LlmContext, magic: Magic, times = 1) {
  for (let i = 0; i < times; i++) ctx.faults.push(magic);
}

/** Forgets the requests recorded and the faults queued; held `magic:timeout` requests stay held. */
export function resetLog(ctx: LlmContext) {
  ctx.log.reset();
  ctx.faults.length = 0;
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

  // `{ magic: "magic:503", times: 2 }`: the next two chat completions answer so, whatever they ask.
  router.post("/faults", express.json(), (req, res) => {
    const body = (req.body ?? {}) as { magic?: unknown; times?: unknown };
    const magic = typeof body.magic === "string" ? magicOf(body.magic) : undefined;
    const times = body.times === undefined ? 1 : Number(body.times);
    if (!magic || !Number.isInteger(times) || times < 1 || times > 100)
      return void res.status(400).json({ message: `magic must be one of ${Object.keys(MAGIC).join(", ")}; times 1 to 100.` });
    queueFault(ctx, magic, times);
    res.json({ ok: true, faults: ctx.faults });
  });

  router.use((_req, res) => void res.status(404).json({ message: "No such control endpoint." }));
  return router;
}
