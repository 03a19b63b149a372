import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { logConversationEvents, lockConversations } from "../messaging";
import { emitWebhookEvent } from "../webhooks-out";
import { HANDOVER_REASONS, type HandoverReason } from "~/lib/inbox";

/*
 * Why an automation handed a conversation to a person (issue 44, app/lib/inbox.ts): stored as the code
 * in the thread's "handover" entry and sent in the `conversation.handover` webhook.
 */
export { HANDOVER_REASONS, type HandoverReason };

/** Who handed it over. */
export type HandoverBy = "assistant" | "flow" | "rule";

export interface Handover {
  organizationId: string;
  conversationId: string;
  reason: HandoverReason;
  by: HandoverBy;
  /** A few words more: the flow's or rule's name, the model's error code. */
  detail?: string;
  /** A chosen member (a rule's or flow's assignee); the least busy member otherwise. */
  assigneeId?: string | null;
}

/** A member who was using Jumbe this recently counts as available. */
export const AVAILABLE_WITHIN_MINUTES = 15;

/**
 * The member a hand-over goes to: among those who may answer chats (owner, admin, agent), the ones
 * using Jumbe in the last quarter of an hour first, then the fewest open conversations they hold,
 * then the longest-standing member. Null: nobody may answer (the conversation waits unassigned).
 */
export async function leastBusyMember(tx: Executor, organizationId: string): Promise<string | null> {
  const row = await queryRow<{ id: string }>(
    tx,
    sql`
    select u.id from users u
    where u.organization_id = ${organizationId} and u.org_role in ('owner', 'admin', 'agent')
    order by exists (select 1 from sessions s where s.user_id = u.id and s.expires_at > now()
                       and s.last_used_at > now() - make_interval(mins => ${AVAILABLE_WITHIN_MINUTES})) desc,
             (select count(*) from conversations v where v.organization_id = u.organization_id and v.assigned_to = u.id
                and v.status = 'open') asc,
             u.created_at, u.id
    limit 1`,
  );
  return row?.id ?? null;
}

/** The stored body of a hand-over entry: the reason's code, and its detail on the next line. */
export const handoverBody = (reason: HandoverReason, detail?: string) =>
  detail ? `${reason}\n${detail.replace(/\s+/g, " ").trim().slice(0, 200)}` : reason;

/** A hand-over entry's body read back (an unknown code reads as a flow's or rule's generic reason). */
export function readHandoverBody(body: string): { reason: HandoverReason; detail: string | null } {
  const [code = "", ...rest] = body.split("\n");
  const reason = (HANDOVER_REASONS as readonly string[]).includes(code) ? (code as HandoverReason) : "rule";
  return { reason, detail: rest.join(" ").trim() || null };
}

/**
 * Hands the conversation to a person, inside the caller's transaction: it is assigned (unless a
 * member already has it), held by a person from now on (no automation or assistant speaks until it
 * is resolved), reopened if it was resolved, the reason written in its thread for the members, and
 * the `conversation.handover` webhook queued. Answers who has it (null: nobody may answer chats).
 */
export async function handOver(tx: Executor, handover: Handover): Promise<{ assigneeId: string | null }> {
  const { organizationId, conversationId } = handover;
  // Held from now on: under the lock automated replies are queued under (taken already by a run).
  await lockConversations(tx, [conversationId]);
  const current = await queryRow<{ assigned_to: string | null; contact_id: string; phone_number_id: string; phone: string | null }>(
    tx,
    sql`select v.assigned_to, v.contact_id, v.phone_number_id, c.phone from conversations v join contacts c on c.id = v.contact_id
        where v.id = ${conversationId} and v.organization_id = ${organizationId} for update of v`,
  );
  if (!current) return { assigneeId: null };
  const chosen = handover.assigneeId ? await memberWhoAnswers(tx, organizationId, handover.assigneeId) : null;
  const assigneeId = current.assigned_to ?? chosen ?? (await leastBusyMember(tx, organizationId));
  await tx.execute(sql`
    update conversations set assigned_to = ${assigneeId}::uuid, person_held_at = coalesce(person_held_at, now()),
                             status = 'open', resolved_at = null
    where id = ${conversationId}`);
  const entry = await queryRow<{ id: string; created_at: string }>(
    tx,
    sql`insert into conversation_entries (organization_id, conversation_id, kind, subject_id, body)
        values (${organizationId}, ${conversationId}, 'handover', ${assigneeId}::uuid, ${handoverBody(handover.reason, handover.detail)})
        returning id, created_at`,
  );
  await logConversationEvents(tx, [{ organizationId, conversationId, kind: "entry", entryId: entry!.id }]);
  await emitWebhookEvent(tx, {
    organizationId,
    type: "conversation.handover",
    data: {
      conversationId,
      contactId: current.contact_id,
      phoneNumberId: current.phone_number_id,
      from: current.phone,
      by: handover.by,
      reason: handover.reason,
      detail: handover.detail ?? null,
      assigneeId,
      at: new Date(entry!.created_at).toISOString(),
    },
  });
  return { assigneeId };
}

async function memberWhoAnswers(tx: Executor, organizationId: string, userId: string) {
  const row = await queryRow<{ id: string }>(
    tx,
    sql`select id from users where id = ${userId} and organization_id = ${organizationId} and org_role in ('owner', 'admin', 'agent')`,
  );
  return row?.id ?? null;
}
