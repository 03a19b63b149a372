import { rawQuery } from "../../infrastructure/db/client";
import { isUuid, PLACEHOLDER_PREFIX } from "../messaging";

/**
 * The file of a message in a thread (/chat/media/:id): a customer's media Jumbe downloaded
 * (messages.media_file_id), or the upload Jumbe sent (the `jumbe-media:<uuid>` in its stored
 * request, a media message's or a template header's). Only the organisation's own message and
 * its own file: anything else is null, as is an id that is not one.
 */
export interface MessageFile {
  mimeType: string;
  size: number;
  /** Lower-case hex. */
  sha256: string;
  fileName: string | null;
  storageKey: string;
}

export async function messageFile(organizationId: string, messageId: string): Promise<MessageFile | null> {
  if (!isUuid(messageId)) return null;
  const [message] = await rawQuery<{ direction: string; media_file_id: string | null; payload: unknown }>(
    `select direction, media_file_id, case when direction = 'outbound' then payload end as payload
     from messages where organization_id = $1 and id = $2`,
    [organizationId, messageId],
  );
  if (!message) return null;
  const fileId = message.direction === "inbound" ? message.media_file_id : uploadIn(message.payload);
  if (!fileId || !isUuid(fileId)) return null;
  const [file] = await rawQuery<{ mime_type: string; size: number; sha256: string; file_name: string | null; storage_key: string }>(
    `select mime_type, size, sha256, file_name, storage_key from media_files where organization_id = $1 and id = $2`,
    [organizationId, fileId],
  );
  return file
    ? { mimeType: file.mime_type, size: Number(file.size), sha256: file.sha256, fileName: file.file_name, storageKey: file.storage_key }
    : null;
}

/** The first of Jumbe's uploads a stored request names (a message carries one file at most). */
function uploadIn(value: unknown): string | null {
  if (typeof value === "string") return value.startsWith(PLACEHOLDER_PREFIX) ? value.slice(PLACEHOLDER_PREFIX.length) : null;
  const items = Array.isArray(value) ? value : value && typeof value === "object" ? Object.values(value) : [];
  for (const item of items) {
    const found = uploadIn(item);
    if (found) return found;
  }
  return null;
}
