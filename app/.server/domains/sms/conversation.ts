import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { contacts, conversations, whatsappPhoneNumbers } from "../../infrastructure/db/schema";
import { SMS_ONLY_NUMBER } from "~/lib/sms-only";

/**
 * Where an SMS lives in the inbox (decision 148): the contact's latest conversation, whatever number
 * it is on, so a customer's SMS and WhatsApp messages read as one thread. A customer who has none
 * gets one on the organisation's first WhatsApp number, or, with no number connected, on the
 * pseudo-number `sms` (conversations are keyed by number and contact).
 */
export { SMS_ONLY_NUMBER };

/** The organisation's contact with this number, created (named by the number) when there is none. */
export async function contactByPhone(tx: Executor, organizationId: string, phone: string): Promise<{ id: string; optIn: string }> {
  const find = async () =>
    (
      await tx
        .select({ id: contacts.id, optIn: contacts.optIn })
        .from(contacts)
        .where(and(eq(contacts.organizationId, organizationId), eq(contacts.phone, phone)))
        .limit(1)
    )[0];
  const found = await find();
  if (found) return found;
  await tx
    .insert(contacts)
    .values({ organizationId, name: phone, phone })
    .onConflictDoNothing({ target: [contacts.organizationId, contacts.phone], where: sql`phone is not null` });
  return (await find())!;
}

/** The contact's conversation for an SMS (see above): its id and number. */
export async function conversationForSms(
  tx: Executor,
  organizationId: string,
  contactId: string,
): Promise<{ id: string; phoneNumberId: string }> {
  const [latest] = await tx
    .select({ id: conversations.id, phoneNumberId: conversations.phoneNumberId })
    .from(conversations)
    .where(and(eq(conversations.organizationId, organizationId), eq(conversations.contactId, contactId)))
    .orderBy(desc(conversations.lastMessageAt), desc(conversations.id))
    .limit(1);
  if (latest) return latest;
  const [number] = await tx
    .select({ phoneNumberId: whatsappPhoneNumbers.phoneNumberId })
    .from(whatsappPhoneNumbers)
    .where(and(eq(whatsappPhoneNumbers.organizationId, organizationId), isNull(whatsappPhoneNumbers.disconnectedAt)))
    .orderBy(asc(whatsappPhoneNumbers.createdAt))
    .limit(1);
  const phoneNumberId = number?.phoneNumberId ?? SMS_ONLY_NUMBER;
  await tx.insert(conversations).values({ organizationId, contactId, phoneNumberId }).onConflictDoNothing();
  const [made] = await tx
    .select({ id: conversations.id, phoneNumberId: conversations.phoneNumberId })
    .from(conversations)
    .where(
      and(
        eq(conversations.organizationId, organizationId),
        eq(conversations.contactId, contactId),
        eq(conversations.phoneNumberId, phoneNumberId),
      ),
    )
    .limit(1);
  return made!;
}
