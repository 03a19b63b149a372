import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRow } from "../../../infrastructure/db/query";
import { tappedId, type Answer, type AutomationInbound } from "../answer";
import { answerQuestion, runFrom, type Turn } from "./engine";
import { flowHttp } from "./http";
import { flowReplies } from "./products";
import { activeSession, flowContact, writeTurn, type ActiveSession, type FlowOf, type SessionStart } from "./session";
import type { FlowStep } from "./steps";

/**
 * Flows answer customers' messages (issue 44): a conversation in a flow has its message taken first,
 * as the answer to the question it stands at; a keyword rule may start a flow. What to send and the
 * session's writes are handed to the runner (run.ts) as an Answer: replies and writes in one
 * transaction, so a retry after a crash sends nothing twice.
 */

/**
 * A turn as the runner's Answer: its replies (products read from the catalog now), and its writes
 * (the session, the contact, a hand-over) as effects.
 */
async function answerOf(
  organizationId: string,
  turn: Turn,
  where: { start: SessionStart } | { session: ActiveSession },
  flow: FlowOf,
): Promise<Answer> {
  const replies = await flowReplies(organizationId, turn.replies);
  return { kind: "flow", replies, effects: async (tx) => void (await writeTurn(tx, where, turn, flow)) };
}

/**
 * The answer to a customer's message in a conversation with an active session: the question it
 * stands at answered (or asked again). Null when the conversation has no session, or its session
 * waits for time (a wait step): other automations may answer meanwhile.
 */
export async function flowAnswer(inbound: AutomationInbound, now = new Date()): Promise<Answer | null> {
  const session = await activeSession(inbound.organizationId, inbound.conversationId);
  if (!session || session.wakeAt) return null;
  const step = session.steps[session.stepIndex];
  if (step?.type !== "question" || step.id !== session.stepId) return null;
  const contact = await flowContact(inbound.contactId);
  const turn = await answerQuestion(
    session.steps,
    { stepIndex: session.stepIndex, vars: session.vars, retries: session.retries },
    inbound.body,
    tappedId(inbound),
    contact,
    flowHttp,
    now,
  );
  return answerOf(
    inbound.organizationId,
    turn,
    { session },
    { flowId: session.flowId, flowName: session.flowName, version: session.version },
  );
}

/**
 * A flow started for the customer's message (a keyword rule's action), on the flow's live version.
 * Null when the flow is not live (off, never published, another organisation's) or the conversation
 * already has a session.
 */
export async function startFlowAnswer(inbound: AutomationInbound, flowId: string, now = new Date()): Promise<Answer | null> {
  const live = await queryRow<{ version_id: string; version: number; steps: FlowStep[]; name: string }>(
    db(),
    sql`select v.id as version_id, v.version, v.steps, f.name from flows f join flow_versions v on v.id = f.live_version_id
        where f.id::text = ${flowId} and f.organization_id = ${inbound.organizationId} and f.status = 'live'`,
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
  return answerOf(inbound.organizationId, turn, { start }, { flowId, flowName: live.name, version: live.version });
}
