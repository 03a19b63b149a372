import { rawQuery } from "../../infrastructure/db/client";
import type { MessageKey } from "../../infrastructure/db/message-keys";

/**
 * Suspension at the last moment before a send (issue 19). Suspending an organisation holds its
 * waiting messages in one transaction, but a message a worker claimed before it committed is
 * already in a batch: the dispatcher asks again, just before each call to Meta, and holds it
 * instead of sending it. Held here means what the suspension does to the messages it holds
 * (`next_attempt_at = 'infinity'`, unclaimed, untried): never failed, never charged, and
 * reactivating the organisation makes it due again like the others.
 */

/**
 * Which of the batch's organisations are suspended now, for the batch's workers: one lookup of
 * their primary keys, shared by every send that asks while it is on its way (a batch's 64 calls
 * in flight make one query a round, not one each). Answers null when the database could not say:
 * the send is then put back untried rather than made on a guess.
 */
export function suspendedNow(organizationIds: string[]) {
  let asking: Promise<Set<string> | null> | null = null;
  return function ask(): Promise<Set<string> | null> {
    asking ??= rawQuery<{ id: string }>(`select id from organizations where id = any($1::uuid[]) and status = 'suspended'`, [
      organizationIds,
    ]).then(
      (rows) => {
        asking = null;
        return new Set(rows.map((r) => r.id));
      },
      () => {
        asking = null;
        return null;
      },
    );
    return asking;
  };
}

/**
 * Holds claimed messages of suspended organisations as the suspension holds waiting ones, while
 * their organisation is still suspended: its row is read FOR SHARE, so a reactivation (which locks
 * it FOR UPDATE, then makes held messages due) comes wholly before or after. Answers the messages
 * held; the others' organisation was reactivated meanwhile, and they go back to the queue.
 */
export async function holdForSuspension(messages: (MessageKey & { organization_id: string })[]): Promise<Set<string>> {
  if (!messages.length) return new Set();
  const rows = await rawQuery<{ id: string }>(
    `with suspended as (
       select id from organizations where id = any($3::uuid[]) and status = 'suspended' for share
     )
     update messages m set locked_until = null, attempts = greatest(m.attempts - 1, 0), next_attempt_at = 'infinity'
     from unnest($1::uuid[], $2::timestamptz[]) as k(id, created_at), suspended s
     where m.id = k.id and m.created_at = k.created_at and m.organization_id = s.id and m.accepted_at is null and m.failed_at is null
     returning m.id`,
    [messages.map((m) => m.id), messages.map((m) => m.createdAt), [...new Set(messages.map((m) => m.organization_id))]],
  );
  return new Set(rows.map((r) => r.id));
}
