import { rawQuery } from "../../infrastructure/db/client";
import { fileStorage, StorageNotFoundError } from "../../infrastructure/storage";
import { GraphApiError, type GraphClient } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { processState } from "../../infrastructure/process-state";

/**
 * Files sent by mediaId reach Meta at dispatch: compose.ts writes `{ id: "jumbe-media:<uuid>" }`
 * into the stored request, and just before the send the placeholder becomes Meta's media id for
 * the sending number. A file is uploaded once per number (POST /{phone-number-id}/media) and that
 * id is sent again while it is younger than REUSE_DAYS: Meta keeps media 30 days (decision 023).
 */

export const PLACEHOLDER_PREFIX = "jumbe-media:";
/** Meta deletes media 30 days after the upload; a day short of that leaves room for slow queues. */
export const REUSE_DAYS = 29;

/** The message the dispatcher is about to send. */
export interface OutgoingMedia {
  organization_id: string;
  phone_number_id: string;
  token: string;
}

/** A file named by a queued message that no longer exists (deleted since): the message cannot be sent. */
export class MediaGoneError extends Error {
  constructor(id: string) {
    super(`The media file ${id} was deleted before the message could be sent (media_not_found).`);
    this.name = "MediaGoneError";
  }
}

/**
 * How often a reused id is checked with Meta (GET /{media-id}) before it is sent: an id Meta no
 * longer has (the sandbox forgets its media on a restart; Meta may drop one early) is uploaded
 * again instead of failing every message that names it until it ages out.
 */
export const VERIFY_EVERY_MS = 10 * 60_000;

// Per process: uploads under way by file and number (messages sending one file at once share one
// upload), and when each reused id was last seen at Meta.
const { inFlight, verifiedAt } = processState("messaging.media-uploads", () => ({
  inFlight: new Map<string, Promise<string>>(),
  verifiedAt: new Map<string, number>(),
}));

/** Every placeholder id in a request (a media message's `id`, a template header's). */
function placeholders(value: unknown, found: Set<string>) {
  if (typeof value === "string") {
    if (value.startsWith(PLACEHOLDER_PREFIX)) found.add(value.slice(PLACEHOLDER_PREFIX.length));
  } else if (Array.isArray(value)) for (const item of value) placeholders(item, found);
  else if (value && typeof value === "object") for (const item of Object.values(value)) placeholders(item, found);
  return found;
}

function replaced(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === "string")
    return value.startsWith(PLACEHOLDER_PREFIX) ? (ids.get(value.slice(PLACEHOLDER_PREFIX.length)) ?? value) : value;
  if (Array.isArray(value)) return value.map((item) => replaced(item, ids));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaced(v, ids)]));
  return value;
}

/**
 * `body` with each of Jumbe's media placeholders replaced by Meta's id for the sending number,
 * uploading what has no recent upload. Meta's errors (GraphApiError, GraphNetworkError) go to the
 * caller, whose retry and failure path is the send's; a deleted file is a MediaGoneError.
 */
export async function withMetaMediaIds<T extends Record<string, unknown>>(
  client: GraphClient,
  message: OutgoingMedia,
  body: T,
): Promise<T> {
  const wanted = placeholders(body, new Set());
  if (!wanted.size) return body;
  const ids = new Map<string, string>();
  for (const fileId of wanted) ids.set(fileId, await metaMediaId(client, message, fileId));
  return replaced(body, ids) as T;
}

async function metaMediaId(client: GraphClient, message: OutgoingMedia, fileId: string): Promise<string> {
  const key = `${message.organization_id}|${fileId}|${message.phone_number_id}`;
  const running = inFlight.get(key);
  if (running) return running;
  const work = (async () => {
    const [file] = await rawQuery<{ mime_type: string; file_name: string | null; storage_key: string; meta_media_id: string | null }>(
      `select f.mime_type, f.file_name, f.storage_key, u.meta_media_id
       from media_files f
       left join media_uploads u on u.media_file_id = f.id and u.phone_number_id = $3
                                 and u.uploaded_at > now() - make_interval(days => ${REUSE_DAYS})
       where f.id = $1 and f.organization_id = $2`,
      [fileId, message.organization_id, message.phone_number_id],
    );
    if (!file) throw new MediaGoneError(fileId);
    if (file.meta_media_id && (await stillAtMeta(client, message, key, file.meta_media_id))) return file.meta_media_id;
    let metaId: string;
    try {
      metaId = await fileStorage().withBlob(file.storage_key, file.mime_type, (bytes) =>
        client.uploadMedia(message.phone_number_id, message.token, {
          bytes,
          contentType: file.mime_type,
          fileName: file.file_name ?? `${fileId}.${file.mime_type.split("/")[1]}`,
        }),
      );
    } catch (error) {
      if (error instanceof StorageNotFoundError) throw new MediaGoneError(fileId);
      throw error;
    }
    verifiedAt.set(key, Date.now());
    await rawQuery(
      `insert into media_uploads (media_file_id, phone_number_id, meta_media_id) values ($1, $2, $3)
       on conflict (media_file_id, phone_number_id) do update set meta_media_id = excluded.meta_media_id, uploaded_at = now()`,
      [fileId, message.phone_number_id, metaId],
    );
    return metaId;
  })();
  inFlight.set(key, work);
  try {
    return await work;
  } finally {
    inFlight.delete(key);
  }
}

/** Whether Meta still has a media id uploaded earlier: checked once per VERIFY_EVERY_MS per process. */
async function stillAtMeta(client: GraphClient, message: OutgoingMedia, key: string, metaId: string) {
  const checked = verifiedAt.get(key);
  if (checked !== undefined && Date.now() - checked < VERIFY_EVERY_MS) return true;
  try {
    await client.getMedia(metaId, message.token, message.phone_number_id);
  } catch (error) {
    // Meta's "no such object" (100/33, 404): upload again. Anything else is the send's trouble.
    if (error instanceof GraphApiError && !error.retryable && error.status >= 400 && error.status < 500 && error.code !== 190) {
      verifiedAt.delete(key);
      return false;
    }
    throw error;
  }
  if (verifiedAt.size > 10_000) verifiedAt.clear();
  verifiedAt.set(key, Date.now());
  return true;
}
