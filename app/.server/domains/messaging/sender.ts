import { rawQuery } from "../../infrastructure/db/client";
import { organisationClosing, refuse } from "./refusals";
import { digitsOf, normaliseRecipient } from "./recipient";
import { m } from "~/paraglide/messages";

/** A connected number a tenant sends from, with its account (WABA). */
export interface SenderNumber {
  phoneNumberId: string;
  accountId: string;
  wabaId: string;
  /** E.164 of the business number. */
  number: string;
  registered: boolean;
}

interface Row {
  closing: boolean;
  phone_number_id: string;
  account_id: string;
  waba_id: string;
  phone_digits: string;
  registered_at: Date | string | null;
  token_refused: boolean;
}

/**
 * The number a message goes from: `from` as Meta's phone number id or the number itself (E.164 or
 * local), or the tenant's first connected number. Only live numbers of connected accounts count;
 * an unregistered number is refused (Meta would answer 133010).
 */
export async function resolveSenderNumber(organizationId: string, from?: string): Promise<SenderNumber> {
  // The organisation's row comes along (one statement): a closing organisation sends nothing. Every
  // way out checks here first: a message by the API, a campaign checked, started, resumed or fed.
  const found = await rawQuery<Row>(
    `select o.closure_requested_at is not null as closing,
            p.phone_number_id, p.account_id, a.waba_id, p.phone_digits, p.registered_at, a.token_refused_at is not null as token_refused
     from organizations o
     left join (whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id and a.status = 'connected')
       on p.organization_id = o.id and p.disconnected_at is null
     where o.id = $1
     order by p.created_at, p.phone_number_id`,
    [organizationId],
  );
  if (found[0]?.closing) throw organisationClosing();
  const rows = found.filter((r) => r.phone_number_id !== null);
  if (!rows.length) throw refuse(409, "no_whatsapp_number", m.validation_send_no_number());
  let row = rows[0]!;
  if (from !== undefined && from.trim()) {
    const wanted = from.trim();
    let digits: string | undefined;
    try {
      digits = digitsOf(normaliseRecipient(wanted));
    } catch {
      digits = undefined;
    }
    const found = rows.find((r) => r.phone_number_id === wanted || (digits !== undefined && r.phone_digits === digits));
    if (!found) throw refuse(409, "no_whatsapp_number", m.validation_send_not_our_number({ wanted: wanted.slice(0, 40) }));
    row = found;
  }
  if (row.token_refused) throw refuse(409, "whatsapp_reconnect_needed", m.validation_send_reconnect({ number: `+${row.phone_digits}` }));
  if (!row.registered_at) throw refuse(409, "number_not_registered", m.validation_send_not_registered({ number: `+${row.phone_digits}` }));
  return {
    phoneNumberId: row.phone_number_id,
    accountId: row.account_id,
    wabaId: row.waba_id,
    number: `+${row.phone_digits}`,
    registered: true,
  };
}

/** Refuses while the organisation is closing (resolveSenderNumber checks the same, with the number). */
export async function refuseWhileClosing(organizationId: string) {
  const [row] = await rawQuery<{ closing: boolean }>(
    `select closure_requested_at is not null as closing from organizations where id = $1`,
    [organizationId],
  );
  if (row?.closing) throw organisationClosing();
}

/** When the customer's service window with this number closes, or null when it is not open. */
export async function serviceWindowClosesAt(organizationId: string, phoneNumberId: string, recipient: string, now = new Date()) {
  const [row] = await rawQuery<{ last_inbound_at: Date | string | null }>(
    `select max(v.last_inbound_at) as last_inbound_at
     from conversations v join contacts c on c.id = v.contact_id
     where v.organization_id = $1 and v.phone_number_id = $2 and (c.phone = $3 or c.wa_id = $4)`,
    [organizationId, phoneNumberId, recipient, digitsOf(recipient)],
  );
  if (!row?.last_inbound_at) return null;
  const closes = new Date(new Date(row.last_inbound_at).getTime() + SERVICE_WINDOW_MS);
  return closes > now ? closes : null;
}

/** Meta's customer-service window: 24 hours after the customer's last message. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Whether the customer has written to the organisation by SMS but never on WhatsApp to this number
 * (issue 77, decision 150): a free-form WhatsApp message is then refused with words that say so and
 * point to "Send as SMS" (or a template), not only the 24-hour window's.
 */
export async function wroteOnlyBySms(organizationId: string, phoneNumberId: string, recipient: string): Promise<boolean> {
  const [row] = await rawQuery<{ by_sms: boolean; on_whatsapp: boolean }>(
    `select exists (select 1 from messages m join contacts c on c.id = m.contact_id
                    where m.organization_id = $1 and m.direction = 'inbound' and m.channel = 'sms' and (c.phone = $3 or c.wa_id = $4)) as by_sms,
            exists (select 1 from conversations v join contacts c on c.id = v.contact_id
                    where v.organization_id = $1 and v.phone_number_id = $2 and v.last_inbound_at is not null
                      and (c.phone = $3 or c.wa_id = $4)) as on_whatsapp`,
    [organizationId, phoneNumberId, recipient, digitsOf(recipient)],
  );
  return Boolean(row?.by_sms) && !row?.on_whatsapp;
}
