import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { randomToken } from "~/.server/infrastructure/security/crypto";
import { adFigures } from "~/.server/domains/analytics/ads";
import type { AnalyticsAdsPage } from "~/.server/domains/analytics/page";
import { apiAnalytics } from "~/.server/adapters/api-v1/analytics";
import { loader as adsLoader } from "~/routes/app/analytics-ads";
import { loader as adsCsvLoader } from "~/routes/app/analytics-ads-csv";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Issue 77: the Analytics page's Ads tab counts, per Click-to-WhatsApp ad and per source type, the
// conversations customers started from it, those answered, the median first response, the shop orders,
// the payment requests paid and the KES collected, from the database, and never another tenant's.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

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
type Customer = { contactId: string; conversationId: string; phone: string };

let phones = 0;
async function customer(t: Tenant): Promise<Customer> {
  phones += 1;
  const phone = `+2547${String(30_000_000 + phones).padStart(8, "0")}`;
  const [contact] = await rawQuery<{ id: string }>(`insert into contacts (organization_id, name, phone) values ($1, $2, $3) returning id`, [
    t.organizationId,
    `Customer ${phones}`,
    phone,
  ]);
  const [conversation] = await rawQuery<{ id: string }>(
    `insert into conversations (organization_id, phone_number_id, contact_id) values ($1, $2, $3) returning id`,
    [t.organizationId, t.phoneNumberId, contact!.id],
  );
  return { contactId: contact!.id, conversationId: conversation!.id, phone };
}

/** The customer writes from an ad `msAgo` (its message and its referral, as the webhook stores them). */
async function fromAd(t: Tenant, who: Customer, ad: { id: string; headline: string; type: "ad" | "post" }, msAgo: number) {
  const [message] = await rawQuery<{ id: string }>(
    `insert into messages (organization_id, contact_id, direction, status, phone_number_id, body, sent_at, created_at)
     values ($1, $2, 'inbound', 'received', $3, 'Habari', $4, $4) returning id`,
    [t.organizationId, who.contactId, t.phoneNumberId, at(msAgo)],
  );
  await rawQuery(
    `insert into ad_referrals (organization_id, contact_id, conversation_id, message_id, phone_number_id, source_id, source_type, headline, clicked_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [t.organizationId, who.contactId, who.conversationId, message!.id, t.phoneNumberId, ad.id, ad.type, ad.headline, at(msAgo)],
  );
}

/** The business sends the customer a message Meta accepted `msAgo`. */
async function businessSends(t: Tenant, who: Customer, source: string, msAgo: number, templated = false) {
  await rawQuery(
    `insert into messages (organization_id, contact_id, direction, status, phone_number_id, body, source, recipient_phone, template_id,
                           accepted_at, created_at)
     values ($1, $2, 'outbound', 'sent', $3, 'Karibu', $4, $5, $6, $7, $7)`,
    [t.organizationId, who.contactId, t.phoneNumberId, source, who.phone, templated ? crypto.randomUUID() : null, at(msAgo)],
  );
}

async function order(t: Tenant, who: Customer, msAgo: number) {
  await rawQuery(
    `insert into orders (organization_id, contact_id, conversation_id, wamid, catalog_id, total_cents, received_at)
     values ($1, $2, $3, $4, 'catalog-1', 150000, $5)`,
    [t.organizationId, who.contactId, who.conversationId, `wamid.order-${randomToken(6)}`, at(msAgo)],
  );
}

let receipts = 0;
async function request(t: Tenant, who: Customer, amount: number, msAgo: number, paid: boolean) {
  receipts += 1;
  await rawQuery(
    `insert into payment_requests (organization_id, shortcode_id, contact_id, conversation_id, amount_kes, description, reference, expires_at,
                                   status, paid_via, paid_receipt, paid_amount_kes, paid_phone, paid_at, source, closed_at, created_at)
     values ($1, $2, $3, $4, $5, 'Order', $6, $7::timestamptz + interval '1 day', $8, $9, $10, $11, $12, $13, 'api', $13, $7)`,
    [
      t.organizationId,
      t.shortcodeId,
      who.contactId,
      who.conversationId,
      amount,
      `A${receipts}`,
      at(msAgo),
      paid ? "paid" : "open",
      paid ? "stk" : null,
      paid ? `RCP${randomToken(6)}` : null,
      paid ? amount : null,
      paid ? "254700000000" : null,
      paid ? at(msAgo - MINUTE) : null,
    ],
  );
}

const MAJI = { id: "120226305854810726", headline: "Maji safi kwa nyumba yako", type: "ad" as const };
const TANKI = { id: "120226305854810999", headline: "Tanki la lita 1000", type: "post" as const };

async function twoAds() {
  const t = await tenant("Maji Safi Ltd", "7301");
  const [c1, c2, c3, c4] = [await customer(t), await customer(t), await customer(t), await customer(t)];
  // C1 from Maji, answered from the inbox in 4 minutes; an order and a paid request; later from Tanki, answered by an automation in 1 minute, another order.
  await fromAd(t, c1, MAJI, 10 * HOUR);
  await businessSends(t, c1, "inbox", 10 * HOUR - 4 * MINUTE);
  await order(t, c1, 9 * HOUR);
  await request(t, c1, 1500, 9 * HOUR, true);
  await fromAd(t, c1, TANKI, 3 * HOUR);
  await businessSends(t, c1, "automation", 3 * HOUR - MINUTE);
  await order(t, c1, 2 * HOUR);
  // C2 from Maji, answered by an automation in 10 minutes; a request paid before the ad (not the ad's), one paid, one open.
  await request(t, c2, 999, 21 * HOUR, true);
  await fromAd(t, c2, MAJI, 20 * HOUR);
  await businessSends(t, c2, "automation", 20 * HOUR - 10 * MINUTE);
  await request(t, c2, 500, 19 * HOUR, true);
  await request(t, c2, 700, 18 * HOUR, false);
  // C3 from Tanki: only a campaign's template afterwards (it answers nobody); a paid request.
  await fromAd(t, c3, TANKI, 5 * HOUR);
  await businessSends(t, c3, "campaign", 5 * HOUR - 2 * MINUTE, true);
  await request(t, c3, 800, 4 * HOUR, true);
  // C4 came from Maji ten days ago: its request of two days ago is not this week's ad's.
  await fromAd(t, c4, MAJI, 240 * HOUR);
  await request(t, c4, 4000, 48 * HOUR, true);
  return t;
}

const lastWeek = () => ({ start: new Date(Date.now() - 7 * 24 * HOUR), end: new Date(Date.now() + HOUR), number: null });

describe("Analytics by ad", () => {
  it("counts per ad and per source type what customers from ads did, and never another tenant's", async () => {
    const mine = await twoAds();
    const other = await tenant("Other Ltd", "7302");
    const stranger = await customer(other);
    await fromAd(other, stranger, MAJI, 2 * HOUR);
    await businessSends(other, stranger, "inbox", 2 * HOUR - MINUTE);
    await order(other, stranger, HOUR);
    await request(other, stranger, 7000, HOUR, true);

    const figures = await adFigures(mine.organizationId, lastWeek());
    const maji = {
      id: MAJI.id,
      headline: MAJI.headline,
      sourceType: "ad",
      conversations: 2,
      answered: 2,
      medianResponseMinutes: 7,
      orders: 1,
      paymentsPaid: 2,
      kesCollected: 2000,
    };
    const tanki = {
      id: TANKI.id,
      headline: TANKI.headline,
      sourceType: "post",
      conversations: 2,
      answered: 1,
      medianResponseMinutes: 1,
      orders: 1,
      paymentsPaid: 1,
      kesCollected: 800,
    };
    expect(figures.byAd).toEqual([maji, tanki]);
    expect(figures.bySourceType).toEqual([
      { ...maji, id: "ad", headline: null },
      { ...tanki, id: "post", headline: null },
    ]);
    expect(figures.total).toEqual({
      id: "",
      headline: null,
      sourceType: null,
      conversations: 3,
      answered: 2,
      medianResponseMinutes: 4,
      orders: 2,
      paymentsPaid: 3,
      kesCollected: 2800,
    });

    // The other tenant sees only its own ad's figures.
    const theirs = await adFigures(other.organizationId, lastWeek());
    expect(theirs.byAd).toEqual([
      { ...maji, conversations: 1, answered: 1, medianResponseMinutes: 1, orders: 1, paymentsPaid: 1, kesCollected: 7000 },
    ]);

    // The page, the CSV and the API read the same.
    const page = await run<AnalyticsAdsPage>(adsLoader, getRequest("/analytics/ads?period=7d", { cookie: mine.cookie }));
    expect(page.status).toBe(200);
    expect(page.data.ads).toEqual(figures);
    const csv = await run<string>(adsCsvLoader, getRequest("/analytics/ads.csv?period=7d", { cookie: mine.cookie }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.data.split("\r\n")).toEqual([
      `"Row","Ad id","Headline","Conversations","Answered","Median first response (min)","Orders","Payments paid","KES collected"`,
      `"All ads","","","3","2","4","2","3","2800"`,
      `"Ad","${MAJI.id}","${MAJI.headline}","2","2","7","1","2","2000"`,
      `"Ad","${TANKI.id}","${TANKI.headline}","2","1","1","1","1","800"`,
      `"Source","ad","","2","2","7","1","2","2000"`,
      `"Source","post","","2","1","1","1","1","800"`,
      "",
    ]);
    const api = await apiAnalytics(mine.organizationId, { period: "7d" });
    expect(api.ads).toEqual(figures);

    // Another tenant's number is refused, never read.
    const refused = await run<string>(adsCsvLoader, getRequest("/analytics/ads.csv?number=7302", { cookie: mine.cookie }));
    expect(refused.status).toBe(400);
    const refusedPage = await run<AnalyticsAdsPage>(adsLoader, getRequest("/analytics/ads?period=7d&number=7302", { cookie: mine.cookie }));
    expect(refusedPage.status).toBe(400);
    expect(refusedPage.data.ads.total.conversations).toBe(3);
  });

  it("keeps a period without ads empty, and counts nothing from before the period", async () => {
    const t = await twoAds();
    const figures = await adFigures(t.organizationId, {
      start: new Date(Date.now() - 30 * 24 * HOUR),
      end: new Date(Date.now() - 8 * 24 * HOUR),
      number: null,
    });
    // Ten days ago C4 came from Maji: one conversation, nothing answered, its later request counted for that entry.
    expect(figures.byAd).toEqual([
      {
        id: MAJI.id,
        headline: MAJI.headline,
        sourceType: "ad",
        conversations: 1,
        answered: 0,
        medianResponseMinutes: null,
        orders: 0,
        paymentsPaid: 1,
        kesCollected: 4000,
      },
    ]);
    const none = await adFigures(t.organizationId, {
      start: new Date(Date.now() + HOUR),
      end: new Date(Date.now() + 2 * HOUR),
      number: null,
    });
    expect(none.byAd).toEqual([]);
    expect(none.total.conversations).toBe(0);
  });
});
