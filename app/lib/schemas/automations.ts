// Shared with the browser for inline checks; the server checks again (app/.server/domains/automations/):
// what needs the server (a regular expression's safety, a number or member of the organisation) is said
// at its field when the domain refuses it.
import * as z from "zod/mini";
import {
  AUTO_TEXT_MAX,
  AUTOMATION_MATCH_TYPES,
  AUTOMATION_MESSAGES,
  FORM_RANGES,
  FORM_WEEKDAYS,
  LEAST_BUSY,
  THEN_ASSISTANT,
  RULE_BUTTON_MAX,
  RULE_LIST_ROW_MAX,
  RULE_LIST_ROWS_MAX,
  RULE_BUTTONS_MAX,
  RULE_COOLDOWN_MAX_MINUTES,
  RULE_NAME_MAX,
  RULE_REPLY_MAX,
  RULE_TAG_MAX,
  RULE_TAGS_MAX,
  THRESHOLD_DEFAULT,
  THRESHOLD_MAX,
  THRESHOLD_MIN,
  rangeField,
  type RangeField,
} from "./automations-rules";
export * from "./automations-rules";

const characters = (text: string) => [...text].length;

/** A textarea's keywords, one a line, blank lines left out. */
export const keywordLines = (text: string) => text.split(/\r?\n/).filter((line) => line.trim() !== "");

/** A reply's buttons, one a line, trimmed, blank lines left out. */
export const buttonLines = (text: string | undefined) => keywordLines(text ?? "").map((line) => line.trim());

/** Comma-separated tags, trimmed, blank ones left out. */
export const tagList = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);

/** A similarity as typed ("0.8", or "0,8" as French writes it). */
const thresholdOf = (text: string) => (/^\d+([.,]\d+)?$/.test(text) ? Number(text.replace(",", ".")) : NaN);

const name = z.string({ error: () => AUTOMATION_MESSAGES.nameRequired }).check(
  z.trim(),
  z.minLength(1, { error: () => AUTOMATION_MESSAGES.nameRequired, abort: true }),
  z.refine((value) => characters(value) <= RULE_NAME_MAX, { error: () => AUTOMATION_MESSAGES.nameTooLong }),
);

// None is allowed only for a rule that answers an ad's customers (checked with the whole form).
const keywords = z.optional(
  z.string().check(z.refine((value) => keywordLines(value).length <= 50, { error: () => AUTOMATION_MESSAGES.keywordsTooMany })),
);

const threshold = z.optional(
  z.string().check(
    z.trim(),
    z.refine(
      (value) => {
        const n = thresholdOf(value);
        return n >= THRESHOLD_MIN && n <= THRESHOLD_MAX;
      },
      { error: () => AUTOMATION_MESSAGES.threshold },
    ),
  ),
);

const cooldownMinutes = z.optional(
  z.string().check(
    z.trim(),
    z.refine((value) => /^\d{1,6}$/.test(value) && Number(value) <= RULE_COOLDOWN_MAX_MINUTES, {
      error: () => AUTOMATION_MESSAGES.cooldown,
    }),
  ),
);

/**
 * A keyword rule's form: its name, how and on what it matches, the number it answers on, its cooldown,
 * and what it does (at least one of a reply, tags, an assignment).
 */
export const RuleFormSchema = z
  .object({
    name,
    matchType: z.enum(AUTOMATION_MATCH_TYPES, { error: () => AUTOMATION_MESSAGES.matchType }),
    keywords,
    threshold,
    phoneNumberId: z.optional(z.string()),
    fromAd: z.optional(z.string().check(z.maxLength(128, { error: () => AUTOMATION_MESSAGES.fromAd }))),
    cooldownMinutes,
    reply: z.optional(
      z.string().check(z.refine((value) => characters(value.trim()) <= RULE_REPLY_MAX, { error: () => AUTOMATION_MESSAGES.replyTooLong })),
    ),
    buttons: z.optional(z.string()),
    listButton: z.optional(z.string()),
    listRows: z.optional(z.string()),
    template: z.optional(z.string()),
    templateParameters: z.optional(z.string()),
    addTags: z.optional(z.string()),
    removeTags: z.optional(z.string()),
    assignTo: z.optional(z.string()),
    fieldKey: z.optional(z.string()),
    fieldValue: z.optional(z.string().check(z.maxLength(1000, { error: () => AUTOMATION_MESSAGES.fieldValue }))),
    webhookUrl: z.optional(z.string().check(z.maxLength(2048, { error: () => AUTOMATION_MESSAGES.webhookUrl }))),
    then: z.optional(z.string()),
    flowId: z.optional(z.string()),
    productKind: z.optional(z.string()),
    // The ticked products: one a box, so one or several values.
    productIds: z.optional(z.union([z.string(), z.array(z.string())])),
    productHeader: z.optional(z.string()),
    productBody: z.optional(z.string()),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (!keywordLines(value.keywords ?? "").length && !value.fromAd)
        ctx.addIssue({ code: "custom", path: ["keywords"], message: AUTOMATION_MESSAGES.keywordsNone });
      const tags = [...tagList(value.addTags), ...tagList(value.removeTags)];
      if (tags.length > RULE_TAGS_MAX || tags.some((tag) => characters(tag) > RULE_TAG_MAX))
        ctx.addIssue({ code: "custom", path: ["addTags"], message: AUTOMATION_MESSAGES.tags });
      const buttons = buttonLines(value.buttons);
      if (
        buttons.length > RULE_BUTTONS_MAX ||
        buttons.some((b) => characters(b) > RULE_BUTTON_MAX) ||
        new Set(buttons.map((b) => b.toLowerCase())).size !== buttons.length
      )
        ctx.addIssue({ code: "custom", path: ["buttons"], message: AUTOMATION_MESSAGES.buttons });
      else if (buttons.length && !value.reply?.trim())
        ctx.addIssue({ code: "custom", path: ["buttons"], message: AUTOMATION_MESSAGES.buttonsNeedReply });
      const rows = buttonLines(value.listRows);
      const listButton = value.listButton?.trim() ?? "";
      if (rows.length || listButton) {
        if (
          !rows.length ||
          !listButton ||
          characters(listButton) > RULE_BUTTON_MAX ||
          rows.length > RULE_LIST_ROWS_MAX ||
          rows.some((r) => characters(r) > RULE_LIST_ROW_MAX) ||
          new Set(rows.map((r) => r.toLowerCase())).size !== rows.length ||
          !value.reply?.trim()
        )
          ctx.addIssue({ code: "custom", path: ["listRows"], message: AUTOMATION_MESSAGES.list });
        else if (buttons.length) ctx.addIssue({ code: "custom", path: ["listRows"], message: AUTOMATION_MESSAGES.listOrButtons });
      }
      if (value.template && value.reply?.trim())
        ctx.addIssue({ code: "custom", path: ["template"], message: AUTOMATION_MESSAGES.templateWithReply });
      if (value.fieldKey && !value.fieldValue?.trim())
        ctx.addIssue({ code: "custom", path: ["fieldValue"], message: AUTOMATION_MESSAGES.fieldValue });
      if (
        !value.reply?.trim() &&
        !value.template &&
        !tags.length &&
        !value.assignTo &&
        !value.fieldKey &&
        !value.webhookUrl?.trim() &&
        !value.then &&
        !value.flowId &&
        !value.productKind
      )
        ctx.addIssue({ code: "custom", path: ["reply"], message: AUTOMATION_MESSAGES.noAction });
    }),
  );
export type RuleFormValue = z.output<typeof RuleFormSchema>;

/** The form's rule as the domain takes it (app/.server/domains/automations/rules.ts, RuleInput). */
export function ruleInputOf(value: RuleFormValue) {
  return {
    name: value.name,
    matchType: value.matchType,
    keywords: keywordLines(value.keywords ?? ""),
    threshold: value.threshold === undefined ? undefined : thresholdOf(value.threshold),
    phoneNumberId: value.phoneNumberId || null,
    fromAd: value.fromAd || null,
    cooldownMinutes: value.cooldownMinutes === undefined ? 0 : Number(value.cooldownMinutes),
    reply: value.reply ?? "",
    buttons: buttonLines(value.buttons),
    listButton: value.listButton?.trim() ?? "",
    listRows: buttonLines(value.listRows),
    template: value.template || null,
    templateParameters: buttonLines(value.templateParameters),
    addTags: tagList(value.addTags),
    removeTags: tagList(value.removeTags),
    assignTo: value.assignTo || null,
    setField: value.fieldKey ? { key: value.fieldKey, value: value.fieldValue ?? "" } : null,
    webhookUrl: value.webhookUrl?.trim() || null,
    then: value.then || null,
    flowId: value.flowId || null,
    products: value.productKind
      ? {
          kind: value.productKind,
          productIds: [value.productIds ?? []].flat().filter(Boolean),
          header: value.productHeader ?? "",
          body: value.productBody ?? "",
        }
      : null,
  };
}

/** "Try it": a message as a customer would write it. */
export const TryRuleSchema = z.object({
  sample: z.string({ error: () => AUTOMATION_MESSAGES.sampleRequired }).check(
    z.refine((value) => value.trim() !== "", { error: () => AUTOMATION_MESSAGES.sampleRequired, abort: true }),
    z.refine((value) => characters(value) <= RULE_REPLY_MAX, { error: () => AUTOMATION_MESSAGES.sampleTooLong }),
  ),
  // The ad the customer came from (an ad's id, as the rule form's ads), or none.
  fromAd: z.optional(z.string().check(z.maxLength(128, { error: () => AUTOMATION_MESSAGES.fromAd }))),
});

// ---------------------------------------------------------------------------------------------
// The welcome and away messages and the business hours

const TIME = /^(([01]?\d|2[0-3]):[0-5]\d|24:00)$/;
const time = z.optional(z.string().check(z.trim(), z.regex(TIME, { error: () => AUTOMATION_MESSAGES.time })));
const RANGES = Object.fromEntries(
  FORM_WEEKDAYS.flatMap((day) =>
    FORM_RANGES.flatMap((index) => [
      [rangeField("from", day, index), time],
      [rangeField("to", day, index), time],
    ]),
  ),
) as Record<RangeField, typeof time>;

const autoText = z.optional(
  z.string().check(z.refine((value) => characters(value.trim()) <= AUTO_TEXT_MAX, { error: () => AUTOMATION_MESSAGES.textTooLong })),
);

/** The holidays' textarea: one date a line. */
export const holidayLines = (text: string | undefined) =>
  (text ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * The welcome and away messages (each on or off, with its text), up to two opening times a weekday
 * (a blank day is closed), the holidays and holiday mode. Whether the times overlap, and whether a
 * holiday is a real date, the domain says (app/.server/domains/automations/hours.ts).
 */
export const AutomationSettingsSchema = z
  .object({
    welcomeEnabled: z.optional(z.string()),
    welcomeText: autoText,
    awayEnabled: z.optional(z.string()),
    awayText: autoText,
    ...RANGES,
    holidays: z.optional(z.string()),
    holidayMode: z.optional(z.string()),
  })
  .check(
    z.superRefine((value, ctx) => {
      if (value.welcomeEnabled === "on" && !value.welcomeText?.trim())
        ctx.addIssue({ code: "custom", path: ["welcomeText"], message: AUTOMATION_MESSAGES.textRequired });
      if (value.awayEnabled === "on" && !value.awayText?.trim())
        ctx.addIssue({ code: "custom", path: ["awayText"], message: AUTOMATION_MESSAGES.textRequired });
      for (const day of FORM_WEEKDAYS)
        for (const index of FORM_RANGES) {
          const from = rangeField("from", day, index);
          const to = rangeField("to", day, index);
          // One end without the other: said at the one missing.
          if (!value[from] !== !value[to])
            ctx.addIssue({ code: "custom", path: [value[from] ? to : from], message: AUTOMATION_MESSAGES.rangeIncomplete });
        }
      if (holidayLines(value.holidays).some((line) => !/^\d{4}-\d{2}-\d{2}$/.test(line)))
        ctx.addIssue({ code: "custom", path: ["holidays"], message: AUTOMATION_MESSAGES.holiday });
    }),
  );
export type AutomationSettingsValue = z.output<typeof AutomationSettingsSchema>;

type Days = Record<0 | 1 | 2 | 3 | 4 | 5 | 6, { from: string; to: string }[]>;

/** The form's settings as the domain takes them (app/.server/domains/automations/settings.ts, AutomationSettings). */
export function settingsInputOf(value: AutomationSettingsValue) {
  const days: Days = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] };
  for (const day of FORM_WEEKDAYS)
    for (const index of FORM_RANGES) {
      const from = value[rangeField("from", day, index)];
      const to = value[rangeField("to", day, index)];
      if (from && to) days[day].push({ from, to });
    }
  return {
    welcomeEnabled: value.welcomeEnabled === "on",
    welcomeText: value.welcomeText ?? "",
    awayEnabled: value.awayEnabled === "on",
    awayText: value.awayText ?? "",
    days,
    holidays: holidayLines(value.holidays),
    holidayMode: value.holidayMode === "on",
  };
}

/** The form's fields for saved settings: each day's times in their boxes (24:00, which a time box cannot show, as 00:00: the same midnight). */
export function settingsFormValues(settings: ReturnType<typeof settingsInputOf>): Record<string, string> {
  const values: Record<string, string> = {
    welcomeEnabled: settings.welcomeEnabled ? "on" : "",
    welcomeText: settings.welcomeText,
    awayEnabled: settings.awayEnabled ? "on" : "",
    awayText: settings.awayText,
    holidays: settings.holidays.join("\n"),
    holidayMode: settings.holidayMode ? "on" : "",
  };
  for (const day of FORM_WEEKDAYS)
    for (const index of FORM_RANGES) {
      const range = settings.days[day][index];
      values[rangeField("from", day, index)] = range?.from ?? "";
      values[rangeField("to", day, index)] = range ? (range.to === "24:00" ? "00:00" : range.to) : "";
    }
  return values;
}

/** A saved rule as its form shows it (the domain's RuleView, app/.server/domains/automations/rules.ts). */
interface SavedRule {
  name: string;
  matchType: string;
  keywords: readonly string[];
  threshold: number | null;
  phoneNumberId: string | null;
  /** Only messages from an ad ("any" or an ad's id); absent or null: every message. */
  fromAd?: string | null;
  cooldownMinutes: number;
  actions: readonly (
    | { type: "reply"; text: string; buttons?: readonly string[]; list?: { button: string; rows: readonly string[] } }
    | { type: "template"; name: string; language: string; parameters: readonly string[] }
    | { type: "tags"; add: readonly string[]; remove: readonly string[] }
    | { type: "assign"; userId: string }
    | { type: "handover" }
    | { type: "field"; key: string; value: string | number | boolean }
    | { type: "webhook"; url: string }
    | { type: "assistant" }
    | { type: "flow"; flowId: string }
    | { type: "products"; kind: string; productIds: readonly string[]; header: string; body: string }
  )[];
}

/** A new rule's form: words that match anywhere, the fuzzy similarity at its default, every number, no cooldown. */
export const NEW_RULE_VALUES: Record<string, string> = {
  name: "",
  matchType: "contains",
  keywords: "",
  threshold: String(THRESHOLD_DEFAULT),
  phoneNumberId: "",
  fromAd: "",
  cooldownMinutes: "0",
  reply: "",
  buttons: "",
  listButton: "",
  listRows: "",
  template: "",
  templateParameters: "",
  addTags: "",
  removeTags: "",
  assignTo: "",
  fieldKey: "",
  fieldValue: "",
  webhookUrl: "",
  then: "",
  flowId: "",
  productKind: "",
  productIds: "",
  productHeader: "",
  productBody: "",
};

/** A saved rule's fields as its form shows them. */
export function ruleFormValues(rule: SavedRule): Record<string, string> {
  const reply = rule.actions.find((action) => action.type === "reply");
  const tags = rule.actions.find((action) => action.type === "tags");
  const assign = rule.actions.find((action) => action.type === "assign" || action.type === "handover");
  const field = rule.actions.find((action) => action.type === "field");
  const webhook = rule.actions.find((action) => action.type === "webhook");
  const flow = rule.actions.find((action) => action.type === "flow");
  const template = rule.actions.find((action) => action.type === "template");
  const products = rule.actions.find((action) => action.type === "products");
  return {
    name: rule.name,
    matchType: rule.matchType,
    keywords: rule.keywords.join("\n"),
    threshold: String(rule.threshold ?? THRESHOLD_DEFAULT),
    phoneNumberId: rule.phoneNumberId ?? "",
    fromAd: rule.fromAd ?? "",
    cooldownMinutes: String(rule.cooldownMinutes),
    reply: reply?.type === "reply" ? reply.text : "",
    buttons: reply?.type === "reply" ? (reply.buttons ?? []).join("\n") : "",
    listButton: reply?.type === "reply" ? (reply.list?.button ?? "") : "",
    listRows: reply?.type === "reply" ? (reply.list?.rows ?? []).join("\n") : "",
    template: template?.type === "template" ? `${template.name}|${template.language}` : "",
    templateParameters: template?.type === "template" ? template.parameters.join("\n") : "",
    addTags: tags?.type === "tags" ? tags.add.join(", ") : "",
    removeTags: tags?.type === "tags" ? tags.remove.join(", ") : "",
    assignTo: assign?.type === "assign" ? assign.userId : assign?.type === "handover" ? LEAST_BUSY : "",
    fieldKey: field?.type === "field" ? field.key : "",
    fieldValue: field?.type === "field" ? String(field.value) : "",
    webhookUrl: webhook?.type === "webhook" ? webhook.url : "",
    then: rule.actions.some((action) => action.type === "assistant") ? THEN_ASSISTANT : "",
    flowId: flow?.type === "flow" ? flow.flowId : "",
    productKind: products?.type === "products" ? products.kind : "",
    productIds: products?.type === "products" ? products.productIds.join("\n") : "",
    productHeader: products?.type === "products" ? products.header : "",
    productBody: products?.type === "products" ? products.body : "",
  };
}
