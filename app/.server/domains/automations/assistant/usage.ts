import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRow } from "../../../infrastructure/db/query";
import { words } from "../../../infrastructure/words/said";
import { notify } from "../../notifications";
import { nairobiMonth } from "../../billing";

/**
 * What the assistant costs an organisation each month (a Nairobi calendar month, as billing's and
 * the partner programme's, issue 72): tokens and their cost
 * are counted as soon as the endpoint answers (spent, whatever happens to the reply next); replies
 * and handovers in the reply's own transaction. One row a month, added to in place.
 */

export interface MonthUsage {
  month: string;
  promptTokens: number;
  completionTokens: number;
  /** KES cents, rounded up from the exact figure. */
  costCents: number;
  costMicrocents: number;
  replies: number;
  handovers: number;
}

/** The Nairobi month's first day, "YYYY-MM-01". */
export const monthOf = (now: Date) => nairobiMonth(now);

/** A reply's cost in millionths of a KES cent: prices are cents a million tokens. */
export const costMicrocentsOf = (usage: { promptTokens: number; completionTokens: number }, prices: { input: number; output: number }) =>
  usage.promptTokens * prices.input + usage.completionTokens * prices.output;

export async function monthUsage(organizationId: string, now = new Date(), executor: Executor = db()): Promise<MonthUsage> {
  const month = monthOf(now);
  const row = await queryRow<{
    prompt_tokens: number | string;
    completion_tokens: number | string;
    cost_microcents: number | string;
    replies: number;
    handovers: number;
  }>(
    executor,
    sql`select prompt_tokens, completion_tokens, cost_microcents, replies, handovers from assistant_usage
        where organization_id = ${organizationId} and month = ${month}::date`,
  );
  const micro = Number(row?.cost_microcents ?? 0);
  return {
    month,
    promptTokens: Number(row?.prompt_tokens ?? 0),
    completionTokens: Number(row?.completion_tokens ?? 0),
    costMicrocents: micro,
    costCents: Math.ceil(micro / 1_000_000),
    replies: row?.replies ?? 0,
    handovers: row?.handovers ?? 0,
  };
}

/** Adds to this month's row; answers its cost after, in millionths of a cent. */
export async function addUsage(
  organizationId: string,
  now: Date,
  add: { promptTokens?: number; completionTokens?: number; costMicrocents?: number; replies?: number; handovers?: number },
  executor: Executor = db(),
): Promise<number> {
  const row = await queryRow<{ cost_microcents: number | string }>(
    executor,
    sql`insert into assistant_usage (organization_id, month, prompt_tokens, completion_tokens, cost_microcents, replies, handovers)
        values (${organizationId}, ${monthOf(now)}::date, ${add.promptTokens ?? 0}, ${add.completionTokens ?? 0}, ${add.costMicrocents ?? 0},
                ${add.replies ?? 0}, ${add.handovers ?? 0})
        on conflict (organization_id, month) do update set
          prompt_tokens = assistant_usage.prompt_tokens + excluded.prompt_tokens,
          completion_tokens = assistant_usage.completion_tokens + excluded.completion_tokens,
          cost_microcents = assistant_usage.cost_microcents + excluded.cost_microcents,
          replies = assistant_usage.replies + excluded.replies,
          handovers = assistant_usage.handovers + excluded.handovers
        returning cost_microcents`,
  );
  return Number(row?.cost_microcents ?? 0);
}

/** Whether the month's cost has reached the cap (0: no cap). */
export const overCap = (costMicrocents: number, capCents: number) => capCents > 0 && costMicrocents >= capCents * 1_000_000;

/**
 * Tells owners and admins, once a month, that the cap is reached: the month's row is marked in the
 * same statement that decides, so two workers at once alert once.
 */
export async function alertCapReached(organizationId: string, now: Date, capCents: number): Promise<boolean> {
  const month = monthOf(now);
  const marked = await queryRow<{ month: string }>(
    db(),
    sql`insert into assistant_usage (organization_id, month, cap_alerted_at) values (${organizationId}, ${month}::date, now())
        on conflict (organization_id, month) do update set cap_alerted_at = now() where assistant_usage.cap_alerted_at is null
        returning month::text`,
  );
  if (!marked) return false;
  await notify({
    organizationId,
    event: "assistant_cap",
    words: {
      title: words("automations_notice_cap_title"),
      body: words("automations_notice_cap_body", { cap: { kes: capCents }, month: { month: month.slice(0, 7) } }),
    },
    link: "/automations/assistant",
    dedupeKey: `assistant-cap:${month}`,
  });
  return true;
}

/**
 * This month's use for the Billing page: null when the organisation has never configured the
 * assistant and has no use this month (the section is then left out).
 */
export async function assistantBillingUsage(organizationId: string, now = new Date()) {
  const row = await queryRow<{ configured: boolean; cap: number | string | null }>(
    db(),
    sql`select true as configured, monthly_cap_cents as cap from assistant_settings where organization_id = ${organizationId}`,
  );
  const usage = await monthUsage(organizationId, now);
  if (!row && usage.promptTokens + usage.completionTokens + usage.replies + usage.handovers === 0) return null;
  return {
    replies: usage.replies,
    handovers: usage.handovers,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    costCents: usage.costCents,
    capCents: Number(row?.cap ?? 0),
  };
}
