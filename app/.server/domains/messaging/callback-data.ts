import type { MessageKey } from "../../infrastructure/db/message-keys";

/**
 * What Jumbe sends Meta as a message's `biz_opaque_callback_data`, which Meta echoes on every status
 * webhook: the message's key (decision 183), `<id> <created_at as PostgreSQL writes it>`. A status
 * whose send's answer was lost finds its message by the key (one month, once `messages` is
 * partitioned), not by the id alone (every month's index). Sends from before decision 183 carried
 * the id alone; their statuses still name their message. The status is bound to its tenant by the
 * webhook's number, and adoption matches the organisation too (statuses.ts).
 */
export const callbackDataOf = (key: MessageKey) => `${key.id} ${key.createdAt}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// PostgreSQL's ISO output of a timestamptz: "2026-12-02 13:08:00.123456+00" (seconds of offset too, rarely).
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;

/** The message a status's callback data names: its key, its id alone (an older send), or null (not Jumbe's). */
export function messageOfCallback(data: unknown): { id: string; createdAt: string | null } | null {
  if (typeof data !== "string" || data.length > 100) return null;
  const space = data.indexOf(" ");
  const id = space < 0 ? data : data.slice(0, space);
  if (!UUID.test(id)) return null;
  if (space < 0) return { id: id.toLowerCase(), createdAt: null };
  const createdAt = data.slice(space + 1);
  return TIMESTAMP.test(createdAt) ? { id: id.toLowerCase(), createdAt } : null;
}
