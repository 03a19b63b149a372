import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { randomToken } from "~/.server/infrastructure/security/crypto";
import { paymentFigures } from "~/.server/domains/analytics/payments";
import type { AnalyticsPage } from "~/.server/domains/analytics/page";
import { apiAnalytics } from "~/.server/adapters/api-v1/analytics";
import { loader as analyticsLoader } from "~/routes/app/analytics";
import { loader as paymentsCsvLoader } from "~/routes/app/analytics-payments-csv";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Issue 76: the Analytics page's Payments section counts the period's payment requests from the
// database: made, paid, conversion, KES collected (a different amount at what M-Pesa took, flagged),
// by agent, by flow and by campaign (the last campaign the customer replied to in the 72 hours
// before), and never another tenant's.

const HOUR = 3_600_000;
const ago = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString();

async function tenant(name: string, phoneNumberId: string) {
  const account = await createVerifiedUser({ businessName: name });
  const organizationId = account.organization.id;
  await connectedNumber(organizationId, { wabaId: `5${phoneNumberId}`, phoneNumberId, display: `+254 700 ${phoneNumberId}` });
  const [shortcode] = await rawQuery<{ id: string }>(
    `insert into mpesa_shortcodes (organization_id, label, kind, business_short_code, environment, consumer_key_sealed, consumer_key_hint,
                                   consumer_secret_sealed, passkey_sealed, callback_token, is_default)
     values ($1, 'Till', 'paybill', '174379', 'sandbox', 'x', 'x', 'x', 'x', $2, true) returning id`,
    [organizationId, randomToken(24)],
  );
  return {
    ...account,
    organizationId,
    phoneNumberId,
    shortcodeId: shortcode!.id,
    cookie: await signedInCookie(account.email, account.password),
  };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

async function member(t: Tenant, first: string, last: string) {
  const [row] = await rawQuery<{ id: string }>(
    `insert into users (organization_id, email, first_name, last_name, password_hash, org_role, is_verified)
     values ($1, $2, $3, $4, 'x', 'agent', true) returning id`,
    [t.organizationId, `${first.toLowerCase()}.${randomToken(6)}@example.co.ke`, first, last],
  );
  return row!.id;
}

let phones = 0;
async function customer(t: Tenant, name: string) {
  phones += 1;
  const [contact] = await rawQuery<{ id: string }>(`insert into contacts (organization_id, name, phone) values ($1, $2, $3) returning id`, [
    t.organizationId,
    name,
    `+2547${String(20_000_000 + phones).padStart(8, "0")}`,
  ]);
  const [conversation] = await rawQuery<{ id: string }>(
    `insert into conversations (organization_id, phone_number_id, contact_id) values ($1, $2, $3) returning id`,
    [t.organizationId, t.phoneNumberId, contact!.id],
  );
  return { contactId: contact!.id, conversationId: conversation!.id };
}

let receipts = 0;
/** A request made `hoursAgo`, paid (at `paidKes`, flagged when it differs) or left as `status`. */
async function request(
  t: Tenant,
  who: { contactId: string; conversationId: string },
  options: {
    amount: number;
    hoursAgo: number;
    status?: "open" | "paid" | "expired" | "cancelled";
    paidKes?: number;
    createdBy?: string;
    source?: string;
    sourceId?: string;
  },
) {
  const status = options.status ?? (options.paidKes !== undefined ? "paid" : "open");
  const paid = status === "paid";
  const paidKes = options.paidKes ?? options.amount;
  receipts += 1;
  await rawQuery(
    `insert into payment_requests (organization_id, shortcode_id, contact_id, conversation_id, amount_kes, description, reference, expires_at,
                                   status, paid_via, paid_receipt, paid_amount_kes, paid_phone, paid_at, amount_mismatch, created_by, source,
                                   source_id, closed_at, created_at)
     values ($1, $2, $3, $4, $5, 'Order', $6, $7::timestamptz + interval '1 day', $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $13, $7)`,
    [
      t.organizationId,
      t.shortcodeId,
      who.contactId,
      who.conversationId,
      options.amount,
      `R${receipts}`,
      ago(options.hoursAgo),
      status,
      paid ? "stk" : null,
      paid ? `RCP${randomToken(6)}` : null,
      paid ? paidKes : null,
      paid ? "254700000000" : null,
      paid ? ago(options.hoursAgo - 0.5) : null,
      paid && paidKes !== options.amount,
      options.createdBy ?? null,
      options.source ?? (options.createdBy ? "inbox" : "api"),
      options.sourceId ?? null,
    ],
  );
}

async function campaignReply(t: Tenant, name: string, contactId: string, hoursAgo: number) {
  const [campaign] = await rawQuery<{ id: string }>(
    `insert into campaigns (organization_id, name, status, phone_number_id, template_name, template_language, template_category, parameters, audience)
     values ($1, $2, 'completed', $3, 'offer', 'en', 'MARKETING', '{"body":[]}', '{}') returning id`,
    [t.organizationId, name, t.phoneNumberId],
  );
  await rawQuery(
    `insert into campaign_recipients (campaign_id, organization_id, phone, contact_id, state, replied_at)
     values ($1, $2, $3, $4, 'queued', $5)`,
    [campaign!.id, t.organizationId, `2547${randomToken(4)}`, contactId, ago(hoursAgo)],
  );
  return campaign!.id;
}

async function flow(t: Tenant, name: string) {
  const [row] = await rawQuery<{ id: string }>(`insert into flows (organization_id, name) values ($1, $2) returning id`, [
    t.organizationId,
    name,
  ]);
  return row!.id;
}

const lastWeek = () => ({ start: new Date(Date.now() - 7 * 24 * HOUR), end: new Date(Date.now() + HOUR) });
const figuresOf = (t: Tenant, number: string | null = null) =>
  paymentFigures(t.organizationId, { ...lastWeek(), number, goneName: () => "Deleted" });

describe("the Analytics page's Payments section", () => {
  it("counts the period's requests, paid, conversion and KES by agent, flow and campaign, and never another tenant's", async () => {
    const mine = await tenant("Nyota Savings Sacco", "7101");
    const theirs = await tenant("Duka la Mama Ltd", "7201");
    const wanjiku = await member(mine, "Wanjiku", "Kamau");
    const otieno = await member(mine, "Otieno", "Odhiambo");
    const amina = await customer(mine, "Amina Hassan");
    const baraka = await customer(mine, "Baraka Mwangi");
    const chebet = await customer(mine, "Chebet Kiprop");
    const welcome = await flow(mine, "Welcome and pay");
    const blackFriday = await campaignReply(mine, "Black Friday", amina.contactId, 30);
    // Replied to 80 hours before the request: outside the 72 hours, no campaign.
    await campaignReply(mine, "Old offer", chebet.contactId, 100);

    // Wanjiku: three requests, two paid (one of them a different amount: counted at what M-Pesa took).
    await request(mine, amina, { amount: 1250, hoursAgo: 20, paidKes: 1250, createdBy: wanjiku });
    await request(mine, baraka, { amount: 2000, hoursAgo: 10, paidKes: 1900, createdBy: wanjiku });
    await request(mine, chebet, { amount: 500, hoursAgo: 20, status: "expired", createdBy: wanjiku });
    // Otieno: one request, cancelled.
    await request(mine, baraka, { amount: 700, hoursAgo: 5, status: "cancelled", createdBy: otieno });
    // The flow: two, one paid; the first to Amina, after her Black Friday reply.
    await request(mine, amina, { amount: 300, hoursAgo: 4, paidKes: 300, source: "flow", sourceId: welcome });
    await request(mine, chebet, { amount: 300, hoursAgo: 3, status: "open", source: "flow", sourceId: welcome });
    // Made before the period (paid since): not in it.
    await request(mine, baraka, { amount: 9999, hoursAgo: 10 * 24, paidKes: 9999, createdBy: otieno });
    // The other tenant's: never counted in mine.
    const theirCustomer = await customer(theirs, "Amina Hassan");
    await request(theirs, theirCustomer, { amount: 4000, hoursAgo: 2, paidKes: 4000 });

    const figures = await figuresOf(mine);
    expect(figures).toMatchObject({ requested: 6, paid: 3, conversion: 50, kesCollected: 1250 + 1900 + 300, amountMismatches: 1 });
    expect(figures.byAgent).toEqual([
      { id: wanjiku, name: "Wanjiku Kamau", requested: 3, paid: 2, conversion: 66.7, kesCollected: 3150 },
      { id: otieno, name: "Otieno Odhiambo", requested: 1, paid: 0, conversion: 0, kesCollected: 0 },
    ]);
    expect(figures.byFlow).toEqual([{ id: welcome, name: "Welcome and pay", requested: 2, paid: 1, conversion: 50, kesCollected: 300 }]);
    // Amina replied to Black Friday 30 hours ago: her two later requests (1,250 paid 20 hours ago, 300 by the flow).
    expect(figures.byCampaign).toEqual([
      { id: blackFriday, name: "Black Friday", requested: 2, paid: 2, conversion: 100, kesCollected: 1550 },
    ]);

    expect(await figuresOf(theirs)).toMatchObject({ requested: 1, paid: 1, kesCollected: 4000, byAgent: [], byFlow: [], byCampaign: [] });
    // Another tenant's number filter: its conversations are not on my number.
    expect(await figuresOf(mine, "7201")).toMatchObject({ requested: 0, paid: 0, conversion: null, kesCollected: 0 });
    expect(await figuresOf(mine, "7101")).toMatchObject({ requested: 6, paid: 3 });

    // The page, its CSV and the API say the same.
    const page = await run<AnalyticsPage>(analyticsLoader, getRequest("/analytics?period=7d", { cookie: mine.cookie }));
    expect(page.status).toBe(200);
    expect(page.data.payments).toMatchObject({ requested: 6, paid: 3, conversion: 50, kesCollected: 3450 });
    const theirPage = await run<AnalyticsPage>(analyticsLoader, getRequest("/analytics?period=7d", { cookie: theirs.cookie }));
    expect(theirPage.data.payments).toMatchObject({ requested: 1, kesCollected: 4000 });

    const csv = await run<string>(paymentsCsvLoader, getRequest("/analytics/payments.csv?period=7d", { cookie: mine.cookie }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.data.split("\r\n")).toEqual([
      `"Grouped by","Name","Requested","Paid","Conversion","Collected","Amount differs"`,
      `"All requests","","6","3","50","3450","1"`,
      `"Agent","Wanjiku Kamau","3","2","66.7","3150",""`,
      `"Agent","Otieno Odhiambo","1","0","0","0",""`,
      `"Flow","Welcome and pay","2","1","50","300",""`,
      `"Campaign","Black Friday","2","2","100","1550",""`,
      "",
    ]);
    const refused = await run<string>(paymentsCsvLoader, getRequest("/analytics/payments.csv?number=7201", { cookie: mine.cookie }));
    expect(refused.status).toBe(400);

    const api = await apiAnalytics(mine.organizationId, { period: "7d" });
    expect(api.payments).toMatchObject({ requested: 6, paid: 3, conversion: 50, kesCollected: 3450, amountMismatches: 1 });
  });

  it("names a deleted member's row and keeps a formula-like name as text in the CSV", async () => {
    const t = await tenant("Formula Traders", "7301");
    const who = await customer(t, "Juma");
    const f = await flow(t, '=HYPERLINK("x")');
    await request(t, who, { amount: 100, hoursAgo: 1, paidKes: 100, source: "flow", sourceId: f });
    const gone = await member(t, "Former", "Agent");
    await request(t, who, { amount: 100, hoursAgo: 1, createdBy: gone });
    await rawQuery(`update payment_requests set created_by = null where created_by = $1`, [gone]);
    await rawQuery(`delete from users where id = $1`, [gone]);
    const figures = await figuresOf(t);
    expect(figures.byAgent).toEqual([]);
    const csv = await run<string>(paymentsCsvLoader, getRequest("/analytics/payments.csv?period=24h", { cookie: t.cookie }));
    expect(csv.data).toContain(`"Flow","'=HYPERLINK(""x"")","1","1","100","100",""`);
    // A flow deleted since: its requests still count, under "Deleted".
    await rawQuery(`delete from flows where id = $1`, [f]);
    expect((await figuresOf(t)).byFlow).toEqual([{ id: f, name: "Deleted", requested: 1, paid: 1, conversion: 100, kesCollected: 100 }]);
  });
});
