import { m } from "~/paraglide/messages";
import { baseLocale, getLocale } from "~/paraglide/runtime";

/**
 * A campaign's pause reason and notice are written by Jumbe's own work (the feeder, Meta's webhooks,
 * a start that failed), outside any reader's request: they are stored as Jumbe says them in English,
 * the language the API and the activity log keep. A page says them in its reader's language: each
 * stored sentence is matched against the English of the messages that write them, and said again
 * with the same inputs. One not known here (another part's words) shows as stored.
 */

type StoredKey = keyof typeof m;
type Words = (inputs: Record<string, string>, options?: { locale?: "en" | "sw" | "fr" }) => string;

/** The messages a stored sentence may be, with the names of their inputs (only data: names, numbers, dates). */
const STORED: [StoredKey, string[]][] = [
  ["messaging_paused_wallet_empty", []],
  ["messaging_paused_template_paused", ["name"]],
  ["messaging_paused_template_disabled", ["name"]],
  ["messaging_paused_recategorised_marketing", ["name"]],
  ["messaging_paused_recategorised", ["name", "category"]],
  ["messaging_paused_low_quality", ["number"]],
  ["messaging_paused_closing", ["date"]],
  ["messaging_notice_limit_one", ["count"]],
  ["messaging_notice_limit_other", ["count"]],
  // A scheduled campaign that failed to start says why (lifecycle.ts's checks, run again at its time).
  ["messaging_campaign_name_required", []],
  ["messaging_campaign_template_required", []],
  ["messaging_campaign_header_value_required", []],
  ["messaging_audience_no_segment", []],
  ["messaging_audience_required", []],
  ["messaging_header_link_invalid", []],
  ["messaging_header_link_not_https", []],
  ["messaging_header_file_not_needed", ["template"]],
  ["messaging_parameters_value_required", ["name"]],
  ["messaging_parameters_unknown_field", ["name", "field"]],
  ["messaging_parameters_unmapped", ["name"]],
];

interface Pattern {
  key: StoredKey;
  names: string[];
  regex: RegExp;
}

let patterns: Pattern[] | undefined;

/** Each message's English as a pattern: its inputs become groups, the rest matched as written. */
function compiled(): Pattern[] {
  patterns ??= STORED.map(([key, names]) => {
    const words = m[key] as unknown as Words;
    const marked = words(Object.fromEntries(names.map((name, i) => [name, `\uE000${i}\uE000`])), { locale: baseLocale });
    const source = marked
      .split(/\uE000\d+\uE000/)
      .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("([\\s\\S]+?)");
    const order = [...marked.matchAll(/\uE000(\d+)\uE000/g)].map((match) => names[Number(match[1])]!);
    return { key, names: order, regex: new RegExp(`^${source}$`) };
  });
  return patterns;
}

/** The message a stored English sentence is, with its inputs; null when it is not one known here. */
export function storedMessageOf(text: string): [key: StoredKey, inputs: Record<string, string>] | null {
  for (const { key, names, regex } of compiled()) {
    const match = regex.exec(text);
    if (!match) continue;
    const inputs: Record<string, string> = {};
    names.forEach((name, i) => (inputs[name] = match[i + 1]!));
    return [key, inputs];
  }
  return null;
}

/** A stored sentence in the request's language (as stored in English, or when it is not known). */
export function storedWords(text: string | null): string | null {
  if (text === null || getLocale() === baseLocale) return text;
  const found = storedMessageOf(text);
  return found ? (m[found[0]] as unknown as Words)(found[1]) : text;
}
