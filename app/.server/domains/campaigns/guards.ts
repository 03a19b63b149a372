import { sql } from "drizzle-orm";
import { holdQueuedMessages } from "./lifecycle";
import { wakeFeeder } from "./wake";
import { notifyCampaignPaused } from "../notifications";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";
import { m } from "~/paraglide/messages";
import { baseLocale } from "~/paraglide/runtime";
import { englishOf, words } from "../../infrastructure/words/said";

// A pause's reason is stored as Jumbe says it, in English, whoever's request paused it: the
// campaign's page says it in its reader's language (notifications/stored-words.ts), the API and the log as stored.
const stored = { locale: baseLocale } as const;

/** An activity log row for the caller's transaction to write (the webhook writer's shape). */
export interface GuardActivity {
  organizationId: string;
  type: "message";
  status: "warning";
  action: string;
  details: string;
}

/**
 * Pauses the tenant's sending and scheduled campaigns that Meta's news makes unsafe, inside the
 * webhook's transaction: their waiting messages are held at once, the reason is stored for the
 * campaign's page, and the activity log says why. Answers the log rows for the caller to write.
 */
async function pauseWhere(tx: Executor, organizationId: string, match: ReturnType<typeof sql>, reason: string): Promise<GuardActivity[]> {
  const paused = await queryRows<{ id: string; name: string; kind: string; created_by: string | null }>(
    tx,
    sql`
      update campaigns c set status = 'paused', paused_reason = ${reason}, paused_by = null, updated_at = now()
      where c.organization_id = ${organizationId} and c.status in ('sending', 'scheduled') and ${match}
      returning c.id, c.name, c.kind, c.created_by`,
  );
  const at = new Date();
  for (const campaign of paused) {
    await holdQueuedMessages(tx, campaign.id);
    await notifyCampaignPaused(tx, { organizationId, ...campaign, createdBy: campaign.created_by }, { reason, at });
  }
  if (paused.length) wakeFeeder();
  return paused.map((campaign) => ({
    organizationId,
    type: "message",
    status: "warning",
    action: `${campaign.kind === "broadcast" ? "Broadcast" : "Campaign"} paused`,
    details: englishOf(words("app_activity_detail_campaign_reason", { name: campaign.name, reason })),
  }));
}

/** The campaigns sending a template of this WhatsApp account (by name and language). */
const usesTemplate = (wabaId: string, name: string, language: string | null) => sql`
  c.template_name = ${name} and (${language}::text is null or c.template_language = ${language})
  and exists (select 1 from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
              where p.phone_number_id = c.phone_number_id and a.waba_id = ${wabaId})`;

/** Meta paused or disabled a template: its campaigns stop, and say so. */
export function pauseForTemplateStatus(
  tx: Executor,
  change: { organizationId: string; wabaId: string; name: string; language: string | null; event: string },
) {
  const disabled = change.event === "DISABLED";
  return pauseWhere(
    tx,
    change.organizationId,
    usesTemplate(change.wabaId, change.name, change.language),
    disabled
      ? m.messaging_paused_template_disabled({ name: change.name }, stored)
      : m.messaging_paused_template_paused({ name: change.name }, stored),
  );
}

/** Meta moved a template to marketing: its campaigns stop until someone checks the audience's consent and the cost. */
export function pauseForRecategorisation(
  tx: Executor,
  change: { organizationId: string; wabaId: string; name: string; language: string | null; category: string },
) {
  return pauseWhere(
    tx,
    change.organizationId,
    sql`${usesTemplate(change.wabaId, change.name, change.language)} and c.template_category <> ${change.category}`,
    change.category === "MARKETING"
      ? m.messaging_paused_recategorised_marketing({ name: change.name }, stored)
      : m.messaging_paused_recategorised({ name: change.name, category: change.category.toLowerCase() }, stored),
  );
}

/** Meta flagged the number's quality as low: its campaigns stop before the number loses its messaging limit. */
export function pauseForLowQuality(tx: Executor, phone: { organizationId: string; phoneNumberId: string; display: string }) {
  return pauseWhere(
    tx,
    phone.organizationId,
    sql`c.phone_number_id = ${phone.phoneNumberId}`,
    m.messaging_paused_low_quality({ number: phone.display }, stored),
  );
}

/** The organisation is closing: every sending and scheduled campaign stops, and says why (its owner may resume it after reopening). */
export function pauseForClosing(tx: Executor, organizationId: string, eraseOn: string) {
  return pauseWhere(tx, organizationId, sql`true`, m.messaging_paused_closing({ date: eraseOn }, stored));
}
