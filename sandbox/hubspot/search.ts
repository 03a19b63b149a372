import { propertyOf } from "./shapes";
import type { CrmRecord } from "./state";

/** HubSpot's search operators the sandbox evaluates. */
export const OPERATORS = [
  "EQ",
  "NEQ",
  "LT",
  "LTE",
  "GT",
  "GTE",
  "BETWEEN",
  "IN",
  "NOT_IN",
  "HAS_PROPERTY",
  "NOT_HAS_PROPERTY",
  "CONTAINS_TOKEN",
  "NOT_CONTAINS_TOKEN",
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Filter {
  propertyName: string;
  operator: Operator;
  value?: string;
  highValue?: string;
  values?: string[];
}

export interface SearchRequest {
  filterGroups: { filters: Filter[] }[];
  query?: string;
  properties?: string[];
  sorts?: { propertyName: string; direction: "ASCENDING" | "DESCENDING" }[];
  limit: number;
  after: number;
}

/** HubSpot's limits: 5 groups, 6 filters in a group, 18 in all; 200 results a page. */
export const SEARCH_LIMITS = { groups: 5, filtersPerGroup: 6, filters: 18, pageSize: 200, defaultPageSize: 10 };

export class SearchInputError extends Error {}

const text = (value: unknown) =>
  typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;

function filterFrom(raw: unknown): Filter {
  const f = (raw ?? {}) as Record<string, unknown>;
  if (typeof f.propertyName !== "string" || !f.propertyName) throw new SearchInputError("A filter needs a propertyName.");
  const operator = typeof f.operator === "string" ? f.operator : "EQ";
  if (!(OPERATORS as readonly string[]).includes(operator))
    throw new SearchInputError(`Unable to process JSON: unknown operator "${operator}" (expected one of ${OPERATORS.join(", ")}).`);
  const values = Array.isArray(f.values) ? f.values.map(text).filter((v): v is string => v !== undefined) : undefined;
  const filter: Filter = {
    propertyName: f.propertyName,
    operator: operator as Operator,
    value: text(f.value),
    highValue: text(f.highValue),
    values,
  };
  const needsValue = !["HAS_PROPERTY", "NOT_HAS_PROPERTY", "IN", "NOT_IN"].includes(operator);
  if (needsValue && filter.value === undefined) throw new SearchInputError(`The ${operator} filter on ${f.propertyName} needs a value.`);
  if ((operator === "IN" || operator === "NOT_IN") && !values?.length) throw new SearchInputError(`The ${operator} filter needs values.`);
  if (operator === "BETWEEN" && filter.highValue === undefined) throw new SearchInputError("The BETWEEN filter needs a highValue.");
  return filter;
}

/** The search body, checked as HubSpot checks it (SearchInputError: a 400 VALIDATION_ERROR). */
export function searchRequestFrom(body: Record<string, unknown>): SearchRequest {
  const groups = Array.isArray(body.filterGroups) ? body.filterGroups : [];
  if (groups.length > SEARCH_LIMITS.groups) throw new SearchInputError(`Too many filter groups: at most ${SEARCH_LIMITS.groups}.`);
  const filterGroups = groups.map((group) => {
    const filters = Array.isArray((group as { filters?: unknown })?.filters) ? (group as { filters: unknown[] }).filters : [];
    if (filters.length > SEARCH_LIMITS.filtersPerGroup)
      throw new SearchInputError(`Too many filters in a group: at most ${SEARCH_LIMITS.filtersPerGroup}.`);
    return { filters: filters.map(filterFrom) };
  });
  if (filterGroups.reduce((n, g) => n + g.filters.length, 0) > SEARCH_LIMITS.filters)
    throw new SearchInputError(`Too many filters: at most ${SEARCH_LIMITS.filters} in all.`);
  const limit = body.limit === undefined ? SEARCH_LIMITS.defaultPageSize : Number(body.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMITS.pageSize)
    throw new SearchInputError(`limit must be a whole number from 1 to ${SEARCH_LIMITS.pageSize}.`);
  const after = body.after === undefined || body.after === "" ? 0 : Number(body.after);
  if (!Number.isInteger(after) || after < 0) throw new SearchInputError("after must be the paging cursor of an earlier answer.");
  const properties = Array.isArray(body.properties) ? body.properties.filter((p): p is string => typeof p === "string") : undefined;
  const sorts = Array.isArray(body.sorts)
    ? body.sorts.map((s) => {
        const sort = (typeof s === "string" ? { propertyName: s } : (s ?? {})) as Record<string, unknown>;
        return {
          propertyName: String(sort.propertyName ?? "hs_object_id"),
          direction: sort.direction === "DESCENDING" ? "DESCENDING" : "ASCENDING",
        } as const;
      })
    : undefined;
  return { filterGroups, query: typeof body.query === "string" ? body.query : undefined, properties, sorts, limit, after };
}

/** Words as HubSpot's tokenizer sees them: letters and digits, lower case (an e-mail is also its parts). */
function tokensOf(value: string): string[] {
  const lower = value.toLowerCase();
  return [lower, ...lower.split(/[^\p{L}\p{N}]+/u).filter(Boolean)];
}

/** CONTAINS_TOKEN: a whole token equals the value, or matches it with `*` as a wildcard. */
function containsToken(value: string, wanted: string) {
  const pattern = wanted.toLowerCase();
  if (!pattern.includes("*")) return tokensOf(value).includes(pattern);
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return tokensOf(value).some((token) => regex.test(token));
}

/** A number for comparisons: the value itself, or a date's milliseconds. */
function comparable(value: string): number | string {
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? value.toLowerCase() : date;
}

export function matchesFilter(record: CrmRecord, filter: Filter): boolean {
  const actual = propertyOf(record, filter.propertyName);
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  switch (filter.operator) {
    case "HAS_PROPERTY":
      return actual !== undefined;
    case "NOT_HAS_PROPERTY":
      return actual === undefined;
    case "EQ":
      return actual !== undefined && same(actual, filter.value!);
    case "NEQ":
      return actual === undefined || !same(actual, filter.value!);
    case "IN":
      return actual !== undefined && filter.values!.some((v) => same(actual, v));
    case "NOT_IN":
      return actual === undefined || !filter.values!.some((v) => same(actual, v));
    case "CONTAINS_TOKEN":
      return actual !== undefined && containsToken(actual, filter.value!);
    case "NOT_CONTAINS_TOKEN":
      return actual === undefined || !containsToken(actual, filter.value!);
    default:
      return actual !== undefined && compares(comparable(actual), filter);
  }
}

function compares(actual: number | string, filter: Filter) {
  const low = comparable(filter.value!);
  switch (filter.operator) {
    case "LT":
      return actual < low;
    case "LTE":
      return actual <= low;
    case "GT":
      return actual > low;
    case "GTE":
      return actual >= low;
    case "BETWEEN":
      return actual >= low && actual <= comparable(filter.highValue!);
    default:
      return false;
  }
}

/** `query`: a word that begins one of the default searchable properties' words. */
function matchesQuery(record: CrmRecord, query: string) {
  const wanted = query.trim().toLowerCase();
  if (!wanted) return true;
  return ["email", "firstname", "lastname", "phone", "mobilephone", "company"].some((name) => {
    const value = propertyOf(record, name);
    return value !== undefined && tokensOf(value).some((token) => token.startsWith(wanted));
  });
}

/** Filter groups OR together, filters in a group AND; no groups matches everything. */
export function matches(record: CrmRecord, request: Pick<SearchRequest, "filterGroups" | "query">) {
  const groupsMatch =
    request.filterGroups.length === 0 || request.filterGroups.some((g) => g.filters.every((f) => matchesFilter(record, f)));
  return groupsMatch && (request.query === undefined || matchesQuery(record, request.query));
}

/** One page of a search: the matching records (by id, or by the first sort), the total and the next cursor. */
export function searchPage<T extends CrmRecord>(records: T[], request: SearchRequest) {
  const sort = request.sorts?.[0];
  // Each record's sort key worked out once, not at every comparison.
  const found = records
    .filter((record) => matches(record, request))
    .map((record) => ({ record, id: Number(record.id), key: sort ? comparable(propertyOf(record, sort.propertyName) ?? "") : 0 }));
  found.sort((a, b) => {
    if (!sort) return a.id - b.id;
    const order = a.key < b.key ? -1 : a.key > b.key ? 1 : a.id - b.id;
    return sort.direction === "DESCENDING" ? -order : order;
  });
  const page = found.slice(request.after, request.after + request.limit).map((f) => f.record);
  const next = request.after + request.limit;
  return { total: found.length, results: page, after: next < found.length ? String(next) : undefined };
}
