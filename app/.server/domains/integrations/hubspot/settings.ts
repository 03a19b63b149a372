import { Refusal } from "../../../infrastructure/refusal";
import { HubspotError, type HubspotList } from "../../../infrastructure/clients/hubspot";
import { listConnections, type ConnectionView } from "../connections";
import { hubspotCall, hubspotConnection } from "./calls";
import { missingByObject, propertyCheckOf } from "./properties";
import { followSource, segmentSources } from "./segments";
import { HUBSPOT_SEARCH_OPERATORS, HUBSPOT_SEARCH_PROPERTIES } from "~/lib/hubspot";
import { m } from "~/paraglide/messages";

const notConnected = () => new Refusal({ domain: "integration", status: 404, code: "not_connected", message: m.hubspot_not_connected() });

const SEARCH_PROPERTIES = HUBSPOT_SEARCH_PROPERTIES;
const SEARCH_OPERATORS = HUBSPOT_SEARCH_OPERATORS;

/** The portal's contact lists, or HubSpot's refusal in words (the page still shows the rest). */
async function portalLists(organizationId: string): Promise<{ lists: HubspotList[]; listsError: string | null }> {
  const connection = await hubspotConnection(organizationId);
  if (!connection) return { lists: [], listsError: null };
  try {
    const lists: HubspotList[] = [];
    let offset = 0;
    for (let page = 0; page < 5; page++) {
      const found = await hubspotCall(connection, (client, token) => client.searchLists(token, "", offset));
      lists.push(...found.items);
      if (!found.hasMore || !found.after) break;
      offset = Number(found.after);
    }
    return { lists, listsError: null };
  } catch (error) {
    if (error instanceof HubspotError || error instanceof Refusal) return { lists: [], listsError: error.message };
    throw error;
  }
}

/** Jumbe's HubSpot properties the last check found missing (decision 107), and why; null when none are. */
async function missingProperties(organizationId: string) {
  const live = await hubspotConnection(organizationId);
  const check = live ? propertyCheckOf(live) : null;
  if (!check?.missing.length) return null;
  return { ...missingByObject(check), reason: check.reason ?? "refused", detail: check.detail ?? "" };
}

/** The settings page: the connection (404 without one), the portal's lists, the sources followed, missing properties. */
export async function hubspotSettings(organizationId: string) {
  const connection = (await listConnections(organizationId)).find((c) => c.provider === "hubspot" && c.status === "connected");
  if (!connection) throw notConnected();
  const [{ lists, listsError }, sources, missing] = await Promise.all([
    portalLists(organizationId),
    segmentSources(organizationId),
    missingProperties(organizationId),
  ]);
  return { connection: connection as ConnectionView, lists, listsError, sources, missingProperties: missing };
}

const invalid = (message: string) => new Refusal({ domain: "integration", status: 400, code: "invalid_source", message });

/** Follows one of the portal's lists (it must be one HubSpot shows this portal). */
export async function followList(actor: { organizationId: string; userId: string }, listId: string) {
  if (!(await hubspotConnection(actor.organizationId))) throw notConnected();
  const { lists } = await portalLists(actor.organizationId);
  const list = lists.find((l) => l.listId === listId);
  if (!list) throw invalid(m.hubspot_list_unknown());
  await followSource(actor, { kind: "list", listId: list.listId, name: list.name });
  return list.name;
}

/** Follows a one-condition search (HubSpot's filterGroups), checked before anything is stored. */
export async function followSearch(
  actor: { organizationId: string; userId: string },
  input: { name: string; property: string; operator: string; value: string },
) {
  if (!(await hubspotConnection(actor.organizationId))) throw notConnected();
  const name = input.name.replace(/\s+/g, " ").trim();
  const value = input.value.trim();
  const property = SEARCH_PROPERTIES.find((p) => p === input.property);
  const operator = SEARCH_OPERATORS.find((o) => o === input.operator);
  if (!name || name.length > 60 || !property || !operator || value.length > 100 || (operator !== "HAS_PROPERTY" && !value))
    throw invalid(m.hubspot_search_invalid());
  const filter = operator === "HAS_PROPERTY" ? { propertyName: property, operator } : { propertyName: property, operator, value };
  await followSource(actor, { kind: "search", search: [{ filters: [filter] }], name });
  return name;
}
