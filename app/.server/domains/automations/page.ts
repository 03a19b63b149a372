import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { log } from "../../infrastructure/log";
import { compileRule, firstMatchingRule, matchesRule, normaliseMessage } from "./match";
import { isOpenAt, nextOpening, type Schedule } from "./hours";
import { getRule, listRules, type RuleView } from "./rules";
import { answersAd, everyMessageFromAd } from "./from-ad";
import type { AutomationSettings } from "./settings";

/**
 * What the automations pages show besides the rules and settings themselves: the numbers and members
 * a rule's form offers, a rule tried on a sample message, and whether the organisation is open now.
 */

export interface NumberChoice {
  /** Meta's phone number id, as rules store it. */
  id: string;
  label: string;
  connected: boolean;
}

/** The organisation's business numbers (a disconnected one too, so a rule made for it still says which). */
export async function automationNumbers(organizationId: string): Promise<NumberChoice[]> {
  const rows = await queryRows<{ phone_number_id: string; phone_digits: string; verified_name: string | null; connected: boolean }>(
    db(),
    sql`select distinct on (phone_number_id) phone_number_id, phone_digits, verified_name, disconnected_at is null as connected
        from whatsapp_phone_numbers where organization_id = ${organizationId}
        order by phone_number_id, disconnected_at nulls first`,
  );
  return rows.map((r) => ({
    id: r.phone_number_id,
    label: `+${r.phone_digits}${r.verified_name ? ` (${r.verified_name})` : ""}`,
    connected: r.connected,
  }));
}

/** The connected numbers a rule may be kept to. */
export async function connectedNumbers(organizationId: string): Promise<NumberChoice[]> {
  return (await automationNumbers(organizationId)).filter((n) => n.connected);
}

/** Members a rule may assign conversations to: those who answer chats (owners, admins and agents). */
export async function answeringMembers(organizationId: string): Promise<{ id: string; name: string }[]> {
  const rows = await queryRows<{ id: string; first_name: string; last_name: string; email: string }>(
    db(),
    sql`select id, first_name, last_name, email from users
        where organization_id = ${organizationId} and org_role in ('owner', 'admin', 'agent')
        order by first_name, last_name, id limit 500`,
  );
  return rows.map((r) => ({ id: r.id, name: `${r.first_name} ${r.last_name}`.trim() || r.email }));
}

export interface TryResult {
  sample: string;
  /** The ad the customer came from in the try ("this customer came from ad X"), null: from no ad. */
  ad: string | null;
  /** Whether this rule answers the sample (as stored, on or off). */
  matched: boolean;
  /** The keyword of this rule the sample matched; null when it does not match or the rule has none (it answers every message from its ad). */
  keyword: string | null;
  /** The rule keeps to an ad the try's customer did not come from: "any" (they came from none) or the ad's id. */
  needsAd: string | null;
  enabled: boolean;
  /** An enabled rule earlier in the order that matches the sample too, and so answers it first. */
  earlier: { id: string; name: string; position: number } | null;
}

/** A rule's keywords compiled as the dispatcher runs them: one for an ad's customers without keywords answers every message. */
function compiledForTry(rule: RuleView) {
  const compiled = compileRule({ matchType: rule.matchType, keywords: rule.keywords, threshold: rule.threshold ?? undefined });
  return everyMessageFromAd(rule) ? { ...compiled, test: () => ({ matched: true as const, keyword: "", score: 1 }) } : compiled;
}

/**
 * A rule's "try it": whether the sample, from a customer who came from `ad` (or none), matches this rule
 * as stored (on or off), on which keyword, and whether an enabled rule before it in the order (for the
 * same numbers and that ad) would answer first. Nothing is sent or stored. Another organisation's or an
 * unknown id is refused (404).
 */
export async function tryRule(organizationId: string, id: string, sample: string, ad: string | null = null): Promise<TryResult> {
  const rule = await getRule(organizationId, id);
  const base = { sample, ad, enabled: rule.enabled, earlier: null };
  if (!answersAd(rule.fromAd, ad)) return { ...base, matched: false, keyword: null, needsAd: rule.fromAd };
  const match = matchesRule(compiledForTry(rule), normaliseMessage(sample));
  if (!match.matched) return { ...base, matched: false, keyword: null, needsAd: null };
  const rules = await listRules(organizationId);
  const before = rules
    .slice(
      0,
      rules.findIndex((r) => r.id === rule.id),
    )
    .filter(
      (r) =>
        r.enabled &&
        answersAd(r.fromAd, ad) &&
        (r.phoneNumberId === null || rule.phoneNumberId === null || r.phoneNumberId === rule.phoneNumberId),
    )
    .map((r) => ({ ...compiledForTry(r), view: r }));
  const first = firstMatchingRule(before, sample);
  const earlier = first ? { id: first.rule.view.id, name: first.rule.view.name, position: first.rule.view.position } : null;
  return { ...base, matched: true, keyword: match.keyword || null, needsAd: null, earlier };
}

export type OpeningState =
  | { state: "open" }
  /** Holiday mode: closed until it is turned off, with no opening to announce. */
  | { state: "holiday_mode" }
  /** No hours saved: closed at every hour (the away message, when on, answers any message). */
  | { state: "no_hours" }
  /** `opens`: the next opening as an ISO instant, null when nothing opens in the next two weeks. */
  | { state: "closed"; opens: string | null };

/** Whether the organisation is open at `now` by its saved hours, in its time zone, and if not when it opens. */
export function openingState(settings: AutomationSettings, timeZone: string, now = new Date()): OpeningState {
  if (settings.holidayMode) return { state: "holiday_mode" };
  if (!Object.values(settings.days).some((ranges) => ranges.length > 0)) return { state: "no_hours" };
  const schedule: Schedule = { timeZone, days: settings.days, holidays: settings.holidays, holidayMode: false };
  try {
    if (isOpenAt(schedule, now)) return { state: "open" };
    return { state: "closed", opens: nextOpening(schedule, now)?.toISOString() ?? null };
  } catch (error) {
    // A zone the runtime does not know (Account Settings only offers known ones): nothing to say.
    log().warn({ timeZone, error }, "automations: the organisation's time zone is unknown");
    return { state: "closed", opens: null };
  }
}
