import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { normaliseText, wordsOf } from "../match";

/**
 * The passages of an organisation's knowledge that best answer a customer's message (issue 44), in
 * English or Swahili, on PGlite and PostgreSQL alike, in two short statements:
 *
 * 1. Each of the message's words finds the organisation's own words (knowledge_words) that look like
 *    it by trigram similarity: a typo (delivry → delivery), a Swahili verb with another subject
 *    prefix (mnafungua → tunafungua). A few thousand short words, GIN-indexed: never every passage's text.
 * 2. PostgreSQL's text search ('simple': no stemming) ranks the passages holding those words or words
 *    beginning with the message's own (deliver → delivery), from the stored tsvector and its GIN index.
 *
 * Only this organisation's rows are read.
 */
export const TOP_PASSAGES = 4;
/** The question's words used, at most. */
const MAX_WORDS = 12;
/** Trigram similarity from which an organisation's word stands for a customer's (mnafungua / tunafungua: 0.5). */
const SIMILARITY_FLOOR = 0.45;
/** Similar words taken for each of the customer's words, at most. */
const SIMILAR_PER_WORD = 3;
/** Passages ranked, at most, when only single words of the message match (a common word's first ones). */
const FALLBACK_CANDIDATES = 500;

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

/** A word as a text search lexeme: quoted, so any character is taken as written. */
const lexeme = (word: string) => `'${word.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** Each of the message's words with the organisation's words that look like it (a few at most). */
async function similarWords(organizationId: string, words: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await queryRows<{ qw: string; word: string }>(
    db(),
    sql`select q.qw, x.word from unnest(${sql.param([...words])}::text[]) as q(qw)
        cross join lateral (
          select w.word from knowledge_words w
          where w.organization_id = ${organizationId} and w.word % q.qw and similarity(w.word, q.qw) >= ${SIMILARITY_FLOOR}
          order by similarity(w.word, q.qw) desc, w.word limit ${SIMILAR_PER_WORD}
        ) x`,
  );
  const similar = new Map<string, string[]>();
  for (const row of rows) if (row.word !== row.qw) similar.set(row.qw, [...(similar.get(row.qw) ?? []), row.word]);
  return similar;
}

/** A word of the message as a text search clause: words it begins, or the organisation's words like it. */
const clauseOf = (word: string, similar: Map<string, string[]>) =>
  `(${[`${lexeme(word)}:*`, ...(similar.get(word) ?? []).map(lexeme)].join(" | ")})`;

/**
 * The tsqueries tried in turn until one finds passages: every word of the message; any two of them
 * (at most the first six words); any one. A question's words together find few passages, fast; a
 * word common to thousands is only ranked when nothing better matched, and then among its first
 * FALLBACK_CANDIDATES passages.
 */
function tiersOf(words: readonly string[], similar: Map<string, string[]>): { query: string; bounded: boolean }[] {
  const clauses = words.map((w) => clauseOf(w, similar));
  if (clauses.length === 1) return [{ query: clauses[0]!, bounded: true }];
  const pairs: string[] = [];
  const few = clauses.slice(0, 6);
  for (let i = 0; i < few.length; i++) for (let j = i + 1; j < few.length; j++) pairs.push(`(${few[i]} & ${few[j]})`);
  return [
    { query: clauses.join(" & "), bounded: false },
    ...(clauses.length > 2 ? [{ query: pairs.join(" | "), bounded: false }] : []),
    { query: clauses.join(" | "), bounded: true },
  ];
}

/** Passages a tsquery finds, best first. */
async function ranked(organizationId: string, query: string, bounded: boolean, limit: number) {
  return queryRows<{ id: string; article_id: string; title: string; text: string; score: number }>(
    db(),
    sql`
    select p.id, p.article_id, a.title, p.text, p.score
    from (select c.id, c.article_id, c.position, c.text, ts_rank(c.tsv, c.tsq)::float8 as score
          from (select p.id, p.article_id, p.position, p.text, p.tsv, q.tsq
                from knowledge_passages p, to_tsquery('simple', ${query}) as q(tsq)
                where p.organization_id = ${organizationId} and p.tsv @@ q.tsq
                ${bounded ? sql`limit ${FALLBACK_CANDIDATES}` : sql``}) c
          order by score desc, c.article_id, c.position
          limit ${limit}) p
    join knowledge_articles a on a.id = p.article_id
    order by p.score desc, p.article_id, p.position`,
  );
}

export async function retrievePassages(organizationId: string, message: string, limit = TOP_PASSAGES): Promise<Passage[]> {
  const words = searchWordsOf(message);
  if (!words.length) return [];
  const similar = await similarWords(organizationId, words);
  for (const tier of tiersOf(words, similar)) {
    const rows = await ranked(organizationId, tier.query, tier.bounded, limit);
    if (rows.length) return rows.map((r) => ({ id: r.id, articleId: r.article_id, title: r.title, text: r.text, score: Number(r.score) }));
  }
  return [];
}
