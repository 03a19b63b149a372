import { m } from "~/paraglide/messages";
import { baseLocale, getLocale } from "~/paraglide/runtime";

/**
 * A campaign's pause reason and notice are written by Jumbe's own work (the feeder, Meta's webhooks,
 * a start that failed), outside any reader's request: they are stored as Jumbe says them in English,
 * the language the API and the activity log keep. A page says them in its reader's language: each
 * stored sentence is matched against the English of the messages that write them, and said again
 * with the same inputs. One not known here (another part's words) shows as stored.
 */

type Words = (inputs: Record<string, string>, options?: { locale?: "en" | "sw" | "fr" }) => string;

/** The messages a stored sentence may be, with the names of their inputs (only data: names, numbers, dates). */
const STORED: [Words, string[]][] = [
  [m.messaging_paused_wallet_empty, []],
  [m.messaging_paused_template_paused, ["name"]],
  [m.messaging_paused_template_disabled, ["name"]],
  [m.messaging_paused_recategorised_marketing, ["name"]],
  [m.messaging_paused_recategorised, ["name", "category"]],
  [m.messaging_paused_low_quality, ["number"]],
  [m.messaging_paused_closing, ["date"]],
  [m.messaging_notice_limit_one, ["count"]],
  [m.messaging_notice_limit_other, ["count"]],
  // A scheduled campaign that failed to start says why (lifecycle.ts's checks, run again at its time).
  [m.messaging_campaign_name_required, []],
  [m.messaging_campaign_template_required, []],
  [m.messaging_campaign_header_value_required, []],
  [m.messaging_audience_no_segment, []],
  [m.messaging_audience_required, []],
  [m.messaging_header_link_invalid, []],
  [m.messaging_header_link_not_https, []],
  [m.messaging_header_file_not_needed, ["template"]],
  [m.messaging_parameters_value_required, ["name"]],
  [m.messaging_parameters_unknown_field, ["name", "field"]],
  [m.messaging_parameters_unmapped, ["name"]],
] as unknown as [Words, string[]][];

interface Pattern {
  words: Words;
  names: string[];
  regex: RegExp;
}

let patterns: Pattern[] | undefined;

/** Each message's English as a pattern: its inputs become groups, the rest matched as written. */
function compiled(): Pattern[] {
  patterns ??= STORED.map(([words, names]) => {
    const marked = words(Object.fromEntries(names.map((name, i) => [name, `\uE000${i}\uE000`])), { locale: baseLocale });
    const source = marked
      .split(/\uE000\d+\uE000/)
      .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("([\\s\\S]+?)");
    const order = [...marked.matchAll(/\uE000(\d+)\uE000/g)].map((match) => names[Number(match[1])]!);
    return { words, names: order, regex: new RegExp(`^${source}$`) };
  });
  return patterns;
}

/** A stored sentence in the request's language (as stored in English, or when it is not known). */
export function storedWords(text: string | null): string | null {
  if (text === null || getLocale() === baseLocale) return text;
  for (const { words, names, regex } of compiled()) {
    const match = regex.exec(text);
    if (!match) continue;
    const inputs: Record<string, string> = {};
    names.forEach((name, i) => (inputs[name] = match[i + 1]!));
    return words(inputs);
  }
  return text;
}
