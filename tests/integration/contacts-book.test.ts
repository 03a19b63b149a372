import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { saveContact, setConsent, getContact, phoneHash } from "~/.server/domains/contacts/manage";
import { bulkDelete, bulkTag, bulkUntag } from "~/.server/domains/contacts/bulk";
import { mergeContacts } from "~/.server/domains/contacts/merge";
import { contactDataExport, eraseContact } from "~/.server/domains/contacts/rights";
import { deleteSegment, getSegment, listSegments, saveSegment } from "~/.server/domains/contacts/segments";
import { contactTimeline } from "~/.server/domains/contacts/timeline";
import { CONTACTS_PAGE_SIZE, contactsPage, countMatching } from "~/.server/domains/contacts/page";
import { contactFilterOf, readContactFilterParams } from "~/lib/contact-filter";
import { defineAttribute, removeAttribute } from "~/.server/domains/contacts/field-definitions";
import { contactTagChoices } from "~/.server/domains/contacts/tags";
import { sweepExpiredData } from "~/.server/domains/housekeeping/sweep";
import { createVerifiedUser } from "../support/accounts";
import { isRefusal } from "~/.server/infrastructure/refusal";

// The Message Center's contact book (issue 13): bulk actions, merge, the people's rights, segments,
// the timeline and the tab's pages; each with bad input and another tenant's ids.

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, userId: user.user.id };
}

async function refusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "contact")) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error("it was accepted");
}

const add = (t: { organizationId: string; userId: string }, name: string, phone: string, tags: string[] = []) =>
  saveContact(t, { name, phone, tags }).then((r) => r.contact);

async function message(
  organizationId: string,
  contactId: string | null,
  body: string,
  extra: { recipientPhone?: string; direction?: string } = {},
) {
  await rawQuery(
    // Delivered, as Meta's statuses leave a message: accepted and delivered at a time (a message
    // without accepted_at is one still waiting to be sent).
    `insert into messages (organization_id, contact_id, direction, status, body, wamid, recipient_phone, payload, accepted_at, delivered_at)
     values ($1, $2, $3, 'delivered', $4, $5, $6, $7, case when $3 = 'outbound' then now() end, case when $3 = 'outbound' then now() end)`,
    [
      organizationId,
      contactId,
      extra.direction ?? "outbound",
      body,
      `wamid.${Math.random().toString(36).slice(2)}`,
      extra.recipientPhone ?? null,
      JSON.stringify({ text: { body }, from: extra.recipientPhone ?? null }),
    ],
  );
}

const tagsOf = async (organizationId: string) =>
  Object.fromEntries(
    (await rawQuery<{ name: string; tags: string[] }>(`select name, tags from contacts where organization_id = $1`, [organizationId])).map(
      (r) => [r.name, r.tags],
    ),
  );

describe("bulk actions", () => {
  it("tags and untags the ticked contacts only, counting the ones that changed, and logs each", async () => {
    const t = await tenant("Bulk Tags Ltd");
    const a = await add(t, "Amina", "0712 000 001", ["vip"]);
    const b = await add(t, "Baraka", "0712 000 002");
    await add(t, "Chebet", "0712 000 003");
    expect(await bulkTag(t, { ids: [a.id, b.id] }, ["VIP", "nairobi"])).toBe(2);
    expect(await tagsOf(t.organizationId)).toEqual({ Amina: ["vip", "nairobi"], Baraka: ["vip", "nairobi"], Chebet: [] });
    // Already tagged: nothing changes, and the count says so.
    expect(await bulkTag(t, { ids: [a.id] }, ["vip"])).toBe(0);
    expect(await bulkUntag(t, { ids: [a.id, b.id] }, ["nairobi"])).toBe(2);
    expect(await tagsOf(t.organizationId)).toEqual({ Amina: ["vip"], Baraka: ["vip"], Chebet: [] });
    const log = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 order by created_at`,
      [t.organizationId],
    );
    expect(log.map((l) => l.action)).toEqual(["Contacts tagged", "Contacts tagged", "Contacts untagged"]);
    expect(log[0]!.details).toBe("vip, nairobi added to 2 contacts.");
  });

  it("works on everything a filter matches, across batches, and deletes what a filter matches", async () => {
    const t = await tenant("Bulk Filter Ltd");
    await rawQuery(
      `insert into contacts (organization_id, name, phone, tags) select $1, 'Person ' || g, '+2547' || lpad(g::text, 8, '0'), case when g % 2 = 0 then '{even}'::text[] else '{}' end
       from generate_series(1, 2500) g`,
      [t.organizationId],
    );
    expect(await bulkTag(t, { filter: { tag: "even" } }, ["paired"])).toBe(1250);
    expect(await countMatching(t.organizationId, { tag: "paired" })).toEqual({ count: 1250, more: false });
    expect(await bulkDelete(t, { filter: { tag: "paired" } })).toBe(1250);
    expect(await countMatching(t.organizationId, {})).toEqual({ count: 1250, more: false });
  });

  it("keeps the tag filter's choices to the tags the tenant's contacts carry, whatever wrote them", async () => {
    const t = await tenant("Tag Catalog Ltd");
    const other = await tenant("Tag Catalog Other Ltd");
    const a = await add(t, "Amina", "0712 100 001", ["vip", "nairobi"]);
    const b = await add(t, "Baraka", "0712 100 002", ["vip"]);
    await add(other, "Elsewhere", "0712 100 003", ["theirs"]);
    // Written by SQL directly too (an import's batch insert): the catalog is kept by the database.
    await rawQuery(`insert into contacts (organization_id, name, phone, tags) values ($1, 'Chebet', '+254712100004', '{kisumu,vip}')`, [
      t.organizationId,
    ]);
    expect(await contactTagChoices(t.organizationId)).toEqual(["kisumu", "nairobi", "vip"]);
    expect(await contactTagChoices(other.organizationId)).toEqual(["theirs"]);
    await bulkTag(t, { ids: [b.id] }, ["Mombasa"]);
    expect(await contactTagChoices(t.organizationId)).toEqual(["kisumu", "mombasa", "nairobi", "vip"]);
    // Untagging the last carrier removes the choice at once; one still carried stays.
    await bulkUntag(t, { ids: [a.id, b.id] }, ["nairobi", "vip"]);
    expect(await contactTagChoices(t.organizationId)).toEqual(["kisumu", "mombasa", "vip"]);
    await bulkDelete(t, { filter: { tag: "kisumu" } });
    expect(await contactTagChoices(t.organizationId)).toEqual(["mombasa"]);
    // A merge or an erasure drops tags too: housekeeping sweeps what nobody carries.
    await rawQuery(`update contacts set tags = '{}' where organization_id = $1`, [t.organizationId]);
    expect(await contactTagChoices(t.organizationId)).toEqual(["mombasa"]);
    expect((await sweepExpiredData()).contactTags).toBeGreaterThanOrEqual(1);
    expect(await contactTagChoices(t.organizationId)).toEqual([]);
    expect(await contactTagChoices(other.organizationId)).toEqual(["theirs"]);
  });

  it("never touches another tenant's contacts, whether by id or by filter", async () => {
    const mine = await tenant("Bulk Mine Ltd");
    const theirs = await tenant("Bulk Theirs Ltd");
    const foreign = await add(theirs, "Wanjiru", "0712 000 009", ["vip"]);
    expect(await bulkTag(mine, { ids: [foreign.id] }, ["stolen"])).toBe(0);
    expect(await bulkDelete(mine, { ids: [foreign.id] })).toBe(0);
    expect(await bulkDelete(mine, { filter: { tag: "vip" } })).toBe(0);
    expect((await getContact(theirs.organizationId, foreign.id)).tags).toEqual(["vip"]);
  });

  it("refuses bad input and changes nothing", async () => {
    const t = await tenant("Bulk Bad Ltd");
    const a = await add(t, "Amina", "0712 000 011");
    expect(await refusal(bulkTag(t, { ids: [] }, ["x"]))).toEqual({ status: 400, code: "contact_not_found" });
    expect(await refusal(bulkTag(t, { ids: ["not-an-id"] }, ["x"]))).toEqual({ status: 400, code: "contact_not_found" });
    expect(await refusal(bulkTag(t, { ids: [a.id] }, [" , "]))).toEqual({ status: 400, code: "invalid_tag" });
    expect(await refusal(bulkTag(t, { ids: [a.id] }, ["x".repeat(41)]))).toEqual({ status: 422, code: "invalid_tag" });
    expect(await refusal(bulkDelete(t, { ids: Array.from({ length: 501 }, () => a.id) }))).toEqual({
      status: 400,
      code: "contact_not_found",
    });
    expect((await getContact(t.organizationId, a.id)).tags).toEqual([]);
  });
});

describe("merging duplicates", () => {
  it("keeps the survivor's fields, adds the other's tags and missing fields, moves messages and consent, removes the other", async () => {
    const t = await tenant("Merge Ltd");
    await defineAttribute(t, { key: "county", label: "County", type: "text" });
    await defineAttribute(t, { key: "age", label: "Age", type: "number" });
    const survivor = (
      await saveContact(t, { name: "Amina Otieno", phone: "0712 100 001", tags: ["vip"], attributes: { county: "Kisumu" } })
    ).contact;
    const other = (
      await saveContact(t, {
        name: "Amina O.",
        phone: "0712 100 002",
        tags: ["nairobi", "vip"],
        attributes: { county: "Nairobi", age: 31 },
      })
    ).contact;
    await message(t.organizationId, other.id, "Habari");
    await message(t.organizationId, survivor.id, "Karibu");
    await setConsent(t, other.id, { status: "opted_in", source: "form", evidence: "web form" });
    const merged = await mergeContacts(t, survivor.id, other.id);
    expect(merged).toMatchObject({
      name: "Amina Otieno",
      phone: "+254712100001",
      tags: ["vip", "nairobi"],
      attributes: { county: "Kisumu", age: 31 },
      optIn: "opted_in",
    });
    expect(await rawQuery(`select count(*)::int as n from messages where contact_id = $1`, [survivor.id])).toEqual([{ n: 2 }]);
    expect(await rawQuery(`select count(*)::int as n from consent_events where contact_id = $1`, [survivor.id])).toEqual([{ n: 1 }]);
    expect(await refusal(getContact(t.organizationId, other.id))).toEqual({ status: 404, code: "contact_not_found" });
    const timeline = await contactTimeline(t.organizationId, survivor.id);
    expect(timeline.entries.map((e) => e.kind).sort()).toEqual(["consent", "message", "message"]);
  });

  it("refuses itself, an unknown id and another tenant's contact, changing nothing", async () => {
    const t = await tenant("Merge Mine Ltd");
    const other = await tenant("Merge Theirs Ltd");
    const a = await add(t, "Amina", "0712 100 011");
    const foreign = await add(other, "Wanjiru", "0712 100 012");
    expect(await refusal(mergeContacts(t, a.id, a.id))).toEqual({ status: 400, code: "contact_not_found" });
    expect(await refusal(mergeContacts(t, a.id, "nonsense"))).toEqual({ status: 404, code: "contact_not_found" });
    expect(await refusal(mergeContacts(t, a.id, foreign.id))).toEqual({ status: 404, code: "contact_not_found" });
    expect((await getContact(other.organizationId, foreign.id)).name).toBe("Wanjiru");
  });
});

describe("the people's rights", () => {
  it("downloads everything held about a person, and logs it by id", async () => {
    const t = await tenant("Rights Export Ltd");
    const a = (
      await saveContact(
        t,
        { name: "Juma Kiprop", phone: "0712 200 001" },
        { consent: { status: "opted_in", source: "form", evidence: "signed up" } },
      )
    ).contact;
    await message(t.organizationId, a.id, "Your order is ready");
    const file = await contactDataExport(t, a.id);
    expect(file.profile).toMatchObject({ name: "Juma Kiprop", phone: "+254712200001" });
    expect(file.consent).toHaveLength(1);
    expect(file.messages).toMatchObject([{ body: "Your order is ready" }]);
    const [entry] = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1`,
      [t.organizationId],
    );
    expect(entry).toMatchObject({ action: "Contact data downloaded" });
    expect(entry!.details).not.toContain("Juma");
    const stranger = await tenant("Rights Stranger Ltd");
    expect(await refusal(contactDataExport(stranger, a.id))).toEqual({ status: 404, code: "contact_not_found" });
  });

  it("erases a person: nothing with their name or number remains, the counts stay, and an import cannot silently re-add them", async () => {
    const t = await tenant("Rights Erase Ltd");
    const name = "Zawadi Wekesa";
    const a = (
      await saveContact(
        t,
        { name, phone: "0712 300 001", notes: `${name} prefers mornings` },
        { consent: { status: "opted_in", source: "form", evidence: `${name} ticked the box` } },
      )
    ).contact;
    await message(t.organizationId, a.id, `Hello ${name}`, { recipientPhone: "+254712300001" });
    await message(t.organizationId, a.id, "Asante", { direction: "inbound", recipientPhone: "+254712300001" });
    await message(t.organizationId, null, `Before she was a contact, ${name}`, { recipientPhone: "+254712300001" });
    const keep = await add(t, "Someone Else", "0712 300 002");
    await message(t.organizationId, keep.id, "Hello Someone");
    await eraseContact(t, a.id);

    const everything = JSON.stringify([
      await rawQuery(`select * from messages where organization_id = $1`, [t.organizationId]),
      await rawQuery(`select * from contacts where organization_id = $1`, [t.organizationId]),
      await rawQuery(`select * from consent_events where organization_id = $1`, [t.organizationId]),
      await rawQuery(`select * from contact_tombstones where organization_id = $1`, [t.organizationId]),
      await rawQuery(`select * from activity_logs where organization_id = $1`, [t.organizationId]),
    ]);
    for (const trace of ["Zawadi", "Wekesa", "712300001", "0712 300 001"]) expect(everything).not.toContain(trace);
    expect(await rawQuery(`select count(*)::int as n from messages where organization_id = $1`, [t.organizationId])).toEqual([{ n: 4 }]);
    expect(await rawQuery(`select body from messages where organization_id = $1 and body <> ''`, [t.organizationId])).toEqual([
      { body: "Hello Someone" },
    ]);
    expect(await rawQuery(`select phone_hash from contact_tombstones where organization_id = $1`, [t.organizationId])).toEqual([
      { phone_hash: phoneHash(t.organizationId, "+254712300001") },
    ]);
    expect(await refusal(saveContact(t, { name, phone: "0712 300 001" }, { upsert: true }))).toEqual({
      status: 409,
      code: "erased_contact",
    });
    const log = await rawQuery<{ action: string }>(`select action from activity_logs where organization_id = $1`, [t.organizationId]);
    expect(log.map((l) => l.action)).toContain("Contact erased");
  });

  it("refuses another tenant's contact and leaves it whole", async () => {
    const t = await tenant("Rights Mine Ltd");
    const other = await tenant("Rights Theirs Ltd");
    const foreign = await add(other, "Wanjiru", "0712 300 009");
    expect(await refusal(eraseContact(t, foreign.id))).toEqual({ status: 404, code: "contact_not_found" });
    expect(await refusal(eraseContact(t, "x"))).toEqual({ status: 404, code: "contact_not_found" });
    expect((await getContact(other.organizationId, foreign.id)).name).toBe("Wanjiru");
  });
});

describe("segments", () => {
  it("saves a filter by name, counts it live, opens it as the tab's filter, and deletes it", async () => {
    const t = await tenant("Segments Ltd");
    await add(t, "Amina", "0712 400 001", ["vip"]);
    const segment = await saveSegment(t, { name: " VIP  customers ", filter: { tag: "vip", optin: "unknown" } });
    expect(segment).toMatchObject({ name: "VIP customers", query: "tag=vip&optin=unknown" });
    expect((await listSegments(t.organizationId, { counts: true }))[0]!.count).toEqual({ count: 1, more: false });
    await add(t, "Baraka", "0712 400 002", ["vip"]);
    expect((await listSegments(t.organizationId, { counts: true }))[0]!.count).toEqual({ count: 2, more: false });
    const opened = await getSegment(t.organizationId, segment.id);
    const page = await contactsPage(t.organizationId, contactFilterOf(readContactFilterParams(new URLSearchParams(opened.query))), {});
    expect(page.contacts.map((c) => c.name).sort()).toEqual(["Amina", "Baraka"]);
    expect(await refusal(saveSegment(t, { name: "vip customers", filter: {} }))).toEqual({ status: 409, code: "invalid_name" });
    expect(await refusal(saveSegment(t, { name: "   ", filter: {} }))).toEqual({ status: 422, code: "invalid_name" });
    const stranger = await tenant("Segments Stranger Ltd");
    expect(await refusal(getSegment(stranger.organizationId, segment.id))).toEqual({ status: 404, code: "contact_not_found" });
    expect(await refusal(deleteSegment(stranger, segment.id))).toEqual({ status: 404, code: "contact_not_found" });
    await deleteSegment(t, segment.id);
    expect(await listSegments(t.organizationId, { counts: false })).toEqual([]);
  });

  it("reads only known filter keys and values, from the URL and from storage", () => {
    expect(readContactFilterParams(new URLSearchParams("q=%20amina%20&tag=VIP&optin=maybe&seen=45&extra=1"))).toEqual({
      q: "amina",
      tag: "vip",
    });
    const filter = contactFilterOf({ seen: "7" }, new Date("2026-11-23T00:00:00Z"));
    expect(filter.seenSince?.toISOString()).toBe("2026-11-16T00:00:00.000Z");
    expect(contactFilterOf({ seen: "never" }).neverSeen).toBe(true);
  });
});

describe("the Contacts tab's pages and the fields", () => {
  it("pages newest first by keyset cursors in both directions", async () => {
    const t = await tenant("Paging Ltd");
    await rawQuery(
      `insert into contacts (organization_id, name, phone, created_at) select $1, 'P' || lpad(g::text, 3, '0'), '+2547' || lpad(g::text, 8, '0'), now() - (g || ' seconds')::interval
       from generate_series(1, 120) g`,
      [t.organizationId],
    );
    const first = await contactsPage(t.organizationId, {}, {});
    expect(first.contacts[0]!.name).toBe("P001");
    expect(first.newer).toBeNull();
    const second = await contactsPage(t.organizationId, {}, { after: first.older });
    const name = (n: number) => `P${String(n).padStart(3, "0")}`;
    expect(first.contacts).toHaveLength(CONTACTS_PAGE_SIZE);
    expect(second.contacts[0]!.name).toBe(name(CONTACTS_PAGE_SIZE + 1));
    const back = await contactsPage(t.organizationId, {}, { before: second.newer });
    expect(back.contacts.map((c) => c.name)).toEqual(first.contacts.map((c) => c.name));
    // Every page of the 120 in turn, the last one ending the list.
    let page = second;
    let start = CONTACTS_PAGE_SIZE + 1;
    while (page.older) {
      page = await contactsPage(t.organizationId, {}, { after: page.older });
      start += CONTACTS_PAGE_SIZE;
      expect(page.contacts[0]!.name).toBe(name(start));
    }
    expect(page.contacts).toHaveLength(120 - start + 1);
    expect(start + page.contacts.length - 1).toBe(120);
    // A forged cursor is the first page, never an error.
    expect((await contactsPage(t.organizationId, {}, { after: "garbage" })).contacts[0]!.name).toBe("P001");
  });

  it("defines and removes custom fields, refusing bad keys and duplicates", async () => {
    const t = await tenant("Fields Ltd");
    await defineAttribute(t, { key: "county", label: "County", type: "text" });
    const a = (await saveContact(t, { name: "Amina", phone: "0712 500 001", attributes: { county: "Kisumu" } })).contact;
    expect(await refusal(defineAttribute(t, { key: "county", label: "Again", type: "text" }))).toEqual({
      status: 409,
      code: "invalid_attribute",
    });
    expect(await refusal(defineAttribute(t, { key: "9lives", label: "X", type: "text" }))).toEqual({
      status: 422,
      code: "invalid_attribute",
    });
    expect(await refusal(defineAttribute(t, { key: "phone", label: "X", type: "text" }))).toEqual({
      status: 422,
      code: "invalid_attribute",
    });
    expect(await refusal(defineAttribute(t, { key: "colour", label: "X", type: "colour" }))).toEqual({
      status: 422,
      code: "invalid_attribute",
    });
    await removeAttribute(t, "county");
    expect((await getContact(t.organizationId, a.id)).attributes).toEqual({});
    const stranger = await tenant("Fields Stranger Ltd");
    expect(await refusal(removeAttribute(stranger, "county"))).toEqual({ status: 404, code: "unknown_attribute" });
  });
});
