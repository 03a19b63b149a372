import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { compileRule, type CompiledRule, type MatchType, type RuleMatch } from "./match";
import { WEEKDAYS, type OpeningRange, type Schedule, type Weekday } from "./hours";

/** What a rule does besides matching, as stored in automation_rules.actions. */
export type RuleAction =
  | { type: "reply"; text: string; buttons?: string[]; list?: { button: string; rows: string[] } }
  /** Sends one of the organisation's approved templates (priced; name and language as Meta knows them). */
  | { type: "template"; name: string; language: string; parameters: string[] }
  | { type: "tags"; add: string[]; remove: string[] }
  | { type: "assign"; userId: string }
  /** Sets one of the contact's custom fields (contact_attributes) to a value in its type. */
  | { type: "field"; key: string; value: string | number | boolean }
  /** POSTs the customer's message to a URL, signed with the organisation's webhook secret (call-webhook.ts). */
  | { type: "webhook"; url: string }
  /** Lets the AI assistant answer the message too (assistant/answer.ts), on the numbers it answers on. */
  | { type: "assistant" }
  /** Hands the conversation to a person: the least busy member who answers chats (handover.ts). */
  | { type: "handover" }
  /** Starts a chatbot flow on its live version (flows/answer.ts); the rule's reply, if any, is not sent. */
  | { type: "flow"; flowId: string }
  /**
   * Sends products from the shop after its reply (decision 143): a list, one product or the
   * catalogue's button, read from the catalog when it runs (those it no longer holds left out).
   */
  | { type: "products"; kind: string; productIds: string[]; header: string; body: string };

export interface LoadedRule extends CompiledRule {
  id: string;
  name: string;
  phoneNumberId: string | null;
  /** Only messages from an ad: "any", or the ad's source_id (from-ad.ts); null: every message. */
  fromAd: string | null;
  cooldownMinutes: number;
  actions: RuleAction[];
}

export interface LoadedSettings {
  welcomeEnabled: boolean;
  welcomeText: string;
  awayEnabled: boolean;
  awayText: string;
  /** The hours without the time zone: the organisation's, read with each message. */
  schedule: Omit<Schedule, "timeZone">;
}

interface Automations {
  version: number;
  settings: LoadedSettings;
  /** Enabled rules, in their order. */
  rules: LoadedRule[];
}

const EVERY_MESSAGE: RuleMatch = Object.freeze({ matched: true, keyword: "", score: 1 });

/** A rule's keywords compiled; a rule for an ad's customers without keywords answers every message from the ad. */
function compiledOf(r: { match_type: MatchType; keywords: string[]; threshold: number | null; from_ad: string | null }): CompiledRule {
  const compiled = compileRule({ matchType: r.match_type, keywords: r.keywords, threshold: r.threshold ?? undefined });
  return r.from_ad !== null && r.keywords.length === 0 ? { ...compiled, test: () => EVERY_MESSAGE } : compiled;
}

/**
 * Each instance keeps an organisation's compiled rules until its settings' version changes (every
 * change to a rule or to the settings raises it, in the same transaction): one small read a message
 * instead of reading and compiling hundreds of rules.
 */
const cache = new Map<string, Automations>();
const CACHE_LIMIT = 500;

export const NO_SETTINGS: LoadedSettings = {
  welcomeEnabled: false,
  welcomeText: "",
  awayEnabled: false,
  awayText: "",
  schedule: { days: { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] }, holidays: [], holidayMode: false },
};

/** The stored hours as a schedule's days: unknown shapes read as closed. */
export function daysOf(stored: unknown): Record<Weekday, OpeningRange[]> {
  const source = typeof stored === "object" && stored !== null ? (stored as Record<string, unknown>) : {};
  const days = {} as Record<Weekday, OpeningRange[]>;
  for (const day of WEEKDAYS) {
    const ranges = source[String(day)];
    days[day] = Array.isArray(ranges)
      ? ranges.filter(
          (r): r is OpeningRange => typeof r === "object" && r !== null && typeof r.from === "string" && typeof r.to === "string",
        )
      : [];
  }
  return days;
}

interface SettingsRow {
  version: number;
  welcome_enabled: boolean;
  welcome_text: string;
  away_enabled: boolean;
  away_text: string;
  hours: unknown;
  holidays: string[];
  holiday_mode: boolean;
}

const settingsOf = (row: SettingsRow | undefined): LoadedSettings =>
  row
    ? {
        welcomeEnabled: row.welcome_enabled,
        welcomeText: row.welcome_text,
        awayEnabled: row.away_enabled,
        awayText: row.away_text,
        schedule: { days: daysOf(row.hours), holidays: row.holidays, holidayMode: row.holiday_mode },
      }
    : NO_SETTINGS;

/**
 * An organisation's settings and enabled rules, compiled, from this instance's cache when still
 * current. `knownVersion`: the settings' version read already (with the batch's messages): when the
 * cache holds it, nothing is read.
 */
export async function automationsOf(organizationId: string, knownVersion?: number, executor: Executor = db()): Promise<Automations> {
  const known = cache.get(organizationId);
  if (known && knownVersion !== undefined && known.version === knownVersion) return known;
  const row = await queryRow<SettingsRow>(
    executor,
    sql`select version, welcome_enabled, welcome_text, away_enabled, away_text, hours, holidays, holiday_mode
        from automation_settings where organization_id = ${organizationId}`,
  );
  const version = row?.version ?? -1;
  const cached = cache.get(organizationId);
  if (cached && cached.version === version) return cached;
  const rules = await queryRows<{
    id: string;
    name: string;
    match_type: MatchType;
    keywords: string[];
    threshold: number | null;
    phone_number_id: string | null;
    from_ad: string | null;
    cooldown_minutes: number;
    actions: RuleAction[];
  }>(
    executor,
    sql`select id, name, match_type, keywords, threshold, phone_number_id, from_ad, cooldown_minutes, actions
        from automation_rules where organization_id = ${organizationId} and enabled order by position, created_at`,
  );
  const loaded: Automations = {
    version,
    settings: settingsOf(row),
    rules: rules.map((r) => ({
      ...compiledOf(r),
      id: r.id,
      name: r.name,
      phoneNumberId: r.phone_number_id,
      fromAd: r.from_ad,
      cooldownMinutes: r.cooldown_minutes,
      actions: Array.isArray(r.actions) ? r.actions : [],
    })),
  };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(organizationId, loaded);
  return loaded;
}
