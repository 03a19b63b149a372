import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createBucket, deleteBucket, getBucketLocation, headBucket, listBuckets, listObjectsV2 } from "./buckets";
import { drain, type S3Call } from "./call";
import { S3Error, errorXml, errors } from "./errors";
import { abortMultipartUpload, completeMultipartUpload, createMultipartUpload, uploadPart } from "./multipart";
import { deleteObject, deleteObjects, getObject, putObject } from "./objects";
import { queryPairs, verifyRequest, type Credentials } from "./sigv4";
import { DiskStore } from "./store";

export type { Credentials } from "./sigv4";
export { MIN_PART_SIZE } from "./multipart";

/**
 * An S3 endpoint, path-style (`/<bucket>/<key>`), that checks what S3 checks: Signature V4 in the
 * header or a presigned query, the body's SHA-256, aws-chunked bodies with a trailing checksum,
 * CRC32/CRC32C/SHA-1/SHA-256 checksums and Content-MD5. Objects live on disk under `dir`. It can
 * be mounted under a path prefix (an Express app's `app.use("/sandbox/s3", sandbox.handler)`): the
 * client then signs the prefix as part of the path, and the sandbox verifies the path as received.
 */
export interface S3SandboxOptions {
  /** Where buckets and objects are kept. */
  dir: string;
  /** The key pairs it accepts (all in one account: each sees every bucket). */
  credentials: Credentials[];
  /** The region a signature's scope must name. Default "us-east-1". */
  region?: string;
  /** Buckets made at start if missing. */
  buckets?: string[];
  now?: () => number;
}

/** The store's failures on purpose, for the fault tests: `SlowDown` answers (503) for the next calls, or for all until cleared. */
export class S3Faults {
  private slowDownLeft = 0;

  slowDown(times = Infinity) {
    this.slowDownLeft = times;
  }

  clear() {
    this.slowDownLeft = 0;
  }

  /** Whether this call answers SlowDown (and counts it). */
  takeSlowDown() {
    if (this.slowDownLeft <= 0) return false;
    this.slowDownLeft--;
    return true;
  }
}

/** A call the sandbox answered, for tests and the console: what was asked, how the body came, the answer. */
export interface S3CallRecord {
  method: string;
  path: string;
  query: string;
  /** x-amz-content-sha256 as sent (a hex hash, UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER), "" if none. */
  payload: string;
  presigned: boolean;
  status: number;
  /** S3's error code when it refused. */
  code?: string;
}

export interface S3Sandbox {
  /** Every call, oldest first (the last 1000). */
  calls: S3CallRecord[];
  /** A Node request handler; Express mounts it as middleware. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  store: DiskStore;
  faults: S3Faults;
  region: string;
}

type Operation = (call: S3Call) => Promise<void>;

const UNSUPPORTED_SUBRESOURCES = [
  "acl",
  "analytics",
  "accelerate",
  "attributes",
  "cors",
  "encryption",
  "intelligent-tiering",
  "inventory",
  "legal-hold",
  "lifecycle",
  "logging",
  "metrics",
  "notification",
  "object-lock",
  "ownershipControls",
  "policy",
  "policyStatus",
  "publicAccessBlock",
  "replication",
  "requestPayment",
  "restore",
  "retention",
  "select",
  "tagging",
  "torrent",
  "versioning",
  "versions",
  "website",
  "uploads",
  "session",
];

function unsupported(call: S3Call, what: string): never {
  throw errors.notImplemented(`${what} is not implemented by this sandbox.`);
}

/** The operation a request names, by method, bucket, key and query, as S3 routes path-style requests. */
function route(call: S3Call): Operation {
  const { method, bucket, key, query } = call;
  if (bucket === "") return method === "GET" ? listBuckets : () => unsupported(call, `${method} /`);
  if (key === "") {
    if (method === "POST" && query.has("delete")) return deleteObjects;
    if (method === "GET" && query.has("location")) return getBucketLocation;
    const sub = UNSUPPORTED_SUBRESOURCES.find((name) => query.has(name));
    if (sub) return () => unsupported(call, `The bucket's ?${sub}`);
    if (method === "PUT") return createBucket;
    if (method === "HEAD") return headBucket;
    if (method === "DELETE") return deleteBucket;
    if (method === "GET" && query.get("list-type") === "2") return listObjectsV2;
    if (method === "GET") return () => unsupported(call, "ListObjects (version 1)");
    return () => unsupported(call, `${method} on a bucket`);
  }
  if (method === "POST" && query.has("uploads")) return createMultipartUpload;
  if (method === "POST" && query.has("uploadId")) return completeMultipartUpload;
  if (method === "PUT" && query.has("uploadId")) return uploadPart;
  if (method === "DELETE" && query.has("uploadId")) return abortMultipartUpload;
  if (method === "GET" && query.has("uploadId")) return () => unsupported(call, "ListParts");
  const sub = UNSUPPORTED_SUBRESOURCES.find((name) => query.has(name));
  if (sub) return () => unsupported(call, `The object's ?${sub}`);
  if (method === "PUT") return putObject;
  if (method === "GET" || method === "HEAD") return getObject;
  if (method === "DELETE") return deleteObject;
  return () => unsupported(call, `${method} on an object`);
}

function decodePath(rawPath: string) {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    throw errors.invalidArgument("The request path is not validly encoded.");
  }
}

function headersOf(req: IncomingMessage, pairs: [string, string][], presigned: boolean) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(",") : value;
  if (presigned)
    for (const [name, value] of pairs)
      if (name === name.toLowerCase() && name.startsWith("x-amz-") && name !== "x-amz-security-token") headers[name] ??= value;
  return headers;
}

function sendError(call: Pick<S3Call, "res" | "method" | "requestId">, error: S3Error, resource: string) {
  if (call.res.headersSent) {
    call.res.destroy();
    return;
  }
  if (error.status === 304) {
    call.res.writeHead(304).end();
    return;
  }
  const body = errorXml(error, resource, call.requestId);
  call.res.writeHead(error.status, { "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(body) });
  call.res.end(call.method === "HEAD" ? undefined : body);
}

export function createS3Sandbox(options: S3SandboxOptions): S3Sandbox {
  const region = options.region ?? "us-east-1";
  const credentials = new Map(options.credentials.map((c) => [c.accessKeyId, c.secretAccessKey]));
  const store = new DiskStore(options.dir);
  for (const bucket of options.buckets ?? []) if (!store.hasBucket(bucket)) store.createBucketSync(bucket);
  const faults = new S3Faults();
  const now = options.now ?? Date.now;
  const calls: S3CallRecord[] = [];
  const record = (entry: S3CallRecord) => {
    calls.push(entry);
    if (calls.length > 1000) calls.shift();
  };

  async function handle(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) {
    const requestId = randomBytes(8).toString("hex").toUpperCase();
    res.setHeader("x-amz-request-id", requestId);
    res.setHeader("x-amz-id-2", randomBytes(24).toString("base64"));
    res.setHeader("Server", "JumbeS3Sandbox");
    // The sandbox's clock, which the SDK reads to correct its own after RequestTimeTooSkewed.
    res.setHeader("Date", new Date(now()).toUTCString());
    const method = req.method ?? "GET";
    const full = req.originalUrl ?? req.url ?? "/";
    const local = req.url ?? "/";
    const rawPath = full.split("?")[0]!;
    const rawQuery = full.includes("?") ? full.slice(full.indexOf("?") + 1) : "";
    let resource = rawPath;
    let presigned = false;
    let code: string | undefined;
    try {
      resource = decodePath(local.split("?")[0]!);
      if (faults.takeSlowDown()) throw new S3Error(503, "SlowDown", "Please reduce your request rate.");
      const verified = verifyRequest({ method, rawPath, rawQuery, headers: req.headers }, { credentials, region, now: now() });
      presigned = verified.presigned;
      const pairs = queryPairs(rawQuery);
      const [, bucket = "", ...keyParts] = resource.split("/");
      const call: S3Call = {
        req,
        res,
        store,
        region,
        requestId,
        method,
        bucket,
        key: keyParts.join("/"),
        query: new Map(pairs),
        headers: headersOf(req, pairs, verified.presigned),
        verified,
        resource,
        url: `http://${req.headers.host ?? "localhost"}${rawPath}`,
      };
      await route(call)(call);
    } catch (caught) {
      const error =
        caught instanceof S3Error ? caught : new S3Error(500, "InternalError", "We encountered an internal error. Please try again.");
      if (!(caught instanceof S3Error)) console.error("[sandbox s3]", caught);
      code = error.code;
      await drain(req);
      sendError({ res, method, requestId }, error, resource);
    }
    const payload = req.headers["x-amz-content-sha256"];
    record({
      method,
      path: resource,
      query: rawQuery,
      payload: typeof payload === "string" ? payload : "",
      presigned,
      status: res.statusCode,
      code,
    });
  }

  return { handler: (req, res) => void handle(req, res), calls, store, faults, region };
}
