import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { isRefusal } from "../../infrastructure/refusal";
import { recordActivity } from "../activity";
import { requestOrderPayment, type NewOrder } from "../shop";
import { admitAutomatedReply, KeptBack } from "./reply-gate";
import { touchAutomations, type RuleActor } from "./rules";

/**
 * The automation "when a cart arrives, ask for its total by M-Pesa" (issue 76, decision 139). An
 * order message is no text for keyword rules, flows or the assistant (run.ts reads none), so this
 * one switch answers it. In the webhook's transaction a job is queued for each order stored for the
 * first time (a repeated webhook stores none); the job asks through the shop's own "Ask for
 * payment" (shop/order-payment.ts), whose check under the order's row lock makes one request per
 * order, however often the job runs or an agent clicks meanwhile.
 */

export const ORDER_PAYMENT_QUEUE = "automations.order-payment";

export interface OrderPaymentJob {
  organizationId: string;
  orderId: string;
  conversationId: string;
}

/** Turns the automation on or off (owners and admins, as every automation), in the activity log. */
export async function saveOrderPayment(actor: RuleActor, enabled: boolean) {
  await db().transaction(async (tx) => {
    await touchAutomations(tx, actor.organizationId, actor.userId);
    await tx.execute(
      sql`update automation_settings set order_payment_enabled = ${enabled} where organization_id = ${actor.organizationId}`,
    );
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: enabled ? "Order payment automation turned on" : "Order payment automation turned off",
    meta: actor.meta,
  });
}

/** In the webhook's transaction: a job for each new order of an organisation with the automation on. */
export async function queueOrderPayments(tx: Executor, orders: readonly NewOrder[]) {
  const asked = orders.filter((o): o is NewOrder & { conversationId: string } => !!o.conversationId);
  if (!asked.length) return;
  const on = await queryRows<{ organization_id: string }>(
    tx,
    sql`select organization_id from automation_settings
        where order_payment_enabled and organization_id = any(${sql.param([...new Set(asked.map((o) => o.organizationId))])}::uuid[])`,
  );
  const enabled = new Set(on.map((r) => r.organization_id));
  for (const order of asked.filter((o) => enabled.has(o.organizationId)))
    await enqueueJob(
      ORDER_PAYMENT_QUEUE,
      { organizationId: order.organizationId, orderId: order.id, conversationId: order.conversationId } satisfies OrderPaymentJob,
      { executor: tx, uniqueKey: `order-payment:${order.id}` },
    );
}

/**
 * The order's total asked of its customer, unless a person holds the conversation (automations stay
 * silent: the agent asks from the cart) or the automation was turned off meanwhile. The early read
 * only saves work: the request passes the reply gate (reply-gate.ts) in its own transaction, under the
 * conversation's lock a person takes to hold it, so a member who answers or is assigned the
 * conversation while the job runs silences it. A refusal (asked already, no shortcode, the window
 * closed) or a reply kept back is logged, not retried: the cart's button is still there.
 */
export async function askOrderPayment(job: OrderPaymentJob) {
  const order = await queryRow<{ held: boolean; phone_number_id: string; message_id: string | null; enabled: boolean }>(
    db(),
    sql`select v.person_held_at is not null as held, v.phone_number_id, o.message_id,
               coalesce((select s.order_payment_enabled from automation_settings s where s.organization_id = o.organization_id), false) as enabled
        from orders o join conversations v on v.id = o.conversation_id and v.organization_id = o.organization_id
        where o.organization_id = ${job.organizationId} and o.id = ${job.orderId} and o.conversation_id = ${job.conversationId}`,
  );
  if (!order || order.held || !order.enabled) return;
  const gate = (tx: Executor) =>
    admitAutomatedReply(tx, {
      conversationId: job.conversationId,
      phoneNumberId: order.phone_number_id,
      sends: true,
      // Outside the window the request goes as its template (payments/requests/create.ts): either is allowed here.
      freeForm: false,
      answering: order.message_id,
    });
  try {
    await requestOrderPayment({ organizationId: job.organizationId, userId: null }, job.orderId, job.conversationId, gate);
  } catch (error) {
    if (error instanceof KeptBack) {
      log().info({ organizationId: job.organizationId, orderId: job.orderId, keptBack: error.why }, "order payment kept back");
      return;
    }
    if (!isRefusal(error)) throw error;
    log().info(
      { organizationId: job.organizationId, orderId: job.orderId, refusal: error.code ?? error.status },
      "order payment not asked",
    );
  }
}

export async function runOrderPaymentJobs(jobs: Job<OrderPaymentJob>[]) {
  for (const job of jobs) await askOrderPayment(job.payload);
}
