import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { smsConnections } from "../../infrastructure/db/schema";
import type { CampaignSmsFallback } from "../../infrastructure/db/schema/campaigns";
import type { PreparedTemplate } from "../messaging";
import { refuseCampaign } from "./refusals";
import { FALLBACK_AFTER_DEFAULT, FALLBACK_AFTER_MAX, FALLBACK_AFTER_MIN } from "~/lib/sms-fallback";
import { SMS_MAX_LENGTH } from "~/lib/sms-price";
import { m } from "~/paraglide/messages";

/** The fallback as a campaign's input gives it: off (null or absent), the tenant's own text, or the template's. */
export interface SmsFallbackInput {
  mode: "own" | "message";
  text?: string;
  afterMinutes?: number;
}

/**
 * Checks a campaign's SMS fallback (decision 152) against its template: its own text (the template's
 * placeholders allowed) or the template's body, each at most an SMS's longest; "not delivered within"
 * a whole number of minutes in bounds. Answers what the campaign stores, or null (off).
 */
export async function checkSmsFallback(
  organizationId: string,
  given: SmsFallbackInput | null | undefined,
  template: PreparedTemplate,
): Promise<CampaignSmsFallback | null> {
  if (!given) return null;
  if (!(await hasSmsConnection(organizationId)))
    throw refuseCampaign(409, "invalid_campaign", m.sms_fallback_not_connected(), "smsFallback");
  const afterMinutes = given.afterMinutes ?? FALLBACK_AFTER_DEFAULT;
  if (!Number.isInteger(afterMinutes) || afterMinutes < FALLBACK_AFTER_MIN || afterMinutes > FALLBACK_AFTER_MAX)
    throw refuseCampaign(
      422,
      "invalid_campaign",
      m.sms_fallback_after_bounds({ min: FALLBACK_AFTER_MIN, max: FALLBACK_AFTER_MAX }),
      "smsFallback",
    );
  const text = given.mode === "own" ? String(given.text ?? "").trim() : template.texts.body.trim();
  if (!text) throw refuseCampaign(422, "invalid_campaign", m.sms_fallback_text_required(), "smsFallback");
  if (text.length > SMS_MAX_LENGTH)
    throw refuseCampaign(
      422,
      "invalid_campaign",
      given.mode === "own"
        ? m.sms_fallback_text_too_long({ max: SMS_MAX_LENGTH })
        : m.sms_fallback_message_too_long({ max: SMS_MAX_LENGTH }),
      "smsFallback",
    );
  return { mode: given.mode, text, named: template.body.named, afterMinutes };
}

/** Whether the organisation has Africa's Talking connected (Settings → SMS). */
export async function hasSmsConnection(organizationId: string): Promise<boolean> {
  const [row] = await db()
    .select({ id: smsConnections.id })
    .from(smsConnections)
    .where(eq(smsConnections.organizationId, organizationId))
    .limit(1);
  return !!row;
}
