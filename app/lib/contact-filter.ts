/** Which contacts a list, an export or a segment means (the domain turns it into SQL). */
export interface ContactFilter {
  search?: string;
  tag?: string;
  optIn?: "opted_in" | "opted_out" | "unknown";
  /** Seen (wrote to the business) since this instant, or never seen ("never"). */
  seenSince?: Date;
  neverSeen?: boolean;
  language?: string;
  /** Came from a Click-to-WhatsApp ad: that ad's id, or "any" ad (decision 154). */
  ad?: string;
}

/** The Contacts tab's filter as the URL carries it: q, tag, optin, seen (7, 30, 90 or never). */
export interface ContactFilterParams {
  q?: string;
  tag?: string;
  optin?: "opted_in" | "opted_out" | "unknown";
  seen?: "7" | "30" | "90" | "never";
  /** An ad's id, or "any". */
  ad?: string;
}

const OPT_IN = ["opted_in", "opted_out", "unknown"] as const;
const SEEN = ["7", "30", "90", "never"] as const;
const SEARCH_MAX = 200;
/** An ad's (or post's) id as Meta gives it, or "any". */
const AD = /^(any|[A-Za-z0-9_.-]{1,128})$/;

/** Reads the filter from a query string; values it does not know are dropped (the page shows everyone). */
export function readContactFilterParams(params: URLSearchParams): ContactFilterParams {
  const q = params.get("q")?.trim().slice(0, SEARCH_MAX);
  const tag = params.get("tag")?.trim().toLowerCase().slice(0, 40);
  const optin = params.get("optin");
  const seen = params.get("seen");
  const ad = params.get("ad")?.trim();
  return {
    ...(q ? { q } : {}),
    ...(tag ? { tag } : {}),
    ...(OPT_IN.includes(optin as never) ? { optin: optin as ContactFilterParams["optin"] } : {}),
    ...(SEEN.includes(seen as never) ? { seen: seen as ContactFilterParams["seen"] } : {}),
    ...(ad && AD.test(ad) ? { ad } : {}),
  };
}

/** The params as the domain's filter; `now` fixes "the last N days". */
export function contactFilterOf(params: ContactFilterParams, now = new Date()): ContactFilter {
  const days = params.seen && params.seen !== "never" ? Number(params.seen) : 0;
  return {
    search: params.q,
    tag: params.tag,
    optIn: params.optin,
    seenSince: days ? new Date(now.getTime() - days * 24 * 60 * 60 * 1000) : undefined,
    neverSeen: params.seen === "never" || undefined,
    ad: params.ad,
  };
}

/** The params as a query string (no leading `?`), in a fixed order. */
export function contactFilterQuery(params: ContactFilterParams) {
  const query = new URLSearchParams();
  for (const key of ["q", "tag", "optin", "seen", "ad"] as const) if (params[key]) query.set(key, params[key]!);
  return query.toString();
}

export const isFiltered = (params: ContactFilterParams) => !!(params.q || params.tag || params.optin || params.seen || params.ad);
