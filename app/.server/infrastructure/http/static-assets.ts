import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import type { RequestHandler } from "express";
import { COMPRESSIBLE } from "./precompress";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};

type Encoding = "br" | "gzip" | "identity";

interface Variant {
  body: Buffer;
  etag: string;
}

interface Asset {
  type: string;
  compressible: boolean;
  variants: Partial<Record<Encoding, Variant>>;
}

const variant = (body: Buffer, encoding: Encoding): Variant => ({
  body,
  etag: `"${createHash("sha1").update(body).digest("base64url").slice(0, 16)}-${encoding}"`,
});

/** Every file of the build's assets folder with its precompressed forms (`.br`, `.gz`), read once. */
export function loadAssets(dir: string) {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".br") || name.endsWith(".gz")) continue;
    const file = path.join(dir, name);
    const type = TYPES[path.extname(name)] ?? "application/octet-stream";
    const compressible = COMPRESSIBLE.test(name);
    const asset: Asset = { type, compressible, variants: { identity: variant(readFileSync(file), "identity") } };
    if (compressible) {
      if (existsSync(`${file}.br`)) asset.variants.br = variant(readFileSync(`${file}.br`), "br");
      if (existsSync(`${file}.gz`)) asset.variants.gzip = variant(readFileSync(`${file}.gz`), "gzip");
    }
    assets.set(`/${name}`, asset);
  }
  return assets;
}

/** A file the server makes from the build (the words files, browser-words.ts), compressed once like the built ones. */
export interface GeneratedAsset {
  path: string;
  body: Buffer;
}

function generatedAsset(body: Buffer): Asset {
  return {
    type: TYPES[".js"]!,
    compressible: true,
    variants: {
      identity: variant(body, "identity"),
      br: variant(zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }), "br"),
      gzip: variant(zlib.gzipSync(body, { level: 9 }), "gzip"),
    },
  };
}

/**
 * Serves the fingerprinted build output from memory: brotli (quality 11) to clients that accept it,
 * gzip (level 9) to the others, as built (`precompress.ts`), with no file-system call and no
 * compression per request. A name it does not know goes on (the app's 404). The names carry a hash
 * of the content, so they are cached for a year as immutable.
 */
export function serveAssets(dir: string, generated: () => readonly GeneratedAsset[] = () => []): RequestHandler {
  const assets = loadAssets(dir);
  let made: readonly GeneratedAsset[] = [];
  let madeByPath = new Map<string, Buffer>();
  const find = (path: string) => {
    const found = assets.get(path);
    if (found) return found;
    // Made when the build is read (JavaScript: a page's words, immutable under its hash like the
    // others), compressed when first asked for: there are hundreds, and most are rarely fetched.
    if (generated() !== made) {
      made = generated();
      madeByPath = new Map(made.map((file) => [file.path.replace(/^\/assets/, ""), file.body]));
    }
    const body = madeByPath.get(path);
    if (!body) return undefined;
    const asset = generatedAsset(body);
    assets.set(path, asset);
    return asset;
  };
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const asset = find(req.path);
    if (!asset) return next();
    // Brotli first whatever order the client lists them in (browsers write "gzip, deflate, br").
    const encoding: Encoding = (["br", "gzip"] as const).find((e) => asset.variants[e] && req.acceptsEncodings(e) === e) ?? "identity";
    const { body, etag } = asset.variants[encoding]!;
    res.setHeader("Content-Type", asset.type);
    res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
    res.setHeader("ETag", etag);
    if (asset.compressible) res.setHeader("Vary", "Accept-Encoding");
    if (req.headers["if-none-match"]?.split(/\s*,\s*/).includes(etag)) {
      res.status(304).end();
      return;
    }
    // An encoded body is left as it is by the compression middleware.
    if (encoding !== "identity") res.setHeader("Content-Encoding", encoding);
    res.setHeader("Content-Length", String(body.length));
    if (req.method === "HEAD") res.end();
    else res.end(body);
  };
}
