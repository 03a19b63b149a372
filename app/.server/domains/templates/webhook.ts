import { pauseForRecategorisation, pauseForTemplateStatus } from "../campaigns";
import { sql } from "drizzle-orm";
import { CATEGORY_VALUES } from "../../../lib/templates";
import { metaStatus } from "./manage";
import { requestTemplateSync } from "./sync";
import { notifyTemplateDecision } from "../notifications";
import { recordTemplateEvent } from "./events";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";
import { englishOf, words, type MessageKey } from "../../infrastructure/words/said";
import { categoryInWords } from "../activity";

/**
 * The rule for holding a tenant automatically (issue 19): when Meta flags or disables one of its
 * templates, or rejects one as abusive or a scam, the organisation's later submissions wait for a
 * platform administrator's review before they reach Meta (organizations.template_review). An
 * administrator releases it from the Templates tab. Ordinary rejections (format, wording) do not:
 * they are the tenant's to fix. New sign-ups are not held unless an administrator holds them.
 */
export const HOLD_ON_EVENTS = new Set(["FLAGGED", "DISABLED"]);
export const HOLD_ON_REJECTION = /^(ABUSIVE_CONTENT|SCAM)\b/;

/** The activity log's sentence for a hold, by the event that caused it. */
const HELD_BECAUSE: Record<string, MessageKey> = {
  REJECTED: "app_activity_detail_templates_held_rejected",
  FLAGGED: "app_activity_detail_templates_held_flagged",
  DISABLED: "app_activity_detail_templates_held_disabled",
};

export function shouldHoldOrganisation(event: string, reason: string | null) {
  return HOLD_ON_EVENTS.has(event) || (event === "REJECTED" && !!reason && HOLD_ON_REJECTION.test(reason));
}

/** Turns the hold on for a tenant Meta flagged; the template's history says why. Nothing when it is already on. */
export async function holdFlaggedOrganisation(
  tx: Executor,
  target: { organizationId: string; templateId: string },
  because: string,
): Promise<boolean> {
  const held = await queryRows(
    tx,
    sql`update organizations set template_review = true where id = ${target.organizationId} and not template_review returning id`,
  );
  if (!held.length) return false;
  await recordTemplateEvent(
    {
      templateId: target.templateId,
      organizationId: target.organizationId,
      source: "platform",
      event: "organisation_held",
      reason: because,
    },
    tx,
  );
  return true;
}

/**
 * Meta's template webhooks, applied to the tenant whose live account holds the WABA:
 * message_template_status_update (approved, rejected with a reason, paused, disabled, flagged,
 * deleted...), message_template_quality_update and template_category_update. Each is idempotent and
 * order-safe: a status older than the one stored changes nothing. A template Jumbe does not know
 * yet (made in Business Manager, or decided before its submission's answer was stored) is matched
 * by name and language, else fetched by a sync of its account.
 */

export const TEMPLATE_FIELDS = new Set(["message_template_status_update", "message_template_quality_update", "template_category_update"]);

export interface TemplateChange {
  field: string;
  value: Record<string, unknown>;
  entryTime?: number;
  account: { id: string; organization_id: string; waba_id: string };
}

export interface TemplateActivity {
  organizationId: string;
  type: "template" | "message";
  status: "success" | "warning" | "error";
  action: string;
  details: string;
}

// The id is a JSON number in these webhooks and a string in the API.
const templateIdOf = (value: Record<string, unknown>) => (value.message_template_id === undefined ? "" : String(value.message_template_id));
const languageOf = (value: Record<string, unknown>) => String(value.message_template_language ?? "").replace("-", "_");

/** The stored template a change is about: by Meta's id, else a submission not yet answered (name and language). */
async function findTarget(tx: Executor, change: TemplateChange) {
  const id = templateIdOf(change.value);
  const [row] = await queryRows<{ id: string; name: string; language: string; meta_template_id: string | null }>(
    tx,
    sql`select id, name, language, meta_template_id from message_templates
        where organization_id = ${change.account.organization_id} and waba_id = ${change.account.waba_id}
          and (meta_template_id = ${id} or (meta_template_id is null and name = ${String(change.value.message_template_name ?? "")} and language = ${languageOf(change.value)}))
        order by meta_template_id is null limit 1`,
  );
  return row;
}

// long: one switch over Meta's template webhook fields in the batch's transaction; each branch is short and they share the row found and the activity list
export async function applyTemplateChanges(tx: Executor, changes: TemplateChange[]): Promise<TemplateActivity[]> {
  const activity: TemplateActivity[] = [];
  for (const change of changes) {
    const target = await findTarget(tx, change);
    if (!target) {
      // Not here yet: the account's sync imports it from Meta with its current state.
      await requestTemplateSync(change.account.id, tx);
      continue;
    }
    const id = templateIdOf(change.value);
    const at = new Date((change.entryTime ?? Date.now() / 1000) * 1000).toISOString();
    const name = String(change.value.message_template_name ?? target.name);
    if (change.field === "message_template_status_update") {
      const event = String(change.value.event ?? "").toUpperCase();
      if (event === "DELETED" || event === "PENDING_DELETION") {
        const removed = await queryRows(tx, sql`delete from message_templates where id = ${target.id} returning id`);
        if (removed.length)
          await recordTemplateEvent({ templateId: target.id, organizationId: change.account.organization_id, source: "meta", event }, tx);
        if (removed.length)
          activity.push({
            organizationId: change.account.organization_id,
            type: "template",
            status: "warning",
            action: "Template deleted at Meta",
            details: name,
          });
        continue;
      }
      const status = metaStatus(event);
      const info = change.value.rejection_info as { reason?: unknown } | undefined;
      const reasonCode = typeof change.value.reason === "string" && change.value.reason !== "NONE" ? change.value.reason : null;
      const reason =
        status === "rejected"
          ? [reasonCode, typeof info?.reason === "string" ? info.reason : null].filter(Boolean).join(": ") || null
          : null;
      const updated = await queryRows(
        tx,
        sql`update message_templates set meta_template_id = ${id}, meta_event = ${event}, meta_event_at = ${at}::timestamptz,
              status = case when status = 'held' then status else coalesce(${status ?? null}, status) end,
              rejection_reason = case when ${status ?? null}::text is null or status = 'held' then rejection_reason else ${reason} end,
              submitted_at = coalesce(submitted_at, now()), updated_at = now()
            where id = ${target.id} and (meta_event_at is null or meta_event_at <= ${at}::timestamptz)
              and not (meta_event is not distinct from ${event} and meta_event_at = ${at}::timestamptz)
            returning id`,
      );
      if (updated.length)
        await recordTemplateEvent(
          { templateId: target.id, organizationId: change.account.organization_id, source: "meta", event, reason },
          tx,
        );
      if (updated.length && shouldHoldOrganisation(event, reason)) {
        const because = `Meta ${event === "REJECTED" ? `rejected ${name}: ${reason}` : `${event.toLowerCase()} ${name}`}`;
        if (await holdFlaggedOrganisation(tx, { organizationId: change.account.organization_id, templateId: target.id }, because))
          activity.push({
            organizationId: change.account.organization_id,
            type: "template",
            status: "warning",
            action: "Template submissions held for review",
            // Meta's reason as Meta gave it, inside a sentence said in the log's reader's language.
            details: HELD_BECAUSE[event]
              ? englishOf(words(HELD_BECAUSE[event], event === "REJECTED" ? { name, reason: reason ?? "" } : { name }))
              : `${because}. Jumbe now reviews new templates before they go to Meta.`,
          });
      }
      // A paused or disabled template stops the campaigns sending it (issue 14's quality guard).
      if (updated.length && (event === "PAUSED" || event === "DISABLED"))
        activity.push(
          ...(await pauseForTemplateStatus(tx, {
            organizationId: change.account.organization_id,
            wabaId: change.account.waba_id,
            name,
            language: target.language,
            event,
          })),
        );
      if (updated.length)
        await notifyTemplateDecision(tx, {
          organizationId: change.account.organization_id,
          templateId: target.id,
          name,
          event,
          at,
          reason,
        });
      if (updated.length)
        activity.push({
          organizationId: change.account.organization_id,
          type: "template",
          status: status === "approved" ? "success" : status === "pending" ? "success" : "warning",
          action: `Meta ${event === "FLAGGED" ? "flagged" : event === "REINSTATED" ? "reinstated" : (status ?? event.toLowerCase())} a template`,
          details: `${name}${reason ? `: ${reason}` : ""}`,
        });
    } else if (change.field === "template_category_update") {
      const next = String(change.value.new_category ?? "").toUpperCase();
      if (!(CATEGORY_VALUES as readonly string[]).includes(next)) continue;
      const previous = String(change.value.previous_category ?? "").toUpperCase() || null;
      const updated = await queryRows(
        tx,
        sql`update message_templates set meta_template_id = ${id}, category = ${next}, previous_category = coalesce(${previous}, category), updated_at = now()
            where id = ${target.id} and category <> ${next} returning id`,
      );
      if (updated.length)
        await recordTemplateEvent(
          {
            templateId: target.id,
            organizationId: change.account.organization_id,
            source: "meta",
            event: "category",
            reason: `${previous ?? "?"} to ${next}`,
          },
          tx,
        );
      if (updated.length)
        activity.push(
          ...(await pauseForRecategorisation(tx, {
            organizationId: change.account.organization_id,
            wabaId: change.account.waba_id,
            name,
            language: target.language,
            category: next,
          })),
        );
      if (updated.length)
        activity.push({
          organizationId: change.account.organization_id,
          type: "template",
          status: "warning",
          action: "Meta changed a template's category",
          // Meta's codes (MARKETING) in English, the template pages' words for them in another language.
          details: englishOf(
            words("app_activity_detail_template_category_changed", { name, from: categoryInWords(previous), to: categoryInWords(next) }),
          ),
        });
    } else if (change.field === "message_template_quality_update") {
      const score = String(change.value.new_quality_score ?? "").toUpperCase() || null;
      const changed = await queryRows(
        tx,
        sql`update message_templates set quality_score = ${score}, updated_at = now()
            where id = ${target.id} and quality_score is distinct from ${score} returning id`,
      );
      if (changed.length)
        await recordTemplateEvent(
          { templateId: target.id, organizationId: change.account.organization_id, source: "meta", event: "quality", reason: score },
          tx,
        );
    }
  }
  return activity;
}
