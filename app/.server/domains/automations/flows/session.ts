import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { countAffected, queryRow } from "../../../infrastructure/db/query";
import { enqueueJob } from "../../../infrastructure/jobs/queue";
import { emitWebhookEvent } from "../../webhooks-out";
import { conversionOnFlowEnd } from "../../ads";
import { handOver } from "../handover";
import type { PaymentAsk, Turn } from "./engine";
import type { FlowStep } from "./steps";
import type { FlowContact, FlowVars } from "./values";

/**
 * A conversation's flow session as stored, and a turn written back: in the replies' own transaction,
 * guarded so that two workers answering the same session at once cannot both move it on.
 */

export const FLOW_WAKE_QUEUE = "flows.wake";
/** A payment step's request, made after the turn that reached it is written (flows/payment.ts). */
export const FLOW_PAYMENT_QUEUE = "flows.payment";
export interface FlowPaymentJob {
  sessionId: string;
  stepId: string;
  ask: PaymentAsk;
}

export interface ActiveSession {
  id: string;
  organizationId: string;
  conversationId: string;
  contactId: string;
  flowId: string;
  flowName: string;
  versionId: string;
  version: number;
  steps: FlowStep[];
  stepId: string;
  stepIndex: number;
  vars: FlowVars;
  retries: number;
  wakeAt: Date | null;
}

interface SessionRow {
  id: string;
  organization_id: string;
  conversation_id: string;
  contact_id: string;
  flow_id: string;
  flow_name: string;
  version_id: string;
  version: number;
  steps: FlowStep[];
  step_id: string;
  step_index: number;
  vars: FlowVars;
  retries: number;
  wake_at: string | Date | null;
  status: string;
}

const SESSION = sql`
  select s.id, s.organization_id, s.conversation_id, s.contact_id, f.id as flow_id, f.name as flow_name, v.id as version_id,
         v.version, v.steps, s.step_id, s.step_index, s.vars, s.retries, s.wake_at, s.status
  from flow_sessions s join flow_versions v on v.id = s.flow_version_id join flows f on f.id = v.flow_id`;

const sessionOf = (r: SessionRow): ActiveSession => ({
  id: r.id,
  organizationId: r.organization_id,
  conversationId: r.conversation_id,
  contactId: r.contact_id,
  flowId: r.flow_id,
  flowName: r.flow_name,
  versionId: r.version_id,
  version: r.version,
  steps: r.steps,
  stepId: r.step_id,
  stepIndex: r.step_index,
  vars: r.vars ?? {},
  retries: r.retries,
  wakeAt: r.wake_at === null ? null : new Date(r.wake_at),
});

/** The conversation's active session, if any. */
export async function activeSession(organizationId: string, conversationId: string): Promise<ActiveSession | null> {
  const row = await queryRow<SessionRow>(
    db(),
    sql`${SESSION} where s.organization_id = ${organizationId} and s.conversation_id = ${conversationId} and s.status = 'active'`,
  );
  return row ? sessionOf(row) : null;
}

/** A session by its id, whatever its status (a wait's wake-up reads it). */
export async function sessionById(id: string): Promise<(ActiveSession & { status: string }) | null> {
  const row = await queryRow<SessionRow>(db(), sql`${SESSION} where s.id = ${id}`);
  return row ? { ...sessionOf(row), status: row.status } : null;
}

/** What the flow's texts and branches read of the contact. */
export async function flowContact(contactId: string): Promise<FlowContact> {
  const row = await queryRow<{ name: string | null; phone: string | null; language: string | null; attributes: unknown; tags: string[] }>(
    db(),
    sql`select name, phone, language, attributes, tags from contacts where id = ${contactId}`,
  );
  const attributes = row?.attributes && typeof row.attributes === "object" ? (row.attributes as Record<string, unknown>) : {};
  return { name: row?.name ?? "", phone: row?.phone ?? "", language: row?.language ?? null, attributes, tags: row?.tags ?? [] };
}

/** Thrown in the replies' transaction when another worker moved the session on meanwhile: nothing is kept. */
export class SessionMoved extends Error {}

export interface SessionStart {
  organizationId: string;
  conversationId: string;
  contactId: string;
  versionId: string;
}

/** The flow a turn is of, for the hand-over's words and the `flow.completed` webhook. */
export interface FlowOf {
  flowId: string;
  flowName: string;
  version: number;
}

/**
 * A turn's writes: the session (started or moved on), the contact's fields and tags, a wait's
 * wake-up, a hand-over to a person (handover.ts: assigned, held, said in the thread, its webhook) and,
 * at the end, the `flow.completed` webhook.
 */
export async function writeTurn(
  tx: Executor,
  where: { start: SessionStart } | { session: ActiveSession },
  turn: Turn,
  flow: FlowOf,
): Promise<string> {
  const ended = turn.status !== "active";
  const state = turn.state;
  let sessionId: string;
  let contactId: string;
  if ("start" in where) {
    const row = await queryRow<{ id: string }>(
      tx,
      sql`insert into flow_sessions (organization_id, conversation_id, contact_id, flow_version_id, step_id, step_index, vars, retries,
                                     status, wake_at, ended_at)
          values (${where.start.organizationId}, ${where.start.conversationId}, ${where.start.contactId}, ${where.start.versionId},
                  ${turn.stepId}, ${state.stepIndex}, ${JSON.stringify(state.vars)}::jsonb, ${state.retries}, ${turn.status},
                  ${turn.wakeAt?.toISOString() ?? null}, ${ended ? sql`now()` : null})
          on conflict (conversation_id) where status = 'active' do nothing
          returning id`,
    );
    if (!row) throw new SessionMoved();
    sessionId = row.id;
    contactId = where.start.contactId;
  } else {
    const { session } = where;
    const moved = await countAffected(
      tx,
      sql`update flow_sessions set step_id = ${turn.stepId}, step_index = ${state.stepIndex}, vars = ${JSON.stringify(state.vars)}::jsonb,
                 retries = ${state.retries}, status = ${turn.status}, wake_at = ${turn.wakeAt?.toISOString() ?? null},
                 last_activity_at = now(), ended_at = ${ended ? sql`now()` : null}
          where id = ${session.id} and status = 'active' and step_id = ${session.stepId} and retries = ${session.retries}`,
    );
    if (moved !== 1) throw new SessionMoved();
    sessionId = session.id;
    contactId = session.contactId;
  }
  for (const write of turn.writes) await writeContact(tx, contactId, write);
  if (turn.wakeAt)
    await enqueueJob(
      FLOW_WAKE_QUEUE,
      { sessionId, stepId: turn.stepId },
      { executor: tx, runAt: turn.wakeAt, uniqueKey: `flow-wake:${sessionId}:${turn.stepId}` },
    );
  if (turn.payment)
    await enqueueJob(FLOW_PAYMENT_QUEUE, { sessionId, stepId: turn.stepId, ask: turn.payment } satisfies FlowPaymentJob, {
      executor: tx,
      uniqueKey: `flow-payment:${sessionId}:${turn.stepId}`,
    });
  const organizationId = "start" in where ? where.start.organizationId : where.session.organizationId;
  const conversationId = "start" in where ? where.start.conversationId : where.session.conversationId;
  if (turn.handover)
    await handOver(tx, {
      organizationId,
      conversationId,
      reason: "flow",
      by: "flow",
      detail: flow.flowName,
      assigneeId: turn.handover.userId,
    });
  // An end that counts as a conversion: the ad entry's lead, in this transaction, once (decision 158).
  if (turn.status === "completed" && turn.conversion) await conversionOnFlowEnd(tx, { organizationId, conversationId, sessionId });
  if (turn.status === "completed")
    await emitWebhookEvent(tx, {
      organizationId,
      type: "flow.completed",
      data: {
        flowId: flow.flowId,
        flowName: flow.flowName,
        version: flow.version,
        sessionId,
        conversationId,
        contactId,
        // The answers the customer gave (the last HTTP answers are left out: they may be large).
        answers: Object.fromEntries(Object.entries(state.vars).filter(([key, value]) => !key.startsWith("_") && typeof value === "string")),
      },
    });
  return sessionId;
}

async function writeContact(tx: Executor, contactId: string, write: Turn["writes"][number]) {
  if (write.type === "field") {
    if (write.key === "name")
      await tx.execute(sql`update contacts set name = ${write.value.slice(0, 200)}, updated_at = now() where id = ${contactId}`);
    else
      await tx.execute(sql`update contacts set attributes = attributes || jsonb_build_object(${write.key}::text, ${write.value.slice(0, 200)}::text),
                                  updated_at = now() where id = ${contactId}`);
    return;
  }
  const add = write.type === "add_tag" ? [write.tag] : [];
  const remove = write.type === "remove_tag" ? [write.tag] : [];
  await tx.execute(sql`
    update contacts set tags = array(select distinct t from unnest(array_cat(tags, ${sql.param(add)}::text[])) t
                                     where t <> all(${sql.param(remove)}::text[]) order by t),
                        updated_at = now()
    where id = ${contactId}`);
}

/** Ends a session (timed out, stopped by an opt-out) unless it already moved on; true when it did end. */
export async function endSession(tx: Executor, sessionId: string, status: "timed_out" | "stopped") {
  return (
    (await countAffected(
      tx,
      sql`update flow_sessions set status = ${status}, ended_at = now(), wake_at = null where id = ${sessionId} and status = 'active'`,
    )) === 1
  );
}

/**
 * In the webhook's transaction: a consent keyword to stop (STOP, ACHA…) ends the customer's active
 * sessions, whichever conversation they are in. The consent ledger answers; the flow says nothing more.
 */
export async function stopSessionsOnOptOut(tx: Executor, messageIds: readonly string[]) {
  if (!messageIds.length) return;
  await tx.execute(sql`
    update flow_sessions s set status = 'stopped', ended_at = now(), wake_at = null
    where s.status = 'active'
      and s.contact_id in (select m.contact_id from messages m where m.id = any(${sql.param([...messageIds])}::uuid[]))
      and exists (select 1 from contacts c where c.id = s.contact_id and c.opt_in = 'opted_out')`);
}
