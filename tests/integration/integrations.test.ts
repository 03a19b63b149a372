import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { rawQuery, db } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { claimJobs, completeJobs } from "~/.server/infrastructure/jobs/queue";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { WEBHOOK_OUT_QUEUE, emitWebhookEvent, enqueueMessageEvents, type DeliveryJob } from "~/.server/domains/webhooks-out/events";
import { runDeliveryJobs } from "~/.server/domains/webhooks-out/deliver";
import {
  ProviderError,
  registerProvider,
  unregisterProvider,
  type IntegrationProvider,
  type ProviderTokens,
} from "~/.server/domains/integrations/providers";
import { refreshExpiringTokens, tokenForUse } from "~/.server/domains/integrations/tokens";
import { recordSync } from "~/.server/domains/integrations/connections";
import * as integrationsPage from "~/routes/app/integrations/index";
import * as callbackRoute from "~/routes/app/integrations/callback";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { appFetch } from "../support/in-process-app";
import { APP, formRequest, getRequest, run } from "../support/http";

// Issue 45: the Integrations catalogue on each organisation's own rows, the generic OAuth flow
// (state, callback, sealed tokens, refresh ahead of expiry by one instance, disconnect) driven by a
// provider double registered only here, and REST hooks through the public API, delivered by webhooks
// out to a receiver on loopback.

// ---- A provider double: what a connector implements, answering from memory. ------------------------
const fake = {
  exchanged: [] as string[],
  refreshes: 0,
  revoked: [] as { accessToken: string | null; refreshToken: string | null }[],
  refreshFails: false,
  refreshDelayMs: 0,
  exchangeFails: false,
};
let issued = 0;
const tokens = (expiresInSeconds = 1800): ProviderTokens => {
  issued++;
  return {
    accessToken: `fake-access-${issued}`,
    refreshToken: `fake-refresh-${issued}`,
    expiresAt: new Date(Date.now() + expiresInSeconds * 1000),
    scopes: ["crm.objects.contacts.read", "crm.objects.contacts.write"],
  };
};
const fakeHubSpot: IntegrationProvider = {
  id: "hubspot",
  authorizeUrl: ({ state, redirectUri }) =>
    `http://127.0.0.1:9/oauth/authorize?${new URLSearchParams({ state, redirect_uri: redirectUri, client_id: "test" })}`,
  async exchangeCode({ code }) {
    if (fake.exchangeFails) throw new ProviderError("BAD_AUTH_CODE: the code has expired");
    fake.exchanged.push(code);
    return tokens();
  },
  async refresh() {
    fake.refreshes++;
    if (fake.refreshDelayMs) await new Promise((resolve) => setTimeout(resolve, fake.refreshDelayMs));
    if (fake.refreshFails) throw new ProviderError("invalid_grant: refresh token revoked", { grantGone: true });
    return tokens();
  },
  async revoke(held) {
    fake.revoked.push(held);
  },
  account: async () => ({ label: "shamba-fresh.example (portal 4411)", externalId: "4411" }),
};

// ---- A receiver for REST hook deliveries, on loopback. -----------------------------------------------
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
let received: Received[] = [];
let answerStatus = 200;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    res.writeHead(answerStatus).end("ok");
  });
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: APP, WEBHOOK_ALLOW_LOOPBACK: "1" }));
  Object.assign(fake, { exchanged: [], refreshes: 0, revoked: [], refreshFails: false, refreshDelayMs: 0, exchangeFails: false });
  received = [];
  answerStatus = 200;
  registerProvider(fakeHubSpot);
});
afterEach(() => unregisterProvider("hubspot"));

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  return { ...account, cookie, organizationId: account.organization.id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const page = (t: Tenant, query = "") => run(integrationsPage.loader, getRequest(`/integrations${query}`, { cookie: t.cookie }));
const post = (t: Tenant, fields: Record<string, string>) =>
  run(integrationsPage.action, formRequest("/integrations", fields, { cookie: t.cookie }));
const callback = (t: Tenant, provider: string, query: Record<string, string>) =>
  run(callbackRoute.loader, getRequest(`/integrations/${provider}/callback?${new URLSearchParams(query)}`, { cookie: t.cookie }), {
    params: { provider },
  });
const statusOf = async (t: Tenant, id: string) =>
  ((await page(t)).data.cards as { id: string; status: string }[]).find((card) => card.id === id)?.status;
const rows = (text: string, params: unknown[]) => rawQuery<Record<string, unknown>>(text, params);
const count = async (table: "integration_oauth_states" | "integration_connections", organizationId: string) =>
  (await rows(`select count(*)::int as n from ${table} where organization_id = $1`, [organizationId]))[0]!.n;
const actions = async (organizationId: string) =>
  (await rows(`select action from activity_logs where organization_id = $1 order by created_at, id`, [organizationId])).map(
    (r) => r.action,
  );

/** Starts connecting and answers the state the provider's consent page would carry back. */
async function startHubSpot(t: Tenant) {
  const started = await post(t, { intent: "connect", integration: "hubspot" });
  expect(started.status, JSON.stringify(started.data)).toBe(302);
  const location = new URL(started.location!);
  expect(location.origin + location.pathname).toBe("http://127.0.0.1:9/oauth/authorize");
  expect(location.searchParams.get("redirect_uri")).toBe(`${APP}/integrations/hubspot/callback`);
  return location.searchParams.get("state")!;
}

async function connectHubSpot(t: Tenant) {
  const state = await startHubSpot(t);
  const done = await callback(t, "hubspot", { code: "code-from-hubspot", state });
  expect(done.status, JSON.stringify(done.data)).toBe(302);
  expect(done.location).toBe("/integrations");
}

describe("the catalogue", () => {
  it("shows the spec's categories and statuses, each card's status from the organisation's own rows", async () => {
    const a = await tenant("Shamba Fresh Exporters");
    const b = await tenant("Pwani Boda Riders");
    const cards = (await page(a)).data.cards as {
      id: string;
      category: string;
      status: string;
      setupComplexity: string;
      features: string[];
    }[];
    expect(cards.map((c) => [c.id, c.category, c.status])).toEqual([
      ["hubspot", "CRM", "available"],
      ["shopify", "E-commerce", "available"],
      ["google-sheets", "Analytics", "available"],
      ["rest-hooks", "Development", "available"],
      ["salesforce", "CRM", "coming-soon"],
      ["zoho-crm", "CRM", "coming-soon"],
      ["woocommerce", "E-commerce", "coming-soon"],
      ["mailchimp", "Marketing", "coming-soon"],
      ["zendesk", "Support", "coming-soon"],
      ["freshdesk", "Support", "coming-soon"],
    ]);
    expect(cards.every((c) => ["Easy", "Medium", "Advanced"].includes(c.setupComplexity) && c.features.length > 0)).toBe(true);
    // The filter: a category's cards only; anything else is every card.
    expect(((await page(a, "?category=CRM")).data.cards as { id: string }[]).map((c) => c.id)).toEqual([
      "hubspot",
      "salesforce",
      "zoho-crm",
    ]);
    expect(((await page(a, "?category=Nonsense")).data.cards as unknown[]).length).toBe(10);

    await connectHubSpot(a);
    expect(await statusOf(a, "hubspot")).toBe("connected");
    // Another organisation sees none of it.
    expect(await statusOf(b, "hubspot")).toBe("available");
    const connected = ((await page(a)).data.cards as { id: string; connection: unknown }[]).find((c) => c.id === "hubspot")!;
    expect(connected.connection).toMatchObject({ accountLabel: "shamba-fresh.example (portal 4411)", health: "healthy", lastError: null });
    expect(JSON.stringify((await page(a)).data)).not.toContain("fake-access");
  });

  it("opens the connect dialog from the URL, and answers 404 for an unknown one", async () => {
    const t = await tenant("Kilimo Bora Co-op");
    const open = await page(t, "?category=CRM&dialog=connect-shopify");
    expect(open.status).toBe(200);
    expect(open.data.dialog).toMatchObject({ id: "shopify", asks: ["shop"] });
    expect((await page(t, "?dialog=connect-nothing-here")).status).toBe(404);
    expect((await page(t, "?confirm=disconnect&integration=hubspot")).status).toBe(404);
  });

  it("refuses to connect a coming-soon integration on the server, and writes nothing", async () => {
    const t = await tenant("Nyeri Dairy Farmers");
    const refused = await post(t, { intent: "connect", integration: "salesforce" });
    expect(refused.status).toBe(409);
    expect(refused.data.toast.message).toBe("Salesforce is coming soon: it cannot be connected yet.");
    expect(await count("integration_oauth_states", t.organizationId)).toBe(0);
    expect(await count("integration_connections", t.organizationId)).toBe(0);
    expect((await post(t, { intent: "disconnect", integration: "zendesk", confirm: "yes" })).status).toBe(409);
    // Unknown ones, unknown intents and a connector this server lacks: clear 4xx/503 answers, never 500.
    expect((await post(t, { intent: "connect", integration: "myspace" })).status).toBe(404);
    expect((await post(t, { intent: "launch", integration: "hubspot" })).status).toBe(400);
    unregisterProvider("hubspot");
    const missing = await post(t, { intent: "connect", integration: "hubspot" });
    expect(missing.status).toBe(503);
    expect(missing.data.toast.message).toBe("HubSpot cannot be connected on this server yet: its connector is not installed.");
  });
});

describe("the OAuth flow", () => {
  it("stores the tokens sealed, with the account, and logs the connection", async () => {
    const t = await tenant("Mombasa Spice Traders");
    await connectHubSpot(t);
    expect(fake.exchanged).toEqual(["code-from-hubspot"]);
    const [row] = await rows(
      `select status, account_label, external_account_id, scopes, access_token_sealed, refresh_token_sealed, created_by from integration_connections where organization_id = $1`,
      [t.organizationId],
    );
    expect(row).toMatchObject({
      status: "connected",
      account_label: "shamba-fresh.example (portal 4411)",
      external_account_id: "4411",
      scopes: ["crm.objects.contacts.read", "crm.objects.contacts.write"],
      created_by: t.user.id,
    });
    expect(row!.access_token_sealed).not.toContain("fake-access");
    expect(decryptSecret(row!.access_token_sealed as string)).toMatch(/^fake-access-\d+$/);
    expect(decryptSecret(row!.refresh_token_sealed as string)).toMatch(/^fake-refresh-\d+$/);
    expect(await actions(t.organizationId)).toContain("Integration connected");
    // The state was spent.
    expect(await count("integration_oauth_states", t.organizationId)).toBe(0);
  });

  it("takes a state once, within its minutes, and only from the member and organisation it was issued to", async () => {
    const a = await tenant("Lamu Dhow Tours");
    const b = await tenant("Turkana Solar Kiosks");
    const state = await startHubSpot(a);
    // Another organisation's member with A's state: refused, and A's state is left for A.
    const foreign = await callback(b, "hubspot", { code: "c", state });
    expect(foreign.status).toBe(400);
    expect(foreign.data).toBe("This connection request is not valid or has expired. Start again from the Integrations page.");
    expect(await count("integration_connections", b.organizationId)).toBe(0);
    // The right member: once.
    expect((await callback(a, "hubspot", { code: "c", state })).status).toBe(302);
    expect((await callback(a, "hubspot", { code: "c", state })).status).toBe(400);
    // A state past its ten minutes.
    const stale = await startHubSpot(a);
    await rawQuery(`update integration_oauth_states set expires_at = now() - interval '1 second' where organization_id = $1`, [
      a.organizationId,
    ]);
    expect((await callback(a, "hubspot", { code: "c", state: stale })).status).toBe(400);
    // No state, a declined consent, a provider that refuses the code: 4xx/502 in words, nothing stored.
    expect((await callback(b, "hubspot", { code: "c" })).status).toBe(400);
    const declined = await callback(b, "hubspot", { error: "access_denied", state: await startHubSpot(b) });
    expect(declined.status).toBe(400);
    fake.exchangeFails = true;
    const failed = await callback(b, "hubspot", { code: "c", state: await startHubSpot(b) });
    expect(failed.status).toBe(502);
    expect(failed.data).toBe("HubSpot could not be connected: BAD_AUTH_CODE: the code has expired");
    expect(await count("integration_connections", b.organizationId)).toBe(0);
    expect((await actions(b.organizationId)).filter((a) => a === "Integration connection failed")).toHaveLength(2);
    // A coming-soon provider's callback is refused like its connect.
    expect((await callback(a, "salesforce", { code: "c", state })).status).toBe(409);
  });
});

describe("tokens", () => {
  const expireIn = (t: Tenant, seconds: number) =>
    rawQuery(`update integration_connections set token_expires_at = now() + make_interval(secs => $2) where organization_id = $1`, [
      t.organizationId,
      seconds,
    ]);
  const sealedAccess = async (t: Tenant) =>
    decryptSecret(
      (await rows(`select access_token_sealed from integration_connections where organization_id = $1`, [t.organizationId]))[0]!
        .access_token_sealed as string,
    );

  it("hands out the token while it is fresh, and refreshes it shortly before it expires, once for two callers at once", async () => {
    const t = await tenant("Kisumu Fish Co");
    await connectHubSpot(t);
    const first = await sealedAccess(t);
    expect(await tokenForUse(t.organizationId, "hubspot")).toBe(first);
    expect(fake.refreshes).toBe(0);
    await expireIn(t, 60);
    fake.refreshDelayMs = 150;
    const [one, two] = await Promise.all([tokenForUse(t.organizationId, "hubspot"), tokenForUse(t.organizationId, "hubspot")]);
    expect(fake.refreshes).toBe(1);
    const renewed = await sealedAccess(t);
    expect(renewed).not.toBe(first);
    // The caller that did not refresh used the old token while it still worked, or the new one.
    expect([one, two]).toContain(renewed);
    expect([first, renewed]).toContain(one === renewed ? two : one);
    // The recurring job refreshes what expires within its window, and nothing else.
    await expireIn(t, 3000);
    expect(await refreshExpiringTokens()).toBe(0);
    await expireIn(t, 200);
    expect(await refreshExpiringTokens()).toBe(1);
    expect(fake.refreshes).toBe(2);
    // A foreign organisation has no token to use.
    const other = await tenant("Eldoret Grain Millers");
    await expect(tokenForUse(other.organizationId, "hubspot")).rejects.toSatisfy((e: unknown) => isRefusal(e) && e.status === 404);
  });

  it("marks the connection unhealthy with its last error when a refresh fails", async () => {
    const t = await tenant("Machakos Mango Growers");
    await connectHubSpot(t);
    await expireIn(t, 30);
    fake.refreshFails = true;
    await expect(tokenForUse(t.organizationId, "hubspot")).rejects.toSatisfy(
      (e: unknown) =>
        isRefusal(e) &&
        e.status === 502 &&
        e.message === "HubSpot no longer accepts Jumbe's access. Connect it again on the Integrations page.",
    );
    const card = ((await page(t)).data.cards as { id: string; connection: { health: string; lastError: string } }[]).find(
      (c) => c.id === "hubspot",
    )!;
    expect(card.connection).toMatchObject({ health: "unhealthy", lastError: "Token refresh failed: invalid_grant: refresh token revoked" });
    expect(await actions(t.organizationId)).toContain("Integration token refresh failed");
    // A sync after it is the connectors' record: healthy again, with its time.
    await recordSync(t.organizationId, "hubspot", { ok: true, summary: "12 contacts", state: { after: "12" } });
    const [row] = await rows(`select health, last_sync_at, sync_state from integration_connections where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(row).toMatchObject({ health: "healthy", sync_state: { after: "12" } });
    expect(row!.last_sync_at).not.toBeNull();
    expect(await actions(t.organizationId)).toContain("Integration synced");
    // A token past its time with no refresh token: unhealthy at once, without waiting on a refresh.
    await rawQuery(
      `update integration_connections set refresh_token_sealed = null, token_expires_at = now() - interval '1 minute' where organization_id = $1`,
      [t.organizationId],
    );
    await expect(tokenForUse(t.organizationId, "hubspot")).rejects.toSatisfy((e: unknown) => isRefusal(e) && e.status === 502);
    const [expired] = await rows(`select health, last_error from integration_connections where organization_id = $1`, [t.organizationId]);
    expect(expired).toEqual({ health: "unhealthy", last_error: "The access token expired and there is no refresh token." });
  });
});

describe("the page as drawn", () => {
  it("shows a connected card's account, health, last sync and last error, and a Disconnect that asks first", async () => {
    const t = await tenant("Voi Sisal Growers");
    await connectHubSpot(t);
    await recordSync(t.organizationId, "hubspot", { ok: false, error: "HubSpot answered 429 (TEN_SECONDLY_ROLLING)" });
    const html = async (query = "") => {
      const response = await appFetch(getRequest(`/integrations${query}`, { cookie: t.cookie, headers: { accept: "text/html" } }));
      expect(response.status).toBe(200);
      return (await response.text()).replace(/<!-- -->/g, "");
    };
    const page = await html();
    const card = page.slice(page.indexOf('data-integration="hubspot"'), page.indexOf('data-integration="shopify"'));
    expect(card).toContain("shamba-fresh.example (portal 4411)");
    expect(card).toContain("Needs attention");
    expect(card).toContain("HubSpot answered 429 (TEN_SECONDLY_ROLLING)");
    expect(card).toContain("Last sync");
    expect(card).toContain('href="/integrations?confirm=disconnect&amp;integration=hubspot"');
    // A coming-soon card has nothing to press.
    const salesforce = page.slice(page.indexOf('data-integration="salesforce"'), page.indexOf('data-integration="zoho-crm"'));
    expect(salesforce).toContain("Not available to connect yet.");
    expect(salesforce).not.toContain("<a ");
    // The question, then the dialog: both drawn by the server.
    expect(await html("?confirm=disconnect&integration=hubspot")).toContain("Disconnect HubSpot?");
    const dialog = await html("?dialog=connect-hubspot");
    expect(dialog).toMatch(/<dialog[^>]*open=""[^>]*aria-labelledby="dialog-connect-hubspot-title"/);
    expect(dialog).toContain("Connect HubSpot again");
  });
});

describe("disconnecting", () => {
  it("asks first, clears the tokens, revokes them at the provider and logs it; another organisation's stays", async () => {
    const a = await tenant("Naivasha Flower Farm");
    const b = await tenant("Thika Pineapple Co");
    await connectHubSpot(a);
    await connectHubSpot(b);
    expect((await post(a, { intent: "disconnect", integration: "hubspot" })).status).toBe(400);
    expect((await page(a, "?confirm=disconnect&integration=hubspot")).data.disconnecting).toEqual({ id: "hubspot", name: "HubSpot" });
    const done = await post(a, { intent: "disconnect", integration: "hubspot", confirm: "yes" });
    expect(done.status).toBe(302);
    expect(fake.revoked).toEqual([
      { accessToken: expect.stringMatching(/^fake-access-/), refreshToken: expect.stringMatching(/^fake-refresh-/) },
    ]);
    const [row] = await rows(
      `select status, access_token_sealed, refresh_token_sealed from integration_connections where organization_id = $1`,
      [a.organizationId],
    );
    expect(row).toEqual({ status: "disconnected", access_token_sealed: null, refresh_token_sealed: null });
    expect(await statusOf(a, "hubspot")).toBe("available");
    expect(await statusOf(b, "hubspot")).toBe("connected");
    expect(await actions(a.organizationId)).toContain("Integration disconnected");
    // Again: nothing to disconnect.
    expect((await post(a, { intent: "disconnect", integration: "hubspot", confirm: "yes" })).status).toBe(404);
  });
});

describe("REST hooks", () => {
  async function withKey(name: string) {
    const t = await tenant(name);
    const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie: t.cookie }));
    return { ...t, key: read.data.key as string };
  }
  const api = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await handleApiV1(
      new Request(`${APP}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const target = (path = "/zap") => `http://127.0.0.1:${port}${path}`;
  async function deliverAll() {
    for (let round = 0; round < 5; round++) {
      const claimed = await claimJobs<DeliveryJob>(WEBHOOK_OUT_QUEUE, 20, 60_000);
      if (!claimed.length) return;
      await runDeliveryJobs(claimed);
      await completeJobs(
        db(),
        claimed.map((j) => j.id),
      );
    }
  }

  it("subscribe, list and unsubscribe through the API; a foreign or malformed id answers 404; bad input a clear 4xx", async () => {
    const a = await withKey("Kericho Tea Estates");
    const b = await withKey("Malindi Beach Resort");
    const created = await api(a.key, "POST", "/api/v1/hooks", { targetUrl: target(), event: "message.received" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ event: "message.received", targetUrl: target(), lastDeliveryAt: null });
    expect(created.body.secret).toMatch(/^whsec_/);
    const listed = await api(a.key, "GET", "/api/v1/hooks");
    expect(listed.body.data.map((h: { id: string }) => h.id)).toEqual([created.body.id]);
    expect(JSON.stringify(listed.body)).not.toContain("whsec_");
    expect((await api(b.key, "GET", "/api/v1/hooks")).body.data).toEqual([]);
    expect((await api(b.key, "DELETE", `/api/v1/hooks/${created.body.id}`)).status).toBe(404);
    expect((await api(a.key, "DELETE", "/api/v1/hooks/not-a-uuid")).status).toBe(404);
    expect(await api(a.key, "POST", "/api/v1/hooks", { targetUrl: target(), event: "message.received" })).toMatchObject({
      status: 409,
      body: { code: "hook_exists" },
    });
    for (const bad of [
      { targetUrl: target() },
      { targetUrl: target(), event: "order.created" },
      { targetUrl: target(), event: "message.received", extra: 1 },
      "{not json",
    ])
      expect((await api(a.key, "POST", "/api/v1/hooks", bad)).status).toBe(400);
    setEnv(parseEnv({ NODE_ENV: "test", APP_URL: APP }));
    expect(await api(a.key, "POST", "/api/v1/hooks", { targetUrl: "http://10.0.0.7/hook", event: "contact.created" })).toMatchObject({
      status: 422,
      body: { code: "invalid_hook", field: "targetUrl" },
    });
    expect((await api(a.key, "POST", "/api/v1/hooks", { targetUrl: "ftp://example.com/x", event: "contact.created" })).status).toBe(422);
    expect((await api(a.key, "DELETE", `/api/v1/hooks/${created.body.id}`)).status).toBe(204);
    expect((await api(a.key, "GET", "/api/v1/hooks")).body.data).toEqual([]);
    expect(await actions(a.organizationId)).toEqual(expect.arrayContaining(["REST hook subscribed", "REST hook unsubscribed"]));
  });

  it("delivers each subscribed event signed with the hook's secret, shows it on the card, and a 410 removes the hook", async () => {
    const t = await withKey("Nakuru Poultry Farm");
    const other = await withKey("Garissa Camel Milk");
    const subscribe = async (event: string, path: string) =>
      (await api(t.key, "POST", "/api/v1/hooks", { targetUrl: target(path), event })).body as { id: string; secret: string };
    const onContact = await subscribe("contact.created", "/contacts");
    const onMessage = await subscribe("message.received", "/messages");
    const onStatus = await subscribe("message.status", "/statuses");
    const onHandover = await subscribe("conversation.handover", "/handover");
    // Another organisation's hook never hears this one's events.
    await api(other.key, "POST", "/api/v1/hooks", { targetUrl: target("/other"), event: "contact.created" });

    const contact = await api(t.key, "POST", "/api/v1/contacts", { name: "Wanjiku Kamau", phone: "0712 345 001" });
    expect(contact.status).toBe(200);
    const [message] = await rows(
      `insert into messages (organization_id, direction, status, body, wamid, phone_number_id, message_type, sent_at)
       values ($1, 'inbound', 'received', 'Habari, nataka mayai', 'wamid.hook1', '1000000000000002', 'text', now()) returning id`,
      [t.organizationId],
    );
    const [sent] = await rows(
      `insert into messages (organization_id, direction, status, body, wamid, phone_number_id, message_type, recipient_phone, sent_at, delivered_at)
       values ($1, 'outbound', 'delivered', 'Asante', 'wamid.hook2', '1000000000000002', 'text', '+254712345001', now(), now()) returning id`,
      [t.organizationId],
    );
    await enqueueMessageEvents(db(), [
      { organizationId: t.organizationId, type: "message.received", messageId: message!.id as string },
      { organizationId: t.organizationId, type: "message.delivered", messageId: sent!.id as string },
    ]);
    await emitWebhookEvent(db(), { organizationId: t.organizationId, type: "conversation.handover", data: { conversationId: "c-1" } });
    await deliverAll();

    const verify = (hook: { secret: string }, r: Received) =>
      new Webhook(hook.secret).verify(r.body, {
        "webhook-id": r.headers["webhook-id"] as string,
        "webhook-timestamp": r.headers["webhook-timestamp"] as string,
        "webhook-signature": r.headers["webhook-signature"] as string,
      }) as { type: string; data: Record<string, unknown> };
    const find = (type: string) => received.find((r) => JSON.parse(r.body).type === type)!;
    expect(verify(onContact, find("contact.created")).data).toMatchObject({ name: "Wanjiku Kamau", phone: "+254712345001" });
    expect(verify(onMessage, find("message.received")).data).toMatchObject({ id: message!.id, body: "Habari, nataka mayai" });
    expect(verify(onStatus, find("message.status")).data).toMatchObject({ id: sent!.id, status: "delivered" });
    expect(verify(onHandover, find("conversation.handover")).data).toEqual({ conversationId: "c-1" });
    // Signed with the hook's own secret, not another's.
    expect(() => verify(onMessage, find("contact.created"))).toThrow();
    // None went to the other organisation's hook; the webhook endpoint's own list shows none of them.
    expect(received.some((r) => r.body.includes("Garissa"))).toBe(false);
    expect(received).toHaveLength(4);

    const card = (
      (await page(t)).data.cards as { id: string; status: string; hooks: { count: number; lastDeliveryStatus: number } }[]
    ).find((c) => c.id === "rest-hooks")!;
    expect(card).toMatchObject({ status: "connected", hooks: { count: 4, lastDeliveryStatus: 200 } });

    // The target says it is gone: the hook is removed, and says so in the log.
    answerStatus = 410;
    received = [];
    await api(t.key, "POST", "/api/v1/contacts", { name: "Otieno Ouma", phone: "0712 345 002" });
    await deliverAll();
    expect(received).toHaveLength(1);
    expect((await api(t.key, "GET", "/api/v1/hooks")).body.data.map((h: { event: string }) => h.event)).toEqual([
      "message.received",
      "message.status",
      "conversation.handover",
    ]);
    expect(await actions(t.organizationId)).toContain("REST hook removed by its target");
    // A refused target (a closed port): retried later, the hook kept, its last delivery without an answer.
    answerStatus = 200;
    await rawQuery(`update rest_hooks set target_url = 'http://127.0.0.1:9/closed' where id = $1`, [onMessage.id]);
    await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.received", messageId: sent!.id as string }]);
    await deliverAll();
    const [kept] = await rows(`select last_delivery_status from rest_hooks where id = $1`, [onMessage.id]);
    expect(kept).toEqual({ last_delivery_status: null });
    const [pending] = await rows(`select status, error from webhook_deliveries where hook_id = $1 and message_id = $2`, [
      onMessage.id,
      sent!.id,
    ]);
    expect(pending).toEqual({ status: "pending", error: "Connection refused." });

    // Disconnecting REST hooks on the page removes them all.
    expect((await post(t, { intent: "disconnect", integration: "rest-hooks", confirm: "yes" })).status).toBe(302);
    expect((await api(t.key, "GET", "/api/v1/hooks")).body.data).toEqual([]);
    expect(await statusOf(t, "rest-hooks")).toBe("available");
  });
});
