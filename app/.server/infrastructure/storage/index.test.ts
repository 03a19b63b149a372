import { afterAll, describe, expect, it } from "vitest";
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import { localFileStorage, StorageLimitError, StorageNotFoundError } from "./index";

const root = mkdtempSync(path.join(os.tmpdir(), "jumbe-storage-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const files = () => readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());

async function* chunks(parts: Buffer[]) {
  for (const part of parts) yield part;
}

const ORG = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
const OTHER_ORG = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

describe("local file storage", () => {
  const storage = localFileStorage(root);

  it("writes a stream under a key of its own, with its size and SHA-256, and reads it back", async () => {
    const parts = [Buffer.from("Habari "), Buffer.from("ya "), Buffer.from("asubuhi")];
    const stored = await storage.write(chunks(parts), { maxBytes: 100, organisationId: ORG });
    const whole = Buffer.concat(parts);
    expect(stored).toEqual({
      key: expect.stringMatching(new RegExp(`^org/${ORG}/[0-9a-f]{2}/[0-9a-f-]{36}$`)),
      size: whole.length,
      sha256: createHash("sha256").update(whole).digest("hex"),
    });
    expect(await buffer(await storage.read(stored.key))).toEqual(whole);
    // A part of it (an HTTP Range request), first and last byte included.
    expect((await buffer(await storage.read(stored.key, { start: 7, end: 9 }))).toString()).toBe("ya ");
    const read = await storage.withBlob(stored.key, "text/plain", async (blob) => ({
      type: blob.type,
      bytes: Buffer.from(await blob.arrayBuffer()),
    }));
    expect(read).toEqual({ type: "text/plain", bytes: whole });
    expect(files().map((f) => f.name)).toEqual([stored.key.split("/").at(-1)]);
    await storage.delete(stored.key);
    await storage.delete(stored.key);
    await expect(storage.read(stored.key)).rejects.toBeInstanceOf(StorageNotFoundError);
    expect(files()).toEqual([]);
  });

  it("keeps nothing of a write past its cap, or of one whose source fails", async () => {
    await expect(
      storage.write(chunks([Buffer.alloc(60), Buffer.alloc(60)]), { maxBytes: 100, organisationId: ORG }),
    ).rejects.toBeInstanceOf(StorageLimitError);
    async function* broken() {
      yield Buffer.alloc(10);
      throw new Error("connection reset");
    }
    await expect(storage.write(broken(), { maxBytes: 100, organisationId: ORG })).rejects.toThrow("connection reset");
    expect(files()).toEqual([]);
    // Exactly the cap is fine.
    const full = await storage.write([Buffer.alloc(100)], { maxBytes: 100, organisationId: ORG });
    expect(full.size).toBe(100);
    await storage.delete(full.key);
  });

  it("answers only keys it made: no path from outside reaches the disk", async () => {
    for (const key of ["../../etc/passwd", "/etc/passwd", "ab/../../x", "ab/not-a-uuid", "", "AB/6F1C0D2E-8A4B-4C3D-9E5F-1A2B3C4D5E6F"]) {
      await expect(storage.read(key), key).rejects.toBeInstanceOf(StorageNotFoundError);
      await expect(storage.delete(key), key).rejects.toBeInstanceOf(StorageNotFoundError);
    }
  });

  it("keeps each organisation's files under its own prefix, deletes that prefix whole, and still reads keys made before", async () => {
    const mine = await storage.write([Buffer.from("a")], { maxBytes: 10, organisationId: ORG });
    const mineToo = await storage.write([Buffer.from("b")], { maxBytes: 10, organisationId: ORG });
    const theirs = await storage.write([Buffer.from("c")], { maxBytes: 10, organisationId: OTHER_ORG });
    // A key from before keys named their organisation: `<xx>/<uuid>`.
    const id = randomUUID();
    const legacy = `${id.slice(0, 2)}/${id}`;
    mkdirSync(path.join(root, id.slice(0, 2)), { recursive: true });
    writeFileSync(path.join(root, legacy), "old photo");
    expect((await buffer(await storage.read(legacy))).toString()).toBe("old photo");

    expect(await storage.deleteOrganisation(ORG)).toBe(2);
    for (const key of [mine.key, mineToo.key]) await expect(storage.read(key)).rejects.toBeInstanceOf(StorageNotFoundError);
    expect((await buffer(await storage.read(theirs.key))).toString()).toBe("c");
    expect(await storage.deleteOrganisation(ORG)).toBe(0);
    await expect(storage.deleteOrganisation("../..")).rejects.toThrow(TypeError);
    await storage.delete(legacy);
    await storage.delete(theirs.key);
    expect(files()).toEqual([]);
    // Local files are streamed through Jumbe: no presigned address.
    expect(await storage.downloadUrl(theirs.key, { contentType: "text/plain", contentDisposition: "inline" })).toBeNull();
  });
});
