import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { fileStorage } from "../../infrastructure/storage";
import { log } from "../../infrastructure/log";

/** At most this many organisations erased per housekeeping run (each in a transaction of its own). */
const ERASE_PER_RUN = 5;

/**
 * Erases the organisations whose grace period is over (decision 032): each in one transaction that
 * takes its row with `for update skip locked` (another instance's run erases the others), re-checks
 * that it is still closing and due, collects the keys of its stored files, and deletes the
 * organisation: every tenant row goes with it (their foreign keys cascade). The files are deleted
 * after the commit; a file that cannot be deleted is logged, and its key no longer names anything.
 * A reopened organisation has no erase_after, so it is never taken. Answers the ids erased.
 */
export async function eraseDueOrganisations(now = new Date(), limit = ERASE_PER_RUN) {
  const erased: string[] = [];
  while (erased.length < limit) {
    const done = await db().transaction(async (tx) => {
      const due = await queryRow<{ id: string }>(
        tx,
        sql`
          select id from organizations
          where closure_requested_at is not null and erase_after <= ${now.toISOString()}::timestamptz
          order by erase_after limit 1
          for update skip locked`,
      );
      if (!due) return null;
      const files = (
        await queryRows<{ key: string }>(
          tx,
          sql`
          select storage_key as key from media_files where organization_id = ${due.id}
          union all select storage_key from contact_imports where organization_id = ${due.id}
          union all select rejected_key from contact_imports where organization_id = ${due.id} and rejected_key is not null
          union all select image_key from products where organization_id = ${due.id} and image_key is not null`,
        )
      ).map((row) => row.key);
      // The same conditions again in the statement that deletes: a reopening that got in first wins.
      const deleted = await queryRows<{ id: string }>(
        tx,
        sql`
          delete from organizations
          where id = ${due.id} and closure_requested_at is not null and erase_after <= ${now.toISOString()}::timestamptz
          returning id`,
      );
      return deleted.length ? { id: due.id, files } : { id: null, files: [] };
    });
    if (!done) break;
    if (!done.id) break;
    for (const key of done.files)
      await fileStorage()
        .delete(key)
        .catch((error: unknown) => log().warn({ err: error, organizationId: done.id }, "an erased organisation's file was not deleted"));
    // And whatever else is under its prefix (a file whose row went first, a rejected-rows file in flight).
    await fileStorage()
      .deleteOrganisation(done.id)
      .catch((error: unknown) =>
        log().warn({ err: error, organizationId: done.id }, "an erased organisation's files were not all deleted"),
      );
    log().info({ organizationId: done.id, files: done.files.length }, "closed organisation erased");
    erased.push(done.id);
  }
  return erased;
}
