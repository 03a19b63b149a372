import { baseLocale, type Locale } from "~/paraglide/runtime";
import { isRecord, sayIn, type Said } from "../../infrastructure/words/said";

/** A notification's title and body in messages (a body of data alone, e.g. Meta's text, is that text). */
export interface NoticeWords {
  title: Said;
  body?: Said;
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
