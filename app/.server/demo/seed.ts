import { and, count, eq } from "drizzle-orm";
import { RETENTION_LIMITS } from "~/lib/retention-limits";
import { db } from "../infrastructure/db/client";
import { toMetaComponents, type TemplateInput } from "../../lib/templates";
import {
  activityLogs,
  campaignRecipients,
  campaigns,
  contacts,
  invitations,
  messageTemplates,
  notifications,
  messages,
  organizations,
  users,
  type NotificationEvent,
} from "../infrastructure/db/schema";
import { hashPassword } from "../domains/auth/password";
import { randomToken, sha256 } from "../infrastructure/security/crypto";
import { newBusinessId } from "../domains/auth/signup";
import { env } from "../infrastructure/config/env";
import { DEMO as SANDBOX_DEMO } from "@jumbe/sandbox/meta/state";
import { stableNumericId } from "@jumbe/sandbox/meta/util";
import { seedInbox } from "./seed-inbox";
import { seedAssistant, seedAutomations } from "./seed-automations";
import { seedShop } from "./seed-shop";
import { inEnglish, type NoticeWords } from "../domains/notifications/words";
import { words } from "../infrastructure/words/said";
import { BillingHistory, seedBilling } from "./seed-billing";
import { estimateSendCost } from "../domains/billing/charging";
import { seedAdminBilling } from "./seed-admin-billing";
import { seedAnalyticsHistory } from "./seed-analytics";
import { foldAnalytics } from "../domains/analytics/fold";
import { seedAdminSystem } from "./seed-admin-system";
import { seedAdminWhatsapp } from "./seed-admin-whatsapp";
import { seedAdminTemplates } from "./seed-admin-templates";
import { seedAdminUsers } from "./seed-admin-users";
import { seedRevenueShare } from "./seed-revenue-share";
import { approvedAtSandbox, seedDemoConnection } from "./seed-demo-connection";
import { seedIntegrations } from "./seed-integrations";
import { seedPaymentShortcodes } from "./seed-payments";
import { seedPaymentRequests } from "./seed-payment-requests";
import { seedAds } from "./seed-ads";
import { seedSms } from "./seed-sms";
import { paymentTemplateInput } from "../domains/payments";
import { foldUsage } from "../domains/billing";

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

  let business: { organizationId: string; userId: string; name: string } | undefined;
  for (const account of DEMO_ACCOUNTS) {
    const [organization] = await db()
      .insert(organizations)
      .values({
        name: account.organization,
        businessId: newBusinessId(),
        status: "active",
        planType: account.usertype === "admin" ? "Enterprise" : "Starter",
        // The demo Sacco's details for invoices (Account Settings, Organisation).
        ...(account.usertype === "individual"
          ? { kraPin: "P051874263K", postalAddress: "P.O. Box 2145-20100, Nakuru", county: "Nakuru", industry: "sacco" }
          : {}),
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
    if (account.usertype === "individual") business = { organizationId: organization!.id, userId: user!.id, name: account.organization };
  }
  // One billing history for every tenant, run in date order (seed-billing.ts): the console's other
  // tenants are made first, their payments and invoices then run with the demo Sacco's.
  const history = new BillingHistory();
  await seedAdminBilling({ history });
  await seedAdminUsers({ history });
  if (business) await seedBusinessHistory(business.organizationId, business.userId, business.name, history);
  await seedAdminWhatsapp();
  // The history's figures into the analytics rollups now (the job would within seconds), so Advanced
  // Analytics is filled as soon as the server answers; the fold also credits the members' replies.
  await foldAnalytics();
  await seedAdminTemplates();
  await seedAdminSystem(DEMO_ACCOUNTS.find((a) => a.usertype === "admin")!.email);
  // The partner programme: partners who brought the console's tenants, their ledger and settlements.
  await seedRevenueShare();
  // The demo Sacco's and Mama Mboga's own tills, known to the M-Pesa sandbox (issue 76).
  await seedPaymentShortcodes();
  // The Sacco's payment requests on its till: paid, failed, expired, cancelled and open (decision 144).
  if (business) await seedPaymentRequests(business.organizationId, business.name);
  // A customer from a Click-to-WhatsApp ad whose cart she paid in the chat (issue 77): Analytics → Ads shows it.
  if (business) await seedAds(business.organizationId);
  // The Sacco's SMS through the Africa's Talking sandbox: sent, reported, and a customer's reply (decision 150).
  if (business) await seedSms(business.organizationId);
  // The demo shows its whole history: every organisation keeps it as long as the limits allow (decision
  // 165), so the daily retention job that runs when a server starts removes none of it.
  await db().update(organizations).set({
    messageRetentionDays: RETENTION_LIMITS.messages.max,
    mediaRetentionDays: RETENTION_LIMITS.media.max,
    logRetentionDays: RETENTION_LIMITS.logs.max,
  });
  // Every charge's usage into its daily rollup (decision 173: the job would within seconds).
  await foldUsage();
  return true;
}

export const DEMO_TEMPLATES: TemplateInput[] = [
  {
    name: "loan_repayment_reminder",
    category: "UTILITY",
    language: "en",
    headerFormat: "TEXT",
    headerText: "Repayment due {{1}}",
    headerExample: "15 December",
    body: "Habari {{1}}, your loan repayment of KES {{2}} is due on {{3}}. Pay via M-Pesa Paybill 522522, account {{4}}. Thank you for saving with Nyota.",
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
  {
    // The Sacco's shop, Nyota Duka (Shopify, seed-integrations.ts): members' orders confirmed on WhatsApp.
    name: "order_confirmation",
    category: "UTILITY",
    language: "en",
    headerFormat: "NONE",
    body: "Habari {{1}}, thank you for your order {{2}} from Nyota Duka. Total: KES {{3}}. We will send the tracking link when it ships.",
    bodyExamples: ["Amina", "#1042", "3,450.00"],
    footer: "Nyota Duka",
    buttons: [],
  },
  // The payment template (decision 140): a payment request outside the 24-hour window, in each language.
  ...(["en", "sw", "fr"] as const).map(paymentTemplateInput),
];

const DEMO_CONTACTS = [
  ["Amina Hassan", "+254712345678"],
  ["Brian Mwangi", "+254723456789"],
  ["Chebet Koech", "+254734567890"],
  ["David Ouma", "+254745678901"],
  ["Esther Njeri", "+254110234567"],
] as const;

// long: demo data: a business's months of history as one script, day by day, each day's rows built from the day before
async function seedBusinessHistory(organizationId: string, userId: string, businessName: string, history: BillingHistory) {
  const now = Date.now();
  // Connected to the Meta sandbox's demo number long before the history below, its templates approved there.
  const connection = await seedDemoConnection(organizationId, userId, businessName, now);
  const hoursAgo = (h: number) => new Date(now - h * 3600_000);
  const saved = await db()
    .insert(contacts)
    .values(DEMO_CONTACTS.map(([name, phone], i) => ({ organizationId, name, phone, waId: phone.slice(1), lastSeenAt: hoursAgo(i * 5) })))
    .returning({ id: contacts.id });
  // Submitted when the business connected and approved by Meta (the sandbox has them under the same ids).
  await db()
    .insert(messageTemplates)
    .values(
      DEMO_TEMPLATES.map((input) => ({
        organizationId,
        createdBy: userId,
        name: input.name,
        category: input.category,
        language: input.language,
        components: toMetaComponents(input),
        ...approvedAtSandbox(input, connection),
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
          phoneNumberId: demoSender(),
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
  await seedCampaigns(organizationId, userId, now);
  await seedTeam(organizationId, userId, now);
  const [reminder] = await db()
    .select({ id: messageTemplates.id })
    .from(messageTemplates)
    .where(and(eq(messageTemplates.organizationId, organizationId), eq(messageTemplates.name, "loan_repayment_reminder")));
  const [december] = await db()
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.organizationId, organizationId), eq(campaigns.status, "completed")));
  await seedInbox({
    organizationId,
    ownerId: userId,
    phoneNumberId: demoSender(),
    businessDigits: SANDBOX_DEMO.displayPhoneNumber.replace(/\D/g, ""),
    campaignId: december!.id,
    templateId: reminder!.id,
    now,
  });
  // The last 90 days of the core-banking system's messages and the members' answers (Advanced Analytics).
  await seedAnalyticsHistory({
    organizationId,
    ownerId: userId,
    phoneNumberId: demoSender(),
    businessDigits: SANDBOX_DEMO.displayPhoneNumber.replace(/\D/g, ""),
    now,
  });
  await seedBroadcastApproval(organizationId, now);
  await seedAutomations(organizationId, userId);
  await seedShop(organizationId, now);
  await seedAssistant(organizationId, userId, demoSender());
  await seedNotifications(organizationId, userId, now);
  // Last: it charges the template messages the seeds above stored.
  await seedBilling(organizationId, userId, now, history);
  const [orderTemplate] = await db()
    .select({ id: messageTemplates.id })
    .from(messageTemplates)
    .where(and(eq(messageTemplates.organizationId, organizationId), eq(messageTemplates.name, "order_confirmation")));
  await seedIntegrations(organizationId, userId, orderTemplate!.id, now);
  // Each campaign's estimate is what the plan charges, as the product estimates it on confirming
  // (the waiting one's now; the ones that ran were confirmed under the same prepaid price).
  for (const [status, recipients] of [
    ["awaiting_approval", NAKURU_MEMBERS],
    ["completed", NAKURU_MEMBERS],
    ["cancelled", 2],
  ] as const) {
    const estimate = await estimateSendCost(db(), organizationId, recipients);
    await db()
      .update(campaigns)
      .set({ estimatedCostCents: estimate.totalCents })
      .where(and(eq(campaigns.organizationId, organizationId), eq(campaigns.status, status)));
  }
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
        // With the other two, the day after WhatsApp was connected (before the history's first reminders).
        createdAt: hoursAgo(119 * 24),
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

// The demo's campaigns: Nakuru members, their numbers in a block of their own (+254 701 2xx xxx).
const FIRST_NAMES = [
  "Wanjiku",
  "Kiprono",
  "Achieng",
  "Mutua",
  "Njoki",
  "Cheruiyot",
  "Atieno",
  "Kamau",
  "Wambui",
  "Otieno",
  "Jepkosgei",
  "Mwangi",
  "Nyambura",
  "Kibet",
  "Akinyi",
];
const LAST_NAMES = [
  "Kariuki",
  "Langat",
  "Odhiambo",
  "Musyoka",
  "Gitau",
  "Rotich",
  "Owino",
  "Njoroge",
  "Chebet",
  "Wafula",
  "Kiplagat",
  "Nduta",
  "Ruto",
  "Omondi",
  "Maina",
  "Koros",
  "Wekesa",
];
const NAKURU_MEMBERS = 320;
/**
 * The phone number id the demo's campaigns and conversations name: the Meta sandbox's demo number
 * (its id is derived from the app id, as the sandbox derives it), so once the demo business connects
 * it on WhatsApp Setup its history is that number's.
 */
const demoSender = () => stableNumericId(`${env().META_APP_ID}:demo-phone`);

/**
 * Four campaigns so every Message Center page has something on it, as the domain would have left
 * them: a completed one to the Nakuru members (their recipients, messages and statuses), one
 * scheduled for next week, a draft and a cancelled quick broadcast. Three bulk inserts of rows.
 */
// long: demo data: four campaigns as the domain leaves them, three bulk inserts whose rows refer to one another
async function seedCampaigns(organizationId: string, userId: string, now: number) {
  const at = (hoursAgo: number) => new Date(now - hoursAgo * 3600_000);
  const members = await db()
    .insert(contacts)
    .values(
      Array.from({ length: NAKURU_MEMBERS }, (_, i) => {
        const phone = `+25470120${String(1000 + i).slice(-4)}`;
        return {
          organizationId,
          name: `${FIRST_NAMES[i % FIRST_NAMES.length]} ${LAST_NAMES[(i * 7) % LAST_NAMES.length]}`,
          phone,
          waId: phone.slice(1),
          tags: ["nakuru", "members"],
          createdAt: at(24 * 30),
        };
      }),
    )
    .returning({ id: contacts.id, phone: contacts.phone, name: contacts.name });

  const parameters = {
    header: { value: "15 December" },
    body: [{ field: "first_name", fallback: "mwanachama" }, { value: "4,500" }, { value: "15 December 2026" }, { value: "NYOTA-NKR" }],
  };
  // What happened to each of them: most read, some delivered or only sent, a few failed, some replied.
  const outcome = (i: number) => (i % 40 === 7 ? "failed" : i % 9 === 0 ? "sent" : i % 3 === 0 ? "delivered" : "read");
  const started = at(50);
  const [completed, scheduled, draft, cancelled] = await db()
    .insert(campaigns)
    .values([
      {
        organizationId,
        kind: "campaign",
        name: "December repayment reminder, Nakuru branch",
        status: "completed",
        phoneNumberId: demoSender(),
        templateName: "loan_repayment_reminder",
        templateLanguage: "en",
        templateCategory: "UTILITY",
        parameters,
        audience: { tags: ["nakuru"] },
        audienceSize: NAKURU_MEMBERS + 4,
        leftOut: { invalid_number: 1, duplicate: 3 },
        estimatedCostCents: Math.round(NAKURU_MEMBERS * (0.004 * 129.2 + 0.15) * 100),
        createdBy: userId,
        createdAt: at(52),
        updatedAt: at(49),
        startedAt: started,
        finishedAt: at(49),
      },
      {
        organizationId,
        kind: "campaign",
        name: "Gawio la mwaka: dividend notice",
        status: "scheduled",
        phoneNumberId: demoSender(),
        templateName: "dividend_announcement_sw",
        templateLanguage: "sw",
        templateCategory: "MARKETING",
        parameters: { body: [{ field: "first_name", fallback: "mwanachama" }, { value: "12" }] },
        audience: { everyone: true },
        scheduledFor: new Date(now + 7 * 24 * 3600_000),
        createdBy: userId,
        createdAt: at(6),
      },
      {
        organizationId,
        kind: "campaign",
        name: "January loan reminder (draft)",
        status: "draft",
        phoneNumberId: demoSender(),
        templateName: "loan_repayment_reminder",
        templateLanguage: "en",
        templateCategory: "UTILITY",
        parameters,
        audience: { tags: ["members"] },
        createdBy: userId,
        createdAt: at(3),
      },
      {
        organizationId,
        kind: "broadcast",
        name: "Quick broadcast: Nakuru office closed",
        status: "cancelled",
        phoneNumberId: demoSender(),
        templateName: "loan_repayment_reminder",
        templateLanguage: "en",
        templateCategory: "UTILITY",
        parameters,
        audience: { phones: ["+254701201000", "+254701201001"] },
        audienceSize: 2,
        leftOut: { cancelled: 2 },
        estimatedCostCents: 133,
        createdBy: userId,
        createdAt: at(30),
        updatedAt: at(29.9),
        startedAt: at(30),
        finishedAt: at(29.9),
      },
    ])
    .returning({ id: campaigns.id });
  void scheduled;
  void draft;

  const sentAt = (i: number) => new Date(started.getTime() + i * 250);
  const [reminder] = await db()
    .select({ id: messageTemplates.id })
    .from(messageTemplates)
    .where(and(eq(messageTemplates.organizationId, organizationId), eq(messageTemplates.name, "loan_repayment_reminder")));
  const sent = await db()
    .insert(messages)
    .values(
      members.map((member, i) => {
        const result = outcome(i);
        const first = member.name.split(" ")[0];
        return {
          organizationId,
          contactId: member.id,
          direction: "outbound" as const,
          status: result,
          body: `Habari ${first}, your loan repayment of KES 4,500 is due on 15 December 2026. Pay via M-Pesa Paybill 522522, account NYOTA-NKR. Thank you for saving with Nyota.`,
          phoneNumberId: demoSender(),
          messageType: "template",
          source: "campaign",
          recipientPhone: member.phone!,
          recipientWaId: member.phone!.slice(1),
          campaignId: completed!.id,
          templateId: reminder?.id ?? null,
          createdAt: sentAt(i),
          acceptedAt: sentAt(i),
          sentAt: result === "failed" ? null : sentAt(i),
          deliveredAt: result === "delivered" || result === "read" ? new Date(sentAt(i).getTime() + 4000) : null,
          readAt: result === "read" ? new Date(sentAt(i).getTime() + 3600_000) : null,
          failedAt: result === "failed" ? new Date(sentAt(i).getTime() + 2000) : null,
          errorCode: result === "failed" ? 131026 : null,
          errorTitle: result === "failed" ? "Message undeliverable" : null,
          pricingCategory: "utility",
          billable: result !== "failed",
        };
      }),
    )
    .returning({ id: messages.id, phone: messages.recipientPhone });
  const messageOf = new Map(sent.map((m) => [m.phone, m.id]));
  await db()
    .insert(campaignRecipients)
    .values([
      ...members.map((member, i) => ({
        campaignId: completed!.id,
        organizationId,
        phone: member.phone,
        contactId: member.id,
        state: "queued" as const,
        messageId: messageOf.get(member.phone!)!,
        repliedAt: outcome(i) === "read" && i % 5 === 1 ? new Date(sentAt(i).getTime() + 2 * 3600_000) : null,
      })),
      { campaignId: completed!.id, organizationId, phone: "0712", state: "left_out" as const, reason: "invalid_number" },
      ...["+254701201000", "+254701201001"].map((phone) => ({
        campaignId: cancelled!.id,
        organizationId,
        phone,
        state: "left_out" as const,
        reason: "cancelled",
      })),
    ]);
  // The final figures, as the campaign left them when it ended.
  const counts = { queued: 0, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0 };
  members.forEach((_, i) => {
    const result = outcome(i);
    counts.sent++;
    if (result === "failed") counts.failed++;
    if (result === "delivered" || result === "read") counts.delivered++;
    if (result === "read") counts.read++;
    if (result === "read" && i % 5 === 1) counts.replied++;
  });
  await db()
    .update(campaigns)
    .set({ counts, countedAt: at(49) })
    .where(eq(campaigns.id, completed!.id));
  await db()
    .update(campaigns)
    .set({ counts: { ...counts, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0 }, countedAt: at(29.9) })
    .where(eq(campaigns.id, cancelled!.id));
}

/**
 * The Sacco's team, so Account Settings shows one: a branch manager (admin), two agents and an
 * auditor (viewer), each with a password nobody knows (they never sign in), and one invitation
 * still open. Only the demo owner signs in.
 */
async function seedTeam(organizationId: string, ownerId: string, now: number) {
  const daysAgo = (d: number) => new Date(now - d * 24 * 3600_000);
  const unusable = await hashPassword(randomToken(24));
  const people = [
    { firstName: "Grace", lastName: "Wanjiru", email: "grace.wanjiru@nyota-sacco.demo", orgRole: "admin" as const, joined: 40, seen: 0.2 },
    { firstName: "Brian", lastName: "Otieno", email: "brian.otieno@nyota-sacco.demo", orgRole: "agent" as const, joined: 31, seen: 1 },
    { firstName: "Amina", lastName: "Hassan", email: "amina.hassan@nyota-sacco.demo", orgRole: "agent" as const, joined: 12, seen: 3 },
    { firstName: "Peter", lastName: "Kiprono", email: "peter.kiprono@nyota-sacco.demo", orgRole: "viewer" as const, joined: 5, seen: null },
  ];
  await db()
    .insert(users)
    .values(
      people.map((p) => ({
        organizationId,
        email: p.email,
        firstName: p.firstName,
        lastName: p.lastName,
        orgRole: p.orgRole,
        passwordHash: unusable,
        isVerified: true,
        createdAt: daysAgo(p.joined),
        lastLoginAt: p.seen === null ? null : daysAgo(p.seen),
      })),
    );
  await db()
    .insert(invitations)
    .values({
      organizationId,
      email: "mercy.akinyi@nyota-sacco.demo",
      role: "agent",
      tokenHash: sha256(randomToken(32)),
      invitedBy: ownerId,
      sentAt: daysAgo(2),
      createdAt: daysAgo(2),
      expiresAt: daysAgo(2 - 7),
    });
}

/**
 * The demo owner's bell: a few real-looking notifications of the last days, the newest three unread,
 * each linking where its event happened.
 */
async function seedNotifications(organizationId: string, ownerId: string, now: number) {
  const hoursAgo = (h: number) => new Date(now - h * 3600_000);
  const [done] = await db()
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.organizationId, organizationId), eq(campaigns.name, "December repayment reminder, Nakuru branch")))
    .limit(1);
  const [awaiting] = await db()
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.organizationId, organizationId), eq(campaigns.status, "awaiting_approval")))
    .limit(1);
  // Written as the emitters write them: messages, said in the reader's language, with their English.
  const rows: { event: NotificationEvent; words: NoticeWords; link: string; at: number; read: boolean }[] = [
    {
      event: "campaign_finished",
      words: {
        title: words("app_notice_campaign_finished_title", { name: "December repayment reminder, Nakuru branch" }),
        body: words("app_notice_finished_body", {
          outcome: { list: [words("app_notice_outcome_sent", { count: NAKURU_MEMBERS }), words("app_notice_outcome_none_failed")] },
        }),
      },
      link: done ? `/messaging/campaigns/${done.id}` : "/messaging",
      at: 3,
      read: false,
    },
    {
      event: "invitation",
      words: {
        title: words("app_notice_joined_title", { name: "Amina Hassan" }),
        body: words("app_notice_joined_body", { email: "amina.hassan@nyota-sacco.demo", role: words("validation_role_agent") }),
      },
      link: "/settings/team",
      at: 9,
      read: false,
    },
    {
      event: "approval_requested",
      words: {
        title: words("app_notice_campaign_approval_title", { name: "Repayment reminder, all members" }),
        body: words("app_notice_approval_body", { count: NAKURU_MEMBERS }),
      },
      link: awaiting ? `/messaging/campaigns/${awaiting.id}` : "/messaging",
      at: 2,
      read: false,
    },
    {
      event: "quality_drop",
      words: {
        title: words("app_notice_limit_lowered_title", { number: "+254 711 000 001" }),
        body: words("app_notice_limit_lowered_to_body", { limit: "TIER_1K" }),
      },
      link: "/whatsapp",
      at: 52,
      read: true,
    },
    {
      event: "new_device_sign_in",
      words: {
        title: words("app_notice_new_device_title", {
          device: words("validation_auth_device_on", { browser: "Chrome", system: "Android" }),
        }),
        body: words("app_notice_new_device_body", {
          device: words("validation_auth_device_on", { browser: "Chrome", system: "Android" }),
          ip: "41.90.64.12",
          when: { at: hoursAgo(75).toISOString() },
        }),
      },
      link: "/settings/security",
      at: 75,
      read: true,
    },
  ];
  await db()
    .insert(notifications)
    .values(
      rows.map((r) => ({
        organizationId,
        userId: ownerId,
        event: r.event,
        ...inEnglish(r.words),
        words: r.words,
        link: r.link,
        dedupeKey: `demo:${r.event}:${r.at}`,
        createdAt: hoursAgo(r.at),
        readAt: r.read ? hoursAgo(r.at - 1) : null,
      })),
    );
}

/**
 * Broadcast approval, on for more than 250 recipients, with one campaign waiting for the owner: Grace
 * (the branch manager, an admin) asked to remind all the members of their repayment on Monday
 * morning. Only the demo owner signs in, and may approve or decline it.
 */
async function seedBroadcastApproval(organizationId: string, now: number) {
  await db().update(organizations).set({ approvalThreshold: 250 }).where(eq(organizations.id, organizationId));
  const [grace] = await db().select({ id: users.id }).from(users).where(eq(users.email, "grace.wanjiru@nyota-sacco.demo"));
  const asked = new Date(now - 2 * 3600_000);
  // Next Monday, 09:00 in Nairobi (06:00 UTC).
  const monday = new Date(now);
  monday.setUTCDate(monday.getUTCDate() + ((8 - monday.getUTCDay()) % 7 || 7));
  monday.setUTCHours(6, 0, 0, 0);
  await db()
    .insert(campaigns)
    .values({
      organizationId,
      kind: "campaign",
      name: "Repayment reminder, all members",
      status: "awaiting_approval",
      phoneNumberId: demoSender(),
      templateName: "loan_repayment_reminder",
      templateLanguage: "en",
      templateCategory: "UTILITY",
      parameters: {
        header: { value: "15 January" },
        body: [{ field: "first_name", fallback: "mwanachama" }, { value: "4,500" }, { value: "15 January 2027" }, { value: "NYOTA-ALL" }],
      },
      audience: { tags: ["members"] },
      scheduledFor: monday,
      estimatedCostCents: Math.round(NAKURU_MEMBERS * (0.004 * 129.2 + 0.15) * 100),
      createdBy: grace!.id,
      createdAt: asked,
      updatedAt: asked,
    });
}
