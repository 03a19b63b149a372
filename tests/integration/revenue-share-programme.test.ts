import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { countAdminActions } from "~/.server/domains/admin/audit";
import { applyAsPartner, approveSettlementPayout, processSettlement } from "~/.server/domains/revenue-share/programme";
import { Refusal } from "~/.server/infrastructure/refusal";
import { action as indexAction } from "~/routes/app/revenue-share/index";
import { action as partnersAction } from "~/routes/app/revenue-share/partners";
import { createVerifiedUser, META } from "../support/accounts";
import { admin, enrolled, errorAt, PARTNER, post, signedIn } from "../support/revenue-share";

// Issue 46's last changes to the programme: an administrator moves a client from one partner to
// another in one step (the old attribution ended, the new one started, audited as a move; refused
// with nothing changed to the same partner, to a partner not active, or to the partner itself); a
// settlement's admin audit record commits with its payout or bank mark, or neither does; two
// applications from one organisation at the same moment make one partner.

/** The success toast a redirect carries (its signed cookie's message). */
const toastOf = (outcome: { headers: Headers }) => {
  const value = /jumbe_toast=([^.;]+)/.exec(outcome.headers.get("set-cookie") ?? "")?.[1] ?? "";
  return (JSON.parse(Buffer.from(decodeURIComponent(value), "base64").toString()) as { message: string }).message;
};

const attributions = (organizationId: string) =>
  rawQuery<{ partner_id: string; source: string; reason: string | null; ended: boolean }>(
    `select partner_id, source, reason, ended_at is not null as ended from partner_attributions where organization_id = $1 order by started_at, id`,
    [organizationId],
  );

describe("moving a client to another partner", () => {
  it("ends the old attribution and starts the new one in one step, audited, without JavaScript", async () => {
    const a = await admin();
    const { partner: savannah } = await enrolled(a, "Savannah Digital Agency");
    const { partner: rift, owner: riftOwner } = await enrolled(a, "Rift Valley Resellers");
    const client = await signedIn({ businessName: "Duka la Mama Ltd" });
    const detail = (id: string) => `/revenue-share/partners?dialog=partner&partner=${id}`;
    const assign = (partner: string, organization: string, reason: string) =>
      post(partnersAction, detail(partner), { intent: "assign", partner, organization, reason }, a.cookie);

    expect((await assign(savannah.id, client.email, "Signed at the agency's workshop")).status).toBe(302);
    const moved = await assign(rift.id, client.organization.businessId, "The client chose Rift Valley's support");
    expect(moved.status).toBe(302);
    expect(moved.location).toBe(`/revenue-share/partners?partner=${rift.id}&dialog=partner`);
    expect(toastOf(moved)).toBe("Duka la Mama Ltd moved from Savannah Digital Agency to Rift Valley Resellers from now on.");
    expect(await attributions(client.organization.id)).toEqual([
      { partner_id: savannah.id, source: "admin", reason: "Signed at the agency's workshop", ended: true },
      { partner_id: rift.id, source: "admin", reason: "The client chose Rift Valley's support", ended: false },
    ]);
    const [audit] = await rawQuery<{ organization_id: string; reason: string; before: unknown; after: unknown }>(
      `select organization_id, reason, before, after from admin_audit_log where action = 'partner.move_client' and target_id = $1`,
      [rift.id],
    );
    expect(audit).toEqual({
      organization_id: client.organization.id,
      reason: "The client chose Rift Valley's support",
      before: { partner: "Savannah Digital Agency", partnerId: savannah.id, client: "Duka la Mama Ltd" },
      after: { partner: "Rift Valley Resellers", client: "Duka la Mama Ltd" },
    });
    expect(await countAdminActions("partner.assign_client", savannah.id)).toBe(1);

    // Refused, nothing changed: the same partner again, the partner's own organisation, no reason,
    // and a partner that is not active (pending or suspended).
    const before = await attributions(client.organization.id);
    const same = await assign(rift.id, client.email, "Again");
    expect(same.status).toBe(409);
    expect(errorAt(same, "organization")).toBe("That organisation is already this partner's client.");
    const own = await assign(rift.id, riftOwner.email, "Itself");
    expect(own.status).toBe(422);
    expect(errorAt(own, "organization")).toBe("A partner cannot be its own client.");
    const noReason = await assign(savannah.id, client.email, " ");
    expect(errorAt(noReason, "reason")).toBe("Give a reason.");
    const suspended = await post(
      partnersAction,
      detail(savannah.id),
      { intent: "suspend", partner: savannah.id, reason: "Audit" },
      a.cookie,
    );
    expect(suspended.status).toBe(302);
    const toSuspended = await assign(savannah.id, client.email, "Back to the agency");
    expect(toSuspended.status).toBe(409);
    expect(errorAt(toSuspended, "organization")).toBe("Only an active partner can take on clients.");
    const applicant = await signedIn({ businessName: "Lamu Web Studio" });
    expect(
      (await post(indexAction, "/revenue-share", { intent: "apply", ...PARTNER, name: "Lamu Web Studio" }, applicant.cookie)).status,
    ).toBe(302);
    const [pending] = await rawQuery<{ id: string }>(`select id from partners where organization_id = $1`, [applicant.organization.id]);
    expect((await assign(pending!.id, client.email, "To the applicant")).status).toBe(409);
    expect(await attributions(client.organization.id)).toEqual(before);
    expect(await countAdminActions("partner.move_client", savannah.id)).toBe(0);
    expect(await countAdminActions("partner.move_client", pending!.id)).toBe(0);
    expect(await countAdminActions("partner.move_client", rift.id)).toBe(1);
  });
});

describe("a settlement's audit record commits with its payout", () => {
  async function settlement(method: "mpesa" | "bank", netCents = 142_500) {
    const owner = await createVerifiedUser({ businessName: `Partner ${method}` });
    const [partner] = await rawQuery<{ id: string }>(
      `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, bank_details, kra_pin, approved_at)
       values ($1, $2, 'Coast Integrators', 'Agency', 'active', 1500, $3, $4, $5, 'P051234567Q', now()) returning id`,
      [
        owner.organization.id,
        `AUD${Math.floor(Math.random() * 1e9)}`,
        method,
        method === "mpesa" ? "254712345678" : null,
        method === "bank" ? JSON.stringify({ bank: "KCB", branch: "Mombasa", accountName: "Coast", accountNumber: "1234567890" }) : null,
      ],
    );
    const [row] = await rawQuery<{ id: string }>(
      `insert into partner_settlements (partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps, withholding_cents, net_cents, carried_out_cents, payable_cents, payout_method)
       values ($1, '2026-10-01', 4, 1000000, $2::bigint + 7500, 500, 7500, $2, case when $3 = 'mpesa' then $2::bigint % 100 else 0 end,
               $2::bigint - case when $3 = 'mpesa' then $2::bigint % 100 else 0 end, $3) returning id`,
      [partner!.id, netCents, method],
    );
    return row!.id;
  }
  const state = async (id: string) => ({
    settlement: (
      await rawQuery<{ status: string; payout_reference: string | null }>(
        `select status, payout_reference from partner_settlements where id = $1`,
        [id],
      )
    )[0],
    payouts: (await rawQuery<{ status: string }>(`select status from partner_payouts where settlement_id = $1 order by attempt`, [id])).map(
      (p) => p.status,
    ),
    audit: (await rawQuery<{ action: string }>(`select action from admin_audit_log where target_id = $1 order by id`, [id])).map(
      (r) => r.action,
    ),
  });

  it("leaves the settlement unchanged when its audit record cannot be written, and writes both when it can", async () => {
    const a = await createVerifiedUser({ usertype: "admin" });
    const good = { user: a.user };
    // An audit record the database refuses (admin_email is required): the change must not commit without it.
    const broken = { user: { ...a.user, email: null as unknown as string } };

    const bank = await settlement("bank");
    await expect(processSettlement(broken, META, bank, { reference: "FT26328KX9" })).rejects.toThrow();
    expect(await state(bank)).toEqual({ settlement: { status: "pending", payout_reference: null }, payouts: [], audit: [] });
    expect(await processSettlement(good, META, bank, { reference: "FT26328KX9" })).toEqual({ method: "bank", waiting: false });
    expect(await state(bank)).toEqual({
      settlement: { status: "paid", payout_reference: "FT26328KX9" },
      payouts: [],
      audit: ["settlement.mark_paid"],
    });

    const mpesa = await settlement("mpesa");
    await expect(processSettlement(broken, META, mpesa, { reference: "" })).rejects.toThrow();
    expect(await state(mpesa)).toEqual({ settlement: { status: "pending", payout_reference: null }, payouts: [], audit: [] });
    expect(await processSettlement(good, META, mpesa, { reference: "" })).toEqual({ method: "mpesa", waiting: false });
    expect(await state(mpesa)).toEqual({
      settlement: { status: "processing", payout_reference: null },
      payouts: ["requested"],
      audit: ["settlement.payout"],
    });

    // Maker-checker: the second administrator's approval and its record, together.
    const big = await settlement("mpesa", 120_000_00);
    expect(await processSettlement(good, META, big, { reference: "" }, { approvalThresholdCents: 100_000_00 })).toEqual({
      method: "mpesa",
      waiting: true,
    });
    const checker = await createVerifiedUser({ usertype: "admin" });
    await expect(approveSettlementPayout({ user: { ...checker.user, email: null as unknown as string } }, META, big)).rejects.toThrow();
    expect(await state(big)).toMatchObject({ payouts: ["awaiting_approval"], audit: ["settlement.payout"] });
    await approveSettlementPayout({ user: checker.user }, META, big);
    expect(await state(big)).toMatchObject({ payouts: ["requested"], audit: ["settlement.payout", "settlement.payout_approve"] });
  });
});

describe("two applications at the same moment", () => {
  it("make one partner; the other is refused clearly", async () => {
    const applicant = await signedIn({ businessName: "Nyeri Web Works" });
    const apply = { intent: "apply", ...PARTNER, name: "Nyeri Web Works" };
    const outcomes = await Promise.all([
      post(indexAction, "/revenue-share", apply, applicant.cookie),
      post(indexAction, "/revenue-share", { ...apply, name: "Nyeri Web Works Ltd" }, applicant.cookie),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual([302, 409]);
    const refused = outcomes.find((o) => o.status === 409)!;
    expect(errorAt(refused, "organization") ?? JSON.stringify(refused.data)).toContain("already");
    expect(await rawQuery(`select status, share_bps from partners where organization_id = $1`, [applicant.organization.id])).toEqual([
      { status: "pending", share_bps: 1500 },
    ]);
  });

  it("make one partner even when both transactions are open at once (ten organisations, two applications each)", async () => {
    const fields = { ...PARTNER, payoutMethod: "mpesa" as const, resident: "on" };
    for (let i = 0; i < 10; i++) {
      const owner = await createVerifiedUser({ businessName: `Race ${i}` });
      const actor = { organizationId: owner.organization.id, userId: owner.user.id, role: "owner" as const };
      const outcomes = await Promise.allSettled([
        applyAsPartner(actor, { ...fields, name: `Race ${i} A` }),
        applyAsPartner(actor, { ...fields, name: `Race ${i} B` }),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
      const refusal = (outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult).reason as Refusal;
      expect(refusal).toBeInstanceOf(Refusal);
      expect({ status: refusal.status, code: refusal.code, message: refusal.message }).toEqual({
        status: 409,
        code: "already_partner",
        message: "That organisation is already in the programme.",
      });
      expect(await rawQuery(`select count(*)::int as n from partners where organization_id = $1`, [owner.organization.id])).toEqual([
        { n: 1 },
      ]);
    }
  });
});
