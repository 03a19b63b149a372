import { m } from "~/paraglide/messages";
import { baseLocale, getLocale, type Locale } from "~/paraglide/runtime";
import { sayIn, type Message, type MessageKey, type Said } from "./said";

/**
 * English that Jumbe stored (an activity's details, a console alert) read back into the message
 * that wrote it, so a page says it in its reader's language (issue 43, decision 074). The writer
 * stores `englishOf(words(key, inputs))`; the reader matches the text against the English of the
 * messages listed here, each input of a known kind, and says the message again. Rows written
 * before a sentence was listed, in the same words, are read the same way. A text no message
 * matches is shown as stored.
 *
 * An input's kind says how its English is read back:
 * - "data": kept as written (a name, an e-mail, a URL, Meta's reason);
 * - "instant": an ISO 8601 moment ("2026-11-27T09:00:00.000Z"), kept as written;
 * - "count": "1,234" → a number, grouped as the reader's language groups it;
 * - "kes": "KES 2,320.00" → an amount, written as the reader's language writes shillings;
 * - "day": "1 December 2026" → a calendar day; "month": "November 2026" → a month;
 * - a list of message keys: one of those messages (a role, a payment method), said in the reader's language;
 * - another StoredSentences: one of its sentences, itself read back (a pause reason inside a detail).
 */
export type StoredInput = "data" | "instant" | "count" | "kes" | "day" | "month" | readonly MessageKey[] | StoredSentences;

/** A message that writes stored English, and the kinds of its inputs (none: a fixed sentence). */
export type StoredSentence = readonly [key: MessageKey, inputs?: Readonly<Record<string, StoredInput>>];

export interface StoredSentences {
  /** The sentences, in the order they are tried. */
  readonly list: readonly StoredSentence[];
  /** The message a stored text is, with its inputs as words; undefined when none matches. */
  read(text: string): Message | undefined;
  /** The stored text in `locale` (the request's by default); undefined when no message matches. */
  say(text: string, locale?: Locale): string | undefined;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const pad = (n: number) => n.toString().padStart(2, "0");

/** Each kind's English read back into an input; undefined when the text is not of that kind. */
function readInput(kind: StoredInput, text: string): Said | undefined {
  if (kind === "data") return text;
  if (kind === "instant") return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/.test(text) ? text : undefined;
  if (kind === "count") return /^\d{1,3}(?:,\d{3})*$|^\d+$/.test(text) ? Number(text.replaceAll(",", "")) : undefined;
  if (kind === "kes") {
    const amount = /^(-?)KES (\d{1,3}(?:,\d{3})*)\.(\d{2})$/.exec(text);
    return amount ? { kes: (amount[1] ? -1 : 1) * (Number(amount[2]!.replaceAll(",", "")) * 100 + Number(amount[3])) } : undefined;
  }
  if (kind === "day") {
    const day = /^(\d{1,2}) ([A-Z][a-z]+) (\d{4})$/.exec(text);
    const month = day ? MONTHS.indexOf(day[2]!) : -1;
    return day && month >= 0 ? { day: `${day[3]}-${pad(month + 1)}-${pad(Number(day[1]))}` } : undefined;
  }
  if (kind === "month") {
    const found = /^([A-Z][a-z]+) (\d{4})$/.exec(text);
    const month = found ? MONTHS.indexOf(found[1]!) : -1;
    return found && month >= 0 ? { month: `${found[2]}-${pad(month + 1)}` } : undefined;
  }
  if (Array.isArray(kind)) {
    const key = (kind as readonly MessageKey[]).find((candidate) => englishOfKey(candidate) === text);
    return key ? [key] : undefined;
  }
  return (kind as StoredSentences).read(text);
}

const englishCache = new Map<MessageKey, string>();
function englishOfKey(key: MessageKey): string {
  let english = englishCache.get(key);
  if (english === undefined) englishCache.set(key, (english = sayEnglish(key, {})));
  return english;
}

/** A message's English with these inputs (any message: the catalogue types each one's own inputs). */
function sayEnglish(key: MessageKey, inputs: Record<string, string>): string {
  // Looked up by a plain string: `m[key]` would have the compiler type the union of every message
  // in the catalogue, seconds of each typecheck (decision 135).
  const name: string = key;
  const say: unknown = Reflect.get(m, name);
  if (typeof say !== "function") throw new Error(`the catalogue has no message ${name}`);
  return String(Reflect.apply(say, undefined, [inputs, { locale: baseLocale }]));
}

interface Compiled {
  key: MessageKey;
  /** The inputs in the order they appear in the English. */
  names: string[];
  regex: RegExp;
}

/** A message's English as a pattern: each input a group, the rest matched as written. */
function compile([key, inputs = {}]: StoredSentence): Compiled {
  const names = Object.keys(inputs);
  const marked = sayEnglish(key, Object.fromEntries(names.map((name, i) => [name, `\uE000${i}\uE000`])));
  const source = marked
    .split(/\uE000\d+\uE000/)
    .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("([\\s\\S]+?)");
  const order = [...marked.matchAll(/\uE000(\d+)\uE000/g)].map((match) => names[Number(match[1])]!);
  return { key, names: order, regex: new RegExp(`^${source}$`) };
}

/** Texts whose reading each list keeps; past it, it starts again (the texts are a person's, unbounded). */
const READ_BACK_KEPT = 2000;

/**
 * The sentences one part of Jumbe stores, tried in order (list the more particular first: the first
 * whose inputs all read back wins).
 */
export function storedSentences(list: readonly StoredSentence[]): StoredSentences {
  let compiled: Compiled[] | undefined;
  const kinds = new Map(list.map(([key, inputs = {}]) => [key, inputs]));
  // What a text reads back to, once found: a page of the activity log says the same few sentences
  // again and again, and each one not yet read is tried against every pattern (decision 176).
  const known = new Map<string, Message | null>();
  const read = (text: string): Message | undefined => {
    const found = known.get(text);
    if (found !== undefined) return found ?? undefined;
    const message = readAfresh(text);
    if (known.size >= READ_BACK_KEPT) known.clear();
    known.set(text, message ?? null);
    return message;
  };
  const readAfresh = (text: string): Message | undefined => {
    compiled ??= list.map(compile);
    for (const { key, names, regex } of compiled) {
      const match = regex.exec(text);
      if (!match) continue;
      const inputs: Record<string, Said> = {};
      const readBack = names.every((name, i) => {
        const value = readInput(kinds.get(key)![name]!, match[i + 1]!);
        if (value !== undefined) inputs[name] = value;
        return value !== undefined;
      });
      if (readBack) return names.length ? [key, inputs] : [key];
    }
    return undefined;
  };
  return {
    list,
    read,
    say(text, locale = getLocale()) {
      const message = read(text);
      return message ? sayIn(locale, message) : undefined;
    },
  };
}
