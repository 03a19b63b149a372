import type { Executor } from "../../infrastructure/db/client";
import type { OutboundContent } from "../messaging";
import type { HandoverBy, HandoverReason } from "./handover";

/**
 * A customer's message as every automation reads it (keyword rules, flows, the assistant, welcome
 * and away): what they wrote or tapped, who they are, and where the conversation stands.
 */
export interface AutomationInbound {
  organizationId: string;
  /** The customer's message (messages.id). */
  id: string;
  /** What they wrote, or the title of the button or list row they tapped. */
  body: string;
  /** text, button or interactive. */
  messageType: string;
  /** Meta's message as stored (a button or list reply's id is in it). */
  payload: unknown;
  phoneNumberId: string;
  contactId: string;
  /** The customer's number, E.164. */
  phone: string;
  conversationId: string;
  /** The organisation's time zone. */
  timeZone: string;
  /** Their first message ever to the organisation. */
  firstEver: boolean;
  /** The language Jumbe's own words to this customer are in: the contact's, else the organisation's. */
  locale: "en" | "sw" | "fr";
}

/** What an automation answers a customer's message with; the runner (run.ts) queues and records it. */
export interface Answer {
  kind: "rule" | "welcome" | "away" | "flow" | "assistant";
  /** The keyword rule that answered (kind rule, or a rule that started a flow or handed to the assistant). */
  ruleId?: string | null;
  /** Messages to the customer, in order, queued in one transaction (may be none). */
  replies: OutboundContent[];
  /** More writes in that transaction, after the run's row (runId: automation_runs.id); throwing undoes everything. */
  effects?: (tx: Executor, runId: string) => Promise<void>;
  /** Hands the conversation to a person in the same transaction. */
  handover?: { reason: HandoverReason; detail?: string; by?: HandoverBy };
}

/** The id of the button or list row a customer tapped (null for a typed message). */
export function tappedId(inbound: Pick<AutomationInbound, "messageType" | "payload">): string | null {
  const payload = inbound.payload as {
    button?: { payload?: unknown };
    interactive?: { button_reply?: { id?: unknown }; list_reply?: { id?: unknown } };
  } | null;
  const id =
    inbound.messageType === "button"
      ? payload?.button?.payload
      : (payload?.interactive?.button_reply?.id ?? payload?.interactive?.list_reply?.id);
  return typeof id === "string" ? id : null;
}
