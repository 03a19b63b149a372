import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * For webhook receivers that sit on Node's own server ahead of Express (WhatsApp's, Shopify's): the
 * raw body, bounded, and a small JSON answer. The raw bytes are what a signature is computed over.
 */

/** The body's bytes; rejects once more than `maxBytes` arrive (the rest is not read). */
export function readBoundedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        reject(new Error("too large"));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** `{message}` with its status; a 413 closes the connection (the unread rest of the body goes with it). */
export function replyJson(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ message });
  res
    .writeHead(status, {
      ...headers,
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
      Connection: status === 413 ? "close" : "keep-alive",
    })
    .end(body);
}
