import { randomUUID } from "node:crypto";
import type { CrmRecord } from "./state";

/** The properties HubSpot answers for a contact when the request names none. */
export const DEFAULT_CONTACT_PROPERTIES = ["createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"];

/** Read-only properties HubSpot sets itself. */
export const AUTOMATIC_PROPERTIES = new Set(["createdate", "lastmodifieddate", "hs_object_id"]);

export const COMMUNICATION_CHANNELS = new Set(["WHATS_APP", "SMS", "LINKEDIN_MESSAGE"]);
/** HubSpot's association type id from a communication to a contact. */
export const COMMUNICATION_TO_CONTACT = 81;

export type ErrorCategory =
  | "VALIDATION_ERROR"
  | "CONFLICT"
  | "OBJECT_ALREADY_EXISTS"
  | "OBJECT_NOT_FOUND"
  | "INVALID_AUTHENTICATION"
  | "EXPIRED_AUTHENTICATION"
  | "MISSING_SCOPES"
  | "RATE_LIMITS"
  | "INTERNAL_ERROR";

/** HubSpot's CRM error body: `{status: "error", message, correlationId, category, context?, errors?}`. */
export function crmError(category: ErrorCategory, message: string, extra: Record<string, unknown> = {}) {
  return { status: "error", message, correlationId: randomUUID(), category, ...extra };
}

/** A record's automatic properties as HubSpot computes them. */
function automaticProperties(record: CrmRecord): Record<string, string> {
  return {
    createdate: new Date(record.createdAt).toISOString(),
    lastmodifieddate: new Date(record.updatedAt).toISOString(),
    hs_object_id: record.id,
  };
}

/** A CRM object as the v3 API answers it: the asked-for properties (null when unset) or the defaults. */
export function recordView(record: CrmRecord, asked: string[] | undefined, defaults: string[] = DEFAULT_CONTACT_PROPERTIES) {
  const all = { ...record.properties, ...automaticProperties(record) };
  const names = asked && asked.length ? asked : defaults;
  const properties: Record<string, string | null> = {};
  for (const name of names) properties[name] = all[name] ?? null;
  // HubSpot always answers these, asked for or not.
  properties.hs_object_id = all.hs_object_id!;
  properties.createdate = all.createdate!;
  properties.lastmodifieddate = all.lastmodifieddate!;
  return {
    id: record.id,
    properties,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
    archived: false,
  };
}

/** A property's value on a record, automatic ones included ("" is unset). */
export function propertyOf(record: CrmRecord, name: string): string | undefined {
  const value =
    name === "lastmodifieddate"
      ? new Date(record.updatedAt).toISOString()
      : name === "createdate"
        ? new Date(record.createdAt).toISOString()
        : name === "hs_object_id"
          ? record.id
          : record.properties[name];
  return value === undefined || value === "" ? undefined : value;
}

/** `?properties=a,b&properties=c` → ["a", "b", "c"]. */
export function propertiesParam(value: unknown): string[] | undefined {
  const parts = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
  const names = parts
    .flatMap((p) => p.split(","))
    .map((p) => p.trim())
    .filter(Boolean);
  return names.length ? names : undefined;
}
