import { m } from "~/paraglide/messages";
import { baseLocale, type Locale } from "~/paraglide/runtime";
import { formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { inLocale } from "../../infrastructure/http/display-zone";

/**
 * What a notification says, kept as the catalogue's messages and their inputs (issue 43), so each
 * reader sees it in their own language: the bell, /notifications and the e-mail say it again from
 * these in the reader's language when they show it. The English is stored beside them (the title
 * and body columns), for rows written before and for anything that cannot say these.
 *
 * Stored as JSON: a message is `[key, inputs]`. An input is data, kept as given (a name, a URL,
 * Meta's own reason), a number (grouped for the reader's language when said), another message
 * (`[key, inputs]`, said in the same language: a role, a pause reason), a list of inputs (said
 * one after another with ", "), an amount in cents (`{ kes }`) or a moment (`{ at }`).
 */
export type MessageKey = keyof typeof m;
export type Said = string | number | Message | { list: Said[] } | { kes: number } | { at: string };
export type Message = [key: MessageKey, inputs?: Record<string, Said>];

/** A notification's title and body in messages (a body of data alone, e.g. Meta's text, is that text). */
export interface NoticeWords {
  title: Said;
  body?: Said;
}

/** A message of the catalogue with its inputs: `words("app_notice_x", { name })`. */
export function words(key: MessageKey, inputs?: Record<string, Said>): Message {
  return inputs ? [key, inputs] : [key];
}

type MessageFunction = (inputs: Record<string, string>, options: { locale: Locale }) => string;

/** The catalogue's function for a stored key, if it is one (a key since renamed or removed is not). */
function messageOf(key: unknown): MessageFunction | undefined {
  if (typeof key !== "string" || !Object.hasOwn(m, key)) return undefined;
  const found = (m as unknown as Record<string, unknown>)[key];
  return typeof found === "function" ? (found as MessageFunction) : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

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

/** The English stored in the title and body columns: what the notification said before issue 43. */
export function inEnglish(words: NoticeWords): { title: string; body: string } {
  const title = sayIn(baseLocale, words.title);
  const body = words.body === undefined ? "" : sayIn(baseLocale, words.body);
  // An emitter's words that English cannot say are a mistake in the code, not in the data.
  if (title === undefined || body === undefined) throw new Error(`A notification's words cannot be said: ${JSON.stringify(words)}`);
  return { title, body };
}

/**
 * A stored notification in the reader's language: its words said in `locale`, each part falling
 * back to the stored English when its words cannot be said (rows written before issue 43 have none).
 */
export function noticeIn(locale: Locale, row: { title: string; body: string; words?: unknown }): { title: string; body: string } {
  const stored = isRecord(row.words) ? row.words : undefined;
  if (!stored) return { title: row.title, body: row.body };
  return {
    title: sayIn(locale, stored.title) ?? row.title,
    body: stored.body === undefined ? row.body : (sayIn(locale, stored.body) ?? row.body),
  };
}
