import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { countAffected, queryRows } from "../../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../../infrastructure/jobs/queue";
import { log } from "../../../infrastructure/log";
import { isRefusal } from "../../../infrastructure/refusal";
import { createPaymentRequest, paymentRequestById, type ClosedRequest } from "../../payments";
import { admitAutomatedReply, KeptBack } from "../reply-gate";
import { indexOf, runFrom } from "./engine";
import { flowHttp } from "./http";
import { deliver, reachOf } from "./jobs";
import { endSession, flowContact, sessionById, SessionMoved, writeTurn, type ActiveSession, type FlowPaymentJob } from "./session";
import type { FlowVars } from "./values";

/**
 * A flow's payment step (issue 76, decision 139). The turn that reaches it is written first (its
 * messages queued, the session standing at the step); a job then makes the payment request (source
 * `flow`), and links it to the session in the request's own transaction, once. The session waits:
 * when the request closes (payments announces it in the closing transaction), a job is queued there
 * that takes the flow on, to the step's `paid` target or its `else` (expired). A request refused
 * (no shortcode, a bad amount, outside the window) takes it to `else` at once, the reason kept in
 * `{{payment_error}}`.
 */

/** The session's variable holding the request it waits for (a name members cannot give). */
export const PAYMENT_WAITING = "_payment_request";
export const FLOW_PAYMENT_CLOSED_QUEUE = "flows.payment-closed";

export interface FlowPaymentClosedJob {
  sessionId: string;
  stepId: string;
  requestId: string;
  outcome: ClosedRequest["outcome"];
}

type Outcome = "paid" | "expired" | "cancelled" | "refused";

/** In the request's transaction: the session still stands at the step and has asked nothing yet, else nothing is stored or sent. */
async function linkRequest(tx: Executor, session: ActiveSession, requestId: string) {
  const linked = await countAffected(
    tx,
    sql`update flow_sessions
        set vars = vars || jsonb_build_object(${PAYMENT_WAITING}::text, ${requestId}::text), last_activity_at = now(),
            wake_at = (select expires_at from payment_requests where id = ${requestId})
        where id = ${session.id} and status = 'active' and step_id = ${session.stepId} and not (vars ? ${PAYMENT_WAITING})`,
  );
  if (linked !== 1) throw new SessionMoved();
}

/** The payment step's job: the request made and linked, or (refused) the flow on to `else`. */
export async function askFlowPayment(payload: FlowPaymentJob, now = new Date()) {
  const session = await sessionById(payload.sessionId);
  if (!session || session.status !== "active" || session.stepId !== payload.stepId || session.vars[PAYMENT_WAITING]) return;
  if (session.steps[session.stepIndex]?.type !== "payment") return;
  const reach = await reachOf(session.conversationId);
  if (!reach) {
    await db().transaction((tx) => endSession(tx, session.id, "stopped"));
    return;
  }
  // The reply gate, in the request's transaction under the conversation's lock: a person who took the
  // conversation since reachOf read it silences the request as every flow message (jobs.ts deliver).
  const gate = (tx: Executor) =>
    admitAutomatedReply(tx, {
      conversationId: reach.conversationId,
      phoneNumberId: reach.phoneNumberId,
      sends: true,
      // Outside the window the request goes as its template (payments/requests/create.ts).
      freeForm: false,
      answering: null,
    });
  try {
    await createPaymentRequest(
      { organizationId: session.organizationId, userId: null },
      session.conversationId,
      { ...payload.ask, shortcodeId: payload.ask.shortcodeId || null },
      {
        source: "flow",
        sourceId: session.flowId,
        gate,
        withRequest: (tx, requestId) => linkRequest(tx, session, requestId),
      },
    );
  } catch (error) {
    if (error instanceof SessionMoved) return;
    if (error instanceof KeptBack) {
      log().info({ organizationId: session.organizationId, keptBack: error.why }, "flow payment request kept back: the session ends");
      await db().transaction((tx) => endSession(tx, session.id, "stopped"));
      return;
    }
    if (!isRefusal(error)) throw error;
    log().info({ organizationId: session.organizationId, refusal: error.code }, "flow payment step refused: the flow goes on to else");
    await resumeSession(session, "refused", { payment_error: error.message }, now);
  }
}

/** In the transaction that closes a request: the session waiting for it is taken on by a job. */
export async function flowPaymentClosed(tx: Executor, closed: ClosedRequest) {
  const [waiting] = await queryRows<{ id: string; step_id: string }>(
    tx,
    sql`select s.id, s.step_id from payment_requests r join flow_sessions s on s.conversation_id = r.conversation_id
        where r.id = ${closed.requestId} and r.organization_id = ${closed.organizationId} and r.source = 'flow'
          and s.status = 'active' and s.vars ->> ${PAYMENT_WAITING} = ${closed.requestId}`,
  );
  if (!waiting) return;
  await enqueueJob(
    FLOW_PAYMENT_CLOSED_QUEUE,
    { sessionId: waiting.id, stepId: waiting.step_id, requestId: closed.requestId, outcome: closed.outcome } satisfies FlowPaymentClosedJob,
    { executor: tx, uniqueKey: `flow-payment-closed:${closed.requestId}` },
  );
}

/** The request closed: the flow goes on, with what became of it in `{{payment_status}}` (and the receipt). */
export async function resumeFlowPayment(payload: FlowPaymentClosedJob, now = new Date()) {
  const session = await sessionById(payload.sessionId);
  if (!session || session.status !== "active" || session.stepId !== payload.stepId) return;
  if (session.vars[PAYMENT_WAITING] !== payload.requestId) return;
  const request = await paymentRequestById(session.organizationId, payload.requestId);
  await resumeSession(
    session,
    payload.outcome,
    { payment_receipt: request?.paid?.receipt ?? "", payment_reference: request?.reference ?? "" },
    now,
  );
}

/** Runs the flow on from the payment step's target, as a wait's wake-up does; a session moved on meanwhile is let be. */
async function resumeSession(session: ActiveSession & { status: string }, outcome: Outcome, extra: FlowVars, now: Date) {
  const step = session.steps[session.stepIndex];
  if (step?.type !== "payment" || step.id !== session.stepId) return;
  const { [PAYMENT_WAITING]: _asked, ...kept } = session.vars;
  const vars: FlowVars = { ...kept, payment_status: outcome, payment_error: "", ...extra };
  const to = outcome === "paid" ? step.paid : step.else;
  const contact = await flowContact(session.contactId);
  const turn = await runFrom(
    session.steps,
    indexOf(session.steps, session.stepIndex, to),
    { stepIndex: session.stepIndex, vars, retries: 0 },
    contact,
    flowHttp,
    now,
  );
  const flow = { flowId: session.flowId, flowName: session.flowName, version: session.version };
  const write = async (tx: Executor) => void (await writeTurn(tx, { session }, turn, flow));
  const reach = await reachOf(session.conversationId);
  try {
    if (!reach || !(await deliver(session.organizationId, reach, turn.replies, write)))
      await db().transaction((tx) => endSession(tx, session.id, "stopped"));
  } catch (error) {
    if (!(error instanceof SessionMoved)) throw error;
  }
}

export async function runFlowPaymentJobs(jobs: Job<FlowPaymentJob>[]) {
  for (const job of jobs) await askFlowPayment(job.payload);
}

export async function runFlowPaymentClosedJobs(jobs: Job<FlowPaymentClosedJob>[]) {
  for (const job of jobs) await resumeFlowPayment(job.payload);
}
