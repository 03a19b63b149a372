import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { verifyPassword, can } from "../auth";
import { pauseForClosing } from "../campaigns";
import { refuseOrganisation, ORGANISATION_REFUSALS } from "./refusals";
import type { OrganisationActor } from "./details";
import { GRACE_DAYS, ORGANISATION_MESSAGES, sameOrganisationName } from "~/lib/schemas/organisation";
import { dayKey, formatDay } from "~/lib/dates";

/**
 * Closing an organisation (decision 032): the owner asks, with their password and its name; for
 * GRACE_DAYS nothing is sent and every member sees when the data goes, and the owner can reopen it;
 * then housekeeping erases it (erasure.ts).
 */
export { GRACE_DAYS };
const DAY_MS = 24 * 3600_000;

function requireOwner(actor: OrganisationActor) {
  if (!can(actor.role, "organization:close")) throw refuseOrganisation(403, "forbidden", ORGANISATION_REFUSALS.ownerOnly);
}

async function checkPassword(actor: OrganisationActor, password: string) {
  const [own] = await rawQuery<{ password_hash: string }>(`select password_hash from users where id = $1 and organization_id = $2`, [
    actor.user.id,
    actor.organization.id,
  ]);
  if (!own || !(await verifyPassword(own.password_hash, password)))
    throw refuseOrganisation(400, "wrong_password", ORGANISATION_REFUSALS.wrongPassword, "password");
}

/**
 * Closes the organisation: erasure is set for GRACE_DAYS from now, and its sending and scheduled
 * campaigns pause with the reason, in one transaction. Answers when the data will be erased.
 */
export async function closeOrganisation(
  actor: OrganisationActor,
  input: { password: string; confirmName: string },
  meta?: RequestMeta,
  now = new Date(),
) {
  requireOwner(actor);
  if (!sameOrganisationName(input.confirmName, actor.organization.name))
    throw refuseOrganisation(400, "name_mismatch", ORGANISATION_MESSAGES.confirmNameMismatch, "confirmName");
  await checkPassword(actor, input.password);
  const eraseAfter = new Date(now.getTime() + GRACE_DAYS * DAY_MS);
  const paused = await db().transaction(async (tx) => {
    const closed = await queryRows<unknown>(
      tx,
      sql`
      update organizations set closure_requested_at = ${now.toISOString()}::timestamptz, closure_requested_by = ${actor.user.id},
             erase_after = ${eraseAfter.toISOString()}::timestamptz, updated_at = now()
      where id = ${actor.organization.id} and closure_requested_at is null
      returning id`,
    );
    if (!closed.length) return null;
    return pauseForClosing(tx, actor.organization.id, formatDay(eraseAfter));
  });
  if (!paused) throw refuseOrganisation(409, "already_closing", ORGANISATION_REFUSALS.alreadyClosing);
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "warning",
    action: "Organisation closing",
    // The day in the display zone, written in English whatever the owner reads (the log says it in each reader's words).
    details: englishOf(
      paused.length > 1
        ? words("app_activity_detail_organisation_closing_paused", { day: { day: dayKey(eraseAfter) }, count: paused.length })
        : words(paused.length ? "app_activity_detail_organisation_closing_one_paused" : "app_activity_detail_organisation_closing", {
            day: { day: dayKey(eraseAfter) },
          }),
    ),
    meta,
  });
  for (const entry of paused) await recordActivity(entry);
  return { eraseAfter, paused: paused.length };
}

/**
 * Reopens a closing organisation within the grace period: the three columns are cleared in one
 * statement that re-checks the date, so an erasure already due (or under way) is never undone halfway.
 * Campaigns paused by the closing stay paused: their owner resumes the ones still wanted.
 */
export async function reopenOrganisation(actor: OrganisationActor, input: { password: string }, meta?: RequestMeta, now = new Date()) {
  requireOwner(actor);
  await checkPassword(actor, input.password);
  const [reopened] = await rawQuery<{ id: string }>(
    `update organizations set closure_requested_at = null, closure_requested_by = null, erase_after = null, updated_at = now()
     where id = $1 and closure_requested_at is not null and erase_after > $2
     returning id`,
    [actor.organization.id, now],
  );
  if (!reopened) {
    const [row] = await rawQuery<{ closing: boolean }>(
      `select closure_requested_at is not null as closing from organizations where id = $1`,
      [actor.organization.id],
    );
    if (row?.closing) throw refuseOrganisation(409, "grace_over", ORGANISATION_REFUSALS.graceOver);
    throw refuseOrganisation(409, "not_closing", ORGANISATION_REFUSALS.notClosing);
  }
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action: "Organisation reopened",
    details: "It will not be erased. Campaigns paused by the closing stay paused until someone resumes them.",
    meta,
  });
}
