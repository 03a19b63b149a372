import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import type { Plugin } from "vite";
import { minify } from "terser";

const brotli = promisify(zlib.brotliCompress);

/** Files worth compressing; images and fonts in the build are compressed formats already. */
export const COMPRESSIBLE = /\.(js|mjs|css|svg|json|txt|html|map|xml)$/;

/** Zopfli's passes over each file: 15 is about 0.1% smaller than 1 for 20% more time (measured on the build's assets). */
const ZOPFLI_ITERATIONS = 15;

/*
 * Zopfli is WebAssembly run on the calling thread: about 17 CPU-seconds for the browser build's
 * assets, most of the build's precompression. It runs in worker threads, so the server build (on
 * the main thread) goes on beside it (decision 123).
 */
const GZIP_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync, writeFileSync } = require("node:fs");
const { gzipAsync } = require(workerData.zopfli);
(async () => {
  for (const file of workerData.files) {
    writeFileSync(file + ".gz", await gzipAsync(readFileSync(file), { numiterations: workerData.iterations }));
  }
  parentPort.postMessage("done");
})().catch((error) => { throw error; });
`;

/** Writes `file.gz` (zopfli) beside each of `files` in one worker thread. */
function gzipInWorker(files: string[]) {
  return new Promise<void>((resolve, reject) => {
    const zopfli = createRequire(import.meta.url).resolve("@gfx/zopfli");
    const worker = new Worker(GZIP_WORKER, { eval: true, workerData: { files, zopfli, iterations: ZOPFLI_ITERATIONS } });
    worker.once("error", reject);
    worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`gzip worker exited with ${code}`))));
  });
}

/** Splits files (with their sizes) into `count` groups of about equal bytes, the largest first. */
export function balanced<T extends { size: number }>(files: T[], count: number): T[][] {
  const groups = Array.from({ length: Math.max(1, count) }, () => ({ size: 0, files: [] as T[] }));
  for (const file of [...files].sort((a, b) => b.size - a.size)) {
    const lightest = groups.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.files.push(file);
    lightest.size += file.size;
  }
  return groups.map((group) => group.files).filter((group) => group.length > 0);
}

/**
 * Writes `name.br` (brotli, quality 11) and `name.gz` (gzip made by zopfli, 2-3% smaller than zlib's
 * level 9, for clients without brotli) beside every compressible file of `dir`. Built once, they cost
 * nothing per request, and quality 11 is about 13% smaller than the gzip a server can afford to make
 * on the fly. Brotli runs on libuv's threads, zopfli on `threads` worker threads.
 */
export async function precompressDirectory(dir: string, threads = Math.min(2, os.availableParallelism())) {
  const names = (await readdir(dir)).filter((name) => COMPRESSIBLE.test(name));
  const files = await Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name);
      return { file, size: (await stat(file)).size };
    }),
  );
  await Promise.all([
    ...balanced(files, threads).map((group) => gzipInWorker(group.map(({ file }) => file))),
    ...files.map(async ({ file }) => {
      const raw = await readFile(file);
      const br = await brotli(raw, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      });
      await writeFile(`${file}.br`, br);
    }),
  ]);
  return names.length;
}

/**
 * Minifies the page scripts that Vite copies as they are (`app/assets/*.js` imported with `?url`:
 * forms.js, live.js, menus.js...; the documents' only JavaScript, decision 060): their comments
 * and names are most of their bytes. Module scripts, so their exports stay.
 */
export async function minifyPageScripts(dir: string, fileNames: readonly string[]) {
  await Promise.all(
    fileNames.map(async (name) => {
      const file = path.join(dir, name);
      const result = await minify(await readFile(file, "utf8"), { module: true, compress: { passes: 2 }, format: { comments: false } });
      if (result.code) await writeFile(file, result.code);
    }),
  );
}

/**
 * Vite plugin: after the browser build is written, minifies its page scripts and starts
 * precompressing its fingerprinted assets; the server build goes on meanwhile, and the build ends
 * when both have (decision 123).
 */
export function precompressAssets(): Plugin {
  let compressing: Promise<unknown> | null = null;
  return {
    name: "jumbe-precompress-assets",
    apply: "build",
    async writeBundle(options, bundle) {
      if (this.environment?.name !== "client" || !options.dir) return;
      const pageScripts = Object.values(bundle)
        .filter((output) => output.type === "asset" && output.fileName.endsWith(".js"))
        .map((output) => output.fileName);
      await minifyPageScripts(options.dir, pageScripts);
      const started = precompressDirectory(path.join(options.dir, "assets"));
      // Kept and awaited when the whole build ends: a failure fails the build then.
      started.catch(() => {});
      compressing = started;
    },
    buildApp: {
      order: "post",
      async handler() {
        await compressing;
      },
    },
  };
}
