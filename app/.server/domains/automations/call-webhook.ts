import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { postSigned } from "../webhooks-out";

/**
 * A keyword rule's "call a webhook" action (issue 44): the customer's message POSTed to the rule's
 * URL as a Standard Webhooks message signed with the organisation's webhook secret (Developers),
 * after the same SSRF checks as webhooks out. Queued in the run's transaction, so a crash loses none;
 * a failed call is tried again with the job queue's backoff, then given up (and logged).
 */
export const AUTOMATION_WEBHOOK_QUEUE = "automations.webhook";
export const AUTOMATION_WEBHOOK_EVENT = "automation.rule";

export interface RuleWebhookJob {
  organizationId: string;
  runId: string;
  url: string;
}

/** In the run's transaction: the call, once per run. */
export async function queueRuleWebhook(tx: Executor, job: RuleWebhookJob) {
  await enqueueJob(AUTOMATION_WEBHOOK_QUEUE, job, { executor: tx, uniqueKey: `automation-webhook:${job.runId}` });
}

/** The call's body: what the customer wrote, who they are, and the rule that matched. */
async function payloadOf(job: RuleWebhookJob): Promise<string | null> {
  const row = await queryRow<{ data: Record<string, unknown>; at: string }>(
    db(),
    sql`
    select json_build_object(
             'rule', json_build_object('id', r.rule_id, 'name', k.name),
             'message', json_build_object('id', m.id, 'type', m.message_type, 'body', m.body, 'wamid', m.wamid),
             'from', c.phone, 'contactId', r.contact_id, 'conversationId', r.conversation_id, 'phoneNumberId', r.phone_number_id
           ) as data,
           to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
    from automation_runs r
    join messages m on m.id = r.message_id
    left join contacts c on c.id = r.contact_id
    left join automation_rules k on k.id = r.rule_id
    where r.id = ${job.runId} and r.organization_id = ${job.organizationId}`,
  );
  return row ? JSON.stringify({ type: AUTOMATION_WEBHOOK_EVENT, timestamp: row.at, data: row.data }) : null;
}

/** Makes one call; throws on a failed one so the queue tries again later. */
export async function callRuleWebhook(job: RuleWebhookJob) {
  const body = await payloadOf(job);
  if (!body) return;
  const outcome = await postSigned(job.organizationId, job.url, `auto_${job.runId}`, body);
  if (outcome.error === null && outcome.status !== null && outcome.status >= 200 && outcome.status < 300) return;
  const why = outcome.error ?? `HTTP ${outcome.status ?? "no answer"}`;
  log().warn({ organizationId: job.organizationId, runId: job.runId, why }, "automation webhook call failed");
  throw new Error(why);
}

export async function callRuleWebhooks(jobs: Job<RuleWebhookJob>[]) {
  for (const job of jobs) await callRuleWebhook(job.payload);
}
