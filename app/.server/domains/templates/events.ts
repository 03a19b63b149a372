import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";

/**
 * A template's history (template_events): what the tenant did (submitted, edited, deleted), what
 * the platform's review decided (held, approved, rejected) and what Meta said (status, category and
 * quality events, from its webhooks or a sync). The rows carry no foreign key, so a deleted
 * template keeps its history for the Templates tab's records.
 */

export type TemplateEventSource = "tenant" | "platform" | "meta";

/** Event codes and what the Review page says for each; Meta's status events are stored as their own names (APPROVED...). */
export const TEMPLATE_EVENT_WORDS: Record<string, string> = {
  created: "Created as a draft",
  submitted: "Submitted for review",
  edited: "Edited and submitted again",
  deleted: "Deleted",
  held: "Held for Jumbe's review",
  approved: "Approved by Jumbe and sent to Meta",
  approve_failed: "Approved by Jumbe, but Meta did not accept it",
  rejected: "Returned by Jumbe's review",
  organisation_held: "The organisation's submissions are now held for review",
  sent: "Sent to Meta",
  send_failed: "Meta did not accept the submission",
  category: "Meta changed the category",
  quality: "Meta's quality rating changed",
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
  if (event.source === "meta" && /^[A-Z_]+$/.test(event.event)) return `Meta: ${event.event.toLowerCase().replace(/_/g, " ")}`;
  return TEMPLATE_EVENT_WORDS[event.event] ?? event.event;
}
