import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { queueAdPictures } from "./picture";

/**
 * Click-to-WhatsApp ads (issue 77, decision 154): Meta puts a `referral` on the message a customer
 * sends right after tapping an ad (or a boosted post). Each is kept once (by its message), the
 * conversation points at its latest one and starts its ad entry (a business reply within 24 hours
 * opens Meta's free entry window), and the contact keeps its first and latest ad.
 */

/** A stored customer message that may carry a referral (its payload as Meta sent it). */
export interface AdArrival {
  organizationId: string;
  contactId: string | null;
  conversationId: string | null;
  messageId: string;
  phoneNumberId: string;
  /** The message as Meta sent it (JSON). */
  payload: string;
  /** When the customer sent it (ISO). */
  sentAt: string;
}

export interface AdReferral {
  sourceId: string;
  sourceType: "ad" | "post" | "unknown";
  sourceUrl: string | null;
  headline: string | null;
  body: string | null;
  mediaType: string | null;
  imageUrl: string | null;
  videoUrl: string | null;
  thumbnailUrl: string | null;
  ctwaClid: string | null;
  welcomeMessage: string | null;
}

const clip = (value: unknown, max: number) => (typeof value === "string" && value.trim() ? value.trim().slice(0, max) : null);
/** Only web addresses are kept: a picture or a link the inbox shows must not be a `javascript:` one. */
const webUrl = (value: unknown) => {
  const text = clip(value, 2048);
  return text && /^https?:\/\//i.test(text) ? text : null;
};

/** The referral of a message as Meta sends it, or null when it has none (or no ad id to group it by). */
export function referralOf(message: unknown): AdReferral | null {
  if (typeof message !== "object" || message === null) return null;
  const referral = (message as { referral?: unknown }).referral;
  if (typeof referral !== "object" || referral === null || Array.isArray(referral)) return null;
  const r = referral as Record<string, unknown>;
  const sourceId = clip(r.source_id, 128);
  if (!sourceId) return null;
  const welcome = typeof r.welcome_message === "object" && r.welcome_message !== null ? (r.welcome_message as Record<string, unknown>) : {};
  return {
    sourceId,
    sourceType: r.source_type === "ad" || r.source_type === "post" ? r.source_type : "unknown",
    sourceUrl: webUrl(r.source_url),
    headline: clip(r.headline, 256),
    body: clip(r.body, 1024),
    mediaType: clip(r.media_type, 16),
    imageUrl: webUrl(r.image_url),
    videoUrl: webUrl(r.video_url),
    thumbnailUrl: webUrl(r.thumbnail_url),
    ctwaClid: clip(r.ctwa_clid, 512),
    welcomeMessage: clip(welcome.text, 1024),
  };
}

/**
 * Keeps the referrals of a webhook batch's new customer messages, in the batch's transaction (the
 * person locks are held): once per message, whatever the number of deliveries.
 */
export async function recordAdReferrals(tx: Executor, arrivals: readonly AdArrival[]) {
  const found = arrivals.flatMap((a) => {
    // Most messages carry none: a payload without the word is not parsed again.
    if (!a.contactId || !a.payload.includes('"referral"')) return [];
    const referral = referralOf(JSON.parse(a.payload));
    return referral ? [{ ...a, contactId: a.contactId, referral }] : [];
  });
  if (!found.length) return [];
  const col = <T>(pick: (f: (typeof found)[number]) => T) => sql.param(found.map(pick));
  const stored = await queryRows<{
    id: string;
    contact_id: string;
    conversation_id: string | null;
    clicked_at: string;
    has_picture: boolean;
  }>(
    tx,
    sql`
    insert into ad_referrals (organization_id, contact_id, conversation_id, message_id, phone_number_id, source_id, source_type, source_url,
                              headline, body, media_type, image_url, video_url, thumbnail_url, ctwa_clid, welcome_message, clicked_at)
    select * from unnest(${col((f) => f.organizationId)}::uuid[], ${col((f) => f.contactId)}::uuid[], ${col((f) => f.conversationId)}::uuid[],
                         ${col((f) => f.messageId)}::uuid[], ${col((f) => f.phoneNumberId)}::text[], ${col((f) => f.referral.sourceId)}::text[],
                         ${col((f) => f.referral.sourceType)}::text[], ${col((f) => f.referral.sourceUrl)}::text[],
                         ${col((f) => f.referral.headline)}::text[], ${col((f) => f.referral.body)}::text[],
                         ${col((f) => f.referral.mediaType)}::text[], ${col((f) => f.referral.imageUrl)}::text[],
                         ${col((f) => f.referral.videoUrl)}::text[], ${col((f) => f.referral.thumbnailUrl)}::text[],
                         ${col((f) => f.referral.ctwaClid)}::text[], ${col((f) => f.referral.welcomeMessage)}::text[],
                         ${col((f) => f.sentAt)}::timestamptz[])
    on conflict (message_id) do nothing
    returning id, contact_id, conversation_id, clicked_at::text, coalesce(thumbnail_url, image_url) is not null as has_picture`,
  );
  if (!stored.length) return stored;
  await queueAdPictures(tx, stored);
  // The latest click of each conversation: a newer ad entry starts again (an expired free window is
  // forgotten, so the next reply can open a new one); an older one, delivered late, moves nothing.
  const latest = new Map<string, (typeof stored)[number]>();
  for (const r of stored) {
    if (!r.conversation_id) continue;
    const seen = latest.get(r.conversation_id);
    if (!seen || seen.clicked_at < r.clicked_at) latest.set(r.conversation_id, r);
  }
  if (latest.size) {
    const entries = [...latest.values()];
    await tx.execute(sql`
      update conversations v
      set ad_referral_id = t.r, ad_entry_at = t.at,
          free_entry_until = case when v.free_entry_until is not null and v.free_entry_until < t.at then null else v.free_entry_until end
      from unnest(${sql.param(entries.map((e) => e.conversation_id))}::uuid[], ${sql.param(entries.map((e) => e.id))}::uuid[],
                  ${sql.param(entries.map((e) => e.clicked_at))}::timestamptz[]) as t(c, r, at)
      where v.id = t.c and (v.ad_entry_at is null or v.ad_entry_at <= t.at)`);
  }
  // First touch once (the batch's earliest click); last touch the latest click (by when the customer sent it).
  const touches = new Map<string, { first: (typeof stored)[number]; last: (typeof stored)[number] }>();
  for (const r of stored) {
    const seen = touches.get(r.contact_id);
    if (!seen) touches.set(r.contact_id, { first: r, last: r });
    else {
      if (r.clicked_at < seen.first.clicked_at) seen.first = r;
      if (r.clicked_at >= seen.last.clicked_at) seen.last = r;
    }
  }
  const people = [...touches.entries()];
  await tx.execute(sql`
    update contacts c
    set first_ad_referral_id = coalesce(c.first_ad_referral_id, t.f),
        last_ad_referral_id = case when l.clicked_at is null or l.clicked_at <= t.at then t.l else c.last_ad_referral_id end
    from unnest(${sql.param(people.map(([c]) => c))}::uuid[], ${sql.param(people.map(([, t]) => t.first.id))}::uuid[],
                ${sql.param(people.map(([, t]) => t.last.id))}::uuid[], ${sql.param(people.map(([, t]) => t.last.clicked_at))}::timestamptz[])
           as t(c, f, l, at)
    left join contacts k on k.id = t.c
    left join ad_referrals l on l.id = k.last_ad_referral_id
    where c.id = t.c`);
  return stored;
}
