import express, { Router, type NextFunction, type Request, type Response } from "express";
import { callRecordOf } from "../call-log";
import { magicFaultIn, type Fault } from "../faults";
import type { AccessRecord } from "../oauth-grants";
import type { HubspotContext } from "./context";
import { doesntExist, doesntExistError, knownOnly, propertyNames, propertyRoutes, type ObjectType } from "./properties";
import { searchPage, searchRequestFrom, SearchInputError } from "./search";
import { AUTOMATIC_PROPERTIES, COMMUNICATION_CHANNELS, COMMUNICATION_TO_CONTACT, crmError, propertiesParam, recordView } from "./shapes";
import type { Contact, ContactList, CrmRecord } from "./state";

export const BODY_LIMIT = "1mb";
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const PAGE_LIMIT = 100;
const BATCH_LIMIT = 100;

type Json = Record<string, unknown>;

class CrmFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String(body.message));
  }
}

const fail = (status: number, ...args: Parameters<typeof crmError>) => new CrmFailure(status, crmError(...args));

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const hubIdOf = (res: Response) => res.locals.hubId as number;

/** The raw body as text (for the magic values), then parsed as JSON into req.body. */
function jsonBody(req: Request, res: Response, next: NextFunction) {
  const raw = typeof req.body === "string" ? req.body : "";
  res.locals.rawBody = raw;
  if (!raw.trim()) {
    req.body = {};
    return next();
  }
  try {
    req.body = JSON.parse(raw) as unknown;
    next();
  } catch {
    res.status(400).json(crmError("VALIDATION_ERROR", "Invalid input JSON on line 1: the body is not JSON."));
  }
}

function expiredMessage(msAgo: number) {
  const minutes = Math.floor(msAgo / 60_000);
  return minutes >= 1
    ? `The OAuth token used to make this call expired ${minutes} minute(s) ago.`
    : `The OAuth token used to make this call expired ${Math.max(0, Math.floor(msAgo / 1000))} second(s) ago.`;
}

const expired = (res: Response, msAgo: number) =>
  void res.status(401).json(crmError("EXPIRED_AUTHENTICATION", expiredMessage(msAgo), { context: {}, errors: [] }));

/** `Authorization: Bearer <access token>`: the portal it was granted for, or HubSpot's 401. */
function authenticate(ctx: HubspotContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const queued = ctx.faults.next();
    const fault = queued ?? magicFaultIn(`${req.originalUrl} ${String(res.locals.rawBody ?? "")}`);
    res.locals.fault = fault;
    const record = callRecordOf(res);
    if (fault && record) record.fault = queued ? `queued ${fault}` : `magic ${fault}`;
    if (fault === "401") return expired(res, 0);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
    const check = bearer ? ctx.state.grants.checkAccess(bearer) : { state: "unknown" as const };
    if (check.state === "expired") return expired(res, check.expiredMsAgo);
    if (check.state !== "valid")
      return void res
        .status(401)
        .json(
          crmError(
            "INVALID_AUTHENTICATION",
            "Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview",
          ),
        );
    res.locals.grant = check.record;
    res.locals.hubId = Number(check.record.account);
    if (record) record.account = check.record.account;
    next();
  };
}

/** 100 calls per 10 s per app and portal (configurable), with HubSpot's headers and 429 body. */
function rateLimit(ctx: HubspotContext) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const grant = res.locals.grant as AccessRecord;
    const forced = res.locals.fault === "429";
    const verdict = ctx.limiter.take(`${grant.clientId}:${grant.account}`);
    res.set({
      "X-HubSpot-RateLimit-Max": String(verdict.max),
      "X-HubSpot-RateLimit-Remaining": String(forced ? 0 : verdict.remaining),
      "X-HubSpot-RateLimit-Interval-Milliseconds": String(verdict.intervalMs),
    });
    if (verdict.allowed && !forced) return next();
    const record = callRecordOf(res);
    if (record && !forced) record.fault = "rate limit";
    res.set("Retry-After", String(Math.max(1, Math.ceil((forced ? 1000 : verdict.retryAfterMs) / 1000))));
    res.status(429).json({
      status: "error",
      message: "You have reached your ten_secondly_rolling limit.",
      errorType: "RATE_LIMIT",
      correlationId: crmError("RATE_LIMITS", "").correlationId,
      policyName: "TEN_SECONDLY_ROLLING",
      groupName: `publicapi:oauth:${ctx.options.appId}:${grant.account}`,
    });
  };
}

/** The other faults: 500 at once, or a slow answer that then goes on. */
function otherFaults(ctx: HubspotContext) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const fault = res.locals.fault as Fault | undefined;
    if (fault === "500") return void res.status(500).json(crmError("INTERNAL_ERROR", "internal error"));
    if (fault === "slow") return ctx.slow.hold(res, () => next());
    next();
  };
}

function requireScope(scope: string) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const grant = res.locals.grant as AccessRecord;
    if (grant.scopes.includes(scope)) return next();
    res
      .status(403)
      .json(
        crmError(
          "MISSING_SCOPES",
          "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
          { errors: [{ message: "One or more of the following scopes are required.", context: { requiredGranularScopes: [scope] } }] },
        ),
      );
  };
}

/**
 * HubSpot's refusal of property values: the list in the message as HubSpot writes it, and an
 * `errors` entry with code PROPERTY_DOESNT_EXIST for each property the portal does not have.
 */
function notValid(hubId: number, errors: Json[]) {
  const listed = errors.map((e) => ({ ...e, localizedErrorMessage: e.message, portalId: hubId }));
  const unknown = errors.filter((e) => e.error === "PROPERTY_DOESNT_EXIST").map((e) => doesntExistError(String(e.name)));
  return fail(
    400,
    "VALIDATION_ERROR",
    `Property values were not valid: ${JSON.stringify(listed)}`,
    unknown.length ? { errors: unknown } : {},
  );
}

const unknownProperty = (name: string): Json => ({ isValid: false, message: doesntExist(name), error: "PROPERTY_DOESNT_EXIST", name });

/** HubSpot's property validation: names the portal has, string values, a valid e-mail. */
function contactProperties(ctx: HubspotContext, hubId: number, value: unknown, creating: boolean): Record<string, string> {
  if (value === undefined && !creating) return {};
  if (!isObject(value)) throw fail(400, "VALIDATION_ERROR", "Invalid input JSON: `properties` must be an object.");
  const known = propertyNames(ctx, hubId, "contacts");
  const errors: Json[] = [];
  const properties: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (AUTOMATIC_PROPERTIES.has(name))
      errors.push({ isValid: false, message: `${name} is a read only property; its value cannot be set.`, error: "READ_ONLY_VALUE", name });
    else if (!known.has(name)) errors.push(unknownProperty(name));
    else if (raw !== null && typeof raw !== "string" && typeof raw !== "number" && typeof raw !== "boolean")
      errors.push({ isValid: false, message: `${String(raw)} is not a valid value for ${name}`, error: "INVALID_OPTION", name });
    else properties[name] = raw === null ? "" : String(raw).trim();
  }
  if (properties.email && !EMAIL.test(properties.email))
    errors.push({ isValid: false, message: `Email address ${properties.email} is invalid`, error: "INVALID_EMAIL", name: "email" });
  if (errors.length) throw notValid(hubId, errors);
  return properties;
}

function conflictFor(hubId: number, ctx: HubspotContext, email: string | undefined, except?: string) {
  if (!email) return;
  const existing = ctx.state.contactByEmail(hubId, email);
  if (existing && existing.id !== except) throw fail(409, "CONFLICT", `Contact already exists. Existing ID: ${existing.id}`);
}

function contactOr404(ctx: HubspotContext, hubId: number, id: string, idProperty?: string): Contact {
  const found = idProperty === "email" ? ctx.state.contactByEmail(hubId, id) : /^\d+$/.test(id) ? ctx.state.contact(hubId, id) : undefined;
  if (!found) throw fail(404, "OBJECT_NOT_FOUND", "Object not found.  objectId are usually numeric.", { context: { id: [id] } });
  return found;
}

/** Wraps a handler: CrmFailure answers its status and body. */
function handle(fn: (req: Request, res: Response) => void) {
  return (req: Request, res: Response) => {
    try {
      fn(req, res);
    } catch (error) {
      if (!(error instanceof CrmFailure)) throw error;
      res.status(error.status).json(error.body);
    }
  };
}

/**
 * HubSpot's CRM search (filterGroups, sorts, paging) over an object's records, as contacts and
 * communications answer it. A filter or sort on a property the portal does not have is refused;
 * an unknown name among `properties` is left out of the answer.
 */
function searchHandler(ctx: HubspotContext, objectType: ObjectType, recordsOf: (res: Response) => CrmRecord[], defaults?: string[]) {
  return (req: Request, res: Response) => {
    let request;
    try {
      request = searchRequestFrom(req.body as Json);
    } catch (error) {
      if (error instanceof SearchInputError) throw fail(400, "VALIDATION_ERROR", error.message);
      throw error;
    }
    const known = propertyNames(ctx, hubIdOf(res), objectType);
    const named = [
      ...request.filterGroups.flatMap((g) => g.filters.map((f) => f.propertyName)),
      ...(request.sorts ?? []).map((s) => s.propertyName),
    ];
    const unknown = [...new Set(named.filter((name) => !known.has(name)))];
    if (unknown.length) throw fail(400, "VALIDATION_ERROR", unknown.map(doesntExist).join("; "), { errors: unknown.map(doesntExistError) });
    const asked = request.properties?.filter((name) => known.has(name));
    const found = searchPage(recordsOf(res), request);
    res.json({
      total: found.total,
      results: found.results.map((c) => recordView(c, asked, defaults)),
      ...(found.after ? { paging: { next: { after: found.after } } } : {}),
    });
  };
}

function batchTimes(ctx: HubspotContext, startedAt: number) {
  return { startedAt: new Date(startedAt).toISOString(), completedAt: new Date(ctx.options.now()).toISOString() };
}

function batchInputs(body: Json): Json[] {
  if (!Array.isArray(body.inputs) || body.inputs.some((i) => !isObject(i)))
    throw fail(400, "VALIDATION_ERROR", "Invalid input JSON: `inputs` must be an array of objects.");
  if (body.inputs.length > BATCH_LIMIT) throw fail(400, "VALIDATION_ERROR", `Batch input limit exceeded: at most ${BATCH_LIMIT} inputs.`);
  return body.inputs as Json[];
}

function contactRoutes(ctx: HubspotContext, router: Router) {
  const read = requireScope("crm.objects.contacts.read");
  const write = requireScope("crm.objects.contacts.write");
  const base = "/crm/v3/objects/contacts";

  router.post(
    base,
    write,
    handle((req, res) => {
      const hubId = hubIdOf(res);
      const properties = contactProperties(ctx, hubId, (req.body as Json).properties, true);
      conflictFor(hubId, ctx, properties.email);
      res.status(201).json(recordView(ctx.state.addContact(hubId, properties), Object.keys(properties)));
    }),
  );

  router.get(
    base,
    read,
    handle((req, res) => {
      const limit = Math.min(PAGE_LIMIT, Math.max(1, Number(req.query.limit ?? 10) || 10));
      const after = Number(req.query.after ?? 0) || 0;
      const all = ctx.state.contactsOf(hubIdOf(res)).sort((a, b) => Number(a.id) - Number(b.id));
      const page = all.filter((c) => Number(c.id) > after).slice(0, limit);
      const last = page.at(-1);
      const more = last !== undefined && all.some((c) => Number(c.id) > Number(last.id));
      res.json({
        results: page.map((c) => recordView(c, knownOnly(ctx, hubIdOf(res), "contacts", propertiesParam(req.query.properties)))),
        ...(more ? { paging: { next: { after: last.id } } } : {}),
      });
    }),
  );

  router.post(`${base}/search`, read, handle(searchHandler(ctx, "contacts", (res) => ctx.state.contactsOf(hubIdOf(res)))));

  router.post(
    `${base}/batch/create`,
    write,
    handle((req, res) => {
      const startedAt = ctx.options.now();
      const hubId = hubIdOf(res);
      const inputs = batchInputs(req.body as Json).map((input) => contactProperties(ctx, hubId, input.properties, true));
      const emails = new Set<string>();
      for (const properties of inputs) {
        conflictFor(hubId, ctx, properties.email);
        const email = properties.email?.toLowerCase();
        if (email && emails.has(email)) throw fail(400, "VALIDATION_ERROR", `Duplicate e-mail in the batch: ${properties.email}`);
        if (email) emails.add(email);
      }
      const results = inputs.map((properties) => recordView(ctx.state.addContact(hubId, properties), Object.keys(properties)));
      res.status(201).json({ status: "COMPLETE", results, ...batchTimes(ctx, startedAt) });
    }),
  );

  router.post(
    `${base}/batch/read`,
    read,
    handle((req, res) => {
      const startedAt = ctx.options.now();
      const body = req.body as Json;
      const idProperty = typeof body.idProperty === "string" ? body.idProperty : undefined;
      const asked = knownOnly(
        ctx,
        hubIdOf(res),
        "contacts",
        Array.isArray(body.properties) ? body.properties.filter((p): p is string => typeof p === "string") : undefined,
      );
      const found: Contact[] = [];
      const missing: string[] = [];
      for (const input of batchInputs(body)) {
        const id = String(input.id ?? "");
        const contact = idProperty === "email" ? ctx.state.contactByEmail(hubIdOf(res), id) : ctx.state.contact(hubIdOf(res), id);
        if (contact) found.push(contact);
        else missing.push(id);
      }
      const results = found.map((c) => recordView(c, asked));
      if (!missing.length) return void res.json({ status: "COMPLETE", results, ...batchTimes(ctx, startedAt) });
      res.status(207).json({
        status: "COMPLETE",
        results,
        numErrors: 1,
        errors: [
          {
            status: "error",
            category: "OBJECT_NOT_FOUND",
            message: "Could not get some CONTACT objects, they may be deleted or not exist. Check that ids are valid.",
            context: { ids: missing },
          },
        ],
        ...batchTimes(ctx, startedAt),
      });
    }),
  );

  router.post(
    `${base}/batch/update`,
    write,
    handle((req, res) => {
      const startedAt = ctx.options.now();
      const hubId = hubIdOf(res);
      const updates = batchInputs(req.body as Json).map((input) => {
        const contact = contactOr404(ctx, hubId, String(input.id ?? ""));
        const properties = contactProperties(ctx, hubId, input.properties, false);
        conflictFor(hubId, ctx, properties.email, contact.id);
        return { contact, properties };
      });
      for (const { contact, properties } of updates) ctx.state.updateContact(contact, properties);
      res.json({
        status: "COMPLETE",
        results: updates.map(({ contact, properties }) => recordView(contact, Object.keys(properties))),
        ...batchTimes(ctx, startedAt),
      });
    }),
  );

  router.get(
    `${base}/:id`,
    read,
    handle((req, res) => {
      const idProperty = typeof req.query.idProperty === "string" ? req.query.idProperty : undefined;
      const contact = contactOr404(ctx, hubIdOf(res), String(req.params.id), idProperty);
      res.json(recordView(contact, knownOnly(ctx, hubIdOf(res), "contacts", propertiesParam(req.query.properties))));
    }),
  );

  router.patch(
    `${base}/:id`,
    write,
    handle((req, res) => {
      const contact = contactOr404(ctx, hubIdOf(res), String(req.params.id));
      const properties = contactProperties(ctx, hubIdOf(res), (req.body as Json).properties, false);
      conflictFor(hubIdOf(res), ctx, properties.email, contact.id);
      ctx.state.updateContact(contact, properties);
      res.json(recordView(contact, Object.keys(properties)));
    }),
  );

  // Archive: 204 and no body; the contact is gone from reads (404), searches and lists.
  router.delete(
    `${base}/:id`,
    write,
    handle((req, res) => {
      const contact = ctx.state.contact(hubIdOf(res), String(req.params.id));
      // HubSpot answers 204 for an id it does not know (or has archived) as well.
      if (contact) ctx.state.deleteContact(contact);
      res.status(204).end();
    }),
  );

  router.post(
    `${base}/batch/archive`,
    write,
    handle((req, res) => {
      const hubId = hubIdOf(res);
      for (const input of batchInputs(req.body as Json)) {
        const contact = ctx.state.contact(hubId, String(input.id ?? ""));
        if (contact) ctx.state.deleteContact(contact);
      }
      res.status(204).end();
    }),
  );

  // HubSpot's GDPR delete: `{objectId}` (or an e-mail with `idProperty: "email"`), 204 and no body;
  // the contact is gone for good (not restorable, unlike the archive above). An id it does not know: 404.
  router.post(
    `${base}/gdpr-delete`,
    write,
    handle((req, res) => {
      const body = req.body as Json;
      if (typeof body.objectId !== "string" || !body.objectId)
        throw fail(400, "VALIDATION_ERROR", "Invalid input JSON: `objectId` is required.");
      const idProperty = typeof body.idProperty === "string" ? body.idProperty : undefined;
      ctx.state.eraseContact(contactOr404(ctx, hubIdOf(res), body.objectId, idProperty));
      res.status(204).end();
    }),
  );
}

/** A communication's contact ids from HubSpot's `associations` (type 81, HUBSPOT_DEFINED). */
function communicationContacts(ctx: HubspotContext, hubId: number, associations: unknown): string[] {
  if (associations === undefined) return [];
  if (!Array.isArray(associations)) throw fail(400, "VALIDATION_ERROR", "Invalid input JSON: `associations` must be an array.");
  return associations.map((a: unknown) => {
    const association = (isObject(a) ? a : {}) as {
      to?: { id?: unknown };
      types?: { associationCategory?: unknown; associationTypeId?: unknown }[];
    };
    const id = String(association.to?.id ?? "");
    const types = Array.isArray(association.types) ? association.types : [];
    if (!types.some((t) => t.associationCategory === "HUBSPOT_DEFINED" && Number(t.associationTypeId) === COMMUNICATION_TO_CONTACT))
      throw fail(
        400,
        "VALIDATION_ERROR",
        `association type id must be ${COMMUNICATION_TO_CONTACT} (HUBSPOT_DEFINED, communication to contact).`,
      );
    if (!ctx.state.contact(hubId, id))
      throw fail(400, "VALIDATION_ERROR", `One or more associations are invalid: no contact ${id}.`, { context: { id: [id] } });
    return id;
  });
}

function communicationProperties(ctx: HubspotContext, hubId: number, value: unknown): Record<string, string> {
  if (!isObject(value)) throw fail(400, "VALIDATION_ERROR", "Invalid input JSON: `properties` must be an object.");
  const known = propertyNames(ctx, hubId, "communications");
  const unknown = Object.keys(value).filter((name) => !known.has(name));
  if (unknown.length) throw notValid(hubId, unknown.map(unknownProperty));
  const properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v === null || v === undefined ? "" : String(v)]));
  const problems: string[] = [];
  if (!COMMUNICATION_CHANNELS.has(properties.hs_communication_channel_type ?? ""))
    problems.push(`hs_communication_channel_type must be one of ${[...COMMUNICATION_CHANNELS].join(", ")}`);
  if (properties.hs_communication_logged_from !== "CRM") problems.push("hs_communication_logged_from must be CRM");
  if (!properties.hs_communication_body) problems.push("hs_communication_body is required");
  const timestamp = properties.hs_timestamp ?? "";
  if (!timestamp || (Number.isNaN(Date.parse(timestamp)) && !/^\d{10,13}$/.test(timestamp)))
    problems.push("hs_timestamp must be a date (ISO 8601 or milliseconds since the epoch)");
  if (problems.length) throw fail(400, "VALIDATION_ERROR", `Property values were not valid: ${problems.join("; ")}`);
  return properties;
}

function communicationRoutes(ctx: HubspotContext, router: Router) {
  const write = requireScope("crm.objects.contacts.write");
  const read = requireScope("crm.objects.contacts.read");
  router.post(
    "/crm/v3/objects/communications",
    write,
    handle((req, res) => {
      const body = req.body as Json;
      const properties = communicationProperties(ctx, hubIdOf(res), body.properties);
      const contactIds = communicationContacts(ctx, hubIdOf(res), body.associations);
      const communication = ctx.state.addCommunication(hubIdOf(res), properties, contactIds);
      res.status(201).json(recordView(communication, Object.keys(properties), []));
    }),
  );
  router.post(
    "/crm/v3/objects/communications/batch/create",
    write,
    handle((req, res) => {
      const startedAt = ctx.options.now();
      const hubId = hubIdOf(res);
      const inputs = batchInputs(req.body as Json).map((input) => ({
        properties: communicationProperties(ctx, hubId, input.properties),
        contactIds: communicationContacts(ctx, hubId, input.associations),
      }));
      const results = inputs.map(({ properties, contactIds }) => {
        const communication = ctx.state.addCommunication(hubId, properties, contactIds);
        return recordView(communication, Object.keys(properties), []);
      });
      res.status(201).json({ status: "COMPLETE", results, ...batchTimes(ctx, startedAt) });
    }),
  );
  // HubSpot's CRM search on communications (filterGroups, paging), as on contacts: how a client finds
  // the communications an earlier attempt created, by a property of its own.
  router.post(
    "/crm/v3/objects/communications/search",
    read,
    handle(searchHandler(ctx, "communications", (res) => ctx.state.communicationsOf(hubIdOf(res)), [])),
  );
  // Archive, one or up to 100: 204 and no body, for ids HubSpot no longer has as well.
  router.post(
    "/crm/v3/objects/communications/batch/archive",
    write,
    handle((req, res) => {
      for (const input of batchInputs(req.body as Json)) {
        const found = ctx.state.communications.get(String(input.id ?? ""));
        if (found && found.hubId === hubIdOf(res)) ctx.state.deleteCommunication(found);
      }
      res.status(204).end();
    }),
  );
  router.delete(
    "/crm/v3/objects/communications/:id",
    write,
    handle((req, res) => {
      const found = ctx.state.communications.get(String(req.params.id));
      if (found && found.hubId === hubIdOf(res)) ctx.state.deleteCommunication(found);
      res.status(204).end();
    }),
  );
  router.get(
    "/crm/v3/objects/communications/:id",
    read,
    handle((req, res) => {
      const found = ctx.state.communications.get(String(req.params.id));
      if (!found || found.hubId !== hubIdOf(res))
        throw fail(404, "OBJECT_NOT_FOUND", "Object not found.", { context: { id: [String(req.params.id)] } });
      const asked = knownOnly(ctx, hubIdOf(res), "communications", propertiesParam(req.query.properties));
      res.json(recordView(found, asked ?? Object.keys(found.properties), []));
    }),
  );
}

function listView(list: ContactList) {
  return {
    listId: list.listId,
    listVersion: 1,
    name: list.name,
    objectTypeId: "0-1",
    processingType: list.processingType,
    processingStatus: "COMPLETE",
    createdAt: new Date(list.createdAt).toISOString(),
    updatedAt: new Date(list.updatedAt).toISOString(),
    additionalProperties: { hs_list_size: String(list.members.length) },
  };
}

function listRoutes(ctx: HubspotContext, router: Router) {
  const read = requireScope("crm.lists.read");
  const listOr404 = (res: Response, id: string) => {
    const list = ctx.state.lists.get(id);
    if (!list || list.hubId !== hubIdOf(res)) throw fail(404, "OBJECT_NOT_FOUND", `List ${id} does not exist.`);
    return list;
  };

  router.post(
    "/crm/v3/lists/search",
    read,
    handle((req, res) => {
      const body = req.body as Json;
      const query = typeof body.query === "string" ? body.query.toLowerCase() : "";
      const count = Math.min(500, Math.max(1, Number(body.count ?? 20) || 20));
      const offset = Math.max(0, Number(body.offset ?? 0) || 0);
      const all = ctx.state.listsOf(hubIdOf(res)).filter((l) => l.name.toLowerCase().includes(query));
      const page = all.slice(offset, offset + count);
      res.json({ lists: page.map(listView), offset: offset + page.length, hasMore: offset + page.length < all.length, total: all.length });
    }),
  );

  router.get(
    "/crm/v3/lists/:listId",
    read,
    handle((req, res) => {
      res.json({ list: listView(listOr404(res, String(req.params.listId))) });
    }),
  );

  router.get(
    "/crm/v3/lists/:listId/memberships",
    read,
    handle((req, res) => {
      const list = listOr404(res, String(req.params.listId));
      const limit = Math.min(250, Math.max(1, Number(req.query.limit ?? 100) || 100));
      const after = Math.max(0, Number(req.query.after ?? 0) || 0);
      const page = list.members.slice(after, after + limit);
      const next = after + page.length;
      res.json({
        results: page.map((m) => ({ recordId: m.recordId, membershipTimestamp: new Date(m.addedAt).toISOString() })),
        total: list.members.length,
        ...(next < list.members.length ? { paging: { next: { after: String(next) } } } : {}),
      });
    }),
  );
}

/**
 * HubSpot's CRM v3 as Jumbe uses it: contacts (create with the 409 duplicate, read, list, update,
 * batch create/read/update, search with filter groups and paging), WhatsApp communications
 * associated to a contact, and lists with their memberships. Every call needs a live access token,
 * counts against the portal's rate limit and may meet a fault (magic value or queued).
 */
export function apiRouter(ctx: HubspotContext): Router {
  const router = Router({ caseSensitive: true });
  router.use(
    "/crm",
    ctx.calls.recorder(),
    express.text({ type: () => true, limit: BODY_LIMIT }),
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      if ((error as { status?: number })?.status === 413)
        return void res.status(413).json(crmError("VALIDATION_ERROR", "The request body is too large."));
      next(error);
    },
    jsonBody,
    authenticate(ctx),
    rateLimit(ctx),
    otherFaults(ctx),
  );
  contactRoutes(ctx, router);
  communicationRoutes(ctx, router);
  listRoutes(ctx, router);
  propertyRoutes(ctx, router);
  router.use(
    "/crm",
    (req, res) =>
      void res
        .status(404)
        .json(crmError("OBJECT_NOT_FOUND", `Unable to find a resource for ${req.method} ${req.originalUrl.split("?")[0]}.`)),
  );
  return router;
}
