import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../../log";
import type { GraphCaller } from "./graph-call";
import { describeGraphFailure, GraphApiError, GraphNetworkError, retryDelay } from "./graph-errors";

/** Files for templates' media headers, by Meta's Resumable Upload API (the app's, not a number's). */

/** An upload session's id as Meta answers it: `upload:<key>`, with `?sig=<signature>` at times. */
const UPLOAD_ID = /^upload:[A-Za-z0-9_\-=:.%]+(\?sig=[A-Za-z0-9_\-=%]+)?$/;

export function uploadCalls(graph: GraphCaller) {
  return {
    /**
     * Meta's Resumable Upload API: a session for the file (`POST /{app-id}/uploads`), then its
     * bytes (`POST /{upload-id}` with `file_offset`), answering the handle ("4::...") a media
     * header's `example.header_handle` carries. A send whose answer was lost (or that Meta
     * refused as transient) resumes from the offset `GET /{upload-id}` reports, never from 0.
     */
    async uploadFile(token: string, file: { fileName: string; contentType: string; bytes: Uint8Array }): Promise<string> {
      const session = await graph.call<{ id?: unknown }>({
        step: "upload.create",
        method: "POST",
        path: `${encodeURIComponent(graph.options.appId)}/uploads`,
        query: { file_name: file.fileName, file_length: String(file.bytes.byteLength), file_type: file.contentType },
        token,
        // A repeated session is only an unused one.
        idempotent: true,
      });
      const id = typeof session.id === "string" ? session.id : "";
      if (!UPLOAD_ID.test(id)) throw new GraphNetworkError("upload.create", "Graph upload.create answered without an upload session id");
      let offset = 0;
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await graph.callOnce<{ h?: unknown }>({
            step: "upload.send",
            method: "POST",
            path: id,
            token,
            authScheme: "OAuth",
            raw: { bytes: file.bytes.subarray(offset), offset },
            idempotent: false,
          });
          if (typeof answer.h !== "string" || !answer.h)
            throw new GraphNetworkError("upload.send", "Graph upload.send answered without a handle (h)");
          return answer.h;
        } catch (error) {
          const resumable =
            attempt < graph.attempts &&
            ((error instanceof GraphApiError && error.retryable) ||
              (error instanceof GraphNetworkError && !/without a handle/.test(error.message)));
          if (!resumable) throw error;
          const wait = retryDelay(error, attempt, graph.backoffMs);
          log().warn({ step: "upload.send", attempt, wait, error: describeGraphFailure(error) }, "upload cut short; resuming");
          await sleep(wait);
          const status = await graph.call<{ file_offset?: unknown }>({
            step: "upload.status",
            method: "GET",
            path: id,
            token,
            authScheme: "OAuth",
            idempotent: true,
          });
          const at = Number(status.file_offset);
          if (!Number.isInteger(at) || at < 0 || at > file.bytes.byteLength)
            throw new GraphNetworkError(
              "upload.status",
              `Graph upload.status answered an offset outside the file: ${String(status.file_offset)}`,
            );
          offset = at;
        }
      }
    },
  };
}
