import { rawQuery } from "../../infrastructure/db/client";
import { fileStorage, StorageLimitError } from "../../infrastructure/storage";
import { decideMediaType, formatLimit, MEDIA_TYPES, SNIFF_BYTES } from "./media-types";
import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/**
 * The tenant's media files (decision 023): uploads for sending, and what customers sent. The bytes
 * live in the storage module, the facts in `media_files`; every query names the organisation, so
 * another tenant's id finds nothing.
 */

export interface MediaFileView {
  id: string;
  mimeType: string;
  size: number;
  sha256: string;
  fileName: string | null;
  createdAt: string;
}

/** Why a file is refused: a stable code for programs and a sentence for people. */
export const refuseMedia = (
  status: 400 | 404 | 413 | 415,
  code: "invalid_request" | "media_not_found" | "media_too_large" | "unsupported_media_type" | "media_type_mismatch",
  message: string,
) => new Refusal({ domain: "media", status, code, message });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (id: string) => UUID.test(id);

export const mediaNotFound = (id: string) =>
  refuseMedia(404, "media_not_found", m.validation_send_media_not_found({ id: id.slice(0, 80) }));

/** A file name fit to store and show: the last path segment, no control characters, at most 200 characters. */
export function cleanMediaFileName(name: string | undefined): string | null {
  const base = (name ?? "").split(/[\\/]/).pop() ?? "";
  const clean = [...base]
    .filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f && !(c >= "\ud800" && c <= "\udfff"))
    .join("")
    .trim()
    .slice(0, 200);
  return clean || null;
}

const view = (row: Record<string, unknown>): MediaFileView => ({
  id: String(row.id),
  mimeType: String(row.mime_type),
  size: Number(row.size),
  sha256: String(row.sha256),
  fileName: (row.file_name as string | null) ?? null,
  createdAt: new Date(row.created_at as string).toISOString(),
});

/**
 * Stores an upload of the tenant's: the type is decided from the file's first bytes (the declared
 * type must agree), the bytes stream to storage under that type's limit, and only a complete file
 * gets a row. `chunks` is read once; on a refusal it is left partly read.
 */
export async function storeUploadedMedia(
  organizationId: string,
  file: { declaredType: string; fileName: string | undefined; chunks: AsyncIterable<Uint8Array> },
): Promise<MediaFileView> {
  const iterator = file.chunks[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let finished = false;
  while (headBytes < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      finished = true;
      break;
    }
    head.push(next.value);
    headBytes += next.value.byteLength;
  }
  if (headBytes === 0) throw refuseMedia(400, "invalid_request", m.validation_send_media_empty());
  const decision = decideMediaType(file.declaredType, Buffer.concat(head).subarray(0, SNIFF_BYTES));
  if (!decision.ok) throw refuseMedia(415, decision.code, decision.message);

  async function* all() {
    yield* head;
    if (finished) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  let stored;
  try {
    stored = await fileStorage().write(all(), {
      maxBytes: decision.maxBytes,
      organisationId: organizationId,
      contentType: decision.mimeType,
    });
  } catch (error) {
    if (error instanceof StorageLimitError) {
      const what =
        decision.kind === "sticker"
          ? decision.animated
            ? m.validation_send_sticker_animated()
            : m.validation_send_sticker_static()
          : MEDIA_TYPES[decision.mimeType]!.label();
      throw refuseMedia(
        413,
        "media_too_large",
        m.validation_send_media_too_large({ limit: formatLimit(decision.maxBytes), what, mime: decision.mimeType }),
      );
    }
    throw error;
  }
  try {
    const [row] = await rawQuery(
      `insert into media_files (organization_id, direction, mime_type, size, sha256, file_name, storage_key)
       values ($1, 'outbound', $2, $3, $4, $5, $6) returning *`,
      [organizationId, decision.mimeType, stored.size, stored.sha256, cleanMediaFileName(file.fileName), stored.key],
    );
    return view(row!);
  } catch (error) {
    await fileStorage().delete(stored.key);
    throw error;
  }
}

/** Removes a file stored by storeUploadedMedia before the request around it was refused. */
export async function discardUploadedMedia(organizationId: string, id: string) {
  await deleteMediaFile(organizationId, id).catch(() => undefined);
}

/** One of the tenant's files; media_not_found for anything else. */
export async function getMediaFile(organizationId: string, id: string): Promise<MediaFileView> {
  if (!isUuid(id)) throw mediaNotFound(id);
  const [row] = await rawQuery(`select * from media_files where organization_id = $1 and id = $2`, [organizationId, id]);
  if (!row) throw mediaNotFound(id);
  return view(row);
}

/**
 * Deletes one of the tenant's files: the row (its messages keep their text; an inbound message's
 * link is cleared, Meta's ids for it are forgotten) and then the bytes. A queued message that still
 * names it fails at dispatch with media_not_found.
 */
export async function deleteMediaFile(organizationId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw mediaNotFound(id);
  const [row] = await rawQuery<{ storage_key: string }>(
    `delete from media_files where organization_id = $1 and id = $2 returning storage_key`,
    [organizationId, id],
  );
  if (!row) throw mediaNotFound(id);
  await fileStorage().delete(row.storage_key);
}
