import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { loader as searchLoader } from "~/routes/admin/search";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Issue 19: the admin console header's search (/admin/search?q=): organisations, users, invoices,
// WhatsApp numbers and templates of every tenant, each linking to its console page; an exact id or
// invoice number opens its page; too short or too long is a 400 that says why; nobody else sees it.

interface Found {
  query: string;
  message: string | null;
  sections: { id: string; label: string; hits: { title: string; detail?: string; to: string }[] }[];
}

async function signedIn(options: Parameters<typeof createVerifiedUser>[0] = {}) {
  const account = await createVerifiedUser(options);
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

const search = (q: string, cookie: string) => run<Found>(searchLoader, getRequest(`/admin/search?q=${encodeURIComponent(q)}`, { cookie }));
const hits = (found: Found, id: string) => found.sections.find((s) => s.id === id)?.hits ?? [];

let invoiceSerial = 0;
async function invoice(organizationId: string, number: string) {
  invoiceSerial += 1;
  const [row] = await rawQuery<{ id: string }>(
    `insert into invoices (organization_id, number, series, kind, status, description, net_cents, vat_cents, total_cents,
                           prices_include_vat, seller, buyer, lines, period_start)
     values ($1, $2, 'INV', 'subscription', 'pending', 'Growth plan, October 2026', 431034, 68966, 500000, true, '{}', '{}', '[]',
             date '2020-01-01' + $3::int)
     returning id`,
    [organizationId, number, invoiceSerial],
  );
  return row!.id;
}

async function template(organizationId: string, name: string) {
  const [row] = await rawQuery<{ id: string }>(
    `insert into message_templates (organization_id, name, language, category, status, components)
     values ($1, $2, 'en', 'UTILITY', 'held', '[{"type":"BODY","text":"Habari {{1}}"}]') returning id`,
    [organizationId, name],
  );
  return row!.id;
}

describe("the admin console's search", () => {
  it("finds organisations, users, invoices, WhatsApp numbers and templates of any tenant, each linking to its console page", async () => {
    const admin = await signedIn({ usertype: "admin", businessName: "Jumbe Platform" });
    const tenant = await createVerifiedUser({ businessName: "Zawadi Kilimo Cooperative", email: "grace.otieno@zawadi-kilimo.co.ke" });
    await rawQuery(`update users set first_name = 'Grace', last_name = 'Otieno', phone_number = '+254722605511' where id = $1`, [
      tenant.user.id,
    ]);
    const orgId = tenant.organization.id;
    const invoiceId = await invoice(orgId, "INV-2026-418207");
    const { account } = await connectedNumber(orgId, {
      wabaId: "7731904418820554",
      phoneNumberId: "6629031177445502",
      display: "+254 745 118 902",
    });
    const templateId = await template(orgId, "zawadi_harvest_payout_notice");

    // Organisations by any part of the name, and by business id.
    const byName = await search("kilimo coop", admin.cookie);
    expect(byName.status).toBe(200);
    expect(hits(byName.data, "organizations")).toContainEqual(
      expect.objectContaining({ title: "Zawadi Kilimo Cooperative", to: `/admin/users/${orgId}` }),
    );
    const byBusinessId = await search(tenant.organization.businessId, admin.cookie);
    expect(hits(byBusinessId.data, "organizations").map((h) => h.to)).toEqual([`/admin/users/${orgId}`]);

    // Users by name, e-mail and phone (as Kenyans type it: 07...).
    for (const q of ["Grace Otieno", "grace.otieno@zawadi", "0722 605 511", "+254722605511"]) {
      const found = await search(q, admin.cookie);
      expect(hits(found.data, "users"), q).toContainEqual(
        expect.objectContaining({ title: "Grace Otieno", to: `/admin/users/${orgId}`, detail: expect.stringContaining("Zawadi Kilimo") }),
      );
    }

    // Invoices by part of the number.
    const byNumber = await search("418207", admin.cookie);
    expect(hits(byNumber.data, "invoices")).toEqual([
      expect.objectContaining({ title: "INV-2026-418207", to: `/admin/billing/invoices/${invoiceId}` }),
    ]);

    // WhatsApp: the number as shown or typed, Meta's phone number id, the WABA id.
    for (const q of ["+254 745 118", "0745118902", "6629031177", "7731904418820554"]) {
      const found = await search(q, admin.cookie);
      expect(
        hits(found.data, "whatsapp").map((h) => h.to),
        q,
      ).toContain(`/admin/whatsapp/${account.id}`);
    }

    // Templates by part of the name, held ones included.
    const byTemplate = await search("harvest_payout", admin.cookie);
    expect(hits(byTemplate.data, "templates")).toEqual([
      expect.objectContaining({
        title: "zawadi_harvest_payout_notice",
        to: `/admin/templates/${templateId}`,
        detail: expect.stringContaining("Held"),
      }),
    ]);

    // `%` and `_` are themselves, not wildcards; nothing found is no sections.
    const nothing = await search("%%qq__zz%", admin.cookie);
    expect(nothing.status).toBe(200);
    expect(nothing.data.sections).toEqual([]);
  });

  it("lists at most 8 of each kind", async () => {
    const admin = await signedIn({ usertype: "admin" });
    for (let i = 0; i < 10; i += 1) await createVerifiedUser({ businessName: `Mwangaza Bodaboda Group ${i}` });
    const found = await search("mwangaza bodaboda", admin.cookie);
    expect(hits(found.data, "organizations")).toHaveLength(8);
  });

  it("answers a query that is too short or too long with 400 and says why; an empty one with the form alone", async () => {
    const admin = await signedIn({ usertype: "admin" });
    const short = await search("a", admin.cookie);
    expect(short.status).toBe(400);
    expect(short.data).toMatchObject({ message: "Type at least 2 characters to search.", sections: [] });
    const long = await search("k".repeat(101), admin.cookie);
    expect(long.status).toBe(400);
    expect(long.data).toMatchObject({ message: "Search for at most 100 characters.", sections: [] });
    const spaces = await search("   ", admin.cookie);
    expect(spaces.status).toBe(200);
    expect(spaces.data).toMatchObject({ query: "", message: null, sections: [] });
    const exactlyTwo = await search("ke", admin.cookie);
    expect(exactlyTwo.status).toBe(200);
  });

  it("opens the page of an exact id or invoice number", async () => {
    const admin = await signedIn({ usertype: "admin" });
    const tenant = await createVerifiedUser({ businessName: "Pwani Fish Traders" });
    const orgId = tenant.organization.id;
    const invoiceId = await invoice(orgId, "INV-2026-990417");
    const { account, phone } = await connectedNumber(orgId, { wabaId: "8810", phoneNumberId: "8811", display: "+254 700 881 100" });
    const templateId = await template(orgId, "pwani_catch_ready");

    const cases: [string, string][] = [
      [orgId, `/admin/users/${orgId}`],
      [tenant.user.id.toUpperCase(), `/admin/users/${orgId}`],
      [invoiceId, `/admin/billing/invoices/${invoiceId}`],
      ["inv-2026-990417", `/admin/billing/invoices/${invoiceId}`],
      [account.id, `/admin/whatsapp/${account.id}`],
      [phone.id, `/admin/whatsapp/${account.id}`],
      [templateId, `/admin/templates/${templateId}`],
    ];
    for (const [q, to] of cases) {
      const found = await search(` ${q} `, admin.cookie);
      expect(found.status, q).toBe(302);
      expect(found.location, q).toBe(to);
    }
    // An id nobody has, or an invoice number that does not exist: an ordinary search that finds nothing.
    const unknown = await search("7d1e0b3c-4f4e-4c1a-9a43-000000000000", admin.cookie);
    expect(unknown.status).toBe(200);
    expect(unknown.data.sections).toEqual([]);
    const noInvoice = await search("INV-2019-000001", admin.cookie);
    expect(noInvoice.status).toBe(200);
  });

  it("is not found for anybody but a platform administrator", async () => {
    const owner = await signedIn({ businessName: "Duka la Mama Ltd" });
    for (const q of ["duka", "a", owner.organization.id]) {
      expect((await search(q, owner.cookie)).status).toBe(404);
      expect((await run(searchLoader, getRequest(`/admin/search?q=${q}`))).status).toBe(404);
    }
  });
});
