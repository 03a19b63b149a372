import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { contactPhone, contactTags } from "~/.server/domains/contacts/fields";
import { consentKeyword, consentReply } from "~/.server/domains/contacts/consent";
import {
  deleteContact,
  getContact,
  listContacts,
  phoneHash,
  saveContact,
  setConsent,
  updateContact,
} from "~/.server/domains/contacts/manage";
import { createVerifiedUser } from "../support/accounts";
import { isRefusal, Refusal } from "~/.server/infrastructure/refusal";

// The contact book's rules (issue 13): one person per number however it is written, checked
// fields and custom attributes, the consent ledger, erasure's tombstone, search and paging, and
// tenant separation.

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, userId: user.user.id };
}

async function refusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "contact")) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

describe("phone numbers", () => {
  it("reads every Kenyan way of writing a number as one E.164 number, and foreign numbers by their code", () => {
    const safaricom = [
      "0712 345 678",
      "0712345678",
      "712345678",
      "254712345678",
      "+254 712 345 678",
      "+254-712-345-678",
      "00254712345678",
      "(0712) 345678",
    ];
    expect(new Set(safaricom.map(contactPhone))).toEqual(new Set(["+254712345678"]));
    expect(contactPhone("0110 234 567")).toBe("+254110234567");
    expect(contactPhone("0733 123 456")).toBe("+254733123456");
    expect(contactPhone("020 2345678")).toBe("+254202345678");
    expect(contactPhone("+255 754 123 456")).toBe("+255754123456");
    expect(contactPhone("+256 772 123456")).toBe("+256772123456");
    expect(contactPhone("+44 7911 123456")).toBe("+447911123456");
  });

  it("refuses what cannot be a real number, saying how to write one", () => {
    for (const junk of ["", "abc", "12", "0712", "+999 123 456 789", "0712 345 678 999 999", "+254 712 345 67a", "1".repeat(50)]) {
      let code = "";
      try {
        contactPhone(junk);
      } catch (error) {
        code = (error as Refusal).code;
        expect((error as Refusal).message).toMatch(/phone number/);
      }
      expect(code, junk).toBe("invalid_phone_number");
    }
  });

  it("keeps tags lower-cased, trimmed and once each", () => {
    expect(contactTags(["  VIP ", "vip", "Nairobi  West", ""])).toEqual(["vip", "nairobi west"]);
    expect(() => contactTags(["a,b"])).toThrow(Refusal);
    expect(() => contactTags(["x".repeat(41)])).toThrow(Refusal);
  });
});

describe("contacts", () => {
  it("keeps one contact per number: an upsert in another form updates it, a plain create is refused", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const first = await saveContact(t, { name: "Amina Hassan", phone: "0712 345 678", tags: ["Members"] });
    expect(first.created).toBe(true);
    expect(first.contact).toMatchObject({
      name: "Amina Hassan",
      phone: "+254712345678",
      waId: "254712345678",
      tags: ["members"],
      optIn: "unknown",
    });
    const again = await saveContact(t, { name: "Amina H.", phone: "+254 712 345 678", tags: ["vip"] }, { upsert: true });
    expect(again).toMatchObject({ created: false, contact: { id: first.contact.id, name: "Amina H.", tags: ["vip"] } });
    expect(await refusal(saveContact(t, { name: "Someone", phone: "254712345678" }))).toMatchObject({
      status: 409,
      code: "duplicate_phone",
    });
    expect(await rawQuery(`select count(*)::int as n from contacts where organization_id = $1`, [t.organizationId])).toEqual([{ n: 1 }]);
  });

  it("joins the contact an inbound message made (wa_id) rather than making a second one", async () => {
    const t = await tenant("Pwani Fish Traders");
    await db().execute(
      sql`insert into contacts (organization_id, name, wa_id, phone) values (${t.organizationId}, 'Hassan', '254722555001', '+254722555001')`,
    );
    const saved = await saveContact(t, { name: "Hassan Ali", phone: "0722 555 001" }, { upsert: true });
    expect(saved.created).toBe(false);
    expect(await rawQuery(`select name from contacts where organization_id = $1`, [t.organizationId])).toEqual([{ name: "Hassan Ali" }]);
  });

  it("checks custom attributes against the tenant's fields, each in its type", async () => {
    const t = await tenant("Kilimo Bora Co-op");
    await db().execute(sql`insert into contact_attributes (organization_id, key, label, type) values
      (${t.organizationId}, 'county', 'County', 'text'), (${t.organizationId}, 'acres', 'Acres', 'number'),
      (${t.organizationId}, 'joined', 'Joined', 'date'), (${t.organizationId}, 'member', 'Member', 'boolean')`);
    const { contact } = await saveContact(t, {
      name: "Wanjiru Kamau",
      phone: "0723 456 789",
      // Commas group thousands, as Kenyans write them.
      attributes: { county: " Nyeri ", acres: "1,250", joined: "2024-02-29", member: "ndiyo" },
    });
    expect(contact.attributes).toEqual({ county: "Nyeri", acres: 1250, joined: "2024-02-29", member: true });
    expect(await refusal(updateContact(t, contact.id, { attributes: { shoe_size: 42 } }))).toMatchObject({ code: "unknown_attribute" });
    expect(await refusal(updateContact(t, contact.id, { attributes: { acres: "many" } }))).toMatchObject({ code: "invalid_attribute" });
    expect(await refusal(updateContact(t, contact.id, { attributes: { joined: "2023-02-29" } }))).toMatchObject({
      code: "invalid_attribute",
    });
    const cleared = await updateContact(t, contact.id, { attributes: { county: null, acres: 3 } });
    expect(cleared.attributes).toEqual({ acres: 3, joined: "2024-02-29", member: true });
  });

  it("keeps the consent ledger append-only and the contact's state its latest event", async () => {
    const t = await tenant("Mlima Tea Growers");
    const { contact } = await saveContact(
      t,
      { name: "Kiprono", phone: "0711 000 222" },
      { consent: { status: "opted_in", source: "form", evidence: "Signed up at the Kericho field day" } },
    );
    expect(contact.optIn).toBe("opted_in");
    const out = await setConsent(t, contact.id, { status: "opted_out", source: "keyword", evidence: "STOP" });
    expect(out.optIn).toBe("opted_out");
    const ledger = await rawQuery<{ status: string; source: string; evidence: string; recorded_by: string | null }>(
      `select status, source, evidence, recorded_by from consent_events where contact_id = $1 order by id`,
      [contact.id],
    );
    expect(ledger).toEqual([
      { status: "opted_in", source: "form", evidence: "Signed up at the Kericho field day", recorded_by: t.userId },
      { status: "opted_out", source: "keyword", evidence: "STOP", recorded_by: t.userId },
    ]);
    expect(await refusal(setConsent(t, contact.id, { status: "opted_in", source: "carrier pigeon" as never }))).toMatchObject({
      code: "invalid_consent",
    });
  });

  it("reads the opt-out and opt-in keywords in English and Swahili, whatever the case or punctuation", () => {
    for (const word of [
      "STOP",
      "stop",
      "Stop!",
      "s.t.o.p",
      "STOP ALL",
      "stop  all.",
      "Unsubscribe",
      "ACHA",
      "acha!",
      "Sitisha",
      "SITISHA.",
    ])
      expect(consentKeyword(word)?.status, word).toBe("opted_out");
    for (const word of ["START", "start!", "Anza", "ANZA."]) expect(consentKeyword(word)?.status, word).toBe("opted_in");
    expect(consentKeyword("acha")?.language).toBe("sw");
    expect(consentKeyword("stop")?.language).toBe("en");
    for (const sentence of ["Please stop calling me at night", "STOPPED", "anza kesho", "", "🛑"])
      expect(consentKeyword(sentence), sentence).toBeNull();
    expect(consentReply("opted_out", "sw", "Nyota Sacco")).toContain("ANZA");
    expect(consentReply("opted_out", "en", "Nyota Sacco")).toContain("START");
  });

  it("does not add an erased person back without fresh consent", async () => {
    const t = await tenant("Afya Clinic");
    await db().execute(
      sql`insert into contact_tombstones (organization_id, phone_hash) values (${t.organizationId}, ${phoneHash(t.organizationId, "+254700123456")})`,
    );
    expect(await refusal(saveContact(t, { name: "Back Again", phone: "0700 123 456" }, { upsert: true }))).toMatchObject({
      code: "erased_contact",
    });
    const { contact } = await saveContact(
      t,
      { name: "Back Again", phone: "0700 123 456" },
      { consent: { status: "opted_in", source: "form", evidence: "Signed again at reception" } },
    );
    expect(contact.optIn).toBe("opted_in");
  });

  it("finds contacts by name, number in any form or attribute, filters by tag and opt-in, and pages without repeats", async () => {
    const t = await tenant("Soko Mjinga Traders");
    const other = await tenant("Other Tenant");
    await db().execute(
      sql`insert into contact_attributes (organization_id, key, label, type) values (${t.organizationId}, 'town', 'Town', 'text')`,
    );
    for (let i = 0; i < 25; i++)
      await saveContact(t, {
        name: `Customer ${i}`,
        phone: `07${String(10_000_000 + i).padStart(8, "0")}`,
        tags: i % 2 ? ["odd"] : [],
        attributes: { town: i === 7 ? "Naivasha" : "Nakuru" },
      });
    await saveContact(t, { name: "Wambui Njoroge", phone: "0722 999 888" }, { consent: { status: "opted_in", source: "manual" } });
    await saveContact(other, { name: "Wambui Elsewhere", phone: "0722 999 777" });

    const names = async (filter: Parameters<typeof listContacts>[1]) =>
      (await listContacts(t.organizationId, filter, { limit: 100 })).contacts.map((c) => c.name);
    expect(await names({ search: "wambui" })).toEqual(["Wambui Njoroge"]);
    expect(await names({ search: "0722 999 888" })).toEqual(["Wambui Njoroge"]);
    expect(await names({ search: "+254722999888" })).toEqual(["Wambui Njoroge"]);
    expect(await names({ search: "Naivasha" })).toEqual(["Customer 7"]);
    expect((await names({ tag: "ODD" })).length).toBe(12);
    expect(await names({ optIn: "opted_in" })).toEqual(["Wambui Njoroge"]);
    expect(await names({ search: "%_" })).toEqual([]);
    // Values, not keys: every contact has a "town", none is found by the word.
    expect(await names({ search: "town" })).toEqual([]);
    expect(await names({ search: "NAIVASHA" })).toEqual(["Customer 7"]);
    // An edit is searchable at once (the search text is the row's own generated column).
    const wambui = (await listContacts(t.organizationId, { search: "wambui" }, { limit: 1 })).contacts[0]!;
    await updateContact(t, wambui.id, { name: "Wambui Kiprotich", attributes: { town: "Eldoret" } });
    expect(await names({ search: "eldoret" })).toEqual(["Wambui Kiprotich"]);
    expect(await names({ search: "njoroge" })).toEqual([]);

    const seen = new Set<string>();
    let cursor: { at: string; id: string } | undefined;
    let pages = 0;
    do {
      const page = await listContacts(t.organizationId, {}, { limit: 10, cursor });
      for (const c of page.contacts) seen.add(c.id);
      cursor = page.next ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.size).toBe(26);
  });

  it("answers another tenant's contact as not found, everywhere", async () => {
    const a = await tenant("Amani Traders");
    const b = await tenant("Baraka Sacco");
    const { contact } = await saveContact(a, { name: "Achieng", phone: "0733 111 222" });
    for (const work of [
      () => getContact(b.organizationId, contact.id),
      () => updateContact(b, contact.id, { name: "Taken" }),
      () => setConsent(b, contact.id, { status: "opted_out", source: "manual" }),
      () => deleteContact(b, contact.id),
      () => getContact(a.organizationId, "not-a-uuid"),
    ])
      expect(await refusal(work())).toMatchObject({ status: 404, code: "contact_not_found" });
    expect((await getContact(a.organizationId, contact.id)).name).toBe("Achieng");
    expect((await listContacts(b.organizationId, {}, { limit: 10 })).contacts).toEqual([]);
  });
});
