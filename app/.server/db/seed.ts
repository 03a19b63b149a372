import { count } from "drizzle-orm";
import { db } from "./client";
import { toMetaComponents, type TemplateInput } from "../../lib/templates";
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

const DEMO_TEMPLATES: TemplateInput[] = [
  {
    name: "loan_repayment_reminder",
    category: "UTILITY",
    language: "en",
    headerFormat: "TEXT",
    headerText: "Repayment due {{1}}",
    headerExample: "15 December",
    body: "Habari {{1}}, your loan repayment of KES {{2}} is due on {{3}}. Pay via M-Pesa Paybill 522522, account {{4}}.",
    bodyExamples: ["Amina", "4,500", "15 December 2026", "NYOTA-0042"],
    footer: "Nyota Sacco",
    buttons: [
      { type: "URL", text: "View statement", url: "https://nyota.co.ke/loans/{{1}}", example: "NYOTA-0042" },
      { type: "PHONE_NUMBER", text: "Call us", phone: "+254711000001" },
    ],
  },
  {
    name: "otp_verification",
    category: "AUTHENTICATION",
    language: "en",
    headerFormat: "NONE",
    bodyExamples: [],
    buttons: [],
    addSecurityRecommendation: true,
    codeExpirationMinutes: 10,
    otpType: "COPY_CODE",
    otpButtonText: "Copy code",
  },
  {
    name: "dividend_announcement_sw",
    category: "MARKETING",
    language: "sw",
    headerFormat: "NONE",
    body: "Habari {{1}}! Gawio la mwaka huu la asilimia {{2}} limetangazwa. Asante kwa kuwa mwanachama.",
    bodyExamples: ["Brian", "12"],
    footer: "Jibu STOP kujiondoa",
    buttons: [
      { type: "QUICK_REPLY", text: "Nieleze zaidi" },
      { type: "QUICK_REPLY", text: "Acha ujumbe" },
    ],
  },
];

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
  // Drafts until the demo business connects WhatsApp and submits them (Meta decides from there).
  await db()
    .insert(messageTemplates)
    .values(
      DEMO_TEMPLATES.map((input) => ({
        organizationId,
        createdBy: userId,
        name: input.name,
        category: input.category,
        language: input.language,
        status: "draft" as const,
        components: toMetaComponents(input),
      })),
    );
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
          messageType: "template",
          source: "api",
          recipientPhone: DEMO_CONTACTS[i]![1],
          recipientWaId: DEMO_CONTACTS[i]![1].slice(1),
          createdAt: hoursAgo(2 + i * 7),
          acceptedAt: hoursAgo(2 + i * 7),
          sentAt: hoursAgo(2 + i * 7),
          deliveredAt: hoursAgo(1.9 + i * 7),
          readAt: hoursAgo(1.5 + i * 7),
          pricingCategory: "utility",
          pricingType: "regular",
          billable: true,
        },
        {
          organizationId,
          contactId: contact.id,
          direction: "inbound" as const,
          status: "received",
          body: "Asante, nitalipa kesho.",
          messageType: "text",
          recipientPhone: DEMO_CONTACTS[i]![1],
          sentAt: hoursAgo(1 + i * 7),
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
