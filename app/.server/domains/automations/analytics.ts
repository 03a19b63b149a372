import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";

/** Conversations in a period by who answered them: automations alone, or people (issue 44). */
export interface AutomationFigures {
  /** Answered by automations and never by a person in the period: no member's message, no hand-over. */
  byAutomation: number;
  /** Handed by an automation to a person in the period. */
  handedOver: number;
  /** Resolved by a member in the period. */
  resolvedByPeople: number;
}

/**
 * The period's conversations by who answered them. Reads the automations' runs and the threads'
 * entries of the period (indexed by organisation and time), and for each conversation automations
 * answered, one index probe for a member's message: never the period's messages.
 */
export async function automationFigures(
  organizationId: string,
  period: { start: Date; end: Date; phoneNumberId: string | null },
): Promise<AutomationFigures> {
  const start = period.start.toISOString();
  const end = period.end.toISOString();
  const row = await queryRow<AutomationFigures>(
    db(),
    sql`
    with answered as (
      select distinct r.conversation_id from automation_runs r
      where r.organization_id = ${organizationId} and r.created_at >= ${start}::timestamptz and r.created_at < ${end}::timestamptz
        and r.reply_id is not null and (${period.phoneNumberId}::text is null or r.phone_number_id = ${period.phoneNumberId})
    ), entries as (
      select e.conversation_id, e.kind from conversation_entries e
      join conversations v on v.id = e.conversation_id
      where e.organization_id = ${organizationId} and e.created_at >= ${start}::timestamptz and e.created_at < ${end}::timestamptz
        and (e.kind = 'handover' or (e.kind = 'resolved' and e.actor_id is not null))
        and (${period.phoneNumberId}::text is null or v.phone_number_id = ${period.phoneNumberId})
    )
    select
      (select count(*) from answered a join conversations v on v.id = a.conversation_id
        where not exists (select 1 from entries h where h.conversation_id = a.conversation_id and h.kind = 'handover')
          and not exists (select 1 from messages m where m.organization_id = v.organization_id and m.contact_id = v.contact_id
                            and m.phone_number_id = v.phone_number_id and m.direction = 'outbound' and m.source = 'inbox'
                            and m.created_at >= ${start}::timestamptz and m.created_at < ${end}::timestamptz))::int as "byAutomation",
      (select count(distinct conversation_id) from entries where kind = 'handover')::int as "handedOver",
      (select count(distinct conversation_id) from entries where kind = 'resolved')::int as "resolvedByPeople"`,
  );
  return row ?? { byAutomation: 0, handedOver: 0, resolvedByPeople: 0 };
}
