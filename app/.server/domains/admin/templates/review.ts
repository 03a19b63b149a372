import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { recordAdminAction } from "../audit";
import { recordActivity } from "../../activity";
import { notify } from "../../notifications";
import { words } from "../../../infrastructure/words/said";
import { recordTemplateEvent, sendHeldTemplate, TEMPLATE_MESSAGES, findTemplate } from "../../templates";
import type { GraphClient } from "../../../infrastructure/clients/whatsapp-graph/graph-client";
import type { MessageTemplate } from "../../../infrastructure/db/schema";
import { Refusal } from "../../../infrastructure/refusal";
import { m } from "~/paraglide/messages";
import { formatNumber } from "~/lib/dates";

/**
 * The platform's review of held templates (issue 19): approving sends the template to Meta through
 * the tenant's own submission code (sendHeldTemplate), rejecting returns it to the tenant with a
 * reason they see; and holding or releasing an organisation's submissions. Each is audited.
 */

type Admin = Pick<CurrentUser, "user">;

/** What a refused decision says, read in the request's language. */
export const REVIEW_MESSAGES = {
  get reasonRequired() {
    return m.admin_review_reason_required();
  },
  get reasonTooLong() {
    return m.admin_review_reason_long({ max: formatNumber(1000) });
  },
  get claimed() {
    return m.admin_review_claimed();
  },
} as const;

/** A decision done: the template as it now is, and Meta's words when Meta did not take an approved one. */
export interface ReviewOutcome {
  template: MessageTemplate;
  metaError?: string;
}

/** A decision refused: nothing changed. A refused reject is said at its reason; a refused approve has no field. */
const refuseReview = (status: 400 | 404 | 409, message: string, field?: "reason") =>
  new Refusal({ domain: "admin_templates", status, message, field });

/** A short lease on the decision: two administrators pressing Approve at once send the template once. */
async function claimHeld(templateId: string, admin: Admin) {
  const claimed = await queryRows<{ organization_id: string }>(
    db(),
    sql`
    update message_templates set platform_reviewed_at = now(), platform_reviewed_by = ${admin.user.id}
    where id = ${templateId} and status = 'held' and deleting_at is null
      and (platform_reviewed_at is null or platform_reviewed_at < now() - interval '2 minutes')
    returning organization_id`,
  );
  return claimed[0]?.organization_id;
}

async function heldState(templateId: string) {
  const [row] = await queryRows<{ organization_id: string; status: string }>(
    db(),
    sql`select organization_id, status from message_templates where id = ${templateId} and deleting_at is null`,
  );
  return row;
}

/**
 * Approve: Meta gets the template as the tenant's submit would have sent it (status pending). If Meta
 * refuses, it stays held carrying Meta's words (the administrator may try again or return it), and
 * the attempt is audited with Meta's answer.
 */
export async function approveHeldTemplate(
  _scope: PlatformScope,
  admin: Admin,
  meta: RequestMeta,
  templateId: string,
  client?: GraphClient,
): Promise<ReviewOutcome> {
  const state = await heldState(templateId);
  if (!state) throw refuseReview(404, m.admin_template_not_found());
  if (state.status !== "held") throw refuseReview(409, TEMPLATE_MESSAGES.notHeld);
  const organizationId = await claimHeld(templateId, admin);
  if (!organizationId) throw refuseReview(409, REVIEW_MESSAGES.claimed);
  const result = await sendHeldTemplate({ organizationId, userId: null, meta }, templateId, client);
  if (!result.ok) {
    await queryRows(
      db(),
      sql`update message_templates set platform_reviewed_at = null, platform_reviewed_by = null where id = ${templateId}`,
    );
    throw refuseReview(result.status === 404 ? 404 : 409, result.problems.form ?? m.admin_review_cannot_send());
  }
  const template = result.template;
  await db().transaction(async (tx) => {
    if (result.submitError)
      await tx.execute(sql`update message_templates set platform_reviewed_at = null, platform_reviewed_by = null where id = ${templateId}`);
    await recordTemplateEvent(
      {
        templateId,
        organizationId,
        source: "platform",
        event: result.submitError ? "approve_failed" : "approved",
        reason: result.submitError ?? null,
        actorId: admin.user.id,
      },
      tx,
    );
    await recordAdminAction(tx, admin, meta, {
      action: "template.approve",
      organizationId,
      targetType: "template",
      targetId: templateId,
      before: { status: "held" },
      after: result.submitError ? { status: template.status, metaError: result.submitError } : { status: template.status },
    });
  });
  return { template, metaError: result.submitError };
}

/** Reject: the template goes back to the tenant (status rejected) with the reason they see on its page and in the list. */
export async function rejectHeldTemplate(
  _scope: PlatformScope,
  admin: Admin,
  meta: RequestMeta,
  templateId: string,
  reasonInput: string,
): Promise<ReviewOutcome> {
  const reason = reasonInput.trim();
  if (!reason) throw refuseReview(400, REVIEW_MESSAGES.reasonRequired, "reason");
  if (reason.length > 1000) throw refuseReview(400, REVIEW_MESSAGES.reasonTooLong, "reason");
  const state = await heldState(templateId);
  if (!state) throw refuseReview(404, m.admin_template_not_found(), "reason");
  if (state.status !== "held") throw refuseReview(409, TEMPLATE_MESSAGES.notHeld, "reason");
  const decided = await db().transaction(async (tx) => {
    const result = await queryRows<{ id: string; organization_id: string; name: string }>(
      tx,
      sql`
      update message_templates set status = 'rejected', platform_rejection = ${reason}, platform_reviewed_at = now(),
        platform_reviewed_by = ${admin.user.id}, updated_at = now()
      where id = ${templateId} and status = 'held'
        and (platform_reviewed_at is null or platform_reviewed_at < now() - interval '2 minutes')
      returning id, organization_id, name`,
    );
    const row = result[0];
    if (!row) return undefined;
    await recordTemplateEvent(
      { templateId, organizationId: row.organization_id, source: "platform", event: "rejected", reason, actorId: admin.user.id },
      tx,
    );
    await recordAdminAction(tx, admin, meta, {
      action: "template.reject",
      organizationId: row.organization_id,
      targetType: "template",
      targetId: templateId,
      reason,
      before: { status: "held" },
      after: { status: "rejected" },
    });
    await notify(
      {
        organizationId: row.organization_id,
        event: "template_decision",
        // The reviewer's reason as they typed it, inside the reader's sentence.
        words: {
          title: words("app_notice_template_returned_title", { name: row.name }),
          body: words("app_notice_template_returned_body", { reason }),
        },
        link: `/templates?dialog=view&template=${templateId}`,
        dedupeKey: `template:${templateId}:platform-rejected:${Date.now()}`,
      },
      tx,
    );
    return row;
  });
  if (!decided) throw refuseReview(409, REVIEW_MESSAGES.claimed, "reason");
  await recordActivity({
    organizationId: decided.organization_id,
    userId: null,
    type: "template",
    status: "warning",
    action: "Template returned by Jumbe's review",
    details: `${decided.name}: ${reason}`,
  });
  return { template: (await findTemplate(decided.organization_id, templateId))! };
}

/** Holds (on) or releases (off) an organisation's template submissions; audited. Answers whether anything changed. */
export async function setTemplateHold(
  _scope: PlatformScope,
  admin: Admin,
  meta: RequestMeta,
  organizationId: string,
  on: boolean,
  reasonInput?: string,
) {
  const reason = reasonInput?.trim().slice(0, 1000) || null;
  return db().transaction(async (tx) => {
    const result = await queryRows<{ id: string }>(
      tx,
      sql`
      update organizations set template_review = ${on}, updated_at = now()
      where id = ${organizationId} and template_review = ${!on} returning id`,
    );
    if (!result.length) return false;
    await recordAdminAction(tx, admin, meta, {
      action: on ? "template.hold" : "template.release",
      organizationId,
      targetType: "organization",
      targetId: organizationId,
      reason,
      before: { templateReview: !on },
      after: { templateReview: on },
    });
    return true;
  });
}
