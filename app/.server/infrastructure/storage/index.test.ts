import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
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

describe("local file storage", () => {
  const storage = localFileStorage(root);

  it("writes a stream under a key of its own, with its size and SHA-256, and reads it back", async () => {
    const parts = [Buffer.from("Habari "), Buffer.from("ya "), Buffer.from("asubuhi")];
    const stored = await storage.write(chunks(parts), { maxBytes: 100 });
    const whole = Buffer.concat(parts);
    expect(stored).toEqual({
      key: expect.stringMatching(/^[0-9a-f]{2}\/[0-9a-f-]{36}$/),
      size: whole.length,
      sha256: createHash("sha256").update(whole).digest("hex"),
    });
    expect(await buffer(await storage.read(stored.key))).toEqual(whole);
    // A part of it (an HTTP Range request), first and last byte included.
    expect((await buffer(await storage.read(stored.key, { start: 7, end: 9 }))).toString()).toBe("ya ");
    expect(Buffer.from(await (await storage.blob(stored.key, "text/plain")).arrayBuffer())).toEqual(whole);
    expect(files().map((f) => f.name)).toEqual([stored.key.split("/")[1]]);
    await storage.delete(stored.key);
    await storage.delete(stored.key);
    await expect(storage.read(stored.key)).rejects.toBeInstanceOf(StorageNotFoundError);
    expect(files()).toEqual([]);
  });

  it("keeps nothing of a write past its cap, or of one whose source fails", async () => {
    await expect(storage.write(chunks([Buffer.alloc(60), Buffer.alloc(60)]), { maxBytes: 100 })).rejects.toBeInstanceOf(StorageLimitError);
    async function* broken() {
      yield Buffer.alloc(10);
      throw new Error("connection reset");
    }
    await expect(storage.write(broken(), { maxBytes: 100 })).rejects.toThrow("connection reset");
    expect(files()).toEqual([]);
    // Exactly the cap is fine.
    const full = await storage.write([Buffer.alloc(100)], { maxBytes: 100 });
    expect(full.size).toBe(100);
    await storage.delete(full.key);
  });

  it("answers only keys it made: no path from outside reaches the disk", async () => {
    for (const key of ["../../etc/passwd", "/etc/passwd", "ab/../../x", "ab/not-a-uuid", "", "AB/6F1C0D2E-8A4B-4C3D-9E5F-1A2B3C4D5E6F"]) {
      await expect(storage.read(key), key).rejects.toBeInstanceOf(StorageNotFoundError);
      await expect(storage.delete(key), key).rejects.toBeInstanceOf(StorageNotFoundError);
    }
  });
});
