import type { QuestionStep } from "./steps";

/**
 * What a flow's texts and checks read: variables substituted into texts (`{{name}}`,
 * `{{contact.name}}`, `{{http.order.status}}`), and a customer's answer checked as the question asks.
 */

export type FlowVars = Record<string, unknown>;

export interface FlowContact {
  name: string;
  phone: string;
  language: string | null;
  attributes: Record<string, unknown>;
  tags: string[];
}

/** The variable the last answer is kept in (a name members cannot give: they start with a letter). */
export const LAST_ANSWER = "_answer";

/** A dotted path's value in the variables or the contact; undefined when there is none. */
export function lookup(path: string, vars: FlowVars, contact: FlowContact): unknown {
  const [head, ...rest] = path.split(".");
  let value: unknown;
  if (head === "contact") {
    const [field, ...deeper] = rest;
    if (field === undefined) return undefined;
    value = field === "name" || field === "phone" || field === "language" ? contact[field] : contact.attributes[field];
    rest.splice(0, rest.length, ...deeper);
  } else value = vars[head ?? ""];
  for (const key of rest) {
    if (value === null || typeof value !== "object") return undefined;
    value = Array.isArray(value) ? value[Number(key)] : (value as Record<string, unknown>)[key];
  }
  return value;
}

const asText = (value: unknown): string => {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value).slice(0, 200);
  return String(value);
};

/** `{{path}}` replaced by its value (empty when unknown). */
export function substitute(text: string, vars: FlowVars, contact: FlowContact, encode: (value: string) => string = (v) => v): string {
  return text.replace(/\{\{\s*([a-zA-Z_][\w]*(?:\.[\w]+)*)\s*\}\}/g, (_, path: string) => encode(asText(lookup(path, vars, contact))));
}

/** Substituted into JSON text: each value written as a JSON string's inside, so it cannot break the document. */
export function substituteJson(text: string, vars: FlowVars, contact: FlowContact): string {
  return text.replace(/\{\{\s*([a-zA-Z_][\w]*(?:\.[\w]+)*)\s*\}\}/g, (_, path: string) =>
    JSON.stringify(asText(lookup(path, vars, contact))).slice(1, -1),
  );
}

const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();

/** The choice a reply names: by the button or row id Jumbe gave it, else by its words. */
export function choiceOf(step: QuestionStep, text: string, replyId: string | null): string | null {
  if (replyId?.startsWith(`${step.id}:`)) {
    const index = Number(replyId.slice(step.id.length + 1));
    if (Number.isInteger(index) && step.choices[index] !== undefined) return step.choices[index]!;
  }
  const folded = fold(text);
  const byWords = step.choices.find((c) => fold(c) === folded);
  if (byWords) return byWords;
  // "2" for the second choice, as customers often answer a menu.
  const number = /^\d{1,2}$/.test(folded) ? Number(folded) : NaN;
  return step.choices[number - 1] ?? null;
}

/** The answer as it is kept, or null when it is not one the question accepts. */
export function acceptedAnswer(step: QuestionStep, text: string, replyId: string | null): string | null {
  const answer = text.trim();
  if (!answer) return null;
  if (step.input !== "text" || step.validate === "choice") return choiceOf(step, answer, replyId);
  switch (step.validate) {
    case "phone": {
      const digits = answer.replace(/[\s().-]/g, "");
      if (/^0[17]\d{8}$/.test(digits)) return `+254${digits.slice(1)}`;
      return /^\+?[1-9]\d{7,14}$/.test(digits) ? (digits.startsWith("+") ? digits : `+${digits}`) : null;
    }
    case "number": {
      const value = answer.replace(/,/g, "");
      return /^-?\d+(\.\d+)?$/.test(value) ? value : null;
    }
    case "email":
      return /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(answer) && answer.length <= 254 ? answer.toLowerCase() : null;
    case "date":
      return dateOf(answer);
    default:
      return answer.slice(0, 1000);
  }
}

/** A date written 2026-11-27, 27/11/2026 or 27-11-2026 (day first, as in Kenya), as YYYY-MM-DD. */
function dateOf(text: string): string | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  const dayFirst = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  const [year, month, day] = iso ? [iso[1], iso[2], iso[3]] : dayFirst ? [dayFirst[3], dayFirst[2], dayFirst[1]] : [];
  if (!year || !month || !day) return null;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return null;
  return date.toISOString().slice(0, 10);
}

/** A branch's condition on a value (a text, a number, a list of tags). */
export function conditionHolds(operator: "equals" | "contains" | "one_of" | "empty", value: unknown, expected: string): boolean {
  const values = Array.isArray(value) ? value.map(asText) : [asText(value)];
  const wanted = fold(expected);
  switch (operator) {
    case "empty":
      return values.every((v) => fold(v) === "");
    case "equals":
      return values.some((v) => fold(v) === wanted);
    case "contains":
      return values.some((v) => fold(v).includes(wanted));
    case "one_of": {
      const options = expected.split(",").map(fold).filter(Boolean);
      return values.some((v) => options.includes(fold(v)));
    }
  }
}
