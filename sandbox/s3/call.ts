import type { IncomingMessage, ServerResponse } from "node:http";
import type { DiskStore } from "./store";
import type { VerifiedRequest } from "./sigv4";

/** One request to the sandbox, parsed and authenticated, as the operations see it. */
export interface S3Call {
  req: IncomingMessage;
  res: ServerResponse;
  store: DiskStore;
  region: string;
  requestId: string;
  method: string;
  /** Decoded; "" for the service (ListBuckets). */
  bucket: string;
  /** Decoded; "" for a bucket operation. */
  key: string;
  /** The query's parameters, decoded (the last of a repeated name). */
  query: Map<string, string>;
  /**
   * The request's headers, lower-case, plus a presigned URL's `x-amz-*` query parameters other than
   * its authentication (the presigner hoists signed headers such as `x-amz-checksum-crc32` into the
   * query, and S3 reads them there as headers).
   */
  headers: Record<string, string>;
  verified: VerifiedRequest;
  /** The decoded path, for an error's `<Resource>`. */
  resource: string;
  /** The URL of this path as the client reached it (mount prefix included), for `Location`. */
  url: string;
}

export function sendXml(call: S3Call, status: number, xml: string, headers: Record<string, string> = {}) {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
  call.res.writeHead(status, { ...headers, "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(body) });
  call.res.end(call.method === "HEAD" ? undefined : body);
}

export function sendEmpty(call: S3Call, status: number, headers: Record<string, string | number> = {}) {
  call.res.writeHead(status, { ...headers, "Content-Length": 0 });
  call.res.end();
}

/** Reads and discards what is left of the request's body, so an early answer leaves the connection usable. */
export function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.on("end", resolve);
    req.on("close", resolve);
    req.on("error", () => resolve());
    req.resume();
  });
}
