import type { GraphCaller } from "./graph-call";
import { fetchAnswer, GraphApiError, graphErrorOf, GraphNetworkError, MediaTooLargeError } from "./graph-errors";

/** Media: a file uploaded for sending, a customer's file looked up, downloaded (two hops) and deleted. */

export interface GraphMedia {
  url: string;
  mimeType: string;
  sha256?: string;
  fileSize?: number;
}

export function mediaCalls(graph: GraphCaller) {
  return {
    /**
     * POST /{phone-number-id}/media (multipart): the media id a message sends by `id`. `type` is
     * Meta's `type` field, the file's MIME type; it defaults to contentType.
     */
    async uploadMedia(
      phoneNumberId: string,
      token: string,
      // A Blob read from storage as it is sent (fs.openAsBlob) keeps a 100 MB document out of memory.
      file: { bytes: Uint8Array | Blob; contentType: string; fileName: string; type?: string },
    ): Promise<string> {
      const form = new FormData();
      form.set("messaging_product", "whatsapp");
      form.set("type", file.type ?? file.contentType);
      const blob = file.bytes instanceof Blob ? file.bytes : new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.contentType });
      form.set("file", blob, file.fileName);
      const answer = await graph.call<{ id?: unknown }>({
        step: "media.upload",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/media`,
        form,
        token,
        // A lost answer may have stored the file: a repeat only makes an unused second id.
        idempotent: false,
      });
      if (typeof answer.id !== "string" && typeof answer.id !== "number")
        throw new GraphNetworkError("media.upload", "Graph media.upload answered without a media id");
      return String(answer.id);
    },

    /** GET /{media-id}: where the file can be downloaded (a short-lived URL that needs the token). */
    async getMedia(mediaId: string, token: string, phoneNumberId?: string): Promise<GraphMedia> {
      const answer = await graph.call<{ url?: unknown; mime_type?: unknown; sha256?: unknown; file_size?: unknown }>({
        step: "media.get",
        method: "GET",
        path: encodeURIComponent(mediaId),
        query: phoneNumberId ? { phone_number_id: phoneNumberId } : undefined,
        token,
        idempotent: true,
      });
      if (typeof answer.url !== "string" || !/^https?:\/\//.test(answer.url))
        throw new GraphNetworkError("media.get", "Graph media.get answered without a download url");
      return {
        url: answer.url,
        mimeType: typeof answer.mime_type === "string" ? answer.mime_type : "application/octet-stream",
        sha256: typeof answer.sha256 === "string" ? answer.sha256 : undefined,
        fileSize: typeof answer.file_size === "number" ? answer.file_size : Number(answer.file_size) || undefined,
      };
    },

    /**
     * The bytes at a media URL (the second hop), with the token as Bearer. Refuses more than
     * `maxBytes` (by Content-Length, and while reading), and any redirect.
     */
    async downloadMedia(url: string, token: string, maxBytes: number): Promise<Uint8Array> {
      return graph.withRetries("media.download", true, () => downloadOnce(graph, url, token, maxBytes));
    },

    /** DELETE /{media-id}. Media Meta no longer has counts as deleted (400, 100/33). */
    async deleteMedia(mediaId: string, token: string, phoneNumberId?: string) {
      try {
        await graph.call<{ success?: boolean }>({
          step: "media.delete",
          method: "DELETE",
          path: encodeURIComponent(mediaId),
          query: phoneNumberId ? { phone_number_id: phoneNumberId } : undefined,
          token,
          idempotent: true,
        });
      } catch (error) {
        if (error instanceof GraphApiError && error.code === 100 && error.subcode === 33) return;
        throw error;
      }
    },
  };
}

/** One try of the second hop: the bytes, refused past `maxBytes` or on any redirect. */
async function downloadOnce(graph: GraphCaller, url: string, token: string, maxBytes: number): Promise<Uint8Array> {
  const step = "media.download";
  if (!/^https?:\/\//.test(url)) throw new GraphNetworkError(step, "The media url is not an http(s) URL");
  let response: Response;
  try {
    response = await graph.doFetch(url, {
      headers: { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(graph.options.timeoutMs),
      redirect: "error",
    });
  } catch (cause) {
    throw graph.unreachable(step, cause);
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    let parsed: unknown = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not Graph's envelope */
    }
    throw graphErrorOf(step, fetchAnswer(response), parsed)!;
  }
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new MediaTooLargeError(declared, maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : undefined;
    if (!next || next.done) break;
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader!.cancel().catch(() => undefined);
      throw new MediaTooLargeError(total, maxBytes);
    }
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
