import { and, eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { messages, smsMessages } from "../../infrastructure/db/schema";
import { smsConnectionOf } from "./connection";
import { contactByPhone, conversationForSms } from "./conversation";
import { refuseSms, SMS_REFUSALS } from "./refusals";
import { queueSmsIn } from "./send";
import { smsEstimate } from "~/lib/sms-price";

/** An SMS as the public API answers it (issue 77, decision 150): what it costs and where it stands. */
export interface ApiSms {
  id: string;
  to: string;
  text: string;
  status: "queued" | "sent" | "delivered" | "failed";
  encoding: "GSM-7" | "UCS-2";
  parts: number;
  priceCents: number;
  currency: "KES";
  contactId: string | null;
  report: { status: string; failureReason: string | null; networkCode: string | null; at: string } | null;
  error: string | null;
  source: string | null;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
}

const STATUSES = ["queued", "sent", "delivered", "failed"] as const;
const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
const iso = (at: Date | string | null) => (at === null ? null : new Date(at).toISOString());

/**
 * POST /api/v1/sms: an SMS to a number, stored in the contact's conversation (the contact and the
 * conversation made when new, as an incoming SMS does), through the inbox's checks (queueSmsIn).
 */
export async function queueApiSms(organizationId: string, input: { to: string; text: string }, now: Date = new Date()): Promise<ApiSms> {
  if (!(await smsConnectionOf(organizationId))) throw refuseSms(409, "not_connected", SMS_REFUSALS.notConnected);
  const messageId = await db().transaction(async (tx) => {
    const contact = await contactByPhone(tx, organizationId, input.to);
    const conversation = await conversationForSms(tx, organizationId, contact.id);
    return queueSmsIn(
      tx,
      organizationId,
      { id: conversation.id, phoneNumberId: conversation.phoneNumberId, contactId: contact.id, phone: input.to, optIn: contact.optIn },
      { body: input.text, source: "api", sentBy: null },
      now,
    );
  });
  return (await apiSmsById(organizationId, messageId))!;
}

/** GET /api/v1/sms/{id}: an SMS the organisation sent, or undefined (another tenant's, a WhatsApp message's, unknown). */
export async function apiSmsById(organizationId: string, id: string): Promise<ApiSms | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await db()
    .select({ message: messages, sms: smsMessages })
    .from(messages)
    .leftJoin(smsMessages, and(eq(smsMessages.messageId, messages.id), eq(smsMessages.direction, "outbound")))
    .where(
      and(
        eq(messages.organizationId, organizationId),
        eq(messages.id, id),
        eq(messages.channel, "sms"),
        eq(messages.direction, "outbound"),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  const { message, sms } = row;
  const estimate = smsEstimate(message.body);
  return {
    id: message.id,
    to: message.recipientPhone ?? "",
    text: message.body,
    status: STATUSES.find((status) => status === message.status) ?? "queued",
    encoding: estimate.encoding,
    parts: sms?.parts ?? estimate.parts,
    priceCents: sms?.priceCents ?? estimate.priceCents,
    currency: "KES",
    contactId: message.contactId,
    report:
      sms?.reportStatus && sms.reportedAt
        ? { status: sms.reportStatus, failureReason: sms.failureReason, networkCode: sms.networkCode, at: iso(sms.reportedAt)! }
        : null,
    error: message.status === "failed" ? (message.errorDetails ?? message.errorTitle) : null,
    source: message.source,
    createdAt: iso(message.createdAt)!,
    sentAt: iso(message.sentAt),
    deliveredAt: iso(message.deliveredAt),
    failedAt: iso(message.failedAt),
  };
}
