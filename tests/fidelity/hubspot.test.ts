import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@hubspot/api-client";
import { PropertyCreateFieldTypeEnum, PropertyCreateTypeEnum, type PropertyCreate } from "@hubspot/api-client/lib/codegen/crm/properties";
import { FilterOperatorEnum } from "@hubspot/api-client/lib/codegen/crm/contacts";
import { AssociationSpecAssociationCategoryEnum } from "@hubspot/api-client/lib/codegen/crm/objects/communications";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  DUKA_HUB_ID,
  PWANI_HUB_ID,
  REDIRECT_URI,
  startHubspot,
  type HubspotHarness,
} from "@jumbe/sandbox/hubspot/test-support";
import { JUMBE_PROPERTIES, JUMBE_PROPERTY_GROUP } from "~/.server/domains/integrations/hubspot/properties";

// The HubSpot sandbox driven by HubSpot's own Node client (@hubspot/api-client 13.5.0), pointed at
// it with `new Client({ accessToken, basePath })` and nothing else changed (tests/fidelity/README.md):
// every call Jumbe makes (app/.server/infrastructure/clients/hubspot.ts), and the refusals as the
// library surfaces them (its ApiException: `code` and the parsed `body`). Issue 73, decision 107.
// The library's OAuth calls are HubSpot's v1 endpoints; Jumbe calls the dated /oauth/2026-03 ones,
// which the sandbox answers the same way (its own tests cover them).

let h: HubspotHarness;
beforeAll(async () => {
  h = await startHubspot();
});
afterAll(async () => {
  await h.close();
});

type Refusal = { code: number; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
async function refusal(call: Promise<unknown>): Promise<Refusal> {
  const error = (await call.then(
    () => null,
    (e: unknown) => e,
  )) as Refusal | null;
  expect(error, "the call was expected to fail").not.toBeNull();
  return { code: error!.code, body: typeof error!.body === "string" ? JSON.parse(error!.body) : error!.body };
}

/** A portal's install as Jumbe makes it, through the library's token exchange. */
async function install(hubId: number, scope?: string) {
  const code = (await h.authorize(hubId, "allow", "state-1", scope)).searchParams.get("code")!;
  const tokens = await new Client({ basePath: h.base }).oauth.tokensApi.create(
    "authorization_code",
    code,
    REDIRECT_URI,
    CLIENT_ID,
    CLIENT_SECRET,
  );
  return { tokens, client: new Client({ accessToken: tokens.accessToken, basePath: h.base }) };
}

const WHATSAPP = {
  hs_communication_channel_type: "WHATS_APP",
  hs_communication_logged_from: "CRM",
  hs_communication_body: "← Habari",
  hs_timestamp: "2026-11-28T10:00:00.000Z",
};
const toContact = (id: string) => [
  { to: { id }, types: [{ associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined, associationTypeId: 81 }] },
];

describe("@hubspot/api-client against the sandbox", () => {
  it("OAuth: the code exchanged, the token's portal and scopes, a refresh, the refresh token revoked", async () => {
    const { tokens } = await install(PWANI_HUB_ID);
    expect(tokens).toMatchObject({ tokenType: "bearer", expiresIn: 1800 });
    expect(tokens.refreshToken).toBeTruthy();
    const oauth = new Client({ basePath: h.base }).oauth;
    const info = await oauth.accessTokensApi.get(tokens.accessToken);
    expect(info).toMatchObject({ hubId: PWANI_HUB_ID, scopes: expect.arrayContaining(["crm.schemas.contacts.write"]) });
    const refreshed = await oauth.tokensApi.create("refresh_token", undefined, undefined, CLIENT_ID, CLIENT_SECRET, tokens.refreshToken);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    await oauth.refreshTokensApi.archive(tokens.refreshToken);
    const spent = await refusal(
      oauth.tokensApi.create("refresh_token", undefined, undefined, CLIENT_ID, CLIENT_SECRET, tokens.refreshToken),
    );
    expect(spent.code).toBe(400);
  });

  it("properties: HubSpot's own listed; Jumbe's group and properties created; a duplicate 409; unknown 404; a bad combination 400", async () => {
    const { client } = await install(PWANI_HUB_ID);
    const properties = client.crm.properties;
    const listed = await properties.coreApi.getAll("contacts");
    expect(listed.results.map((p) => p.name)).toEqual(expect.arrayContaining(["email", "firstname", "phone"]));
    expect((await refusal(properties.coreApi.getByName("communications", "jumbe_message_id"))).code).toBe(404);

    // The group and every property exactly as Jumbe creates them (JUMBE_PROPERTIES, decision 107).
    for (const objectType of ["contacts", "communications"])
      expect(await properties.groupsApi.create(objectType, JUMBE_PROPERTY_GROUP)).toMatchObject({ name: "jumbe" });
    for (const { objectType, ...property } of JUMBE_PROPERTIES) {
      const created = await properties.coreApi.create(objectType, property as PropertyCreate);
      expect(created).toMatchObject({ name: property.name, type: property.type, fieldType: property.fieldType, groupName: "jumbe" });
      expect(created.options).toEqual((property.options ?? []).map((o) => expect.objectContaining(o)));
      expect(created.createdAt).toBeInstanceOf(Date);
      expect((await properties.coreApi.getByName(objectType, property.name)).name).toBe(property.name);
    }
    const body = {
      name: "jumbe_message_id",
      label: "Jumbe message ID",
      groupName: "jumbe",
      type: PropertyCreateTypeEnum.String,
      fieldType: PropertyCreateFieldTypeEnum.Text,
    };

    const duplicate = await refusal(properties.coreApi.create("communications", body));
    expect(duplicate).toMatchObject({ code: 409, body: { status: "error", category: "OBJECT_ALREADY_EXISTS" } });
    const combination = await refusal(
      properties.coreApi.create("communications", { ...body, name: "jumbe_flag", fieldType: PropertyCreateFieldTypeEnum.Booleancheckbox }),
    );
    expect(combination).toMatchObject({ code: 400, body: { category: "VALIDATION_ERROR" } });
  });

  it("creating a property without crm.schemas.contacts.write: 403 MISSING_SCOPES", async () => {
    const { client } = await install(PWANI_HUB_ID, "oauth crm.objects.contacts.read crm.objects.contacts.write crm.lists.read");
    const refused = await refusal(client.crm.properties.groupsApi.create("contacts", { name: "jumbe", label: "Jumbe" }));
    expect(refused).toMatchObject({ code: 403, body: { category: "MISSING_SCOPES" } });
  });

  it("contacts: create (409 with the existing id), read, update, search, batch create/read/update, delete", async () => {
    const { client } = await install(PWANI_HUB_ID);
    const contacts = client.crm.contacts;
    const amina = await contacts.basicApi.create({ properties: { email: "amina@example.com", firstname: "Amina" }, associations: [] });
    expect(amina).toMatchObject({ id: expect.stringMatching(/^\d+$/), properties: { email: "amina@example.com" } });
    const conflict = await refusal(contacts.basicApi.create({ properties: { email: "AMINA@example.com" }, associations: [] }));
    expect(conflict).toMatchObject({
      code: 409,
      body: { category: "CONFLICT", message: `Contact already exists. Existing ID: ${amina.id}` },
    });

    expect((await contacts.basicApi.getById(amina.id, ["firstname"])).properties.firstname).toBe("Amina");
    expect((await contacts.basicApi.update(amina.id, { properties: { lastname: "Njeri" } })).properties.lastname).toBe("Njeri");

    const batch = await contacts.batchApi.create({
      inputs: [
        { properties: { email: "brian@example.com", phone: "+254722000111" }, associations: [] },
        { properties: { email: "grace@example.com" }, associations: [] },
      ],
    });
    expect(batch.results).toHaveLength(2);
    const ids = batch.results.map((c) => c.id);
    const updated = await contacts.batchApi.update({ inputs: ids.map((id) => ({ id, properties: { city: "Nairobi" } })) });
    expect(updated.results.map((c) => c.properties.city)).toEqual(["Nairobi", "Nairobi"]);
    const read = await contacts.batchApi.read({ inputs: ids.map((id) => ({ id })), properties: ["city"], propertiesWithHistory: [] });
    expect(read.results.map((c) => c.properties.city)).toEqual(["Nairobi", "Nairobi"]);

    const found = await contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: "lastmodifieddate", operator: FilterOperatorEnum.Gte, value: "0" }] }],
      sorts: ["lastmodifieddate"],
      properties: ["email", "phone"],
      limit: 2,
      after: "0",
    });
    expect(found.total).toBe(3);
    expect(found.results).toHaveLength(2);
    expect(found.paging?.next?.after).toBe("2");

    await contacts.basicApi.archive(amina.id);
    expect((await refusal(contacts.basicApi.getById(amina.id))).code).toBe(404);
    await contacts.batchApi.archive({ inputs: [{ id: ids[0]! }] });
    expect((await refusal(contacts.basicApi.getById(ids[0]!))).code).toBe(404);
  });

  it("a record naming a property the portal lacks: 400 PROPERTY_DOESNT_EXIST, on contacts, communications and search; a read leaves it out", async () => {
    const { client } = await install(DUKA_HUB_ID);
    const contact = await client.crm.contacts.basicApi.create({ properties: { email: "otieno2@example.com" }, associations: [] });
    const write = await refusal(client.crm.contacts.basicApi.update(contact.id, { properties: { jumbe_whatsapp_opt_out: "true" } }));
    expect(write).toMatchObject({
      code: 400,
      body: {
        category: "VALIDATION_ERROR",
        errors: [{ code: "PROPERTY_DOESNT_EXIST", message: 'Property "jumbe_whatsapp_opt_out" does not exist' }],
      },
    });
    const logged = await refusal(
      client.crm.objects.communications.batchApi.create({
        inputs: [{ properties: { ...WHATSAPP, jumbe_message_id: "m-1" }, associations: toContact(contact.id) }],
      }),
    );
    expect(logged.body.errors[0]).toMatchObject({ code: "PROPERTY_DOESNT_EXIST" });
    const searched = await refusal(
      client.crm.objects.communications.searchApi.doSearch({
        filterGroups: [{ filters: [{ propertyName: "jumbe_message_id", operator: FilterOperatorEnum.In, values: ["m-1"] }] }],
        properties: ["jumbe_message_id"],
        limit: 200,
      }),
    );
    expect(searched).toMatchObject({ code: 400, body: { category: "VALIDATION_ERROR", errors: [{ code: "PROPERTY_DOESNT_EXIST" }] } });
    const read = await client.crm.contacts.basicApi.getById(contact.id, ["email", "jumbe_contact_id"]);
    expect(read.properties.email).toBe("otieno2@example.com");
    expect(Object.keys(read.properties)).not.toContain("jumbe_contact_id");
  });

  it("communications: created one and in a batch, associated to the contact, found again by jumbe_message_id", async () => {
    const { client } = await install(DUKA_HUB_ID);
    await client.crm.properties.groupsApi.create("communications", { name: "jumbe", label: "Jumbe" });
    await client.crm.properties.coreApi.create("communications", {
      name: "jumbe_message_id",
      label: "Jumbe message ID",
      groupName: "jumbe",
      type: PropertyCreateTypeEnum.String,
      fieldType: PropertyCreateFieldTypeEnum.Text,
    });
    const contact = h.sandbox.contacts(DUKA_HUB_ID)[0]!;
    const one = await client.crm.objects.communications.basicApi.create({ properties: WHATSAPP, associations: toContact(contact.id) });
    expect(one.id).toMatch(/^\d+$/);
    const batch = await client.crm.objects.communications.batchApi.create({
      inputs: ["m-1", "m-2"].map((id) => ({ properties: { ...WHATSAPP, jumbe_message_id: id }, associations: toContact(contact.id) })),
    });
    expect(batch.results).toHaveLength(2);
    const found = await client.crm.objects.communications.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: "jumbe_message_id", operator: FilterOperatorEnum.In, values: ["m-2"] }] }],
      properties: ["jumbe_message_id"],
      limit: 200,
    });
    expect(found.results.map((c) => c.properties.jumbe_message_id)).toEqual(["m-2"]);
    const bad = await refusal(
      client.crm.objects.communications.basicApi.create({
        properties: WHATSAPP,
        associations: [
          {
            to: { id: contact.id },
            types: [{ associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined, associationTypeId: 202 }],
          },
        ],
      }),
    );
    expect(bad).toMatchObject({ code: 400, body: { category: "VALIDATION_ERROR" } });
  });

  it("erasure (issue 74): communications archived in a batch, the contact GDPR-deleted for good, then 404", async () => {
    const { client } = await install(PWANI_HUB_ID);
    const contact = await client.crm.contacts.basicApi.create({
      properties: { firstname: "Halima", phone: "+254711000041" },
      associations: [],
    });
    const logged = await client.crm.objects.communications.basicApi.create({ properties: WHATSAPP, associations: toContact(contact.id) });
    await client.crm.objects.communications.batchApi.archive({ inputs: [{ id: logged.id }, { id: "999999999" }] });
    expect(await refusal(client.crm.objects.communications.basicApi.getById(logged.id))).toMatchObject({ code: 404 });
    await client.crm.contacts.basicApi.purge({ objectId: contact.id });
    expect(await refusal(client.crm.contacts.basicApi.getById(contact.id))).toMatchObject({ code: 404 });
    expect(await refusal(client.crm.contacts.basicApi.purge({ objectId: contact.id }))).toMatchObject({
      code: 404,
      body: { category: "OBJECT_NOT_FOUND" },
    });
  });

  it("lists: searched, read, and their memberships paged", async () => {
    const { client } = await install(DUKA_HUB_ID);
    const search = await client.crm.lists.listsApi.doSearch({ query: "", offset: 0, count: 100 });
    const vip = search.lists.find((l) => l.name === "VIP customers")!;
    expect(vip).toMatchObject({ processingType: "MANUAL", additionalProperties: { hs_list_size: "3" } });
    expect((await client.crm.lists.listsApi.getById(vip.listId)).list.name).toBe("VIP customers");
    const page = await client.crm.lists.membershipsApi.getPage(vip.listId, undefined, undefined, 2);
    expect(page.results).toHaveLength(2);
    const rest = await client.crm.lists.membershipsApi.getPage(vip.listId, page.paging!.next!.after, undefined, 2);
    expect(rest.results).toHaveLength(1);
  });

  it("an expired token: 401 EXPIRED_AUTHENTICATION as the library surfaces it", async () => {
    const { client } = await install(PWANI_HUB_ID);
    h.sandbox.expireTokens(PWANI_HUB_ID);
    const expired = await refusal(client.crm.properties.coreApi.getAll("contacts"));
    expect(expired).toMatchObject({ code: 401, body: { category: "EXPIRED_AUTHENTICATION" } });
  });
});
