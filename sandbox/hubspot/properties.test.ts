import { afterEach, describe, expect, it } from "vitest";
import { DUKA_HUB_ID, PWANI_HUB_ID, startHubspot, type HubspotHarness } from "./test-support";

// Issue 73, decision 107: HubSpot's Properties API per portal, and records refused when they name
// a property the portal does not have (as HubSpot refuses them), contact archive.

let h: HubspotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const OPT_OUT = {
  name: "jumbe_whatsapp_opt_out",
  label: "WhatsApp opt-out (Jumbe)",
  type: "enumeration",
  fieldType: "booleancheckbox",
  groupName: "jumbe",
  options: [
    { label: "Yes", value: "true" },
    { label: "No", value: "false" },
  ],
};
const MESSAGE_ID = { name: "jumbe_message_id", label: "Jumbe message ID", type: "string", fieldType: "text", groupName: "jumbe" };
const WHATSAPP = {
  hs_communication_channel_type: "WHATS_APP",
  hs_communication_logged_from: "CRM",
  hs_communication_body: "Habari",
  hs_timestamp: "2026-11-28T10:00:00.000Z",
};

describe("properties", () => {
  it("lists HubSpot's own properties of each object; one a portal lacks answers 404", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(PWANI_HUB_ID);
    const contacts = await h.api<Json>("/crm/v3/properties/contacts", token);
    expect(contacts.status).toBe(200);
    const names = (contacts.json.results as Json[]).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["email", "firstname", "phone", "hs_object_id"]));
    expect(names).not.toContain("jumbe_contact_id");
    expect((contacts.json.results as Json[]).find((p) => p.name === "email")).toMatchObject({
      type: "string",
      fieldType: "text",
      groupName: "contactinformation",
      hubspotDefined: true,
    });
    const communications = await h.api<Json>("/crm/v3/properties/0-18", token);
    expect((communications.json.results as Json[]).map((p) => p.name)).toContain("hs_communication_body");
    const missing = await h.api<Json>("/crm/v3/properties/communications/jumbe_message_id", token);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ status: "error", category: "OBJECT_NOT_FOUND" });
    const unknownType = await h.api<Json>("/crm/v3/properties/widgets", token);
    expect(unknownType.status).toBe(400);
  });

  it("creates a group and properties in one portal only; a second time answers 409", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(PWANI_HUB_ID);
    const group = await h.api<Json>("/crm/v3/properties/contacts/groups", token, { body: { name: "jumbe", label: "Jumbe" } });
    expect(group.status).toBe(201);
    expect(group.json).toMatchObject({ name: "jumbe", label: "Jumbe", archived: false });
    expect((await h.api<Json>("/crm/v3/properties/contacts/groups", token, { body: { name: "jumbe", label: "Jumbe" } })).status).toBe(409);

    const created = await h.api<Json>("/crm/v3/properties/contacts", token, { body: OPT_OUT });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      name: "jumbe_whatsapp_opt_out",
      type: "enumeration",
      fieldType: "booleancheckbox",
      hubspotDefined: false,
    });
    const again = await h.api<Json>("/crm/v3/properties/contacts", token, { body: OPT_OUT });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ status: "error", category: "OBJECT_ALREADY_EXISTS" });
    expect((await h.api<Json>("/crm/v3/properties/contacts/jumbe_whatsapp_opt_out", token)).status).toBe(200);

    // Archived by a HubSpot user: gone (HubSpot's own cannot be archived).
    expect((await h.api("/crm/v3/properties/contacts/email", token, { method: "DELETE" })).status).toBe(400);
    expect((await h.api("/crm/v3/properties/contacts/jumbe_whatsapp_opt_out", token, { method: "DELETE" })).status).toBe(204);
    expect((await h.api("/crm/v3/properties/contacts/jumbe_whatsapp_opt_out", token)).status).toBe(404);
    expect((await h.api("/crm/v3/properties/contacts", token, { body: OPT_OUT })).status).toBe(201);

    // The other portal has none of it.
    const other = (await h.connect(DUKA_HUB_ID)).access_token;
    expect((await h.api<Json>("/crm/v3/properties/contacts/jumbe_whatsapp_opt_out", other)).status).toBe(404);
    expect((await h.control<Json>("/portals")).json.portals.find((p: Json) => p.hubId === PWANI_HUB_ID).customProperties).toEqual({
      contacts: ["jumbe_whatsapp_opt_out"],
      communications: [],
    });
  });

  it("refuses what HubSpot refuses: a fieldType the type does not take, a boolean without true/false, no group, a bad name, the limit", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(PWANI_HUB_ID);
    await h.api("/crm/v3/properties/contacts/groups", token, { body: { name: "jumbe", label: "Jumbe" } });
    const bad = async (body: Json) => {
      const answer = await h!.api<Json>("/crm/v3/properties/contacts", token, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.category).toBe("VALIDATION_ERROR");
      return answer.json;
    };
    await bad({ ...MESSAGE_ID, fieldType: "booleancheckbox" });
    await bad({ ...OPT_OUT, options: [{ label: "Yes", value: "yes" }] });
    await bad({ ...MESSAGE_ID, groupName: "nowhere" });
    await bad({ ...MESSAGE_ID, name: "Jumbe Message" });
    await bad({ name: "jumbe_x", label: "X" });
    await h.control(`/portals/${PWANI_HUB_ID}/property-limit`, { body: { limit: 0 } });
    expect((await bad(MESSAGE_ID)).subCategory).toBe("PropertyValidationError.MAX_PROPERTIES_LIMIT_EXCEEDED");
  });

  it("creating needs crm.schemas.contacts.write: without it 403 MISSING_SCOPES, reading still works", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(
      PWANI_HUB_ID,
      "oauth crm.objects.contacts.read crm.objects.contacts.write crm.lists.read",
    );
    expect((await h.api("/crm/v3/properties/contacts", token)).status).toBe(200);
    const refused = await h.api<Json>("/crm/v3/properties/communications", token, { body: MESSAGE_ID });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ category: "MISSING_SCOPES" });
    expect(refused.json.errors[0].context.requiredGranularScopes).toEqual(["crm.schemas.contacts.write"]);
  });
});

describe("records naming a property the portal lacks", () => {
  it("are refused with PROPERTY_DOESNT_EXIST (create, batch, update, communications, search), and pass once it exists", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(PWANI_HUB_ID);
    const contact = await h.api<Json>("/crm/v3/objects/contacts", token, { body: { properties: { email: "amina@example.com" } } });
    const id = contact.json.id as string;
    const refusedAs = (answer: { status: number; json: Json }, name: string) => {
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ status: "error", category: "VALIDATION_ERROR" });
      expect(answer.json.errors).toEqual([
        { message: `Property "${name}" does not exist`, code: "PROPERTY_DOESNT_EXIST", context: { propertyName: [name] } },
      ]);
    };
    refusedAs(
      await h.api<Json>("/crm/v3/objects/contacts", token, { body: { properties: { email: "b@example.com", jumbe_contact_id: "x" } } }),
      "jumbe_contact_id",
    );
    refusedAs(
      await h.api<Json>(`/crm/v3/objects/contacts/${id}`, token, {
        method: "PATCH",
        body: { properties: { jumbe_whatsapp_opt_out: "true" } },
      }),
      "jumbe_whatsapp_opt_out",
    );
    refusedAs(
      await h.api<Json>("/crm/v3/objects/contacts/batch/update", token, {
        body: { inputs: [{ id, properties: { jumbe_contact_id: "x" } }] },
      }),
      "jumbe_contact_id",
    );
    const association = [{ to: { id }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 81 }] }];
    const logged = await h.api<Json>("/crm/v3/objects/communications/batch/create", token, {
      body: { inputs: [{ properties: { ...WHATSAPP, jumbe_message_id: "m-1" }, associations: association }] },
    });
    refusedAs(logged, "jumbe_message_id");
    expect(logged.json.message).toContain(
      'Property values were not valid: [{"isValid":false,"message":"Property \\"jumbe_message_id\\" does not exist"',
    );
    refusedAs(
      await h.api<Json>("/crm/v3/objects/communications/search", token, {
        body: { filterGroups: [{ filters: [{ propertyName: "jumbe_message_id", operator: "IN", values: ["m-1"] }] }] },
      }),
      "jumbe_message_id",
    );
    expect((await h.control<Json>(`/portals/${PWANI_HUB_ID}/communications`)).json.communications).toEqual([]);

    // Asked for in a read, an unknown property is left out without a word.
    const read = await h.api<Json>(`/crm/v3/objects/contacts/${id}?properties=email,jumbe_contact_id`, token);
    expect(read.status).toBe(200);
    expect(Object.keys(read.json.properties)).not.toContain("jumbe_contact_id");

    await h.api("/crm/v3/properties/communications/groups", token, { body: { name: "jumbe", label: "Jumbe" } });
    expect((await h.api("/crm/v3/properties/communications", token, { body: MESSAGE_ID })).status).toBe(201);
    const now = await h.api<Json>("/crm/v3/objects/communications/batch/create", token, {
      body: { inputs: [{ properties: { ...WHATSAPP, jumbe_message_id: "m-1" }, associations: association }] },
    });
    expect(now.status).toBe(201);
    const found = await h.api<Json>("/crm/v3/objects/communications/search", token, {
      body: {
        filterGroups: [{ filters: [{ propertyName: "jumbe_message_id", operator: "IN", values: ["m-1"] }] }],
        properties: ["jumbe_message_id"],
      },
    });
    expect(found.json.results[0].properties.jumbe_message_id).toBe("m-1");
  });
});

describe("contact delete", () => {
  it("archives: 204, then 404, gone from search and lists; another portal's id changes nothing", async () => {
    h = await startHubspot();
    const { access_token: token } = await h.connect(DUKA_HUB_ID);
    const [first, second] = h.sandbox.contacts(DUKA_HUB_ID);
    const gone = await h.api(`/crm/v3/objects/contacts/${first!.id}`, token, { method: "DELETE" });
    expect(gone.status).toBe(204);
    expect((await h.api(`/crm/v3/objects/contacts/${first!.id}`, token)).status).toBe(404);
    const search = await h.api<Json>("/crm/v3/objects/contacts/search", token, { body: { filterGroups: [], limit: 100 } });
    expect((search.json.results as Json[]).map((c) => c.id)).not.toContain(first!.id);
    const [list] = (await h.control<Json>("/portals")).json.portals.find((p: Json) => p.hubId === DUKA_HUB_ID).lists;
    expect(list.size).toBe(2);

    const other = (await h.connect(PWANI_HUB_ID)).access_token;
    expect((await h.api(`/crm/v3/objects/contacts/${second!.id}`, other, { method: "DELETE" })).status).toBe(204);
    expect((await h.api(`/crm/v3/objects/contacts/${second!.id}`, token)).status).toBe(200);
    expect((await h.api(`/crm/v3/objects/contacts/batch/archive`, token, { body: { inputs: [{ id: second!.id }] } })).status).toBe(204);
    expect((await h.api(`/crm/v3/objects/contacts/${second!.id}`, token)).status).toBe(404);
  });
});
