// A flow step's form fields (the builder's, without JavaScript): a step as the form's values, and the
// posted values as the step the server checks (app/.server/domains/automations/flows/steps.ts).
import { END, FLOW_STEP_TYPES, NEXT, type FlowStepType } from "./flows";
import { PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES } from "./payment-requests";

export type StepValues = Record<string, string>;

/** The fields each kind of step's form posts. */
export const STEP_FIELDS: Record<FlowStepType, readonly string[]> = {
  message: ["text", "buttons", "rows", "listButton", "mediaUrl", "mediaKind"],
  question: ["text", "input", "choices", "listButton", "validate", "variable", "retryText", "maxTries", "giveUpTo"],
  branch: ["source", "key", "operator", "value", "then", "else"],
  set: ["action", "key", "value"],
  http: ["method", "url", "body", "saveAs"],
  wait: ["minutes"],
  handover: ["userId"],
  payment: ["amount", "description", "reference", "expiresInMinutes", "shortcodeId", "paid", "else"],
  products: ["kind", "productIds", "header", "text"],
  // "Counts as a conversion" (decision 158): a checkbox, posted "on" when ticked.
  end: ["conversion"],
};

export const isStepType = (value: string): value is FlowStepType => (FLOW_STEP_TYPES as readonly string[]).includes(value);

const lines = (text: string | undefined) =>
  (text ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** A new step's form: its defaults. */
export function newStepValues(type: FlowStepType): StepValues {
  switch (type) {
    case "question":
      return { input: "text", validate: "any", maxTries: "3", giveUpTo: END, variable: "" };
    case "branch":
      return { source: "answer", operator: "equals", then: NEXT, else: NEXT };
    case "set":
      return { action: "add_tag" };
    case "http":
      return { method: "GET", saveAs: "http" };
    case "wait":
      return { minutes: "60" };
    case "message":
      return { mediaKind: "image" };
    case "products":
      return { kind: "product_list" };
    case "payment":
      return { expiresInMinutes: String(PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES), paid: NEXT, else: END };
    default:
      return {};
  }
}

/** A stored step in its form's fields. */
export function stepValues(step: { type: FlowStepType } & Record<string, unknown>): StepValues {
  const values: StepValues = {};
  for (const field of STEP_FIELDS[step.type]) {
    const value = step[field];
    values[field] = Array.isArray(value) ? value.join("\n") : value === undefined || value === null ? "" : String(value);
  }
  return values;
}

/** The posted fields as a step for the server's check (lists one a line, numbers as numbers). */
export function stepInputOf(type: FlowStepType, values: StepValues): Record<string, unknown> {
  const input: Record<string, unknown> = { type };
  for (const field of STEP_FIELDS[type]) {
    const value = values[field] ?? "";
    if (field === "buttons" || field === "rows" || field === "choices" || field === "productIds") input[field] = lines(value);
    else if (field === "maxTries" || field === "minutes" || field === "expiresInMinutes")
      input[field] = /^\d+$/.test(value.trim()) ? Number(value) : value;
    else if (field === "conversion") input[field] = value === "on" || value === "true";
    else input[field] = value;
  }
  return input;
}
