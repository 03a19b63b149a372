import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { m } from "~/paraglide/messages";

/**
 * A template's history (template_events): what the tenant did (submitted, edited, deleted), what
 * the platform's review decided (held, approved, rejected) and what Meta said (status, category and
 * quality events, from its webhooks or a sync). The rows carry no foreign key, so a deleted
 * template keeps its history for the Templates tab's records.
 */

export type TemplateEventSource = "tenant" | "platform" | "meta";

/**
 * Event codes and what the Review page says for each, in the request's language; Meta's status
 * events are stored as their own names (APPROVED...).
 */
export const TEMPLATE_EVENT_WORDS: Record<string, string> = {
  get created() {
    return m.templates_event_created();
  },
  get submitted() {
    return m.templates_event_submitted();
  },
  get edited() {
    return m.templates_event_edited();
  },
  get deleted() {
    return m.templates_event_deleted();
  },
  get held() {
    return m.templates_event_held();
  },
  get approved() {
    return m.templates_event_approved();
  },
  get approve_failed() {
    return m.templates_event_approve_failed();
  },
  get rejected() {
    return m.templates_event_rejected();
  },
  get organisation_held() {
    return m.templates_event_organisation_held();
  },
  get sent() {
    return m.templates_event_sent();
  },
  get send_failed() {
    return m.templates_event_send_failed();
  },
  get category() {
    return m.templates_event_category();
  },
  get quality() {
    return m.templates_event_quality();
  },
};

export interface TemplateEventInput {
  templateId: string;
  organizationId: string;
  source: TemplateEventSource;
  event: string;
  reason?: string | null;
  actorId?: string | null;
}

/** Records one event, in the caller's transaction when given (so it exists exactly when the change does). */
export async function recordTemplateEvent(entry: TemplateEventInput, executor: Executor = db()) {
  await executor.execute(sql`
    insert into template_events (template_id, organization_id, source, event, reason, actor_id)
    values (${entry.templateId}, ${entry.organizationId}, ${entry.source}, ${entry.event}, ${entry.reason ?? null}, ${entry.actorId ?? null})`);
}

export interface TemplateEvent {
  id: number;
  source: TemplateEventSource;
  event: string;
  reason: string | null;
  actorEmail: string | null;
  createdAt: string;
}

/** The history of one template, oldest first (the Review page's timeline). */
export async function templateHistory(templateId: string): Promise<TemplateEvent[]> {
  const rows = await queryRows<{
    id: number | string;
    source: TemplateEventSource;
    event: string;
    reason: string | null;
    actor_email: string | null;
    created_at: string | Date;
  }>(
    db(),
    sql`
    select e.id, e.source, e.event, e.reason, u.email as actor_email, e.created_at
    from template_events e left join users u on u.id = e.actor_id
    where e.template_id = ${templateId}
    order by e.created_at, e.id
    limit 500`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    source: r.source,
    event: r.event,
    reason: r.reason,
    actorEmail: r.actor_email,
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/** An event in words: ours from the table above, Meta's as "Meta: approved". */
export function templateEventWords(event: Pick<TemplateEvent, "source" | "event">) {
  if (event.source === "meta" && /^[A-Z_]+$/.test(event.event))
    return m.templates_event_meta({ event: event.event.toLowerCase().replace(/_/g, " ") });
  return TEMPLATE_EVENT_WORDS[event.event] ?? event.event;
}
