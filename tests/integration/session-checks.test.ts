import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createSession } from "~/.server/domains/auth/sessions";
import { fileStorage } from "~/.server/infrastructure/storage";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { appFetch, flatRoutes } from "../support/in-process-app";
import { META } from "../support/accounts";
import { APP, cookieHeader } from "../support/http";
import { tableDigests } from "../support/database";
import { demoData } from "../support/demo-snapshot";
import { connectedNumber } from "../support/whatsapp";

/**
 * Issue 38, item 2: every route applies the same session checks (app/.server/domains/auth/guards.ts,
 * `sessionCheck`), resource routes included. Every route of app/routes.ts is asked, as a browser
 * navigation and as a script (a fetch, an EventSource), and every route with an action is posted to,
 * with a session the checks refuse: a member whose organisation requires two-factor sign-in and who
 * signs in with a password only, and a member of a suspended organisation. Apart from OPEN below,
 * no route may answer 2xx, no post may get past the guard, and nothing in the database may change.
 * A route added to app/routes.ts is walked too: one that reads the session without the checks fails here.
 * The requests go to the application's own React Router in this process, so the file runs on PGlite
 * and PostgreSQL alike.
 */

/** Routes that may answer such a session as they like (but never with a 5xx), each with why. */
const OPEN: [patterns: string[], why: string][] = [
  [["/settings/security"], "where the member sets two-factor up (in the two-factor walk; a suspended session is a visitor there)"],
  [
    ["/", "/privacy-policy", "/privacy", "/terms-of-service", "/terms", "/robots.txt", "/sitemap.xml", "/manifest.webmanifest", "/dev/ui"],
    "public pages, the same to anyone",
  ],
  [
    [
      "/login",
      "/signin",
      "/login/two-factor",
      "/login/email-code",
      "/signup",
      "/verify-otp",
      "/forgot-password",
      "/reset-password",
      "/invitations/:token",
    ],
    "signing in and up: a visitor's forms (a session is sent on, and they show none of its data)",
  ],
  [
    [
      "/api/auth/signin",
      "/api/auth/two-factor",
      "/api/auth/email-code",
      "/api/auth/signup",
      "/api/auth/verify-otp",
      "/api/auth/resend-otp",
    ],
    "signing in and up as JSON: POST only, for visitors",
  ],
  [["/logout", "/api/auth/logout"], "signing out, which any session may do (not posted here: it would end the walk's session)"],
  [["/language"], "choosing a language: a cookie any visitor or session may set (decision 071)"],
  [
    [
      "/webhooks/mpesa/stk/:paymentId/:secret",
      "/webhooks/paybill/:secret/:step",
      "/webhooks/mpesa/b2c/:payoutId/:secret/:kind",
      "/webhooks/paystack",
      "/webhooks/pay/:token/stk",
      "/webhooks/pay/:token/c2b/:step",
    ],
    "payment providers' callbacks: a secret address or a signature, never a session",
  ],
  [
    ["/webhooks/sms/:token/:kind"],
    "Africa's Talking's callbacks: a secret address bound to one organisation, never a session (decision 148)",
  ],
  [["/api/v1/*", "/metrics"], "an API key or a bearer token, never the session cookie"],
  [["/catalog-images/:file"], "a product's picture, public for Meta's catalog at an unguessable name; reads no session (decision 141)"],
  [["/*"], "any other address goes home, whoever asks"],
];
const OPEN_ROUTES = new Map(OPEN.flatMap(([patterns, why]) => patterns.map((pattern) => [pattern, why] as const)));

const ROUTES = flatRoutes().filter((r) => r.path !== undefined || r.index);
const NOBODY = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";

/** The demo Sacco's owner, and real rows of the Sacco for every route parameter: a leak answers 200, not 404. */
interface World {
  organizationId: string;
  ownerId: string;
  cookie: string;
  ids: Record<string, string>;
}

async function firstId(query: string, params: unknown[]) {
  const [row] = await rawQuery<{ id: string }>(query, params);
  if (!row) throw new Error(`no row for ${query}`);
  return String(row.id);
}

async function buildWorld(): Promise<World> {
  await demoData();
  const [owner] = await rawQuery<{ id: string; organization_id: string }>(
    `select id, organization_id from users where email = 'demo@jumbe.demo'`,
  );
  const organizationId = owner!.organization_id;
  const own = (table: string, where = "true") =>
    firstId(`select id from ${table} where organization_id = $1 and ${where} order by id limit 1`, [organizationId]);
  // A contact import that rejected rows, and a customer's photo in a conversation: both files stored.
  const rejected = await fileStorage().write([Buffer.from("name,phone,reason\nWanjiku,0700,Not a phone number\n")], {
    maxBytes: 10_000,
    organisationId: organizationId,
  });
  const [upload] = await rawQuery<{ id: string }>(
    `insert into contact_imports (organization_id, created_by, file_name, storage_key, size, columns, status, rejected_key)
     values ($1, $2, 'members.csv', 'imports/none.csv', 10, '["name","phone"]'::jsonb, 'done', $3) returning id`,
    [organizationId, owner!.id, rejected.key],
  );
  const photo = await fileStorage().write([Buffer.from("\xff\xd8\xff\xe0 a photo")], { maxBytes: 10_000, organisationId: organizationId });
  const conversation = await own("conversations");
  const [file] = await rawQuery<{ id: string }>(
    `insert into media_files (organization_id, direction, mime_type, size, sha256, storage_key, meta_media_id, phone_number_id)
     values ($1, 'inbound', 'image/jpeg', $2, $3, $4, '1234567890', '106540352242922') returning id`,
    [organizationId, photo.size, photo.sha256, photo.key],
  );
  const [said] = await rawQuery<{ id: string }>(
    `insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload, media_file_id)
     select organization_id, contact_id, 'inbound', 'received', '', phone_number_id, 'image', '{"type":"image"}'::jsonb, $2
     from conversations where id = $1 returning id`,
    [conversation, file!.id],
  );
  const template = await own("message_templates");
  await rawQuery(
    `insert into template_media (organization_id, template_id, file_name, content_type, size, bytes)
     values ($1, $2, 'agm.jpg', 'image/jpeg', 4, '\\xffd8ffe0'::bytea)`,
    [organizationId, template],
  );
  const ids: Record<string, string> = {
    template,
    contact: await own("contacts"),
    contactImport: upload!.id,
    campaign: await own("campaigns"),
    conversation,
    message: said!.id,
    notification: await firstId(`select id from notifications where user_id = $1 limit 1`, [owner!.id]),
    payment: await own("payments"),
    invoice: await own("invoices"),
    product: await own("products"),
    order: await own("orders"),
    dispute: await firstId(`select id from invoice_disputes limit 1`, []).catch(() => NOBODY),
    rule: await firstId(
      `insert into automation_rules (organization_id, name, match_type, keywords, actions, position)
       values ($1, 'Prices', 'contains', '{bei}', '[{"type":"reply","text":"Bei zetu"}]'::jsonb, 1) returning id`,
      [organizationId],
    ),
    flow: await firstId(`insert into flows (organization_id, name) values ($1, 'Order status') returning id`, [organizationId]),
    account: (await connectedNumber(organizationId, { wabaId: "104000111", phoneNumberId: "105000222", display: "+254 700 100 200" }))
      .account.id,
  };
  const session = await createSession(owner!.id, false, META);
  return { organizationId, ownerId: owner!.id, cookie: cookieHeader([session.setCookie]), ids };
}

/** Each route's pattern with its parameters filled in. */
const SAMPLE: Record<string, (w: World) => string> = {
  "/invitations/:token": () => "/invitations/no-such-token",
  "/templates/:id/edit": (w) => `/templates/${w.ids.template}/edit`,
  "/templates/:id/sample": (w) => `/templates/${w.ids.template}/sample`,
  "/messaging/contacts/:id": (w) => `/messaging/contacts/${w.ids.contact}`,
  "/developers/api/:operation": () => "/developers/api/sendMessage",
  "/messaging/contacts/:id/data.json": (w) => `/messaging/contacts/${w.ids.contact}/data.json`,
  "/integrations/shopify/requests/:id/data.json": () => "/integrations/shopify/requests/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/data.json",
  "/messaging/contacts/import/:id": (w) => `/messaging/contacts/import/${w.ids.contactImport}`,
  "/messaging/contacts/import/:id/rejected.csv": (w) => `/messaging/contacts/import/${w.ids.contactImport}/rejected.csv`,
  "/messaging/campaigns/:id": (w) => `/messaging/campaigns/${w.ids.campaign}`,
  "/messaging/campaigns/:id/results.csv": (w) => `/messaging/campaigns/${w.ids.campaign}/results.csv`,
  "/messaging/campaigns/:id/events": (w) => `/messaging/campaigns/${w.ids.campaign}/events`,
  "/notifications/:id": (w) => `/notifications/${w.ids.notification}`,
  "/chat/:id": (w) => `/chat/${w.ids.conversation}`,
  "/chat/:id/sms": (w) => `/chat/${w.ids.conversation}/sms`,
  "/chat/:id/conversion": (w) => `/chat/${w.ids.conversation}/conversion`,
  "/automations/:id": (w) => `/automations/${w.ids.rule}`,
  "/automations/flows/:id": (w) => `/automations/flows/${w.ids.flow}`,
  "/integrations/:provider/callback": () => "/integrations/hubspot/callback",
  "/chat/media/:id": (w) => `/chat/media/${w.ids.message}`,
  "/chat/ads/:id/picture": () => "/chat/ads/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/picture",
  "/catalog-images/:file": () => `/catalog-images/${"A".repeat(43)}.jpg`,
  "/billing/payments/:id": (w) => `/billing/payments/${w.ids.payment}`,
  "/billing/invoices/:id": (w) => `/billing/invoices/${w.ids.invoice}`,
  "/billing/invoices/:id/pdf": (w) => `/billing/invoices/${w.ids.invoice}/pdf`,
  "/revenue-share/settlements/:id/statement": () => "/revenue-share/settlements/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/statement",
  "/webhooks/mpesa/stk/:paymentId/:secret": (w) => `/webhooks/mpesa/stk/${w.ids.payment}/not-the-secret`,
  "/webhooks/paybill/:secret/:step": () => "/webhooks/paybill/not-the-secret/validation",
  "/webhooks/pay/:token/stk": () => "/webhooks/pay/not-a-token-of-anyones/stk",
  "/webhooks/pay/:token/c2b/:step": () => "/webhooks/pay/not-a-token-of-anyones/c2b/validation",
  "/webhooks/sms/:token/:kind": () => "/webhooks/sms/not-a-token-of-anyones/delivery",
  "/shop/products/:id": (w) => `/shop/products/${w.ids.product}`,
  "/shop/orders/:id": (w) => `/shop/orders/${w.ids.order}`,
  "/webhooks/mpesa/b2c/:payoutId/:secret/:kind": () => "/webhooks/mpesa/b2c/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/not-the-secret/result",
  "/admin/users/:id": (w) => `/admin/users/${w.organizationId}`,
  "/admin/billing/invoices/:id": (w) => `/admin/billing/invoices/${w.ids.invoice}`,
  "/admin/billing/invoices/:id/pdf": (w) => `/admin/billing/invoices/${w.ids.invoice}/pdf`,
  "/admin/billing/disputes/:id": (w) => `/admin/billing/disputes/${w.ids.dispute}`,
  "/admin/billing/wallets/:id": (w) => `/admin/billing/wallets/${w.organizationId}`,
  "/admin/whatsapp/:id": (w) => `/admin/whatsapp/${w.ids.account}`,
  "/admin/templates/:id": (w) => `/admin/templates/${w.ids.template}`,
  "/admin/templates/:id/header-sample": (w) => `/admin/templates/${w.ids.template}/header-sample`,
  "/admin/*": () => "/admin/no-such-page",
  "/api/whatsapp/accounts/:id/:change": (w) => `/api/whatsapp/accounts/${w.ids.account}/disconnect`,
  "/api/billing/topups/:id": (w) => `/api/billing/topups/${w.ids.payment}`,
  "/api/v1/*": () => "/api/v1/account",
  "/api/*": () => "/api/no-such-route",
  "/*": () => "/no/such/page",
};

type Asking = "navigation" | "script";

/** A browser opening the address, or a script asking for it (fetch, EventSource); a post is a browser's form. */
function send(w: World, pathname: string, asking: Asking, method: "GET" | "POST" = "GET") {
  const headers = new Headers({ "user-agent": "vitest", cookie: w.cookie });
  if (asking === "navigation") {
    headers.set("accept", "text/html,application/xhtml+xml");
    headers.set("sec-fetch-mode", "navigate");
  } else {
    // What an EventSource asks for first: a live stream answers it, anything else ignores it.
    headers.set("accept", "text/event-stream, application/json, */*");
    headers.set("sec-fetch-mode", "cors");
  }
  let body: URLSearchParams | undefined;
  if (method === "POST") {
    headers.set("origin", APP);
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams();
  }
  return appFetch(new Request(`${APP}${pathname}`, { method, headers, body }));
}

/** Closes a response unread (a live stream would never end) and says what it was. */
async function describeAnswer(response: Response) {
  const type = response.headers.get("content-type") ?? "";
  const location = response.headers.get("location");
  const text = type.includes("text/event-stream") ? "" : await response.text();
  if (type.includes("text/event-stream")) await response.body?.cancel();
  return { status: response.status, type, location, text, line: `${response.status} ${location ? `→ ${location}` : type}` };
}

/**
 * Asks every route with the world's session and returns what got through: a 2xx from a route not in
 * OPEN, a post that was not refused, any 5xx, and the tables that changed. `refusedTo` is where a
 * refused post may be sent (the two-factor set-up, or signing in for a session that is a visitor's).
 */
async function walk(w: World, refusedTo: (location: string) => boolean) {
  const wrong: string[] = [];
  const before = await tableDigests();
  for (const route of ROUTES) {
    const path = SAMPLE[route.pattern]?.(w) ?? route.pattern;
    const open = OPEN_ROUTES.has(route.pattern);
    for (const asking of ["navigation", "script"] as const) {
      const answer = await describeAnswer(await send(w, path, asking));
      if (answer.status >= 500 || (!open && answer.status >= 200 && answer.status < 300))
        wrong.push(`GET ${path} (${asking}): ${answer.line}`);
    }
    if (open) continue;
    const answer = await describeAnswer(await send(w, path, "navigation", "POST"));
    // A refusal: sent to the set-up or to sign in, 401 or 403, 404 (the admin console, and a route
    // without an action), 405 (a route that takes no posts). Anything else means the action ran.
    const refused = answer.location ? refusedTo(answer.location) : [401, 403, 404, 405].includes(answer.status);
    if (!refused) wrong.push(`POST ${path}: ${answer.line}`);
  }
  const after = await tableDigests();
  const changed = Object.keys(before).filter((table) => before[table] !== after[table]);
  if (changed.length) wrong.push(`changed: ${changed.join(", ")}`);
  return wrong;
}

describe("the walk covers app/routes.ts", () => {
  it("fills every route's parameters, and lists in OPEN only routes that exist", async () => {
    const w = await buildWorld();
    const unfilled = ROUTES.map((r) => SAMPLE[r.pattern]?.(w) ?? r.pattern).filter((path) => /[:*]/.test(path));
    expect(unfilled).toEqual([]);
    const patterns = new Set(ROUTES.map((r) => r.pattern));
    expect([...OPEN_ROUTES.keys(), ...Object.keys(SAMPLE)].filter((pattern) => !patterns.has(pattern))).toEqual([]);
  });
});

describe("a member who must set up two-factor sign-in", () => {
  it("meets only the set-up at every route: pages, JSON, downloads, files and live streams", async () => {
    const w = await buildWorld();
    // The same session opens the downloads and streams while two-factor is not required: the rows are real.
    for (const path of ["/messaging/contacts/export.csv", `/messaging/campaigns/${w.ids.campaign}/results.csv`, "/chat/events"])
      expect((await describeAnswer(await send(w, path, "script"))).status, path).toBe(200);
    await rawQuery(`update organizations set require_two_factor = true where id = $1`, [w.organizationId]);
    await rawQuery(`update users set two_factor_enabled_at = null where id = $1`, [w.ownerId]);
    const setUp = await describeAnswer(await send(w, "/settings/security", "navigation"));
    expect(setUp.status).toBe(200);
    expect(setUp.text).toContain("Set up two-factor sign-in");

    expect(await walk(w, (location) => location === "/settings/security")).toEqual([]);

    // The session is still live: the walk was refused, not signed out.
    expect((await send(w, "/settings/security", "navigation")).status).toBe(200);
  }, 240_000);

  it("is told so at the exports and live streams: a browser is sent to the set-up, a script gets 403 with the reason", async () => {
    const w = await buildWorld();
    await rawQuery(`update organizations set require_two_factor = true where id = $1`, [w.organizationId]);
    await rawQuery(`update users set two_factor_enabled_at = null where id = $1`, [w.ownerId]);
    for (const path of [
      "/messaging/contacts/export.csv",
      `/messaging/contacts/${w.ids.contact}/data.json`,
      "/api/activity-logs/export",
      `/messaging/campaigns/${w.ids.campaign}/results.csv`,
      `/messaging/campaigns/${w.ids.campaign}/events`,
      "/chat/events",
      "/notifications/events",
    ]) {
      const opened = await describeAnswer(await send(w, path, "navigation"));
      expect(opened.line, path).toBe("302 → /settings/security");
      const fetched = await describeAnswer(await send(w, path, "script"));
      expect(fetched.status, path).toBe(403);
      expect(JSON.parse(fetched.text), path).toMatchObject({ message: TWO_FACTOR_MESSAGES.setUpFirst, requiresTwoFactorSetup: true });
    }
  });
});

describe("a member of a suspended organisation", () => {
  it("is a visitor at every route, downloads and live streams included", async () => {
    const w = await buildWorld();
    expect((await send(w, "/dashboard", "navigation")).status).toBe(200);
    // Suspending ends the members' sessions; this one outlived it (a request under way, a session written just after).
    await rawQuery(
      `update organizations set status = 'suspended', suspended_at = now(), suspension_reason = 'Unpaid invoices' where id = $1`,
      [w.organizationId],
    );
    expect(await walk(w, (location) => location.startsWith("/login?from="))).toEqual([]);
  }, 240_000);
});
