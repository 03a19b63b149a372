import { eq } from "drizzle-orm";
import { db, rawQuery } from "../infrastructure/db/client";
import {
  organizations,
  whatsappAccounts,
  whatsappPhoneNumbers,
  whatsappRegistrationPins,
  whatsappSignupAttempts,
} from "../infrastructure/db/schema";
import { encryptSecret } from "../infrastructure/security/crypto";
import { env } from "../infrastructure/config/env";
import { toMetaComponents, type TemplateInput } from "../../lib/templates";
import { DEMO as SANDBOX_DEMO } from "@jumbe/sandbox/meta/state";
import {
  businessDemoIds,
  businessDemoPin,
  businessDemoTemplateId,
  businessDemoToken,
  type DemoConnection,
} from "@jumbe/sandbox/meta/business-demo";

/**
 * The demo business connected to the Meta sandbox's demo number, as a completed Embedded Signup
 * leaves it: the account with its token (encrypted, as Jumbe stores every token), subscribed, the
 * number registered with its PIN, the attempt that connected it. Ids, token and PIN are the ones the
 * sandbox derives from the app id (sandbox/meta/business-demo.ts), so the sandbox started with
 * `demoConnectionForSandbox()` agrees: sending works end to end.
 */

export const DEMO_VERIFIED_NAME = "Nyota Sacco";
const DAY = 24 * 3600_000;
/** Connected before the oldest history the demo shows (90 days of analytics). */
const CONNECTED_DAYS_AGO = 120;

export async function seedDemoConnection(organizationId: string, userId: string, businessName: string, now: number) {
  const appId = env().META_APP_ID;
  const ids = businessDemoIds(appId);
  const connectedAt = new Date(now - CONNECTED_DAYS_AGO * DAY);
  const [account] = await db()
    .insert(whatsappAccounts)
    .values({
      organizationId,
      wabaId: ids.wabaId,
      businessId: ids.businessId,
      name: businessName,
      status: "connected",
      accessTokenEncrypted: encryptSecret(businessDemoToken(appId)),
      subscribed: true,
      connectedAt,
      accountEvent: "VERIFIED_ACCOUNT",
      accountEventAt: connectedAt,
      createdAt: connectedAt,
    })
    .returning({ id: whatsappAccounts.id });
  const display = SANDBOX_DEMO.displayPhoneNumber;
  await db()
    .insert(whatsappPhoneNumbers)
    .values({
      organizationId,
      accountId: account!.id,
      phoneNumberId: ids.phoneNumberId,
      displayPhoneNumber: display,
      phoneDigits: display.replace(/\D/g, ""),
      verifiedName: DEMO_VERIFIED_NAME,
      qualityRating: "GREEN",
      status: "CONNECTED",
      platformType: "CLOUD_API",
      messagingLimit: "TIER_1K",
      registeredAt: connectedAt,
      createdAt: connectedAt,
    });
  await db()
    .insert(whatsappRegistrationPins)
    .values({ phoneNumberId: ids.phoneNumberId, organizationId, pinEncrypted: encryptSecret(businessDemoPin(appId)) });
  await db()
    .insert(whatsappSignupAttempts)
    .values({ organizationId, userId, wabaId: ids.wabaId, outcome: "connected", createdAt: connectedAt });
  await db()
    .update(organizations)
    .set({ whatsappNumber: `+${display.replace(/\D/g, "")}` })
    .where(eq(organizations.id, organizationId));
  return { accountId: account!.id, wabaId: ids.wabaId, phoneNumberId: ids.phoneNumberId, connectedAt };
}

/** A demo template's columns once Meta approved it at the sandbox, under the id the sandbox gives it. */
export function approvedAtSandbox(input: TemplateInput, connection: { accountId: string; wabaId: string; connectedAt: Date }) {
  const approvedAt = new Date(connection.connectedAt.getTime() + DAY);
  return {
    accountId: connection.accountId,
    wabaId: connection.wabaId,
    metaTemplateId: businessDemoTemplateId(env().META_APP_ID, input.name, input.language),
    status: "approved" as const,
    qualityScore: "GREEN",
    metaEvent: "APPROVED",
    metaEventAt: approvedAt,
    submittedAt: connection.connectedAt,
    syncedAt: approvedAt,
    createdAt: connection.connectedAt,
    updatedAt: approvedAt,
  };
}

/**
 * What the Meta sandbox of sandbox mode needs to agree with the seeded demo: the tenant's names, its
 * approved templates in Meta's shape, and the customers who wrote to the demo number in the last
 * 24 hours (read from the database, so their windows are open at the sandbox as they are in Jumbe).
 * Undefined when no tenant holds the demo WABA connected (a database seeded before this connection).
 */
export async function demoConnectionForSandbox(templates: TemplateInput[]): Promise<DemoConnection | undefined> {
  const ids = businessDemoIds(env().META_APP_ID);
  const [tenant] = await rawQuery<{ name: string }>(
    `select o.name from whatsapp_accounts a join organizations o on o.id = a.organization_id
     where a.waba_id = $1 and a.status = 'connected' and a.access_token_encrypted is not null`,
    [ids.wabaId],
  );
  if (!tenant) return undefined;
  const businessName = tenant.name;
  const wrote = await rawQuery<{ wa_id: string; wamid: string; at: Date | string }>(
    `select coalesce(c.wa_id, ltrim(c.phone, '+')) as wa_id, m.wamid, coalesce(m.sent_at, m.created_at) as at
     from messages m join contacts c on c.id = m.contact_id
     where m.phone_number_id = $1 and m.direction = 'inbound' and m.wamid is not null
       and coalesce(m.sent_at, m.created_at) > now() - interval '24 hours'
     order by at`,
    [ids.phoneNumberId],
  );
  return {
    businessName,
    verifiedName: DEMO_VERIFIED_NAME,
    templates: templates.map((t) => ({ name: t.name, language: t.language, category: t.category, components: toMetaComponents(t) })),
    customersWrote: wrote.map((w) => ({ waId: w.wa_id, wamid: w.wamid, at: new Date(w.at).getTime() })),
  };
}
