import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { countAffected, queryRows } from "../../infrastructure/db/query";

/** How many tags the filter offers. */
export const TAG_CHOICES_MAX = 200;

/** The tenant's tags for the tag filter, alphabetical (the contact_tags catalog, kept by triggers). */
export async function contactTagChoices(organizationId: string, limit = TAG_CHOICES_MAX) {
  const rows = await queryRows<{ tag: string }>(
    db(),
    sql`select tag from contact_tags where organization_id = ${organizationId} order by tag limit ${limit}`,
  );
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
  return countAffected(
    db(),
    sql`
    delete from contact_tags t where ${where}
      and not exists (select 1 from contacts c where c.organization_id = t.organization_id and c.tags @> array[t.tag])`,
  );
}
