import { createHash, createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startS3Sandbox, TEST_BUCKET } from "@jumbe/sandbox/s3/test-support";

// The S3 sandbox driven by the official AWS SDK for JavaScript v3 (`@aws-sdk/client-s3`,
// `lib-storage`, `s3-request-presigner`), pointed at it by `endpoint` and `forcePathStyle`, with its
// default checksum settings (CRC32 on uploads, validation on downloads) and with WHEN_REQUIRED, as
// S3-compatible stores are usually driven. Decision 160.

const md5 = (data: Buffer) => createHash("md5").update(data).digest("hex");
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

let s3: Awaited<ReturnType<typeof startS3Sandbox>>;
let clock = 0;

function client(extra: Partial<S3ClientConfig> = {}) {
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: s3.credentials,
    ...extra,
  });
}

const WHEN_REQUIRED = { requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" } as const;

beforeAll(async () => {
  s3 = await startS3Sandbox({ now: () => Date.now() + clock });
});
afterAll(async () => {
  await s3?.close();
});

/** The error the SDK throws, with S3's code as its name. */
async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as S3ServiceException;
  }
  throw new Error("expected the call to be refused");
}

const settings = [
  ["default checksums", {}],
  ["WHEN_REQUIRED", WHEN_REQUIRED],
] as const;

describe.each(settings)("with %s", (label, config) => {
  const prefix = label === "WHEN_REQUIRED" ? "required/" : "default/";
  const bucket = TEST_BUCKET;

  test("puts a Buffer, gets it whole and by range, heads it and deletes it", async () => {
    const c = client(config);
    const body = randomBytes(100_000);
    const key = `${prefix}photo one.jpg`;
    const put = await c.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: "image/jpeg", Metadata: { tenant: "t1" } }),
    );
    expect(put.ETag).toBe(`"${md5(body)}"`);

    const got = await c.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(body);
    expect(got.ContentType).toBe("image/jpeg");
    expect(got.Metadata).toEqual({ tenant: "t1" });

    const part = await c.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: "bytes=10-19" }));
    expect(part.$metadata.httpStatusCode).toBe(206);
    expect(part.ContentRange).toBe("bytes 10-19/100000");
    expect(Buffer.from(await part.Body!.transformToByteArray())).toEqual(body.subarray(10, 20));

    const head = await c.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(100_000);
    expect(head.ETag).toBe(`"${md5(body)}"`);

    await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    const gone = await refusal(c.send(new GetObjectCommand({ Bucket: bucket, Key: key })));
    expect(gone.name).toBe("NoSuchKey");
    expect(gone.$metadata.httpStatusCode).toBe(404);
    const headGone = await refusal(c.send(new HeadObjectCommand({ Bucket: bucket, Key: key })));
    expect(headGone.name).toBe("NotFound");
  });

  test("puts a sized stream (aws-chunked with a trailing CRC32 by default) and reads back the same bytes", async () => {
    const c = client(config);
    const body = randomBytes(300_000);
    const key = `${prefix}stream.bin`;
    const before = s3.sandbox.calls.length;
    await c.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: Readable.from([body.subarray(0, 150_000), body.subarray(150_000)]),
        ContentLength: body.length,
      }),
    );
    const put = s3.sandbox.calls.slice(before).find((call) => call.method === "PUT")!;
    expect(put.payload).toBe(label === "WHEN_REQUIRED" ? "UNSIGNED-PAYLOAD" : "STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    const got = await c.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(sha256(Buffer.from(await got.Body!.transformToByteArray()))).toBe(sha256(body));
  });

  test("uploads a 12 MiB stream in parts through lib-storage's Upload", async () => {
    const c = client(config);
    const body = randomBytes(12 * 1024 * 1024);
    const key = `${prefix}big.bin`;
    const chunks = Array.from({ length: 12 }, (_, i) => body.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024));
    const upload = new Upload({
      client: c,
      params: { Bucket: bucket, Key: key, Body: Readable.from(chunks), ContentType: "application/octet-stream" },
    });
    const done = await upload.done();
    expect(done.ETag).toMatch(/-3"$/);
    const head = await c.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(body.length);
    const got = await c.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(sha256(Buffer.from(await got.Body!.transformToByteArray()))).toBe(sha256(body));
  });

  test("lists with a prefix page by page, and deletes several keys at once", async () => {
    const c = client(config);
    const keys = ["a.txt", "b.txt", "c.txt", "d/e.txt"].map((k) => `${prefix}list/${k}`);
    for (const key of keys) await c.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
    const first = await c.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}list/`, MaxKeys: 3 }));
    expect(first.Contents!.map((o) => o.Key)).toEqual(keys.slice(0, 3));
    expect(first.IsTruncated).toBe(true);
    const second = await c.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}list/`, MaxKeys: 3, ContinuationToken: first.NextContinuationToken }),
    );
    expect(second.Contents!.map((o) => o.Key)).toEqual(keys.slice(3));
    expect(second.IsTruncated).toBe(false);
    const grouped = await c.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}list/`, Delimiter: "/" }));
    expect(grouped.CommonPrefixes).toEqual([{ Prefix: `${prefix}list/d/` }]);

    const deleted = await c.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }));
    expect(deleted.Deleted!.map((d) => d.Key).sort()).toEqual([...keys].sort());
    const after = await c.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}list/` }));
    expect(after.KeyCount).toBe(0);
  });

  test("keys with spaces, plus signs, non-ASCII letters and slashes sign, list and presign", async () => {
    const c = client(config);
    const key = `${prefix}odd/Ñairobi +254 (1)/ripoti ya mwezi.pdf`;
    await c.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: "odd" }));
    const listed = await c.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}odd/` }));
    expect(listed.Contents!.map((o) => o.Key)).toEqual([key]);
    const url = await getSignedUrl(c, new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(await (await fetch(url)).text()).toBe("odd");
    await c.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  });

  test("a presigned GET and PUT work through fetch, except a default PUT URL's baked empty CRC32", async () => {
    const c = client(config);
    const key = `${prefix}presigned.txt`;
    const putUrl = await getSignedUrl(c, new PutObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 300 });
    const put = await fetch(putUrl, { method: "PUT", body: "hello from a presigned URL" });
    if (label === "WHEN_REQUIRED") {
      expect(put.status).toBe(200);
    } else {
      expect(putUrl).toContain("x-amz-checksum-crc32=AAAAAA%3D%3D");
      expect(put.status).toBe(400);
      expect(await put.text()).toContain("<Code>BadDigest</Code>");
      await c.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: "hello from a presigned URL" }));
    }
    const getUrl = await getSignedUrl(
      c,
      new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: 'attachment; filename="a.txt"' }),
    );
    const got = await fetch(getUrl);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-disposition")).toBe('attachment; filename="a.txt"');
    expect(await got.text()).toBe("hello from a presigned URL");
  });
});

describe("what S3 refuses, the sandbox refuses", () => {
  test("a wrong secret is SignatureDoesNotMatch, an unknown key InvalidAccessKeyId", async () => {
    const wrong = client({ credentials: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: "not-the-secret" } });
    const error = await refusal(wrong.send(new HeadBucketCommand({ Bucket: TEST_BUCKET })));
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.$metadata.httpStatusCode).toBe(403);
    const put = await refusal(wrong.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "x", Body: "x" })));
    expect(put).toBeInstanceOf(S3ServiceException);
    expect(put.name).toBe("SignatureDoesNotMatch");
    const unknown = client({ credentials: { accessKeyId: "AKIAUNKNOWN000000000", secretAccessKey: "x" } });
    expect((await refusal(unknown.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "x", Body: "x" })))).name).toBe(
      "InvalidAccessKeyId",
    );
  });

  test("a signature scoped to another region is AuthorizationHeaderMalformed, naming the bucket's region", async () => {
    const elsewhere = client({ region: "eu-west-1" });
    const error = await refusal(elsewhere.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "x", Body: "x" })));
    expect(error.name).toBe("AuthorizationHeaderMalformed");
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect((error as unknown as { Region?: string }).Region).toBe("us-east-1");
  });

  test("a tampered presigned URL and an expired one are 403", async () => {
    const c = client(WHEN_REQUIRED);
    await c.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "secret/a.txt", Body: "a" }));
    await c.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "secret/b.txt", Body: "b" }));
    const url = await getSignedUrl(c, new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "secret/a.txt" }), { expiresIn: 60 });
    const tampered = await fetch(url.replace("secret/a.txt", "secret/b.txt"));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
    expect((await fetch(url)).status).toBe(200);
    clock = 61_000;
    try {
      const expired = await fetch(url);
      expect(expired.status).toBe(403);
      const text = await expired.text();
      expect(text).toContain("<Code>AccessDenied</Code>");
      expect(text).toContain("<Message>Request has expired</Message>");
    } finally {
      clock = 0;
    }
  });

  test("ListObjectsV2 pages through common prefixes one at a time", async () => {
    const c = client();
    for (const key of ["pages/a/1", "pages/a/2", "pages/b", "pages/c/1"])
      await c.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: key }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await c.send(
        new ListObjectsV2Command({ Bucket: TEST_BUCKET, Prefix: "pages/", Delimiter: "/", MaxKeys: 1, ContinuationToken: token }),
      );
      seen.push(...(page.CommonPrefixes ?? []).map((p) => p.Prefix!), ...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    } while (token);
    expect(seen).toEqual(["pages/a/", "pages/b", "pages/c/"]);
    const bad = await refusal(c.send(new ListObjectsV2Command({ Bucket: TEST_BUCKET, ContinuationToken: "not a token" })));
    expect(bad.name).toBe("InvalidArgument");
  });

  test("a range past the end is 416 InvalidRange", async () => {
    const c = client();
    await c.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "short.txt", Body: "short" }));
    const error = await refusal(c.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "short.txt", Range: "bytes=5-9" })));
    expect(error.name).toBe("InvalidRange");
    expect(error.$metadata.httpStatusCode).toBe(416);
  });

  test("multipart: parts under 5 MiB but the last, out of order, unknown, and an aborted upload", async () => {
    const c = client();
    const key = "multipart/checks.bin";
    const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket: TEST_BUCKET, Key: key }));
    const one = await c.send(new UploadPartCommand({ Bucket: TEST_BUCKET, Key: key, UploadId, PartNumber: 1, Body: randomBytes(1000) }));
    const two = await c.send(new UploadPartCommand({ Bucket: TEST_BUCKET, Key: key, UploadId, PartNumber: 2, Body: randomBytes(1000) }));
    const complete = (Parts: { PartNumber: number; ETag: string }[]) =>
      refusal(c.send(new CompleteMultipartUploadCommand({ Bucket: TEST_BUCKET, Key: key, UploadId, MultipartUpload: { Parts } })));
    expect(
      (
        await complete([
          { PartNumber: 1, ETag: one.ETag! },
          { PartNumber: 2, ETag: two.ETag! },
        ])
      ).name,
    ).toBe("EntityTooSmall");
    expect(
      (
        await complete([
          { PartNumber: 2, ETag: two.ETag! },
          { PartNumber: 1, ETag: one.ETag! },
        ])
      ).name,
    ).toBe("InvalidPartOrder");
    expect((await complete([{ PartNumber: 1, ETag: two.ETag! }])).name).toBe("InvalidPart");
    await c.send(new AbortMultipartUploadCommand({ Bucket: TEST_BUCKET, Key: key, UploadId }));
    expect((await complete([{ PartNumber: 1, ETag: one.ETag! }])).name).toBe("NoSuchUpload");
    expect((await refusal(c.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: key })))).name).toBe("NoSuchKey");
    expect((await refusal(c.send(new GetObjectCommand({ Bucket: "no-such-bucket", Key: key })))).name).toBe("NoSuchBucket");
  });

  test("the SDK's response validation catches an object changed on disk; WHEN_REQUIRED does not look", async () => {
    const c = client();
    const body = Buffer.from("the bytes as stored");
    await c.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "corrupt.txt", Body: body }));
    const meta = s3.sandbox.store.getObject(TEST_BUCKET, "corrupt.txt")!;
    const file = s3.sandbox.store.objectPath(TEST_BUCKET, meta);
    writeFileSync(file, Buffer.from("the bytes as Stored"));
    expect(readFileSync(file).length).toBe(body.length);
    const got = await c.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "corrupt.txt" }));
    await expect(got.Body!.transformToString()).rejects.toThrow(/Checksum mismatch/);
    const lax = await client(WHEN_REQUIRED).send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "corrupt.txt" }));
    expect(await lax.Body!.transformToString()).toBe("the bytes as Stored");
  });
});

describe("mounted under a path prefix", () => {
  test("the SDK signs the prefix as part of the path and the sandbox checks it", async () => {
    const mounted = await startS3Sandbox({ mount: "/sandbox/s3" });
    try {
      expect(mounted.endpoint).toMatch(/\/sandbox\/s3$/);
      const c = new S3Client({
        endpoint: mounted.endpoint,
        region: mounted.region,
        forcePathStyle: true,
        credentials: mounted.credentials,
      });
      await c.send(new CreateBucketCommand({ Bucket: "mounted" }));
      await c.send(new PutObjectCommand({ Bucket: "mounted", Key: "a/b.txt", Body: "under a prefix" }));
      const got = await c.send(new GetObjectCommand({ Bucket: "mounted", Key: "a/b.txt" }));
      expect(await got.Body!.transformToString()).toBe("under a prefix");
      const url = await getSignedUrl(c, new GetObjectCommand({ Bucket: "mounted", Key: "a/b.txt" }));
      expect(url).toContain("/sandbox/s3/mounted/a/b.txt?");
      expect(await (await fetch(url)).text()).toBe("under a prefix");
    } finally {
      await mounted.close();
    }
  });
});

const bytes = (data: string | ArrayBuffer | ArrayBufferView) =>
  typeof data === "string"
    ? Buffer.from(data)
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** SHA-256 for the SDK's own signer, from node:crypto (HMAC when given a secret). */
class NodeSha256 {
  private hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.hash.update(bytes(data));
  }
  digest() {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset() {}
}

interface RawOptions {
  headers?: Record<string, string>;
  /** What is signed: its SHA-256 goes in x-amz-content-sha256 unless `payload` says otherwise. */
  body?: string | Buffer;
  /** What is sent, when not what was signed. */
  sent?: string | Buffer;
  payload?: string;
  signingDate?: Date;
  /** Headers added after signing. */
  after?: Record<string, string>;
}

/** A request signed by the SDK's own SigV4 signer (`@smithy/signature-v4`), then sent with fetch, so the test can change it after signing. */
async function rawSigned(method: string, path: string, options: RawOptions = {}) {
  const signer = new SignatureV4({
    service: "s3",
    region: s3.region,
    credentials: s3.credentials,
    sha256: NodeSha256,
    uriEscapePath: false,
  });
  const url = new URL(`${s3.endpoint}${path}`);
  const body = options.body ?? "";
  const request = {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { host: url.host, "x-amz-content-sha256": options.payload ?? sha256(Buffer.from(body)), ...options.headers } as Record<
      string,
      string
    >,
  };
  const signed = await signer.sign(request, { signingDate: options.signingDate });
  const { host: _host, ...headers } = signed.headers;
  const sent = options.sent ?? body;
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...options.after },
    body: method === "GET" || method === "HEAD" ? undefined : new Uint8Array(Buffer.from(sent)),
  });
  return { status: response.status, text: await response.text() };
}

const crc32Of = (data: Buffer) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString("base64");
};

describe("requests the SDK would not send, made by hand and signed by its signer", () => {
  test("a body changed after signing is XAmzContentSHA256Mismatch, and nothing is stored", async () => {
    const answer = await rawSigned("PUT", `/${TEST_BUCKET}/raw/altered.txt`, { body: "the signed body", sent: "the forged body" });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain("<Code>XAmzContentSHA256Mismatch</Code>");
    expect(s3.sandbox.store.getObject(TEST_BUCKET, "raw/altered.txt")).toBeUndefined();
    expect((await rawSigned("PUT", `/${TEST_BUCKET}/raw/altered.txt`, { body: "the signed body" })).status).toBe(200);
  });

  test("a clock 20 minutes off is RequestTimeTooSkewed, which the SDK corrects and retries", async () => {
    const skewed = await rawSigned("GET", `/${TEST_BUCKET}?list-type=2`, { signingDate: new Date(Date.now() - 20 * 60_000) });
    expect(skewed.status).toBe(403);
    expect(skewed.text).toContain("<Code>RequestTimeTooSkewed</Code>");
    clock = 20 * 60_000;
    try {
      const before = s3.sandbox.calls.length;
      await client().send(new HeadBucketCommand({ Bucket: TEST_BUCKET }));
      expect(s3.sandbox.calls.slice(before).map((call) => call.code ?? call.status)).toEqual(["RequestTimeTooSkewed", 200]);
    } finally {
      clock = 0;
    }
  });

  test("a header added after signing, or no signature at all, is AccessDenied", async () => {
    const added = await rawSigned("PUT", `/${TEST_BUCKET}/raw/meta.txt`, { body: "x", after: { "x-amz-meta-added": "later" } });
    expect(added.status).toBe(403);
    expect(added.text).toContain("<Code>AccessDenied</Code>");
    const anonymous = await fetch(`${s3.endpoint}/${TEST_BUCKET}/raw/meta.txt`);
    expect(anonymous.status).toBe(403);
  });

  test("a CRC32 header that does not match the body is BadDigest; Content-MD5 too", async () => {
    const body = Buffer.from("checksummed");
    const wrong = await rawSigned("PUT", `/${TEST_BUCKET}/raw/crc.txt`, {
      body,
      headers: { "x-amz-checksum-crc32": crc32Of(Buffer.from("other")) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("<Code>BadDigest</Code>");
    const md5Wrong = await rawSigned("PUT", `/${TEST_BUCKET}/raw/crc.txt`, {
      body,
      headers: { "content-md5": createHash("md5").update("other").digest("base64") },
    });
    expect(md5Wrong.text).toContain("<Code>BadDigest</Code>");
    const right = await rawSigned("PUT", `/${TEST_BUCKET}/raw/crc.txt`, { body, headers: { "x-amz-checksum-crc32": crc32Of(body) } });
    expect(right.status).toBe(200);
    const named = await rawSigned("PUT", `/${TEST_BUCKET}/raw/crc.txt`, { body, headers: { "x-amz-sdk-checksum-algorithm": "CRC32" } });
    expect(named.text).toContain("<Code>InvalidRequest</Code>");
  });

  test("aws-chunked with a trailing CRC32 is decoded and checked; signed chunks are not implemented", async () => {
    const data = Buffer.from("first chunk|second chunk");
    const chunked = (crc: string) =>
      Buffer.concat([
        Buffer.from(`c\r\n`),
        data.subarray(0, 12),
        Buffer.from(`\r\nc\r\n`),
        data.subarray(12),
        Buffer.from(`\r\n0\r\nx-amz-checksum-crc32:${crc}\r\n\r\n`),
      ]);
    const headers = {
      "content-encoding": "aws-chunked",
      "x-amz-decoded-content-length": String(data.length),
      "x-amz-trailer": "x-amz-checksum-crc32",
    };
    const payload = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
    const bad = await rawSigned("PUT", `/${TEST_BUCKET}/raw/chunked.txt`, { body: chunked(crc32Of(Buffer.from("x"))), payload, headers });
    expect(bad.text).toContain("<Code>BadDigest</Code>");
    const good = await rawSigned("PUT", `/${TEST_BUCKET}/raw/chunked.txt`, { body: chunked(crc32Of(data)), payload, headers });
    expect(good.status).toBe(200);
    const got = await client().send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "raw/chunked.txt" }));
    expect(await got.Body!.transformToString()).toBe(data.toString());
    const signedChunks = await rawSigned("PUT", `/${TEST_BUCKET}/raw/chunked.txt`, {
      body: "x",
      payload: "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
    });
    expect(signedChunks.status).toBe(501);
  });

  test("DeleteObjects without Content-MD5 or a checksum is InvalidRequest", async () => {
    const xml = `<Delete><Object><Key>raw/crc.txt</Key></Object></Delete>`;
    const without = await rawSigned("POST", `/${TEST_BUCKET}?delete=`, { body: xml });
    expect(without.status).toBe(400);
    expect(without.text).toContain("<Code>InvalidRequest</Code>");
    expect(s3.sandbox.store.getObject(TEST_BUCKET, "raw/crc.txt")).toBeDefined();
    const withMd5 = await rawSigned("POST", `/${TEST_BUCKET}?delete=`, {
      body: xml,
      headers: { "content-md5": createHash("md5").update(xml).digest("base64") },
    });
    expect(withMd5.status).toBe(200);
    expect(s3.sandbox.store.getObject(TEST_BUCKET, "raw/crc.txt")).toBeUndefined();
  });

  test("a presigned URL for more than a week is refused", async () => {
    const url = await getSignedUrl(client(), new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "short.txt" }), { expiresIn: 60 });
    const answer = await fetch(url.replace("X-Amz-Expires=60", "X-Amz-Expires=604801"));
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("<Code>AuthorizationQueryParametersError</Code>");
  });
});

describe("faults and restarts", () => {
  test("SlowDown answers 503 until the SDK's retries get through; a store that is down refuses connections", async () => {
    const once = client({ maxAttempts: 1 });
    s3.sandbox.faults.slowDown(1);
    const slow = await refusal(once.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: "short.txt" })));
    expect(slow.$metadata.httpStatusCode).toBe(503);
    s3.sandbox.faults.slowDown(1);
    const listed = await client().send(new ListObjectsV2Command({ Bucket: TEST_BUCKET, Prefix: "short" }));
    expect(listed.Contents!.map((o) => o.Key)).toEqual(["short.txt"]);

    await s3.refuseConnections!();
    try {
      // A new client: the one above keeps a pooled connection, which the store's going down resets.
      const fresh = client({ maxAttempts: 1 });
      const down = await refusal(fresh.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: "short.txt" })));
      expect((down as unknown as { code?: string }).code).toBe("ECONNREFUSED");
    } finally {
      await s3.acceptConnections!();
    }
    expect((await client().send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: "short.txt" }))).ContentLength).toBe(5);
  });

  test("objects, and an unfinished upload, survive a restart on the same directory", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-s3-restart-"));
    try {
      const first = await startS3Sandbox({ dir });
      const c1 = new S3Client({ endpoint: first.endpoint, region: first.region, forcePathStyle: true, credentials: first.credentials });
      await c1.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: "kept.txt", Body: "kept" }));
      const { UploadId } = await c1.send(new CreateMultipartUploadCommand({ Bucket: TEST_BUCKET, Key: "later.bin" }));
      const part = await c1.send(new UploadPartCommand({ Bucket: TEST_BUCKET, Key: "later.bin", UploadId, PartNumber: 1, Body: "tail" }));
      await first.close();
      const second = await startS3Sandbox({ dir });
      try {
        const c2 = new S3Client({
          endpoint: second.endpoint,
          region: second.region,
          forcePathStyle: true,
          credentials: second.credentials,
        });
        expect(await (await c2.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "kept.txt" }))).Body!.transformToString()).toBe(
          "kept",
        );
        await c2.send(
          new CompleteMultipartUploadCommand({
            Bucket: TEST_BUCKET,
            Key: "later.bin",
            UploadId,
            MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag! }] },
          }),
        );
        expect(await (await c2.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "later.bin" }))).Body!.transformToString()).toBe(
          "tail",
        );
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
