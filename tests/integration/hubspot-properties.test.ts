import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { registerHubspotConnector } from "~/.server/composition/hubspot-connector";
import { saveContact } from "~/.server/domains/contacts/manage";
import { enqueueHubspotSync, HUBSPOT_SYNC_QUEUE } from "~/.server/domains/integrations/hubspot/sync";
import { hubspotConnection } from "~/.server/domains/integrations/hubspot/calls";
import { ensureHubspotProperties } from "~/.server/domains/integrations/hubspot/properties";
import { resetPacer } from "~/.server/domains/integrations/hubspot/pacer";
import * as integrationsPage from "~/routes/app/integrations/index";
import * as settingsPage from "~/routes/app/integrations/hubspot";
import * as callbackRoute from "~/routes/app/integrations/callback";
import { startHubspot, CLIENT_ID, CLIENT_SECRET, DUKA_HUB_ID, type HubspotHarness } from "@jumbe/sandbox/hubspot/test-support";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, formRequest, getRequest, run } from "../support/http";

// Issue 73, decision 107: Jumbe makes the HubSpot properties it writes (on connect, and again when
// due), through HubSpot's Properties API against the sandbox, which refuses records naming a
// property the portal lacks as HubSpot does. A portal that refuses them shows which are missing and
// why, and the sync waits for them instead of failing at every message.

let h: HubspotHarness;
const before = env();
beforeAll(async () => {
  h = await startHubspot({ accessTokenTtlMs: 30 * 60_000 });
  registerHubspotConnector();
});
afterAll(async () => {
  setEnv(before);
  await h.close();
});
beforeEach(() => {
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: APP,
      HUBSPOT_CLIENT_ID: CLIENT_ID,
      HUBSPOT_CLIENT_SECRET: CLIENT_SECRET,
      HUBSPOT_AUTH_URL: h.base,
      HUBSPOT_API_URL: h.base,
    }),
  );
  h.sandbox.reset();
  resetPacer();
});

/** What an install made before Jumbe asked for the schema scope: no right to create properties. */
const OLD_SCOPES = "oauth crm.objects.contacts.read crm.objects.contacts.write crm.lists.read";

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  return { ...account, cookie, organizationId: account.organization.id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const rows = <T = Record<string, unknown>>(text: string, params: unknown[]) => rawQuery<T & Record<string, unknown>>(text, params);

/** Connects through the sandbox's consent page; `scope` overrides what the consent grants. */
async function connect(t: Tenant, scope?: string) {
  const started = await run(
    integrationsPage.action,
    formRequest("/integrations", { intent: "connect", integration: "hubspot" }, { cookie: t.cookie }),
  );
  expect(started.status).toBe(302);
  const consent = new URL(started.location!);
  const allowed = await h.postForm("/oauth/authorize", {
    client_id: consent.searchParams.get("client_id")!,
    redirect_uri: consent.searchParams.get("redirect_uri")!,
    scope: scope ?? consent.searchParams.get("scope")!,
    state: consent.searchParams.get("state")!,
    hub_id: String(DUKA_HUB_ID),
    decision: "allow",
  });
  const back = new URL(allowed.headers.get("location")!);
  const done = await run(callbackRoute.loader, getRequest(`/integrations/hubspot/callback${back.search}`, { cookie: t.cookie }), {
    params: { provider: "hubspot" },
  });
  expect(done.status, JSON.stringify(done.data)).toBe(302);
}

async function sync(t: Tenant) {
  expect(await enqueueHubspotSync(t.organizationId)).not.toBeNull();
  expect(await runJobBatch(HUBSPOT_SYNC_QUEUE)).toBe(1);
}

type Portal = { hubId: number; customProperties: { contacts: string[]; communications: string[] } };
const portalProperties = async () =>
  (await h.control<{ portals: Portal[] }>("/portals")).json.portals.find((p) => p.hubId === DUKA_HUB_ID)!.customProperties;
const communications = async () =>
  (await h.control<{ communications: { properties: Record<string, string> }[] }>(`/portals/${DUKA_HUB_ID}/communications`)).json
    .communications;
const hsContacts = async () =>
  (await h.control<{ contacts: { properties: Record<string, string> }[] }>(`/portals/${DUKA_HUB_ID}/contacts`)).json.contacts;
const activity = async (t: Tenant) =>
  rows<{ action: string; status: string; details: string }>(
    `select action, status, details from activity_logs where organization_id = $1 and action like 'HubSpot properties%' order by created_at, id`,
    [t.organizationId],
  );
const settings = async (t: Tenant) =>
  (await run(settingsPage.loader, getRequest("/integrations/hubspot", { cookie: t.cookie }))).data as {
    missingProperties: { contacts: string[]; communications: string[]; reason: string; detail: string } | null;
    connection: { counts: Record<string, number> };
  };
const propertyCalls = () => h.sandbox.calls().filter((c) => c.path.includes("/crm/v3/properties/"));

async function withMessages(name: string) {
  const t = await tenant(name);
  const grace = (await saveContact(t, { name: "Grace Mutua", phone: "+254711000010" })).contact;
  for (const [direction, status, body] of [
    ["inbound", "received", "Habari, mna mkate wa ngano?"],
    ["outbound", "delivered", "Ndiyo, tuko nao. Karibu!"],
  ])
    await rows(`insert into messages (organization_id, contact_id, direction, status, body) values ($1, $2, $3, $4, $5)`, [
      t.organizationId,
      grace.id,
      direction,
      status,
      body,
    ]);
  return t;
}

describe("Jumbe's HubSpot properties", () => {
  it("connecting to a portal without them creates the group and every property, logged; then messages and contacts go through", async () => {
    const t = await withMessages("Machakos Bakers");
    expect(await portalProperties()).toEqual({ contacts: [], communications: [] });
    await connect(t);
    await sync(t);

    expect(await portalProperties()).toEqual({
      contacts: ["jumbe_contact_id", "jumbe_whatsapp_opt_out"],
      communications: ["jumbe_message_id"],
    });
    const token = (await h.connect(DUKA_HUB_ID)).access_token;
    const optOut = await h.api<Record<string, unknown>>("/crm/v3/properties/contacts/jumbe_whatsapp_opt_out", token);
    expect(optOut.json).toMatchObject({ type: "enumeration", fieldType: "booleancheckbox", groupName: "jumbe" });
    expect(await activity(t)).toEqual([
      {
        action: "HubSpot properties created",
        status: "success",
        details: "contacts.jumbe_contact_id, contacts.jumbe_whatsapp_opt_out, communications.jumbe_message_id",
      },
    ]);
    // The writes that need them went through.
    expect((await communications()).map((c) => c.properties.jumbe_message_id)).toHaveLength(2);
    expect((await hsContacts()).some((c) => c.properties.jumbe_contact_id)).toBe(true);
    expect((await settings(t)).missingProperties).toBeNull();
  });

  it("a second check creates nothing: one list call per object, and the next sync makes no property call at all", async () => {
    const t = await tenant("Nyeri Dairy");
    await connect(t);
    await sync(t);
    const afterFirst = propertyCalls().length;
    await sync(t);
    expect(propertyCalls().length).toBe(afterFirst);

    const check = await ensureHubspotProperties((await hubspotConnection(t.organizationId))!);
    expect(check).toMatchObject({ missing: [], reason: null });
    const all = propertyCalls(); // newest first
    expect(
      all
        .slice(0, all.length - afterFirst)
        .reverse()
        .map((c) => `${c.method} ${c.path}`),
    ).toEqual(["GET /sandbox/hubspot/crm/v3/properties/contacts", "GET /sandbox/hubspot/crm/v3/properties/communications"]);
    expect(await activity(t)).toHaveLength(1);
  });

  it("a portal refusing them: the page lists the missing ones and what to do; nothing is logged or sent until they exist, then it catches up", async () => {
    const t = await withMessages("Voi Safari Lodge");
    await connect(t, OLD_SCOPES);
    await sync(t);

    const page = await settings(t);
    expect(page.missingProperties).toEqual({
      contacts: ["jumbe_contact_id", "jumbe_whatsapp_opt_out"],
      communications: ["jumbe_message_id"],
      reason: "scope",
      detail: expect.stringContaining("required scopes"),
    });
    // Paused, not failing message by message: no communication, no contact write refused, the sync itself fine.
    expect(await communications()).toEqual([]);
    const refused = h.sandbox.calls().filter((c) => c.status === 400);
    expect(refused).toEqual([]);
    expect(await rows(`select 1 from hubspot_logged_messages where organization_id = $1`, [t.organizationId])).toHaveLength(0);
    expect(await activity(t)).toEqual([
      {
        action: "HubSpot properties missing",
        status: "warning",
        details: expect.stringContaining("contacts.jumbe_contact_id, contacts.jumbe_whatsapp_opt_out, communications.jumbe_message_id"),
      },
    ]);

    // Connecting again with the permission: the next sync makes them and logs what waited.
    await connect(t);
    await sync(t);
    expect((await settings(t)).missingProperties).toBeNull();
    expect((await communications()).map((c) => c.properties.hs_communication_body)).toEqual([
      "← Habari, mna mkate wa ngano?",
      "→ Ndiyo, tuko nao. Karibu!",
    ]);
  });

  it("a property deleted in HubSpot later: the log says HubSpot's refusal, and the next sync makes it again and logs the message", async () => {
    const t = await withMessages("Kitale Seeds");
    await connect(t);
    await sync(t);
    expect(await communications()).toHaveLength(2);
    const token = (await h.connect(DUKA_HUB_ID)).access_token;
    expect((await h.api("/crm/v3/properties/communications/jumbe_message_id", token, { method: "DELETE" })).status).toBe(204);
    const [grace] = await rows<{ id: string }>(`select id from contacts where organization_id = $1 and phone = '+254711000010'`, [
      t.organizationId,
    ]);
    await rows(
      `insert into messages (organization_id, contact_id, direction, status, body) values ($1, $2, 'inbound', 'received', 'Asante')`,
      [t.organizationId, grace!.id],
    );

    await sync(t);
    const [failed] = await rows<{ last_error: string }>(
      `select last_error from integration_connections where organization_id = $1 and provider = 'hubspot'`,
      [t.organizationId],
    );
    expect(failed!.last_error).toContain("PROPERTY_DOESNT_EXIST");
    expect(await communications()).toHaveLength(2);

    await sync(t);
    expect((await portalProperties()).communications).toEqual(["jumbe_message_id"]);
    expect((await communications()).map((c) => c.properties.hs_communication_body)).toContain("← Asante");
  });

  it("a portal at its property limit says so", async () => {
    const t = await tenant("Lamu Dhow Tours");
    await h.control(`/portals/${DUKA_HUB_ID}/property-limit`, { body: { limit: 0 } });
    await connect(t);
    await sync(t);
    expect((await settings(t)).missingProperties).toMatchObject({ reason: "limit", communications: ["jumbe_message_id"] });
  });

  it("on a schedule: a refused portal is tried again five minutes after its check, one with everything six hours after", async () => {
    const t = await tenant("Kericho Tea Growers");
    await h.control(`/portals/${DUKA_HUB_ID}/property-limit`, { body: { limit: 0 } });
    await connect(t);
    await sync(t);
    expect((await settings(t)).missingProperties).toMatchObject({ reason: "limit" });

    // The merchant frees some properties: nothing is asked again until the check is five minutes old.
    await h.control(`/portals/${DUKA_HUB_ID}/property-limit`, { body: { limit: 1000 } });
    const calls = propertyCalls().length;
    await checkedAgo(t, 4 * 60_000);
    await sync(t);
    expect(propertyCalls().length).toBe(calls);
    expect((await settings(t)).missingProperties).toMatchObject({ reason: "limit" });
    await checkedAgo(t, 6 * 60_000);
    await sync(t);
    expect((await settings(t)).missingProperties).toBeNull();
    expect(await portalProperties()).toEqual({
      contacts: ["jumbe_contact_id", "jumbe_whatsapp_opt_out"],
      communications: ["jumbe_message_id"],
    });

    // A property deleted in HubSpot that no write has met yet (the business has no contacts): made
    // again at the first check six hours after the last, not before.
    const token = (await h.connect(DUKA_HUB_ID)).access_token;
    expect((await h.api("/crm/v3/properties/contacts/jumbe_contact_id", token, { method: "DELETE" })).status).toBe(204);
    await checkedAgo(t, 5 * 60 * 60_000);
    await sync(t);
    expect((await portalProperties()).contacts).toEqual(["jumbe_whatsapp_opt_out"]);
    await checkedAgo(t, 6 * 60 * 60_000 + 60_000);
    await sync(t);
    expect((await portalProperties()).contacts.sort()).toEqual(["jumbe_contact_id", "jumbe_whatsapp_opt_out"]);
    expect((await activity(t)).map((a) => a.action)).toEqual([
      "HubSpot properties missing",
      "HubSpot properties created",
      "HubSpot properties created",
    ]);
  });
});

/** Dates the last property check this long ago, as if the time had passed (no waiting in a test). */
async function checkedAgo(t: Tenant, ms: number) {
  await rows(
    `update integration_connections
        set sync_state = jsonb_set(sync_state, '{hubspotProperties,checkedAt}', to_jsonb($2::text))
      where organization_id = $1 and provider = 'hubspot' and status = 'connected'`,
    [t.organizationId, new Date(Date.now() - ms).toISOString()],
  );
}
