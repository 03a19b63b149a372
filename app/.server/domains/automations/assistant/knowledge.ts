import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRow, queryRows } from "../../../infrastructure/db/query";
import { isUuid } from "../../../infrastructure/db/keyset";
import { recordActivity } from "../../activity";
import type { RuleActor } from "../rules";
import { ARTICLE_BODY_MAX, ARTICLE_TITLE_MAX, ARTICLES_MAX, ASSISTANT_MESSAGES, type KnowledgeSource } from "~/lib/schemas/assistant";
import { passagesOf } from "./passages";
import { refuseAssistant } from "./settings";

/**
 * The knowledge base (issue 44): articles an organisation writes or uploads, each stored with its
 * passages (passages.ts) in the same transaction, which retrieval ranks. Another organisation's
 * article is not found, whatever its id.
 */

export interface ArticleView {
  id: string;
  title: string;
  body: string;
  source: KnowledgeSource;
  createdAt: string;
  updatedAt: string;
}

export interface ArticleInput {
  title: string;
  body: string;
}

interface ArticleRow {
  id: string;
  title: string;
  body: string;
  source: KnowledgeSource;
  created_at: string | Date;
  updated_at: string | Date;
}

const iso = (value: string | Date) => new Date(value).toISOString();
const viewOf = (row: ArticleRow): ArticleView => ({
  id: row.id,
  title: row.title,
  body: row.body,
  source: row.source,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const notFound = () => refuseAssistant(404, ASSISTANT_MESSAGES.articleNotFound);

/** The article as it will be stored, or the first thing wrong with it. */
export function checkedArticle(input: ArticleInput): ArticleInput {
  const title = input.title.replace(/\s+/g, " ").trim();
  const body = input.body.replace(/\r\n?/g, "\n").trim();
  if (!title) throw refuseAssistant(400, ASSISTANT_MESSAGES.titleRequired, "title");
  if ([...title].length > ARTICLE_TITLE_MAX) throw refuseAssistant(400, ASSISTANT_MESSAGES.titleTooLong, "title");
  if (!body) throw refuseAssistant(400, ASSISTANT_MESSAGES.bodyRequired, "body");
  if ([...body].length > ARTICLE_BODY_MAX) throw refuseAssistant(400, ASSISTANT_MESSAGES.bodyTooLong, "body");
  return { title, body };
}

export async function listArticles(organizationId: string, search = ""): Promise<ArticleView[]> {
  const query = search.trim().slice(0, 200);
  const rows = await queryRows<ArticleRow>(
    db(),
    query
      ? sql`select id, title, body, source, created_at, updated_at from knowledge_articles
            where organization_id = ${organizationId}
              and (title || ' ' || body) ilike ${`%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}
            order by updated_at desc, id limit ${ARTICLES_MAX}`
      : sql`select id, title, body, source, created_at, updated_at from knowledge_articles
            where organization_id = ${organizationId} order by updated_at desc, id limit ${ARTICLES_MAX}`,
  );
  return rows.map(viewOf);
}

export async function countArticles(organizationId: string): Promise<number> {
  const row = await queryRow<{ n: number }>(
    db(),
    sql`select count(*)::int as n from knowledge_articles where organization_id = ${organizationId}`,
  );
  return row?.n ?? 0;
}

export async function getArticle(organizationId: string, id: string): Promise<ArticleView> {
  if (!isUuid(id)) throw notFound();
  const row = await queryRow<ArticleRow>(
    db(),
    sql`select id, title, body, source, created_at, updated_at from knowledge_articles where organization_id = ${organizationId} and id = ${id}`,
  );
  if (!row) throw notFound();
  return viewOf(row);
}

async function writePassages(tx: Executor, organizationId: string, articleId: string, article: ArticleInput) {
  await tx.execute(sql`delete from knowledge_passages where article_id = ${articleId}`);
  const passages = passagesOf(article.title, article.body);
  if (!passages.length) return;
  await tx.execute(sql`
    insert into knowledge_passages (organization_id, article_id, position, text)
    select ${organizationId}, ${articleId}, t.ord::int, t.text
    from unnest(${sql.param(passages)}::text[]) with ordinality as t(text, ord)`);
  // The words retrieval matches a customer's words against (retrieve.ts).
  await tx.execute(sql`
    insert into knowledge_words (organization_id, word)
    select distinct ${organizationId}::uuid, w.lexeme
    from knowledge_passages p, unnest(p.tsv) as w
    where p.article_id = ${articleId} and length(w.lexeme) between 3 and 40
    on conflict do nothing`);
}

const lockArticles = (tx: Executor, organizationId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`knowledge:${organizationId}`}))`);

/** Adds articles in one transaction (an upload's rows are all stored or none), checked first. */
export async function addArticles(actor: RuleActor, inputs: ArticleInput[], source: KnowledgeSource): Promise<ArticleView[]> {
  const articles = inputs.map(checkedArticle);
  const ids = await db().transaction(async (tx) => {
    await lockArticles(tx, actor.organizationId);
    const count = await queryRow<{ n: number }>(
      tx,
      sql`select count(*)::int as n from knowledge_articles where organization_id = ${actor.organizationId}`,
    );
    if ((count?.n ?? 0) + articles.length > ARTICLES_MAX) throw refuseAssistant(409, ASSISTANT_MESSAGES.articlesFull);
    const made: string[] = [];
    for (const article of articles) {
      const row = await queryRow<{ id: string }>(
        tx,
        sql`insert into knowledge_articles (organization_id, title, body, source)
            values (${actor.organizationId}, ${article.title}, ${article.body}, ${source}) returning id`,
      );
      await writePassages(tx, actor.organizationId, row!.id, article);
      made.push(row!.id);
    }
    return made;
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Knowledge article added",
    meta: actor.meta,
  });
  return Promise.all(ids.map((id) => getArticle(actor.organizationId, id)));
}

export async function addArticle(actor: RuleActor, input: ArticleInput): Promise<ArticleView> {
  const [article] = await addArticles(actor, [input], "manual");
  return article!;
}

export async function updateArticle(actor: RuleActor, id: string, input: ArticleInput): Promise<ArticleView> {
  const article = checkedArticle(input);
  if (!isUuid(id)) throw notFound();
  await db().transaction(async (tx) => {
    const row = await queryRow<{ id: string }>(
      tx,
      sql`update knowledge_articles set title = ${article.title}, body = ${article.body}, updated_at = now()
          where organization_id = ${actor.organizationId} and id = ${id} returning id`,
    );
    if (!row) throw notFound();
    await writePassages(tx, actor.organizationId, id, article);
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Knowledge article changed",
    meta: actor.meta,
  });
  return getArticle(actor.organizationId, id);
}

export async function deleteArticle(actor: RuleActor, id: string): Promise<ArticleView> {
  const article = await getArticle(actor.organizationId, id);
  await db().execute(sql`delete from knowledge_articles where organization_id = ${actor.organizationId} and id = ${id}`);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Knowledge article deleted",
    meta: actor.meta,
  });
  return article;
}
