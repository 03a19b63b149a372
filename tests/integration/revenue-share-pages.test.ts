import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { countAdminActions } from "~/.server/domains/admin/audit";
import { loader as indexLoader, action as indexAction } from "~/routes/app/revenue-share/index";
import { loader as partnersLoader, action as partnersAction } from "~/routes/app/revenue-share/partners";
import { loader as transactionsLoader } from "~/routes/app/revenue-share/transactions";
import { loader as settlementsLoader, action as settlementsAction } from "~/routes/app/revenue-share/settlements";
import { loader as csvLoader } from "~/routes/app/revenue-share/transactions-csv";
import { signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { admin, enrolled, errorAt, PARTNER, post, signedIn } from "../support/revenue-share";

// Issue 46's pages (decision 088): a platform administrator enrols, edits, approves, suspends and
// assigns through the /revenue-share forms, each in the admin audit log, bad input refused at its
// field with nothing changed; a share change applies from now, never to payments already counted;
// a partner's owner reads its own programme only; anyone else sees the application, and nobody but
// an administrator gets past an administrator's form.

const partnerOf = async (organizationId: string) =>
  (
    await rawQuery<{ id: string; status: string; share_bps: number; code: string; mpesa_phone: string | null; kra_pin: string }>(
      `select id, status, share_bps, code, mpesa_phone, kra_pin from partners where organization_id = $1`,
      [organizationId],
    )
  )[0];

/** A paid top-up of `grossKes` (VAT inside) paid at `paidAt`. */
async function paidTopUp(organizationId: string, grossKes: number, paidAt = new Date()) {
  return db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "INV",
      kind: "topup",
      status: "paid",
      description: "Wallet top-up",
      lines: [
        lineFromGross({ description: "Wallet top-up", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: grossKes * 100 }),
      ],
      pricesIncludeVat: true,
      issuedAt: paidAt,
      paidAt,
    }),
  );
}

describe("enrolling a partner", () => {
  it("refuses bad input at its field and writes nothing; enrols with a referral code, its first share and an audit record", async () => {
    const a = await admin();
    const owner = await signedIn({ businessName: "Nairobi CRM Works" });
    const path = "/revenue-share/partners?dialog=enrol";
    const base = { intent: "enrol", organization: owner.email, ...PARTNER, name: "Nairobi CRM Works", category: "CRM" };

    const badPin = await post(partnersAction, path, { ...base, kraPin: "123" }, a.cookie);
    expect(badPin.status).toBe(422);
    expect(errorAt(badPin, "kraPin")).toBe("A KRA PIN is a letter, nine digits and a letter, such as A123456789Z.");
    const badPhone = await post(partnersAction, path, { ...base, mpesaPhone: "+255 712 345 678" }, a.cookie);
    expect(errorAt(badPhone, "mpesaPhone")).toBe("Enter a Kenyan mobile number for M-Pesa, such as +254712345678.");
    const odd = await post(partnersAction, path, { ...base, share: "other", shareOther: "33" }, a.cookie);
    expect(errorAt(odd, "reason")).toBe("Give a reason for this share.");
    const tooMuch = await post(partnersAction, path, { ...base, share: "other", shareOther: "51", reason: "Strategic" }, a.cookie);
    expect(errorAt(tooMuch, "shareOther")).toBe("Enter a share from 0 to 50%, at most two decimals.");
    const bank = await post(partnersAction, path, { ...base, payoutMethod: "bank", bank: "KCB", bankBranch: "Moi Avenue" }, a.cookie);
    expect(errorAt(bank, "accountName")).toBe("Enter the account's name.");
    const nobody = await post(partnersAction, path, { ...base, organization: "nobody@example.co.ke" }, a.cookie);
    expect(errorAt(nobody, "organization")).toBe("No organisation has that business ID or member e-mail.");
    expect(await partnerOf(owner.organization.id)).toBeUndefined();
    expect(await countAdminActions("partner.enrol")).toBe(0);

    const done = await post(partnersAction, path, { ...base, share: "other", shareOther: "17.5", reason: "Launch partner" }, a.cookie);
    expect(done.status).toBe(302);
    expect(done.location).toBe("/revenue-share/partners");
    const partner = (await partnerOf(owner.organization.id))!;
    expect(partner).toMatchObject({ status: "active", share_bps: 1750, mpesa_phone: "254712345678", kra_pin: "A123456789Z" });
    expect(partner.code).toMatch(/^NAIROBIC\d{4}$/);
    expect(await rawQuery(`select share_bps, reason from partner_share_changes where partner_id = $1`, [partner.id])).toEqual([
      { share_bps: 1750, reason: "Launch partner" },
    ]);
    const [audit] = await rawQuery<{ admin_id: string; target_type: string; reason: string; organization_id: string }>(
      `select admin_id, target_type, reason, organization_id from admin_audit_log where action = 'partner.enrol' and target_id = $1`,
      [partner.id],
    );
    expect(audit).toEqual({
      admin_id: a.user.id,
      target_type: "partner",
      reason: "Launch partner",
      organization_id: owner.organization.id,
    });

    // The same organisation again, or a taken code: 409 at the field.
    const again = await post(partnersAction, path, base, a.cookie);
    expect(again.status).toBe(409);
    expect(errorAt(again, "organization")).toBe("That organisation is already in the programme.");
    const other = await signedIn({ businessName: "Mombasa Shop" });
    const taken = await post(partnersAction, path, { ...base, organization: other.email, code: partner.code }, a.cookie);
    expect(errorAt(taken, "code")).toBe("That referral code is taken; choose another.");
  });
});

describe("a partner's share and clients", () => {
  it("changes the share from now with its reason: payments already counted keep theirs", async () => {
    const a = await admin();
    const { partner } = await enrolled(a);
    const client = await signedIn({ businessName: "Duka la Mama Ltd" });
    const detail = `/revenue-share/partners?dialog=partner&partner=${partner.id}`;

    const noReason = await post(
      partnersAction,
      detail,
      { intent: "assign", partner: partner.id, organization: client.email, reason: "" },
      a.cookie,
    );
    expect(errorAt(noReason, "reason")).toBe("Give a reason.");
    const assigned = await post(
      partnersAction,
      detail,
      { intent: "assign", partner: partner.id, organization: client.email, reason: "Signed through the agency's workshop" },
      a.cookie,
    );
    expect(assigned.location).toBe(`/revenue-share/partners?partner=${partner.id}&dialog=partner`);
    expect(await countAdminActions("partner.assign_client", partner.id)).toBe(1);
    // An organisation belongs to one partner at a time (a move to another: revenue-share-programme.test.ts).
    const twice = await post(
      partnersAction,
      detail,
      { intent: "assign", partner: partner.id, organization: client.email, reason: "Again" },
      a.cookie,
    );
    expect(twice.status).toBe(409);
    expect(errorAt(twice, "organization")).toBe("That organisation is already this partner's client.");

    await paidTopUp(client.organization.id, 1160); // KES 1,000 net of VAT

    const edit = { intent: "edit", partner: partner.id, ...PARTNER, share: "20" };
    const unexplained = await post(partnersAction, `${detail.replace("partner&", "edit&")}`, edit, a.cookie);
    expect(unexplained.status).toBe(422);
    expect(errorAt(unexplained, "reason")).toBe("Give a reason for this share.");
    expect(await rawQuery(`select share_bps from partners where id = $1`, [partner.id])).toEqual([{ share_bps: 1500 }]);

    const changed = await post(partnersAction, detail, { ...edit, reason: "Reached 20 clients" }, a.cookie);
    expect(changed.status).toBe(302);
    expect(await countAdminActions("partner.share_change", partner.id)).toBe(1);
    await paidTopUp(client.organization.id, 2320, new Date(Date.now() + 1000)); // KES 2,000 net
    expect(
      await rawQuery(
        `select amount_cents::int, share_bps, partner_cents::int from partner_transactions where partner_id = $1 order by occurred_at`,
        [partner.id],
      ),
    ).toEqual([
      { amount_cents: 100_000, share_bps: 1500, partner_cents: 15_000 },
      { amount_cents: 200_000, share_bps: 2000, partner_cents: 40_000 },
    ]);
    const page = await run(partnersLoader, getRequest(detail, { cookie: a.cookie }));
    expect(page.data.partner).toMatchObject({
      shareBps: 2000,
      transactions: 2,
      revenueCents: 300_000,
      partnerCents: 55_000,
      platformCents: 245_000,
    });
    expect(page.data.partner.shares.map((s: { shareBps: number; reason: string }) => [s.shareBps, s.reason])).toEqual([
      [2000, "Reached 20 clients"],
      [1500, "enrolment"],
    ]);
    expect(page.data.partner.clients).toMatchObject([{ name: "Duka la Mama Ltd", paidThisMonthCents: 300_000 }]);

    // Suspended: new payments earn nothing; the history stays. Unassigning keeps the history too.
    const suspended = await post(
      partnersAction,
      detail,
      { intent: "suspend", partner: partner.id, reason: "KRA PIN under review" },
      a.cookie,
    );
    expect(suspended.status).toBe(302);
    await paidTopUp(client.organization.id, 1160, new Date(Date.now() + 2000));
    expect((await rawQuery(`select count(*)::int as n from partner_transactions where partner_id = $1`, [partner.id]))[0]).toEqual({
      n: 2,
    });
    expect((await post(partnersAction, detail, { intent: "suspend", partner: partner.id, reason: "Again" }, a.cookie)).status).toBe(409);
    expect((await post(partnersAction, detail, { intent: "reactivate", partner: partner.id, reason: "" }, a.cookie)).status).toBe(302);
    const gone = await post(
      partnersAction,
      detail,
      { intent: "unassign", partner: partner.id, client: client.organization.id, reason: "Client moved to another agency" },
      a.cookie,
    );
    expect(gone.status).toBe(302);
    expect(
      await rawQuery(`select ended_at is not null as ended, reason from partner_attributions where organization_id = $1`, [
        client.organization.id,
      ]),
    ).toEqual([{ ended: true, reason: "Signed through the agency's workshop" }]);

    // The Transactions tab: filtered by partner and kind, paged by keyset; the same as CSV.
    const first = await run(transactionsLoader, getRequest(`/revenue-share/transactions?partner=${partner.id}`, { cookie: a.cookie }));
    expect(first.data.page.rows.map((r: { partnerCents: number }) => r.partnerCents)).toEqual([40_000, 15_000]);
    expect(first.data.page.older).toBeNull();
    const none = await run(
      transactionsLoader,
      getRequest(`/revenue-share/transactions?partner=${partner.id}&kind=credit_note`, { cookie: a.cookie }),
    );
    expect(none.data.page.rows).toEqual([]);
    const csv = await run<string>(csvLoader, getRequest(`/revenue-share/transactions.csv?partner=${partner.id}`, { cookie: a.cookie }));
    expect(csv.status).toBe(200);
    expect(csv.data).toContain(`"Savannah Digital Agency","Duka la Mama Ltd","topup","INV-`);
    expect(csv.data).toContain(`","2000.00","20","400.00","1600.00","no"`);
  });
});

describe("who sees what", () => {
  it("shows a partner's owner its own programme only, another tenant the application, and refuses them the administrator's forms", async () => {
    const a = await admin();
    const { owner, partner } = await enrolled(a);
    const client = await signedIn({ businessName: "Kisumu Fresh Produce" });
    await post(
      partnersAction,
      "/revenue-share/partners",
      { intent: "assign", partner: partner.id, organization: client.email, reason: "Referred by phone" },
      a.cookie,
    );
    await paidTopUp(client.organization.id, 1160);

    const own = await run(indexLoader, getRequest("/revenue-share", { cookie: owner.cookie }));
    expect(own.data.view).toBe("partner");
    expect(own.data.own).toMatchObject({ shareBps: 1500, totals: { partnerCents: 15_000 }, clients: [{ name: "Kisumu Fresh Produce" }] });
    expect(own.data.own.transactions).toHaveLength(1);
    expect(own.data.link).toMatch(new RegExp(`/signup\\?ref=${partner.code}$`));
    expect(own.data.qr).toMatch(/^<svg /);

    // Another tenant: no figures at all, the programme and its form.
    const stranger = await signedIn({ businessName: "Eldoret Hardware" });
    const theirs = await run(indexLoader, getRequest("/revenue-share", { cookie: stranger.cookie }));
    expect(theirs.data).toEqual({ view: "apply", canApply: true, organisationName: "Eldoret Hardware" });
    // The administrator's tabs declare platform:console (issue 72): anyone else is refused as the permission table refuses.
    for (const tab of [partnersLoader, transactionsLoader, settlementsLoader])
      expect((await run(tab, getRequest("/revenue-share/partners", { cookie: owner.cookie }))).location).toBe("/unauthorized");
    // The CSV asked for by a script: 403 (a browser's navigation is sent to /unauthorized, as the page).
    expect((await run(csvLoader, getRequest("/revenue-share/transactions.csv", { cookie: stranger.cookie }))).status).toBe(403);

    // An administrator's form from a partner's owner or a stranger: 403, nothing changed.
    for (const [handler, path] of [
      [indexAction, "/revenue-share"],
      [partnersAction, "/revenue-share/partners"],
    ] as const) {
      for (const who of [owner, stranger]) {
        const refused = await post(handler, path, { intent: "suspend", partner: partner.id, reason: "Mine now" }, who.cookie);
        expect(refused.location).toBe("/unauthorized");
        const edit = await post(handler, path, { intent: "edit", partner: partner.id, ...PARTNER, share: "50", reason: "x" }, who.cookie);
        expect(edit.location).toBe("/unauthorized");
      }
    }
    expect((await partnerOf(owner.organization.id))!).toMatchObject({ status: "active", share_bps: 1500 });
    expect(await countAdminActions("partner.suspend")).toBe(0);

    // An unknown or malformed partner: 404 to the administrator too.
    for (const id of ["6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", "not-an-id"])
      expect(
        (await run(partnersLoader, getRequest(`/revenue-share/partners?dialog=partner&partner=${id}`, { cookie: a.cookie }))).status,
      ).toBe(404);
  });

  it("lets an owner apply, shows the application as pending, and an administrator approves one and rejects another", async () => {
    const a = await admin();
    const applicant = await signedIn({ businessName: "Lamu Web Studio" });
    const apply = { intent: "apply", ...PARTNER, name: "Lamu Web Studio", category: "E-commerce" };
    const bad = await post(indexAction, "/revenue-share", { ...apply, kraPin: "A12345Z" }, applicant.cookie);
    expect(bad.status).toBe(422);
    expect(errorAt(bad, "kraPin")).toBe("A KRA PIN is a letter, nine digits and a letter, such as A123456789Z.");
    const sent = await post(indexAction, "/revenue-share", apply, applicant.cookie);
    expect(sent.location).toBe("/revenue-share");
    const pending = (await partnerOf(applicant.organization.id))!;
    expect(pending).toMatchObject({ status: "pending", share_bps: 1500 });
    expect((await run(indexLoader, getRequest("/revenue-share", { cookie: applicant.cookie }))).data.own.status).toBe("pending");
    expect((await post(indexAction, "/revenue-share", apply, applicant.cookie)).status).toBe(409);

    const listed = await run(partnersLoader, getRequest("/revenue-share/partners?status=pending", { cookie: a.cookie }));
    expect(listed.data.page.rows.map((r: { name: string }) => r.name)).toContain("Lamu Web Studio");
    const approved = await post(partnersAction, "/revenue-share/partners", { intent: "approve", partner: pending.id }, a.cookie);
    expect(approved.status).toBe(302);
    expect((await partnerOf(applicant.organization.id))!.status).toBe("active");
    expect(await countAdminActions("partner.approve", pending.id)).toBe(1);

    const other = await signedIn({ businessName: "Thika Traders" });
    await post(indexAction, "/revenue-share", { ...apply, name: "Thika Traders" }, other.cookie);
    const second = (await partnerOf(other.organization.id))!;
    expect(
      errorAt(
        await post(partnersAction, "/revenue-share/partners", { intent: "reject", partner: second.id, reason: "" }, a.cookie),
        "reason",
      ),
    ).toBe("Give a reason.");
    const rejected = await post(
      partnersAction,
      "/revenue-share/partners",
      { intent: "reject", partner: second.id, reason: "Not an agency" },
      a.cookie,
    );
    expect(rejected.status).toBe(302);
    expect(await partnerOf(other.organization.id)).toBeUndefined();
    expect(await countAdminActions("partner.reject", second.id)).toBe(1);
  });
});

describe("processing a settlement", () => {
  it("marks a bank settlement paid with its reference after the step-up, once", async () => {
    const a = await admin();
    const { partner } = await enrolled(a, "Coast Bank Integrators", {
      payoutMethod: "bank",
      bank: "KCB",
      bankBranch: "Mombasa",
      accountName: "Coast Bank Integrators Ltd",
      accountNumber: "1234-567-890",
      category: "Bank",
    });
    const [settlement] = await rawQuery<{ id: string }>(
      `insert into partner_settlements (partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps, withholding_cents, net_cents, payable_cents, payout_method)
       values ($1, '2026-10-01', 4, 1000000, 150000, 500, 7500, 142500, 142500, 'bank') returning id`,
      [partner.id],
    );
    const path = `/revenue-share/settlements?dialog=settle&settlement=${settlement!.id}`;
    const page = await run(settlementsLoader, getRequest(path, { cookie: a.cookie }));
    expect(page.data.settlement).toMatchObject({ partnerName: "Coast Bank Integrators", netCents: 142_500, status: "pending" });

    await rawQuery(`update sessions set confirmed_at = now() - interval '11 minutes' where user_id = $1`, [a.user.id]);
    const unconfirmed = await post(
      settlementsAction,
      path,
      { intent: "settle", settlement: settlement!.id, reference: "FT26328KX9" },
      a.cookie,
    );
    expect(unconfirmed.status).toBe(400);
    expect(errorAt(unconfirmed, "confirmation")).toBeTruthy();
    const noReference = await post(
      settlementsAction,
      path,
      { intent: "settle", settlement: settlement!.id, reference: "", confirmation: a.password },
      a.cookie,
    );
    expect(errorAt(noReference, "reference")).toBeTruthy();
    const paid = await post(settlementsAction, path, { intent: "settle", settlement: settlement!.id, reference: "FT26328KX9" }, a.cookie);
    expect(paid.status).toBe(302);
    expect(paid.location).toBe("/revenue-share/settlements");
    expect(await rawQuery(`select status, payout_reference from partner_settlements where id = $1`, [settlement!.id])).toEqual([
      { status: "paid", payout_reference: "FT26328KX9" },
    ]);
    expect(await countAdminActions("settlement.mark_paid", settlement!.id)).toBe(1);
    const twice = await post(settlementsAction, path, { intent: "settle", settlement: settlement!.id, reference: "FT26328KX0" }, a.cookie);
    expect(twice.status).toBe(409);
    expect(await countAdminActions("settlement.mark_paid", settlement!.id)).toBe(1);
    expect(
      (await run(settlementsLoader, getRequest(`/revenue-share/settlements?dialog=settle&settlement=nope`, { cookie: a.cookie }))).status,
    ).toBe(404);
  });
});

describe("the demo's partners", () => {
  it("fill every tab: figures over several months, partners of each status, transactions and settlements", async () => {
    const { seedAdminBilling } = await import("~/.server/demo/seed-admin-billing");
    const { seedRevenueShare } = await import("~/.server/demo/seed-revenue-share");
    await seedAdminBilling();
    await seedRevenueShare();
    const a = await admin();
    const overview = await run(indexLoader, getRequest("/revenue-share", { cookie: a.cookie }));
    expect(overview.data.overview.lastMonth.partnerCents).toBeGreaterThan(0);
    expect(overview.data.overview.statuses).toMatchObject({ active: expect.any(Number), pending: 1, suspended: 1 });
    expect(overview.data.overview.top.length).toBeGreaterThan(1);
    const partners = await run(partnersLoader, getRequest("/revenue-share/partners?q=savannah", { cookie: a.cookie }));
    expect(partners.data.page.rows.map((r: { name: string }) => r.name)).toContain("Savannah Digital Agency");
    const months = await rawQuery<{ n: number }>(
      `select count(distinct date_trunc('month', occurred_at at time zone 'Africa/Nairobi'))::int as n from partner_transactions`,
    );
    expect(months[0]!.n).toBeGreaterThanOrEqual(2);
    const settlements = await run(settlementsLoader, getRequest("/revenue-share/settlements", { cookie: a.cookie }));
    expect(new Set(settlements.data.page.rows.map((r: { status: string }) => r.status))).toEqual(new Set(["paid", "pending", "failed"]));
    const partner = await signedInCookie("partner@savannahdigital.co.ke", "JumbePartner#2026");
    const own = await run(indexLoader, getRequest("/revenue-share", { cookie: partner }));
    expect(own.data.own.clients.length).toBe(2);
    expect(own.data.own.settlements.length).toBeGreaterThan(0);
  });
});

describe("the transactions CSV", () => {
  it("names each row's tax invoice or credit note number, under a header in the other columns' style", async () => {
    const a = await admin();
    const { partner } = await enrolled(a, "Rift Valley Integrators");
    const client = await signedIn({ businessName: "Nakuru Agrovet" });
    const assigned = await post(
      partnersAction,
      "/revenue-share/partners",
      { intent: "assign", partner: partner.id, organization: client.email, reason: "Signed at the Nakuru show" },
      a.cookie,
    );
    expect(assigned.status).toBe(302);
    const paid = await paidTopUp(client.organization.id, 1160, new Date(Date.now() + 1000));
    const note = await db().transaction((tx) =>
      issueInvoice(tx, {
        organizationId: client.organization.id,
        series: "CRN",
        kind: "credit_note",
        status: "paid",
        description: "Credit note",
        lines: [lineFromGross({ description: "Credit", itemCode: "JMB-CREDIT", quantity: 1, unit: "credit", unitPriceCents: 58_000 })],
        pricesIncludeVat: true,
        issuedAt: new Date(Date.now() + 2000),
        paidAt: new Date(Date.now() + 2000),
      }),
    );
    await rawQuery(`update invoices set credits_invoice_id = $2 where id = $1`, [note.id, paid.id]);

    const csv = await run<string>(csvLoader, getRequest(`/revenue-share/transactions.csv?partner=${partner.id}`, { cookie: a.cookie }));
    expect(csv.status).toBe(200);
    const lines = csv.data
      .replace(/^\uFEFF/, "")
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toBe(
      `"Date","Partner","Client","Kind","Invoice / credit note number","Amount (KES)","Share","Partner revenue (KES)","Platform revenue (KES)","Settled"`,
    );
    // Newest first: the credit note, then the tax invoice it reverses.
    expect(lines.slice(1).map((line) => line.split('","').slice(1, 6))).toEqual([
      // A leading minus is quoted for spreadsheets (the CSV's formula guard).
      ["Rift Valley Integrators", "Nakuru Agrovet", "credit_note", note.number, "'-500.00"],
      ["Rift Valley Integrators", "Nakuru Agrovet", "topup", paid.number, "1000.00"],
    ]);
    expect(paid.number).toMatch(/^INV-/);
    expect(note.number).toMatch(/^CRN-/);
  });
});
