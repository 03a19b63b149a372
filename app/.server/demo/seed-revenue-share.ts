import { randomBytes } from "node:crypto";
import { db, rawQuery } from "../infrastructure/db/client";
import { organizations, users } from "../infrastructure/db/schema";
import { hashPassword } from "../domains/auth/password";
import { newBusinessId } from "../domains/auth/signup";
import { recordUnrecordedInvoices } from "../domains/revenue-share/ledger";
import { settleMonth } from "../domains/revenue-share/settle";
import { periodAt, previousPeriod } from "../domains/billing/periods";
import { englishOf, words } from "../infrastructure/words/said";

/**
 * The partner programme's demo (issue 46): Kenyan agencies, integrators and a bank that brought the
 * console's other tenants (seed-admin-billing.ts) to Jumbe, their transactions read from those
 * tenants' paid invoices by the ledger itself, and the past months settled by the settlement run:
 * the older month paid (M-Pesa receipts, a bank reference), the last one to pay, one M-Pesa payout
 * failed, one partner suspended and one application waiting. Savannah Digital Agency's owner signs
 * in as partner@savannahdigital.co.ke with JumbePartner#2026 to see a partner's own page.
 */
interface SeedPartner {
  name: string;
  owner: [first: string, last: string, email: string];
  code: string;
  category: string;
  shareBps: number;
  payout: { mpesa: string } | { bank: string; branch: string; accountName: string; accountNumber: string };
  kraPin: string;
  resident: boolean;
  status: "active" | "suspended" | "pending";
  clients: string[];
}

const PARTNERS: SeedPartner[] = [
  {
    name: "Savannah Digital Agency",
    owner: ["Achieng", "Odhiambo", "partner@savannahdigital.co.ke"],
    code: "SAVANNAH2026",
    category: "Agency",
    shareBps: 1500,
    payout: { mpesa: "254722510001" },
    kraPin: "P051234567Q",
    resident: true,
    status: "active",
    clients: ["Coastline Beach Hotels Ltd", "Savannah Fresh Dairies"],
  },
  {
    name: "Nairobi CRM Works",
    owner: ["Brian", "Mutua", "accounts@nairobicrm.co.ke"],
    code: "NBOCRM18",
    category: "CRM",
    shareBps: 1800,
    payout: { bank: "KCB Bank", branch: "Moi Avenue", accountName: "Nairobi CRM Works Ltd", accountNumber: "1187654321" },
    kraPin: "P052345678R",
    resident: true,
    status: "active",
    clients: ["Mwangaza Microfinance Bank", "Eldoret Agrovet Supplies"],
  },
  {
    name: "Pwani E-commerce Solutions",
    owner: ["Fatma", "Said", "hello@pwanicommerce.co.ke"],
    code: "PWANI12",
    category: "E-commerce",
    shareBps: 1200,
    payout: { mpesa: "254733510003" },
    kraPin: "A012345678Z",
    resident: false,
    status: "active",
    clients: ["Tuko Pamoja Matatu Sacco"],
  },
  {
    name: "Harambee Systems Integrators",
    owner: ["Joseph", "Kariuki", "info@harambeesystems.co.ke"],
    code: "HARAMBEE20",
    category: "Integrator",
    shareBps: 2000,
    payout: { mpesa: "254711510004" },
    kraPin: "P053456789S",
    resident: true,
    status: "suspended",
    clients: [],
  },
  {
    name: "Lamu Web Studio",
    owner: ["Amina", "Bakari", "studio@lamuweb.co.ke"],
    code: "LAMUWEB15",
    category: "Agency",
    shareBps: 1500,
    payout: { mpesa: "254700510005" },
    kraPin: "P054567890T",
    resident: true,
    status: "pending",
    clients: [],
  },
];

export async function seedRevenueShare(now = Date.now()) {
  const since = new Date(now - 150 * 86_400_000);
  const known = await hashPassword("JumbePartner#2026");
  const unknown = await hashPassword(randomBytes(18).toString("base64url"));
  const ids = new Map<string, string>();
  for (const [n, p] of PARTNERS.entries()) {
    const [org] = await db()
      .insert(organizations)
      .values({ name: p.name, businessId: newBusinessId(), status: "active", planType: "Growth", county: "Nairobi", kraPin: p.kraPin })
      .returning({ id: organizations.id });
    const [owner] = await db()
      .insert(users)
      .values({
        organizationId: org!.id,
        email: p.owner[2],
        firstName: p.owner[0],
        lastName: p.owner[1],
        phoneNumber: `+2547225100${String(n + 10)}`,
        passwordHash: n === 0 ? known : unknown,
        isVerified: true,
      })
      .returning({ id: users.id });
    const bank = "bank" in p.payout ? p.payout : null;
    const [row] = await rawQuery<{ id: string }>(
      `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, bank_details, kra_pin,
                             resident, applied_by, approved_at, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14) returning id`,
      [
        org!.id,
        p.code,
        p.name,
        p.category,
        p.status === "pending" ? "pending" : "active",
        p.shareBps,
        bank ? "bank" : "mpesa",
        bank ? null : (p.payout as { mpesa: string }).mpesa,
        bank ? JSON.stringify(bank) : null,
        p.kraPin,
        p.resident,
        p.status === "pending" ? owner!.id : null,
        p.status === "pending" ? null : since.toISOString(),
        (p.status === "pending" ? new Date(now - 2 * 86_400_000) : since).toISOString(),
      ],
    );
    ids.set(p.name, row!.id);
    await rawQuery(`insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, $2, $3, $4)`, [
      row!.id,
      p.shareBps,
      p.status === "pending" ? "application" : "Programme terms at enrolment",
      since.toISOString(),
    ]);
    for (const client of p.clients)
      await rawQuery(
        `insert into partner_attributions (partner_id, organization_id, source, reason, started_at)
         select $1, id, 'referral', null, $3 from organizations where name = $2`,
        [row!.id, client, since.toISOString()],
      );
  }
  // The clients' months of billing were written before their partners: the ledger records them as
  // it would have at each payment; the settlement run settles each past month.
  await recordUnrecordedInvoices();
  const current = periodAt(new Date(now));
  const last = previousPeriod(current);
  const older = previousPeriod(last);
  for (const period of [older, last]) await settleMonth(period.start);
  // The older month is paid: M-Pesa receipts and a bank reference.
  await rawQuery(
    `update partner_settlements set status = 'paid', paid_at = $2::date + interval '15 days 10 hours',
            payout_reference = case when payout_method = 'bank' then 'FT' || upper(substr(md5(id::text), 1, 10))
                                    else 'SK' || upper(substr(md5(id::text), 1, 8)) end
     where period = $1::date`,
    [older.start, last.start],
  );
  // Last month's M-Pesa payout to Pwani failed once (an administrator retries it from the page), the
  // reason stored as a failed result stores it (PAYOUT_FAILURES).
  await rawQuery(`update partner_settlements set status = 'failed', failure_reason = $3 where period = $1::date and partner_id = $2`, [
    last.start,
    ids.get("Pwani E-commerce Solutions"),
    englishOf(words("admin_payout_failed_result", { code: "2001", reason: "The initiator information is invalid." })),
  ]);
  // Each M-Pesa settlement paid or failed has the attempt a payout writes (payouts.ts): the payable
  // amount (whole shillings, the cents carried), M-Pesa's receipt or its refusal.
  await rawQuery(
    `insert into partner_payouts (id, settlement_id, attempt, method, amount_cents, status, originator_conversation_id, phone,
                                  result_code, result_desc, receipt, created_at, completed_at)
     select x.id, s.id, 1, 'mpesa', s.payable_cents, s.status, 'jumbe-payout-' || x.id, p.mpesa_phone,
            case s.status when 'paid' then 0 else 2001 end,
            case s.status when 'paid' then 'The service request is processed successfully.' else 'The initiator information is invalid.' end,
            case s.status when 'paid' then s.payout_reference end,
            x.done - interval '2 minutes', x.done
     from partner_settlements s join partners p on p.id = s.partner_id
     cross join lateral (select gen_random_uuid() as id, coalesce(s.paid_at, s.period + interval '1 month 14 days 10 hours') as done) x
     where s.payout_method = 'mpesa' and s.status in ('paid', 'failed')`,
  );
  await rawQuery(`update partners set status = 'suspended' where id = $1`, [ids.get("Harambee Systems Integrators")]);
}
