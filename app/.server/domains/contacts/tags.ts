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

/** How many ads the Contacts tab's "Came from ad" lists (the latest first). */
export const AD_CHOICES_MAX = 50;

/**
 * The Contacts tab's choices, in one statement: the tags, and the ads that brought contacts (each
 * ad's id with its latest headline, the most recently clicked first; decision 154).
 */
export async function contactFilterChoices(organizationId: string) {
  const [row] = await queryRows<{ tags: string[] | null; ads: { id: string; headline: string | null }[] | null }>(
    db(),
    sql`
    select (select array_agg(tag order by tag) from (select tag from contact_tags where organization_id = ${organizationId}
                                                      order by tag limit ${TAG_CHOICES_MAX}) t) as tags,
           (select json_agg(json_build_object('id', a.source_id, 'headline', a.headline) order by a.clicked_at desc)
            from (select distinct on (source_id) source_id, headline, clicked_at from ad_referrals
                  where organization_id = ${organizationId} order by source_id, clicked_at desc) a
            where a.source_id in (select source_id from ad_referrals where organization_id = ${organizationId}
                                  group by source_id order by max(clicked_at) desc limit ${AD_CHOICES_MAX})) as ads`,
  );
  return { tags: row?.tags ?? [], ads: row?.ads ?? [] };
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
