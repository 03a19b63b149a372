import { sql } from "drizzle-orm";
import { db } from "./client";
import { organizations, users, whatsappAccounts, whatsappPhoneNumbers } from "./schema";
import { hashPassword } from "../auth/password";
import { newBusinessId } from "../auth/signup";
import { encryptSecret, randomToken } from "../security/crypto";

/**
 * The admin console's WhatsApp tab in the demo: five Kenyan businesses that connected WhatsApp
 * (healthy, a number in medium quality asked to reconnect, a token Meta refused, two numbers on a
 * high tier, one disconnected), each with this month's messages in the daily rollup, the webhooks
 * Meta delivered for its WABA and the Graph calls Jumbe made. Their tokens are not the sandbox's,
 * so Test Connection on them shows Meta's refusal (190); an account connected through the sandbox
 * (the demo tenant's, once connected) answers.
 */

interface DemoAccount {
  business: string;
  owner: { firstName: string; lastName: string; email: string };
  plan: string;
  wabaId: string;
  numbers: { id: string; display: string; name: string; quality: string; limit: string }[];
  connectedDaysAgo: number;
  state: "connected" | "reconnect" | "refused" | "disconnected";
  /** Messages sent and received per day this month. */
  perDay: [number, number];
}

const ACCOUNTS: DemoAccount[] = [
  {
    business: "Mama Mboga Fresh Ltd",
    owner: { firstName: "Njeri", lastName: "Mwangi", email: "njeri@mamamboga.demo" },
    plan: "Growth",
    wabaId: "104871265530912",
    numbers: [{ id: "109823746510234", display: "+254 712 345 678", name: "Mama Mboga Fresh", quality: "GREEN", limit: "TIER_1K" }],
    connectedDaysAgo: 94,
    state: "connected",
    perDay: [420, 180],
  },
  {
    business: "Umoja Microfinance Bank",
    owner: { firstName: "Kevin", lastName: "Ochieng", email: "kevin.ochieng@umoja-mfb.demo" },
    plan: "Enterprise",
    wabaId: "112093847561203",
    numbers: [
      { id: "118273645509871", display: "+254 709 880 100", name: "Umoja MFB", quality: "GREEN", limit: "TIER_100K" },
      { id: "118273645509872", display: "+254 709 880 200", name: "Umoja MFB Loans", quality: "GREEN", limit: "TIER_10K" },
    ],
    connectedDaysAgo: 210,
    state: "connected",
    perDay: [5200, 1400],
  },
  {
    business: "Kilimo Bora Agrovet",
    owner: { firstName: "Wafula", lastName: "Simiyu", email: "wafula@kilimobora.demo" },
    plan: "Starter",
    wabaId: "120394857612034",
    numbers: [{ id: "126354789012345", display: "+254 723 456 789", name: "Kilimo Bora", quality: "YELLOW", limit: "TIER_250" }],
    connectedDaysAgo: 41,
    state: "reconnect",
    perDay: [60, 35],
  },
  {
    business: "Pwani Tours & Safaris",
    owner: { firstName: "Aisha", lastName: "Mohamed", email: "aisha@pwanitours.demo" },
    plan: "Growth",
    wabaId: "131209384756120",
    numbers: [{ id: "137485960123456", display: "+254 741 222 333", name: "Pwani Tours", quality: "GREEN", limit: "TIER_1K" }],
    connectedDaysAgo: 130,
    state: "refused",
    perDay: [90, 70],
  },
  {
    business: "Nairobi Smile Dental Clinic",
    owner: { firstName: "Faith", lastName: "Kendi", email: "faith.kendi@nairobismile.demo" },
    plan: "Starter",
    wabaId: "142938475610293",
    numbers: [{ id: "148596071234567", display: "+254 733 909 090", name: "Nairobi Smile", quality: "UNKNOWN", limit: "TIER_250" }],
    connectedDaysAgo: 300,
    state: "disconnected",
    perDay: [0, 0],
  },
];

export async function seedAdminWhatsapp(now = Date.now()) {
  const daysAgo = (d: number) => new Date(now - d * 24 * 3600_000);
  const unusable = await hashPassword(randomToken(24));
  for (const demo of ACCOUNTS) {
    const [organization] = await db()
      .insert(organizations)
      .values({
        name: demo.business,
        businessId: newBusinessId(),
        status: "active",
        planType: demo.plan,
        createdAt: daysAgo(demo.connectedDaysAgo + 3),
      })
      .returning({ id: organizations.id });
    const organizationId = organization!.id;
    await db()
      .insert(users)
      .values({ organizationId, ...demo.owner, passwordHash: unusable, isVerified: true, createdAt: daysAgo(demo.connectedDaysAgo + 3) });
    const disconnected = demo.state === "disconnected";
    const [account] = await db()
      .insert(whatsappAccounts)
      .values({
        organizationId,
        wabaId: demo.wabaId,
        businessId: String(BigInt(demo.wabaId) + 7n),
        name: demo.business,
        status: disconnected ? "disconnected" : "connected",
        accessTokenEncrypted: encryptSecret(`EAAG${randomToken(24)}`),
        subscribed: !disconnected,
        connectedAt: daysAgo(demo.connectedDaysAgo),
        disconnectedAt: disconnected ? daysAgo(12) : null,
        tokenRefusedAt: demo.state === "refused" ? daysAgo(2) : null,
        tokenRefusal:
          demo.state === "refused" ? "(#190/460) The session has been invalidated because the user changed their password" : null,
        reconnectRequestedAt: demo.state === "reconnect" ? daysAgo(1) : null,
        reconnectReason:
          demo.state === "reconnect" ? "Quality dropped to medium after customer blocks: reconnect to refresh the number's settings" : null,
        accountEvent: "VERIFIED_ACCOUNT",
        accountEventAt: daysAgo(demo.connectedDaysAgo),
      })
      .returning({ id: whatsappAccounts.id });
    const accountId = account!.id;
    await db()
      .insert(whatsappPhoneNumbers)
      .values(
        demo.numbers.map((n) => ({
          organizationId,
          accountId,
          phoneNumberId: n.id,
          displayPhoneNumber: n.display,
          phoneDigits: n.display.replace(/\D/g, ""),
          verifiedName: n.name,
          qualityRating: n.quality,
          status: "CONNECTED",
          platformType: "CLOUD_API",
          messagingLimit: n.limit,
          registeredAt: daysAgo(demo.connectedDaysAgo),
          disconnectedAt: disconnected ? daysAgo(12) : null,
        })),
      );
    await seedActivity(organizationId, accountId, demo, now);
  }
}

/** This month's messages per day in the rollup, the month's webhooks for the WABA, and Jumbe's Graph calls. */
async function seedActivity(organizationId: string, accountId: string, demo: DemoAccount, now: number) {
  const [sent, received] = demo.perDay;
  if (sent + received > 0)
    for (const [index, number] of demo.numbers.entries()) {
      const share = index === 0 ? 1 : 0.35;
      await db().execute(sql`
        insert into message_stats_daily (organization_id, day, phone_number_id, category, sent, delivered, read, received)
        select ${organizationId}, d::date, ${number.id}, 'utility', ${Math.round(sent * share)}, ${Math.round(sent * share * 0.96)},
               ${Math.round(sent * share * 0.7)}, ${Math.round(received * share)}
        from generate_series(date_trunc('month', now() at time zone 'Africa/Nairobi'), now() at time zone 'Africa/Nairobi', interval '1 day') d`);
    }
  if (demo.state === "disconnected") return;
  const number = demo.numbers[0]!;
  const hours = demo.state === "refused" ? [50, 54, 60] : [0.2, 1, 3, 8, 26];
  for (const [i, hoursAgo] of hours.entries()) {
    const at = new Date(now - hoursAgo * 3600_000);
    const field = i % 2 ? "messages" : "statuses";
    const value =
      field === "statuses"
        ? {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: number.display.replace(/\D/g, ""), phone_number_id: number.id },
            statuses: [],
          }
        : {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: number.display.replace(/\D/g, ""), phone_number_id: number.id },
            messages: [],
          };
    const body = JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: demo.wabaId, changes: [{ field, value }] }] });
    await db().execute(sql`
      insert into webhook_events (body, signature, received_at, processed_at, outcome)
      values (${body}, 'sha256=seeded', ${at.toISOString()}, ${at.toISOString()}, 'processed')`);
  }
  // The call log keeps 30 days: the connection's own calls are older, these are the last weeks' syncs.
  const calls: [string, string, number, number, string | null, number][] = [
    ["POST", `/${demo.wabaId}/subscribed_apps`, 200, 212, null, 25 * 24],
    ["GET", `/${demo.wabaId}/phone_numbers`, 200, 148, null, 25 * 24],
    ["GET", `/${demo.wabaId}/message_templates`, 200, 305, null, 20],
    ["GET", `/${number.id}`, 200, 96, null, 6],
  ];
  if (demo.state === "refused")
    calls.push([
      "GET",
      `/${demo.wabaId}/message_templates`,
      401,
      88,
      "Meta answered template.list: (#190/460) Error validating access token",
      48,
    ]);
  for (const [method, path, status, durationMs, error, hoursAgo] of calls)
    await db().execute(sql`
      insert into graph_call_log (organization_id, account_id, waba_id, method, path, status, duration_ms, error, origin, created_at)
      values (${organizationId}, ${accountId}, ${demo.wabaId}, ${method}, ${path}, ${status}, ${durationMs}, ${error}, 'engine',
              ${new Date(now - hoursAgo * 3600_000).toISOString()})`);
}
