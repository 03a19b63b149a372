import { count } from "drizzle-orm";
import { db } from "./client";
import { activityLogs, contacts, messageTemplates, messages, organizations, users } from "./schema";
import { hashPassword } from "../auth/password";
import { newBusinessId } from "../auth/signup";

export const DEMO_ACCOUNTS = [
  {
    label: "Platform admin",
    email: "admin@jumbe.demo",
    password: "JumbeAdmin#2026",
    usertype: "admin" as const,
    firstName: "Wanjiru",
    lastName: "Kamau",
    organization: "Jumbe Platform",
  },
  {
    label: "Business account",
    email: "demo@jumbe.demo",
    password: "JumbeDemo#2026",
    usertype: "individual" as const,
    firstName: "Otieno",
    lastName: "Achieng",
    organization: "Nyota Savings Sacco",
  },
];

/** Fills an empty database with the demo admin, a demo business and realistic history. */
export async function seedDemoData() {
  const [existing] = await db().select({ value: count() }).from(users);
  if ((existing?.value ?? 0) > 0) return false;

  for (const account of DEMO_ACCOUNTS) {
    const [organization] = await db()
      .insert(organizations)
      .values({
        name: account.organization,
        businessId: newBusinessId(),
        status: "active",
        planType: account.usertype === "admin" ? "Enterprise" : "Starter",
      })
      .returning();
    const [user] = await db()
      .insert(users)
      .values({
        organizationId: organization!.id,
        email: account.email,
        firstName: account.firstName,
        lastName: account.lastName,
        phoneNumber: account.usertype === "admin" ? "+254711000001" : "+254722000002",
        usertype: account.usertype,
        passwordHash: await hashPassword(account.password),
        isVerified: true,
      })
      .returning();
    if (account.usertype === "individual") await seedBusinessHistory(organization!.id, user!.id);
  }
  return true;
}

const DEMO_CONTACTS = [
  ["Amina Hassan", "+254712345678"],
  ["Brian Mwangi", "+254723456789"],
  ["Chebet Koech", "+254734567890"],
  ["David Ouma", "+254745678901"],
  ["Esther Njeri", "+254110234567"],
] as const;

async function seedBusinessHistory(organizationId: string, userId: string) {
  const now = Date.now();
  const hoursAgo = (h: number) => new Date(now - h * 3600_000);
  const saved = await db()
    .insert(contacts)
    .values(DEMO_CONTACTS.map(([name, phone], i) => ({ organizationId, name, phone, waId: phone.slice(1), lastSeenAt: hoursAgo(i * 5) })))
    .returning({ id: contacts.id });
  await db()
    .insert(messageTemplates)
    .values([
      {
        organizationId,
        name: "loan_repayment_reminder",
        category: "Transactional",
        language: "English",
        status: "approved",
        body: "Habari {{1}}, your loan repayment of KES {{2}} is due on {{3}}.",
      },
      {
        organizationId,
        name: "otp_verification",
        category: "OTP",
        language: "English",
        status: "approved",
        body: "Your Nyota verification code is {{1}}.",
      },
      {
        organizationId,
        name: "dividend_announcement_sw",
        category: "Marketing",
        language: "Swahili",
        status: "pending",
        body: "Habari {{1}}! Gawio la mwaka huu limetangazwa.",
      },
    ]);
  await db()
    .insert(messages)
    .values(
      saved.flatMap((contact, i) => [
        {
          organizationId,
          contactId: contact.id,
          direction: "outbound" as const,
          status: "read",
          body: "Habari! Your loan repayment is due on Friday.",
          createdAt: hoursAgo(2 + i * 7),
        },
        {
          organizationId,
          contactId: contact.id,
          direction: "inbound" as const,
          status: "received",
          body: "Asante, nitalipa kesho.",
          createdAt: hoursAgo(1 + i * 7),
        },
      ]),
    );
  await db()
    .insert(activityLogs)
    .values([
      {
        organizationId,
        userId,
        type: "template",
        status: "success",
        action: "Template approved",
        details: "loan_repayment_reminder was approved",
        createdAt: hoursAgo(30),
      },
      {
        organizationId,
        userId,
        type: "message",
        status: "success",
        action: "Messages sent",
        details: "5 repayment reminders sent",
        createdAt: hoursAgo(3),
      },
      {
        organizationId,
        userId,
        type: "system",
        status: "success",
        action: "Demo data loaded",
        details: "Sample contacts, templates and messages",
        createdAt: hoursAgo(48),
      },
    ]);
}
