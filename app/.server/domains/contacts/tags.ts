import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";

/** How many tags the filter offers. */
export const TAG_CHOICES_MAX = 200;

/** The tenant's tags for the tag filter, alphabetical (the contact_tags catalog, kept by triggers). */
export async function contactTagChoices(organizationId: string, limit = TAG_CHOICES_MAX) {
  const rows = (
    (await db().execute(
      sql`select tag from contact_tags where organization_id = ${organizationId} order by tag limit ${limit}`,
    )) as unknown as { rows: { tag: string }[] }
  ).rows;
  return rows.map((r) => r.tag);
}

/**
 * Removes from the catalog the tags no contact carries any more: of one tenant (after an untag or a
 * delete, `tags` naming the ones that may have gone), or of everyone (housekeeping). Answers how many.
 */
export async function pruneContactTags(scope?: { organizationId: string; tags?: string[] }) {
  const where = scope
    ? scope.tags
      ? sql`t.organization_id = ${scope.organizationId} and t.tag = any(${sql.param(scope.tags)}::text[])`
      : sql`t.organization_id = ${scope.organizationId}`
    : sql`true`;
  const result = (await db().execute(sql`
    delete from contact_tags t where ${where}
      and not exists (select 1 from contacts c where c.organization_id = t.organization_id and c.tags @> array[t.tag])`)) as unknown as {
    rowCount?: number;
    affectedRows?: number;
  };
  return Number(result.rowCount ?? result.affectedRows ?? 0);
}
