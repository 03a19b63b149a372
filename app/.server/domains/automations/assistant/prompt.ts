import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { ChatMessage, ChatTool } from "../../../infrastructure/clients/llm";
import type { Passage } from "./retrieve";

/**
 * The assistant's prompt (issue 44): what it must do and not do, the business's own instructions,
 * the passages it may answer from, each a `[K<n>] ` line (the contract with the sandbox, and a form
 * any model reads), then the last few turns of the conversation and the customer's message. The
 * handover is a tool, so "a person, please" and "I cannot answer this" are the model's decisions
 * Jumbe can see, not words it must guess at.
 */

export const HANDOVER_TOOL: ChatTool = {
  name: "handover",
  description:
    "Hand the conversation to a person from the business. Call it when the customer asks for a person, when the passages do not answer the question, or when the customer is upset.",
  parameters: {
    type: "object",
    properties: {
      reason: { type: "string", enum: ["customer_asked", "no_answer", "other"], description: "Why a person should take over." },
    },
    required: ["reason"],
    additionalProperties: false,
  },
};

/** Turns of the conversation before the customer's message sent with it, at most. */
export const HISTORY_TURNS = 6;
const HISTORY_CHARS = 1000;

const LANGUAGES: Record<string, string> = { en: "English", sw: "Swahili", fr: "French" };

export interface Turn {
  role: "user" | "assistant";
  content: string;
}

/** The conversation's messages before this one (oldest first), text only, since it was last resolved or a day ago. */
export async function recentTurns(inbound: { organizationId: string; id: string; conversationId: string }): Promise<Turn[]> {
  const rows = await queryRows<{ direction: string; body: string }>(
    db(),
    sql`
    select m.direction, m.body from messages m
    join conversations v on v.id = ${inbound.conversationId}
    where m.organization_id = ${inbound.organizationId} and m.contact_id = v.contact_id and m.phone_number_id = v.phone_number_id
      and m.seq < (select seq from messages where id = ${inbound.id})
      and m.created_at > greatest(coalesce(v.resolved_at, '-infinity'::timestamptz), now() - interval '24 hours')
      and m.body <> ''
    order by m.seq desc limit ${HISTORY_TURNS}`,
  );
  return rows.reverse().map((r) => ({
    role: r.direction === "inbound" ? ("user" as const) : ("assistant" as const),
    content: r.body.slice(0, HISTORY_CHARS),
  }));
}

/** A line of the business's instructions can never pose as a passage. */
const unmarked = (line: string) => line.replace(/^\s*\[K\d+\]\s*/i, "");

export function assistantPrompt(input: {
  businessName: string;
  instructions: string;
  locale: string;
  passages: readonly Passage[];
  history: readonly Turn[];
  message: string;
}): ChatMessage[] {
  const language = LANGUAGES[input.locale] ?? "English";
  const system = [
    `You are the WhatsApp assistant of ${input.businessName.replace(/\s+/g, " ").trim()}.`,
    "Answer the customer's last message only from the numbered passages below, briefly, in the language the customer writes in" +
      ` (${language} if unsure). Never invent prices, dates, amounts, phone numbers or policies.`,
    "If the passages do not answer it, or the customer asks for a person, call the handover tool instead of answering.",
    ...(input.instructions.trim()
      ? ["The business's instructions (tone, what not to discuss):", ...input.instructions.split("\n").map(unmarked)]
      : []),
    "Passages:",
    ...input.passages.map((p, i) => `[K${i + 1}] ${p.text.replace(/\s+/g, " ").trim()}`),
  ].join("\n");
  return [
    { role: "system", content: system },
    ...input.history.map((turn): ChatMessage => ({ role: turn.role, content: turn.content })),
    { role: "user", content: input.message.slice(0, 4000) },
  ];
}
