import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { db, type Executor } from "../infrastructure/db/client";
import { contacts, conversations, messages, smsConnections, smsMessages, users } from "../infrastructure/db/schema";
import { encryptSecret, randomToken } from "../infrastructure/security/crypto";
import { chargeAccepted, chargeColumns, holdForQueued, sendPrice } from "../domains/billing";
import { smsEstimate } from "~/lib/sms-price";
import { DEMO_SMS_API_KEY, DEMO_SMS_SENDER_ID, DEMO_SMS_USERNAME } from "@jumbe/sandbox/africastalking/demo-account";

/**
 * The demo Sacco's SMS (issue 77, decision 150): its Africa's Talking connection (the sandbox's demo
 * application), a few SMS sent from the inbox with their delivery reports (delivered, failed, still
 * buffered) and a customer's SMS reply in the same conversation. Each SMS is held, accepted and
 * charged by the billing domain's own functions, so the wallet's charges equal the messages' prices
 * as real sends leave them (tests/integration/demo-seed.test.ts).
 */
interface DemoSms {
  customer: string;
  body: string;
  hoursAgo: number;
  /** AT's last delivery report. */
  report: { status: "Success" | "Failed" | "Buffered"; failureReason?: string };
  reply?: { text: string; afterMinutes: number };
}

export const DEMO_SMS: DemoSms[] = [
  {
    customer: "Mwangi Njoroge",
    body: "Habari Mwangi, your loan statement for November is ready at our Nakuru branch. Nyota Sacco",
    hoursAgo: 50,
    report: { status: "Success" },
    reply: { text: "Asante, nitapita kesho asubuhi.", afterMinutes: 25 },
  },
  {
    customer: "Njeri Wambui",
    body: "Dear Njeri, the AGM is on Saturday 12 December at 10:00 at the Nakuru ASK showground hall. Bring your member card; lunch is provided. Reply with your member number to confirm your seat. Nyota Sacco",
    hoursAgo: 30,
    report: { status: "Failed", failureReason: "UserIsInactive" },
  },
  {
    customer: "Omondi Otieno",
    body: "Omondi, your share capital top-up of KES 2,500 was received. Asante! Nyota Sacco",
    hoursAgo: 2,
    report: { status: "Buffered" },
  },
];

const STATUS_OF = { Success: "delivered", Failed: "failed", Buffered: "sent" } as const;

export async function seedSms(organizationId: string, now = Date.now()) {
  await db()
    .insert(smsConnections)
    .values({
      organizationId,
      username: DEMO_SMS_USERNAME,
      apiKeySealed: encryptSecret(DEMO_SMS_API_KEY),
      apiKeyHint: DEMO_SMS_API_KEY.slice(-4),
      senderId: DEMO_SMS_SENDER_ID,
      callbackToken: randomToken(32),
      status: "working",
      balanceText: "KES 1000.0000",
      testedAt: new Date(now - 3 * 24 * 3_600_000),
    })
    .onConflictDoNothing();
  const [owner] = await db()
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organizationId, organizationId), eq(users.orgRole, "owner")))
    .limit(1);
  for (const [i, sms] of DEMO_SMS.entries()) await seedOneSms(organizationId, owner?.id ?? null, sms, i, now);
}

async function seedOneSms(organizationId: string, sentBy: string | null, sms: DemoSms, i: number, now: number) {
  const [customer] = await db()
    .select({ contactId: contacts.id, phone: contacts.phone, conversationId: conversations.id, phoneNumberId: conversations.phoneNumberId })
    .from(contacts)
    .innerJoin(conversations, eq(conversations.contactId, contacts.id))
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.name, sms.customer)))
    .limit(1);
  if (!customer?.phone) return;
  const at = new Date(now - sms.hoursAgo * 3_600_000);
  const estimate = smsEstimate(sms.body);
  const status = STATUS_OF[sms.report.status];
  await db().transaction(async (tx) => {
    const price = { ...(await sendPrice(tx, organizationId)), priceCents: estimate.priceCents };
    await holdForQueued(tx, price, { organizationId, count: 1, description: `SMS to ${customer.phone}, ${estimate.parts} part(s)` });
    const [sent] = await tx
      .insert(messages)
      .values({
        organizationId,
        contactId: customer.contactId,
        direction: "outbound",
        status,
        body: sms.body,
        channel: "sms",
        phoneNumberId: customer.phoneNumberId,
        messageType: "text",
        source: "inbox",
        recipientPhone: customer.phone,
        sentBy,
        pricingCategory: "sms",
        attempts: 1,
        createdAt: at,
        sentAt: at,
        acceptedAt: at,
        ...(status === "delivered" ? { deliveredAt: new Date(at.getTime() + 20_000) } : {}),
        ...(status === "failed"
          ? { failedAt: new Date(at.getTime() + 60_000), errorTitle: "Failed", errorDetails: sms.report.failureReason }
          : {}),
        ...chargeColumns(price),
      })
      .returning({ id: messages.id, createdAt: sql<string>`${messages.createdAt}::text` });
    await tx.insert(smsMessages).values({
      organizationId,
      messageId: sent!.id,
      direction: "outbound",
      atMessageId: `ATXid_demo${String(i + 1).padStart(4, "0")}${"0".repeat(18)}`,
      parts: estimate.parts,
      priceCents: estimate.priceCents,
      atCost: `KES ${(0.8 * estimate.parts).toFixed(4)}`,
      reportStatus: sms.report.status,
      failureReason: sms.report.failureReason ?? null,
      networkCode: "63902",
      reportedAt: new Date(at.getTime() + 20_000),
      createdAt: at,
    });
    await chargeAccepted(tx, [sent!]);
    if (sms.reply) await seedReply(tx, organizationId, customer, sms.reply, at, i);
    await tx
      .update(conversations)
      .set({ lastMessageAt: sql`greatest(${conversations.lastMessageAt}, ${at.toISOString()}::timestamptz)` })
      .where(eq(conversations.id, customer.conversationId));
  });
}

async function seedReply(
  tx: Executor,
  organizationId: string,
  customer: { contactId: string; phone: string | null; conversationId: string; phoneNumberId: string },
  reply: NonNullable<DemoSms["reply"]>,
  sentAt: Date,
  i: number,
) {
  const at = new Date(sentAt.getTime() + reply.afterMinutes * 60_000);
  const messageId = randomUUID();
  await tx.insert(smsMessages).values({
    organizationId,
    messageId,
    direction: "inbound",
    atMessageId: String(900_001 + i),
    networkCode: "63902",
    createdAt: at,
  });
  await tx.insert(messages).values({
    id: messageId,
    organizationId,
    contactId: customer.contactId,
    direction: "inbound",
    status: "received",
    body: reply.text,
    channel: "sms",
    phoneNumberId: customer.phoneNumberId,
    messageType: "text",
    payload: { from: customer.phone, to: "40404", id: String(900_001 + i), linkId: null },
    sentAt: at,
    createdAt: at,
    // Read since: a member opened the conversation (its unread count stays the seeded one).
    readAt: new Date(at.getTime() + 10 * 60_000),
    recipientPhone: customer.phone,
  });
  await tx
    .update(conversations)
    .set({ lastMessageAt: sql`greatest(${conversations.lastMessageAt}, ${at.toISOString()}::timestamptz)` })
    .where(eq(conversations.id, customer.conversationId));
}
