import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { startS3Sandbox } from "@jumbe/sandbox/s3/test-support";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import {
  fileStorage,
  localFileStorage,
  s3FileStorage,
  setFileStorage,
  StorageLimitError,
  StorageNotFoundError,
  StorageUnavailableError,
  type S3StorageConfig,
} from "~/.server/infrastructure/storage";
import { migrateFolderToBucket } from "~/.server/infrastructure/storage/migrate";
import { storeUploadedMedia } from "~/.server/domains/messaging/media-files";
import { eraseDueOrganisations } from "~/.server/domains/organisation/erasure";
import { eraseContact } from "~/.server/domains/contacts/rights";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, getRequest, run } from "../support/http";
import { appFetch } from "../support/in-process-app";

// Issue 78, files in object storage (decision 161): the S3 implementation of the storage interface
// against the S3 sandbox (SigV4 and checksums checked as S3 does), through the SDK unchanged, and
// through Jumbe's own routes and erasure.

type Sandbox = Awaited<ReturnType<typeof startS3Sandbox>>;
let s3: Sandbox;
let storage: ReturnType<typeof s3FileStorage>;
const localDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-s3-test-local-"));

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const configOf = (changes: Partial<S3StorageConfig> = {}): S3StorageConfig => ({
  endpoint: s3.endpoint,
  bucket: s3.bucket!,
  region: s3.region,
  credentials: s3.credentials,
  forcePathStyle: true,
  checksums: "when_required",
  downloads: "stream",
  presignSeconds: 300,
  timeoutMs: 2_000,
  ...changes,
});

async function* chunks(count: number, size: number, seed = 1) {
  for (let i = 0; i < count; i++) yield Buffer.alloc(size, (seed + i) % 251);
}

/** Every key in the bucket (under `prefix`). */
async function keys(prefix = "") {
  const listed = await storage.client.send(new ListObjectsV2Command({ Bucket: s3.bucket!, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!).sort();
}

/** Multipart uploads the store still holds (begun and neither completed nor aborted). */
const unfinishedUploads = () => readdirSync(path.join(s3.sandbox.store.dir, "uploads"));

beforeAll(async () => {
  s3 = await startS3Sandbox();
  storage = s3FileStorage(configOf());
});

beforeEach(() => setFileStorage(storage));

afterAll(async () => {
  storage?.client.destroy();
  await s3?.close();
  rmSync(localDir, { recursive: true, force: true });
});

async function tenant(name: string) {
  const owner = await createVerifiedUser({ businessName: name });
  return { organizationId: owner.organization.id, userId: owner.user.id, cookie: await signedInCookie(owner.email, owner.password) };
}

/** A customer's photo as the inbound-media job leaves it: in storage, its row, a message linked to it. */
async function inboundPhoto(organizationId: string, bytes: Buffer, contactId: string | null = null) {
  const stored = await fileStorage().write([bytes], { maxBytes: 5_000_000, organisationId: organizationId, contentType: "image/jpeg" });
  const [file] = await rawQuery<{ id: string }>(
    `insert into media_files (organization_id, direction, mime_type, size, sha256, storage_key, meta_media_id, phone_number_id)
     values ($1, 'inbound', 'image/jpeg', $2, $3, $4, '1234567890', '106540352242922') returning id`,
    [organizationId, stored.size, stored.sha256, stored.key],
  );
  const [message] = await rawQuery<{ id: string }>(
    `insert into messages (organization_id, direction, status, body, phone_number_id, message_type, payload, media_file_id, contact_id)
     values ($1, 'inbound', 'received', '', '106540352242922', 'image', '{"type":"image","image":{"id":"1234567890"}}'::jsonb, $2, $3) returning id`,
    [organizationId, file!.id, contactId],
  );
  return { messageId: message!.id, key: stored.key };
}

const PHOTO = Buffer.concat([Buffer.from("ffd8ffe000104a46494600010100000100010000", "hex"), randomBytes(50_000)]);

describe("the S3 implementation against the S3 sandbox", () => {
  it("writes under the organisation's prefix, reads whole and by range, hands a Blob, deletes (twice)", async () => {
    const organisationId = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
    const parts = [Buffer.from("Habari "), Buffer.from("ya "), Buffer.from("asubuhi")];
    const whole = Buffer.concat(parts);
    const stored = await storage.write(parts, { maxBytes: 100, organisationId, contentType: "text/plain" });
    expect(stored).toEqual({
      key: expect.stringMatching(new RegExp(`^org/${organisationId}/[0-9a-f]{2}/[0-9a-f-]{36}$`)),
      size: whole.length,
      sha256: sha256(whole),
    });
    expect(await keys(`org/${organisationId}/`)).toEqual([stored.key]);
    expect(await buffer(await storage.read(stored.key))).toEqual(whole);
    expect((await buffer(await storage.read(stored.key, { start: 7, end: 9 }))).toString()).toBe("ya ");
    const blob = await storage.withBlob(stored.key, "text/plain", async (b) => ({
      type: b.type,
      bytes: Buffer.from(await b.arrayBuffer()),
    }));
    expect(blob).toEqual({ type: "text/plain", bytes: whole });
    // The temporary copy is gone once the Blob's user is done.
    expect(readdirSync(os.tmpdir()).filter((name) => name.startsWith("jumbe-blob-"))).toEqual([]);
    await storage.delete(stored.key);
    await storage.delete(stored.key);
    await expect(storage.read(stored.key)).rejects.toBeInstanceOf(StorageNotFoundError);
    await expect(storage.withBlob(stored.key, "text/plain", async () => 1)).rejects.toBeInstanceOf(StorageNotFoundError);
    await expect(storage.read("../../etc/passwd")).rejects.toBeInstanceOf(StorageNotFoundError);
  });

  it("streams 16 MB through a multipart upload, with the SDK's default checksums too", async () => {
    for (const checksums of ["when_required", "when_supported"] as const) {
      const s = checksums === "when_required" ? storage : s3FileStorage(configOf({ checksums }));
      const hash = createHash("sha256");
      for await (const chunk of chunks(16, 1024 * 1024)) hash.update(chunk);
      const stored = await s.write(chunks(16, 1024 * 1024), {
        maxBytes: 16 * 1024 * 1024,
        organisationId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        contentType: "video/mp4",
      });
      expect(stored, checksums).toMatchObject({ size: 16 * 1024 * 1024, sha256: hash.digest("hex") });
      // Several parts: a multipart object's ETag is the MD5 of its parts' MD5s, then "-<parts>".
      const head = s3.sandbox.store.getObject(s3.bucket!, stored.key);
      expect(head?.etag, checksums).toMatch(/-4"?$/);
      const back = createHash("sha256");
      for await (const chunk of await s.read(stored.key)) back.update(chunk as Buffer);
      expect(back.digest("hex")).toBe(stored.sha256);
      const tail = await buffer(await s.read(stored.key, { start: 16 * 1024 * 1024 - 3, end: 16 * 1024 * 1024 - 1 }));
      expect([...tail]).toEqual([16 % 251, 16 % 251, 16 % 251]);
      await s.delete(stored.key);
    }
    expect(unfinishedUploads()).toEqual([]);
  }, 60_000);

  it("keeps nothing of a write past its cap, one object or several parts in, nor of one whose source fails", async () => {
    const organisationId = "11111111-2222-4333-8444-555555555555";
    const before = await keys();
    // Past the cap inside the first part (no upload begun), and after a part went (a multipart upload begun).
    await expect(storage.write(chunks(3, 60), { maxBytes: 100, organisationId })).rejects.toBeInstanceOf(StorageLimitError);
    await expect(storage.write(chunks(12, 1024 * 1024), { maxBytes: 11 * 1024 * 1024, organisationId })).rejects.toBeInstanceOf(
      StorageLimitError,
    );
    async function* broken() {
      yield* chunks(6, 1024 * 1024);
      throw new Error("connection reset by the browser");
    }
    await expect(storage.write(broken(), { maxBytes: 50 * 1024 * 1024, organisationId })).rejects.toThrow(
      "connection reset by the browser",
    );
    expect(await keys()).toEqual(before);
    expect(unfinishedUploads()).toEqual([]);
    // Exactly the cap is fine.
    const full = await storage.write([Buffer.alloc(100)], { maxBytes: 100, organisationId });
    expect(full.size).toBe(100);
  }, 60_000);

  it("says the store is unavailable, not a crash, when it refuses connections or answers SlowDown", async () => {
    const organisationId = "11111111-2222-4333-8444-555555555555";
    const stored = await storage.write([Buffer.from("ok")], { maxBytes: 10, organisationId });
    s3.sandbox.faults.slowDown();
    try {
      await expect(storage.read(stored.key)).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(storage.write([Buffer.from("x")], { maxBytes: 10, organisationId })).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      s3.sandbox.faults.clear();
    }
    await s3.refuseConnections!();
    try {
      await expect(storage.read(stored.key)).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(storage.delete(stored.key)).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(storage.deleteOrganisation(organisationId)).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      await s3.acceptConnections!();
    }
    expect((await buffer(await storage.read(stored.key))).toString()).toBe("ok");
  }, 60_000);

  it("is what STORAGE=s3 configures (one client per process), and the local folder stays the default", async () => {
    setFileStorage(undefined);
    try {
      setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", DATA_DIR: localDir }));
      const local = fileStorage();
      expect(
        await local.downloadUrl("ab/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", { contentType: "image/jpeg", contentDisposition: "inline" }),
      ).toBe(null);
      setEnv(
        parseEnv({
          NODE_ENV: "test",
          APP_URL: "http://jumbe.test",
          STORAGE: "s3",
          S3_ENDPOINT: s3.endpoint,
          S3_BUCKET: s3.bucket,
          S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
          S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
          S3_FORCE_PATH_STYLE: "1",
        }),
      );
      const configured = fileStorage();
      expect(configured).not.toBe(local);
      expect(fileStorage()).toBe(configured);
      const stored = await configured.write([Buffer.from("imesanidiwa")], {
        maxBytes: 100,
        organisationId: "11111111-2222-4333-8444-555555555555",
      });
      expect(s3.sandbox.store.getObject(s3.bucket!, stored.key)).toBeTruthy();
    } finally {
      setFileStorage(storage);
    }
  });
});

describe("Jumbe's routes and erasure with files in the bucket", () => {
  it("streams an inbound photo after the permission check, and another tenant gets 404", async () => {
    const t = await tenant("Picha Traders");
    const other = await tenant("Jirani Ltd");
    const { messageId } = await inboundPhoto(t.organizationId, PHOTO);
    const answer = await appFetch(getRequest(`/chat/media/${messageId}`, { cookie: t.cookie }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(PHOTO);
    const part = await appFetch(getRequest(`/chat/media/${messageId}`, { cookie: t.cookie, headers: { Range: "bytes=10-19" } }));
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(PHOTO.subarray(10, 20));
    expect((await appFetch(getRequest(`/chat/media/${messageId}`, { cookie: other.cookie }))).status).toBe(404);
  });

  it("redirects to a presigned URL when so configured: it works with fetch, and dies when tampered with", async () => {
    const t = await tenant("Kiungo Traders");
    const { messageId, key } = await inboundPhoto(t.organizationId, PHOTO);
    const redirecting = s3FileStorage(configOf({ downloads: "redirect", presignSeconds: 60 }));
    setFileStorage(redirecting);
    try {
      const answer = await appFetch(getRequest(`/chat/media/${messageId}`, { cookie: t.cookie }));
      expect(answer.status).toBe(302);
      expect(answer.headers.get("cache-control")).toBe("private, no-store");
      const location = new URL(answer.headers.get("location")!);
      expect(location.origin).toBe(new URL(s3.endpoint).origin);
      expect(location.pathname).toBe(`/${s3.bucket}/${key}`);
      expect(location.searchParams.get("X-Amz-Expires")).toBe("60");
      const fetched = await fetch(location);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get("content-type")).toBe("image/jpeg");
      expect(fetched.headers.get("content-disposition")).toMatch(/^inline; filename=/);
      expect(Buffer.from(await fetched.arrayBuffer())).toEqual(PHOTO);
      // Another object, a longer life, or a changed answer: the signature no longer matches.
      for (const [name, value] of [
        ["X-Amz-Expires", "604800"],
        ["response-content-type", "text/html"],
      ] as const) {
        const tampered = new URL(location);
        tampered.searchParams.set(name, value);
        const refused = await fetch(tampered);
        expect(refused.status, name).toBe(403);
        expect(await refused.text(), name).toContain("SignatureDoesNotMatch");
      }
      const elsewhere = new URL(location);
      elsewhere.pathname = elsewhere.pathname.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
      expect((await fetch(elsewhere)).status).toBe(403);
      // Not without Jumbe's own check first.
      const stranger = await tenant("Mgeni Ltd");
      expect((await appFetch(getRequest(`/chat/media/${messageId}`, { cookie: stranger.cookie }))).status).toBe(404);
    } finally {
      redirecting.client.destroy();
      setFileStorage(storage);
    }
  });

  it("answers 503 with Retry-After for a file while the store is down, and the rest of the product keeps working", async () => {
    const t = await tenant("Giza Traders");
    const { messageId } = await inboundPhoto(t.organizationId, PHOTO);
    await s3.refuseConnections!();
    try {
      const answer = await appFetch(getRequest(`/chat/media/${messageId}`, { cookie: t.cookie }));
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("10");
      expect(await answer.text()).toContain("file store cannot be reached");
      // The inbox and its thread still open.
      expect((await appFetch(getRequest("/chat", { cookie: t.cookie }))).status).toBe(200);
      // An upload through the API says so too, and keeps nothing.
      const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie: t.cookie }))).data.key as string;
      const form = new FormData();
      form.append("file", new Blob([PHOTO], { type: "image/jpeg" }), "picha.jpg");
      const upload = await handleApiV1(
        new Request(`${APP}/api/v1/media`, { method: "POST", headers: { Authorization: `Bearer ${key}` }, body: form }),
      );
      expect(upload.status).toBe(503);
      expect(upload.headers.get("retry-after")).toBe("10");
      expect(await upload.json()).toMatchObject({
        code: "storage_unavailable",
        message: expect.stringContaining("file store cannot be reached"),
      });
      await expect(
        storeUploadedMedia(t.organizationId, {
          declaredType: "image/jpeg",
          fileName: "picha.jpg",
          chunks: (async function* () {
            yield PHOTO;
          })(),
        }),
      ).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(
        await rawQuery(`select id from media_files where organization_id = $1 and direction = 'outbound'`, [t.organizationId]),
      ).toEqual([]);
    } finally {
      await s3.acceptConnections!();
    }
    expect((await appFetch(getRequest(`/chat/media/${messageId}`, { cookie: t.cookie }))).status).toBe(200);
  }, 60_000);

  it("erasing a contact deletes their files from the bucket; erasing an organisation empties its prefix", async () => {
    const t = await tenant("Futa Traders");
    const other = await tenant("Baki Ltd");
    const [contact] = await rawQuery<{ id: string }>(
      `insert into contacts (organization_id, name, phone, wa_id) values ($1, 'Amina', '+254712000118', '254712000118') returning id`,
      [t.organizationId],
    );
    const theirs = await inboundPhoto(t.organizationId, PHOTO, contact!.id);
    const someoneElse = await inboundPhoto(t.organizationId, PHOTO);
    const otherTenant = await inboundPhoto(other.organizationId, PHOTO);
    await eraseContact({ organizationId: t.organizationId, userId: t.userId }, contact!.id);
    expect(await keys(`org/${t.organizationId}/`)).toEqual([someoneElse.key]);
    await expect(storage.read(theirs.key)).rejects.toBeInstanceOf(StorageNotFoundError);

    // An organisation past its grace period: its rows go, then every object under its prefix.
    const stray = await storage.write([Buffer.from("rejected rows")], { maxBytes: 100, organisationId: t.organizationId });
    await rawQuery(
      `update organizations set closure_requested_at = now() - interval '31 days', erase_after = now() - interval '1 minute' where id = $1`,
      [t.organizationId],
    );
    expect(await eraseDueOrganisations()).toEqual([t.organizationId]);
    expect(await keys(`org/${t.organizationId}/`)).toEqual([]);
    expect(stray.key).toContain(t.organizationId);
    expect(await keys(`org/${other.organizationId}/`)).toEqual([otherTenant.key]);
  });
});

describe("npm run storage:migrate", () => {
  it("copies the local folder into the bucket under the same keys, verified, and a second run skips what is there", async () => {
    const root = path.join(localDir, "media");
    const local = localFileStorage(root);
    const organisationId = "22222222-3333-4444-8555-666666666666";
    const made = [
      await local.write([randomBytes(3000)], { maxBytes: 10_000, organisationId }),
      await local.write(chunks(6, 1024 * 1024, 9), { maxBytes: 10 * 1024 * 1024, organisationId }),
    ];
    // A key from before keys named their organisation, and a `.part` left by a cut-off write.
    const legacy = "ab/ab5f3c1e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
    mkdirSync(path.join(root, "ab"), { recursive: true });
    writeFileSync(path.join(root, legacy), "picha ya zamani");
    writeFileSync(path.join(root, `${legacy}.0a1b2c.part`), "half");

    const first = await migrateFolderToBucket(root, storage);
    expect(first).toMatchObject({ found: 3, copied: 3, skipped: 0, failed: 0, ignored: 1, failures: [] });
    for (const file of made)
      expect(
        createHash("sha256")
          .update(await buffer(await storage.read(file.key)))
          .digest("hex"),
      ).toBe(file.sha256);
    expect((await buffer(await storage.read(legacy))).toString()).toBe("picha ya zamani");

    // Resumed after one more file, and after a copy that went wrong in the bucket: only those are copied.
    const added = await local.write([Buffer.from("mpya")], { maxBytes: 100, organisationId });
    await storage.delete(made[0]!.key);
    const second = await migrateFolderToBucket(root, storage);
    expect(second).toMatchObject({ found: 4, copied: 2, skipped: 2, failed: 0 });
    expect((await buffer(await storage.read(added.key))).toString()).toBe("mpya");
  }, 60_000);
});
