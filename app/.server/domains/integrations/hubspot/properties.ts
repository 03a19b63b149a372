import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { HubspotError, type HubspotObjectType, type HubspotPropertyCreate } from "../../../infrastructure/clients/hubspot";
import { recordActivity } from "../../activity";
import { hubspotCall, type HubspotConnection } from "./calls";

/** The property group Jumbe's properties are made in, on contacts and on communications. */
export const JUMBE_PROPERTY_GROUP = { name: "jumbe", label: "Jumbe" } as const;

/**
 * Every HubSpot property Jumbe writes or searches by (decision 107): the Jumbe id of a contact (a
 * batch made before a crash is found by it), the contact's WhatsApp opt-out (HubSpot's boolean is an
 * enumeration with a booleancheckbox and exactly the options true and false), and the Jumbe id of a
 * logged message (a batch logged before a crash is found by it).
 */
export const JUMBE_PROPERTIES: readonly (HubspotPropertyCreate & { objectType: HubspotObjectType })[] = [
  {
    objectType: "contacts",
    name: "jumbe_contact_id",
    label: "Jumbe contact ID",
    description: "The contact's id in Jumbe, set by Jumbe when it creates the contact.",
    groupName: JUMBE_PROPERTY_GROUP.name,
    type: "string",
    fieldType: "text",
  },
  {
    objectType: "contacts",
    name: "jumbe_whatsapp_opt_out",
    label: "WhatsApp opt-out (Jumbe)",
    description: "Yes when the contact has opted out of WhatsApp messages in Jumbe.",
    groupName: JUMBE_PROPERTY_GROUP.name,
    type: "enumeration",
    fieldType: "booleancheckbox",
    options: [
      { label: "Yes", value: "true", displayOrder: 0 },
      { label: "No", value: "false", displayOrder: 1 },
    ],
  },
  {
    objectType: "communications",
    name: "jumbe_message_id",
    label: "Jumbe message ID",
    description: "The WhatsApp message's id in Jumbe, set by Jumbe when it logs the message.",
    groupName: JUMBE_PROPERTY_GROUP.name,
    type: "string",
    fieldType: "text",
  },
];

/** Why properties are missing: the grant lacks the schema scope, the portal's limit, or another refusal. */
export type MissingReason = "scope" | "limit" | "refused";

/** What the last check found, kept in the connection's sync_state as `hubspotProperties`. */
export interface PropertyCheck {
  checkedAt: string;
  /** The connection's connected_at at the check: connecting again checks anew. */
  connectedAt: string;
  /** "objectType.name" of each property still missing. */
  missing: string[];
  reason: MissingReason | null;
  /** HubSpot's words for the refusal. */
  detail: string | null;
}

/** A portal with everything is checked again after this long (a user may delete a property in HubSpot). */
const RECHECK_MS = 6 * 60 * 60_000;
/** A portal that refused is tried again after this long (the merchant may have fixed it). */
const RETRY_MS = 5 * 60_000;

const keyOf = (p: { objectType: string; name: string }) => `${p.objectType}.${p.name}`;

export function propertyCheckOf(connection: Pick<HubspotConnection, "syncState">): PropertyCheck | null {
  const raw = connection.syncState.hubspotProperties as Partial<PropertyCheck> | undefined;
  if (!raw || typeof raw.checkedAt !== "string" || !Array.isArray(raw.missing)) return null;
  return {
    checkedAt: raw.checkedAt,
    connectedAt: typeof raw.connectedAt === "string" ? raw.connectedAt : "",
    missing: raw.missing.filter((m): m is string => typeof m === "string"),
    reason: raw.reason ?? null,
    detail: raw.detail ?? null,
  };
}

/** Whether a sync checks the properties first: never checked, connected since, or due again. */
export function propertyCheckDue(connection: HubspotConnection, now = Date.now()) {
  const check = propertyCheckOf(connection);
  if (!check || check.connectedAt !== connection.connectedAt) return true;
  const age = now - Date.parse(check.checkedAt);
  return !(age >= 0) || age > (check.missing.length ? RETRY_MS : RECHECK_MS);
}

function reasonOf(error: HubspotError): MissingReason {
  if (error.kind === "forbidden") return "scope";
  return /limit/i.test(error.message) ? "limit" : "refused";
}

async function store(connection: HubspotConnection, check: PropertyCheck) {
  await db().execute(sql`
    update integration_connections set sync_state = coalesce(sync_state, '{}'::jsonb) || jsonb_build_object('hubspotProperties', ${JSON.stringify(check)}::jsonb)
    where organization_id = ${connection.organizationId} and provider = 'hubspot' and status = 'connected'`);
  connection.syncState = { ...connection.syncState, hubspotProperties: check };
}

/**
 * Makes sure the portal has Jumbe's property group and properties (decision 107): one list call per
 * object; only what is missing is created (the group first; a 409 means it is there). A refusal
 * (the grant lacks `crm.schemas.contacts.write`, the portal's property limit, another 4xx) leaves
 * those properties listed as missing with HubSpot's reason, for the settings page; what was created
 * and what is missing are in the activity log. Answers the check stored.
 */
export async function ensureHubspotProperties(connection: HubspotConnection): Promise<PropertyCheck> {
  const before = propertyCheckOf(connection);
  const created: string[] = [];
  const missing: string[] = [];
  let refusal: HubspotError | null = null;
  for (const objectType of ["contacts", "communications"] as const) {
    const names = await hubspotCall(connection, (client, token) => client.propertyNames(token, objectType));
    const wanted = JUMBE_PROPERTIES.filter((p) => p.objectType === objectType && !names.has(p.name));
    let at = 0;
    try {
      if (wanted.length)
        await hubspotCall(connection, (client, token) => client.createPropertyGroup(token, objectType, JUMBE_PROPERTY_GROUP));
      for (; at < wanted.length; at++) {
        const { objectType: _objectType, ...property } = wanted[at]!;
        const made = await hubspotCall(connection, (client, token) => client.createProperty(token, objectType, property));
        if (made === "created") created.push(keyOf(wanted[at]!));
      }
    } catch (error) {
      if (!(error instanceof HubspotError) || (error.kind !== "forbidden" && error.kind !== "refused")) throw error;
      refusal = error;
      missing.push(...wanted.slice(at).map(keyOf));
    }
  }
  const check: PropertyCheck = {
    checkedAt: new Date().toISOString(),
    connectedAt: connection.connectedAt,
    missing,
    reason: refusal ? reasonOf(refusal) : null,
    detail: refusal?.message ?? null,
  };
  await store(connection, check);
  if (created.length)
    await recordActivity({
      organizationId: connection.organizationId,
      type: "settings",
      status: "success",
      action: "HubSpot properties created",
      details: created.join(", "),
    });
  if (missing.length && missing.join() !== before?.missing.join())
    await recordActivity({
      organizationId: connection.organizationId,
      type: "settings",
      status: "warning",
      action: "HubSpot properties missing",
      details: `${missing.join(", ")}: ${check.detail ?? ""}`.slice(0, 500),
    });
  return check;
}

/** A write HubSpot refused for a property it does not have (deleted in HubSpot since the check). */
export function isMissingPropertyError(error: unknown) {
  return error instanceof HubspotError && error.httpStatus === 400 && /PROPERTY_DOESNT_EXIST|does not exist/.test(error.message);
}

/** The next sync checks the properties again (a write found one gone). */
export async function forgetPropertyCheck(connection: HubspotConnection) {
  await db().execute(sql`
    update integration_connections set sync_state = coalesce(sync_state, '{}'::jsonb) - 'hubspotProperties'
    where organization_id = ${connection.organizationId} and provider = 'hubspot' and status = 'connected'`);
}

/** The properties the last check found missing, by object: what the sync leaves alone until they exist. */
export function missingByObject(check: PropertyCheck | null) {
  const missing = check?.missing ?? [];
  return {
    contacts: missing.filter((m) => m.startsWith("contacts.")).map((m) => m.slice("contacts.".length)),
    communications: missing.filter((m) => m.startsWith("communications.")).map((m) => m.slice("communications.".length)),
  };
}
