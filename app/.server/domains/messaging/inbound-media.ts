import { createHash } from "node:crypto";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import type { MessageKey } from "../../infrastructure/db/message-keys";
import { logMessageEvents } from "./conversation-events";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { fileStorage } from "../../infrastructure/storage";
import {
  describeGraphFailure,
  GraphApiError,
  graphClient,
  MediaTooLargeError,
  type GraphClient,
} from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { MEDIA_KINDS, type MediaKind } from "./content";
import { cleanMediaFileName } from "./media-files";
import { baseMimeType, LARGEST_MEDIA, MEDIA_TYPES } from "./media-types";

/**
 * What customers send (images, videos, voice notes, documents, stickers) is downloaded into Jumbe's
 * storage after the webhook is stored: Meta's media id lives 30 days and its download URL minutes,
 * so the file is fetched at once, in two hops (GET /{media-id}, then the URL with the token), by a
 * job outside the webhook's transaction. The message links to its file by `messages.media_file_id`.
 */

export const INBOUND_MEDIA_QUEUE = "messaging.inbound-media";
/** Tries of one download; Meta's temporary errors and network trouble are retried with the queue's backoff. */
export const INBOUND_MEDIA_ATTEMPTS = 5;

export const isMediaKind = (type: string): type is MediaKind => (MEDIA_KINDS as readonly string[]).includes(type);

/** Queues the download of each inbound media message just stored (in the webhook's transaction). */
export async function enqueueInboundMedia(executor: Executor, messages: (MessageKey & { type: string })[]) {
  for (const message of messages)
    if (isMediaKind(message.type))
      await enqueueJob(INBOUND_MEDIA_QUEUE, { messageId: message.id, createdAt: message.createdAt } satisfies InboundMediaJob, {
        executor,
        uniqueKey: `inbound-media:${message.id}`,
      });
}

/** A job's message: by its key (decision 183); jobs queued before it name the id alone. */
interface InboundMediaJob {
  messageId: string;
  createdAt?: string;
}

interface InboundRow extends MessageKey {
  organization_id: string;
  phone_number_id: string;
  message_type: string;
  payload: Record<string, unknown> | null;
  media_file_id: string | null;
}

/** A download that cannot succeed however often it is tried. */
class PermanentMediaFailure extends Error {
  constructor(
    message: string,
    readonly code: number | null = null,
  ) {
    super(message);
  }
}

/** The queue's handler: one message per job (each is one or two Graph calls and a file write). */
export async function runInboundMediaJobs(jobs: Job<InboundMediaJob>[], client: GraphClient = graphClient()) {
  for (const job of jobs) await downloadInboundMedia(job, client);
}

async function downloadInboundMedia(job: Job<InboundMediaJob>, client: GraphClient) {
  const columns = `id, created_at::text as "createdAt", organization_id, phone_number_id, message_type, payload, media_file_id`;
  const [message] = job.payload.createdAt
    ? await rawQuery<InboundRow>(`select ${columns} from messages where id = $1 and created_at = $2 and direction = 'inbound'`, [
        job.payload.messageId,
        job.payload.createdAt,
      ])
    : await rawQuery<InboundRow>(`select ${columns} from messages where id = $1 and direction = 'inbound'`, [job.payload.messageId]);
  // Gone (the tenant left) or done already (a job run twice after a lost lease).
  if (!message || message.media_file_id) return;
  try {
    await fetchAndStore(message, client);
  } catch (error) {
    if (!(await recordFailure(job, message, error))) throw error;
  }
  // Open threads show the file (or why there is none) at once.
  await logMessageEvents(db(), "status", [message]);
}

/** Records a download that will not succeed on its message; false when it is worth another try. */
async function recordFailure(job: Job<InboundMediaJob>, message: InboundRow, error: unknown) {
  const permanent =
    error instanceof PermanentMediaFailure ||
    error instanceof MediaTooLargeError ||
    (error instanceof GraphApiError && !error.retryable && error.status !== 429);
  if (!permanent && job.attempts < INBOUND_MEDIA_ATTEMPTS) return false;
  // The message stays as Meta sent it; its error says why there is no file.
  const code = error instanceof GraphApiError ? error.code : error instanceof PermanentMediaFailure ? error.code : null;
  await rawQuery(
    `update messages set error_code = $3, error_title = 'media_download_failed', error_details = $4
     where id = $1 and created_at = $2 and media_file_id is null`,
    [
      message.id,
      message.createdAt,
      code,
      `The ${message.message_type} could not be downloaded from WhatsApp: ${describeGraphFailure(error)}`.slice(0, 1000),
    ],
  );
  log().warn({ messageId: message.id, err: error }, "inbound media not downloaded");
  return true;
}

async function fetchAndStore(message: InboundRow, client: GraphClient) {
  const media = message.payload?.[message.message_type] as { id?: unknown; filename?: unknown } | undefined;
  const mediaId = typeof media?.id === "string" || typeof media?.id === "number" ? String(media.id) : "";
  if (!mediaId) throw new PermanentMediaFailure("the webhook named no media id");
  const [account] = await rawQuery<{ access_token_encrypted: string }>(
    `select a.access_token_encrypted from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
     where p.phone_number_id = $1 and p.organization_id = $2 and p.disconnected_at is null and a.status = 'connected'
     limit 1`,
    [message.phone_number_id, message.organization_id],
  );
  if (!account) throw new PermanentMediaFailure("the WhatsApp number is no longer connected");
  const token = decryptSecret(account.access_token_encrypted);

  const found = await client.getMedia(mediaId, token, message.phone_number_id);
  const mimeType = baseMimeType(found.mimeType) || "application/octet-stream";
  // Meta's limit for the type, and never more than its largest (documents, 100 MB).
  const maxBytes = Math.min(MEDIA_TYPES[mimeType]?.maxBytes ?? LARGEST_MEDIA, LARGEST_MEDIA);
  const bytes = await client.downloadMedia(found.url, token, maxBytes);
  const digest = createHash("sha256").update(bytes).digest();
  // GET /{media-id} gives the digest in hex, webhooks in base64: either must match what arrived.
  if (found.sha256 && found.sha256.toLowerCase() !== digest.toString("hex") && found.sha256 !== digest.toString("base64"))
    throw new Error(`the downloaded bytes do not match Meta's sha256 for media ${mediaId}`);

  const stored = await fileStorage().write([bytes], { maxBytes, organisationId: message.organization_id, contentType: mimeType });
  let fileId: string | undefined;
  let linked = false;
  try {
    const fileName = typeof media?.filename === "string" ? cleanMediaFileName(media.filename) : null;
    const [file] = await rawQuery<{ id: string }>(
      `insert into media_files (organization_id, direction, mime_type, size, sha256, file_name, storage_key, meta_media_id, phone_number_id)
       values ($1, 'inbound', $2, $3, $4, $5, $6, $7, $8) returning id`,
      [message.organization_id, mimeType, stored.size, stored.sha256, fileName, stored.key, mediaId, message.phone_number_id],
    );
    fileId = file!.id;
    const updated = await rawQuery(
      `update messages set media_file_id = $3, error_code = null, error_title = null, error_details = null
       where id = $1 and created_at = $2 and media_file_id is null returning id`,
      [message.id, message.createdAt, fileId],
    );
    // None updated: another run linked a file first, and this copy is not needed.
    linked = updated.length > 0;
  } finally {
    if (!linked) {
      if (fileId) await rawQuery(`delete from media_files where id = $1`, [fileId]);
      await fileStorage().delete(stored.key);
    }
  }
}
