// The assistant's and knowledge base's forms, shared with the browser for inline checks; the server
// checks again (app/.server/domains/automations/assistant/): what needs the server (an endpoint's
// address, a number of the organisation) is said at its field when the domain refuses it.
import * as z from "zod/mini";
import {
  API_KEY_MAX,
  ARTICLE_BODY_MAX,
  ARTICLE_TITLE_MAX,
  ASSISTANT_MESSAGES,
  HANDOVER_TEXT_MAX,
  INSTRUCTIONS_MAX,
  MAX_TURNS_MAX,
  MAX_TURNS_MIN,
  MODEL_MAX,
  MONEY_MAX_CENTS,
} from "./assistant";
export * from "./assistant";

const characters = (text: string) => [...text].length;

/** "1,500.50" or "1500,5" as KES: its cents, or NaN. */
export function centsOfKes(text: string): number {
  const clean = text.trim().replace(/[\s,](?=\d{3}(\D|$))/g, "");
  if (!/^\d{1,8}([.,]\d{1,2})?$/.test(clean)) return NaN;
  return Math.round(Number(clean.replace(",", ".")) * 100);
}

/** Cents as the form shows them: "1500" or "1500.50". */
export const kesOfCents = (cents: number) => (cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2));

const money = z.optional(
  z.string().check(
    z.refine((value) => value.trim() === "" || (centsOfKes(value) >= 0 && centsOfKes(value) <= MONEY_MAX_CENTS), {
      error: () => ASSISTANT_MESSAGES.money,
    }),
  ),
);

const limited = (max: number, message: () => string) =>
  z.optional(z.string().check(z.refine((value) => characters(value.trim()) <= max, { error: message })));

export const AssistantFormSchema = z.object({
  enabled: z.optional(z.string()),
  phoneNumberIds: z.optional(z.union([z.string(), z.array(z.string())])),
  instructions: limited(INSTRUCTIONS_MAX, () => ASSISTANT_MESSAGES.instructionsTooLong),
  baseUrl: z.optional(z.string()),
  model: limited(MODEL_MAX, () => ASSISTANT_MESSAGES.modelRequired),
  apiKey: limited(API_KEY_MAX, () => ASSISTANT_MESSAGES.apiKeyTooLong),
  clearKey: z.optional(z.string()),
  handoverText: limited(HANDOVER_TEXT_MAX, () => ASSISTANT_MESSAGES.handoverTooLong),
  maxTurns: z.string({ error: () => ASSISTANT_MESSAGES.maxTurns }).check(
    z.refine((value) => /^\d{1,3}$/.test(value.trim()) && Number(value) >= MAX_TURNS_MIN && Number(value) <= MAX_TURNS_MAX, {
      error: () => ASSISTANT_MESSAGES.maxTurns,
    }),
  ),
  monthlyCap: money,
  inputPrice: money,
  outputPrice: money,
});
export type AssistantFormValue = z.output<typeof AssistantFormSchema>;

const centsOr0 = (text: string | undefined) => (text?.trim() ? centsOfKes(text) : 0);

/** The form's value as the domain's input. */
export function assistantInputOf(value: AssistantFormValue) {
  const numbers =
    value.phoneNumberIds === undefined ? [] : Array.isArray(value.phoneNumberIds) ? value.phoneNumberIds : [value.phoneNumberIds];
  return {
    enabled: value.enabled === "on",
    phoneNumberIds: numbers.filter(Boolean),
    instructions: value.instructions ?? "",
    baseUrl: value.baseUrl ?? "",
    model: value.model ?? "",
    apiKey: value.apiKey ?? "",
    clearKey: value.clearKey === "on",
    handoverText: value.handoverText ?? "",
    maxTurns: Number(value.maxTurns),
    monthlyCapCents: centsOr0(value.monthlyCap),
    inputPriceCents: centsOr0(value.inputPrice),
    outputPriceCents: centsOr0(value.outputPrice),
  };
}

/** The domain's field as the form's. */
export function assistantFormField(field: string): string | null {
  switch (field) {
    case "monthlyCapCents":
      return "monthlyCap";
    case "inputPriceCents":
      return "inputPrice";
    case "outputPriceCents":
      return "outputPrice";
    case "enabled":
      return null;
    default:
      return field;
  }
}

export const TryAssistantSchema = z.object({
  sample: z
    .string({ error: () => ASSISTANT_MESSAGES.sampleRequired })
    .check(
      z.trim(),
      z.minLength(1, { error: () => ASSISTANT_MESSAGES.sampleRequired }),
      z.maxLength(1000, { error: () => ASSISTANT_MESSAGES.sampleRequired }),
    ),
});

export const ArticleFormSchema = z.object({
  title: z.string({ error: () => ASSISTANT_MESSAGES.titleRequired }).check(
    z.trim(),
    z.minLength(1, { error: () => ASSISTANT_MESSAGES.titleRequired, abort: true }),
    z.refine((value) => characters(value) <= ARTICLE_TITLE_MAX, { error: () => ASSISTANT_MESSAGES.titleTooLong }),
  ),
  body: z.string({ error: () => ASSISTANT_MESSAGES.bodyRequired }).check(
    z.trim(),
    z.minLength(1, { error: () => ASSISTANT_MESSAGES.bodyRequired, abort: true }),
    z.refine((value) => characters(value) <= ARTICLE_BODY_MAX, { error: () => ASSISTANT_MESSAGES.bodyTooLong }),
  ),
});
