import { m } from "~/paraglide/messages";
import { baseLocale, type Locale } from "~/paraglide/runtime";
import { formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { longDate, longMonth } from "~/lib/billing-words";
import { inLocale } from "../http/display-zone";

/**
 * Words Jumbe writes down to say later in a reader's language (issue 43): a message of the catalogue
 * with its inputs. A notification keeps them as JSON (its `words` column); the activity log and the
 * console's alerts keep the English, read back into messages by ./stored.ts.
 *
 * A message is `[key, inputs]`. An input is data, kept as given (a name, a URL, Meta's own reason),
 * a number (grouped for the reader's language when said), another message (`[key, inputs]`, said in
 * the same language: a role, a pause reason), a list of inputs (said one after another with ", "),
 * an amount in cents (`{ kes }`), a moment (`{ at }`), a calendar day (`{ day: "2026-12-01" }`) or a
 * month (`{ month: "2026-11" }`).
 */
export type MessageKey = keyof typeof m;
export type Said = string | number | Message | { list: Said[] } | { kes: number } | { at: string } | { day: string } | { month: string };
export type Message = [key: MessageKey, inputs?: Record<string, Said>];

/** A message of the catalogue with its inputs: `words("app_notice_x", { name })`. */
export function words(key: MessageKey, inputs?: Record<string, Said>): Message {
  return inputs ? [key, inputs] : [key];
}

type MessageFunction = (inputs: Record<string, string>, options: { locale: Locale }) => string;

/** The catalogue's function for a stored key, if it is one (a key since renamed or removed is not). */
function messageOf(key: unknown): MessageFunction | undefined {
  if (typeof key !== "string" || !Object.hasOwn(m, key)) return undefined;
  const found: unknown = Reflect.get(m, key);
  return typeof found === "function" ? (found as MessageFunction) : undefined;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Thrown inside sayIn when the stored words cannot be said: the caller shows the stored text instead. */
class Unsayable extends Error {}

/** One input in `locale` (the formatters read the language from inLocale's store). */
function sayInput(value: unknown, locale: Locale): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return formatNumber(value);
  if (Array.isArray(value)) return sayMessage(value, locale);
  if (isRecord(value)) {
    if (Array.isArray(value.list)) return value.list.map((item) => sayInput(item, locale)).join(", ");
    if (typeof value.kes === "number" && Number.isFinite(value.kes)) return formatKes(value.kes);
    if (typeof value.at === "string" && !Number.isNaN(Date.parse(value.at))) return formatWhen(value.at);
    if (typeof value.day === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value.day)) return longDate(value.day);
    if (typeof value.month === "string" && /^\d{4}-\d{2}$/.test(value.month)) return longMonth(value.month);
  }
  throw new Unsayable("an input of an unknown shape");
}

function sayMessage([key, inputs]: unknown[], locale: Locale): string {
  const message = messageOf(key);
  if (!message || (inputs !== undefined && !isRecord(inputs))) throw new Unsayable(`no message ${String(key)}`);
  const said = Object.fromEntries(Object.entries(inputs ?? {}).map(([name, value]) => [name, sayInput(value, locale)]));
  return message(said, { locale });
}

/**
 * Stored words said in `locale`, or undefined when they cannot be (a key no longer in the
 * catalogue, a shape not known here): the caller then shows the English stored beside them.
 */
export function sayIn(locale: Locale, said: unknown): string | undefined {
  if (said === undefined || said === null) return undefined;
  try {
    return inLocale(locale, () => sayInput(said, locale));
  } catch (error) {
    if (error instanceof Unsayable) return undefined;
    throw error;
  }
}

/** A message's English, as Jumbe stores it: words the code cannot say in English are a mistake in the code. */
export function englishOf(said: Said): string {
  const text = sayIn(baseLocale, said);
  if (text === undefined) throw new Error(`Words that cannot be said: ${JSON.stringify(said)}`);
  return text;
}
