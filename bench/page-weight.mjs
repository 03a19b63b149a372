// Page weight: the HTML, CSS and JavaScript a first visit to each page downloads.
//
// JavaScript is every <script src> and <link rel="modulepreload"> in the server-rendered HTML,
// plus the modules the inline bootstrap script imports (React Router preloads all of them).
// Route modules fetched later, on navigation, are not counted.
//
// Every document and file is fetched twice and measured as it crossed the wire: once as a browser
// over HTTPS asks (Accept-Encoding "gzip, deflate, br": the build's assets are precompressed at
// brotli quality 11, documents compressed on the fly) and once as a gzip-only client. The budget
// applies to the first, what Jumbe's users download (decision 020); the second is reported beside it.
import zlib from "node:zlib";
import { request } from "./lib/http.mjs";

export const JS_BUDGET_BYTES = 150_000;

/**
 * The JavaScript budgets of a first visit, in gzip bytes (issue 42, decision 060): a page sent without
 * React (`document`: only its own small script) and, for now, every hydrated page at decision 020's
 * 150 kB in brotli (`JS_BUDGET_BYTES`).
 */
export const DOCUMENT_JS_BUDGET_GZIP = 15_000;

/**
 * Hydrated pages, in gzip bytes: the goal of a first visit (issue 42: 120 kB, against about 106 kB of
 * React and React Router alone), the ceiling every page is held under meanwhile, and what a page may
 * add when it is opened after the Overview (its own files, the rest being cached).
 */
export const APP_JS_GOAL_GZIP = 120_000;
export const APP_JS_CEILING_GZIP = 140_000;
export const NEXT_PAGE_JS_BUDGET_GZIP = 25_000;

/**
 * What a hydrated page's words add, in gzip bytes, in each language (issue 43, decision 072): the
 * words files of its routes (`/assets/words-<locale>-<hash>/…`). The goal above is for the code; the
 * words are held to this, and the ceiling holds the two together.
 */
export const WORDS_JS_BUDGET_GZIP = 5_000;
export const LOCALES = ["en", "sw", "fr"];
const isWordsFile = (url) => /\/assets\/words-/.test(url);

/**
 * The HTML a phone downloads for a page it opens by default, before compression (issue 42): lists
 * page at phone-friendly sizes and details come on demand.
 */
export const HTML_BUDGET_RAW = 40_000;

/** Pages and who must be signed in to see them (spec section 2); `document`: rendered without React. */
export const PAGES = [
  { path: "/login", as: null, document: true },
  { path: "/signup", as: null, document: true },
  { path: "/verify-otp", as: null, document: true },
  { path: "/forgot-password", as: null, document: true },
  { path: "/dashboard", as: "individual" },
  // Settings forms, lists and reference pages: documents without React too (decision 066).
  { path: "/profile", as: "individual", document: true },
  { path: "/change-password", as: "individual", document: true },
  { path: "/get-started", as: "individual" },
  // Embedded Signup is the page's own script (app/assets/embedded-signup.js).
  { path: "/whatsapp", as: "individual", document: true },
  { path: "/activity", as: "individual", document: true },
  { path: "/developers", as: "individual", document: true },
  { path: "/developers/api/sendMessage", as: "individual", document: true },
  { path: "/developers/errors", as: "individual", document: true },
  { path: "/search?q=a", as: "individual" },
  // Advanced Analytics, on its default period (the last 7 days).
  { path: "/analytics", as: "individual", document: true },
  { path: "/templates", as: "individual", document: true },
  // The editor: the server redraws its preview and example fields as they are typed (live.js, data-live-post).
  { path: "/templates/new", as: "individual", document: true },
  // The preview follows the typing through its form's script (live.js, data-live-form).
  { path: "/preview", as: "individual", document: true },
  { path: "/messaging/contacts", as: "individual", document: true },
  // The Contacts tab's own pages, filled by fillContactPages (`:contact` and `:import` name its records).
  { path: "/messaging/contacts/:contact", as: "individual", document: true },
  { path: "/messaging/contacts/fields", as: "individual", document: true },
  { path: "/messaging/contacts/segments", as: "individual", document: true },
  { path: "/messaging/contacts/import", as: "individual", document: true },
  { path: "/messaging/contacts/import/:import", as: "individual" },
  // The Campaigns and Broadcast History tabs, the forms, and a campaign's page (`:campaign`, by fillCampaignPages).
  { path: "/messaging", as: "individual", document: true },
  { path: "/messaging/broadcasts", as: "individual", document: true },
  // A chosen template's placeholders are redrawn from the server (live.js, data-redraws).
  { path: "/messaging/campaigns/new", as: "individual", document: true },
  { path: "/messaging/broadcasts/new", as: "individual", document: true },
  // Its live figures: the page's own script follows the events route (app/assets/live.js).
  { path: "/messaging/campaigns/:campaign", as: "individual", document: true },
  // The inbox: the list, and a conversation (`:conversation`, by fillInboxPages).
  { path: "/chat", as: "individual", document: true },
  { path: "/chat/new", as: "individual", document: true },
  { path: "/chat/:conversation", as: "individual", document: true },
  // Billing & Subscription, and its top-up dialog (server-rendered open).
  { path: "/billing", as: "individual", document: true },
  { path: "/billing?dialog=topup", as: "individual", document: true },
  // The admin console: documents without React (decision 063), with the kit's two scripts.
  { path: "/admin", as: "admin", document: true },
  { path: "/admin/users", as: "admin", document: true },
  { path: "/admin/billing", as: "admin", document: true },
  { path: "/admin/whatsapp", as: "admin", document: true },
  { path: "/admin/system", as: "admin", document: true },
  { path: "/admin/templates", as: "admin", document: true },
  { path: "/admin/audit", as: "admin", document: true },
];

// A small import of the demo contacts' own numbers (each skipped: no contact changes) and one bad number.
const DEMO_IMPORT_CSV = [
  "Name,Phone,Tags",
  "Amina Hassan,0712 345 678,vip",
  "Brian Mwangi,+254 723 456 789,",
  "Chebet Koech,254734567890,nairobi",
  "Not A Number,12345,",
  "",
].join("\r\n");

/**
 * Gives the demo business what the contact pages show, through the pages' own forms, once (a
 * second run finds it): a custom field, a saved segment and a finished CSV import. Answers the ids
 * the parameterised paths need: the first contact of the Contacts tab and that import.
 */
export async function fillContactPages(baseUrl, cookie) {
  const get = async (path) => {
    const response = await request(`${baseUrl}${path}`, { headers: { Cookie: cookie, Accept: "text/html" } });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return response.body.toString("utf8");
  };
  const post = async (path, body, contentType = "application/x-www-form-urlencoded") => {
    const response = await request(`${baseUrl}${path}`, {
      method: "POST",
      headers: { Cookie: cookie, Origin: baseUrl, "Content-Type": contentType, "Content-Length": String(Buffer.byteLength(body)) },
      body,
    });
    if (response.status !== 302 && response.status !== 303)
      throw new Error(`POST ${path} answered ${response.status}: ${response.body.toString("utf8").slice(0, 200)}`);
    return response.headers.location ?? "";
  };
  const uuid = "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";

  const contact = new RegExp(`href="/messaging/contacts/${uuid}"`).exec(await get("/messaging/contacts"))?.[1];
  if (!contact) throw new Error("the demo business has no contacts");
  if (!(await get("/messaging/contacts/fields")).includes(">county</code>"))
    await post(
      "/messaging/contacts/fields",
      new URLSearchParams({ intent: "add", label: "County", key: "county", type: "text" }).toString(),
    );
  if (!(await get("/messaging/contacts/segments")).includes(">Seen this month</a>"))
    await post("/messaging/contacts/segments", new URLSearchParams({ intent: "save", name: "Seen this month", seen: "30" }).toString());

  let imported = new RegExp(`href="/messaging/contacts/import/${uuid}"`).exec(await get("/messaging/contacts/import"))?.[1];
  if (!imported) {
    const boundary = `----pageweight${Date.now()}`;
    const file = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="demo-contacts.csv"\r\nContent-Type: text/csv\r\n\r\n${DEMO_IMPORT_CSV}\r\n--${boundary}--\r\n`;
    const location = await post("/messaging/contacts/import", file, `multipart/form-data; boundary=${boundary}`);
    imported = new RegExp(`/messaging/contacts/import/${uuid}`).exec(location)?.[1];
    if (!imported) throw new Error(`the upload went to ${location}`);
    const mapping = { column0: "name", column1: "phone", column2: "tags", duplicates: "skip", consentEvidence: "" };
    await post(`/messaging/contacts/import/${imported}`, new URLSearchParams(mapping).toString());
  }
  // The report page, once the import's job has run.
  for (let tries = 0; !/Import (finished|failed)/.test(await get(`/messaging/contacts/import/${imported}`)); tries++) {
    if (tries === 100) throw new Error("the demo import did not finish in 20 s");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { contact, import: imported };
}

/**
 * The campaign pages' record: the demo business's first campaign on the Campaigns tab (the demo data
 * holds a completed one, a scheduled one, a draft and a cancelled broadcast).
 */
export async function fillCampaignPages(baseUrl, cookie) {
  const response = await request(`${baseUrl}/messaging`, { headers: { Cookie: cookie, Accept: "text/html" } });
  if (response.status !== 200) throw new Error(`GET /messaging answered ${response.status}`);
  const uuid = "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";
  const campaign = new RegExp(`href="/messaging/campaigns/${uuid}"`).exec(response.body.toString("utf8"))?.[1];
  if (!campaign) throw new Error("the demo business has no campaigns");
  return { campaign };
}

/** The demo inbox's first conversation (the `:conversation` of a thread page). */
export async function fillInboxPages(baseUrl, cookie) {
  const response = await request(`${baseUrl}/chat`, { headers: { Cookie: cookie, Accept: "text/html" } });
  if (response.status !== 200) throw new Error(`GET /chat answered ${response.status}`);
  const conversation = /data-conversation="([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/.exec(
    response.body.toString("utf8"),
  )?.[1];
  if (!conversation) throw new Error("the demo business has no conversations");
  return { conversation };
}

function decode(response) {
  const encoding = response.headers["content-encoding"];
  if (encoding === "gzip") return zlib.gunzipSync(response.body);
  if (encoding === "br") return zlib.brotliDecompressSync(response.body);
  if (encoding === "deflate") return zlib.inflateSync(response.body);
  return response.body;
}

/** Fetches one URL as a browser over HTTPS and as a gzip-only client would, and measures both. */
async function measure(url, headers) {
  const [response, brotli] = await Promise.all([
    request(url, { headers: { "Accept-Encoding": "gzip", ...headers } }),
    request(url, { headers: { "Accept-Encoding": "gzip, deflate, br", ...headers } }),
  ]);
  const raw = decode(response);
  return {
    status: response.status,
    location: response.headers.location,
    encoding: response.headers["content-encoding"] ?? "identity",
    brotliEncoding: brotli.headers["content-encoding"] ?? "identity",
    raw,
    rawBytes: raw.length,
    gzipBytes: response.body.length,
    brotliBytes: brotli.body.length,
  };
}

const attribute = (tag, name) =>
  tag
    .match(new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i"))
    ?.slice(1)
    .find((v) => v !== undefined);

/** Script and stylesheet URLs of one HTML document, in order, without duplicates. */
export function assetUrls(html) {
  const scripts = new Set();
  const styles = new Set();
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attribute(tag, "src");
    if (src) scripts.add(src);
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = (attribute(tag, "rel") ?? "").toLowerCase().split(/\s+/);
    const href = attribute(tag, "href");
    if (!href) continue;
    if (rel.includes("modulepreload")) scripts.add(href);
    if (rel.includes("stylesheet")) styles.add(href);
  }
  // Static imports in the inline bootstrap module (`import * as route0 from "/assets/...js"`).
  for (const [, specifier] of html.matchAll(/\bimport\s*(?:[^"'();]*?\bfrom\s*)?\(?\s*["'](\/[^"']+\.m?js)["']/g)) scripts.add(specifier);
  return { scripts: [...scripts], styles: [...styles] };
}

function sum(items, key) {
  return items.reduce((total, item) => total + item[key], 0);
}

/**
 * Measures every page. `cookies` maps a role ("individual", "admin") to its session cookie.
 * Assets shared between pages are fetched once.
 */
export async function measurePages(baseUrl, cookies) {
  const assetCache = new Map();
  const asset = (href) => {
    const url = new URL(href, baseUrl).href;
    if (!assetCache.has(url)) assetCache.set(url, measure(url, {}));
    return assetCache.get(url);
  };

  let records = {};
  let unfilled = null;
  try {
    records = await fillContactPages(baseUrl, cookies.individual);
  } catch (error) {
    unfilled = `the contact pages could not be filled: ${error.message}`;
  }
  try {
    Object.assign(records, await fillCampaignPages(baseUrl, cookies.individual));
  } catch (error) {
    unfilled = `the campaign pages could not be filled: ${error.message}`;
  }
  try {
    Object.assign(records, await fillInboxPages(baseUrl, cookies.individual));
  } catch (error) {
    unfilled = `the inbox pages could not be filled: ${error.message}`;
  }

  const pages = [];
  for (const page of PAGES) {
    const headers = { Accept: "text/html" };
    if (page.as) headers.Cookie = cookies[page.as];
    const named = page.path.match(/:(\w+)/)?.[1];
    if (named && !records[named]) {
      pages.push({ path: page.path, as: page.as, error: unfilled ?? `no record for :${named}` });
      continue;
    }
    const document = await measure(`${baseUrl}${named ? page.path.replace(`:${named}`, records[named]) : page.path}`, headers);
    if (document.status !== 200) {
      pages.push({ path: page.path, as: page.as, error: `HTTP ${document.status}${document.location ? ` -> ${document.location}` : ""}` });
      continue;
    }
    const html = document.raw.toString("utf8");
    const { scripts, styles } = assetUrls(html);
    // What the list says a page is, the page must be: a document carries no router context, a hydrated page does.
    const hydrated = html.includes("window.__reactRouterContext");
    if (hydrated === Boolean(page.document)) {
      pages.push({
        path: page.path,
        as: page.as,
        error: page.document ? "expected a document without React, got a hydrated page" : "expected a hydrated page, got a document",
      });
      continue;
    }
    const js = await Promise.all(scripts.map(asset));
    const css = await Promise.all(styles.map(asset));
    const words = js.filter((_, index) => isWordsFile(scripts[index]));
    // The same page's words in each language (`?lng=` for the one request).
    const wordsByLocale = {};
    if (hydrated)
      for (const locale of LOCALES) {
        const path = named ? page.path.replace(`:${named}`, records[named]) : page.path;
        const inLocale = await measure(`${baseUrl}${path}${path.includes("?") ? "&" : "?"}lng=${locale}`, headers);
        const urls = assetUrls(inLocale.raw.toString("utf8")).scripts.filter(isWordsFile);
        wordsByLocale[locale] = sum(await Promise.all(urls.map(asset)), "gzipBytes");
      }
    const failed = [...js, ...css].filter((a) => a.status !== 200);
    pages.push({
      path: page.path,
      as: page.as,
      html: { rawBytes: document.rawBytes, gzipBytes: document.gzipBytes, brotliBytes: document.brotliBytes },
      js: {
        files: js.length,
        rawBytes: sum(js, "rawBytes"),
        gzipBytes: sum(js, "gzipBytes"),
        brotliBytes: sum(js, "brotliBytes"),
        urls: scripts,
        ...(hydrated ? { wordsGzipBytes: sum(words, "gzipBytes"), wordsByLocale } : {}),
      },
      css: { files: css.length, rawBytes: sum(css, "rawBytes"), gzipBytes: sum(css, "gzipBytes"), brotliBytes: sum(css, "brotliBytes") },
      ...(page.document ? { document: true } : {}),
      overBudget: page.document
        ? sum(js, "gzipBytes") > DOCUMENT_JS_BUDGET_GZIP
        : sum(js, "brotliBytes") > JS_BUDGET_BYTES || sum(js, "gzipBytes") > APP_JS_CEILING_GZIP,
      overGoal: !page.document && sum(js, "gzipBytes") - sum(words, "gzipBytes") > APP_JS_GOAL_GZIP,
      overWordsBudget: Object.values(wordsByLocale).some((bytes) => bytes > WORDS_JS_BUDGET_GZIP),
      overHtmlBudget: document.rawBytes > HTML_BUDGET_RAW,
      ...(failed.length ? { error: `${failed.length} asset(s) did not answer 200` } : {}),
    });
  }
  // Opened after the Overview: the files it did not load already (the browser has those cached).
  const overview = new Set(pages.find((p) => p.path === "/dashboard")?.js?.urls ?? []);
  for (const page of pages) {
    if (page.document || !page.js || !overview.size) continue;
    const added = page.js.urls.filter((url) => !overview.has(url));
    const sizes = await Promise.all(added.map(asset));
    page.js.afterOverviewGzipBytes = sum(sizes, "gzipBytes");
    if (page.js.afterOverviewGzipBytes > NEXT_PAGE_JS_BUDGET_GZIP) page.overBudget = true;
  }
  return {
    budgetBytes: JS_BUDGET_BYTES,
    documentBudgetGzip: DOCUMENT_JS_BUDGET_GZIP,
    appGoalGzip: APP_JS_GOAL_GZIP,
    appCeilingGzip: APP_JS_CEILING_GZIP,
    wordsBudgetGzip: WORDS_JS_BUDGET_GZIP,
    nextPageBudgetGzip: NEXT_PAGE_JS_BUDGET_GZIP,
    htmlBudgetRaw: HTML_BUDGET_RAW,
    pages,
  };
}
