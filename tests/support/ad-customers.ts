import { rawQuery } from "~/.server/infrastructure/db/client";

/**
 * A customer of the organisation who wrote from a Click-to-WhatsApp ad: their contact, their message
 * and its referral, as the webhook stores them (decision 154), without a sandbox or a number.
 */
export async function customerFromAd(organizationId: string, ad: { sourceId: string; headline: string }, phone: string) {
  const [contact] = await rawQuery<{ id: string }>(
    `insert into contacts (organization_id, name, phone) values ($1, 'Akinyi', $2) returning id`,
    [organizationId, phone],
  );
  const [message] = await rawQuery<{ id: string }>(
    `insert into messages (organization_id, contact_id, direction, status, phone_number_id, body)
     values ($1, $2, 'inbound', 'received', 'pn-1', 'Habari') returning id`,
    [organizationId, contact!.id],
  );
  await rawQuery(
    `insert into ad_referrals (organization_id, contact_id, message_id, phone_number_id, source_id, source_type, headline, clicked_at)
     values ($1, $2, $3, 'pn-1', $4, 'ad', $5, now())`,
    [organizationId, contact!.id, message!.id, ad.sourceId, ad.headline],
  );
}
