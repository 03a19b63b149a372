import { Refusal } from "../../../infrastructure/refusal";
import { processState } from "../../../infrastructure/process-state";
import { HubspotError, type HubspotList } from "../../../infrastructure/clients/hubspot";
import { listConnections, type ConnectionView } from "../connections";
import { hubspotCall, hubspotConnection, type HubspotConnection } from "./calls";
import { missingByObject, propertyCheckOf } from "./properties";
import { followSource, segmentSources } from "./segments";
import { HUBSPOT_SEARCH_OPERATORS, HUBSPOT_SEARCH_PROPERTIES } from "~/lib/hubspot";
import { m } from "~/paraglide/messages";

const notConnected = () => new Refusal({ domain: "integration", status: 404, code: "not_connected", message: m.hubspot_not_connected() });

const SEARCH_PROPERTIES = HUBSPOT_SEARCH_PROPERTIES;
const SEARCH_OPERATORS = HUBSPOT_SEARCH_OPERATORS;

/**
 * How long a portal's lists, once read, answer its settings page without asking HubSpot again
 * (decision 176): each view called HubSpot's list search, from the portal's 100 calls per 10 s that
 * the sync also needs, so ten views a second held every view in the pacer.
 */
const PORTAL_LISTS_KEPT_MS = 60_000;
/** The most portals kept; the oldest go first. */
const PORTAL_LISTS_KEPT_MAX = 500;
const keptLists = processState("hubspot.portal-lists", () => new Map<string, { lists: HubspotList[]; at: number }>());

/** A connection's key: connecting again (another portal, or a new grant) starts afresh. */
const listsKey = (connection: HubspotConnection) => `${connection.organizationId} ${connection.hubId} ${connection.connectedAt}`;

/**
 * The portal's contact lists, or HubSpot's refusal in words (the page still shows the rest). The
 * settings page takes them as read within PORTAL_LISTS_KEPT_MS; `fresh` asks HubSpot (following a
 * list checks it against what HubSpot shows now). A refusal is never kept.
 */
async function portalLists(
  connection: HubspotConnection | null,
  { fresh = false }: { fresh?: boolean } = {},
): Promise<{ lists: HubspotList[]; listsError: string | null }> {
  if (!connection) return { lists: [], listsError: null };
  const key = listsKey(connection);
  const kept = keptLists.get(key);
  if (!fresh && kept && Date.now() - kept.at < PORTAL_LISTS_KEPT_MS) return { lists: kept.lists, listsError: null };
  try {
    const lists: HubspotList[] = [];
    let offset = 0;
    for (let page = 0; page < 5; page++) {
      const found = await hubspotCall(connection, (client, token) => client.searchLists(token, "", offset));
      lists.push(...found.items);
      if (!found.hasMore || !found.after) break;
      offset = Number(found.after);
    }
    keepLists(key, lists);
    return { lists, listsError: null };
  } catch (error) {
    keptLists.delete(key);
    if (error instanceof HubspotError || error instanceof Refusal) return { lists: [], listsError: error.message };
    throw error;
  }
}

function keepLists(key: string, lists: HubspotList[]) {
  keptLists.delete(key);
  keptLists.set(key, { lists, at: Date.now() });
  while (keptLists.size > PORTAL_LISTS_KEPT_MAX) keptLists.delete(keptLists.keys().next().value!);
}

/** Jumbe's HubSpot properties the last check found missing (decision 107), and why; null when none are. */
function missingProperties(live: HubspotConnection | null) {
  const check = live ? propertyCheckOf(live) : null;
  if (!check?.missing.length) return null;
  return { ...missingByObject(check), reason: check.reason ?? "refused", detail: check.detail ?? "" };
}

/** The settings page: the connection (404 without one), the portal's lists, the sources followed, missing properties. */
export async function hubspotSettings(organizationId: string) {
  const [connections, live, sources] = await Promise.all([
    listConnections(organizationId),
    hubspotConnection(organizationId),
    segmentSources(organizationId),
  ]);
  const connection = connections.find((c) => c.provider === "hubspot" && c.status === "connected");
  if (!connection) throw notConnected();
  const { lists, listsError } = await portalLists(live);
  return { connection: connection as ConnectionView, lists, listsError, sources, missingProperties: missingProperties(live) };
}

const invalid = (message: string) => new Refusal({ domain: "integration", status: 400, code: "invalid_source", message });

/** Follows one of the portal's lists (it must be one HubSpot shows this portal). */
export async function followList(actor: { organizationId: string; userId: string }, listId: string) {
  const live = await hubspotConnection(actor.organizationId);
  if (!live) throw notConnected();
  const { lists } = await portalLists(live, { fresh: true });
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
