import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { isUuid } from "../../infrastructure/db/keyset";
import { isRefusal, Refusal } from "../../infrastructure/refusal";
import { attributeDefinitions, attributeValue } from "../contacts";
import { checkWebhookUrl } from "../webhooks-out";
import { checkProductChoice } from "../shop";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { recordActivity } from "../activity";
import {
  AUTOMATION_MATCH_TYPES,
  AUTOMATION_MESSAGES,
  LEAST_BUSY,
  THEN_ASSISTANT,
  RULE_BUTTON_MAX,
  RULE_BUTTONS_MAX,
  RULE_COOLDOWN_MAX_MINUTES,
  RULE_LIST_ROW_MAX,
  RULE_LIST_ROWS_MAX,
  RULE_NAME_MAX,
  RULE_REPLY_MAX,
  RULE_TAG_MAX,
  RULE_TAGS_MAX,
  RULE_TEMPLATE_PARAMETER_MAX,
  RULES_MAX,
  type AutomationMatchType,
} from "~/lib/schemas/automations-rules";
import { checkRule, DEFAULT_FUZZY_THRESHOLD, type RuleErrorCode } from "./match";
import { ANY_AD, seenAd } from "./from-ad";
import type { RuleAction } from "./rules-cache";
import { placeholderCount } from "~/lib/templates";

/**
 * Keyword rules (issue 44): an organisation's owners and admins write them; they run in order, the
 * first whose keywords a customer's message matches answers it. Every change raises the settings'
 * version in the same transaction, so each instance compiles the rules again (rules-cache.ts).
 */

export interface RuleActor {
  organizationId: string;
  userId: string | null;
  meta?: RequestMeta;
}

export interface RuleInput {
  name: string;
  matchType: string;
  /** One keyword a line, as the form sends them. */
  keywords: string[];
  threshold?: number;
  phoneNumberId?: string | null;
  /** Only messages from a Click-to-WhatsApp ad: "any", or an ad's source_id customers have come from; empty: every message. */
  fromAd?: string | null;
  cooldownMinutes?: number;
  reply?: string;
  /** Reply buttons' titles (the reply's text is their message). */
  buttons?: string[];
  /** A list under the reply instead of buttons: what opens it, and its choices. */
  listButton?: string;
  listRows?: string[];
  /** An approved template sent instead of a text reply: `name|language`, and its body's variables in order. */
  template?: string | null;
  templateParameters?: string[];
  addTags?: string[];
  removeTags?: string[];
  assignTo?: string | null;
  /** A custom contact field's key and the value it gets (in the field's type); no key: none. */
  setField?: { key: string; value: string } | null;
  /** An address the customer's message is POSTed to, signed (call-webhook.ts); empty: none. */
  webhookUrl?: string | null;
  /** What answers after the rule's own reply: the AI assistant ("assistant"); empty: nothing. */
  then?: string | null;
  /** A chatbot flow the rule starts (its id); its reply, if any, is then not sent. */
  flowId?: string | null;
  /** Products sent after the reply (decision 143): what kind of message, which products (ids), a list's heading, the text. */
  products?: { kind: string; productIds: string[]; header: string; body: string } | null;
}

export interface RuleView {
  id: string;
  name: string;
  matchType: AutomationMatchType;
  keywords: string[];
  threshold: number | null;
  phoneNumberId: string | null;
  fromAd: string | null;
  cooldownMinutes: number;
  actions: RuleAction[];
  position: number;
  enabled: boolean;
  firedCount: number;
  lastFiredAt: string | null;
}

type Field =
  | "name"
  | "matchType"
  | "keywords"
  | "threshold"
  | "phoneNumberId"
  | "fromAd"
  | "cooldownMinutes"
  | "reply"
  | "buttons"
  | "listRows"
  | "template"
  | "templateParameters"
  | "tags"
  | "assignTo"
  | "fieldKey"
  | "fieldValue"
  | "webhookUrl"
  | "then"
  | "flowId"
  | "productKind"
  | "productIds"
  | "productHeader"
  | "productBody"
  | "welcomeText"
  | "awayText"
  | "hours"
  | "holidays"
  | "form";

/** Why a change is refused; nothing has changed when one is thrown. */
export const refuseAutomation = (status: 400 | 404 | 409, message: string, field?: Field) =>
  new Refusal({ domain: "automation", status, message, field });

const notFound = () => refuseAutomation(404, AUTOMATION_MESSAGES.notFound);

/** A keyword check's code as the form's words. */
function keywordMessage(code: RuleErrorCode, keyword: string): string {
  switch (code) {
    case "none":
      return AUTOMATION_MESSAGES.keywordsNone;
    case "too_many":
      return AUTOMATION_MESSAGES.keywordsTooMany;
    case "too_long":
      return AUTOMATION_MESSAGES.keywordTooLong(keyword);
    case "no_words":
      return AUTOMATION_MESSAGES.keywordNoWords(keyword);
    case "duplicate":
      return AUTOMATION_MESSAGES.keywordDuplicate(keyword);
    case "regex_invalid":
      return AUTOMATION_MESSAGES.regexInvalid(keyword);
    case "regex_unsafe":
      return AUTOMATION_MESSAGES.regexUnsafe(keyword);
    case "threshold_out_of_range":
      return AUTOMATION_MESSAGES.threshold;
    case "unknown_match_type":
      return AUTOMATION_MESSAGES.matchType;
  }
}

const cleanTags = (tags: string[] | undefined) => [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];

interface CheckedRule {
  name: string;
  matchType: AutomationMatchType;
  keywords: string[];
  threshold: number | null;
  phoneNumberId: string | null;
  fromAd: string | null;
  cooldownMinutes: number;
  actions: RuleAction[];
}

/** The rule as it will be stored, or the first thing wrong with it. */
async function checkedRule(organizationId: string, input: RuleInput, stored: readonly RuleAction[] = []): Promise<CheckedRule> {
  const name = input.name.trim();
  if (!name) throw refuseAutomation(400, AUTOMATION_MESSAGES.nameRequired, "name");
  if ([...name].length > RULE_NAME_MAX) throw refuseAutomation(400, AUTOMATION_MESSAGES.nameTooLong, "name");
  if (!(AUTOMATION_MATCH_TYPES as readonly string[]).includes(input.matchType))
    throw refuseAutomation(400, AUTOMATION_MESSAGES.matchType, "matchType");
  const matchType = input.matchType as AutomationMatchType;
  const keywords = input.keywords.map((k) => k.trim()).filter(Boolean);
  const threshold = matchType === "fuzzy" ? (input.threshold ?? DEFAULT_FUZZY_THRESHOLD) : null;
  const fromAd = await checkedFromAd(organizationId, input.fromAd);
  // A rule for an ad's customers may have no keywords: it answers every message from the ad.
  const [problem] = fromAd && !keywords.length ? [] : checkRule({ matchType, keywords, threshold: threshold ?? undefined });
  if (problem)
    throw refuseAutomation(
      400,
      keywordMessage(problem.code, problem.index === undefined ? "" : (input.keywords.filter((k) => k.trim())[problem.index] ?? "")),
      problem.code === "threshold_out_of_range" ? "threshold" : "keywords",
    );
  const cooldownMinutes = input.cooldownMinutes ?? 0;
  if (!Number.isInteger(cooldownMinutes) || cooldownMinutes < 0 || cooldownMinutes > RULE_COOLDOWN_MAX_MINUTES)
    throw refuseAutomation(400, AUTOMATION_MESSAGES.cooldown, "cooldownMinutes");
  const phoneNumberId = input.phoneNumberId || null;
  if (phoneNumberId && !(await ownsNumber(organizationId, phoneNumberId)))
    throw refuseAutomation(400, AUTOMATION_MESSAGES.number, "phoneNumberId");
  const actions: RuleAction[] = [];
  const reply = (input.reply ?? "").replace(/\r\n/g, "\n").trim();
  if ([...reply].length > RULE_REPLY_MAX) throw refuseAutomation(400, AUTOMATION_MESSAGES.replyTooLong, "reply");
  const buttons = (input.buttons ?? []).map((b) => b.trim()).filter(Boolean);
  if (
    buttons.length > RULE_BUTTONS_MAX ||
    buttons.some((b) => [...b].length > RULE_BUTTON_MAX) ||
    new Set(buttons.map((b) => b.toLowerCase())).size !== buttons.length
  )
    throw refuseAutomation(400, AUTOMATION_MESSAGES.buttons, "buttons");
  if (buttons.length && !reply) throw refuseAutomation(400, AUTOMATION_MESSAGES.buttonsNeedReply, "buttons");
  const list = replyList(input, reply);
  if (list && buttons.length) throw refuseAutomation(400, AUTOMATION_MESSAGES.listOrButtons, "listRows");
  if (reply) actions.push({ type: "reply", text: reply, ...(buttons.length ? { buttons } : {}), ...(list ? { list } : {}) });
  if (input.template) {
    if (reply) throw refuseAutomation(400, AUTOMATION_MESSAGES.templateWithReply, "template");
    actions.push(await templateAction(organizationId, input.template, input.templateParameters ?? []));
  }
  const add = cleanTags(input.addTags);
  const remove = cleanTags(input.removeTags);
  if (add.length + remove.length > RULE_TAGS_MAX || [...add, ...remove].some((t) => [...t].length > RULE_TAG_MAX))
    throw refuseAutomation(400, AUTOMATION_MESSAGES.tags, "tags");
  if (add.length || remove.length) actions.push({ type: "tags", add, remove });
  if (input.assignTo === LEAST_BUSY) actions.push({ type: "handover" });
  else if (input.assignTo) {
    if (!(await answersChats(organizationId, input.assignTo))) throw refuseAutomation(400, AUTOMATION_MESSAGES.assignee, "assignTo");
    actions.push({ type: "assign", userId: input.assignTo });
  }
  if (input.products?.kind) actions.push(await productsAction(organizationId, input.products, stored));
  if (input.setField?.key) actions.push(await fieldAction(organizationId, input.setField.key, input.setField.value));
  if (input.webhookUrl?.trim()) actions.push(await webhookAction(organizationId, input.webhookUrl));
  if (input.then === THEN_ASSISTANT) actions.push({ type: "assistant" });
  else if (input.then) throw refuseAutomation(400, AUTOMATION_MESSAGES.then, "then");
  if (input.flowId) {
    if (!(await ownsFlow(organizationId, input.flowId))) throw refuseAutomation(400, AUTOMATION_MESSAGES.flow, "flowId");
    actions.push({ type: "flow", flowId: input.flowId });
  }
  if (!actions.length) throw refuseAutomation(400, AUTOMATION_MESSAGES.noAction, "reply");
  return { name, matchType, keywords, threshold, phoneNumberId, fromAd, cooldownMinutes, actions };
}

/** "Came from an ad": none, any ad, or one a customer of the organisation came from (another tenant's is unknown here). */
async function checkedFromAd(organizationId: string, value: string | null | undefined) {
  const fromAd = value?.trim() || null;
  if (fromAd === null || fromAd === ANY_AD) return fromAd;
  if (fromAd.length > 128 || !(await seenAd(organizationId, fromAd))) throw refuseAutomation(400, AUTOMATION_MESSAGES.fromAd, "fromAd");
  return fromAd;
}

/** A reply's list (rows and the button that opens it), checked; null when the rule has none. */
function replyList(input: RuleInput, reply: string): { button: string; rows: string[] } | null {
  const rows = (input.listRows ?? []).map((r) => r.trim()).filter(Boolean);
  const button = (input.listButton ?? "").trim();
  if (!rows.length && !button) return null;
  if (
    !reply ||
    !rows.length ||
    !button ||
    [...button].length > RULE_BUTTON_MAX ||
    rows.length > RULE_LIST_ROWS_MAX ||
    rows.some((r) => [...r].length > RULE_LIST_ROW_MAX) ||
    new Set(rows.map((r) => r.toLowerCase())).size !== rows.length
  )
    throw refuseAutomation(400, AUTOMATION_MESSAGES.list, "listRows");
  return { button, rows };
}

/** The approved templates a rule may send: no header or button that needs a value, so the body's variables are all. */
export async function ruleTemplates(organizationId: string) {
  const rows = await queryRows<{ name: string; language: string; components: Record<string, unknown>[] }>(
    db(),
    sql`select distinct on (name, language) name, language, components from message_templates
        where organization_id = ${organizationId} and status = 'approved' and deleting_at is null
        order by name, language`,
  );
  return rows.flatMap((row) => {
    const component = (type: string) => row.components.find((c) => String(c.type).toUpperCase() === type);
    const header = component("HEADER");
    if (header && (String(header.format ?? "TEXT").toUpperCase() !== "TEXT" || placeholderCount(String(header.text ?? "")) > 0)) return [];
    const buttons = Array.isArray(component("BUTTONS")?.buttons) ? (component("BUTTONS")!.buttons as Record<string, unknown>[]) : [];
    if (buttons.some((b) => placeholderCount(String(b.url ?? "")) > 0 || String(b.type).toUpperCase() === "COPY_CODE")) return [];
    return [
      {
        value: `${row.name}|${row.language}`,
        name: row.name,
        language: row.language,
        variables: placeholderCount(String(component("BODY")?.text ?? "")),
      },
    ];
  });
}

/** A "send a template" action: one of the templates a rule may send, with as many variables as its body has. */
async function templateAction(organizationId: string, choice: string, parameters: string[]): Promise<RuleAction> {
  const template = (await ruleTemplates(organizationId)).find((t) => t.value === choice);
  if (!template) throw refuseAutomation(400, AUTOMATION_MESSAGES.template, "template");
  const values = parameters.map((p) => p.trim()).filter(Boolean);
  if (values.length !== template.variables || values.some((v) => [...v].length > RULE_TEMPLATE_PARAMETER_MAX))
    throw refuseAutomation(400, AUTOMATION_MESSAGES.templateParameters(template.variables), "templateParameters");
  return { type: "template", name: template.name, language: template.language, parameters: values };
}

/** The shop's field, as the rule form's. */
const PRODUCT_FIELDS: Record<string, Field> = {
  products: "productIds",
  productKind: "productKind",
  productHeader: "productHeader",
  productBody: "productBody",
};

/**
 * A "send products" action: products the catalog holds now (another organisation's, unknown or
 * unsynced: refused at the field). The rule's stored action, unchanged, is not checked again: a
 * product unsynced since is left out when the rule runs, and does not stop the rule's other changes.
 */
async function productsAction(
  organizationId: string,
  products: NonNullable<RuleInput["products"]>,
  stored: readonly RuleAction[],
): Promise<RuleAction> {
  const action = {
    type: "products" as const,
    kind: products.kind,
    productIds: [...new Set(products.productIds)],
    header: products.header.trim(),
    body: products.body.replace(/\r\n/g, "\n").trim(),
  };
  const kept = stored.find((a) => a.type === "products");
  if (
    kept?.type === "products" &&
    kept.kind === action.kind &&
    kept.header === action.header &&
    kept.body === action.body &&
    kept.productIds.join() === action.productIds.join()
  )
    return action;
  try {
    await checkProductChoice(organizationId, action);
  } catch (error) {
    if (isRefusal(error, "shop")) throw refuseAutomation(400, error.message, PRODUCT_FIELDS[error.field ?? ""] ?? "productIds");
    throw error;
  }
  return action;
}

/** A "set a contact field" action: one of the organisation's fields, and a value in its type. */
async function fieldAction(organizationId: string, key: string, value: string): Promise<RuleAction> {
  const definition = (await attributeDefinitions(organizationId)).get(key);
  if (!definition) throw refuseAutomation(400, AUTOMATION_MESSAGES.fieldKey, "fieldKey");
  let typed: string | number | boolean | null;
  try {
    typed = attributeValue(definition, value);
  } catch (error) {
    if (isRefusal(error)) throw refuseAutomation(400, error.message, "fieldValue");
    throw error;
  }
  if (typed === null) throw refuseAutomation(400, AUTOMATION_MESSAGES.fieldValue, "fieldValue");
  return { type: "field", key, value: typed };
}

/** A "call a webhook" action: an address on the internet (the webhooks' checks), and a secret to sign with. */
async function webhookAction(organizationId: string, raw: string): Promise<RuleAction> {
  // The secret first: without one no host name is looked up.
  const endpoint = await queryRow<{ found: boolean }>(
    db(),
    sql`select exists (select 1 from webhook_endpoints where organization_id = ${organizationId}) as found`,
  );
  if (!endpoint?.found) throw refuseAutomation(400, AUTOMATION_MESSAGES.webhookNoSecret, "webhookUrl");
  const checked = await checkWebhookUrl(raw);
  if (!checked.ok) throw refuseAutomation(400, AUTOMATION_MESSAGES.webhookUrl, "webhookUrl");
  return { type: "webhook", url: checked.url };
}

async function ownsNumber(organizationId: string, phoneNumberId: string) {
  const row = await queryRow<{ found: boolean }>(
    db(),
    sql`select exists (select 1 from whatsapp_phone_numbers where organization_id = ${organizationId}
                         and phone_number_id = ${phoneNumberId} and disconnected_at is null) as found`,
  );
  return Boolean(row?.found);
}

async function ownsFlow(organizationId: string, flowId: string) {
  if (!isUuid(flowId)) return false;
  const row = await queryRow<{ found: boolean }>(
    db(),
    sql`select exists (select 1 from flows where id = ${flowId} and organization_id = ${organizationId}) as found`,
  );
  return Boolean(row?.found);
}

async function answersChats(organizationId: string, userId: string) {
  if (!isUuid(userId)) return false;
  const row = await queryRow<{ found: boolean }>(
    db(),
    sql`select exists (select 1 from users where id = ${userId} and organization_id = ${organizationId}
                         and org_role in ('owner', 'admin', 'agent')) as found`,
  );
  return Boolean(row?.found);
}

/** Every change to the rules or settings: the instances' compiled rules are stale from this transaction on. */
export async function touchAutomations(tx: Executor, organizationId: string, userId: string | null) {
  await tx.execute(sql`
    insert into automation_settings (organization_id, version, updated_by) values (${organizationId}, 1, ${userId})
    on conflict (organization_id) do update set version = automation_settings.version + 1, updated_at = now(), updated_by = ${userId}`);
}

/** One change at a time per organisation: the count, the positions. */
const lockRules = (tx: Executor, organizationId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`automation-rules:${organizationId}`}))`);

interface RuleRow {
  id: string;
  name: string;
  match_type: AutomationMatchType;
  keywords: string[];
  threshold: number | null;
  phone_number_id: string | null;
  from_ad: string | null;
  cooldown_minutes: number;
  actions: RuleAction[];
  position: number;
  enabled: boolean;
  fired_count: number;
  last_fired_at: string | Date | null;
}

const viewOf = (r: RuleRow): RuleView => ({
  id: r.id,
  name: r.name,
  matchType: r.match_type,
  keywords: r.keywords,
  threshold: r.threshold,
  phoneNumberId: r.phone_number_id,
  fromAd: r.from_ad,
  cooldownMinutes: r.cooldown_minutes,
  actions: Array.isArray(r.actions) ? r.actions : [],
  position: r.position,
  enabled: r.enabled,
  firedCount: r.fired_count,
  lastFiredAt: r.last_fired_at === null ? null : new Date(r.last_fired_at).toISOString(),
});

const COLUMNS = sql`id, name, match_type, keywords, threshold, phone_number_id, from_ad, cooldown_minutes, actions, position, enabled, fired_count, last_fired_at`;

/** The organisation's rules in the order they are tried. */
export async function listRules(organizationId: string): Promise<RuleView[]> {
  const rows = await queryRows<RuleRow>(
    db(),
    sql`select ${COLUMNS} from automation_rules where organization_id = ${organizationId} order by position, created_at limit ${RULES_MAX}`,
  );
  return rows.map(viewOf);
}

/** One rule of the organisation; a refusal (404) for another's or an unknown id. */
export async function getRule(organizationId: string, id: string): Promise<RuleView> {
  if (!isUuid(id)) throw notFound();
  const row = await queryRow<RuleRow>(
    db(),
    sql`select ${COLUMNS} from automation_rules where organization_id = ${organizationId} and id = ${id}`,
  );
  if (!row) throw notFound();
  return viewOf(row);
}

/** The activity log's line for a change: the action in English (activity/words.ts says it for each reader), the rule's name. */
const record = (actor: RuleActor, action: string, name: string) =>
  recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action,
    details: name,
    meta: actor.meta,
  });

/** Adds a rule last in the order (at most RULES_MAX an organisation). */
export async function createRule(actor: RuleActor, input: RuleInput): Promise<RuleView> {
  const rule = await checkedRule(actor.organizationId, input);
  const row = await db().transaction(async (tx) => {
    await lockRules(tx, actor.organizationId);
    const count = await queryRow<{ n: number; last: number | null }>(
      tx,
      sql`select count(*)::int as n, max(position) as last from automation_rules where organization_id = ${actor.organizationId}`,
    );
    if ((count?.n ?? 0) >= RULES_MAX) throw refuseAutomation(409, AUTOMATION_MESSAGES.limit, "form");
    const saved = await queryRow<RuleRow>(
      tx,
      sql`
      insert into automation_rules (organization_id, name, match_type, keywords, threshold, phone_number_id, from_ad, cooldown_minutes, actions,
                                    position, created_by)
      values (${actor.organizationId}, ${rule.name}, ${rule.matchType}, ${sql.param(rule.keywords)}::text[], ${rule.threshold},
              ${rule.phoneNumberId}, ${rule.fromAd}, ${rule.cooldownMinutes}, ${JSON.stringify(rule.actions)}::jsonb, ${(count?.last ?? 0) + 1}, ${actor.userId})
      returning ${COLUMNS}`,
    );
    await touchAutomations(tx, actor.organizationId, actor.userId);
    return saved!;
  });
  await record(actor, "Automation rule added", rule.name);
  return viewOf(row);
}

/** Changes a rule (its place in the order and its figures stay). */
export async function updateRule(actor: RuleActor, id: string, input: RuleInput): Promise<RuleView> {
  const existing = await getRule(actor.organizationId, id);
  const rule = await checkedRule(actor.organizationId, input, existing.actions);
  const row = await db().transaction(async (tx) => {
    const saved = await queryRow<RuleRow>(
      tx,
      sql`
      update automation_rules set name = ${rule.name}, match_type = ${rule.matchType}, keywords = ${sql.param(rule.keywords)}::text[],
             threshold = ${rule.threshold}, phone_number_id = ${rule.phoneNumberId}, from_ad = ${rule.fromAd}, cooldown_minutes = ${rule.cooldownMinutes},
             actions = ${JSON.stringify(rule.actions)}::jsonb, updated_at = now()
      where organization_id = ${actor.organizationId} and id = ${id}
      returning ${COLUMNS}`,
    );
    if (!saved) throw notFound();
    await touchAutomations(tx, actor.organizationId, actor.userId);
    return saved;
  });
  await record(actor, "Automation rule changed", rule.name);
  return viewOf(row);
}

/** Turns a rule on or off. */
export async function setRuleEnabled(actor: RuleActor, id: string, enabled: boolean): Promise<RuleView> {
  const existing = await getRule(actor.organizationId, id);
  const row = await db().transaction(async (tx) => {
    const saved = await queryRow<RuleRow>(
      tx,
      sql`update automation_rules set enabled = ${enabled}, updated_at = now()
          where organization_id = ${actor.organizationId} and id = ${id} returning ${COLUMNS}`,
    );
    if (!saved) throw notFound();
    await touchAutomations(tx, actor.organizationId, actor.userId);
    return saved;
  });
  if (enabled) await record(actor, "Automation rule turned on", existing.name);
  else await record(actor, "Automation rule turned off", existing.name);
  return viewOf(row);
}

/** Deletes a rule; its runs stay (their rule becomes null), so the inbox still labels its replies. */
export async function deleteRule(actor: RuleActor, id: string): Promise<void> {
  const existing = await getRule(actor.organizationId, id);
  await db().transaction(async (tx) => {
    await tx.execute(sql`delete from automation_rules where organization_id = ${actor.organizationId} and id = ${id}`);
    await touchAutomations(tx, actor.organizationId, actor.userId);
  });
  await record(actor, "Automation rule deleted", existing.name);
}

/** Moves a rule one place earlier or later in the order (the page's buttons). */
export async function moveRule(actor: RuleActor, id: string, direction: "up" | "down"): Promise<void> {
  await reorder(actor, id, (at) => (direction === "up" ? at : at + 2));
}

/**
 * Puts a rule at a place in the order (1 is tried first; a place past the end puts it last), the
 * others keeping theirs around it: the public API's `position`.
 */
export async function placeRule(actor: RuleActor, id: string, place: number): Promise<void> {
  await reorder(actor, id, () => Math.trunc(place));
}

/** Renumbers the organisation's rules with one moved to the place `placeOf` gives (1-based, from its 0-based index). */
async function reorder(actor: RuleActor, id: string, placeOf: (at: number) => number) {
  const { name } = await getRule(actor.organizationId, id);
  const moved = await db().transaction(async (tx) => {
    await lockRules(tx, actor.organizationId);
    const ordered = await queryRows<{ id: string }>(
      tx,
      sql`select id from automation_rules where organization_id = ${actor.organizationId} order by position, created_at`,
    );
    const at = ordered.findIndex((r) => r.id === id);
    if (at < 0) throw notFound();
    const to = Math.min(Math.max(placeOf(at), 1), ordered.length) - 1;
    // Already there (or the first moved up, the last down): the order stays as it is.
    if (at === to) return false;
    const [rule] = ordered.splice(at, 1);
    ordered.splice(to, 0, rule!);
    await tx.execute(sql`
      update automation_rules r set position = t.p
      from unnest(${sql.param(ordered.map((r) => r.id))}::uuid[], ${sql.param(ordered.map((_, i) => i + 1))}::int[]) as t(id, p)
      where r.id = t.id and r.organization_id = ${actor.organizationId}`);
    await touchAutomations(tx, actor.organizationId, actor.userId);
    return true;
  });
  if (moved) await record(actor, "Automation rule moved", name);
}
