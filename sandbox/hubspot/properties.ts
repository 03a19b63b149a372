import { Router, type NextFunction, type Request, type Response } from "express";
import type { AccessRecord } from "../oauth-grants";
import type { HubspotContext } from "./context";
import { crmError } from "./shapes";
import type { ObjectType, PropertyDefinition, PropertyGroup } from "./state";

export type { CustomGroup, CustomProperty, ObjectType, PropertyDefinition, PropertyGroup, PropertyOption } from "./state";

/**
 * HubSpot's Properties API (CRM v3) for the objects the sandbox keeps: each portal starts with
 * HubSpot's own properties of contacts and communications; an app creates its own (and their
 * group) through `POST /crm/v3/properties/{objectType}`. A record write naming a property the
 * portal does not have is refused, as HubSpot refuses it (decision 107).
 */

/** HubSpot's object type ids and names as the path takes them. */
const OBJECT_TYPES: Record<string, ObjectType> = {
  contacts: "contacts",
  contact: "contacts",
  "0-1": "contacts",
  communications: "communications",
  communication: "communications",
  "0-18": "communications",
};

export const objectTypeOf = (value: string): ObjectType | undefined => OBJECT_TYPES[value.toLowerCase()];

/** Which fieldTypes each type takes (HubSpot's "Property types and field types" table). */
export const FIELD_TYPES: Record<string, string[]> = {
  string: ["text", "textarea", "file", "html", "phonenumber"],
  number: ["number", "calculation_equation"],
  date: ["date"],
  datetime: ["date"],
  enumeration: ["booleancheckbox", "checkbox", "radio", "select", "calculation_equation"],
  bool: ["booleancheckbox", "calculation_equation"],
};

type Seed = [name: string, label: string, type: string, fieldType: string, options?: string[]];

const CONTACT_SEED: Seed[] = [
  ["email", "Email", "string", "text"],
  ["firstname", "First Name", "string", "text"],
  ["lastname", "Last Name", "string", "text"],
  ["phone", "Phone Number", "string", "phonenumber"],
  ["mobilephone", "Mobile Phone Number", "string", "phonenumber"],
  ["hs_whatsapp_phone_number", "WhatsApp Phone Number", "string", "phonenumber"],
  ["company", "Company Name", "string", "text"],
  ["jobtitle", "Job Title", "string", "text"],
  ["address", "Street Address", "string", "text"],
  ["city", "City", "string", "text"],
  ["state", "State/Region", "string", "text"],
  ["zip", "Postal Code", "string", "text"],
  ["country", "Country/Region", "string", "text"],
  ["website", "Website URL", "string", "text"],
  ["lifecyclestage", "Lifecycle Stage", "enumeration", "radio", ["subscriber", "lead", "marketingqualifiedlead", "customer", "other"]],
  ["hs_language", "Preferred language", "enumeration", "select", ["en", "sw", "fr"]],
  ["hubspot_owner_id", "Contact owner", "enumeration", "select", []],
  ["createdate", "Create Date", "datetime", "date"],
  ["lastmodifieddate", "Last Modified Date", "datetime", "date"],
  ["hs_object_id", "Record ID", "number", "number"],
];

const COMMUNICATION_SEED: Seed[] = [
  ["hs_communication_channel_type", "Channel type", "enumeration", "select", ["WHATS_APP", "SMS", "LINKEDIN_MESSAGE"]],
  ["hs_communication_logged_from", "Logged from", "enumeration", "select", ["CRM"]],
  ["hs_communication_body", "Communication body", "string", "textarea"],
  ["hs_timestamp", "Activity date", "datetime", "date"],
  ["hubspot_owner_id", "Activity assigned to", "enumeration", "select", []],
  ["hs_createdate", "Created at", "datetime", "date"],
  ["hs_lastmodifieddate", "Last modified date", "datetime", "date"],
  ["hs_object_id", "Record ID", "number", "number"],
];

const DEFAULT_GROUPS: Record<ObjectType, PropertyGroup[]> = {
  contacts: [
    { name: "contactinformation", label: "Contact information", displayOrder: 0 },
    { name: "contact_activity", label: "Contact activity", displayOrder: 1 },
  ],
  communications: [{ name: "communicationinformation", label: "Communication information", displayOrder: 0 }],
};

function seeded(seed: Seed[], groupName: string): PropertyDefinition[] {
  return seed.map(([name, label, type, fieldType, options], i) => ({
    name,
    label,
    type,
    fieldType,
    groupName,
    description: "",
    options: (options ?? []).map((value, order) => ({ label: value, value, displayOrder: order, hidden: false })),
    displayOrder: i,
    hasUniqueValue: false,
    hidden: false,
    formField: type === "string",
    hubspotDefined: true,
    createdAt: 0,
    updatedAt: 0,
  }));
}

/** HubSpot's own properties of each object, in every portal. */
export const DEFAULT_PROPERTIES: Record<ObjectType, PropertyDefinition[]> = {
  contacts: seeded(CONTACT_SEED, "contactinformation"),
  communications: seeded(COMMUNICATION_SEED, "communicationinformation"),
};

/** Properties every record answers whatever the portal defines (the sandbox's record view computes them). */
const ALWAYS_KNOWN = new Set(["hs_object_id", "createdate", "lastmodifieddate"]);

/** The names of a portal's properties of an object: HubSpot's and the portal's own. */
export function propertyNames(ctx: HubspotContext, hubId: number, objectType: ObjectType): Set<string> {
  return new Set([
    ...ALWAYS_KNOWN,
    ...DEFAULT_PROPERTIES[objectType].map((p) => p.name),
    ...ctx.state.customProperties(hubId, objectType).map((p) => p.name),
  ]);
}

/** The asked-for names a portal has (HubSpot leaves out the others of a read without a word). */
export function knownOnly(ctx: HubspotContext, hubId: number, objectType: ObjectType, asked: string[] | undefined) {
  if (!asked) return asked;
  const known = propertyNames(ctx, hubId, objectType);
  return asked.filter((name) => known.has(name));
}

/** HubSpot's words for a property a portal does not have. */
export const doesntExist = (name: string) => `Property "${name}" does not exist`;

/** The `errors` entry HubSpot adds for each unknown property. */
export const doesntExistError = (name: string) => ({
  message: doesntExist(name),
  code: "PROPERTY_DOESNT_EXIST",
  context: { propertyName: [name] },
});

export function propertyView(p: PropertyDefinition) {
  return {
    updatedAt: new Date(p.updatedAt).toISOString(),
    createdAt: new Date(p.createdAt).toISOString(),
    name: p.name,
    label: p.label,
    type: p.type,
    fieldType: p.fieldType,
    description: p.description,
    groupName: p.groupName,
    options: p.options,
    displayOrder: p.displayOrder,
    calculated: false,
    externalOptions: false,
    hasUniqueValue: p.hasUniqueValue,
    hidden: p.hidden,
    hubspotDefined: p.hubspotDefined,
    modificationMetadata: { archivable: !p.hubspotDefined, readOnlyDefinition: p.hubspotDefined, readOnlyValue: p.name === "hs_object_id" },
    formField: p.formField,
    dataSensitivity: "non_sensitive",
    archived: false,
  };
}

const groupView = (g: PropertyGroup) => ({ name: g.name, label: g.label, displayOrder: g.displayOrder, archived: false });

class PropertyFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

const invalid = (message: string, extra: Record<string, unknown> = {}) =>
  new PropertyFailure(400, crmError("VALIDATION_ERROR", message, extra));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const NAME = /^[a-z][a-z0-9_]{0,99}$/;

/** A PropertyCreate body checked as HubSpot checks it; answers the definition to keep. */
function propertyFrom(ctx: HubspotContext, hubId: number, objectType: ObjectType, body: unknown): PropertyDefinition {
  if (!isObject(body)) throw invalid("Invalid input JSON: the body must be a property.");
  const missing = ["name", "label", "type", "fieldType", "groupName"].filter((k) => typeof body[k] !== "string" || !body[k]);
  if (missing.length)
    throw invalid(`Invalid input JSON on line 1: some of required attributes are not set [${missing.join(", ")}]`, {
      errors: missing.map((k) => ({ message: `${k} is required`, code: "REQUIRED_FIELD", context: { field: [k] } })),
    });
  const name = String(body.name);
  const type = String(body.type);
  const fieldType = String(body.fieldType);
  const groupName = String(body.groupName);
  if (!NAME.test(name))
    throw invalid(
      `Property name "${name}" is invalid: it must start with a lowercase letter and hold only lowercase letters, digits and underscores.`,
    );
  if (!FIELD_TYPES[type])
    throw invalid(`Invalid input JSON on line 1: "${type}" is not one of the property types [${Object.keys(FIELD_TYPES).join(", ")}]`);
  if (!FIELD_TYPES[type]!.includes(fieldType))
    throw invalid(`Property ${name} of type ${type} cannot have the field type ${fieldType}.`, {
      errors: [{ message: `fieldType ${fieldType} is not valid for type ${type}`, code: "INVALID_FIELD_TYPE" }],
    });
  if (propertyNames(ctx, hubId, objectType).has(name))
    throw new PropertyFailure(409, crmError("OBJECT_ALREADY_EXISTS", `A property named '${name}' already exists.`));
  if (!groupsOf(ctx, hubId, objectType).some((g) => g.name === groupName))
    throw invalid(`Property group ${groupName} does not exist.`, {
      errors: [{ message: `Property group ${groupName} does not exist`, code: "GROUP_DOESNT_EXIST" }],
    });
  const options = Array.isArray(body.options) ? body.options.filter(isObject) : [];
  if (type === "enumeration" && fieldType !== "calculation_equation" && !options.length)
    throw invalid(`Property ${name} of type enumeration needs options.`);
  if (fieldType === "booleancheckbox" && type === "enumeration") {
    const values = options.map((o) => String(o.value ?? "")).sort();
    if (values.length !== 2 || values[0] !== "false" || values[1] !== "true")
      throw invalid(`Property ${name}: a booleancheckbox enumeration takes exactly the options "true" and "false".`);
  }
  if (body.hasUniqueValue === true && type !== "string") throw invalid(`Property ${name}: only a string property can have unique values.`);
  if (ctx.state.customProperties(hubId, objectType).length >= ctx.state.propertyLimit(hubId))
    throw invalid(`You have reached your limit of ${ctx.state.propertyLimit(hubId)} custom properties for ${objectType}.`, {
      subCategory: "PropertyValidationError.MAX_PROPERTIES_LIMIT_EXCEEDED",
    });
  const at = ctx.options.now();
  return {
    name,
    label: String(body.label),
    type,
    fieldType,
    groupName,
    description: typeof body.description === "string" ? body.description : "",
    options: options.map((o, i) => ({
      label: String(o.label ?? o.value ?? ""),
      value: String(o.value ?? ""),
      displayOrder: Number.isInteger(o.displayOrder) ? Number(o.displayOrder) : i,
      hidden: o.hidden === true,
      ...(typeof o.description === "string" ? { description: o.description } : {}),
    })),
    displayOrder: Number.isInteger(body.displayOrder) ? Number(body.displayOrder) : -1,
    hasUniqueValue: body.hasUniqueValue === true,
    hidden: body.hidden === true,
    formField: body.formField === true,
    hubspotDefined: false,
    createdAt: at,
    updatedAt: at,
  };
}

function groupsOf(ctx: HubspotContext, hubId: number, objectType: ObjectType): PropertyGroup[] {
  return [...DEFAULT_GROUPS[objectType], ...ctx.state.customGroups(hubId, objectType)];
}

function groupFrom(ctx: HubspotContext, hubId: number, objectType: ObjectType, body: unknown): PropertyGroup {
  if (!isObject(body) || typeof body.name !== "string" || typeof body.label !== "string" || !body.name || !body.label)
    throw invalid("Invalid input JSON on line 1: some of required attributes are not set [name, label]");
  if (!NAME.test(body.name)) throw invalid(`Property group name "${body.name}" is invalid.`);
  if (groupsOf(ctx, hubId, objectType).some((g) => g.name === body.name))
    throw new PropertyFailure(409, crmError("OBJECT_ALREADY_EXISTS", `A property group named '${body.name}' already exists.`));
  return { name: body.name, label: body.label, displayOrder: Number.isInteger(body.displayOrder) ? Number(body.displayOrder) : -1 };
}

/** Any one of these scopes lets an app do the call (HubSpot's scope lists for the Properties API). */
const READ_SCOPES = ["crm.objects.contacts.read", "crm.schemas.contacts.read", "crm.schemas.contacts.write"];
const WRITE_SCOPES = ["crm.schemas.contacts.write"];

function anyScope(scopes: string[]) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const grant = res.locals.grant as AccessRecord;
    if (scopes.some((s) => grant.scopes.includes(s))) return next();
    res
      .status(403)
      .json(
        crmError(
          "MISSING_SCOPES",
          "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
          { errors: [{ message: "One or more of the following scopes are required.", context: { requiredGranularScopes: scopes } }] },
        ),
      );
  };
}

function handle(fn: (req: Request, res: Response, hubId: number, objectType: ObjectType) => void) {
  return (req: Request, res: Response) => {
    const objectType = objectTypeOf(String(req.params.objectType));
    if (!objectType)
      return void res.status(400).json(crmError("VALIDATION_ERROR", `Unable to infer object type from: ${String(req.params.objectType)}`));
    try {
      fn(req, res, res.locals.hubId as number, objectType);
    } catch (error) {
      if (!(error instanceof PropertyFailure)) throw error;
      res.status(error.status).json(error.body);
    }
  };
}

/** The routes under `/crm/v3/properties` (mounted after the API's token, rate limit and faults). */
export function propertyRoutes(ctx: HubspotContext, router: Router) {
  const read = anyScope(READ_SCOPES);
  const write = anyScope(WRITE_SCOPES);
  const base = "/crm/v3/properties/:objectType";

  router.get(
    `${base}/groups`,
    read,
    handle((_req, res, hubId, objectType) => void res.json({ results: groupsOf(ctx, hubId, objectType).map(groupView) })),
  );
  router.post(
    `${base}/groups`,
    write,
    handle((req, res, hubId, objectType) => {
      const group = groupFrom(ctx, hubId, objectType, req.body);
      ctx.state.addGroup({ ...group, hubId, objectType });
      res.status(201).json(groupView(group));
    }),
  );
  router.get(
    `${base}/groups/:groupName`,
    read,
    handle((req, res, hubId, objectType) => {
      const group = groupsOf(ctx, hubId, objectType).find((g) => g.name === req.params.groupName);
      if (!group)
        throw new PropertyFailure(404, crmError("OBJECT_NOT_FOUND", `Unable to find property group ${String(req.params.groupName)}.`));
      res.json(groupView(group));
    }),
  );

  router.get(
    base,
    read,
    handle((_req, res, hubId, objectType) => {
      const all = [...DEFAULT_PROPERTIES[objectType], ...ctx.state.customProperties(hubId, objectType)];
      res.json({ results: all.map(propertyView) });
    }),
  );
  router.post(
    base,
    write,
    handle((req, res, hubId, objectType) => {
      const property = propertyFrom(ctx, hubId, objectType, req.body);
      ctx.state.addProperty({ ...property, hubId, objectType });
      res.status(201).json(propertyView(property));
    }),
  );
  // Archive (a HubSpot user deleting a property): 204; HubSpot's own cannot be.
  router.delete(
    `${base}/:propertyName`,
    write,
    handle((req, res, hubId, objectType) => {
      const name = String(req.params.propertyName);
      if (DEFAULT_PROPERTIES[objectType].some((p) => p.name === name))
        throw invalid(`Property ${name} is a HubSpot default property and cannot be archived.`);
      if (!ctx.state.removeProperty(hubId, objectType, name))
        throw new PropertyFailure(404, crmError("OBJECT_NOT_FOUND", `Unable to find property ${name} for object type ${objectType}.`));
      res.status(204).end();
    }),
  );
  router.get(
    `${base}/:propertyName`,
    read,
    handle((req, res, hubId, objectType) => {
      const name = String(req.params.propertyName);
      const found = [...DEFAULT_PROPERTIES[objectType], ...ctx.state.customProperties(hubId, objectType)].find((p) => p.name === name);
      if (!found)
        throw new PropertyFailure(404, crmError("OBJECT_NOT_FOUND", `Unable to find property ${name} for object type ${objectType}.`));
      res.json(propertyView(found));
    }),
  );
}
