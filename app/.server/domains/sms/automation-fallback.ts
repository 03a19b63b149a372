import { and, eq, sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { automationSmsFallbacks, smsConnections, type SmsFallbackAutomation } from "../../infrastructure/db/schema";
import { Refusal } from "../../infrastructure/refusal";
import { fillPlaceholders } from "../campaigns";
import { FALLBACK_AFTER_MAX, FALLBACK_AFTER_MIN } from "~/lib/sms-fallback";
import { SMS_MAX_LENGTH } from "~/lib/sms-price";
import { m } from "~/paraglide/messages";
import { can } from "../auth";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { englishOf, words, type Said } from "../../infrastructure/words/said";
import type { SmsActor } from "./connection";

/**
 * Automations' SMS fallback (issue 77, decision 159). An automation that sends a template outside the
 * 24-hour window (a payment request, a Shopify order or abandoned cart) arms one `sms_fallbacks` row
 * in the message's own transaction, its SMS already written with the message's values and due when
 * "not delivered within" runs out. Meta's undeliverable failure makes it due at once; the one job in
 * fallback.ts decides it under the message's lock, as it does a campaign's (claim once, never both
 * when WhatsApp is late, quiet hours, consent, the wallet). No second engine: only the arming is here.
 */

export interface AutomationFallbackSetting {
  automation: SmsFallbackAutomation;
  mode: "own" | "message";
  text: string | null;
  afterMinutes: number;
}

export interface AutomationFallbackInput {
  mode: "off" | "own" | "message";
  text?: string | null;
  afterMinutes: number;
}

const refuse = (status: 403 | 409 | 422, code: string, message: string, field: string) =>
  new Refusal({ domain: "sms", status, code, message, field });

/** The organisation's automations' fallbacks as set (one entry per automation with one). */
export async function automationFallbacksOf(organizationId: string): Promise<AutomationFallbackSetting[]> {
  return db()
    .select({
      automation: automationSmsFallbacks.automation,
      mode: automationSmsFallbacks.mode,
      text: automationSmsFallbacks.text,
      afterMinutes: automationSmsFallbacks.afterMinutes,
    })
    .from(automationSmsFallbacks)
    .where(eq(automationSmsFallbacks.organizationId, organizationId));
}

/**
 * Sets (or, `off`, removes) one automation's fallback: only with SMS connected, "not delivered
 * within" in the campaigns' bounds, its own text not empty and at most an SMS's longest.
 */
export async function saveAutomationFallback(
  actor: SmsActor,
  automation: SmsFallbackAutomation,
  input: AutomationFallbackInput,
  meta?: RequestMeta,
) {
  if (!can(actor.role, "whatsapp:manage")) throw refuse(403, "forbidden", m.sms_refusal_forbidden(), "sms_fallback");
  const organizationId = actor.organization.id;
  const changed = (said: Said) =>
    recordActivity({
      organizationId,
      userId: actor.user.id,
      type: "settings",
      status: "success",
      action: "SMS fallback changed",
      details: englishOf(said),
      meta,
    });
  const where = and(eq(automationSmsFallbacks.organizationId, organizationId), eq(automationSmsFallbacks.automation, automation));
  if (input.mode === "off") {
    // "No SMS" for an automation that had none changes nothing, and says nothing in the activity log.
    const removed = await db().delete(automationSmsFallbacks).where(where).returning({ automation: automationSmsFallbacks.automation });
    if (!removed.length) return;
    return changed(words("sms_activity_detail_auto_fallback_off", { automation: words(AUTOMATION_NAMES[automation]) }));
  }
  const [connected] = await db()
    .select({ id: smsConnections.id })
    .from(smsConnections)
    .where(eq(smsConnections.organizationId, organizationId))
    .limit(1);
  if (!connected) throw refuse(409, "sms_not_connected", m.sms_fallback_not_connected(), "sms_fallback");
  const after = input.afterMinutes;
  if (!Number.isInteger(after) || after < FALLBACK_AFTER_MIN || after > FALLBACK_AFTER_MAX)
    throw refuse(422, "invalid_fallback", m.sms_fallback_after_bounds({ min: FALLBACK_AFTER_MIN, max: FALLBACK_AFTER_MAX }), "sms_after");
  const text = input.mode === "own" ? String(input.text ?? "").trim() : null;
  if (input.mode === "own" && !text) throw refuse(422, "invalid_fallback", m.sms_fallback_text_required(), "sms_text");
  if (text && text.length > SMS_MAX_LENGTH)
    throw refuse(422, "invalid_fallback", m.sms_fallback_text_too_long({ max: SMS_MAX_LENGTH }), "sms_text");
  const row = { organizationId, automation, mode: input.mode, text, afterMinutes: after, updatedAt: new Date() };
  await db()
    .insert(automationSmsFallbacks)
    .values(row)
    .onConflictDoUpdate({ target: [automationSmsFallbacks.organizationId, automationSmsFallbacks.automation], set: row });
  await changed(words("sms_activity_detail_auto_fallback_on", { automation: words(AUTOMATION_NAMES[automation]), minutes: after }));
}

/** How the page and the activity log name each automation. */
export const AUTOMATION_NAMES = {
  payment_request: "sms_auto_fallback_payment_request",
  shopify_order_created: "sms_auto_fallback_shopify_order_created",
  shopify_order_fulfilled: "sms_auto_fallback_shopify_order_fulfilled",
  shopify_checkout_abandoned: "sms_auto_fallback_shopify_checkout_abandoned",
} as const satisfies Record<SmsFallbackAutomation, string>;

/**
 * Arms the fallback of an automation's WhatsApp template, in the transaction that queued it, when the
 * organisation set one and has SMS connected: the SMS is its own text with the template's values
 * ({{1}}, {{2}}...), or `messageText` (the message's text, or a payment request's SMS words). Once a
 * message (the unique source); nothing when the SMS would be empty or too long.
 */
export async function armAutomationFallback(
  tx: Executor,
  input: { organizationId: string; messageId: string; automation: SmsFallbackAutomation; values: string[]; messageText: string },
): Promise<boolean> {
  const [setting] = await queryRows<{ mode: "own" | "message"; text: string | null; after_minutes: number }>(
    tx,
    sql`select f.mode, f.text, f.after_minutes from automation_sms_fallbacks f
        where f.organization_id = ${input.organizationId} and f.automation = ${input.automation}
          and exists (select 1 from sms_connections c where c.organization_id = f.organization_id)`,
  );
  if (!setting) return false;
  const body = (setting.mode === "own" ? fillPlaceholders(setting.text ?? "", input.values, []) : input.messageText).trim();
  if (!body || body.length > SMS_MAX_LENGTH) return false;
  const made = await queryRows<{ id: string }>(
    tx,
    sql`insert into sms_fallbacks (organization_id, source_message_id, automation, body, trigger, due_at)
        values (${input.organizationId}, ${input.messageId}, ${input.automation}, ${body}, 'not_delivered',
                now() + make_interval(mins => ${Number(setting.after_minutes)}))
        on conflict (source_message_id) do nothing
        returning id`,
  );
  return made.length > 0;
}
