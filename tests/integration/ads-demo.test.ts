import { beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { referralOf } from "~/.server/domains/ads";
import { adFigures } from "~/.server/domains/analytics/ads";
import { findConversation } from "~/.server/domains/inbox/list";
import { DEMO_ACCOUNTS } from "~/.server/demo/seed";
import { DEMO_AD } from "~/.server/demo/seed-ads";
import { demoData } from "../support/demo-snapshot";

// Issue 77: the demo Sacco has a customer who came from a Click-to-WhatsApp ad and paid her cart in
// the chat, kept as the webhook and the dispatcher keep a real one (decision 154), so the inbox shows
// "From ad" and Analytics → Ads shows the sale from the rows' own figures.
// Each test starts from an emptied database (setup.ts): the demo again, from the file's copy after the first.

let organizationId = "";
beforeEach(async () => {
  await demoData();
  const [row] = await rawQuery<{ organization_id: string }>(`select organization_id from users where email = $1`, [
    DEMO_ACCOUNTS.find((a) => a.usertype === "individual")!.email,
  ]);
  organizationId = row!.organization_id;
}, 300_000);

const HOUR = 3_600_000;

describe("the demo's customer from an ad", () => {
  it("is kept as a real one: the message's referral, its row, the conversation's entry and free window, the contact's touches", async () => {
    const [kept] = await rawQuery<Record<string, unknown>>(
      `select a.id, a.source_id, a.headline, a.ctwa_clid, a.clicked_at, m.payload, m.sent_at, m.direction, m.contact_id as message_contact,
              a.contact_id, v.id as conversation_id, v.ad_referral_id, v.ad_entry_at, v.free_entry_until,
              c.first_ad_referral_id, c.last_ad_referral_id, c.name
       from ad_referrals a join messages m on m.id = a.message_id
       join conversations v on v.id = a.conversation_id join contacts c on c.id = a.contact_id
       where a.organization_id = $1`,
      [organizationId],
    );
    expect(kept).toMatchObject({ source_id: DEMO_AD.sourceId, headline: DEMO_AD.headline, name: DEMO_AD.customer, direction: "inbound" });
    // The row is what the message's referral says, as the webhook would have read it.
    const payload = typeof kept!.payload === "string" ? JSON.parse(kept!.payload) : kept!.payload;
    expect(referralOf(payload)).toMatchObject({ sourceId: kept!.source_id, headline: kept!.headline, ctwaClid: kept!.ctwa_clid });
    expect(new Date(kept!.sent_at as string).getTime()).toBe(new Date(kept!.clicked_at as string).getTime());
    expect(kept!.message_contact).toBe(kept!.contact_id);
    expect(kept!.ad_referral_id).toBe(kept!.id);
    expect(new Date(kept!.ad_entry_at as string).getTime()).toBe(new Date(kept!.clicked_at as string).getTime());
    expect([kept!.first_ad_referral_id, kept!.last_ad_referral_id]).toEqual([kept!.id, kept!.id]);

    // The window opened 72 hours from the first answer Meta accepted within 24 hours, and nothing in it was charged.
    const [answer] = await rawQuery<{ at: string }>(
      `select min(accepted_at) as at from messages where contact_id = $1 and direction = 'outbound' and accepted_at >= $2
         and accepted_at < $2::timestamptz + interval '24 hours'`,
      [kept!.contact_id, kept!.clicked_at],
    );
    expect(new Date(kept!.free_entry_until as string).getTime()).toBe(new Date(answer!.at).getTime() + 72 * HOUR);
    const charged = await rawQuery(
      `select 1 from messages where contact_id = $1 and accepted_at >= $2 and accepted_at < $3 and charge_state in ('held', 'charged', 'counted')`,
      [kept!.contact_id, answer!.at, kept!.free_entry_until],
    );
    expect(charged).toEqual([]);
    // What Meta said of them (as the sandbox answers inside a window): free_entry_point, not billable; and no other message says so.
    const priced = await rawQuery<{ inside: boolean; pricing_type: string | null; billable: boolean | null }>(
      `select accepted_at >= $2 and accepted_at < $3 and contact_id = $4 as inside, pricing_type, billable from messages
       where organization_id = $1 and direction = 'outbound' and channel = 'whatsapp' and accepted_at is not null
         and (pricing_type = 'free_entry_point' or (contact_id = $4 and accepted_at >= $2 and accepted_at < $3))`,
      [organizationId, answer!.at, kept!.free_entry_until, kept!.contact_id],
    );
    expect(priced.length).toBeGreaterThan(0);
    expect(priced.filter((m) => !m.inside)).toEqual([]);
    expect(priced.every((m) => m.pricing_type === "free_entry_point" && m.billable === false)).toBe(true);

    // The inbox's header reads it.
    const conversation = await findConversation(organizationId, kept!.conversation_id as string);
    expect(JSON.stringify(conversation)).toContain(DEMO_AD.headline);
  });

  it("fills Analytics → Ads with the rows' own figures: the conversation, its answer, the order and the paid request", async () => {
    const end = new Date(Date.now() + HOUR);
    const start = new Date(end.getTime() - 30 * 24 * HOUR);
    const figures = await adFigures(organizationId, { start, end, number: null });
    const [rows] = await rawQuery<{ orders: number; paid: number; kes: number }>(
      `select (select count(*)::int from orders o where o.conversation_id = a.conversation_id and o.received_at >= a.clicked_at) as orders,
              (select count(*)::int from payment_requests p where p.conversation_id = a.conversation_id and p.created_at >= a.clicked_at
                 and p.status = 'paid') as paid,
              (select coalesce(sum(paid_amount_kes), 0)::int from payment_requests p where p.conversation_id = a.conversation_id
                 and p.created_at >= a.clicked_at and p.status = 'paid') as kes
       from ad_referrals a where a.organization_id = $1`,
      [organizationId],
    );
    expect(rows!.paid).toBe(1);
    expect(figures.byAd).toEqual([
      expect.objectContaining({
        id: DEMO_AD.sourceId,
        headline: DEMO_AD.headline,
        conversations: 1,
        answered: 1,
        medianResponseMinutes: DEMO_AD.minutesBeforeRequest,
        orders: rows!.orders,
        paymentsPaid: rows!.paid,
        kesCollected: rows!.kes,
      }),
    ]);
  });
});
