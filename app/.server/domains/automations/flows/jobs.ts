import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRow, queryRows } from "../../../infrastructure/db/query";
import type { Job } from "../../../infrastructure/jobs/queue";
import { log } from "../../../infrastructure/log";
import { isRefusal } from "../../../infrastructure/refusal";
import { type OutboundContent, queueMessage, isFreeForm } from "../../messaging";
import { admitAutomatedReply, KeptBack } from "../reply-gate";
import { runFrom, type FlowReply, type Turn } from "./engine";
import { flowHttp } from "./http";
import { flowReplies } from "./products";
import { endSession, flowContact, sessionById, SessionMoved, writeTurn, type ActiveSession } from "./session";

/**
 * What flows do without a customer's message: a wait step's wake-up (a job at its time) and the idle
 * timeout (a recurring job). Both send only inside the customer's 24-hour window (free-form messages;
 * the sending engine refuses outside it): outside, the session ends quietly.
 */

export const FLOW_IDLE_QUEUE = "flows.idle";
export const FLOW_IDLE_EVERY_SECONDS = 60;
/** Sessions timed out a run; the rest wait for the next minute. */
const IDLE_BATCH = 200;

export interface Reach {
  phone: string;
  phoneNumberId: string;
  conversationId: string;
  contactId: string;
}

/** Where to write to the customer; null when a person holds the conversation (automations stay silent) or there is no number. */
export async function reachOf(conversationId: string): Promise<Reach | null> {
  const row = await queryRow<{ phone: string | null; phone_number_id: string; contact_id: string; held: boolean }>(
    db(),
    sql`select c.phone, v.phone_number_id, v.contact_id, v.person_held_at is not null as held
        from conversations v join contacts c on c.id = v.contact_id where v.id = ${conversationId}`,
  );
  return row?.phone && !row.held
    ? { phone: row.phone, phoneNumberId: row.phone_number_id, conversationId, contactId: row.contact_id }
    : null;
}

/**
 * Queues a job's replies in one transaction with `write` (the session moves on exactly when they are
 * queued), through the reply gate (a person holding the conversation since reachOf read it, an
 * opt-out, the window, the caps: reply-gate.ts); without replies `write` runs alone. A products
 * step's message is read from the catalog first (flows/products.ts). False when the gate keeps them
 * back or the number cannot send: nothing was written.
 */
export async function deliver(organizationId: string, reach: Reach, given: readonly FlowReply[], write: (tx: Executor) => Promise<void>) {
  const replies: OutboundContent[] = await flowReplies(organizationId, given);
  const [first, ...rest] = replies;
  if (!first) {
    await db().transaction(write);
    return true;
  }
  try {
    await queueMessage(organizationId, {
      to: reach.phone,
      from: reach.phoneNumberId,
      content: first,
      followUps: rest,
      source: "automation",
      onQueued: async (tx, message, followUps) => {
        await admitAutomatedReply(tx, {
          conversationId: reach.conversationId,
          phoneNumberId: reach.phoneNumberId,
          sends: true,
          freeForm: replies.every(isFreeForm),
          answering: null,
        });
        await labelFlowReplies(tx, organizationId, reach, [message.id, ...followUps.map((f) => f.id)]);
        await write(tx);
      },
    });
    return true;
  } catch (error) {
    if (error instanceof KeptBack) {
      log().info({ organizationId, keptBack: error.why }, "flow message kept back: the session ends");
      return false;
    }
    if (!isRefusal(error, "send")) throw error;
    log().info({ organizationId, refusal: error.code }, "flow message not sent: the session ends");
    return false;
  }
}

/**
 * The flow's own messages (no customer message set them off) get a run of kind flow, so the inbox
 * labels them as the flow's and they count towards the hourly caps like every automated reply.
 */
async function labelFlowReplies(tx: Executor, organizationId: string, reach: Reach, replyIds: string[]) {
  await tx.execute(sql`
    with run as (
      insert into automation_runs (organization_id, message_id, conversation_id, contact_id, phone_number_id, kind, reply_id)
      values (${organizationId}, null, ${reach.conversationId}, ${reach.contactId}, ${reach.phoneNumberId}, 'flow', ${replyIds[0]!})
      returning id)
    update messages set automation_run_id = (select id from run) where id = any(${sql.param(replyIds)}::uuid[])`);
}

/** A wait step's time has come: the flow goes on from the step after it. */
export async function wakeSession(payload: { sessionId: string; stepId: string }, now = new Date()) {
  const session = await sessionById(payload.sessionId);
  if (!session || session.status !== "active" || session.stepId !== payload.stepId || !session.wakeAt) return;
  const reach = await reachOf(session.conversationId);
  const contact = await flowContact(session.contactId);
  const turn: Turn = await runFrom(
    session.steps,
    session.stepIndex + 1,
    { stepIndex: session.stepIndex, vars: session.vars, retries: 0 },
    contact,
    flowHttp,
    now,
  );
  const flow = { flowId: session.flowId, flowName: session.flowName, version: session.version };
  const write = async (tx: Executor) => void (await writeTurn(tx, { session: session as ActiveSession }, turn, flow));
  try {
    if (!reach || !(await deliver(session.organizationId, reach, turn.replies, write)))
      await db().transaction((tx) => endSession(tx, session.id, "stopped"));
  } catch (error) {
    if (!(error instanceof SessionMoved)) throw error;
  }
}

export async function runWakeJobs(jobs: Job<{ sessionId: string; stepId: string }>[]) {
  for (const job of jobs) await wakeSession(job.payload);
}

/**
 * Ends the sessions that heard nothing for longer than their flow's idle time (a wait counts from
 * its end), with the flow's idle text when one is set and the window is still open.
 */
export async function timeOutIdleSessions(now = new Date()): Promise<number> {
  const idle = await queryRows<{ id: string; organization_id: string; conversation_id: string; idle_text: string }>(
    db(),
    sql`select s.id, s.organization_id, s.conversation_id, f.idle_text
        from flow_sessions s join flow_versions v on v.id = s.flow_version_id join flows f on f.id = v.flow_id
        where s.status = 'active'
          and greatest(s.last_activity_at, coalesce(s.wake_at, s.last_activity_at))
              < ${now.toISOString()}::timestamptz - make_interval(mins => f.idle_minutes)
        order by s.last_activity_at
        limit ${IDLE_BATCH}`,
  );
  let ended = 0;
  for (const session of idle) {
    const end = async (tx: Executor) => {
      if (!(await endSession(tx, session.id, "timed_out"))) throw new SessionMoved();
    };
    try {
      const reach = session.idle_text ? await reachOf(session.conversation_id) : null;
      const sent = reach && (await deliver(session.organization_id, reach, [{ kind: "text", text: session.idle_text }], end));
      if (!sent) await db().transaction(end);
      ended += 1;
    } catch (error) {
      if (!(error instanceof SessionMoved)) throw error;
    }
  }
  return ended;
}
