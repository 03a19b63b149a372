import { sql, type SQL } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { contactTags, MAX_TAGS } from "./fields";
import { contactConditions, type Actor, type ContactFilter } from "./manage";
import { refuseContact } from "./refusals";
import { m } from "~/paraglide/messages";
import { pruneContactTags } from "./tags";

/** The rows a bulk action works on: the ticked ones, or everything a filter matches. */
export type BulkTarget = { ids: string[] } | { filter: ContactFilter };

/** Rows changed per statement, and at most this many per request: bounded work, short locks. */
export const BULK_BATCH = 1000;
export const BULK_MAX = 200_000;
export const SELECTION_MAX = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The target's condition on `c`, checked: ids must be ids, and a selection is small. */
function targetCondition(organizationId: string, target: BulkTarget): SQL {
  if ("filter" in target) return contactConditions(organizationId, target.filter);
  if (!target.ids.length) throw refuseContact(400, "contact_not_found", m.messaging_bulk_tick_first());
  if (target.ids.length > SELECTION_MAX) throw refuseContact(400, "contact_not_found", m.messaging_bulk_too_many({ max: SELECTION_MAX }));
  if (!target.ids.every((id) => UUID.test(id))) throw refuseContact(400, "contact_not_found", m.messaging_bulk_not_contact());
  return sql`c.organization_id = ${organizationId} and c.id = any(${sql.param(target.ids)}::uuid[])`;
}

/**
 * Runs `change` (an UPDATE or DELETE of the contacts whose ids it is given) over the target, a batch
 * at a time in id order, so each statement holds few locks and a long run never revisits a row.
 */
async function inBatches(organizationId: string, target: BulkTarget, change: (batch: SQL) => SQL) {
  const where = targetCondition(organizationId, target);
  let after = "00000000-0000-0000-0000-000000000000";
  let changed = 0;
  for (let seen = 0; seen < BULK_MAX; seen += BULK_BATCH) {
    const batch = sql`select c.id from contacts c where ${where} and c.id > ${after}::uuid order by c.id limit ${BULK_BATCH}`;
    const rows = (await queryRow<{ changed: number; last: string | null; size: number }>(
      db(),
      sql`with batch as (${batch}), done as (${change(sql`select id from batch`)} returning 1)
        select (select count(*) from done)::int as changed, (select max(id::text) from batch) as last, (select count(*) from batch)::int as size`,
    ))!;
    changed += rows.changed;
    if (rows.size < BULK_BATCH || !rows.last) break;
    after = rows.last;
  }
  return changed;
}

/** Adds tags to every targeted contact (a contact already at MAX_TAGS keeps what it has). Answers how many changed. */
export async function bulkTag(actor: Actor & { meta?: RequestMeta }, target: BulkTarget, input: string[]) {
  const tags = bulkTags(input);
  const changed = await inBatches(
    actor.organizationId,
    target,
    (ids) => sql`
    update contacts set tags = tags || ${added(tags)}, updated_at = now()
    where organization_id = ${actor.organizationId} and id in (${ids}) and not (tags @> ${sql.param(tags)}::text[])
      and cardinality(tags || ${added(tags)}) <= ${MAX_TAGS}`,
  );
  await note(
    actor,
    "Contacts tagged",
    englishOf(
      changed === 1
        ? words("app_activity_detail_contacts_tagged_one", { tags: tags.join(", ") })
        : words("app_activity_detail_contacts_tagged", { tags: tags.join(", "), count: changed }),
    ),
  );
  return changed;
}

/** Removes tags from every targeted contact that has any of them. Answers how many changed. */
export async function bulkUntag(actor: Actor & { meta?: RequestMeta }, target: BulkTarget, input: string[]) {
  const tags = bulkTags(input);
  const changed = await inBatches(
    actor.organizationId,
    target,
    (ids) => sql`
    update contacts set tags = array(select t from unnest(tags) t where t <> all(${sql.param(tags)}::text[])), updated_at = now()
    where organization_id = ${actor.organizationId} and id in (${ids}) and tags && ${sql.param(tags)}::text[]`,
  );
  await pruneContactTags({ organizationId: actor.organizationId, tags });
  await note(
    actor,
    "Contacts untagged",
    englishOf(
      changed === 1
        ? words("app_activity_detail_contacts_untagged_one", { tags: tags.join(", ") })
        : words("app_activity_detail_contacts_untagged", { tags: tags.join(", "), count: changed }),
    ),
  );
  return changed;
}

/** Deletes every targeted contact (their messages stay, unlinked). Answers how many went. */
export async function bulkDelete(actor: Actor & { meta?: RequestMeta }, target: BulkTarget) {
  const deleted = await inBatches(
    actor.organizationId,
    target,
    (ids) => sql`delete from contacts where organization_id = ${actor.organizationId} and id in (${ids})`,
  );
  await pruneContactTags({ organizationId: actor.organizationId });
  await note(actor, "Contacts deleted", `${deleted} contact${deleted === 1 ? "" : "s"} deleted.`);
  return deleted;
}

/** The tags a contact lacks, in the order given (EXCEPT would lose the order). */
const added = (tags: string[]) =>
  sql`array(select u.t from unnest(${sql.param(tags)}::text[]) with ordinality u(t, i) where u.t <> all(tags) order by u.i)`;

function bulkTags(input: string[]) {
  const tags = contactTags(input.flatMap((t) => t.split(",")));
  if (!tags.length) throw refuseContact(400, "invalid_tag", m.messaging_bulk_tag_required());
  return tags;
}

async function note(actor: Actor & { meta?: RequestMeta }, action: string, details: string) {
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action,
    details,
    meta: actor.meta,
  });
}
