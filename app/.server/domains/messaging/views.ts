/** A message as the API and the pages show it. */
export interface MessageView {
  id: string;
  status: "queued" | "sent" | "delivered" | "read" | "failed" | "received";
  direction: "outbound" | "inbound";
  /** WhatsApp, or SMS through Africa's Talking (issue 77). */
  channel: "whatsapp" | "sms";
  type: string;
  /** E.164 of the customer (outbound) or of the business number (inbound). */
  to: string | null;
  from: string | null;
  phoneNumberId: string | null;
  text: string;
  wamid: string | null;
  error: { code: string; message: string } | null;
  pricing: { category: string | null; type: string | null; billable: boolean | null } | null;
  createdAt: string;
  acceptedAt: string | null;
  sentAt: string | null;
  deliveredAt: string | null;
  readAt: string | null;
  failedAt: string | null;
}

const iso = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string).toISOString());
const str = (value: unknown) => (value === null || value === undefined ? null : String(value));

/**
 * Meta's error in the API's shape: `meta_<code>` with Meta's title and details in words, or
 * Jumbe's own code when it gave up before Meta (error_code null, error_title the code).
 */
export function messageError(row: Record<string, unknown>): MessageView["error"] {
  if (row.error_code === null && !row.error_title) return null;
  const code = row.error_code === null || row.error_code === undefined ? String(row.error_title) : `meta_${row.error_code}`;
  const words = [row.error_title, row.error_details].filter((w) => typeof w === "string" && w).join(": ");
  return { code, message: row.error_code === null ? String(row.error_details ?? "") : words || `Meta error ${String(row.error_code)}` };
}

/** One `messages` row (snake_case, as the driver returns it) as the API shows it. */
export function messageView(row: Record<string, unknown>, businessNumber: string | null): MessageView {
  const outbound = row.direction === "outbound";
  // Meta's pricing once a status reported it (its type or billable), else null; a message's own
  // category before then is no pricing. Webhooks out build the same (webhooks-out/events.ts).
  const pricing =
    row.pricing_type || (row.billable !== null && row.billable !== undefined)
      ? { category: str(row.pricing_category), type: str(row.pricing_type), billable: (row.billable as boolean | null) ?? null }
      : null;
  return {
    id: String(row.id),
    status: row.status as MessageView["status"],
    direction: outbound ? "outbound" : "inbound",
    channel: row.channel === "sms" ? "sms" : "whatsapp",
    type: String(row.message_type),
    to: outbound ? str(row.recipient_phone) : businessNumber,
    from: outbound ? businessNumber : str(row.recipient_phone),
    phoneNumberId: str(row.phone_number_id),
    text: String(row.body ?? ""),
    wamid: str(row.wamid),
    error: messageError(row),
    pricing: pricing && (pricing.type || pricing.billable !== null) ? pricing : null,
    createdAt: iso(row.created_at)!,
    acceptedAt: iso(row.accepted_at),
    sentAt: iso(row.sent_at),
    deliveredAt: iso(row.delivered_at),
    readAt: iso(row.read_at),
    failedAt: iso(row.failed_at),
  };
}
