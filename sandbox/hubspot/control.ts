import express, { Router, type NextFunction, type Request, type Response } from "express";
import { FAULTS, isFault, MAGIC_VALUES } from "../faults";
import type { HubspotContext } from "./context";
import { recordView } from "./shapes";
import type { Contact, Portal } from "./state";

type Json = Record<string, unknown>;

/** A portal as the control API and the console show it. */
export function portalView(ctx: HubspotContext, portal: Portal) {
  return {
    ...portal,
    contacts: ctx.state.contactsOf(portal.hubId).length,
    lists: ctx.state.listsOf(portal.hubId).map((l) => ({ listId: l.listId, name: l.name, size: l.members.length })),
    communications: ctx.state.communicationsOf(portal.hubId).length,
    /** The portal's own properties (an app's or a user's), by object. */
    customProperties: {
      contacts: ctx.state.customProperties(portal.hubId, "contacts").map((p) => p.name),
      communications: ctx.state.customProperties(portal.hubId, "communications").map((p) => p.name),
    },
    liveAccessTokens: ctx.state.grants.liveAccess().filter((t) => t.account === String(portal.hubId)).length,
  };
}

/** Makes a portal's live access tokens expired now: the next API call answers 401 EXPIRED_AUTHENTICATION. */
export function expireTokens(ctx: HubspotContext, hubId: number) {
  const expired = ctx.state.grants.expireAccess(String(hubId));
  ctx.state.changed();
  return expired;
}

/** Queues a fault for the next API calls; false when it is not one. */
export function queueFault(ctx: HubspotContext, fault: unknown, times: unknown) {
  const count = times === undefined || times === "" ? 1 : Number(times);
  if (!isFault(fault) || !Number.isInteger(count) || count < 1 || count > 100) return false;
  ctx.faults.add(fault, count);
  return true;
}

/** Adds a contact as if made in HubSpot itself (no token, no rate limit); the e-mail must be free. */
export function addContactByControl(ctx: HubspotContext, hubId: number, properties: Json): { error: string } | { contact: Contact } {
  const clean = Object.fromEntries(Object.entries(properties).filter(([, v]) => typeof v === "string" && v !== "")) as Record<
    string,
    string
  >;
  if (clean.email && ctx.state.contactByEmail(hubId, clean.email)) return { error: `A contact with ${clean.email} exists.` };
  return { contact: ctx.state.addContact(hubId, clean) };
}

/**
 * JSON control API for tests (gated by the sandbox token): portals, their contacts, lists and
 * logged communications, expiring a portal's tokens, queued faults, the API calls received, reset.
 */
export function controlRouter(ctx: HubspotContext): Router {
  const router = Router({ caseSensitive: true });
  router.use(express.json({ limit: "256kb" }));
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (error as { status?: number } | undefined)?.status;
    if (status && status >= 400 && status < 500)
      return void res.status(status === 413 ? 413 : 400).json({ message: "The body must be JSON (at most 256 KB)." });
    next(error);
  });
  router.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  const body = (req: Request) => (req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {}) as Json;
  const portalOr404 = (req: Request, res: Response) => {
    const portal = ctx.state.portal(Number(req.params.hubId));
    if (!portal) res.status(404).json({ message: `No portal ${String(req.params.hubId)}.` });
    return portal;
  };

  router.get("/portals", (_req, res) => void res.json({ portals: [...ctx.state.portals.values()].map((p) => portalView(ctx, p)) }));

  router.post("/portals", (req, res) => {
    const name = body(req).name;
    if (typeof name !== "string" || !name.trim() || name.length > 100)
      return void res.status(400).json({ message: "name is required (at most 100 characters)." });
    res.status(201).json({ portal: portalView(ctx, ctx.state.addPortal(name.trim())) });
  });

  router.get("/portals/:hubId/contacts", (req, res) => {
    const portal = portalOr404(req, res);
    if (portal)
      res.json({
        contacts: ctx.state
          .contactsOf(portal.hubId)
          .map((c) => ({ ...recordView(c, undefined), properties: { ...c.properties, hs_object_id: c.id } })),
      });
  });

  router.post("/portals/:hubId/contacts", (req, res) => {
    const portal = portalOr404(req, res);
    if (!portal) return;
    const properties = body(req).properties;
    if (!properties || typeof properties !== "object") return void res.status(400).json({ message: "properties is required." });
    const added = addContactByControl(ctx, portal.hubId, properties as Json);
    if ("error" in added) return void res.status(409).json({ message: added.error });
    res.status(201).json({ contact: { id: added.contact.id, properties: added.contact.properties } });
  });

  router.post("/portals/:hubId/lists", (req, res) => {
    const portal = portalOr404(req, res);
    if (!portal) return;
    const { name, contactIds } = body(req);
    if (typeof name !== "string" || !name.trim()) return void res.status(400).json({ message: "name is required." });
    const ids = Array.isArray(contactIds) ? contactIds.map(String) : [];
    const unknown = ids.filter((id) => !ctx.state.contact(portal.hubId, id));
    if (unknown.length) return void res.status(400).json({ message: `No contact ${unknown.join(", ")} in this portal.` });
    const list = ctx.state.addList(portal.hubId, name.trim(), ids);
    res.status(201).json({ list: { listId: list.listId, name: list.name, size: list.members.length } });
  });

  router.get("/portals/:hubId/communications", (req, res) => {
    const portal = portalOr404(req, res);
    if (portal)
      res.json({
        communications: ctx.state
          .communicationsOf(portal.hubId)
          .map((c) => ({ id: c.id, properties: c.properties, contactIds: c.contactIds })),
      });
  });

  // How many custom properties of an object the portal may have (HubSpot's plan limit): a test's way to a refusal.
  router.post("/portals/:hubId/property-limit", (req, res) => {
    const portal = portalOr404(req, res);
    if (!portal) return;
    const limit = Number(body(req).limit);
    if (!Number.isInteger(limit) || limit < 0 || limit > 10_000) return void res.status(400).json({ message: "limit must be 0 to 10000." });
    ctx.state.propertyLimits.set(portal.hubId, limit);
    ctx.state.changed();
    res.json({ portal: portalView(ctx, portal) });
  });

  router.post("/portals/:hubId/expire-tokens", (req, res) => {
    const portal = portalOr404(req, res);
    if (portal) res.json({ expired: expireTokens(ctx, portal.hubId) });
  });

  router.get("/faults", (_req, res) => void res.json({ pending: ctx.faults.pending(), faults: FAULTS, magic: MAGIC_VALUES }));

  router.post("/faults", (req, res) => {
    const { fault, times } = body(req);
    if (!queueFault(ctx, fault, times))
      return void res.status(400).json({ message: `fault must be one of ${FAULTS.join(", ")}; times 1 to 100.` });
    res.json({ pending: ctx.faults.pending() });
  });

  router.get(
    "/magic",
    (_req, res) =>
      void res.json({
        magic: MAGIC_VALUES,
        rateLimit: ctx.options.rateLimit,
        accessTokenSeconds: Math.round(ctx.options.accessTtlMs / 1000),
      }),
  );

  router.get("/tokens", (_req, res) => {
    const grants = ctx.state.grants;
    res.json({
      access: grants
        .liveAccess()
        .map((t) => ({ hubId: Number(t.account), scopes: t.scopes, expiresAt: t.expiresAt && new Date(t.expiresAt).toISOString() })),
      refresh: grants.liveRefresh().map((t) => ({ hubId: Number(t.account), scopes: t.scopes })),
    });
  });

  router.get("/calls", (_req, res) => void res.json({ calls: ctx.calls.list() }));

  router.post("/reset", (_req, res) => {
    ctx.state.reset();
    ctx.faults.clear();
    ctx.calls.reset();
    ctx.limiter.reset();
    res.json({ ok: true });
  });

  router.use((_req, res) => void res.status(404).json({ message: "No such control endpoint." }));
  return router;
}
