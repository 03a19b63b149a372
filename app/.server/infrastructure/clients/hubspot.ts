import { env } from "~/.server/infrastructure/config/env";
import {
  callOutside,
  isObject,
  OutsideServiceError,
  retryAfterMs as retryAfter,
  stringOr,
  type OutsideAnswer,
  type OutsideFailure,
} from "./outside-call";

/**
 * Jumbe's client for HubSpot (issue 45): the app's install (authorize URL, code exchange, refresh,
 * token metadata, refresh-token deletion) and the CRM v3 calls the integration makes (contacts,
 * search, lists, WhatsApp messages logged as communications). In sandbox mode HUBSPOT_AUTH_URL and
 * HUBSPOT_API_URL are the local stand-in (sandbox/hubspot), which answers the same shapes.
 */

/**
 * The scopes Jumbe asks for: contacts both ways, lists to turn one into a segment, and the contact
 * schema's write scope to create Jumbe's own properties (decision 107; HubSpot's Properties API
 * takes it for contacts and for communications).
 */
export const HUBSPOT_SCOPES = [
  "oauth",
  "crm.objects.contacts.read",
  "crm.objects.contacts.write",
  "crm.lists.read",
  "crm.schemas.contacts.write",
] as const;
/** A token this close to its end is refreshed before a call rather than after a 401. */
export const HUBSPOT_REFRESH_MARGIN_MS = 60_000;
/**
 * HubSpot's dated OAuth API, which takes every secret in the body; the v1 endpoints (`/oauth/v1/token`,
 * `/oauth/v1/access-tokens/...`, `DELETE /oauth/v1/refresh-tokens/...`) end on 2027-02-16.
 */
export const HUBSPOT_OAUTH_PATH = "/oauth/2026-03";
/** HubSpot's burst window: without a header saying otherwise, a 429 waits this long. */
const DEFAULT_RETRY_MS = 10_000;

/** HubSpot's failure, with its `category` (CRM calls), `policyName` (429) or token error `status`. */
export class HubspotError extends OutsideServiceError {
  readonly category?: string;
  readonly policyName?: string;
  constructor(
    kind: OutsideFailure,
    httpStatus: number,
    message: string,
    extra: { category?: string; policyName?: string; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super("HubSpot", kind, httpStatus, message, extra);
    this.name = "HubspotError";
    if (extra.category) this.category = extra.category;
    if (extra.policyName) this.policyName = extra.policyName;
  }
}

export interface HubspotConfig {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  apiUrl: string;
  timeoutMs: number;
  /** Told the rate-limit headers of every CRM answer (the connector's pacer learns the portal's limit from them). */
  observeRateLimit?: (limit: { max: number; intervalMs: number; remaining: number }) => void;
}

export interface HubspotTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
}

export interface HubspotContact {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
}

export type CreatedContact = { kind: "created"; contact: HubspotContact } | { kind: "exists"; existingId: string };

export type HubspotFilter =
  | { propertyName: string; operator: "EQ" | "NEQ" | "LT" | "LTE" | "GT" | "GTE" | "CONTAINS_TOKEN" | "NOT_CONTAINS_TOKEN"; value: string }
  | { propertyName: string; operator: "HAS_PROPERTY" | "NOT_HAS_PROPERTY" }
  | { propertyName: string; operator: "IN" | "NOT_IN"; values: string[] }
  | { propertyName: string; operator: "BETWEEN"; value: string; highValue: string };

export interface HubspotSearch {
  /** Groups are ORed, the filters in a group ANDed. */
  filterGroups: { filters: HubspotFilter[] }[];
  properties?: string[];
  /** 1 to 200; HubSpot's default is 10. */
  limit?: number;
  after?: string;
  sorts?: { propertyName: string; direction: "ASCENDING" | "DESCENDING" }[];
}

export interface HubspotPage<T> {
  items: T[];
  /** The cursor of the next page; undefined on the last. */
  after?: string;
  total?: number;
}

/** The CRM objects whose properties Jumbe reads and makes. */
export type HubspotObjectType = "contacts" | "communications";

/** A property as HubSpot's Properties API creates it (PropertyCreate). */
export interface HubspotPropertyCreate {
  name: string;
  label: string;
  description: string;
  groupName: string;
  type: "string" | "enumeration";
  fieldType: "text" | "booleancheckbox";
  options?: { label: string; value: string; displayOrder: number }[];
  formField?: boolean;
}

export interface HubspotList {
  listId: string;
  name: string;
  size: number;
  processingType: string;
}

/** Configuration from env() unless given; read per call (the sandbox's port is known late in tests). */
function configOf(given: Partial<HubspotConfig>): HubspotConfig {
  const settings = env();
  const clientId = given.clientId ?? settings.HUBSPOT_CLIENT_ID;
  const clientSecret = given.clientSecret ?? settings.HUBSPOT_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new HubspotError("refused", 0, "HubSpot is not configured: set HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET");
  return {
    clientId,
    clientSecret,
    authUrl: (given.authUrl ?? settings.HUBSPOT_AUTH_URL).replace(/\/+$/, ""),
    apiUrl: (given.apiUrl ?? settings.HUBSPOT_API_URL).replace(/\/+$/, ""),
    timeoutMs: given.timeoutMs ?? settings.HUBSPOT_TIMEOUT_MS,
    ...(given.observeRateLimit ? { observeRateLimit: given.observeRateLimit } : {}),
  };
}

/** The failure an answer stands for, from its status, `category` and `errorType`. */
function failureOf(answer: OutsideAnswer, what: string): HubspotError {
  const body = isObject(answer.json) ? answer.json : {};
  const message = `HubSpot ${what}: ${stringOr(body.message, `HTTP ${answer.status}`)}`;
  const category = stringOr(body.category, undefined);
  const status = answer.status;
  if (status === 429) {
    const remaining = answer.headers.get("x-hubspot-ratelimit-remaining");
    const interval = Number(answer.headers.get("x-hubspot-ratelimit-interval-milliseconds"));
    const fallback = remaining === "0" && interval > 0 ? interval : DEFAULT_RETRY_MS;
    const retryAfterMs = answer.headers.get("retry-after") ? retryAfter(answer.headers, fallback) : fallback;
    return new HubspotError("rate_limited", status, message, { policyName: stringOr(body.policyName, undefined), retryAfterMs, category });
  }
  const kind: OutsideFailure =
    status === 401
      ? "expired_token"
      : status === 403
        ? "forbidden"
        : status === 404
          ? "not_found"
          : status === 409
            ? "conflict"
            : status >= 500
              ? "server"
              : "refused";
  return new HubspotError(kind, status, message, { category });
}

async function call(
  config: HubspotConfig,
  what: string,
  path: string,
  init: { method: "GET" | "POST" | "PATCH" | "DELETE"; token?: string; body?: unknown },
) {
  const answer = await callOutside("HubSpot", `${config.apiUrl}${path}`, {
    method: init.method,
    headers: init.token ? { Authorization: `Bearer ${init.token}` } : {},
    body: init.body,
    timeoutMs: config.timeoutMs,
  }).catch((error: unknown) => {
    if (error instanceof OutsideServiceError)
      throw new HubspotError(error.kind, error.httpStatus, `HubSpot ${what}: ${error.message}`, { cause: error });
    throw error;
  });
  const max = Number(answer.headers.get("x-hubspot-ratelimit-max"));
  const intervalMs = Number(answer.headers.get("x-hubspot-ratelimit-interval-milliseconds"));
  if (config.observeRateLimit && max > 0 && intervalMs > 0)
    config.observeRateLimit({ max, intervalMs, remaining: Number(answer.headers.get("x-hubspot-ratelimit-remaining")) || 0 });
  return answer;
}

async function callJson(config: HubspotConfig, what: string, path: string, init: Parameters<typeof call>[3]) {
  const answer = await call(config, what, path, init);
  if (answer.status < 200 || answer.status > 299) throw failureOf(answer, what);
  if (!isObject(answer.json)) throw new HubspotError("malformed", answer.status, `HubSpot ${what} answered without a JSON object`);
  return { json: answer.json, status: answer.status };
}

function contactFrom(value: unknown): HubspotContact {
  if (!isObject(value) || typeof value.id !== "string" || !isObject(value.properties))
    throw new HubspotError("malformed", 200, "HubSpot answered a contact without id or properties");
  const properties = Object.fromEntries(Object.entries(value.properties).map(([k, v]) => [k, typeof v === "string" ? v : null]));
  return { id: value.id, properties, createdAt: stringOr(value.createdAt, ""), updatedAt: stringOr(value.updatedAt, "") };
}

function nextCursor(json: Record<string, unknown>): string | undefined {
  const paging = isObject(json.paging) ? json.paging : {};
  const next = isObject(paging.next) ? paging.next : {};
  return stringOr(next.after, undefined);
}

function tokensFrom(json: Record<string, unknown>, now: number, fallbackRefresh?: string): HubspotTokens {
  // RFC 6749's names; HubSpot's reference also shows its model's camelCase ones, read as well.
  const accessToken = stringOr(json.access_token ?? json.accessToken, "");
  const refreshToken = stringOr(json.refresh_token ?? json.refreshToken, fallbackRefresh ?? "");
  const expiresIn = Number(json.expires_in ?? json.expiresIn);
  if (!accessToken || !refreshToken || !Number.isFinite(expiresIn))
    throw new HubspotError("malformed", 200, "HubSpot answered a token without access_token, refresh_token or expires_in");
  return { accessToken, refreshToken, expiresAt: new Date(now + expiresIn * 1000) };
}

/** The token endpoint's refusals: a spent or unknown refresh token means connecting again. */
function tokenFailure(answer: OutsideAnswer, what: string) {
  const body = isObject(answer.json) ? answer.json : {};
  const status = stringOr(body.status, "");
  const message = `HubSpot ${what}: ${stringOr(body.error_description ?? body.message, `HTTP ${answer.status}`)}`;
  // RFC 6749's `error` (the dated API) or HubSpot's own `status` (both are sent): a spent code or refresh token.
  if (body.error === "invalid_grant" || status === "BAD_REFRESH_TOKEN" || status === "BAD_AUTH_CODE")
    return new HubspotError("revoked", answer.status, message, { category: status || stringOr(body.error, undefined) });
  return answer.status >= 500
    ? new HubspotError("server", answer.status, message)
    : new HubspotError("refused", answer.status, message, { category: status || undefined });
}

/** HubSpot's install page for Jumbe's app: the user picks a portal and comes back with `code` and `state`. */
export function hubspotAuthorizeUrl(
  input: { redirectUri: string; state: string; sandboxUser?: string },
  given: Partial<HubspotConfig> = {},
) {
  const config = configOf(given);
  const query = new URLSearchParams({
    client_id: config.clientId,
    redirect_uri: input.redirectUri,
    scope: HUBSPOT_SCOPES.join(" "),
    state: input.state,
    // Sandbox mode only: whose test portals the sandbox's install page offers (HubSpot's own has none).
    ...(input.sandboxUser ? { sandbox_user: input.sandboxUser } : {}),
  });
  return `${config.authUrl}/oauth/authorize?${query}`;
}

/** The OAuth tokens of an install: exchanged, refreshed, looked into, revoked. */
function hubspotOauth(given: Partial<HubspotConfig>) {
  const token = async (what: string, fields: Record<string, string>, fallbackRefresh?: string) => {
    const config = configOf(given);
    const form = new URLSearchParams({ client_id: config.clientId, client_secret: config.clientSecret, ...fields });
    const answer = await call(config, what, `${HUBSPOT_OAUTH_PATH}/token`, { method: "POST", body: form });
    if (answer.status !== 200 || !isObject(answer.json)) throw tokenFailure(answer, what);
    return tokensFrom(answer.json, Date.now(), fallbackRefresh);
  };

  return {
    /** The install's code for the first tokens (30-minute access token and a refresh token). */
    exchangeCode: (code: string, redirectUri: string) =>
      token("code exchange", { grant_type: "authorization_code", code, redirect_uri: redirectUri }),
    /** A new access token; `revoked` when the refresh token is no longer good (connect again). */
    refresh: (refreshToken: string) => token("token refresh", { grant_type: "refresh_token", refresh_token: refreshToken }, refreshToken),
    /** Which portal (Hub ID) and user a token belongs to, and its scopes (introspection); `revoked` once it is not active. */
    async tokenInfo(accessToken: string) {
      const config = configOf(given);
      const form = new URLSearchParams({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        token: accessToken,
        token_type_hint: "access_token",
      });
      const { json } = await callJson(config, "token info", `${HUBSPOT_OAUTH_PATH}/token/introspect`, { method: "POST", body: form });
      if (json.active !== true) throw new HubspotError("revoked", 200, "HubSpot token info: the token is not active");
      const hubId = Number(json.hub_id ?? json.hubId);
      if (!Number.isSafeInteger(hubId)) throw new HubspotError("malformed", 200, "HubSpot token info answered without hub_id");
      return {
        hubId,
        user: stringOr(json.user, null),
        hubDomain: stringOr(json.hub_domain, null),
        scopes: Array.isArray(json.scopes) ? json.scopes.filter((s): s is string => typeof s === "string") : [],
      };
    },
    /** Revokes a refresh token (on disconnect); one HubSpot no longer knows is fine (RFC 7009 answers 200). */
    async revokeRefreshToken(refreshToken: string) {
      const config = configOf(given);
      const form = new URLSearchParams({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        token: refreshToken,
        token_type_hint: "refresh_token",
      });
      const answer = await call(config, "token revocation", `${HUBSPOT_OAUTH_PATH}/token/revoke`, { method: "POST", body: form });
      if (answer.status !== 200 && answer.status !== 204) throw tokenFailure(answer, "token revocation");
    },
  };
}

/** Contacts: created, read, updated, searched, erased (GDPR), a hundred at a time in batches. */
function hubspotContacts(given: Partial<HubspotConfig>) {
  return {
    /** Creates a contact; a contact with that e-mail already there answers `exists` with its id (HubSpot's 409). */
    async createContact(accessToken: string, properties: Record<string, string>): Promise<CreatedContact> {
      const config = configOf(given);
      const answer = await call(config, "contact create", "/crm/v3/objects/contacts", {
        method: "POST",
        token: accessToken,
        body: { properties },
      });
      if (answer.status === 409) {
        const message = isObject(answer.json) ? stringOr(answer.json.message, "") : "";
        const existingId = /Existing ID: (\d+)/.exec(message)?.[1];
        if (existingId) return { kind: "exists", existingId };
      }
      if (answer.status !== 201 && answer.status !== 200) throw failureOf(answer, "contact create");
      return { kind: "created", contact: contactFrom(answer.json) };
    },
    async getContact(accessToken: string, id: string, properties: string[] = []) {
      const query = properties.length ? `?properties=${encodeURIComponent(properties.join(","))}` : "";
      const { json } = await callJson(configOf(given), "contact read", `/crm/v3/objects/contacts/${encodeURIComponent(id)}${query}`, {
        method: "GET",
        token: accessToken,
      });
      return contactFrom(json);
    },
    async updateContact(accessToken: string, id: string, properties: Record<string, string>) {
      const { json } = await callJson(configOf(given), "contact update", `/crm/v3/objects/contacts/${encodeURIComponent(id)}`, {
        method: "PATCH",
        token: accessToken,
        body: { properties },
      });
      return contactFrom(json);
    },
    /**
     * Deletes a contact for good, as HubSpot's GDPR delete does (`POST /crm/v3/objects/contacts/gdpr-delete`,
     * 204), not the archive a plain DELETE makes (restorable for 90 days). False when HubSpot knows no
     * such contact (404): already gone.
     */
    async gdprDeleteContact(accessToken: string, id: string): Promise<boolean> {
      const answer = await call(configOf(given), "contact erasure", "/crm/v3/objects/contacts/gdpr-delete", {
        method: "POST",
        token: accessToken,
        body: { objectId: id },
      });
      if (answer.status === 404) return false;
      if (answer.status < 200 || answer.status > 299) throw failureOf(answer, "contact erasure");
      return true;
    },
    /** One page of a contact search; pass `after` back for the next. */
    async searchContacts(accessToken: string, search: HubspotSearch): Promise<HubspotPage<HubspotContact>> {
      const { json } = await callJson(configOf(given), "contact search", "/crm/v3/objects/contacts/search", {
        method: "POST",
        token: accessToken,
        body: {
          filterGroups: search.filterGroups,
          properties: search.properties ?? [],
          limit: search.limit ?? 100,
          ...(search.sorts ? { sorts: search.sorts } : {}),
          ...(search.after ? { after: search.after } : {}),
        },
      });
      const results = Array.isArray(json.results) ? json.results.map(contactFrom) : [];
      return { items: results, after: nextCursor(json), total: typeof json.total === "number" ? json.total : undefined };
    },
    /**
     * Creates up to 100 contacts in one call; answers them with the properties sent. A 409 (an
     * e-mail already there) fails the whole batch: the caller then creates them one by one.
     */
    async batchCreateContacts(accessToken: string, inputs: Record<string, string>[]): Promise<HubspotContact[]> {
      const { json } = await callJson(configOf(given), "contact batch create", "/crm/v3/objects/contacts/batch/create", {
        method: "POST",
        token: accessToken,
        body: { inputs: inputs.map((properties) => ({ properties })) },
      });
      return Array.isArray(json.results) ? json.results.map(contactFrom) : [];
    },
    /** Updates up to 100 contacts in one call. */
    async batchUpdateContacts(
      accessToken: string,
      inputs: { id: string; properties: Record<string, string> }[],
    ): Promise<HubspotContact[]> {
      const { json } = await callJson(configOf(given), "contact batch update", "/crm/v3/objects/contacts/batch/update", {
        method: "POST",
        token: accessToken,
        body: { inputs },
      });
      return Array.isArray(json.results) ? json.results.map(contactFrom) : [];
    },
  };
}

/** WhatsApp messages on contacts' timelines (communications): logged, found, archived. */
function hubspotCommunications(given: Partial<HubspotConfig>) {
  return {
    /** Archives up to 100 communications (`batch/archive`, 204; ids HubSpot no longer has are fine). */
    async archiveCommunications(accessToken: string, ids: string[]) {
      const answer = await call(configOf(given), "message log removal", "/crm/v3/objects/communications/batch/archive", {
        method: "POST",
        token: accessToken,
        body: { inputs: ids.map((id) => ({ id })) },
      });
      if (answer.status < 200 || answer.status > 299) throw failureOf(answer, "message log removal");
    },
    /** The communications carrying one of these Jumbe message ids (`jumbe_message_id IN …`): id and message id each. */
    async findLoggedMessages(accessToken: string, messageIds: string[]): Promise<{ id: string; messageId: string }[]> {
      const { json } = await callJson(configOf(given), "message log search", "/crm/v3/objects/communications/search", {
        method: "POST",
        token: accessToken,
        body: {
          filterGroups: [{ filters: [{ propertyName: "jumbe_message_id", operator: "IN", values: messageIds }] }],
          properties: ["jumbe_message_id"],
          limit: 200,
        },
      });
      return (Array.isArray(json.results) ? json.results : []).filter(isObject).map((r) => ({
        id: stringOr(r.id, ""),
        messageId: isObject(r.properties) ? stringOr(r.properties.jumbe_message_id, "") : "",
      }));
    },
    /** Up to 100 WhatsApp messages as communications in one call; answers their ids in the order sent. */
    async logWhatsappMessages(
      accessToken: string,
      inputs: { contactId: string; body: string; at: Date; jumbeMessageId?: string }[],
    ): Promise<string[]> {
      const { json } = await callJson(configOf(given), "message log", "/crm/v3/objects/communications/batch/create", {
        method: "POST",
        token: accessToken,
        body: {
          inputs: inputs.map((input) => ({
            properties: {
              hs_communication_channel_type: "WHATS_APP",
              hs_communication_logged_from: "CRM",
              hs_communication_body: input.body,
              hs_timestamp: input.at.toISOString(),
              ...(input.jumbeMessageId ? { jumbe_message_id: input.jumbeMessageId } : {}),
            },
            associations: [{ to: { id: input.contactId }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 81 }] }],
          })),
        },
      });
      return (Array.isArray(json.results) ? json.results : []).map((r) => (isObject(r) ? stringOr(r.id, "") : ""));
    },
    /** A WhatsApp message on the contact's timeline: a communication (channel WHATS_APP) associated to it. */
    async logWhatsappMessage(accessToken: string, input: { contactId: string; body: string; at: Date }) {
      const { json } = await callJson(configOf(given), "message log", "/crm/v3/objects/communications", {
        method: "POST",
        token: accessToken,
        body: {
          properties: {
            hs_communication_channel_type: "WHATS_APP",
            hs_communication_logged_from: "CRM",
            hs_communication_body: input.body,
            hs_timestamp: input.at.toISOString(),
          },
          associations: [{ to: { id: input.contactId }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 81 }] }],
        },
      });
      return { id: stringOr(json.id, "") };
    },
  };
}

/** The portal's properties and property groups for Jumbe's fields. */
function hubspotProperties(given: Partial<HubspotConfig>) {
  return {
    /** The names of the portal's properties of an object (HubSpot's own and the portal's). */
    async propertyNames(accessToken: string, objectType: HubspotObjectType): Promise<Set<string>> {
      const { json } = await callJson(configOf(given), "property list", `/crm/v3/properties/${objectType}`, {
        method: "GET",
        token: accessToken,
      });
      const results = Array.isArray(json.results) ? json.results.filter(isObject) : [];
      return new Set(results.filter((p) => p.archived !== true).map((p) => stringOr(p.name, "")));
    },
    /** Creates a property group; one of that name already there (409) is fine. */
    async createPropertyGroup(accessToken: string, objectType: HubspotObjectType, group: { name: string; label: string }) {
      const config = configOf(given);
      const answer = await call(config, "property group create", `/crm/v3/properties/${objectType}/groups`, {
        method: "POST",
        token: accessToken,
        body: group,
      });
      if (answer.status === 409) return "exists" as const;
      if (answer.status !== 201 && answer.status !== 200) throw failureOf(answer, "property group create");
      return "created" as const;
    },
    /** Creates a property; one of that name already there (409) is fine. */
    async createProperty(accessToken: string, objectType: HubspotObjectType, property: HubspotPropertyCreate) {
      const config = configOf(given);
      const answer = await call(config, "property create", `/crm/v3/properties/${objectType}`, {
        method: "POST",
        token: accessToken,
        body: property,
      });
      if (answer.status === 409) return "exists" as const;
      if (answer.status !== 201 && answer.status !== 200) throw failureOf(answer, "property create");
      return "created" as const;
    },
  };
}

/** The portal's contact lists and their members. */
function hubspotLists(given: Partial<HubspotConfig>) {
  return {
    /** The portal's contact lists whose name contains `query` (all with ""). */
    async searchLists(accessToken: string, query = "", offset = 0): Promise<HubspotPage<HubspotList> & { hasMore: boolean }> {
      const { json } = await callJson(configOf(given), "list search", "/crm/v3/lists/search", {
        method: "POST",
        token: accessToken,
        body: { query, offset, count: 100 },
      });
      const lists = (Array.isArray(json.lists) ? json.lists : []).filter(isObject).map((list) => ({
        listId: String(list.listId),
        name: stringOr(list.name, ""),
        processingType: stringOr(list.processingType, ""),
        size: Number((isObject(list.additionalProperties) ? list.additionalProperties.hs_list_size : undefined) ?? 0) || 0,
      }));
      return { items: lists, hasMore: json.hasMore === true, after: json.hasMore === true ? String(json.offset) : undefined };
    },
    /** One page of a list's member contact ids. */
    async listMembers(accessToken: string, listId: string, after?: string): Promise<HubspotPage<string>> {
      const query = new URLSearchParams({ limit: "250", ...(after ? { after } : {}) });
      const { json } = await callJson(
        configOf(given),
        "list memberships",
        `/crm/v3/lists/${encodeURIComponent(listId)}/memberships?${query}`,
        { method: "GET", token: accessToken },
      );
      const ids = (Array.isArray(json.results) ? json.results : [])
        .map((r) => (isObject(r) ? String(r.recordId ?? "") : ""))
        .filter(Boolean);
      return { items: ids, after: nextCursor(json), total: typeof json.total === "number" ? json.total : undefined };
    },
  };
}

/** HubSpot's API with Jumbe's app; configuration from env() unless given. */
export function hubspotClient(given: Partial<HubspotConfig> = {}) {
  return {
    ...hubspotOauth(given),
    ...hubspotContacts(given),
    ...hubspotCommunications(given),
    ...hubspotProperties(given),
    ...hubspotLists(given),
  };
}

export type HubspotClient = ReturnType<typeof hubspotClient>;

/**
 * Calls HubSpot with a live access token: refreshed first when it ends within a minute (HubSpot's
 * advice: by `expires_in`), and once more after a 401 (a token expired early or revoked). `save`
 * stores new tokens before the call goes on.
 */
export async function withHubspotToken<T>(
  client: HubspotClient,
  tokens: HubspotTokens,
  save: (tokens: HubspotTokens) => Promise<void>,
  work: (accessToken: string) => Promise<T>,
  now = Date.now(),
): Promise<T> {
  let current = tokens;
  const renew = async () => {
    current = await client.refresh(current.refreshToken);
    await save(current);
  };
  if (current.expiresAt.getTime() - now < HUBSPOT_REFRESH_MARGIN_MS) await renew();
  try {
    return await work(current.accessToken);
  } catch (error) {
    if (!(error instanceof HubspotError) || error.kind !== "expired_token") throw error;
    await renew();
    return work(current.accessToken);
  }
}
