import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
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
