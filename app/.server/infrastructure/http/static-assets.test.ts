import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import compression from "compression";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { balanced, minifyPageScripts, precompressDirectory } from "./precompress";
import { serveAssets } from "./static-assets";

let dir = "";
let server: Server;
let port = 0;
// A script large enough to be worth compressing, and one too short to shrink.
const script = Array.from({ length: 400 }, (_, i) => `export const value${i} = "Habari ${i}";`).join("\n");
// A file the server makes once the build is read (the words files, decision 072).
const wordsBody = Buffer.from(`globalThis.__jw=${JSON.stringify({ a: "Habari ".repeat(40) })};`);
let generated: { path: string; body: Buffer }[] = [];
const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "jumbe-assets-"));
  await writeFile(path.join(dir, "app-abc123.js"), script);
  await writeFile(path.join(dir, "logo-abc123.png"), image);
  await precompressDirectory(dir);
  const app = express();
  app.use(compression());
  app.use(
    "/assets",
    serveAssets(dir, () => generated),
  );
  app.use((_req, res) => void res.status(404).send("not here"));
  server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

/** One raw request: the bytes as they crossed the wire, not decoded. */
function get(pathname: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: pathname, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("precompressed assets", () => {
  it("writes brotli and gzip forms of compressible files only", async () => {
    expect((await readdir(dir)).sort()).toEqual(["app-abc123.js", "app-abc123.js.br", "app-abc123.js.gz", "logo-abc123.png"]);
  });

  it("writes the same files with one gzip thread or several, each file's gzip whole", async () => {
    const many = await mkdtemp(path.join(os.tmpdir(), "jumbe-assets-many-"));
    const bodies = Array.from({ length: 7 }, (_, i) => script.slice(0, 1000 * (i + 1)));
    await Promise.all(bodies.map((body, i) => writeFile(path.join(many, `chunk-${i}.js`), body)));
    expect(await precompressDirectory(many, 3)).toBe(7);
    for (const [i, body] of bodies.entries()) {
      expect(zlib.gunzipSync(await readFile(path.join(many, `chunk-${i}.js.gz`))).toString()).toBe(body);
      expect(zlib.brotliDecompressSync(await readFile(path.join(many, `chunk-${i}.js.br`))).toString()).toBe(body);
    }
    await rm(many, { recursive: true, force: true });
  }, 60_000);

  it("shares files between the gzip threads by their bytes, the largest first", () => {
    const sizes = [10, 70, 30, 40, 20].map((size) => ({ size }));
    expect(balanced(sizes, 2).map((group) => group.map((file) => file.size))).toEqual([
      [70, 20],
      [40, 30, 10],
    ]);
    expect(balanced(sizes, 9)).toHaveLength(5);
    expect(balanced([], 2)).toEqual([]);
  });

  it("sends brotli to a browser that accepts it, gzip to one that does not, and the file itself to neither", async () => {
    const br = await get("/assets/app-abc123.js", { "Accept-Encoding": "gzip, deflate, br, zstd" });
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(br.headers.vary).toBe("Accept-Encoding");
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(script);
    expect(Number(br.headers["content-length"])).toBe(br.body.length);

    const gz = await get("/assets/app-abc123.js", { "Accept-Encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.body).toString()).toBe(script);
    // Quality 11 beats level 9.
    expect(br.body.length).toBeLessThan(gz.body.length);

    const plain = await get("/assets/app-abc123.js", { "Accept-Encoding": "identity" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
    const refused = await get("/assets/app-abc123.js", { "Accept-Encoding": "br;q=0, gzip;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.body.toString()).toBe(script);
  });

  it("answers 304 to a revalidation with the ETag of the same encoding, and HEAD without a body", async () => {
    const first = await get("/assets/app-abc123.js", { "Accept-Encoding": "br" });
    const again = await get("/assets/app-abc123.js", { "Accept-Encoding": "br", "If-None-Match": String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const otherEncoding = await get("/assets/app-abc123.js", { "Accept-Encoding": "gzip", "If-None-Match": String(first.headers.etag) });
    expect(otherEncoding.status).toBe(200);
    const head = await get("/assets/app-abc123.js", { "Accept-Encoding": "gzip" }, "HEAD");
    expect(head.status).toBe(200);
    const written = await readFile(path.join(dir, "app-abc123.js.gz"));
    expect(head.headers["content-length"]).toBe(String(written.length));
    // zopfli's gzip: the same bytes inflated, fewer on the wire than zlib's best (decision 061).
    expect(zlib.gunzipSync(written).toString("utf8")).toBe(script);
    expect(written.length).toBeLessThan(zlib.gzipSync(script, { level: 9 }).length);
    expect(head.body.length).toBe(0);
  });

  it("sends an image as it is, and leaves unknown names and the precompressed files themselves to the next handler", async () => {
    const png = await get("/assets/logo-abc123.png", { "Accept-Encoding": "gzip, br" });
    expect(png.headers["content-type"]).toBe("image/png");
    expect(png.headers["content-encoding"]).toBeUndefined();
    expect(png.body.equals(image)).toBe(true);
    expect((await get("/assets/missing-abc.js")).status).toBe(404);
    expect((await get("/assets/app-abc123.js.br")).status).toBe(404);
    expect((await get("/assets/app-abc123.js", {}, "POST")).status).toBe(404);
  });
});

describe("files the server makes", () => {
  it("are served like the built ones, compressed once, from when the server has them", async () => {
    expect((await get("/assets/words-sw-0123456789.js")).status).toBe(404);
    generated = [{ path: "/assets/words-sw-0123456789.js", body: wordsBody }];
    const br = await get("/assets/words-sw-0123456789.js", { "Accept-Encoding": "gzip, br" });
    expect(br.status).toBe(200);
    expect(br.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(zlib.brotliDecompressSync(br.body)).toEqual(wordsBody);
    const gz = await get("/assets/words-sw-0123456789.js", { "Accept-Encoding": "gzip" });
    expect(zlib.gunzipSync(gz.body)).toEqual(wordsBody);
    expect((await get("/assets/app-abc123.js")).status).toBe(200);
  });
});

describe("page scripts", () => {
  it("are minified with their exports kept: comments and long local names go, the behaviour stays", async () => {
    const scripts = await mkdtemp(path.join(os.tmpdir(), "jumbe-page-scripts-"));
    try {
      const source = [
        "// A page script as app/assets holds them: explained at length for the next reader.",
        "/** How strong a password is, from 0 to 4. */",
        "export function strengthOf(candidatePassword) {",
        "  const longEnough = candidatePassword.length >= 12;",
        "  return longEnough ? 4 : 1;",
        "}",
      ].join("\n");
      await writeFile(path.join(scripts, "forms-abc123.js"), source);
      await minifyPageScripts(scripts, ["forms-abc123.js"]);
      const minified = await readFile(path.join(scripts, "forms-abc123.js"), "utf8");
      expect(minified).not.toContain("explained at length");
      expect(minified).not.toContain("longEnough");
      expect(minified.length).toBeLessThan(source.length / 2);
      const module = (await import(/* @vite-ignore */ path.join(scripts, "forms-abc123.js"))) as { strengthOf: (p: string) => number };
      expect([module.strengthOf("Jumbe#2026-Nairobi"), module.strengthOf("short")]).toEqual([4, 1]);
    } finally {
      await rm(scripts, { recursive: true, force: true });
    }
  });
});
