import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRow } from "../../../infrastructure/db/query";
import type { OutboundContent } from "../../messaging/content";
import { answerQuestion, runFrom, type Turn } from "./engine";
import { flowHttp } from "./http";
import { activeSession, assignTo, flowContact, writeTurn, type ActiveSession, type SessionStart } from "./session";
import type { FlowStep } from "./steps";

/**
 * Flows answer customers' messages (issue 44): a conversation in a flow has its message taken first,
 * as the answer to the question it stands at; a keyword rule may start a flow. What to send and the
 * session's writes are handed to the runner (run.ts) as an Answer: replies and writes in one
 * transaction, so a retry after a crash sends nothing twice.
 */

// TODO(merge): AutomationInbound and Answer from ../answer (the lead's contract).
export interface FlowInbound {
  organizationId: string;
  id: string;
  body: string;
  messageType: string;
  payload: unknown;
  contactId: string;
  conversationId: string;
}
export interface FlowAnswer {
  kind: "flow";
  replies: OutboundContent[];
  effects: (tx: Executor, runId: string) => Promise<void>;
  handover?: { reason: "flow"; detail?: string };
}

function tapped(inbound: FlowInbound): string | null {
  const payload = inbound.payload as {
    button?: { payload?: unknown };
    interactive?: { button_reply?: { id?: unknown }; list_reply?: { id?: unknown } };
  } | null;
  const id =
    inbound.messageType === "button" ? payload?.button?.payload : (payload?.interactive?.button_reply?.id ?? payload?.interactive?.list_reply?.id);
  return typeof id === "string" ? id : null;
}

/** A turn as the runner's Answer: its replies, its writes, a hand-over to the least-busy member. */
function answerOf(turn: Turn, where: { start: SessionStart } | { session: ActiveSession }, conversationId: string, flowName: string): FlowAnswer {
  const member = turn.handover?.userId ?? null;
  return {
    kind: "flow",
    replies: turn.replies,
    effects: async (tx) => {
      await writeTurn(tx, where, turn);
      if (member) await assignTo(tx, conversationId, member);
    },
    handover: turn.handover && !member ? { reason: "flow", detail: flowName } : undefined,
  };
}

/** The answer to a customer's message in a conversation with an active session; null when there is none (or it waits for time). */
export async function flowAnswer(inbound: FlowInbound, now = new Date()): Promise<FlowAnswer | null> {
  const session = await activeSession(inbound.organizationId, inbound.conversationId);
  if (!session || session.wakeAt) return null;
  const step = session.steps[session.stepIndex];
  if (step?.type !== "question" || step.id !== session.stepId) return null;
  const contact = await flowContact(inbound.contactId);
  const turn = await answerQuestion(
    session.steps,
    { stepIndex: session.stepIndex, vars: session.vars, retries: session.retries },
    inbound.body,
    tapped(inbound),
    contact,
    flowHttp,
    now,
  );
  return answerOf(turn, { session }, inbound.conversationId, session.flowName);
}

/** A flow started for the customer's message (a keyword rule's action); null when it is not live or a session already runs. */
export async function startFlowAnswer(inbound: FlowInbound, flowId: string, now = new Date()): Promise<FlowAnswer | null> {
  const live = await queryRow<{ version_id: string; steps: FlowStep[]; name: string }>(
    db(),
    sql`select v.id as version_id, v.steps, f.name from flows f join flow_versions v on v.id = f.live_version_id
        where f.id = ${flowId} and f.organization_id = ${inbound.organizationId} and f.status = 'live'`,
  );
  if (!live) return null;
  if (await activeSession(inbound.organizationId, inbound.conversationId)) return null;
  const contact = await flowContact(inbound.contactId);
  const turn = await runFrom(live.steps, 0, { stepIndex: 0, vars: {}, retries: 0 }, contact, flowHttp, now);
  const start: SessionStart = {
    organizationId: inbound.organizationId,
    conversationId: inbound.conversationId,
    contactId: inbound.contactId,
    versionId: live.version_id,
  };
  return answerOf(turn, { start }, inbound.conversationId, live.name);
}
