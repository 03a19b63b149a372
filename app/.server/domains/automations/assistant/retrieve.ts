import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { normaliseText, wordsOf } from "../match";

/**
 * The passages of an organisation's knowledge that best answer a customer's message (issue 44), in
 * English or Swahili, on PGlite and PostgreSQL alike: PostgreSQL's text search ('simple': no
 * stemming, so words match by prefix: deliver → delivery) ranks passages that share words, and
 * pg_trgm's word similarity finds a word inside another (Swahili's prefixes: mnafungua →
 * tunafungua) or misspelt (delivry). Both are served by GIN indexes; only this organisation's rows
 * are read.
 */

export const TOP_PASSAGES = 4;
/** The question's words used, at most. */
const MAX_WORDS = 12;
/** A word's trigram similarity below this counts for nothing. */
const SIMILARITY_FLOOR = 0.6;

/** Words too common to say what a question is about, in English and Swahili. */
const STOP_WORDS = new Set(
  (
    "the and for are was were you your yours our ours what when where which who whom why how can could would should will " +
    "does did have has had with this that these those there their them they from into about please thanks thank hello " +
    "hi hey not but any some all just also get got want need know tell is it its any much many more most " +
    "nini gani tafadhali hii hiyo hizi hizo sasa lini wapi vipi mimi wewe yeye sisi nyinyi wao yako yenu yangu " +
    "yetu asante habari sawa ndiyo ndio hapana naomba nataka pia kama lakini kwa ili hadi tena bado kuna hakuna " +
    "niko uko yuko tuko mko wako jambo mambo poa sasa"
  ).split(/\s+/),
);

export interface Passage {
  id: string;
  articleId: string;
  title: string;
  text: string;
  score: number;
}

/** The message's words that may find a passage: normalised, three characters or more (digits any), not stop words. */
export function searchWordsOf(message: string): string[] {
  const words = wordsOf(normaliseText(message.slice(0, 1000)));
  const kept = words.filter((w) => (w.length >= 3 || /^\d+$/.test(w)) && !STOP_WORDS.has(w));
  return [...new Set(kept)].slice(0, MAX_WORDS);
}

export async function retrievePassages(organizationId: string, message: string, limit = TOP_PASSAGES): Promise<Passage[]> {
  const words = searchWordsOf(message);
  if (!words.length) return [];
  // Words are letters and digits only: safe as tsquery lexemes.
  const tsquery = words.map((w) => `${w}:*`).join(" | ");
  const rows = await queryRows<{ id: string; article_id: string; title: string; text: string; score: number }>(
    db(),
    sql`
    with q as (select to_tsquery('simple', ${tsquery}) as tsq, ${sql.param(words)}::text[] as words)
    select p.id, p.article_id, a.title, p.text,
           (ts_rank(to_tsvector('simple', p.text), q.tsq)
            + coalesce((select sum(s) from (select word_similarity(w, p.text) as s from unnest(q.words) w) x
                        where s >= ${SIMILARITY_FLOOR}), 0) / ${words.length})::float8 as score
    from knowledge_passages p
    join knowledge_articles a on a.id = p.article_id
    cross join q
    where p.organization_id = ${organizationId}
      and (to_tsvector('simple', p.text) @@ q.tsq or p.text %> any(q.words))
    order by score desc, p.article_id, p.position
    limit ${limit}`,
  );
  return rows.map((r) => ({ id: r.id, articleId: r.article_id, title: r.title, text: r.text, score: Number(r.score) }));
}
