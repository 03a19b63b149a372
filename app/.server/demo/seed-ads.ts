import { randomBytes } from "node:crypto";
import { and, eq, gte, lt, min, sql } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { adReferrals, contacts, conversations, messages, paymentRequests } from "../infrastructure/db/schema";
import { FREE_ENTRY_HOURS, FREE_ENTRY_REPLY_HOURS } from "../domains/ads";

/**
 * The demo Sacco's customer from a Click-to-WhatsApp ad (issue 77): Achieng tapped the shop's umbrella
 * ad, wrote, sent her cart and paid it by M-Pesa (her order's paid request, seed-payment-requests.ts),
 * so Analytics → Ads and the inbox's "From ad" have something real. Written as the webhook and the
 * dispatcher leave it (decision 154): her message with Meta's `referral`, its `ad_referrals` row, the
 * conversation's ad entry and the free entry window the first answer opened, the contact's first and
 * last ad. tests/integration/ads-demo.test.ts checks it against those invariants.
 */

export const DEMO_AD = {
  customer: "Achieng Atieno",
  sourceId: "120210987654321001",
  sourceType: "ad" as const,
  sourceUrl: "https://fb.me/nyota-mwavuli",
  headline: "Mwavuli wa Nyota: KES 1,200",
  body: "Mwavuli imara wa msimu wa mvua. Tuma ujumbe uagize leo.",
  ctwaClid: "ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOd",
  text: "Habari! Nimeona tangazo la mwavuli. Bado unapatikana?",
  /** She wrote this long before her cart's payment request was made. */
  minutesBeforeRequest: 20,
};

export async function seedAds(organizationId: string) {
  const [request] = await db()
    .select({
      createdAt: paymentRequests.createdAt,
      contactId: paymentRequests.contactId,
      conversationId: conversations.id,
      phoneNumberId: conversations.phoneNumberId,
      phone: contacts.phone,
    })
    .from(paymentRequests)
    .innerJoin(contacts, eq(contacts.id, paymentRequests.contactId))
    .innerJoin(conversations, eq(conversations.id, paymentRequests.conversationId))
    .where(
      and(eq(paymentRequests.organizationId, organizationId), eq(contacts.name, DEMO_AD.customer), eq(paymentRequests.source, "order")),
    )
    .limit(1);
  if (!request?.phone) return;
  const clickedAt = new Date(request.createdAt.getTime() - DEMO_AD.minutesBeforeRequest * 60_000);
  const from = request.phone.slice(1);
  // A wamid as the demo inbox makes them (Meta's are opaque).
  const wamid = `wamid.DEMO${randomBytes(24).toString("base64url")}`;
  const [message] = await db()
    .insert(messages)
    .values({
      organizationId,
      contactId: request.contactId,
      direction: "inbound",
      status: "received",
      body: DEMO_AD.text,
      wamid,
      phoneNumberId: request.phoneNumberId,
      messageType: "text",
      payload: {
        from,
        id: wamid,
        timestamp: String(Math.floor(clickedAt.getTime() / 1000)),
        type: "text",
        text: { body: DEMO_AD.text },
        referral: {
          source_url: DEMO_AD.sourceUrl,
          source_id: DEMO_AD.sourceId,
          source_type: DEMO_AD.sourceType,
          headline: DEMO_AD.headline,
          body: DEMO_AD.body,
          media_type: "image",
          ctwa_clid: DEMO_AD.ctwaClid,
        },
      },
      sentAt: clickedAt,
      createdAt: new Date(clickedAt.getTime() + 1000),
      // Read long ago in the inbox, as the rest of her older thread (the conversation's unread count is of later messages).
      readAt: new Date(clickedAt.getTime() + 5 * 60_000),
      recipientPhone: request.phone,
    })
    .returning({ id: messages.id });
  const [referral] = await db()
    .insert(adReferrals)
    .values({
      organizationId,
      contactId: request.contactId!,
      conversationId: request.conversationId,
      messageId: message!.id,
      phoneNumberId: request.phoneNumberId,
      sourceId: DEMO_AD.sourceId,
      sourceType: DEMO_AD.sourceType,
      sourceUrl: DEMO_AD.sourceUrl,
      headline: DEMO_AD.headline,
      body: DEMO_AD.body,
      mediaType: "image",
      ctwaClid: DEMO_AD.ctwaClid,
      clickedAt,
      createdAt: new Date(clickedAt.getTime() + 1000),
    })
    .returning({ id: adReferrals.id });
  // The free entry window opens with the business's first answer Meta accepted within 24 hours of her message.
  const [answer] = await db()
    .select({ at: min(messages.acceptedAt) })
    .from(messages)
    .where(
      and(
        eq(messages.organizationId, organizationId),
        eq(messages.contactId, request.contactId!),
        eq(messages.direction, "outbound"),
        gte(messages.acceptedAt, clickedAt),
        lt(messages.acceptedAt, new Date(clickedAt.getTime() + FREE_ENTRY_REPLY_HOURS * 3600_000)),
      ),
    );
  const freeEntryUntil = answer?.at ? new Date(answer.at.getTime() + FREE_ENTRY_HOURS * 3600_000) : null;
  await db()
    .update(conversations)
    .set({ adReferralId: referral!.id, adEntryAt: clickedAt, freeEntryUntil })
    .where(eq(conversations.id, request.conversationId));
  await db()
    .update(contacts)
    .set({ firstAdReferralId: referral!.id, lastAdReferralId: referral!.id })
    .where(eq(contacts.id, request.contactId!));
  if (answer?.at && freeEntryUntil) await priceFreeEntry(organizationId, request.contactId!, answer.at, freeEntryUntil);
}

/**
 * What Meta's status webhooks say of the messages sent inside the free entry window (as the Meta
 * sandbox answers them): `pricing.type` free_entry_point, not billable, in their template's category
 * or service. None of them is charged to the wallet (the demo never holds a price for them).
 */
async function priceFreeEntry(organizationId: string, contactId: string, opened: Date, until: Date) {
  await db()
    .update(messages)
    .set({ pricingType: "free_entry_point", billable: false, pricingCategory: sql`coalesce(${messages.pricingCategory}, 'service')` })
    .where(
      and(
        eq(messages.organizationId, organizationId),
        eq(messages.contactId, contactId),
        eq(messages.direction, "outbound"),
        eq(messages.channel, "whatsapp"),
        gte(messages.acceptedAt, opened),
        lt(messages.acceptedAt, until),
      ),
    );
}
