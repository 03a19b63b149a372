import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PRODUCTION_PAYMENTS } from "../support/production-env";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import {
  activityLogs,
  apiKeys,
  campaigns as campaignsTable,
  messages,
  messageTemplates,
  wallets,
  whatsappAccounts,
} from "~/.server/infrastructure/db/schema";
import { accountSummary } from "~/.server/adapters/api-v1/account";
import { recordApiCall } from "~/.server/adapters/api-v1/usage";
import { countStatements } from "~/.server/infrastructure/db/statement-count";
import { messagesUsedThisMonth } from "~/.server/domains/billing/month-usage";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { TEMPLATE_CREATE_EXAMPLE } from "~/.server/adapters/api-v1/schemas";
import { checkWebhookUrl, isForbiddenAddress } from "~/.server/domains/webhooks-out/endpoint";
import * as keyApi from "~/routes/api/developer.api-key";
import * as regenerateApi from "~/routes/api/developer.api-key.regenerate";
import * as developersPage from "~/routes/app/developers";
import * as endpointPage from "~/routes/app/developer-endpoint";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { startGraphSandbox } from "../support/sandbox-waba";
import { startApiV1Server } from "../support/api-v1-server";
import { formRequest, getRequest, jsonRequest, run } from "../support/http";

const run$ = promisify(execFile);
/** A public address written as one (no DNS lookup), standing in for hooks.zapier.com in the examples. */
const ZAPIER_STAND_IN = "https://8.8.8.8/";

// The real /api/v1 handler on a real socket, so curl, Node and Python can call it; Meta's sandbox
// behind it for the template examples.
let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;
let base = "";
let meta: Awaited<ReturnType<typeof startGraphSandbox>>;
beforeAll(async () => {
  meta = await startGraphSandbox();
  apiServer = await startApiV1Server();
  base = apiServer.base;
});
afterAll(async () => {
  await apiServer.close();
  await meta.close();
});
beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: base, GRAPH_API_BASE_URL: meta.graphBase }));
  meta.sandbox.reset();
});

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  expect(read.status).toBe(200);
  return { ...account, cookie, key: read.data.key as string };
}

const call = (path: string, key?: string) => fetch(`${base}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });

describe("API keys", () => {
  it("are long random secrets with a recognisable prefix, stored encrypted and hashed, and every read is logged", async () => {
    const t = await tenant("Keys Ltd");
    expect(t.key).toMatch(/^jmb_live_[A-Za-z0-9_-]{43}$/);
    const again = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie: t.cookie }));
    expect(again.data.key).toBe(t.key);
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.organizationId, t.organization.id));
    expect(JSON.stringify(row)).not.toContain(t.key.slice(9));
    expect(row!.prefix).toBe(t.key.slice(0, 13));
    const logged = await db()
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, t.organization.id), eq(activityLogs.type, "security")));
    expect(logged.map((l) => l.action).sort()).toEqual(["API key created", "API key viewed", "API key viewed"]);
    expect(logged.every((l) => !l.details.includes(t.key.slice(13)))).toBe(true);
  });

  it("regenerating revokes the old key at once, from the API and from the page's confirmed form", async () => {
    const t = await tenant("Rotate Ltd");
    expect((await call("/api/v1/account", t.key)).status).toBe(200);
    const regenerated = await run(regenerateApi.action, jsonRequest("/api/developer/api-key/regenerate", {}, { cookie: t.cookie }));
    expect(regenerated.status).toBe(200);
    const fresh = regenerated.data.key as string;
    expect(fresh).not.toBe(t.key);
    const old = await call("/api/v1/account", t.key);
    expect(old.status).toBe(401);
    expect(await old.json()).toMatchObject({ code: "invalid_api_key", message: "The API key is not valid or has been revoked." });
    expect((await call("/api/v1/account", fresh)).status).toBe(200);

    // The page asks first: without confirm=yes nothing changes.
    const unconfirmed = await run(developersPage.action, formRequest("/developers", { intent: "regenerate" }, { cookie: t.cookie }));
    expect(unconfirmed.location).toBe("/developers?confirm=regenerate");
    expect((await call("/api/v1/account", fresh)).status).toBe(200);
    const confirmed = await run(
      developersPage.action,
      formRequest("/developers", { intent: "regenerate", confirm: "yes" }, { cookie: t.cookie }),
    );
    expect(confirmed.location).toBe("/developers?reveal=1");
    expect((await call("/api/v1/account", fresh)).status).toBe(401);
    const live = await db().select().from(apiKeys).where(eq(apiKeys.organizationId, t.organization.id));
    expect(live.filter((k) => !k.revokedAt)).toHaveLength(1);
    expect(live).toHaveLength(3);
    const regenerations = await db()
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, t.organization.id), eq(activityLogs.action, "API key regenerated")));
    expect(regenerations).toHaveLength(2);
  });
});

describe("public API v1", () => {
  it("counts the messages used this Nairobi month from the charges' rollup, as /api/auth/me and the Billing page do", async () => {
    const a = await tenant("Gamma Chama");
    const b = await tenant("Delta Hardware");
    // Days as Africa/Nairobi sees them: the month's first day, today, and the last day of last month.
    const monthStart = sql`(date_trunc('month', now() at time zone 'Africa/Nairobi'))::date`;
    const usage = (organizationId: string, day: SQL, phoneNumberId: string, category: string, n: number) =>
      sql`(${organizationId}::uuid, ${day}, ${phoneNumberId}, ${category}, ${n}, ${n * 80})`;
    await db().execute(sql`
      insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents) values
        ${usage(a.organization.id, monthStart, "401", "marketing", 1)},
        ${usage(a.organization.id, sql`(now() at time zone 'Africa/Nairobi')::date`, "401", "utility", 1)},
        ${usage(a.organization.id, sql`(now() at time zone 'Africa/Nairobi')::date`, "402", "utility", 1)},
        ${usage(a.organization.id, sql`${monthStart} - 1`, "401", "marketing", 7)},
        ${usage(b.organization.id, sql`(now() at time zone 'Africa/Nairobi')::date`, "501", "utility", 1)}
      on conflict do nothing`);
    const used = ((await (await call("/api/v1/account", a.key)).json()) as { usage: unknown }).usage;
    expect(used).toEqual({ messagesThisMonth: 3, messageLimit: 1000, percentUsed: 0.3 });
    expect(await messagesUsedThisMonth(a.organization.id)).toBe(3);
    expect(((await (await call("/api/v1/account", b.key)).json()) as { usage: unknown }).usage).toEqual({
      messagesThisMonth: 1,
      messageLimit: 1000,
      percentUsed: 0.1,
    });
  });

  it("answers /api/v1/account from the key's own statement exactly as the account's separate read does", async () => {
    const a = await tenant("Eldoret Feeds");
    await db()
      .insert(wallets)
      .values({ organizationId: a.organization.id, balanceCents: 1_250_050, heldCents: 250_000 })
      .onConflictDoUpdate({ target: wallets.organizationId, set: { balanceCents: 1_250_050, heldCents: 250_000 } });
    const answered = await (await call("/api/v1/account", a.key)).json();
    expect(answered).toEqual({
      organization: { id: a.organization.id, name: "Eldoret Feeds", businessId: a.organization.businessId, status: a.organization.status },
      plan: { type: a.organization.planType, billingType: a.organization.billingType, messageLimit: 1000 },
      wallet: { balanceCents: 1_250_050, availableCents: 1_000_050, currency: "KES" },
      usage: { messagesThisMonth: 0, messageLimit: 1000, percentUsed: 0 },
    });
    expect(await accountSummary(a.organization.id)).toEqual(answered);
  });

  it("reads the key, counts its rate-limit hit and marks it used in one statement; an unknown key counts nothing", async () => {
    const a = await tenant("Kilifi Dairy");
    const [key] = await db().select().from(apiKeys).where(eq(apiKeys.organizationId, a.organization.id));
    const hits = () => queryRows<{ hits: number }>(db(), sql`select hits from rate_limits where key = ${`api:key:${key!.id}`}`);
    for (let i = 0; i < 3; i++) expect((await call("/api/v1/account", a.key)).status).toBe(200);
    expect(await hits()).toEqual([{ hits: 3 }]);
    const [used] = await db().select().from(apiKeys).where(eq(apiKeys.id, key!.id));
    expect(used!.lastUsedAt).not.toBeNull();
    // Written at most once a minute: a second call within the minute leaves it as it was.
    await db()
      .update(apiKeys)
      .set({ lastUsedAt: sql`now() - interval '30 seconds'` })
      .where(eq(apiKeys.id, key!.id));
    const [before] = await db().select().from(apiKeys).where(eq(apiKeys.id, key!.id));
    await call("/api/v1/account", a.key);
    const [after] = await db().select().from(apiKeys).where(eq(apiKeys.id, key!.id));
    expect(after!.lastUsedAt!.getTime()).toBe(before!.lastUsedAt!.getTime());
    await db()
      .update(apiKeys)
      .set({ lastUsedAt: sql`now() - interval '2 minutes'` })
      .where(eq(apiKeys.id, key!.id));
    await call("/api/v1/account", a.key);
    const [later] = await db().select().from(apiKeys).where(eq(apiKeys.id, key!.id));
    expect(later!.lastUsedAt!.getTime()).toBeGreaterThan(before!.lastUsedAt!.getTime());
    const counted = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from rate_limits where key like 'api:key:%'`);
    expect((await call("/api/v1/account", `${a.key.slice(0, -4)}zzzz`)).status).toBe(401);
    const after401 = await queryRows<{ n: number }>(db(), sql`select count(*)::int as n from rate_limits where key like 'api:key:%'`);
    expect(after401).toEqual(counted);
  });

  it("takes the tenant from the key only: each key sees its own account and numbers", async () => {
    const a = await tenant("Alpha Sacco");
    const b = await tenant("Beta Traders");
    await connectedNumber(a.organization.id, { wabaId: "301", phoneNumberId: "401", display: "+254 711 000 301" });
    const account = await call("/api/v1/account", a.key);
    expect(account.status).toBe(200);
    expect(account.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(await account.json()).toEqual({
      organization: { id: a.organization.id, name: "Alpha Sacco", businessId: a.organization.businessId, status: "active" },
      plan: { type: "Starter", billingType: "postpaid", messageLimit: 1000 },
      wallet: { balanceCents: 0, availableCents: 0, currency: "KES" },
      usage: { messagesThisMonth: 0, messageLimit: 1000, percentUsed: 0 },
    });
    expect((await (await call("/api/v1/phone-numbers", a.key)).json()).data).toEqual([
      {
        id: "401",
        number: "+254711000301",
        verifiedName: "Test Biashara",
        wabaId: "301",
        connection: "connected",
        quality: "high",
        messagingLimit: null,
        registered: true,
      },
    ]);
    expect(await (await call("/api/v1/phone-numbers", b.key)).json()).toEqual({ data: [], hasMore: false });
    // An id in the input cannot pick another tenant: unknown parameters are refused.
    const smuggled = await call(`/api/v1/phone-numbers?organizationId=${a.organization.id}`, b.key);
    expect(smuggled.status).toBe(400);
    expect(await smuggled.json()).toMatchObject({ code: "invalid_request", message: "unknown parameter organizationId" });
  });

  it("answers errors as JSON with a stable code and a message", async () => {
    const t = await tenant("Errors Ltd");
    expect(await (await call("/api/v1/account")).json()).toMatchObject({
      code: "missing_api_key",
      message: "Send your API key as the header Authorization: Bearer <key>.",
    });
    expect((await call("/api/v1/account", "jmb_live_" + "x".repeat(43))).status).toBe(401);
    expect(await (await call("/api/v1/phone-numbers?connection=maybe", t.key)).json()).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("connection"),
    });
    const missing = await call("/api/v1/nothing", t.key);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: "not_found" });
    const post = await fetch(`${base}/api/v1/account`, { method: "POST", headers: { Authorization: `Bearer ${t.key}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    // Failed calls with a valid key are measured and logged.
    const failures = await db()
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, t.organization.id), eq(activityLogs.action, "API call failed")));
    // The line says why, in the answer's own code and message (bounded; never the request's body).
    expect(failures.map((f) => f.details)).toEqual([
      expect.stringMatching(/^GET \/api\/v1\/phone-numbers\?connection=maybe answered 400: invalid_request: .*connection/),
    ]);
    expect(failures[0]!.details.length).toBeLessThan(400);
  });

  it("measures every call for the Developers page's cards", async () => {
    const t = await tenant("Metrics Ltd");
    for (let i = 0; i < 3; i++) await call("/api/v1/account", t.key);
    await call("/api/v1/phone-numbers?bad=1", t.key);
    const page = await run(developersPage.loader, getRequest("/developers", { cookie: t.cookie }));
    expect(page.data.usage).toMatchObject({ calls: 4, successRate: 75, rateLimitPerMinute: 1000 });
    expect(page.data.usage.averageMs).toBeGreaterThanOrEqual(0);
    expect(page.data.key).toBeNull(); // not shown (nor logged) until asked for
    const revealed = await run(developersPage.loader, getRequest("/developers?reveal=1", { cookie: t.cookie }));
    expect(revealed.data.key).toBe(t.key);
  });

  it("counts calls made at the same time once each, in their own organisation's figures", async () => {
    const [a, b] = [await tenant("Together A Ltd"), await tenant("Together B Ltd")];
    await Promise.all([
      ...Array.from({ length: 12 }, () => call("/api/v1/account", a.key)),
      ...Array.from({ length: 5 }, () => call("/api/v1/phone-numbers?bad=1", a.key)),
      ...Array.from({ length: 7 }, () => call("/api/v1/account", b.key)),
    ]);
    const usage = async (t: typeof a) => (await run(developersPage.loader, getRequest("/developers", { cookie: t.cookie }))).data.usage;
    expect(await usage(a)).toMatchObject({ calls: 17, successRate: 70.6 });
    expect(await usage(b)).toMatchObject({ calls: 7, successRate: 100 });
    // Outcomes that end in the same turn are written together (group commit): one statement for both tenants' 30.
    const { statements } = await countStatements(() =>
      Promise.all([
        ...Array.from({ length: 20 }, (_, i) => recordApiCall(a.organization.id, i % 4 !== 0, 10)),
        ...Array.from({ length: 10 }, () => recordApiCall(b.organization.id, true, 30)),
      ]),
    );
    expect(statements).toBe(1);
    expect(await usage(a)).toMatchObject({ calls: 37, successRate: 73 });
    expect(await usage(b)).toMatchObject({ calls: 17, successRate: 100 });
  });

  it("refuses the 1001st call of a minute with 429 and Retry-After", async () => {
    const t = await tenant("Busy Ltd");
    setEnv(parseEnv({ NODE_ENV: "test", APP_URL: base, RATE_LIMIT_MULTIPLIER: "0.01" })); // 10 a minute, same code path
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call("/api/v1/account", t.key)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
    const refused = await call("/api/v1/account", t.key);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: "rate_limited" });
  });
});

describe("OpenAPI and the Developers page's examples", () => {
  it("documents every endpoint from the zod schemas", async () => {
    const doc = await (await call("/api/v1/openapi.json")).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual([
      "/api/v1/account",
      "/api/v1/partner",
      "/api/v1/analytics",
      "/api/v1/phone-numbers",
      "/api/v1/templates",
      "/api/v1/templates/{id}",
      "/api/v1/template-samples",
      "/api/v1/messages",
      "/api/v1/messages/{id}",
      "/api/v1/media",
      "/api/v1/media/{id}",
      "/api/v1/contacts",
      "/api/v1/contacts/{id}",
      "/api/v1/contacts/{id}/consent",
      "/api/v1/campaigns",
      "/api/v1/campaigns/{id}",
      "/api/v1/campaigns/{id}/pause",
      "/api/v1/campaigns/{id}/resume",
      "/api/v1/campaigns/{id}/cancel",
      "/api/v1/automations/rules",
      "/api/v1/automations/rules/{id}",
      "/api/v1/automations/settings",
      "/api/v1/automations/assistant",
      "/api/v1/automations/knowledge",
      "/api/v1/automations/knowledge/{id}",
      "/api/v1/automations/flows",
      "/api/v1/automations/flows/{id}",
      "/api/v1/automations/flows/{id}/publish",
      "/api/v1/payment-requests",
      "/api/v1/payment-requests/{id}",
      "/api/v1/payment-requests/{id}/cancel",
      "/api/v1/sms",
      "/api/v1/sms/{id}",
      "/api/v1/hooks",
      "/api/v1/hooks/{id}",
      "/api/v1/orders",
      "/api/v1/orders/{id}",
    ]);
    expect(Object.keys(doc.paths["/api/v1/contacts/{id}"])).toEqual(["get", "patch", "delete"]);
    expect(Object.keys(doc.paths["/api/v1/automations/rules/{id}"])).toEqual(["get", "patch", "delete"]);
    expect(Object.keys(doc.paths["/api/v1/automations/settings"])).toEqual(["get", "patch"]);
    expect(Object.keys(doc.paths["/api/v1/automations/rules"].post.responses)).toEqual([
      "201",
      "400",
      "401",
      "403",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
    expect(doc.components.schemas.AutomationRule.required).toEqual(expect.arrayContaining(["id", "matchType", "actions", "position"]));
    expect(Object.keys(doc.paths["/api/v1/campaigns"])).toEqual(["post", "get"]);
    expect(doc.paths["/api/v1/campaigns"].post.parameters).toEqual([expect.objectContaining({ name: "Idempotency-Key", in: "header" })]);
    expect(Object.keys(doc.paths["/api/v1/campaigns"].post.responses)).toEqual([
      "201",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
    expect(Object.keys(doc.paths["/api/v1/campaigns/{id}/pause"].post.responses)).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "429",
      "500",
      "503",
    ]);
    expect(doc.components.schemas.Campaign.required).toEqual(expect.arrayContaining(["id", "status", "counts"]));
    expect(Object.keys(doc.paths["/api/v1/media"].post.requestBody.content)).toEqual(["multipart/form-data"]);
    expect(Object.keys(doc.paths["/api/v1/media"].post.responses)).toEqual([
      "201",
      "400",
      "401",
      "403",
      "409",
      "413",
      "415",
      "429",
      "500",
      "503",
    ]);
    expect(Object.keys(doc.paths["/api/v1/media/{id}"])).toEqual(["get", "delete"]);
    expect(doc.paths["/api/v1/messages"].post.parameters).toEqual([expect.objectContaining({ name: "Idempotency-Key", in: "header" })]);
    expect(Object.keys(doc.paths["/api/v1/messages"].post.responses)).toEqual([
      "202",
      "400",
      "401",
      "402",
      "403",
      "404",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
    expect(doc.paths["/api/v1/phone-numbers"].get.parameters).toEqual([
      expect.objectContaining({
        name: "connection",
        in: "query",
        required: false,
        schema: expect.objectContaining({ enum: ["connected", "disconnected", "all"] }),
      }),
    ]);
    expect(doc.components.schemas.PhoneNumber.required).toEqual(expect.arrayContaining(["id", "number", "quality"]));
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it("runs the page's curl, JavaScript and Python examples successfully against the real API", async () => {
    const t = await tenant("Examples Ltd");
    // A partner in the revenue share programme, so GET /api/v1/partner's example has its figures to show.
    await rawQuery(
      `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin)
       values ($1, 'EXAMPLES', 'Examples Ltd', 'Agency', 'active', 1500, 'mpesa', '+254712345678', 'P051234567X')`,
      [t.organization.id],
    );
    type Endpoint = { method: string; path: string; example: string };
    // The tab lists every endpoint; each endpoint's page shows its example in one language at a time
    // (?lang=), curl unless another is asked for. The tab's own example is the message send's.
    const examplesIn = async (lang: string) => {
      const page = await run(developersPage.loader, getRequest(`/developers?lang=${lang}`, { cookie: t.cookie }));
      const endpoints: Endpoint[] = [];
      for (const { operationId } of page.data.endpoints as { operationId: string }[]) {
        const one = await run(endpointPage.loader, getRequest(`/developers/api/${operationId}?lang=${lang}`, { cookie: t.cookie }), {
          params: { operation: operationId },
        });
        expect(one.data.language).toBe(page.data.language);
        endpoints.push(one.data.endpoint as Endpoint);
      }
      const send = endpoints.find((e) => e.method === "POST" && e.path === "/api/v1/messages")!;
      expect(page.data.example).toBe(send.example);
      return { language: page.data.language as string, endpoints };
    };
    expect((await examplesIn("cobol")).language).toBe("curl");
    const pages = {
      curl: await examplesIn("curl"),
      javascript: await examplesIn("javascript"),
      python: await examplesIn("python"),
    };
    expect(Object.values(pages).map((p) => p.language)).toEqual(["curl", "javascript", "python"]);
    const endpoints = pages.curl.endpoints;
    expect(endpoints.map((e) => `${e.method} ${e.path}`)).toEqual([
      "GET /api/v1/account",
      "GET /api/v1/partner",
      "GET /api/v1/analytics",
      "GET /api/v1/phone-numbers",
      "GET /api/v1/templates",
      "POST /api/v1/templates",
      "GET /api/v1/templates/{id}",
      "DELETE /api/v1/templates/{id}",
      "POST /api/v1/template-samples",
      "POST /api/v1/messages",
      "GET /api/v1/messages",
      "GET /api/v1/messages/{id}",
      "POST /api/v1/media",
      "GET /api/v1/media/{id}",
      "DELETE /api/v1/media/{id}",
      "GET /api/v1/contacts",
      "POST /api/v1/contacts",
      "GET /api/v1/contacts/{id}",
      "PATCH /api/v1/contacts/{id}",
      "DELETE /api/v1/contacts/{id}",
      "POST /api/v1/contacts/{id}/consent",
      "POST /api/v1/campaigns",
      "GET /api/v1/campaigns",
      "GET /api/v1/campaigns/{id}",
      "POST /api/v1/campaigns/{id}/pause",
      "POST /api/v1/campaigns/{id}/resume",
      "POST /api/v1/campaigns/{id}/cancel",
      "GET /api/v1/automations/rules",
      "POST /api/v1/automations/rules",
      "GET /api/v1/automations/rules/{id}",
      "PATCH /api/v1/automations/rules/{id}",
      "DELETE /api/v1/automations/rules/{id}",
      "GET /api/v1/automations/settings",
      "PATCH /api/v1/automations/settings",
      "GET /api/v1/automations/assistant",
      "PATCH /api/v1/automations/assistant",
      "GET /api/v1/automations/knowledge",
      "POST /api/v1/automations/knowledge",
      "GET /api/v1/automations/knowledge/{id}",
      "PATCH /api/v1/automations/knowledge/{id}",
      "DELETE /api/v1/automations/knowledge/{id}",
      "GET /api/v1/automations/flows",
      "POST /api/v1/automations/flows",
      "GET /api/v1/automations/flows/{id}",
      "PATCH /api/v1/automations/flows/{id}",
      "DELETE /api/v1/automations/flows/{id}",
      "POST /api/v1/automations/flows/{id}/publish",
      "POST /api/v1/payment-requests",
      "GET /api/v1/payment-requests",
      "GET /api/v1/payment-requests/{id}",
      "POST /api/v1/payment-requests/{id}/cancel",
      "POST /api/v1/sms",
      "GET /api/v1/sms/{id}",
      "GET /api/v1/hooks",
      "POST /api/v1/hooks",
      "DELETE /api/v1/hooks/{id}",
      "GET /api/v1/orders",
      "GET /api/v1/orders/{id}",
    ]);
    // The contact's consent example runs before its DELETE example (the page lists DELETE first), and a
    // flow is published before its DELETE example deletes it.
    const deletesContact = (e: Endpoint) =>
      e.method === "DELETE" && (e.path === "/api/v1/contacts/{id}" || e.path === "/api/v1/automations/flows/{id}");
    // Payment requests need a customer who wrote in the last 24 hours and an M-Pesa shortcode: their
    // examples are run in tests/integration/payment-requests-api.test.ts's way (not yet from the page).
    // SMS need an Africa's Talking connection: tests/integration/sms-api.test.ts runs them.
    const isPaymentRequests = (e: Endpoint) => e.path.startsWith("/api/v1/payment-requests") || e.path.startsWith("/api/v1/sms");
    const runOrder = (list: Endpoint[]) => [
      ...list.filter((e) => !isMessages(e) && !isCampaigns(e) && !deletesContact(e) && !isPaymentRequests(e)),
      ...list.filter(deletesContact),
    ];
    const isMessages = (e: Endpoint) => e.path.startsWith("/api/v1/messages");
    const isCampaigns = (e: Endpoint) => e.path.startsWith("/api/v1/campaigns");
    const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-examples-"));
    // The sample upload's examples send sample.png from the directory they run in.
    const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(64)]);
    writeFileSync(path.join(dir, "sample.png"), png);
    // The media upload's examples send photo.jpg (a JPEG by its first bytes).
    const photo = Buffer.concat([Buffer.from("ffd8ffe000104a464946000101", "hex"), Buffer.alloc(500, 7)]);
    writeFileSync(path.join(dir, "photo.jpg"), photo);
    const envVars = { ...process.env, JUMBE_API_KEY: t.key };
    // The REST hook example subscribes Zapier's address, a name this machine cannot look up (no
    // network in tests): run with a public address written as such (no lookup), the rest as shown.
    const runExample = async (language: "curl" | "javascript" | "python", shown: string, vars: NodeJS.ProcessEnv) => {
      const code = shown.replaceAll("https://hooks.zapier.com/", ZAPIER_STAND_IN);
      if (language === "curl") return (await run$("sh", ["-c", code], { env: vars, cwd: dir })).stdout;
      const file = path.join(dir, language === "javascript" ? "example.mjs" : "example.py");
      writeFileSync(file, code);
      return (await run$(language === "javascript" ? process.execPath : "python3", [file], { env: vars, cwd: dir })).stdout;
    };

    // Each language in turn runs every endpoint in the page's order: the POST creates the example
    // template, the GET and DELETE after it use its id (TEMPLATE_ID). Meta holds a deleted name for
    // a while, so each language submits to a WhatsApp account of its own.
    // An order as a customer's cart leaves it (ORDER_ID), for the orders' examples to read.
    const [order] = await rawQuery<{ id: string }>(
      `insert into orders (organization_id, wamid, catalog_id, total_cents) values ($1, 'wamid.examples-order', 'catalog-1', 150000)
       returning id`,
      [t.organization.id],
    );
    const outputs: Record<string, string[]> = {};
    const messageOutputs: Record<string, string[]> = {};
    const campaignOutputs: Record<string, string[]> = {};
    for (const language of ["curl", "javascript", "python"] as const) {
      await db().update(whatsappAccounts).set({ status: "disconnected" }).where(eq(whatsappAccounts.organizationId, t.organization.id));
      const { wabaId } = await meta.connect(t.organization.id, `Examples ${language}`);
      let templateId = "";
      let mediaId = "";
      let contactId = "";
      let ruleId = "";
      let knowledgeId = "";
      let flowId = "";
      let hookId = "";
      outputs[language] = [];
      for (const endpoint of runOrder(pages[language].endpoints)) {
        const stdout = await runExample(language, endpoint.example, {
          ...envVars,
          TEMPLATE_ID: templateId,
          MEDIA_ID: mediaId,
          CONTACT_ID: contactId,
          RULE_ID: ruleId,
          KNOWLEDGE_ID: knowledgeId,
          FLOW_ID: flowId,
          HOOK_ID: hookId,
          ORDER_ID: order!.id,
        });
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/templates") templateId = JSON.parse(stdout).id;
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/media") mediaId = JSON.parse(stdout).id;
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/contacts") contactId = JSON.parse(stdout).id;
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/automations/rules") ruleId = JSON.parse(stdout).id;
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/automations/knowledge") knowledgeId = JSON.parse(stdout).id;
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/automations/flows") flowId = JSON.parse(stdout).id;
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/hooks") hookId = JSON.parse(stdout).id;
        outputs[language].push(stdout);
      }
      expect(templateId).toMatch(/^[0-9a-f-]{36}$/);
      // Created at Meta, then deleted there and here by the DELETE example.
      expect(meta.sandbox.templates(wabaId)).toEqual([]);
      expect(await db().select().from(messageTemplates).where(eq(messageTemplates.organizationId, t.organization.id))).toEqual([]);

      // The message examples send the example template, approved by Meta, then read the message back (MESSAGE_ID).
      await db()
        .insert(messageTemplates)
        .values({
          organizationId: t.organization.id,
          wabaId,
          metaTemplateId: `approved-${language}`,
          name: TEMPLATE_CREATE_EXAMPLE.name,
          language: TEMPLATE_CREATE_EXAMPLE.language,
          category: TEMPLATE_CREATE_EXAMPLE.category,
          status: "approved",
          components: TEMPLATE_CREATE_EXAMPLE.components as Record<string, unknown>[],
        });
      let messageId = "";
      messageOutputs[language] = [];
      for (const endpoint of pages[language].endpoints.filter(isMessages)) {
        const stdout = await runExample(language, endpoint.example, { ...envVars, MESSAGE_ID: messageId });
        if (endpoint.method === "POST") messageId = JSON.parse(stdout).id;
        messageOutputs[language].push(stdout);
      }
      const [sent, list, one] = messageOutputs[language].map((out) => JSON.parse(out));
      expect(sent).toMatchObject({ status: "queued", direction: "outbound", type: "template", to: "+254712345678", wamid: null });
      expect(one).toEqual(sent);
      expect(list.data.map((m: { id: string }) => m.id)).toContain(messageId);

      // The campaign examples schedule the approved template agm_reminder a week ahead, then list it,
      // read it (CAMPAIGN_ID), pause, resume and cancel it.
      await db()
        .insert(messageTemplates)
        .values({
          organizationId: t.organization.id,
          wabaId,
          metaTemplateId: `agm-${language}`,
          name: "agm_reminder",
          language: "en",
          category: "UTILITY",
          status: "approved",
          components: [{ type: "BODY", text: "Dear {{1}}, our AGM is on {{2}}." }],
        });
      let campaignId = "";
      campaignOutputs[language] = [];
      for (const endpoint of pages[language].endpoints.filter(isCampaigns)) {
        const stdout = await runExample(language, endpoint.example, { ...envVars, CAMPAIGN_ID: campaignId });
        if (endpoint.method === "POST" && endpoint.path === "/api/v1/campaigns") campaignId = JSON.parse(stdout).id;
        campaignOutputs[language].push(stdout);
      }
      const [created, campaigns, campaign, paused, resumed, cancelled] = campaignOutputs[language].map((out) => JSON.parse(out));
      expect(created).toMatchObject({
        name: "AGM reminder",
        status: "scheduled",
        template: { name: "agm_reminder", language: "en", category: "UTILITY" },
        audienceLabel: "Tag members + 1 number",
        estimate: { recipients: 1, leftOut: {} },
      });
      expect(campaigns).toEqual({
        data: [{ ...created, estimate: undefined }].map((c) => JSON.parse(JSON.stringify(c))),
        nextCursor: null,
        hasMore: false,
      });
      expect(campaign).toEqual(campaigns.data[0]);
      expect([paused.status, resumed.status, cancelled.status]).toEqual(["paused", "scheduled", "cancelled"]);
      await db().delete(campaignsTable).where(eq(campaignsTable.organizationId, t.organization.id));
      // The next language's account example counts this month's messages from zero again.
      await db().delete(messages).where(eq(messages.organizationId, t.organization.id));
      // And its automations examples start from no settings, as this one did.
      await rawQuery(`delete from automation_settings where organization_id = $1`, [t.organization.id]);
      await rawQuery(`delete from assistant_settings where organization_id = $1`, [t.organization.id]);
      await db().delete(messageTemplates).where(eq(messageTemplates.organizationId, t.organization.id));
    }

    const timeless = (value: Record<string, unknown>) => ({
      ...value,
      id: "",
      wabaId: "",
      createdAt: "",
      submittedAt: "",
      updatedAt: "",
      ...("optInChangedAt" in value ? { optInChangedAt: "" } : {}),
    });
    runOrder(endpoints).forEach((endpoint, i) => {
      const [curl, javascript, python] = [outputs.curl![i]!, outputs.javascript![i]!, outputs.python![i]!];
      if (endpoint.method === "DELETE") {
        expect(curl).toBe("HTTP 204\n");
        expect(javascript).toBe("Deleted (HTTP 204)\n");
        expect(python).toBe("Deleted (HTTP 204)\n");
        return;
      }
      const fromCurl = JSON.parse(curl);
      // Each language connects a WhatsApp account and number of its own; the earlier ones are listed as disconnected.
      const connectedNumbers = (v: { data: { connection: string; verifiedName: string }[] }) =>
        v.data.filter((n) => n.connection === "connected").map((n) => ({ ...n, id: "", number: "", wabaId: "", verifiedName: "" }));
      // Whether the organisation is open, and when it opens next, depend on the minute each language ran.
      const timelessHours = (v: Record<string, unknown>) => ({ ...v, openNow: null, nextOpeningAt: null });
      // Every string matching `pattern`, wherever it sits in an answer, made empty.
      const scrubbing = (pattern: RegExp) => {
        const scrub = (v: unknown): unknown =>
          Array.isArray(v)
            ? v.map(scrub)
            : v && typeof v === "object"
              ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]))
              : typeof v === "string" && pattern.test(v)
                ? ""
                : v;
        return scrub;
      };
      // The assistant's, knowledge's and flows' answers carry ids and times of each language's own rows.
      const scrubbed = scrubbing(/^[0-9a-f]{8}-[0-9a-f-]{27}$|^\d{4}-\d{2}-\d{2}T/);
      // A hook's secret is new with each subscription.
      const hook = (v: Record<string, unknown>) => scrubbed({ ...v, ...("secret" in v ? { secret: String(v.secret).slice(0, 6) } : {}) });
      // The analytics' days are Nairobi's: a run across its midnight moves every day by one between the calls.
      const dayless = scrubbing(/^\d{4}-\d{2}-\d{2}/);
      const same = endpoint.path.startsWith("/api/v1/hooks")
        ? hook
        : endpoint.path === "/api/v1/analytics"
          ? dayless
          : endpoint.path.startsWith("/api/v1/automations/assistant") ||
              endpoint.path.startsWith("/api/v1/automations/knowledge") ||
              endpoint.path.startsWith("/api/v1/automations/flows")
            ? scrubbed
            : endpoint.path === "/api/v1/phone-numbers"
              ? connectedNumbers
              : endpoint.path === "/api/v1/automations/settings"
                ? timelessHours
                : endpoint.path.includes("templates/") ||
                    endpoint.path.includes("/media") ||
                    endpoint.path.includes("contacts/") ||
                    endpoint.path.includes("rules/") ||
                    endpoint.method === "POST"
                  ? timeless
                  : (v: unknown) => v;
      expect(same(JSON.parse(javascript)), `${endpoint.method} ${endpoint.path}`).toEqual(same(fromCurl));
      expect(same(JSON.parse(python)), `${endpoint.method} ${endpoint.path}`).toEqual(same(fromCurl));
      if (endpoint.path.endsWith("account")) expect(fromCurl.organization.name).toBe("Examples Ltd");
      if (endpoint.path === "/api/v1/partner")
        expect(fromCurl).toMatchObject({ partner: { name: "Examples Ltd", code: "EXAMPLES", shareBps: 1500, status: "active" } });
      if (endpoint.path === "/api/v1/analytics")
        expect(fromCurl).toMatchObject({ period: "7d", cards: { sent: { value: 0, previous: 0 } } });
      if (endpoint.path === "/api/v1/templates" && endpoint.method === "GET")
        expect(fromCurl).toEqual({ data: [], nextCursor: null, hasMore: false });
      if (endpoint.path === "/api/v1/templates" && endpoint.method === "POST")
        expect(fromCurl).toMatchObject({ name: "order_update", status: "pending" });
      if (endpoint.path === "/api/v1/media" || endpoint.path === "/api/v1/media/{id}")
        expect(fromCurl, endpoint.method).toEqual({
          id: expect.any(String),
          mimeType: "image/jpeg",
          size: photo.length,
          sha256: createHash("sha256").update(photo).digest("hex"),
          fileName: "photo.jpg",
          createdAt: expect.any(String),
        });
      if (endpoint.path === "/api/v1/contacts" && endpoint.method === "POST")
        expect(fromCurl).toMatchObject({ name: "Amina Hassan", phone: "+254712345678", tags: ["members", "nairobi"], optIn: "opted_in" });
      if (endpoint.path === "/api/v1/contacts/{id}" && endpoint.method === "PATCH")
        expect(fromCurl.tags).toEqual(["members", "nairobi", "vip"]);
      if (endpoint.path === "/api/v1/contacts/{id}/consent") expect(fromCurl.optIn).toBe("opted_out");
      if (endpoint.path === "/api/v1/automations/rules" && endpoint.method === "GET")
        expect(fromCurl).toEqual({ data: [], hasMore: false });
      if (endpoint.path === "/api/v1/automations/rules" && endpoint.method === "POST")
        expect(fromCurl).toMatchObject({ name: "Prices", matchType: "fuzzy", threshold: 0.8, position: 1, enabled: true });
      if (endpoint.path === "/api/v1/automations/rules/{id}" && endpoint.method === "PATCH")
        expect(fromCurl).toMatchObject({ keywords: ["price", "bei", "how much", "gharama"], cooldownMinutes: 60, position: 1 });
      if (endpoint.path === "/api/v1/automations/settings" && endpoint.method === "PATCH")
        expect(fromCurl).toMatchObject({
          welcome: { enabled: true },
          hours: { monday: [{ from: "08:00", to: "17:00" }], sunday: [] },
          timeZone: "Africa/Nairobi",
        });
      if (endpoint.path === "/api/v1/hooks" && endpoint.method === "GET") expect(fromCurl).toEqual({ data: [], hasMore: false });
      if (endpoint.path === "/api/v1/hooks" && endpoint.method === "POST")
        expect(fromCurl).toMatchObject({
          event: "message.received",
          targetUrl: `${ZAPIER_STAND_IN}hooks/standard/1234567/abcdefg/`,
          secret: expect.stringMatching(/^whsec_/),
        });
      if (endpoint.path === "/api/v1/template-samples")
        expect(fromCurl).toEqual({ id: expect.any(String), contentType: "image/png", size: png.length });
    });
    // The campaign examples answer the same in each language, but for ids, times and the number.
    const sameCampaign = (value: Record<string, unknown>): Record<string, unknown> => {
      if (Array.isArray(value.data)) return { ...value, data: value.data.map(sameCampaign) };
      return { ...value, id: "", from: "", phoneNumberId: "", createdAt: "", startedAt: "", finishedAt: "" };
    };
    campaignOutputs.curl!.forEach((curl, i) => {
      expect(sameCampaign(JSON.parse(campaignOutputs.javascript![i]!)), `campaign example ${i}`).toEqual(sameCampaign(JSON.parse(curl)));
      expect(sameCampaign(JSON.parse(campaignOutputs.python![i]!)), `campaign example ${i}`).toEqual(sameCampaign(JSON.parse(curl)));
    });

    // The GET of one template shows what the POST made, in each language.
    for (const language of ["curl", "javascript", "python"] as const)
      expect(JSON.parse(outputs[language]![6]!)).toEqual(JSON.parse(outputs[language]![5]!));

    // With a revoked key the same examples fail loudly, with the API's code.
    await run(regenerateApi.action, jsonRequest("/api/developer/api-key/regenerate", {}, { cookie: t.cookie }));
    await expect(run$("sh", ["-c", pages.curl.endpoints[0]!.example], { env: envVars })).rejects.toMatchObject({
      stdout: expect.stringContaining("invalid_api_key"),
    });
    await expect(runExample("javascript", pages.javascript.endpoints[3]!.example, envVars)).rejects.toMatchObject({
      stderr: expect.stringContaining("invalid_api_key"),
    });
    await expect(runExample("python", pages.python.endpoints[3]!.example, envVars)).rejects.toMatchObject({
      stderr: expect.stringContaining("invalid_api_key: The API key is not valid or has been revoked."),
    });
    // Some 150 programs run one after another (each a curl, node or python3 process): about a minute
    // alone, more while the suite's other files share the cores (240 s was reached twice on a loaded
    // machine): the limit guards against a hang, it times nothing.
  }, 480_000);
});

describe("webhook URL rules", () => {
  const publicResolver = async () => ["196.201.214.200"];
  it("refuses a host name that does not resolve, changing nothing, and accepts one that resolves to a public address", async () => {
    const t = await tenant("Hooks Ltd");
    const saved = await run(
      developersPage.action,
      formRequest(
        "/developers",
        { intent: "webhook", url: "https://hooks.example.co.ke/jumbe", events: ["message.read", "message.failed"] },
        { cookie: t.cookie },
      ),
    );
    // example.co.ke does not resolve without a network: refused with a clear message, nothing saved.
    expect(saved.status).toBe(400);
    expect(saved.data.result.error).toEqual({ url: ["The host name hooks.example.co.ke could not be resolved."] });
    expect((await run(developersPage.loader, getRequest("/developers", { cookie: t.cookie }))).data.webhook.url).toBe("");
    expect(await checkWebhookUrl("https://hooks.example.co.ke/jumbe#frag", publicResolver)).toEqual({
      ok: true,
      url: "https://hooks.example.co.ke/jumbe",
    });
  });

  it("refuses private, loopback and link-local addresses, also behind a host name", async () => {
    expect(await checkWebhookUrl("https://localhost/hook")).toEqual({
      ok: false,
      message: "The webhook URL must not point to a private, loopback or link-local address.",
    });
    for (const url of [
      "https://127.0.0.1/x",
      "https://10.1.2.3/x",
      "https://192.168.0.10/x",
      "https://172.20.0.1/x",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/x",
      "https://[fe80::1]/x",
      "https://[::ffff:127.0.0.1]/x",
      "https://100.64.0.1/x",
    ])
      expect(await checkWebhookUrl(url), url).toMatchObject({ ok: false });
    expect(await checkWebhookUrl("https://sneaky.example/x", async () => ["203.0.113.9", "127.0.0.1"])).toMatchObject({ ok: false });
    expect(await checkWebhookUrl("https://user:pw@hooks.example/x", publicResolver)).toMatchObject({
      ok: false,
      message: "The webhook URL must not contain a user name or password.",
    });
    expect(isForbiddenAddress("196.201.214.200")).toBe(false);
    expect(isForbiddenAddress("2c0f:fe38::1")).toBe(false);
  });

  it("accepts only https in production", async () => {
    expect(await checkWebhookUrl("http://hooks.example/x", publicResolver)).toMatchObject({ ok: true });
    setEnv(
      parseEnv({
        NODE_ENV: "production",
        SESSION_SECRET: "s".repeat(40),
        ENCRYPTION_KEY: "ab".repeat(32),
        SMTP_URL: "smtp://m:25",
        META_APP_ID: "123456789",
        META_APP_SECRET: "p".repeat(32),
        META_CONFIG_ID: "987654321",
        META_VERIFY_TOKEN: "v".repeat(32),
        ...PRODUCTION_PAYMENTS,
      }),
    );
    expect(await checkWebhookUrl("http://hooks.example/x", publicResolver)).toEqual({
      ok: false,
      message: "The webhook URL must use https.",
    });
    expect(await checkWebhookUrl("https://hooks.example/x", publicResolver)).toMatchObject({ ok: true });
  });

  it("keeps a tenant's webhook to itself and needs at least one event", async () => {
    const t = await tenant("Events Ltd");
    const none = await run(
      developersPage.action,
      formRequest("/developers", { intent: "webhook", url: "https://8.8.8.8/hook" }, { cookie: t.cookie }),
    );
    expect(none.data.result.error).toEqual({ events: ["Choose at least one event."] });
    const unknown = await run(
      developersPage.action,
      formRequest("/developers", { intent: "webhook", url: "https://8.8.8.8/hook", events: ["message.sent"] }, { cookie: t.cookie }),
    );
    expect(unknown.data.result.error).toEqual({ "events[0]": ["Unknown webhook event."] });
    const blank = await run(
      developersPage.action,
      formRequest("/developers", { intent: "webhook", url: "  ", events: ["message.read"] }, { cookie: t.cookie }),
    );
    expect(blank.data.result.error).toEqual({ url: ["Enter the webhook URL."] });
    const ok = await run(
      developersPage.action,
      formRequest("/developers", { intent: "webhook", url: "https://8.8.8.8/hook", events: ["message.received"] }, { cookie: t.cookie }),
    );
    expect(ok.location).toBe("/developers");
    const other = await tenant("Other Ltd");
    const page = await run(developersPage.loader, getRequest("/developers", { cookie: other.cookie }));
    expect(page.data.webhook).toEqual({
      url: "",
      events: [
        "message.delivered",
        "message.read",
        "message.failed",
        "message.received",
        "conversation.handover",
        "flow.completed",
        "partner.settlement.paid",
        "payment_request.paid",
        "payment_request.failed",
        "payment_request.expired",
        "payment_request.cancelled",
      ],
      updatedAt: null,
    });
    const mine = await run(developersPage.loader, getRequest("/developers", { cookie: t.cookie }));
    expect(mine.data.webhook).toMatchObject({ url: "https://8.8.8.8/hook", events: ["message.received"] });
  });
});
