import type { OutboundContent } from "../../messaging";
import { END, NEXT } from "~/lib/schemas/flows";
import type { FlowStep, QuestionStep } from "./steps";
import { acceptedAnswer, conditionHolds, LAST_ANSWER, lookup, substitute, type FlowContact, type FlowVars } from "./values";

/**
 * A flow's steps, run: from a step on until a question (waiting for the customer's answer), a wait,
 * a hand-over or the end. Pure but for the HTTP step, which is given. What it decides is applied by
 * the caller in the replies' transaction (session.ts).
 */

export type SessionStatus = "active" | "completed" | "timed_out" | "handed_over" | "stopped";

export interface SessionState {
  stepIndex: number;
  vars: FlowVars;
  retries: number;
}

/** A change to the contact: a field (name or a custom field) or a tag. */
export type ContactWrite = { type: "field"; key: string; value: string } | { type: "add_tag" | "remove_tag"; tag: string };

/**
 * A products step's message as the step gives it (its variables filled in): made into WhatsApp's
 * product message when it is sent (flows/products.ts), the catalog read then (decision 143).
 */
export interface ProductsReply {
  kind: "products";
  request: { kind: string; productIds: string[]; header: string; body: string };
}

/** What a turn sends: messages, and products still to be read from the catalog. */
export type FlowReply = OutboundContent | ProductsReply;

export interface Turn {
  replies: FlowReply[];
  writes: ContactWrite[];
  status: SessionStatus;
  state: SessionState;
  /** The step it stands at afterwards ("" when ended). */
  stepId: string;
  /** A wait's end. */
  wakeAt: Date | null;
  /** A hand-over step: to this member, or (null) the least-busy one. */
  handover: { userId: string | null } | null;
  /** A payment step: what to ask for (its variables filled in); the session waits for the request to close. */
  payment: PaymentAsk | null;
  /** Ended at an end step that counts as a conversion (decision 158). */
  conversion?: boolean;
}

/** A payment step's request, as the payment request's input (checked when it is made). */
export interface PaymentAsk {
  amount: string;
  description: string;
  reference: string;
  expiresInMinutes: number;
  shortcodeId: string;
}

export type HttpCall = (
  step: Extract<FlowStep, { type: "http" }>,
  vars: FlowVars,
  contact: FlowContact,
) => Promise<{ status: number; json: unknown }>;

/** Steps run in one turn at most: a branch that leads back cannot loop for ever. */
const STEPS_A_TURN = 60;

/** The message a question or message step sends. */
export function contentOf(step: FlowStep, vars: FlowVars, contact: FlowContact): OutboundContent | null {
  if (step.type !== "message" && step.type !== "question") return null;
  const body = substitute(step.text, vars, contact);
  const buttons = step.type === "message" ? step.buttons : step.input === "buttons" ? step.choices : [];
  const rows = step.type === "message" ? step.rows : step.input === "list" ? step.choices : [];
  if (buttons.length)
    return {
      kind: "interactive",
      interactive: { type: "button", body, buttons: buttons.map((title, i) => ({ id: `${step.id}:${i}`, title })) },
    };
  if (rows.length)
    return {
      kind: "interactive",
      interactive: {
        type: "list",
        body,
        button: step.listButton,
        sections: [{ rows: rows.map((title, i) => ({ id: `${step.id}:${i}`, title })) }],
      },
    };
  if (step.type === "message" && step.mediaUrl) return { kind: step.mediaKind, media: { link: step.mediaUrl, caption: body } };
  return { kind: "text", text: body };
}

export const indexOf = (steps: readonly FlowStep[], from: number, to: string) =>
  to === NEXT ? from + 1 : to === END ? steps.length : steps.findIndex((s) => s.id === to);

function branchHolds(step: Extract<FlowStep, { type: "branch" }>, vars: FlowVars, contact: FlowContact) {
  switch (step.source) {
    case "answer":
      return conditionHolds(step.operator, vars[LAST_ANSWER], step.value);
    case "variable":
      return conditionHolds(step.operator, lookup(step.key, vars, contact), step.value);
    case "field":
      return conditionHolds(step.operator, lookup(`contact.${step.key}`, vars, contact), step.value);
    case "tag": {
      const has = conditionHolds("equals", contact.tags, step.key);
      return step.operator === "empty" ? !has : has;
    }
  }
}

/** Runs from `from` until something waits for the customer or time, or the flow ends. */
export async function runFrom(
  steps: readonly FlowStep[],
  from: number,
  state: SessionState,
  contact: FlowContact,
  http: HttpCall,
  now: Date,
  turn: Turn = emptyTurn(state),
): Promise<Turn> {
  const vars = { ...state.vars };
  const tags = new Set(contact.tags);
  const here: FlowContact = { ...contact, attributes: { ...contact.attributes }, tags: [...tags] };
  let at = from;
  for (let ran = 0; ran < STEPS_A_TURN; ran++) {
    const step = steps[at];
    if (!step || step.type === "end") return completedAt(turn, step, at, vars);
    switch (step.type) {
      case "message":
        turn.replies.push(contentOf(step, vars, here)!);
        at += 1;
        break;
      case "products":
        turn.replies.push({
          kind: "products",
          request: {
            kind: step.kind,
            productIds: step.productIds,
            header: substitute(step.header, vars, here).trim(),
            body: substitute(step.text, vars, here).trim(),
          },
        });
        at += 1;
        break;
      case "question":
        turn.replies.push(contentOf(step, vars, here)!);
        return { ...turn, status: "active", state: { stepIndex: at, vars, retries: 0 }, stepId: step.id };
      case "branch":
        at = indexOf(steps, at, branchHolds(step, vars, here) ? step.then : step.else);
        break;
      case "set": {
        const value = substitute(step.value, vars, here);
        if (step.action === "field") {
          turn.writes.push({ type: "field", key: step.key, value });
          if (step.key === "name") here.name = value;
          else here.attributes[step.key] = value;
        } else {
          turn.writes.push({ type: step.action, tag: step.key });
          if (step.action === "add_tag") tags.add(step.key);
          else tags.delete(step.key);
          here.tags = [...tags];
        }
        at += 1;
        break;
      }
      case "http": {
        const result = await http(step, vars, here);
        vars[step.saveAs] = result.json;
        vars[`${step.saveAs}_status`] = result.status;
        at += 1;
        break;
      }
      case "wait":
        return {
          ...turn,
          status: "active",
          state: { stepIndex: at, vars, retries: 0 },
          stepId: step.id,
          wakeAt: new Date(now.getTime() + step.minutes * 60_000),
        };
      case "payment":
        return {
          ...turn,
          status: "active",
          state: { stepIndex: at, vars, retries: 0 },
          stepId: step.id,
          payment: {
            amount: substitute(step.amount, vars, here).trim(),
            description: substitute(step.description, vars, here).trim(),
            reference: substitute(step.reference, vars, here).trim(),
            expiresInMinutes: step.expiresInMinutes,
            shortcodeId: step.shortcodeId,
          },
        };
      case "handover":
        return {
          ...turn,
          status: "handed_over",
          state: { stepIndex: at, vars, retries: 0 },
          stepId: "",
          handover: { userId: step.userId || null },
        };
    }
  }
  // A loop without a question: the flow stops rather than sending for ever.
  return { ...turn, status: "stopped", state: { stepIndex: at, vars, retries: 0 }, stepId: "" };
}

/** The flow ended at `at` (an End step, or past the last step); an End step may count as a conversion (decision 158). */
function completedAt(turn: Turn, step: Extract<FlowStep, { type: "end" }> | undefined, at: number, vars: FlowVars): Turn {
  return { ...turn, status: "completed", conversion: step?.conversion === true, state: { stepIndex: at, vars, retries: 0 }, stepId: "" };
}

export const emptyTurn = (state: SessionState): Turn => ({
  replies: [],
  writes: [],
  status: "active",
  state,
  stepId: "",
  wakeAt: null,
  handover: null,
  payment: null,
});

/**
 * The customer's answer to the question the session stands at: kept and the flow goes on, or a retry
 * (the retry text and the question again), or after the last try the give-up step (or the end).
 */
export async function answerQuestion(
  steps: readonly FlowStep[],
  state: SessionState,
  text: string,
  replyId: string | null,
  contact: FlowContact,
  http: HttpCall,
  now: Date,
): Promise<Turn> {
  const step = steps[state.stepIndex] as QuestionStep;
  const accepted = acceptedAnswer(step, text, replyId);
  if (accepted !== null) {
    const vars = { ...state.vars, [step.variable]: accepted, [LAST_ANSWER]: accepted };
    return runFrom(steps, state.stepIndex + 1, { ...state, vars, retries: 0 }, contact, http, now);
  }
  const retries = state.retries + 1;
  if (retries >= step.maxTries) {
    if (step.giveUpTo === END) return { ...emptyTurn(state), status: "stopped", stepId: "" };
    return runFrom(steps, indexOf(steps, state.stepIndex, step.giveUpTo), { ...state, retries: 0 }, contact, http, now);
  }
  const turn = emptyTurn({ ...state, retries });
  if (step.retryText) turn.replies.push({ kind: "text", text: substitute(step.retryText, state.vars, contact) });
  turn.replies.push(contentOf(step, state.vars, contact)!);
  return { ...turn, stepId: step.id };
}
