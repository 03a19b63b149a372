import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRow } from "../../../infrastructure/db/query";
import { chatCompletion, type ChatCompletionResult } from "../../../infrastructure/clients/llm";
import { RetryLater } from "../../../infrastructure/jobs/queue";
import type { Answer, AutomationInbound } from "../answer";
import type { HandoverReason } from "../handover";
import { asksForPerson } from "./asks-for-person";
import { greetingOf, greetingReply } from "../greeting";
import { checkAssistantEndpoint } from "./endpoint";
import { assistantPrompt, HANDOVER_TOOL, recentTurns, type Turn } from "./prompt";
import { retrievePassages, type Passage } from "./retrieve";
import { assistantConfig, type AssistantConfig } from "./settings";
import { addUsage, alertCapReached, costMicrocentsOf, monthUsage, overCap } from "./usage";

/**
 * The AI assistant's answer to a customer's message (issue 44), for the automations runner: a reply
 * from the organisation's knowledge, or a handover to a person with the organisation's handover
 * text. A request for a person, the turn limit and the monthly cap are decided before any model
 * call; no passage found hands over without one; anything the endpoint does wrong hands over too,
 * except a short rate limit, which the job waits out (RetryLater) a few times.
 */

/** The whole model call, answer read included. */
export const ASSISTANT_TIMEOUT_MS = 20_000;
/** A 429 asking to wait longer than this hands over rather than keep the customer waiting. */
export const ASSISTANT_MAX_WAIT_MS = 30_000;
/** Rate-limited tries of one message before it is handed over. */
export const ASSISTANT_MAX_RETRIES = 3;
const MAX_REPLY_CHARS = 4096;
const MAX_ANSWER_TOKENS = 400;

/** What the assistant decided, with what it read: the runner's Answer and the page's "Try it" both come from it. */
export type AssistantOutcome =
  | { kind: "answer"; text: string; passages: Passage[] }
  | { kind: "handover"; reason: HandoverReason; detail?: string; passages: Passage[] }
  | { kind: "retry"; afterMs: number };

export interface CallOptions {
  /** The job's tries so far: rate limits are waited out up to ASSISTANT_MAX_RETRIES. */
  attempt?: number;
  timeoutMs?: number;
  /** The model call; bench/assistant.ts puts an instant one here to time everything else. */
  complete?: typeof chatCompletion;
}

interface Question {
  organizationId: string;
  body: string;
  locale: string;
  history: Turn[];
}

const businessNameOf = async (organizationId: string) =>
  (await queryRow<{ name: string }>(db(), sql`select name from organizations where id = ${organizationId}`))?.name ?? "";

/**
 * How a failed call reads as a handover's detail ("Try it" and the conversation's log): the
 * failure's code, and the endpoint's own words only when a 200 carried nothing but an error.
 */
function failureDetail(result: Extract<ChatCompletionResult, { kind: "failed" }>) {
  const code = result.httpStatus ? `${result.reason} (HTTP ${result.httpStatus})` : result.reason;
  return result.endpointMessage ? `${code}: ${result.endpointMessage}`.slice(0, 200) : code;
}

/** Everything after the checks that need no model: retrieval, the call, its cost, what it means. */
async function consult(config: AssistantConfig, question: Question, now: Date, options: CallOptions): Promise<AssistantOutcome> {
  const usage = await monthUsage(question.organizationId, now);
  if (overCap(usage.costMicrocents, config.monthlyCapCents)) {
    await alertCapReached(question.organizationId, now, config.monthlyCapCents);
    return { kind: "handover", reason: "over_cap", passages: [] };
  }
  const passages = await retrievePassages(question.organizationId, question.body);
  if (!passages.length) return { kind: "handover", reason: "no_knowledge", passages };
  const endpoint = await checkAssistantEndpoint(config.baseUrl);
  if (!endpoint.ok) return { kind: "handover", reason: "model_error", detail: "endpoint refused", passages };
  const messages = assistantPrompt({
    businessName: await businessNameOf(question.organizationId),
    instructions: config.instructions,
    locale: question.locale,
    passages,
    history: question.history,
    message: question.body,
  });
  const result = await (options.complete ?? chatCompletion)({
    baseUrl: endpoint.url,
    apiKey: config.apiKey,
    model: config.model,
    messages,
    tools: [HANDOVER_TOOL],
    timeoutMs: options.timeoutMs ?? ASSISTANT_TIMEOUT_MS,
    maxTokens: MAX_ANSWER_TOKENS,
    temperature: 0.2,
  });
  if (result.kind === "answer" || result.kind === "tool") {
    const cost = costMicrocentsOf(result.usage, { input: config.inputPriceCents, output: config.outputPriceCents });
    const total = await addUsage(question.organizationId, now, {
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      costMicrocents: cost,
    });
    if (overCap(total, config.monthlyCapCents)) await alertCapReached(question.organizationId, now, config.monthlyCapCents);
  }
  switch (result.kind) {
    case "answer": {
      const text = result.content.trim().slice(0, MAX_REPLY_CHARS);
      return text ? { kind: "answer", text, passages } : { kind: "handover", reason: "model_error", detail: "empty", passages };
    }
    case "tool": {
      if (result.name !== HANDOVER_TOOL.name)
        return { kind: "handover", reason: "model_error", detail: `tool ${result.name}`.slice(0, 80), passages };
      const why = typeof result.arguments.reason === "string" ? result.arguments.reason.slice(0, 40) : "";
      return { kind: "handover", reason: why === "no_answer" ? "no_knowledge" : "assistant_tool", detail: why || undefined, passages };
    }
    case "retry":
      if (result.afterMs <= ASSISTANT_MAX_WAIT_MS && (options.attempt ?? 0) < ASSISTANT_MAX_RETRIES)
        return { kind: "retry", afterMs: result.afterMs };
      return { kind: "handover", reason: "model_error", detail: "rate_limited", passages };
    case "failed":
      return { kind: "handover", reason: "model_error", detail: failureDetail(result), passages };
  }
}

/** Assistant replies in this conversation since a person last resolved it (or in the last day). */
async function turnsTaken(inbound: AutomationInbound): Promise<number> {
  const row = await queryRow<{ n: number }>(
    db(),
    sql`select count(*)::int as n from automation_runs r join conversations v on v.id = r.conversation_id
        where r.conversation_id = ${inbound.conversationId} and r.kind = 'assistant' and r.reply_id is not null
          and r.created_at > greatest(coalesce(v.resolved_at, '-infinity'::timestamptz), now() - interval '24 hours')`,
  );
  return row?.n ?? 0;
}

/** The outcome for a message, the checks that need no model first. */
export async function decideAssistant(
  config: AssistantConfig,
  question: Question,
  turns: number,
  now: Date,
  options: CallOptions = {},
): Promise<AssistantOutcome> {
  if (asksForPerson(question.body)) return { kind: "handover", reason: "asked_for_person", passages: [] };
  if (turns >= config.maxTurns) return { kind: "handover", reason: "turn_limit", passages: [] };
  return consult(config, question, now, options);
}

/** Whether the assistant answers on this number. */
const answersOn = (config: AssistantConfig | null, phoneNumberId: string): config is AssistantConfig =>
  !!config && config.enabled && config.phoneNumberIds.includes(phoneNumberId);

/** Whether the assistant is on for this number: one small read, before anything costs more. */
export async function assistantAnswersOn(organizationId: string, phoneNumberId: string): Promise<boolean> {
  const row = await queryRow<{ on: boolean }>(
    db(),
    sql`select exists (select 1 from assistant_settings where organization_id = ${organizationId} and enabled
                         and ${phoneNumberId} = any(phone_number_ids)) as on`,
  );
  return Boolean(row?.on);
}

/**
 * The runner's entry point: the assistant's Answer to a customer's message, or null when the
 * assistant is off for its number (or there is nothing to read). A short rate limit throws
 * RetryLater: the job runs again after the wait.
 */
export async function assistantAnswer(inbound: AutomationInbound, now = new Date(), options: CallOptions = {}): Promise<Answer | null> {
  const config = await assistantConfig(inbound.organizationId);
  if (!answersOn(config, inbound.phoneNumberId) || !inbound.body.trim()) return null;
  const question: Question = {
    organizationId: inbound.organizationId,
    body: inbound.body,
    locale: inbound.locale,
    history: await recentTurns(inbound),
  };
  const outcome = await decideAssistant(config, question, await turnsTaken(inbound), now, options);
  if (outcome.kind === "retry") throw new RetryLater(outcome.afterMs, "the assistant's endpoint asked to wait");
  const organizationId = inbound.organizationId;
  if (outcome.kind === "answer")
    return {
      kind: "assistant",
      replies: [{ kind: "text", text: outcome.text }],
      effects: (tx) => addUsage(organizationId, now, { replies: 1 }, tx).then(() => undefined),
    };
  return {
    kind: "assistant",
    replies: config.handoverText ? [{ kind: "text", text: config.handoverText }] : [],
    handover: { reason: outcome.reason, ...(outcome.detail ? { detail: outcome.detail } : {}) },
    effects: (tx) => addUsage(organizationId, now, { handovers: 1 }, tx).then(() => undefined),
  };
}

/**
 * The page's "Try it": a sample question through the saved settings, as a customer's first message
 * would be answered (no history, no turn limit), with the passages it read. Tokens it spends count.
 * A greeting is no question (decision 113): the greeting back a customer would get, without a model call.
 */
export async function tryAssistant(
  organizationId: string,
  sample: string,
  locale: string,
  now = new Date(),
  options: Pick<CallOptions, "timeoutMs"> = {},
): Promise<AssistantOutcome | { kind: "greeting"; text: string; passages: Passage[] } | null> {
  const config = await assistantConfig(organizationId);
  if (!config || !sample.trim()) return null;
  const greeting = greetingOf(sample);
  if (greeting) return { kind: "greeting", text: await greetingReply(organizationId, greeting, locale), passages: [] };
  // Nothing waits out a rate limit here: the page answers now.
  return decideAssistant(config, { organizationId, body: sample, locale, history: [] }, 0, now, {
    ...options,
    attempt: ASSISTANT_MAX_RETRIES,
  });
}
