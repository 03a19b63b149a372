import { afterEach, describe, expect, it } from "vitest";
import { DUKA_HUB_ID, PWANI_HUB_ID, startHubspot, type HubspotHarness } from "./test-support";

let h: HubspotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("contacts", () => {
  it("creates, reads, updates and answers 409 with the existing id", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(PWANI_HUB_ID);
    const created = await h.api<Json>("/crm/v3/objects/contacts", token, {
      body: { properties: { email: "Amina@example.com", firstname: "Amina", phone: "0712 345 678" } },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      archived: false,
      properties: { email: "Amina@example.com", firstname: "Amina" },
    });
    const id = created.json.id as string;

    const duplicate = await h.api<Json>("/crm/v3/objects/contacts", token, { body: { properties: { email: "amina@EXAMPLE.com" } } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json).toMatchObject({ status: "error", category: "CONFLICT", message: `Contact already exists. Existing ID: ${id}` });
    expect(duplicate.json.correlationId).toBeTruthy();

    const patched = await h.api<Json>(`/crm/v3/objects/contacts/${id}`, token, {
      method: "PATCH",
      body: { properties: { lastname: "Hassan" } },
    });
    expect(patched.json.properties.lastname).toBe("Hassan");
    const read = await h.api<Json>(`/crm/v3/objects/contacts/${id}?properties=phone,lastname`, token);
    expect(read.json.properties).toMatchObject({ phone: "0712 345 678", lastname: "Hassan", hs_object_id: id });
    const byEmail = await h.api<Json>(`/crm/v3/objects/contacts/amina@example.com?idProperty=email`, token);
    expect(byEmail.json.id).toBe(id);
    expect((await h.api<Json>("/crm/v3/objects/contacts/999999", token)).json.category).toBe("OBJECT_NOT_FOUND");
    const unknown = await h.api<Json>("/crm/v3/objects/contacts", token, {
      body: { properties: { email: "x@example.com", shoe_size: "9" } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toContain("PROPERTY_DOESNT_EXIST");
  });

  it("keeps portals apart", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(PWANI_HUB_ID);
    const seeded = h.sandbox.contacts(DUKA_HUB_ID)[0]!;
    expect((await h.api(`/crm/v3/objects/contacts/${seeded.id}`, token)).status).toBe(404);
  });

  it("batch creates and reads, with a 207 for missing ids", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(PWANI_HUB_ID);
    const batch = await h.api<Json>("/crm/v3/objects/contacts/batch/create", token, {
      body: { inputs: [{ properties: { email: "a@example.com" } }, { properties: { email: "b@example.com" } }] },
    });
    expect(batch.status).toBe(201);
    expect(batch.json.status).toBe("COMPLETE");
    const ids = (batch.json.results as Json[]).map((r) => r.id);
    const read = await h.api<Json>("/crm/v3/objects/contacts/batch/read", token, {
      body: { properties: ["email"], inputs: [...ids.map((id) => ({ id })), { id: "1" }] },
    });
    expect(read.status).toBe(207);
    expect(read.json.errors[0]).toMatchObject({ category: "OBJECT_NOT_FOUND", context: { ids: ["1"] } });
  });
});

describe("search, lists and communications", () => {
  it("searches with paging and reads a list's members", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect();
    const search = (after?: string) =>
      h!.api<Json>("/crm/v3/objects/contacts/search", token, {
        body: {
          filterGroups: [{ filters: [{ propertyName: "email", operator: "CONTAINS_TOKEN", value: "*@example.com" }] }],
          properties: ["email", "phone"],
          limit: 3,
          ...(after ? { after } : {}),
        },
      });
    const first = await search();
    expect(first.json.total).toBe(4);
    expect(first.json.results).toHaveLength(3);
    const second = await search(first.json.paging.next.after);
    expect(second.json.results).toHaveLength(1);
    expect(second.json.paging).toBeUndefined();

    const lists = await h.api<Json>("/crm/v3/lists/search", token, { body: { query: "vip" } });
    expect(lists.json.lists[0]).toMatchObject({ name: "VIP customers", objectTypeId: "0-1", processingType: "MANUAL" });
    const members = await h.api<Json>(`/crm/v3/lists/${lists.json.lists[0].listId}/memberships?limit=2`, token);
    expect(members.json.results).toHaveLength(2);
    expect(members.json.paging.next.after).toBe("2");
  });

  it("logs a WhatsApp message associated to a contact", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect();
    const contact = h.sandbox.contacts(DUKA_HUB_ID)[0]!;
    const logged = await h.api<Json>("/crm/v3/objects/communications", token, {
      body: {
        properties: {
          hs_communication_channel_type: "WHATS_APP",
          hs_communication_logged_from: "CRM",
          hs_communication_body: "Habari! Your order is ready.",
          hs_timestamp: "2026-11-27T10:00:00.000Z",
        },
        associations: [{ to: { id: contact.id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 81 }] }],
      },
    });
    expect(logged.status).toBe(201);
    const stored = await h.control<Json>(`/portals/${DUKA_HUB_ID}/communications`);
    expect(stored.json.communications[0]).toMatchObject({
      contactIds: [contact.id],
      properties: { hs_communication_body: "Habari! Your order is ready." },
    });
    const wrongChannel = await h.api<Json>("/crm/v3/objects/communications", token, {
      body: { properties: { hs_communication_channel_type: "EMAIL" } },
    });
    expect(wrongChannel.status).toBe(400);
  });
});

describe("tokens, rate limit and faults", () => {
  it("answers 401 EXPIRED_AUTHENTICATION once the portal's tokens are expired, and a refreshed token works", async () => {
    h = await startHubspot();
    const tokens = await h.connect();
    expect((await h.control<Json>(`/portals/${DUKA_HUB_ID}/expire-tokens`, { method: "POST" })).json.expired).toBe(1);
    const refused = await h.api<Json>("/crm/v3/objects/contacts", tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.json.category).toBe("EXPIRED_AUTHENTICATION");
    const unknown = await h.api<Json>("/crm/v3/objects/contacts", "nope");
    expect(unknown.json.category).toBe("INVALID_AUTHENTICATION");
  });

  it("answers 429 TEN_SECONDLY_ROLLING over the limit, with HubSpot's headers", async () => {
    h = await startHubspot({ rateLimit: { max: 2, intervalMs: 60_000 } });
    const { access_token: token } = await h.connect();
    const first = await h.api("/crm/v3/objects/contacts", token);
    expect(first.headers.get("x-hubspot-ratelimit-max")).toBe("2");
    expect(first.headers.get("x-hubspot-ratelimit-remaining")).toBe("1");
    await h.api("/crm/v3/objects/contacts", token);
    const limited = await h.api<Json>("/crm/v3/objects/contacts", token);
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ status: "error", errorType: "RATE_LIMIT", policyName: "TEN_SECONDLY_ROLLING" });
    expect(limited.headers.get("x-hubspot-ratelimit-interval-milliseconds")).toBe("60000");
  });

  it("answers the magic values and queued faults", async () => {
    h = await startHubspot({ slowMs: 50 });
    const { access_token: token } = await h.connect();
    const contact = (email: string) => h!.api<Json>("/crm/v3/objects/contacts", token, { body: { properties: { email } } });
    expect((await contact("magic-429@example.com")).json.policyName).toBe("TEN_SECONDLY_ROLLING");
    expect((await contact("magic-500@example.com")).status).toBe(500);
    expect((await contact("magic-401@example.com")).json.category).toBe("EXPIRED_AUTHENTICATION");
    expect((await contact("magic-slow@example.com")).status).toBe(201);
    await h.control("/faults", { body: { fault: "500", times: 1 } });
    expect((await h.api("/crm/v3/objects/contacts", token)).status).toBe(500);
    expect((await h.api("/crm/v3/objects/contacts", token)).status).toBe(200);
    const calls = h.sandbox.calls();
    expect(calls[1]).toMatchObject({ status: 500, fault: "queued 500" });
  });

  it("asks for the lists scope", async () => {
    h = await startHubspot();
    const code = (await h.authorize()).searchParams.get("code")!;
    expect(code).toBeTruthy();
    const narrow = await h.postForm("/oauth/authorize", {
      client_id: "hubspot-sandbox-tests-client",
      redirect_uri: "http://127.0.0.1:9/integrations/hubspot/callback",
      scope: "crm.objects.contacts.read",
      hub_id: String(DUKA_HUB_ID),
      decision: "allow",
    });
    const narrowCode = new URL(narrow.headers.get("location")!).searchParams.get("code")!;
    const tokens = await h.token({
      grant_type: "authorization_code",
      client_id: "hubspot-sandbox-tests-client",
      client_secret: "hubspot-sandbox-tests-secret",
      redirect_uri: "http://127.0.0.1:9/integrations/hubspot/callback",
      code: narrowCode,
    });
    const refused = await h.api<Json>("/crm/v3/lists/search", tokens.json.access_token, { body: {} });
    expect(refused.status).toBe(403);
    expect(refused.json.category).toBe("MISSING_SCOPES");
  });
});
