import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";
import { promisify } from "node:util";
import type { Plugin } from "vite";
import { gzipAsync } from "@gfx/zopfli";
import { minify } from "terser";

const brotli = promisify(zlib.brotliCompress);

/** Files worth compressing; images and fonts in the build are compressed formats already. */
export const COMPRESSIBLE = /\.(js|mjs|css|svg|json|txt|html|map|xml)$/;

/**
 * Writes `name.br` (brotli, quality 11) and `name.gz` (gzip made by zopfli, 3-4% smaller than zlib's
 * level 9, for clients without brotli) beside every compressible file of `dir`. Built once, they cost
 * nothing per request, and quality 11 is about 13% smaller than the gzip a server can afford to make
 * on the fly.
 */
export async function precompressDirectory(dir: string) {
  const names = (await readdir(dir)).filter((name) => COMPRESSIBLE.test(name));
  await Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name);
      const raw = await readFile(file);
      const [br, gz] = await Promise.all([
        brotli(raw, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
          },
        }),
        gzipAsync(raw, { numiterations: 15 }),
      ]);
      await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gz)]);
    }),
  );
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

/** Vite plugin: after the browser build is written, minifies its page scripts and precompresses its fingerprinted assets. */
export function precompressAssets(): Plugin {
  return {
    name: "jumbe-precompress-assets",
    apply: "build",
    async writeBundle(options, bundle) {
      if (this.environment?.name !== "client" || !options.dir) return;
      const pageScripts = Object.values(bundle)
        .filter((output) => output.type === "asset" && output.fileName.endsWith(".js"))
        .map((output) => output.fileName);
      await minifyPageScripts(options.dir, pageScripts);
      await precompressDirectory(path.join(options.dir, "assets"));
    },
  };
}
