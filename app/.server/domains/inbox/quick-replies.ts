import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { isUuid } from "../../infrastructure/db/keyset";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { can, type Role } from "../auth";
import { QUICK_REPLIES_MAX, QUICK_REPLY_MESSAGES, QuickReplySchema, type QuickReplyInput } from "~/lib/schemas/quick-replies";
import { Refusal } from "../../infrastructure/refusal";

/**
 * The organisation's saved answers: an agent types `/` and the shortcut in the composer of a chat
 * and the text goes in. Everyone who answers reads them; owners and admins keep them
 * (`inbox:quick-replies`). A shortcut is used once per organisation whatever its case (the unique
 * index quick_replies_org_shortcut_idx on lower(shortcut)).
 */

export interface QuickReply {
  id: string;
  shortcut: string;
  body: string;
}

/** Who changes them: the signed-in member, as the guards resolve them. */
export interface QuickReplyActor {
  organizationId: string;
  userId: string | null;
  role: Role;
  meta?: RequestMeta;
}

/** Why a change is refused; nothing has changed when one is thrown. `field` is the form field it is about. */
export const refuseQuickReply = (status: 400 | 403 | 404 | 409, message: string, field?: "shortcut" | "body") =>
  new Refusal({ domain: "quick_reply", status, message, field });

/** The organisation's saved answers by shortcut (a to z, whatever the case): the composer offers them after `/`. */
export async function listQuickReplies(organizationId: string): Promise<QuickReply[]> {
  return rawQuery<QuickReply>(
    `select id, shortcut, body from quick_replies where organization_id = $1 order by lower(shortcut), shortcut, id limit ${QUICK_REPLIES_MAX}`,
    [organizationId],
  );
}

/** One saved answer of the organisation; null for an unknown id or another organisation's. */
export async function getQuickReply(organizationId: string, id: string): Promise<QuickReply | null> {
  if (!isUuid(id)) return null;
  const [row] = await rawQuery<QuickReply>(`select id, shortcut, body from quick_replies where organization_id = $1 and id = $2`, [
    organizationId,
    id,
  ]);
  return row ?? null;
}

/** Adds a saved answer: at most 200 an organisation, each shortcut once (case aside). */
export async function createQuickReply(actor: QuickReplyActor, input: QuickReplyInput): Promise<QuickReply> {
  requireKeeper(actor);
  const { shortcut, body } = checked(input);
  const saved = await db().transaction(async (tx) => {
    // One change at a time per organisation, so two adds cannot both pass the count or the shortcut check.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`quick-replies:${actor.organizationId}`}))`);
    const existing = (await queryRow<{ n: number; same: number }>(
      tx,
      sql`select count(*)::int as n, count(*) filter (where lower(shortcut) = lower(${shortcut}))::int as same
                          from quick_replies where organization_id = ${actor.organizationId}`,
    ))!;
    if (existing.same) throw refuseQuickReply(409, QUICK_REPLY_MESSAGES.shortcutTaken, "shortcut");
    if (existing.n >= QUICK_REPLIES_MAX) throw refuseQuickReply(409, QUICK_REPLY_MESSAGES.limit);
    return (await queryRow<QuickReply>(
      tx,
      sql`insert into quick_replies (organization_id, shortcut, body, created_by)
                          values (${actor.organizationId}, ${shortcut}, ${body}, ${actor.userId})
                          returning id, shortcut, body`,
    ))!;
  });
  await record(actor, "Saved answer added", `/${saved.shortcut}`);
  return saved;
}

/** Changes a saved answer's shortcut or text; another organisation's id is not found. */
export async function updateQuickReply(actor: QuickReplyActor, id: string, input: QuickReplyInput): Promise<QuickReply> {
  requireKeeper(actor);
  const { shortcut, body } = checked(input);
  if (!isUuid(id)) throw notFound();
  const { before, after } = await db().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`quick-replies:${actor.organizationId}`}))`);
    const [was] = await queryRows<QuickReply>(
      tx,
      sql`select id, shortcut, body from quick_replies where organization_id = ${actor.organizationId} and id = ${id}`,
    );
    if (!was) throw notFound();
    const taken = await queryRows<{ id: string }>(
      tx,
      sql`select id from quick_replies
                          where organization_id = ${actor.organizationId} and lower(shortcut) = lower(${shortcut}) and id <> ${id}`,
    );
    if (taken.length) throw refuseQuickReply(409, QUICK_REPLY_MESSAGES.shortcutTaken, "shortcut");
    const [now] = await queryRows<QuickReply>(
      tx,
      sql`update quick_replies set shortcut = ${shortcut}, body = ${body}
                          where organization_id = ${actor.organizationId} and id = ${id} returning id, shortcut, body`,
    );
    return { before: was, after: now! };
  });
  if (before.shortcut !== after.shortcut || before.body !== after.body)
    await record(
      actor,
      "Saved answer changed",
      before.shortcut === after.shortcut ? `/${after.shortcut}` : `/${before.shortcut} is now /${after.shortcut}`,
    );
  return after;
}

/** Deletes a saved answer; another organisation's id is not found. */
export async function deleteQuickReply(actor: QuickReplyActor, id: string): Promise<QuickReply> {
  requireKeeper(actor);
  if (!isUuid(id)) throw notFound();
  const [gone] = await rawQuery<QuickReply>(
    `delete from quick_replies where organization_id = $1 and id = $2 returning id, shortcut, body`,
    [actor.organizationId, id],
  );
  if (!gone) throw notFound();
  await record(actor, "Saved answer deleted", `/${gone.shortcut}`);
  return gone;
}

function requireKeeper(actor: QuickReplyActor) {
  if (!can(actor.role, "inbox:quick-replies")) throw refuseQuickReply(403, QUICK_REPLY_MESSAGES.forbidden);
}

/** The same checks as the form's, for callers that did not go through it. */
function checked(input: QuickReplyInput): QuickReplyInput {
  const parsed = QuickReplySchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path[0] === "body" ? "body" : "shortcut";
  throw refuseQuickReply(400, issue.message, field);
}

const notFound = () => refuseQuickReply(404, QUICK_REPLY_MESSAGES.notFound);

function record(actor: QuickReplyActor, action: string, details: string) {
  return recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action,
    details,
    meta: actor.meta,
  });
}
