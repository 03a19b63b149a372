import { sql } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { organizations, users, whatsappAccounts, whatsappPhoneNumbers } from "../infrastructure/db/schema";
import { hashPassword } from "../domains/auth/password";
import { newBusinessId } from "../domains/auth/signup";
import { encryptSecret, randomToken } from "../infrastructure/security/crypto";
import { env } from "../infrastructure/config/env";
import {
  CONSOLE_DEMO_ACCOUNTS,
  CONSOLE_DEMO_TENANT_ACCOUNTS,
  consoleDemoIds,
  consoleDemoToken,
  type ConsoleDemoAccount,
} from "@jumbe/sandbox/meta/console-demo";

/**
 * The admin console's WhatsApp tab in the demo: five Kenyan businesses that connected WhatsApp
 * (healthy, a number in medium quality asked to reconnect, a token Meta refused, two numbers on a
 * high tier, one disconnected), each with this month's messages in the daily rollup, the webhooks
 * Meta delivered for its WABA and the Graph calls Jumbe made. The accounts, their ids and tokens
 * are the sandbox's console demo (sandbox/meta/console-demo.ts, derived from the app id on both
 * sides): Test Connection on a healthy one answers with the WABA's name, on the refused one Meta's 190.
 */

/** A console demo account with its ids at Meta (derived from the app id, as the sandbox derives them). */
type DemoAccount = Omit<ConsoleDemoAccount, "numbers"> & {
  wabaId: string;
  businessId: string;
  token: string;
  numbers: (ConsoleDemoAccount["numbers"][number] & { id: string })[];
};

function demoAccounts(accounts: ConsoleDemoAccount[] = CONSOLE_DEMO_ACCOUNTS): DemoAccount[] {
  const appId = env().META_APP_ID;
  return accounts.map((account) => {
    const ids = consoleDemoIds(appId, account);
    return {
      ...account,
      wabaId: ids.wabaId,
      businessId: ids.businessId,
      token: consoleDemoToken(appId, account),
      numbers: account.numbers.map((n, i) => ({ ...n, id: ids.phoneNumberIds[i]! })),
    };
  });
}

export async function seedAdminWhatsapp(now = Date.now()) {
  const daysAgo = (d: number) => new Date(now - d * 24 * 3600_000);
  const unusable = await hashPassword(randomToken(24));
  for (const demo of demoAccounts()) {
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
    const accountId = await connectAccount(organizationId, demo, now);
    await seedActivity(organizationId, accountId, demo, now);
  }
}

/** Stores `demo` as `organizationId`'s WhatsApp account with its numbers (as the sandbox knows them); answers its id. */
async function connectAccount(organizationId: string, demo: DemoAccount, now: number) {
  const daysAgo = (d: number) => new Date(now - d * 24 * 3600_000);
  const disconnected = demo.state === "disconnected";
  const [account] = await db()
    .insert(whatsappAccounts)
    .values({
      organizationId,
      wabaId: demo.wabaId,
      businessId: demo.businessId,
      name: demo.business,
      status: disconnected ? "disconnected" : "connected",
      accessTokenEncrypted: encryptSecret(demo.token),
      subscribed: !disconnected,
      connectedAt: daysAgo(demo.connectedDaysAgo),
      disconnectedAt: disconnected ? daysAgo(12) : null,
      tokenRefusedAt: demo.state === "refused" ? daysAgo(2) : null,
      tokenRefusal: demo.state === "refused" ? "(#190/460) The session has been invalidated because the user changed their password" : null,
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
  return accountId;
}

/**
 * The console's other demo tenants' accounts (CONSOLE_DEMO_TENANT_ACCOUNTS), connected to the
 * organisations of the same names: answers each business's account id and first number's id.
 */
export async function connectTenantAccounts(organizations: Map<string, string>, now = Date.now()) {
  const connected = new Map<string, { accountId: string; phoneNumberId: string }>();
  for (const demo of demoAccounts(CONSOLE_DEMO_TENANT_ACCOUNTS)) {
    const organizationId = organizations.get(demo.business);
    if (!organizationId) continue;
    const accountId = await connectAccount(organizationId, demo, now);
    connected.set(demo.business, { accountId, phoneNumberId: demo.numbers[0]!.id });
  }
  return connected;
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
      // The same messages as the plan's charges count them: "Messages this month" on every tab reads these.
      await db().execute(sql`
        insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
        select ${organizationId}, d::date, ${number.id}, 'utility', ${Math.round(sent * share)}, 0
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
