import { Readable } from "node:stream";
import { fileStorage, StorageNotFoundError, StorageUnavailableError } from "../storage";
import { m } from "~/paraglide/messages";

/**
 * A tenant's stored file as an HTTP answer: never stored by the browser or a proxy (`private,
 * no-store`: a customer's photo kept in the cache would outlive the sign-out on a shared computer;
 * the ETag, its SHA-256, still answers 304 to a browser that asks with it), one byte range at a time
 * (206, or 416 past the end) so audio and video seek without downloading everything, and never run
 * as a page (nosniff, `Content-Security-Policy: sandbox`, and anything but media as an attachment).
 */
export interface ServedFile {
  mimeType: string;
  size: number;
  /** Lower-case hex. */
  sha256: string;
  fileName: string | null;
  storageKey: string;
}

/** Shown in the browser: media it plays itself. Everything else (documents, SVG, HTML...) is downloaded. */
const INLINE = /^(?:image\/(?:jpeg|png|webp|gif)|audio\/[\w.+-]+|video\/[\w.+-]+)$/i;
const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "audio/mpeg": "mp3",
  "audio/mp4": "m4a",
  "video/3gpp": "3gp",
  "text/plain": "txt",
};

/** The file store cannot be reached: try again shortly (never a 500), said in the request's language. */
export function storageUnavailable(error: StorageUnavailableError) {
  return new Response(m.app_outage_files(), {
    status: 503,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Retry-After": String(error.retryAfterSeconds) },
  });
}

export function fileNotFound(text = "File not found.") {
  return new Response(text, { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

function dispositionOf(file: ServedFile, fallbackName: string) {
  const type = file.mimeType.split(";")[0]!.trim().toLowerCase();
  const extension = EXTENSIONS[type] ?? (type.split("/")[1] ?? "bin").replace(/[^a-z0-9]/g, "").slice(0, 5);
  const name = file.fileName || `${fallbackName}.${extension || "bin"}`;
  const ascii = name.replace(/[^\w.-]+/g, "_");
  // RFC 8187: percent-encode all but attr-chars (encodeURIComponent leaves !'()* alone).
  const encoded = encodeURIComponent(name).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${INLINE.test(type) ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Whether the browser's If-None-Match names this ETag (or any, `*`). */
function matches(header: string | null, etag: string) {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/** One `bytes=` range (first-last, first-, -suffix), inclusive; "unsatisfiable"; or null to send everything. */
export function byteRange(header: string | null, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const match = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (!match[1] && !match[2])) return null; // none, several ranges, or not bytes: the whole file
  if (!match[1]) {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] ? Number(match[2]) : size - 1;
  if (match[2] && end < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(end, size - 1) };
}

export async function storedFileResponse(request: Request, file: ServedFile, fallbackName = "file"): Promise<Response> {
  const etag = `"${file.sha256}"`;
  const headers = new Headers({
    "Cache-Control": "private, no-store",
    ETag: etag,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Accept-Ranges": "bytes",
  });
  if (matches(request.headers.get("If-None-Match"), etag)) return new Response(null, { status: 304, headers });

  headers.set("Content-Type", file.mimeType);
  headers.set("Content-Disposition", dispositionOf(file, fallbackName));
  // Handed out by the bucket itself (STORAGE_DOWNLOADS=redirect): a presigned URL, after the caller's permission check.
  if (request.method === "GET") {
    const contentDisposition = headers.get("Content-Disposition")!;
    const url = await fileStorage().downloadUrl(file.storageKey, { contentType: file.mimeType, contentDisposition });
    if (url)
      return new Response(null, {
        status: 302,
        headers: { Location: url, "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer" },
      });
  }
  // If-Range: a range of these bytes only; another version (or a date, which we do not keep) gets them all.
  const ifRange = request.headers.get("If-Range");
  const range = ifRange && ifRange !== etag ? null : byteRange(request.headers.get("Range"), file.size);
  if (range === "unsatisfiable") {
    headers.set("Content-Range", `bytes */${file.size}`);
    headers.delete("Content-Disposition");
    headers.set("Content-Type", "text/plain; charset=utf-8");
    return new Response(null, { status: 416, headers });
  }
  const length = range ? range.end - range.start + 1 : file.size;
  if (range) headers.set("Content-Range", `bytes ${range.start}-${range.end}/${file.size}`);
  headers.set("Content-Length", String(length));
  // HEAD: the headers only, without opening the file.
  if (request.method === "HEAD") return new Response(null, { status: range ? 206 : 200, headers });
  let stream;
  try {
    stream = await fileStorage().read(file.storageKey, range ?? undefined);
  } catch (error) {
    if (error instanceof StorageNotFoundError) return fileNotFound();
    if (error instanceof StorageUnavailableError) return storageUnavailable(error);
    throw error;
  }
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status: range ? 206 : 200, headers });
}
