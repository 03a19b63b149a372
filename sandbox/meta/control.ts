import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { SandboxContext } from "./context";
import {
  INBOUND_TYPES,
  REENGAGEMENT_MODES,
  type GraphFault,
  type ReengagementMode,
  type InboundInput,
  type InboundType,
  type TemplateAtMetaInput,
  type TemplateEvent,
  type TemplateQualityScore,
  type TemplateReason,
} from "./types";

class BadInput extends Error {}

type Body = Record<string, unknown>;

function bodyOf(req: Request): Body {
  const body = req.body as unknown;
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new BadInput("The body must be a JSON object.");
  return body as Body;
}

function str(body: Body, key: string, required: true): string;
function str(body: Body, key: string, required?: false): string | undefined;
function str(body: Body, key: string, required = false): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) {
    if (required) throw new BadInput(`${key} is required.`);
    return undefined;
  }
  if (typeof value !== "string") throw new BadInput(`${key} must be a string.`);
  return value;
}

function bool(body: Body, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new BadInput(`${key} must be true or false.`);
  return value;
}

function num(body: Body, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) throw new BadInput(`${key} must be a number.`);
  return n;
}

/**
 * JSON control API for browser tests: reset, faults, chaos, simulated customer traffic, flush,
 * templates (list, made at Meta, status changes, the reviewer, quality, deletion at Meta), and
 * read-outs of calls, deliveries and state. Bad input answers 400 {message}.
 */
export function controlRouter(ctx: SandboxContext): Router {
  const router = Router({ caseSensitive: true });
  const { sandbox } = ctx;
  router.use(express.json({ limit: "4mb" }));
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  const route = (handler: (req: Request, res: Response) => unknown) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      const result = await handler(req, res);
      if (!res.headersSent) res.json(result ?? { ok: true });
    } catch (error) {
      if (error instanceof BadInput || error instanceof Error) return void res.status(400).json({ message: error.message });
      next(error);
    }
  };

  router.post(
    "/reset",
    route(() => sandbox.reset()),
  );

  router.get(
    "/faults",
    route(() => ({ faults: ctx.faults.list() })),
  );
  router.post(
    "/faults",
    route((req) => {
      const body = bodyOf(req);
      const times = body.times === "Infinity" || body.times === "infinite" ? Infinity : num(body, "times");
      const error = body.error;
      if (!error || typeof error !== "object" || Array.isArray(error)) throw new BadInput("error must be an object with at least code.");
      sandbox.injectFault({
        step: str(body, "step", true) as GraphFault["step"],
        error: error as GraphFault["error"],
        ...(times !== undefined ? { times } : {}),
      });
      return { ok: true, faults: ctx.faults.list() };
    }),
  );
  router.delete(
    "/faults",
    route(() => sandbox.clearFaults()),
  );

  router.get(
    "/chaos",
    route(() => ctx.sender.getChaos()),
  );
  router.post(
    "/chaos",
    route((req) => {
      const body = bodyOf(req);
      const reorder = body.reorder;
      if (reorder !== undefined && typeof reorder !== "boolean") throw new BadInput("reorder must be true or false.");
      sandbox.setDeliveryChaos({
        duplicate: num(body, "duplicate"),
        reorder: reorder as boolean | undefined,
        delayMs: num(body, "delayMs"),
      });
      return { ok: true, chaos: ctx.sender.getChaos() };
    }),
  );

  router.post(
    "/inbound",
    route(async (req) => {
      const body = bodyOf(req);
      const type = str(body, "type") ?? "text";
      if (!(INBOUND_TYPES as readonly string[]).includes(type)) throw new BadInput(`type must be one of ${INBOUND_TYPES.join(", ")}.`);
      return sandbox.sendInbound({
        phoneNumberId: str(body, "phoneNumberId", true),
        from: str(body, "from"),
        name: str(body, "name"),
        userId: str(body, "userId"),
        username: str(body, "username"),
        type: type as InboundType,
        text: str(body, "text"),
        caption: str(body, "caption"),
        filename: str(body, "filename"),
        voice: bool(body, "voice"),
        animated: bool(body, "animated"),
        latitude: num(body, "latitude"),
        longitude: num(body, "longitude"),
        locationName: str(body, "locationName"),
        address: str(body, "address"),
        contactName: str(body, "contactName"),
        contactPhone: str(body, "contactPhone"),
        payload: str(body, "payload"),
        replyId: str(body, "replyId"),
        title: str(body, "title"),
        description: str(body, "description"),
        contextId: str(body, "contextId"),
        messageId: str(body, "messageId"),
        emoji: str(body, "emoji"),
        newWaId: str(body, "newWaId"),
        ageSeconds: num(body, "ageSeconds"),
        // Checked field by field where the order is built (inbound.ts).
        ...(body.order !== undefined ? { order: body.order as InboundInput["order"] } : {}),
        ...(body.ad !== undefined ? { ad: body.ad as InboundInput["ad"] } : {}),
      });
    }),
  );
  router.get(
    "/messages",
    route((req) => ({
      messages: sandbox.messages({
        phoneNumberId: typeof req.query.phoneNumberId === "string" ? req.query.phoneNumberId : undefined,
        to: typeof req.query.to === "string" ? req.query.to : undefined,
      }),
    })),
  );
  router.post(
    "/status",
    route(async (req) => {
      const body = bodyOf(req);
      await sandbox.sendStatus({
        phoneNumberId: str(body, "phoneNumberId", true),
        wamid: str(body, "wamid", true),
        status: str(body, "status", true) as "sent",
        recipientId: str(body, "recipientId", true),
        errorCode: num(body, "errorCode"),
      });
    }),
  );
  router.post(
    "/quality",
    route(async (req) => {
      const body = bodyOf(req);
      await sandbox.sendQualityUpdate({
        phoneNumberId: str(body, "phoneNumberId", true),
        event: str(body, "event", true) as "FLAGGED",
        currentLimit: str(body, "currentLimit"),
      });
    }),
  );
  router.post(
    "/account-update",
    route(async (req) => {
      const body = bodyOf(req);
      await sandbox.sendAccountUpdate({ wabaId: str(body, "wabaId", true), event: str(body, "event", true) });
    }),
  );
  router.post(
    "/raw",
    route(async (req) => {
      const body = bodyOf(req);
      if (!("body" in body)) throw new BadInput("body is required: the envelope to deliver.");
      await sandbox.sendRaw(body.body);
      return { ok: true, delivery: sandbox.deliveries().at(-1) ?? null };
    }),
  );
  router.post(
    "/flush",
    route(async () => {
      await sandbox.flushWebhooks();
      return { ok: true, deliveries: sandbox.deliveries().length };
    }),
  );

  router.get(
    "/uploads",
    route(() => ({ uploads: sandbox.uploads() })),
  );
  router.get(
    "/templates",
    route((req) => sandbox.templates(typeof req.query.wabaId === "string" ? req.query.wabaId : undefined)),
  );
  router.post(
    "/templates",
    route((req, res) => {
      const body = bodyOf(req);
      const components = body.components;
      if (components !== undefined && !Array.isArray(components)) throw new BadInput("components must be an array.");
      const created = sandbox.createTemplateAtMeta(str(body, "wabaId", true), {
        name: str(body, "name", true),
        language: str(body, "language", true),
        category: str(body, "category", true) as TemplateAtMetaInput["category"],
        components: components as TemplateAtMetaInput["components"],
        parameterFormat: str(body, "parameterFormat") as TemplateAtMetaInput["parameterFormat"],
        status: str(body, "status") as TemplateAtMetaInput["status"],
        qualityScore: str(body, "qualityScore") as TemplateAtMetaInput["qualityScore"],
      });
      res.status(201);
      return created;
    }),
  );
  router.post(
    "/templates/review",
    route(async (req) => {
      const body = bodyOf(req);
      return { decided: await sandbox.reviewTemplatesNow({ wabaId: str(body, "wabaId"), templateId: str(body, "templateId") }) };
    }),
  );
  router.post(
    "/templates/:id/status",
    route(async (req) => {
      const body = bodyOf(req);
      return sandbox.setTemplateStatus(String(req.params.id), str(body, "event", true) as TemplateEvent, {
        reason: str(body, "reason") as TemplateReason | undefined,
        silent: bool(body, "silent"),
      });
    }),
  );
  router.post(
    "/templates/:id/quality",
    route(async (req) => {
      await sandbox.sendTemplateQualityUpdate(String(req.params.id), str(bodyOf(req), "score", true) as TemplateQualityScore);
    }),
  );
  router.delete(
    "/templates/:id",
    route(async (req) => {
      await sandbox.deleteTemplateAtMeta(String(req.params.id), { silent: req.query.silent === "true" });
    }),
  );

  router.get(
    "/calls",
    route(() => sandbox.calls()),
  );
  router.get(
    "/deliveries",
    route(() => sandbox.deliveries()),
  );
  router.get(
    "/state",
    route(() => ({
      appId: ctx.options.appId,
      webhookUrl: ctx.webhookUrl(),
      ...ctx.store.publicState(),
      faults: ctx.faults.list(),
      chaos: ctx.sender.getChaos(),
    })),
  );

  router.post(
    "/businesses",
    route((req, res) => {
      const body = bodyOf(req);
      const created = sandbox.createTestBusiness({
        businessName: str(body, "businessName"),
        wabaName: str(body, "wabaName"),
        verifiedName: str(body, "verifiedName"),
        displayPhoneNumber: str(body, "displayPhoneNumber"),
        owner: str(body, "owner"),
      });
      res.status(201);
      return created;
    }),
  );
  router.post(
    "/phone-numbers",
    route((req, res) => {
      const body = bodyOf(req);
      const created = sandbox.addPhoneNumber(str(body, "wabaId", true), {
        verifiedName: str(body, "verifiedName"),
        displayPhoneNumber: str(body, "displayPhoneNumber"),
      });
      res.status(201);
      return created;
    }),
  );
  router.post(
    "/phone-numbers/:id/reengagement",
    route((req) => {
      const mode = str(bodyOf(req), "mode");
      if (mode !== undefined && !(REENGAGEMENT_MODES as readonly string[]).includes(mode))
        throw new BadInput('mode must be "async" (accepted, then a failed status), "sync" (400 at once), or null for the default.');
      const phoneNumberId = String(req.params.id);
      sandbox.setReengagement(phoneNumberId, mode as ReengagementMode | undefined);
      return { phoneNumberId, reengagement: mode ?? ctx.options.reengagement };
    }),
  );
  router.post(
    "/codes",
    route((req, res) => {
      const body = bodyOf(req);
      const wabaIds = body.wabaIds;
      if (!Array.isArray(wabaIds) || !wabaIds.every((w) => typeof w === "string"))
        throw new BadInput("wabaIds must be an array of strings.");
      res.status(201);
      return { code: sandbox.issueCode({ businessId: str(body, "businessId", true), wabaIds }) };
    }),
  );

  router.use((_req: Request, res: Response) => void res.status(404).json({ message: "No such control endpoint." }));
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    res
      .status(status && status >= 400 && status < 500 ? status : 400)
      .json({ message: error instanceof Error ? error.message : "Bad request." });
  });
  return router;
}
