import { rawQuery } from "../../../infrastructure/db/client";

/** A payment request as the thread, the API and webhooks out show it (no secrets, no shortcode credentials). */
export interface PaymentRequestView {
  id: string;
  status: "open" | "paid" | "expired" | "cancelled";
  amountKes: number;
  description: string;
  reference: string;
  conversationId: string | null;
  contactId: string;
  shortcodeId: string;
  source: string;
  expiresAt: string;
  createdAt: string;
  paid: { via: string | null; receipt: string | null; amountKes: number | null; phone: string | null; at: string | null } | null;
  /** M-Pesa took another amount than asked. */
  amountMismatch: boolean;
  /** The latest STK push: its state and M-Pesa's words. */
  lastAttempt: { state: string; resultCode: string | null; resultDesc: string | null; at: string } | null;
}

interface Row {
  id: string;
  status: PaymentRequestView["status"];
  amount_kes: number;
  description: string;
  reference: string;
  conversation_id: string | null;
  contact_id: string;
  shortcode_id: string;
  source: string;
  expires_at: Date | string;
  created_at: Date | string;
  paid_via: string | null;
  paid_receipt: string | null;
  paid_amount_kes: number | null;
  paid_phone: string | null;
  paid_at: Date | string | null;
  amount_mismatch: boolean;
  attempt_state: string | null;
  attempt_code: string | null;
  attempt_desc: string | null;
  attempt_at: Date | string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();

function view(row: Row): PaymentRequestView {
  return {
    id: row.id,
    status: row.status,
    amountKes: Number(row.amount_kes),
    description: row.description,
    reference: row.reference,
    conversationId: row.conversation_id,
    contactId: row.contact_id,
    shortcodeId: row.shortcode_id,
    source: row.source,
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    paid:
      row.status === "paid"
        ? {
            via: row.paid_via,
            receipt: row.paid_receipt,
            amountKes: row.paid_amount_kes === null ? null : Number(row.paid_amount_kes),
            phone: row.paid_phone,
            at: row.paid_at ? iso(row.paid_at) : null,
          }
        : null,
    amountMismatch: row.amount_mismatch,
    lastAttempt: row.attempt_state
      ? { state: row.attempt_state, resultCode: row.attempt_code, resultDesc: row.attempt_desc, at: iso(row.attempt_at!) }
      : null,
  };
}

const SELECT = `
  select r.id, r.status, r.amount_kes, r.description, r.reference, r.conversation_id, r.contact_id, r.shortcode_id, r.source,
         r.expires_at, r.created_at, r.paid_via, r.paid_receipt, r.paid_amount_kes, r.paid_phone, r.paid_at, r.amount_mismatch,
         a.state as attempt_state, a.result_code as attempt_code, a.result_desc as attempt_desc, a.created_at as attempt_at
  from payment_requests r
  left join lateral (select state, result_code, result_desc, created_at from payment_attempts
                     where request_id = r.id order by created_at desc limit 1) a on true`;

/** The organisation's request by id; null for an unknown id or another tenant's. */
export async function paymentRequestById(organizationId: string, id: string): Promise<PaymentRequestView | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await rawQuery<Row>(`${SELECT} where r.organization_id = $1 and r.id = $2::uuid`, [organizationId, id]);
  return row ? view(row) : null;
}

/** The organisation's requests, newest first (a conversation's, when named), a page at a time. */
export async function listPaymentRequests(
  organizationId: string,
  options: { conversationId?: string | null; status?: string | null; limit?: number; before?: string | null } = {},
): Promise<PaymentRequestView[]> {
  const rows = await rawQuery<Row>(
    `${SELECT}
     where r.organization_id = $1 and ($2::uuid is null or r.conversation_id = $2::uuid) and ($3::text is null or r.status = $3::text)
       and ($4::timestamptz is null or r.created_at < $4::timestamptz)
     order by r.created_at desc, r.id desc limit $5`,
    [organizationId, options.conversationId ?? null, options.status ?? null, options.before ?? null, Math.min(100, options.limit ?? 25)],
  );
  return rows.map(view);
}

/** The organisation's shortcodes a request may be paid to (labels only: never a credential). */
export async function shortcodeChoices(organizationId: string) {
  const rows = await rawQuery<{ id: string; label: string; is_default: boolean }>(
    `select id, label, is_default from mpesa_shortcodes where organization_id = $1 order by is_default desc, label`,
    [organizationId],
  );
  return rows.map((r) => ({ id: r.id, label: r.label, isDefault: r.is_default }));
}
