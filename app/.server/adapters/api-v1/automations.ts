import type { z } from "zod";
import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { isRefusal } from "../../infrastructure/refusal";
import {
  createRule,
  deleteRule,
  getRule,
  listRules,
  placeRule,
  setRuleEnabled,
  updateRule,
  type RuleActor,
  type RuleInput,
  type RuleView,
} from "../../domains/automations/rules";
import { readAutomationSettings, saveAutomationSettings, type AutomationSettings as Stored } from "../../domains/automations/settings";
import { checkRule } from "../../domains/automations/match";
import { canonicalTimeZone, checkSchedule, isOpenAt, nextOpening, type ScheduleError, type Weekday } from "../../domains/automations/hours";
import { LEAST_BUSY, RULE_TAG_MAX, THEN_ASSISTANT } from "~/lib/schemas/automations-rules";
import { FLOW_PRODUCT_KINDS } from "~/lib/schemas/flows";
import { ApiProblem } from "./problem";
import {
  WEEKDAY_NAMES,
  WEEKDAY_NUMBER,
  type AutomationRule,
  type AutomationRuleCreate,
  type AutomationRuleUpdate,
  type AutomationSettings,
  type AutomationSettingsUpdate,
} from "./automation-schemas";

/**
 * Automations in /api/v1 (issue 44): the keyword rules, the welcome and away messages and the
 * business hours, through the same domain functions and checks as the Automations page, which
 * record the same activity. The API's shapes are developers' (actions as an object, weekdays by
 * name, a rule's place in the order from 1); the domain's refusals become `{ code, message, field }`.
 */

export const RULE_NOT_FOUND = "No keyword rule with this id in your organisation: unknown, malformed, deleted or another's.";

/** A key acts for its organisation, not for a member (the activity log shows no one). */
const actorOf = (organizationId: string): RuleActor => ({ organizationId, userId: null });

type ApiRule = z.input<typeof AutomationRule>;

/** The API's list and template as the domain's fields (the form's): a template as `name|language`. */
function listAndTemplate(actions: {
  list?: { button: string; rows: string[] } | null;
  template?: { name: string; language: string; parameters: string[] } | null;
}): Pick<RuleInput, "listButton" | "listRows" | "template" | "templateParameters"> {
  return {
    listButton: actions.list?.button ?? "",
    listRows: actions.list?.rows ?? [],
    template: actions.template ? `${actions.template.name}|${actions.template.language}` : null,
    templateParameters: actions.template?.parameters ?? [],
  };
}
type Actions = ApiRule["actions"];

const isProductKind = (kind: string): kind is NonNullable<Actions["sendProducts"]>["kind"] =>
  (FLOW_PRODUCT_KINDS as readonly string[]).includes(kind);

/** A stored "Send products" action in the API's words (decision 143). */
function productsOfAction(action: { kind: string; productIds: string[]; header: string; body: string }): Actions["sendProducts"] {
  if (!isProductKind(action.kind)) return null;
  return { kind: action.kind, productIds: action.productIds, header: action.header, body: action.body };
}

/** The stored list of actions as the API's object: an action not taken is null or an empty list. */
function actionsOf(view: RuleView): Actions {
  const actions: Actions = {
    reply: null,
    buttons: [],
    list: null,
    template: null,
    addTags: [],
    removeTags: [],
    assignTo: null,
    setField: null,
    webhookUrl: null,
    then: null,
    startFlow: null,
    sendProducts: null,
  };
  for (const action of view.actions) {
    if (action.type === "reply") {
      actions.reply = action.text;
      actions.buttons = action.buttons ?? [];
      actions.list = action.list ?? null;
    } else if (action.type === "template")
      actions.template = { name: action.name, language: action.language, parameters: action.parameters };
    else if (action.type === "handover") actions.assignTo = LEAST_BUSY;
    else if (action.type === "field") actions.setField = { key: action.key, value: action.value };
    else if (action.type === "webhook") actions.webhookUrl = action.url;
    else if (action.type === "assistant") actions.then = THEN_ASSISTANT;
    else if (action.type === "tags") {
      actions.addTags = action.add;
      actions.removeTags = action.remove;
    } else if (action.type === "assign") actions.assignTo = action.userId;
    else if (action.type === "flow") actions.startFlow = action.flowId;
    else if (action.type === "products") actions.sendProducts = productsOfAction(action);
  }
  return actions;
}

const apiRule = (view: RuleView, place: number): ApiRule => ({
  id: view.id,
  name: view.name,
  matchType: view.matchType,
  keywords: view.keywords,
  threshold: view.threshold,
  phoneNumberId: view.phoneNumberId,
  fromAd: view.fromAd,
  cooldownMinutes: view.cooldownMinutes,
  actions: actionsOf(view),
  position: place,
  enabled: view.enabled,
  firedCount: view.firedCount,
  lastFiredAt: view.lastFiredAt,
});

/** A rule's place in the order its organisation's rules are tried (as listRules orders them), 1 first. */
async function placeOf(organizationId: string, id: string) {
  const row = await queryRow<{ n: number }>(
    db(),
    sql`select count(*)::int as n from automation_rules r
        join automation_rules me on me.organization_id = ${organizationId} and me.id = ${id}
        where r.organization_id = ${organizationId} and (r.position, r.created_at) < (me.position, me.created_at)`,
  );
  return (row?.n ?? 0) + 1;
}

/**
 * The automation domain's refusals as the API's problems: an unknown rule is the one not-found, the
 * rules' limit rule_limit, anything else invalid_automation with the body's field where it names one
 * (`where` turns the domain's form field into the API's path).
 */
async function answer<T>(work: Promise<T>, where: (field: string | undefined) => string | undefined = () => undefined): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!isRefusal(error, "automation")) throw error;
    if (error.status === 404) throw new ApiProblem(404, "not_found", RULE_NOT_FOUND);
    if (error.status === 409) throw new ApiProblem(409, "rule_limit", error.message);
    const field = where(error.field);
    throw new ApiProblem(422, "invalid_automation", field ? `${field}: ${error.message}` : error.message, field);
  }
}

const cleanTags = (tags: readonly string[] | undefined) => (tags ?? []).map((t) => t.trim()).filter(Boolean);

/** Where in the API's body a refusal of this rule points. */
function ruleField(input: RuleInput) {
  return (field: string | undefined): string | undefined => {
    switch (field) {
      case "keywords": {
        // The domain checks the keywords given, blank ones left out: its first problem's keyword, by its place in the body.
        const given = input.keywords.flatMap((keyword, index) => (keyword.trim() ? [{ keyword: keyword.trim(), index }] : []));
        const [problem] = checkRule({ matchType: input.matchType, keywords: given.map((g) => g.keyword) });
        const at = problem?.index === undefined ? undefined : given[problem.index];
        return at ? `keywords[${at.index}]` : "keywords";
      }
      case "reply": {
        const any =
          (input.reply ?? "").trim() !== "" ||
          !!input.template ||
          cleanTags(input.addTags).length > 0 ||
          cleanTags(input.removeTags).length > 0 ||
          !!input.setField?.key ||
          !!input.webhookUrl?.trim() ||
          !!input.then ||
          !!input.flowId ||
          !!input.products?.kind ||
          !!input.assignTo;
        return any ? "actions.reply" : "actions";
      }
      case "tags": {
        const long = (tags: readonly string[] | undefined) => (tags ?? []).findIndex((t) => [...t.trim()].length > RULE_TAG_MAX);
        if (long(input.addTags) >= 0) return `actions.addTags[${long(input.addTags)}]`;
        if (long(input.removeTags) >= 0) return `actions.removeTags[${long(input.removeTags)}]`;
        return "actions";
      }
      case "assignTo":
        return "actions.assignTo";
      case "buttons":
        return "actions.buttons";
      case "listRows":
        return "actions.list";
      case "template":
        return "actions.template";
      case "templateParameters":
        return "actions.template.parameters";
      case "webhookUrl":
        return "actions.webhookUrl";
      case "flowId":
        return "actions.startFlow";
      case "fieldKey":
        return "actions.setField.key";
      case "fieldValue":
        return "actions.setField.value";
      case "productIds":
        return "actions.sendProducts.productIds";
      case "productKind":
        return "actions.sendProducts.kind";
      case "productHeader":
        return "actions.sendProducts.header";
      case "productBody":
        return "actions.sendProducts.body";
      case "form":
      case undefined:
        return undefined;
      default:
        // name, matchType, threshold, phoneNumberId, fromAd, cooldownMinutes: the same names.
        return field;
    }
  };
}

export async function listApiRules(organizationId: string) {
  const rules = await listRules(organizationId);
  return { data: rules.map((rule, i) => apiRule(rule, i + 1)) };
}

export async function getApiRule(organizationId: string, id: string) {
  const rule = await answer(getRule(organizationId, id));
  return apiRule(rule, await placeOf(organizationId, id));
}

function inputOf(body: z.output<typeof AutomationRuleCreate>): RuleInput {
  return {
    name: body.name,
    matchType: body.matchType,
    keywords: body.keywords,
    threshold: body.threshold,
    phoneNumberId: body.phoneNumberId ?? null,
    fromAd: body.fromAd ?? null,
    cooldownMinutes: body.cooldownMinutes,
    reply: body.actions.reply ?? "",
    buttons: body.actions.buttons ?? [],
    ...listAndTemplate(body.actions),
    addTags: body.actions.addTags ?? [],
    removeTags: body.actions.removeTags ?? [],
    assignTo: body.actions.assignTo ?? null,
    setField: body.actions.setField ?? null,
    webhookUrl: body.actions.webhookUrl ?? null,
    then: body.actions.then ?? null,
    flowId: body.actions.startFlow ?? null,
    products: body.actions.sendProducts ?? null,
  };
}

export async function createApiRule(organizationId: string, body: z.output<typeof AutomationRuleCreate>) {
  const input = inputOf(body);
  const rule = await answer(createRule(actorOf(organizationId), input), ruleField(input));
  return apiRule(rule, await placeOf(organizationId, rule.id));
}

/**
 * PATCH: the rule as stored with the fields given over it, checked whole as the page checks it;
 * then on or off, then its place. A refused change changes nothing (the checks come first).
 */
export async function updateApiRule(organizationId: string, id: string, body: z.output<typeof AutomationRuleUpdate>) {
  const actor = actorOf(organizationId);
  const current = await answer(getRule(organizationId, id));
  const { enabled, position, actions, ...fields } = body;
  if (Object.keys(fields).length > 0 || actions !== undefined) {
    const was = actionsOf(current);
    const mine = { ...was, ...Object.fromEntries(Object.entries(actions ?? {}).filter(([, value]) => value !== undefined)) } as {
      [K in keyof Actions]: Actions[K] | null;
    };
    const input: RuleInput = {
      name: fields.name ?? current.name,
      matchType: fields.matchType ?? current.matchType,
      keywords: fields.keywords ?? current.keywords,
      threshold: fields.threshold ?? current.threshold ?? undefined,
      phoneNumberId: fields.phoneNumberId !== undefined ? fields.phoneNumberId : current.phoneNumberId,
      fromAd: fields.fromAd !== undefined ? fields.fromAd : current.fromAd,
      cooldownMinutes: fields.cooldownMinutes ?? current.cooldownMinutes,
      reply: mine.reply ?? "",
      buttons: mine.buttons ?? [],
      ...listAndTemplate(mine),
      addTags: mine.addTags ?? [],
      removeTags: mine.removeTags ?? [],
      assignTo: mine.assignTo,
      webhookUrl: mine.webhookUrl ?? null,
      then: mine.then ?? null,
      flowId: mine.startFlow ?? null,
      // Send products (decision 143): kept unless the body gives sendProducts (null removes it).
      products: mine.sendProducts ?? null,
      setField:
        mine.setField === null || mine.setField === undefined ? null : { key: mine.setField.key, value: String(mine.setField.value) },
    };
    await answer(updateRule(actor, id, input), ruleField(input));
  }
  if (enabled !== undefined && enabled !== current.enabled) await answer(setRuleEnabled(actor, id, enabled));
  if (position !== undefined) await answer(placeRule(actor, id, position));
  return getApiRule(organizationId, id);
}

export async function deleteApiRule(organizationId: string, id: string) {
  await answer(deleteRule(actorOf(organizationId), id));
  return undefined;
}

// ---- Welcome, away message and hours -----------------------------------------------------------

const NAME_OF = Object.fromEntries(WEEKDAY_NAMES.map((name) => [WEEKDAY_NUMBER[name], name])) as Record<Weekday, string>;

const timeZoneOf = async (organizationId: string) =>
  (await queryRow<{ time_zone: string }>(db(), sql`select time_zone from organizations where id = ${organizationId}`))?.time_zone ??
  "Africa/Nairobi";

function apiSettings(settings: Stored, timeZone: string, now: Date): z.input<typeof AutomationSettings> {
  const zone = canonicalTimeZone(timeZone);
  const schedule = zone && { timeZone: zone, days: settings.days, holidays: settings.holidays, holidayMode: settings.holidayMode };
  const openNow = schedule ? isOpenAt(schedule, now) : false;
  const next = schedule && !openNow ? nextOpening(schedule, now) : null;
  return {
    welcome: { enabled: settings.welcomeEnabled, text: settings.welcomeText },
    away: { enabled: settings.awayEnabled, text: settings.awayText },
    hours: Object.fromEntries(
      WEEKDAY_NAMES.map((name) => [name, settings.days[WEEKDAY_NUMBER[name]].map(({ from, to }) => ({ from, to }))]),
    ) as z.input<typeof AutomationSettings>["hours"],
    holidays: [...settings.holidays],
    holidayMode: settings.holidayMode,
    timeZone,
    openNow,
    nextOpeningAt: next?.toISOString() ?? null,
  };
}

export async function getApiSettings(organizationId: string) {
  const [settings, timeZone] = await Promise.all([readAutomationSettings(organizationId), timeZoneOf(organizationId)]);
  return apiSettings(settings, timeZone, new Date());
}

/** Where in the API's body a schedule's first problem is, as the domain found it. */
function scheduleField(error: ScheduleError | undefined): string {
  if (error?.field === "holidays") return error.index === undefined ? "holidays" : `holidays[${error.index}]`;
  if (error?.day === undefined) return "hours";
  const day = `hours.${NAME_OF[error.day]}`;
  if (error.index === undefined) return day;
  return error.field === "from" || error.field === "to" ? `${day}[${error.index}].${error.field}` : `${day}[${error.index}]`;
}

/** PATCH: the settings as stored with the fields given over them, checked whole and saved, or nothing changed. */
export async function updateApiSettings(organizationId: string, body: z.output<typeof AutomationSettingsUpdate>) {
  const [current, timeZone] = await Promise.all([readAutomationSettings(organizationId), timeZoneOf(organizationId)]);
  const days = { ...current.days };
  for (const name of WEEKDAY_NAMES) {
    const ranges = body.hours?.[name];
    if (ranges) days[WEEKDAY_NUMBER[name]] = ranges;
  }
  const next: Stored = {
    welcomeEnabled: body.welcome?.enabled ?? current.welcomeEnabled,
    welcomeText: body.welcome?.text ?? current.welcomeText,
    awayEnabled: body.away?.enabled ?? current.awayEnabled,
    awayText: body.away?.text ?? current.awayText,
    days,
    holidays: body.holidays ?? current.holidays,
    holidayMode: body.holidayMode ?? current.holidayMode,
  };
  await answer(saveAutomationSettings(actorOf(organizationId), next, timeZone), (field) => {
    if (field === "welcomeText") return "welcome.text";
    if (field === "awayText") return "away.text";
    return scheduleField(checkSchedule({ timeZone, days: next.days, holidays: next.holidays, holidayMode: next.holidayMode })[0]);
  });
  return apiSettings(await readAutomationSettings(organizationId), timeZone, new Date());
}
