import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { registerHubspotConnector } from "~/.server/composition/hubspot-connector";
import { saveContact, setConsent } from "~/.server/domains/contacts/manage";
import { enqueueHubspotSync, HUBSPOT_SYNC_ALL_QUEUE, HUBSPOT_SYNC_QUEUE } from "~/.server/domains/integrations/hubspot/sync";
import { hubspotWins } from "~/.server/domains/integrations/hubspot/contacts-in";
import { resetPacer } from "~/.server/domains/integrations/hubspot/pacer";
import { enqueueDueRecurringJobs, scheduleRecurringJobs } from "~/.server/infrastructure/jobs/recurring";
import * as integrationsPage from "~/routes/app/integrations/index";
import * as settingsPage from "~/routes/app/integrations/hubspot";
import * as callbackRoute from "~/routes/app/integrations/callback";
import * as contactPage from "~/routes/app/messaging/contact";
import { ERASE_COPIES_QUEUE } from "~/.server/domains/integrations/erasure";
import { startHubspot, CLIENT_ID, CLIENT_SECRET, DUKA_HUB_ID, type HubspotHarness } from "@jumbe/sandbox/hubspot/test-support";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, formRequest, getRequest, run } from "../support/http";

// Issue 45, decision 083: the HubSpot connector against the sandbox on a free loopback port — the
// install, contacts both ways (a 409 links), a list and a search as segments, the conflict rule,
// opt-outs, messages logged once, 429s and expired tokens survived, a revoked grant on the card,
// disconnect revoking, and another organisation's ids answering 404.

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

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  return { ...account, cookie, organizationId: account.organization.id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const rows = <T = Record<string, unknown>>(text: string, params: unknown[]) => rawQuery<T & Record<string, unknown>>(text, params);
const post = (t: Tenant, fields: Record<string, string>) =>
  run(integrationsPage.action, formRequest("/integrations", fields, { cookie: t.cookie }));
const settings = (t: Tenant) => run(settingsPage.loader, getRequest("/integrations/hubspot", { cookie: t.cookie }));
const settingsPost = (t: Tenant, fields: Record<string, string>) =>
  run(settingsPage.action, formRequest("/integrations/hubspot", fields, { cookie: t.cookie }));
const card = async (t: Tenant) =>
  (
    (await run(integrationsPage.loader, getRequest("/integrations", { cookie: t.cookie }))).data.cards as {
      id: string;
      status: string;
      connection: {
        accountLabel: string;
        health: string;
        lastError: string | null;
        lastSyncAt: string | null;
        counts: Record<string, number>;
      } | null;
    }[]
  ).find((c) => c.id === "hubspot")!;
const actions = async (t: Tenant) =>
  (
    await rows<{ action: string }>(`select action from activity_logs where organization_id = $1 order by created_at, id`, [
      t.organizationId,
    ])
  ).map((r) => r.action);

/** Connect through the sandbox's install page (its form, as a browser without JavaScript posts it). */
async function connect(t: Tenant, hubId = DUKA_HUB_ID) {
  const started = await post(t, { intent: "connect", integration: "hubspot" });
  expect(started.status, JSON.stringify(started.data)).toBe(302);
  const consent = new URL(started.location!);
  expect(consent.origin + consent.pathname).toBe(`${h.base}/oauth/authorize`);
  expect(consent.searchParams.get("scope")).toBe(
    "oauth crm.objects.contacts.read crm.objects.contacts.write crm.lists.read crm.schemas.contacts.write",
  );
  const allowed = await h.postForm("/oauth/authorize", {
    client_id: consent.searchParams.get("client_id")!,
    redirect_uri: consent.searchParams.get("redirect_uri")!,
    scope: consent.searchParams.get("scope")!,
    state: consent.searchParams.get("state")!,
    hub_id: String(hubId),
    decision: "allow",
  });
  expect(allowed.status).toBe(303);
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

const hsContacts = async () =>
  (await h.control<{ contacts: { id: string; properties: Record<string, string> }[] }>(`/portals/${DUKA_HUB_ID}/contacts`)).json.contacts;
const jumbeContacts = async (t: Tenant) =>
  rows<{ id: string; name: string; phone: string; tags: string[] }>(
    `select id, name, phone, tags from contacts where organization_id = $1 order by phone`,
    [t.organizationId],
  );
const link = async (t: Tenant, contactId: string) =>
  (
    await rows<{ hubspot_id: string }>(`select hubspot_id from hubspot_contact_links where organization_id = $1 and contact_id = $2`, [
      t.organizationId,
      contactId,
    ])
  )[0]?.hubspot_id;
/** A token of the portal's own, to change things in HubSpot as a HubSpot user would. */
const userToken = async () => (await h.connect(DUKA_HUB_ID)).access_token;

describe("connecting", () => {
  it("installs through the sandbox's consent page: the portal on the card, the tokens sealed, the log", async () => {
    const t = await tenant("Mama Mboga Groceries");
    await connect(t);
    const shown = await card(t);
    expect(shown.status).toBe("connected");
    expect(shown.connection).toMatchObject({
      accountLabel: "duka-bora.hubspot.test (Hub ID 14500001)",
      health: "healthy",
      lastError: null,
    });
    const [row] = await rows<{ external_account_id: string; access_token_sealed: string; token_expires_at: Date }>(
      `select external_account_id, access_token_sealed, token_expires_at from integration_connections where organization_id = $1`,
      [t.organizationId],
    );
    expect(row!.external_account_id).toBe(String(DUKA_HUB_ID));
    expect(row!.access_token_sealed).not.toMatch(/^hs-at-/);
    expect(decryptSecret(row!.access_token_sealed)).toMatch(/^hs-at-/);
    // 30-minute access tokens.
    expect(new Date(row!.token_expires_at).getTime() - Date.now()).toBeGreaterThan(25 * 60_000);
    expect(await actions(t)).toContain("Integration connected");
  });
});

describe("contacts both ways", () => {
  it("takes HubSpot's contacts with a number, sends Jumbe's, and links a 409 to the existing contact", async () => {
    const t = await tenant("Kibanda Electronics");
    const amina = (await saveContact(t, { name: "Amina Njeri Wairimu", phone: "+254711000001" })).contact;
    const peter = (await saveContact(t, { name: "Peter Mwangi", phone: "+254711000002" })).contact;
    // Peter's e-mail is already a HubSpot contact's (seeded, without a number): HubSpot answers 409.
    await rows(`update contacts set attributes = '{"email":"mwangi@example.com"}' where id = $1`, [peter.id]);
    await connect(t);
    await sync(t);

    // In: the three HubSpot contacts with a usable number (Kenyan formats normalised).
    const phones = (await jumbeContacts(t)).map((c) => [c.phone, c.name]);
    expect(phones).toEqual([
      ["+254711000001", "Amina Njeri Wairimu"],
      ["+254711000002", "Peter Mwangi"],
      ["+254712345678", "Wanjiku Kamau"],
      ["+254722000111", "Brian Otieno"],
      ["+254733123456", "Achieng Odhiambo"],
    ]);
    // Out: Amina created with her Jumbe id; Peter linked to the existing contact, which now has his number.
    const hs = await hsContacts();
    const hsAmina = hs.find((c) => c.properties.jumbe_contact_id === amina.id)!;
    expect(hsAmina.properties).toMatchObject({ firstname: "Amina", lastname: "Njeri Wairimu", hs_whatsapp_phone_number: "+254711000001" });
    const mwangi = hs.find((c) => c.properties.email === "mwangi@example.com")!;
    expect(await link(t, peter.id)).toBe(mwangi.id);
    expect(mwangi.properties.phone).toBe("+254711000002");
    expect(hs.filter((c) => c.properties.email === "mwangi@example.com")).toHaveLength(1);
    expect(await link(t, amina.id)).toBe(hsAmina.id);
    // The card: last sync and the count; the log says what moved.
    const shown = await card(t);
    expect(shown.connection!.lastSyncAt).not.toBeNull();
    expect(shown.connection!.counts.contacts).toBe(5);
    expect((await actions(t)).filter((a) => a === "Integration synced")).toHaveLength(1);

    // A second sync moves nothing and makes nothing twice.
    await sync(t);
    expect((await hsContacts()).length).toBe(hs.length);
    expect((await jumbeContacts(t)).length).toBe(5);
  });

  it("sends a contact without a name with no firstname: its number is not a name (issue 74)", async () => {
    const t = await tenant("Kilifi Fresh Juice");
    // As a customer who shares no WhatsApp profile name is stored: named by the number.
    const nameless = (await saveContact(t, { name: "+254711000031", phone: "+254711000031" })).contact;
    const named = (await saveContact(t, { name: "Zawadi Achieng", phone: "+254711000032" })).contact;
    await connect(t);
    await sync(t);
    const hs = await hsContacts();
    const sent = hs.find((c) => c.properties.jumbe_contact_id === nameless.id)!;
    expect(sent.properties).toMatchObject({ phone: "+254711000031", hs_whatsapp_phone_number: "+254711000031" });
    expect(sent.properties.firstname ?? "").toBe("");
    expect(sent.properties.lastname ?? "").toBe("");
    expect(hs.find((c) => c.properties.jumbe_contact_id === named.id)!.properties).toMatchObject({
      firstname: "Zawadi",
      lastname: "Achieng",
    });

    // A name typed in HubSpot for that person is kept when Jumbe's side changes (a tag, a later sync).
    await h.api(`/crm/v3/objects/contacts/${sent.id}`, await userToken(), { method: "PATCH", body: { properties: { firstname: "Juma" } } });
    await sync(t);
    await rows(`update contacts set tags = '{vip}', updated_at = now() + interval '1 second' where id = $1`, [nameless.id]);
    await sync(t);
    expect((await hsContacts()).find((c) => c.id === sent.id)!.properties.firstname).toBe("Juma");
  });

  it("the recurring job queues a sync for each connected organisation", async () => {
    const t = await tenant("Nakuru Hardware");
    await connect(t);
    await scheduleRecurringJobs();
    await rows(`update recurring_jobs set next_run_at = now() where name = 'hubspot-sync'`, []);
    expect(await enqueueDueRecurringJobs()).toContain("hubspot-sync");
    expect(await runJobBatch(HUBSPOT_SYNC_ALL_QUEUE)).toBe(1);
    const [queued] = await rows<{ n: number }>(
      `select count(*)::int as n from jobs where queue = $1 and payload->>'organizationId' = $2 and finished_at is null`,
      [HUBSPOT_SYNC_QUEUE, t.organizationId],
    );
    expect(queued!.n).toBe(1);
    expect(await runJobBatch(HUBSPOT_SYNC_QUEUE)).toBe(1);
    expect((await jumbeContacts(t)).length).toBe(3);
  });

  it("follows a HubSpot list and a search as segments, kept to their members", async () => {
    const t = await tenant("Eldoret Agrovet");
    await connect(t);
    const page = await settings(t);
    expect(page.status).toBe(200);
    const lists = page.data.lists as { listId: string; name: string }[];
    const vip = lists.find((l) => l.name === "VIP customers")!;
    expect((await settingsPost(t, { intent: "follow-list", listId: vip.listId })).status).toBe(302);
    const followed = await settingsPost(t, {
      intent: "follow-search",
      name: "Brians",
      property: "firstname",
      operator: "EQ",
      value: "Brian",
    });
    expect(followed.status).toBe(302);
    await sync(t);
    const tagged = (await jumbeContacts(t)).map((c) => [c.name, c.tags.filter((tag) => tag.startsWith("hubspot-")).sort()]);
    expect(tagged).toEqual([
      ["Wanjiku Kamau", ["hubspot-vip-customers"]],
      ["Brian Otieno", ["hubspot-brians", "hubspot-vip-customers"]],
      ["Achieng Odhiambo", ["hubspot-vip-customers"]],
    ]);
    const segments = await rows<{ name: string; filter: Record<string, string> }>(
      `select name, filter from segments where organization_id = $1 order by name`,
      [t.organizationId],
    );
    expect(segments).toEqual([
      { name: "HubSpot: Brians", filter: { tag: "hubspot-brians" } },
      { name: "HubSpot: VIP customers", filter: { tag: "hubspot-vip-customers" } },
    ]);
    // Brian renamed in HubSpot leaves the search's segment at the next sync.
    const brian = (await hsContacts()).find((c) => c.properties.firstname === "Brian")!;
    await h.api(`/crm/v3/objects/contacts/${brian.id}`, await userToken(), {
      method: "PATCH",
      body: { properties: { firstname: "Bryan" } },
    });
    await sync(t);
    const after = (await jumbeContacts(t)).find((c) => c.phone === "+254722000111")!;
    expect(after.name).toBe("Bryan Otieno");
    expect(after.tags).toEqual(["hubspot-vip-customers"]);
    // Bad input is refused in words, nothing stored.
    const bad = await settingsPost(t, { intent: "follow-search", name: "", property: "firstname", operator: "EQ", value: "x" });
    expect(bad.status).toBe(400);
    expect((await settingsPost(t, { intent: "follow-list", listId: "999999" })).status).toBe(400);
  });

  it("the settings page asks HubSpot for the portal's lists once a minute; following a list checks it against HubSpot now (decision 176)", async () => {
    const t = await tenant("Nanyuki Dairy");
    await connect(t);
    const listSearches = () => h.sandbox.calls().filter((c) => c.path.endsWith("/crm/v3/lists/search")).length;
    const names = (page: { data: Record<string, unknown> }) => (page.data.lists as { name: string }[]).map((l) => l.name).sort();
    const first = await settings(t);
    expect(first.status).toBe(200);
    expect(names(first)).toContain("VIP customers");
    const asked = listSearches();
    expect(asked).toBeGreaterThan(0);
    // Ten more views within the minute: the lists as read, no call to HubSpot (its 100 calls per 10 s are the sync's).
    for (let i = 0; i < 10; i++) expect(names(await settings(t))).toEqual(names(first));
    expect(listSearches()).toBe(asked);
    // A list made in HubSpot meanwhile: following it is checked against HubSpot's lists now, and the page then shows it.
    const { json: made } = await h.control<{ list: { listId: string } }>(`/portals/${DUKA_HUB_ID}/lists`, {
      method: "POST",
      body: { name: "Wholesale buyers", contactIds: [] },
    });
    expect((await settingsPost(t, { intent: "follow-list", listId: made.list.listId })).status).toBe(302);
    expect(listSearches()).toBe(asked + 1);
    const after = await settings(t);
    expect(names(after)).toEqual([...names(first), "Wholesale buyers"].sort());
    expect((after.data.sources as { name: string }[]).map((s) => s.name)).toContain("Wholesale buyers");
    expect(listSearches()).toBe(asked + 1);
  });

  it("the conflict rule: the later change wins; on a tie Jumbe's", async () => {
    expect(hubspotWins({ jumbeSyncedAt: 100, hubspotModifiedAt: 100, jumbeChangedAt: 100 }, 150)).toBe(true);
    expect(hubspotWins({ jumbeSyncedAt: 100, hubspotModifiedAt: 100, jumbeChangedAt: 200 }, 150)).toBe(false);
    expect(hubspotWins({ jumbeSyncedAt: 100, hubspotModifiedAt: 100, jumbeChangedAt: 150 }, 150)).toBe(false);
    expect(hubspotWins({ jumbeSyncedAt: 100, hubspotModifiedAt: 100, jumbeChangedAt: 150 }, 200)).toBe(true);
    expect(hubspotWins({ jumbeSyncedAt: 100, hubspotModifiedAt: 200, jumbeChangedAt: 100 }, 200)).toBe(false);

    const t = await tenant("Thika Road Motors");
    await connect(t);
    await sync(t);
    const wanjiku = (await jumbeContacts(t)).find((c) => c.phone === "+254712345678")!;
    const hsId = (await link(t, wanjiku.id))!;
    const token = await userToken();
    // HubSpot first, then Jumbe: Jumbe's later change wins on both sides.
    await h.api(`/crm/v3/objects/contacts/${hsId}`, token, { method: "PATCH", body: { properties: { firstname: "Wanjiru" } } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rows(`update contacts set name = 'Wanjiku Kamau Njoroge', updated_at = now() where id = $1`, [wanjiku.id]);
    await sync(t);
    expect((await jumbeContacts(t)).find((c) => c.id === wanjiku.id)!.name).toBe("Wanjiku Kamau Njoroge");
    expect((await hsContacts()).find((c) => c.id === hsId)!.properties).toMatchObject({ firstname: "Wanjiku", lastname: "Kamau Njoroge" });
    // Jumbe first, then HubSpot: HubSpot's later change wins on both sides.
    await rows(`update contacts set name = 'Wanjiku K.', updated_at = now() where id = $1`, [wanjiku.id]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await h.api(`/crm/v3/objects/contacts/${hsId}`, token, { method: "PATCH", body: { properties: { firstname: "Shiru" } } });
    await sync(t);
    expect((await jumbeContacts(t)).find((c) => c.id === wanjiku.id)!.name).toBe("Shiru Kamau Njoroge");
    expect((await hsContacts()).find((c) => c.id === hsId)!.properties.firstname).toBe("Shiru");
  });

  it("takes a page of HubSpot's changes together: each linked contact by the rule, HubSpot's e-mail too (decision 091)", async () => {
    const t = await tenant("Nyeri Dairy Coop");
    const people = [
      ["Kamau Mwangi", "+254711000101"],
      ["Njeri Wairimu", "+254711000102"],
      ["Mutua Musyoka", "+254711000103"],
    ] as const;
    const saved = [];
    for (const [name, phone] of people) saved.push((await saveContact(t, { name, phone })).contact);
    await connect(t);
    await sync(t);
    const ids = await Promise.all(saved.map(async (c) => (await link(t, c.id))!));
    const token = await userToken();
    // Jumbe changes Mutua first; then HubSpot changes all three: HubSpot is later on each.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rows(`update contacts set name = 'Mutua M.', updated_at = now() where id = $1`, [saved[2]!.id]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const [i, hsId] of ids.entries())
      await h.api(`/crm/v3/objects/contacts/${hsId}`, token, {
        method: "PATCH",
        body: { properties: { firstname: ["Kamau", "Njeri", "Mutua"][i]!, lastname: "Mpya", email: `mteja${i}@example.co.ke` } },
      });
    // Then Jumbe changes Njeri again, later than HubSpot: Jumbe's name wins for her.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rows(`update contacts set name = 'Njeri W. Kariuki', updated_at = now() where id = $1`, [saved[1]!.id]);
    await sync(t);
    const stored = await rows<{ id: string; name: string; email: string | null }>(
      `select id, name, attributes->>'email' as email from contacts where organization_id = $1`,
      [t.organizationId],
    );
    const of = (id: string) => stored.find((c) => c.id === id)!;
    expect(of(saved[0]!.id)).toMatchObject({ name: "Kamau Mpya", email: "mteja0@example.co.ke" });
    expect(of(saved[1]!.id)).toMatchObject({ name: "Njeri W. Kariuki", email: null });
    expect(of(saved[2]!.id)).toMatchObject({ name: "Mutua Mpya", email: "mteja2@example.co.ke" });
    const hs = await hsContacts();
    expect(hs.find((c) => c.id === ids[1])!.properties).toMatchObject({ firstname: "Njeri", lastname: "W. Kariuki" });
    expect(hs.find((c) => c.id === ids[2])!.properties).toMatchObject({ firstname: "Mutua", lastname: "Mpya" });
    // Nothing left to move: a third sync sends and takes nothing.
    const calls = h.sandbox.calls().length;
    await sync(t);
    const again = h.sandbox
      .calls()
      .slice(0, h.sandbox.calls().length - calls)
      .filter((c) => c.path.includes("/batch/"));
    expect(again).toEqual([]);
  });

  it("sends an opt-out to HubSpot as the contact's jumbe_whatsapp_opt_out", async () => {
    const t = await tenant("Kisumu Fish Traders");
    const otieno = (await saveContact(t, { name: "Otieno Ouma", phone: "+254711000009" })).contact;
    await connect(t);
    await sync(t);
    const hsId = (await link(t, otieno.id))!;
    expect((await hsContacts()).find((c) => c.id === hsId)!.properties.jumbe_whatsapp_opt_out).toBe("false");
    await setConsent(t, otieno.id, { status: "opted_out", source: "keyword", evidence: "STOP" });
    await sync(t);
    expect((await hsContacts()).find((c) => c.id === hsId)!.properties.jumbe_whatsapp_opt_out).toBe("true");
  });
});

describe("messages", () => {
  it("logs each conversation's messages as WhatsApp communications, once", async () => {
    const t = await tenant("Machakos Bakers");
    const grace = (await saveContact(t, { name: "Grace Mutua", phone: "+254711000010" })).contact;
    for (const [direction, status, body] of [
      ["inbound", "received", "Habari, mna mkate wa ngano?"],
      ["outbound", "delivered", "Ndiyo, tuko nao. Karibu!"],
      ["outbound", "failed", "never sent"],
    ])
      await rows(`insert into messages (organization_id, contact_id, direction, status, body) values ($1, $2, $3, $4, $5)`, [
        t.organizationId,
        grace.id,
        direction,
        status,
        body,
      ]);
    await connect(t);
    await sync(t);
    await sync(t);
    const { communications } = (
      await h.control<{ communications: { properties: Record<string, string>; contactIds: string[] }[] }>(
        `/portals/${DUKA_HUB_ID}/communications`,
      )
    ).json;
    expect(communications.map((c) => [c.properties.hs_communication_channel_type, c.properties.hs_communication_body])).toEqual([
      ["WHATS_APP", "← Habari, mna mkate wa ngano?"],
      ["WHATS_APP", "→ Ndiyo, tuko nao. Karibu!"],
    ]);
    expect(communications.every((c) => c.contactIds[0] === communications[0]!.contactIds[0])).toBe(true);
    expect((await card(t)).connection!.counts.messages).toBe(2);
    // One batch call for both.
    const logged = h.sandbox.calls().filter((c) => c.path.includes("/objects/communications"));
    expect(logged).toHaveLength(1);
  });
});

describe("messages since the last sync (decision 172)", () => {
  it("reads only what is new since the cursor, and still logs a message sent later, a contact linked later, and what the sweep finds", async () => {
    const t = await tenant("Kitui Honey");
    const wanjiru = (await saveContact(t, { name: "Wanjiru Kamau", phone: "+254711000021" })).contact;
    const message = async (contactId: string, direction: string, status: string, body: string, age = "0 seconds") =>
      (
        await rows<{ id: string }>(
          `insert into messages (organization_id, contact_id, direction, status, body, created_at) values ($1, $2, $3, $4, $5, now() - $6::interval) returning id`,
          [t.organizationId, contactId, direction, status, body, age],
        )
      )[0]!.id;
    const bodies = async () =>
      (
        await h.control<{ communications: { properties: Record<string, string> }[] }>(`/portals/${DUKA_HUB_ID}/communications`)
      ).json.communications.map((c) => c.properties.hs_communication_body);
    const cursor = async () =>
      (
        await rows<{ log: { from: string; sweptAt: string } }>(
          `select sync_state->'hubspotLog' as log from integration_connections where organization_id = $1 and provider = 'hubspot'`,
          [t.organizationId],
        )
      )[0]!.log;

    await message(wanjiru.id, "inbound", "received", "Asali iko?");
    await connect(t);
    await sync(t);
    expect(await bodies()).toEqual(["← Asali iko?"]);
    const first = await cursor();
    expect(Date.parse(first.sweptAt)).toBeGreaterThan(Date.now() - 60_000);

    // A reply waiting to be sent holds the cursor back; once sent, the next sync logs it.
    const reply = await message(wanjiru.id, "outbound", "queued", "Ndiyo, kilo moja 800.");
    await sync(t);
    expect(await bodies()).toEqual(["← Asali iko?"]);
    const held = await cursor();
    await rows(`update messages set status = 'delivered', sent_at = now() where id = $1`, [reply]);
    await sync(t);
    expect(await bodies()).toEqual(["← Asali iko?", "→ Ndiyo, kilo moja 800."]);
    expect(held.from <= (await cursor()).from).toBe(true);

    // A message written as if its transaction had started long before the cursor: a run does not read
    // that far back (the proof that a run reads from its cursor, not the whole history), once the link
    // is older than the cursor too (a new link's contact is read whole)...
    await rows(`update hubspot_contact_links set created_at = now() - interval '1 day' where contact_id = $1`, [wanjiru.id]);
    await message(wanjiru.id, "inbound", "received", "Nimechelewa kujibu.", "30 minutes");
    await sync(t);
    expect(await bodies()).toHaveLength(2);
    // ...and a contact linked after the cursor has its older messages logged at the next sync.
    const otieno = (await saveContact(t, { name: "Otieno Ouma", phone: "+254711000022" })).contact;
    await message(otieno.id, "inbound", "received", "Habari ya jana", "2 days");
    await sync(t);
    expect(await link(t, otieno.id)).toBeTruthy();
    await sync(t);
    expect((await bodies()).slice(2)).toEqual(["← Habari ya jana"]);

    // The sweep, six hours on, reads every linked contact's messages and finds the late one.
    await rows(
      `update integration_connections set sync_state = jsonb_set(sync_state, '{hubspotLog,sweptAt}', to_jsonb((now() - interval '7 hours')::text))
       where organization_id = $1 and provider = 'hubspot'`,
      [t.organizationId],
    );
    await sync(t);
    expect((await bodies()).slice(3)).toEqual(["← Nimechelewa kujibu."]);
    expect(Date.parse((await cursor()).sweptAt)).toBeGreaterThan(Date.now() - 60_000);
    // Each message once.
    expect(await rows(`select count(*)::int as n from hubspot_logged_messages where organization_id = $1`, [t.organizationId])).toEqual([
      { n: 4 },
    ]);
  });
});

describe("messages after a crash", () => {
  it("a batch HubSpot logged but Jumbe never recorded is found by its message ids, and each message is logged once (decision 091)", async () => {
    const t = await tenant("Embu Tea Growers");
    const muthoni = (await saveContact(t, { name: "Muthoni Njiru", phone: "+254711000011" })).contact;
    const bodies = ["Chai imefika?", "Ndiyo, leo asubuhi.", "Asante sana!"];
    const messageIds: string[] = [];
    for (const [i, body] of bodies.entries())
      messageIds.push(
        (
          await rows<{ id: string }>(
            `insert into messages (organization_id, contact_id, direction, status, body) values ($1, $2, $3, $4, $5) returning id`,
            [t.organizationId, muthoni.id, i % 2 ? "outbound" : "inbound", i % 2 ? "delivered" : "received", body],
          )
        )[0]!.id,
      );
    await connect(t);
    // The process "stops" after HubSpot's answer: the write of the communication ids fails.
    await rows(
      `create or replace function hubspot_test_crash() returns trigger language plpgsql as $$ begin raise exception 'crash after the call'; end $$`,
      [],
    );
    await rows(
      `create trigger hubspot_test_crash before insert on hubspot_logged_messages for each row execute function hubspot_test_crash()`,
      [],
    );
    try {
      await sync(t);
    } finally {
      await rows(`drop trigger hubspot_test_crash on hubspot_logged_messages`, []);
      await rows(`drop function hubspot_test_crash()`, []);
    }
    const communications = async () =>
      (await h.control<{ communications: { id: string; properties: Record<string, string> }[] }>(`/portals/${DUKA_HUB_ID}/communications`))
        .json.communications;
    // HubSpot made the three; Jumbe recorded none of them.
    expect((await communications()).map((c) => c.properties.jumbe_message_id)).toEqual(messageIds);
    expect(await rows(`select message_id from hubspot_logged_messages where organization_id = $1`, [t.organizationId])).toEqual([]);

    const before = h.sandbox.calls().length;
    await sync(t);
    await sync(t);
    // Still one communication a message, each now recorded with HubSpot's id; found by one search, none sent again.
    const made = await communications();
    expect(made.map((c) => c.properties.jumbe_message_id)).toEqual(messageIds);
    const stored = await rows<{ message_id: string; communication_id: string }>(
      `select message_id, communication_id from hubspot_logged_messages where organization_id = $1`,
      [t.organizationId],
    );
    expect(new Map(stored.map((r) => [r.message_id, r.communication_id]))).toEqual(
      new Map(made.map((c) => [c.properties.jumbe_message_id!, c.id])),
    );
    const calls = h.sandbox
      .calls()
      .slice(0, h.sandbox.calls().length - before)
      .filter((c) => c.path.includes("/objects/communications"));
    expect(calls.map((c) => c.path)).toEqual(["/sandbox/hubspot/crm/v3/objects/communications/search"]);
  });
});

describe("HubSpot's limits and tokens", () => {
  it("survives a 429 and an expired token, dropping nothing", async () => {
    const t = await tenant("Nyali Beach Villas");
    await saveContact(t, { name: "Halima Said", phone: "+254711000011" });
    await connect(t);
    h.sandbox.expireTokens(DUKA_HUB_ID);
    h.sandbox.queueFault("429", 2);
    await sync(t);
    expect((await hsContacts()).some((c) => c.properties.firstname === "Halima")).toBe(true);
    expect((await jumbeContacts(t)).length).toBe(4);
    const calls = h.sandbox.calls();
    // A queued 429 met by the expired token answers 401 first; at least one 429 was sat out.
    expect(calls.filter((c) => c.status === 429).length).toBeGreaterThanOrEqual(1);
    expect(calls.filter((c) => c.status === 401).length).toBeGreaterThanOrEqual(1);
    expect((await card(t)).connection).toMatchObject({ health: "healthy", lastError: null });
  });

  it("a revoked grant marks the connection unhealthy, with HubSpot's error on the card", async () => {
    const t = await tenant("Voi Safari Lodge");
    await connect(t);
    const [row] = await rows<{ refresh_token_sealed: string }>(
      `select refresh_token_sealed from integration_connections where organization_id = $1`,
      [t.organizationId],
    );
    await h.postForm("/oauth/2026-03/token/revoke", {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      token: decryptSecret(row!.refresh_token_sealed),
    });
    h.sandbox.expireTokens(DUKA_HUB_ID);
    await sync(t);
    const shown = await card(t);
    expect(shown.connection!.health).toBe("unhealthy");
    expect(shown.connection!.lastError).toContain("missing or unknown refresh token");
    expect(await actions(t)).toContain("Integration token refresh failed");
  });

  it("disconnecting revokes the refresh token at HubSpot", async () => {
    const t = await tenant("Malindi Curio Shop");
    await connect(t);
    const live = async () => (await h.control<{ refresh: { hubId: number }[] }>("/tokens")).json.refresh.length;
    expect(await live()).toBe(1);
    const done = await post(t, { intent: "disconnect", integration: "hubspot", confirm: "yes" });
    expect(done.status).toBe(302);
    expect(await live()).toBe(0);
    expect(await actions(t)).toContain("Integration disconnected");
    expect((await settings(t)).status).toBe(404);
  });
});

describe("erasing a person (issue 74)", () => {
  const toastOf = (outcome: { headers: Headers }) => {
    const value = /jumbe_toast=([^.;]+)/.exec(outcome.headers.get("set-cookie") ?? "")?.[1] ?? "";
    return (JSON.parse(Buffer.from(decodeURIComponent(value), "base64").toString()) as { message: string }).message;
  };
  const contactUrl = (id: string) => `/messaging/contacts/${id}`;
  const eraseJobs = async (t: Tenant) =>
    rows<{ id: number; done: boolean }>(
      `select id::int as id, finished_at is not null as done from jobs where queue = $1 and payload->>'organizationId' = $2 order by id`,
      [ERASE_COPIES_QUEUE, t.organizationId],
    );

  it("reaches HubSpot: the confirmation says so, the contact and its logged messages are deleted there, logged, once even when run again", async () => {
    const t = await tenant("Voi Mobile Accessories");
    const halima = (await saveContact(t, { name: "Halima Said", phone: "+254711000041" })).contact;
    const other = (await saveContact(t, { name: "Omari Juma", phone: "+254711000042" })).contact;
    for (const [contactId, body] of [
      [halima.id, "Nataka chaja ya simu"],
      [other.id, "Bei ya earphones?"],
    ])
      await rows(`insert into messages (organization_id, contact_id, direction, status, body) values ($1, $2, 'inbound', 'received', $3)`, [
        t.organizationId,
        contactId,
        body,
      ]);
    await connect(t);
    await sync(t);
    await sync(t);
    const hsId = (await link(t, halima.id))!;
    const communications = async () =>
      (await h.control<{ communications: { id: string; contactIds: string[] }[] }>(`/portals/${DUKA_HUB_ID}/communications`)).json
        .communications;
    expect((await communications()).filter((c) => c.contactIds.includes(hsId))).toHaveLength(1);

    // The confirmation lists the connected tool and what happens there.
    const asked = await run(contactPage.loader, getRequest(`${contactUrl(halima.id)}?confirm=erase`, { cookie: t.cookie }), {
      params: { id: halima.id },
    });
    expect(asked.data.copies).toEqual([{ tool: "HubSpot", where: "duka-bora.hubspot.test (Hub ID 14500001)", outcome: "removing" }]);

    // HubSpot fails once (a 500): the job is kept and runs again.
    const erased = await run(
      contactPage.action,
      formRequest(contactUrl(halima.id), { intent: "erase", confirm: "yes" }, { cookie: t.cookie }),
      {
        params: { id: halima.id },
      },
    );
    expect(erased.status).toBe(302);
    expect(toastOf(erased)).toBe(
      "Contact erased. Their messages are kept without personal content. Jumbe is removing their copies in " +
        "HubSpot (duka-bora.hubspot.test (Hub ID 14500001)): the activity log says when it is done.",
    );
    h.sandbox.queueFault("500", 1);
    await runJobBatch(ERASE_COPIES_QUEUE).catch(() => 0);
    expect((await eraseJobs(t)).map((j) => j.done)).toEqual([false]);
    await rows(`update jobs set run_at = now() where queue = $1`, [ERASE_COPIES_QUEUE]);
    expect(await runJobBatch(ERASE_COPIES_QUEUE)).toBe(1);
    expect((await eraseJobs(t)).map((j) => j.done)).toEqual([true]);

    // Gone from HubSpot: the contact (404 to a read) and the communication; the other person stays.
    const token = await userToken();
    expect((await h.api(`/crm/v3/objects/contacts/${hsId}`, token)).status).toBe(404);
    expect((await communications()).filter((c) => c.contactIds.includes(hsId))).toHaveLength(0);
    expect(await communications()).toHaveLength(1);
    expect((await hsContacts()).some((c) => c.properties.jumbe_contact_id === other.id)).toBe(true);
    expect(h.sandbox.calls().some((c) => c.method === "POST" && c.path.endsWith("/crm/v3/objects/contacts/gdpr-delete"))).toBe(true);
    const log = await rows<{ action: string; details: string; status: string }>(
      `select action, details, status from activity_logs where organization_id = $1 and action = 'Erasure sent to connected tools'`,
      [t.organizationId],
    );
    expect(log).toEqual([
      {
        action: "Erasure sent to connected tools",
        status: "success",
        details: `HubSpot (Hub ID 14500001): erased contact ${hsId} deleted for good, with 1 logged WhatsApp messages`,
      },
    ]);

    // The same job again (a retry after a crash): nothing fails, nothing more is removed.
    const [job] = await rows<{ payload: unknown }>(`select payload from jobs where queue = $1 and payload->>'organizationId' = $2`, [
      ERASE_COPIES_QUEUE,
      t.organizationId,
    ]);
    await rows(`insert into jobs (queue, payload) values ($1, $2::jsonb)`, [ERASE_COPIES_QUEUE, JSON.stringify(job!.payload)]);
    expect(await runJobBatch(ERASE_COPIES_QUEUE)).toBe(1);
    expect(await communications()).toHaveLength(1);
    // A later sync does not bring the person back from HubSpot or send them again.
    await sync(t);
    expect((await jumbeContacts(t)).some((c) => c.phone === "+254711000041")).toBe(false);
    expect((await hsContacts()).some((c) => c.properties.phone === "+254711000041")).toBe(false);
  });

  it("lists HubSpot for the business when it is no longer connected", async () => {
    const t = await tenant("Lamu Dhow Tours");
    const said = (await saveContact(t, { name: "Said Athman", phone: "+254711000043" })).contact;
    await connect(t);
    await sync(t);
    expect((await post(t, { intent: "disconnect", integration: "hubspot", confirm: "yes" })).status).toBe(302);
    const asked = await run(contactPage.loader, getRequest(`${contactUrl(said.id)}?confirm=erase`, { cookie: t.cookie }), {
      params: { id: said.id },
    });
    expect(asked.data.copies).toEqual([{ tool: "HubSpot", where: "duka-bora.hubspot.test (Hub ID 14500001)", outcome: "by_hand" }]);
    const erased = await run(
      contactPage.action,
      formRequest(contactUrl(said.id), { intent: "erase", confirm: "yes" }, { cookie: t.cookie }),
      {
        params: { id: said.id },
      },
    );
    expect(toastOf(erased)).toContain("Jumbe cannot reach HubSpot (duka-bora.hubspot.test (Hub ID 14500001)) any more");
    expect(await runJobBatch(ERASE_COPIES_QUEUE)).toBe(1);
    const [logged] = await rows<{ status: string; details: string }>(
      `select status, details from activity_logs where organization_id = $1 and action = 'Erasure sent to connected tools'`,
      [t.organizationId],
    );
    expect(logged).toMatchObject({ status: "warning" });
    expect(logged!.details).toContain("is no longer connected: delete contact");
  });
});

describe("tenants", () => {
  it("another organisation's source id answers 404, and its settings page shows nothing of it", async () => {
    const a = await tenant("Nanyuki Outfitters");
    const b = await tenant("Kericho Tea Growers");
    await connect(a);
    await settingsPost(a, { intent: "follow-search", name: "Everyone", property: "email", operator: "HAS_PROPERTY", value: "" });
    const [source] = await rows<{ id: string }>(`select id from hubspot_segment_sources where organization_id = $1`, [a.organizationId]);
    expect((await settings(b)).status).toBe(404);
    await connect(b);
    expect((await settingsPost(b, { intent: "unfollow", source: source!.id })).status).toBe(404);
    expect(((await settings(b)).data.sources as unknown[]).length).toBe(0);
    expect((await settingsPost(a, { intent: "unfollow", source: source!.id })).status).toBe(302);
    // Sync now: queued once, logged.
    expect((await settingsPost(b, { intent: "sync" })).status).toBe(302);
    expect(await actions(b)).toContain("Integration sync requested");
  });
});
