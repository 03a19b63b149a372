// Files in S3 (issue 78, decision 161): what the bucket costs against the local folder, in one run.
//
//   node --import tsx bench/storage.ts [--reads 200] [--json]
//
// - Download: `read(key)` of a 1 MB file drained to the end, `--reads` times after a warm-up,
//   alternating local folder and S3 sandbox (on loopback, in a child process of its own, path-style,
//   SigV4 checked); the median per read of each and their ratio. The issue's target: S3 within 1.3x.
//   This is the storage layer only (no route, no permission check: both sides pay those alike).
// - Memory: a 16 MB upload streamed through `write` (lib-storage Upload, 5 MiB parts, 4 in flight)
//   in a fresh child process, its peak RSS above the RSS before it (sampled every 2 ms, and the
//   process's maxRSS), against the same write to the local folder in another fresh child; and the
//   same for `withBlob` of that 16 MB object (copied to a temporary file, then read as a Blob).
//   The issue's target: the streamed upload under 64 MB.
// - Through the route (`--route`, needs `npx react-router build`): GET /chat/media/:id as the signed-in
//   demo owner, on three built servers of the same run (a private PostgreSQL, a database each, the
//   demo seeded): files in the local folder, in the S3 sandbox's bucket streamed through Jumbe, and in
//   the bucket by a 302 to a presigned URL (followed); alternating, keep-alive: the seeded picture as
//   it is, then the same message's file replaced by 64 KB and by 1 MB. The median per download of
//   each and their ratios: the issue's "S3 within 1.3x through the route".
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { localFileStorage, s3FileStorage, type FileStorage, type S3StorageConfig } from "../app/.server/infrastructure/storage";
import { startPrivatePostgres, withDatabase } from "./lib/database.mjs";
import { startServer } from "./lib/server.mjs";
import { signIn } from "./lib/http.mjs";

const ORG = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
const MB = 1024 * 1024;
const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    reads: { type: "string", default: "200" },
    json: { type: "boolean", default: false },
    child: { type: "string" },
    sandbox: { type: "boolean", default: false },
    config: { type: "string" },
    dir: { type: "string" },
    route: { type: "boolean", default: false },
  },
});

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

async function* sixteenMegabytes() {
  for (let i = 0; i < 16; i++) yield Buffer.alloc(MB, i + 1);
}

async function drain(stream: AsyncIterable<unknown>) {
  for await (const chunk of stream) void chunk;
}

/** In a child: one operation, and the memory it took above what the process held before. */
async function child(kind: string, storage: FileStorage) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  const started = performance.now();
  if (kind.endsWith("write")) await storage.write(sixteenMegabytes(), { maxBytes: 16 * MB, organisationId: ORG });
  else {
    const stored = await storage.write(sixteenMegabytes(), { maxBytes: 16 * MB, organisationId: ORG });
    globalThis.gc?.();
    peak = process.memoryUsage().rss;
    const base = peak;
    await storage.withBlob(stored.key, "video/mp4", async (blob) => {
      const reader = blob.stream().getReader();
      while (!(await reader.read()).done);
    });
    clearInterval(timer);
    process.stdout.write(JSON.stringify({ kind, peakAboveMb: (peak - base) / MB, ms: performance.now() - started }));
    return;
  }
  const ms = performance.now() - started;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ kind, peakAboveMb: (peak - before) / MB, beforeMb: before / MB, maxRssMb, ms }));
}

/** The S3 sandbox in a process of its own, so its memory and CPU are not the measured process's. */
async function startSandboxProcess(): Promise<{ config: S3StorageConfig; stop: () => void }> {
  const proc = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/storage.ts"), "--sandbox"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve) => proc.stdout.once("data", (data: Buffer) => resolve(data.toString())));
  return { config: JSON.parse(line) as S3StorageConfig, stop: () => proc.kill() };
}

async function serveSandbox() {
  const { startS3Sandbox } = await import("../sandbox/s3/test-support");
  const s3 = await startS3Sandbox();
  const config: S3StorageConfig = {
    endpoint: s3.endpoint,
    bucket: s3.bucket!,
    region: s3.region,
    credentials: s3.credentials,
    forcePathStyle: true,
    checksums: "when_required",
    downloads: "stream",
    presignSeconds: 300,
    timeoutMs: 10_000,
  };
  process.stdout.write(`${JSON.stringify(config)}\n`);
  process.on("SIGTERM", () => void s3.close().then(() => process.exit(0)));
}

function runChild(kind: string, config: S3StorageConfig | null, dir: string) {
  const args = ["--expose-gc", "--import", "tsx", path.join(root, "bench/storage.ts"), "--child", kind, "--dir", dir];
  if (config) args.push("--config", JSON.stringify(config));
  const run = spawnSync(process.execPath, args, { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as { kind: string; peakAboveMb: number; maxRssMb?: number; ms: number };
}

const DEMO = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" };

/** The S3 settings as a built server reads them from its environment. */
const s3Env = (config: S3StorageConfig) => ({
  STORAGE: "s3",
  S3_ENDPOINT: config.endpoint!,
  S3_BUCKET: config.bucket,
  S3_REGION: config.region,
  S3_ACCESS_KEY_ID: config.credentials!.accessKeyId,
  S3_SECRET_ACCESS_KEY: config.credentials!.secretAccessKey,
  S3_FORCE_PATH_STYLE: "1",
});

type Query = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** The demo's picture message in `databaseUrl`: its id, and its file's row (to point at another object). */
async function demoPicture(databaseUrl: string) {
  return withDatabase({ databaseUrl, dataDir: undefined }, async (query: Query) => {
    const [row] = await query(
      `select m.id as message, f.id as file, f.size from messages m join media_files f on f.id = m.media_file_id
       join users u on u.organization_id = m.organization_id
       where u.email = $1 and f.mime_type like 'image/%' order by m.created_at limit 1`,
      [DEMO.email],
    );
    if (!row) throw new Error("the demo's seed has no picture message");
    return { message: String(row.message), file: String(row.file), size: Number(row.size) };
  });
}

/** Points the message's file row at `stored` (a 1 MB object written to that server's store). */
async function repoint(databaseUrl: string, file: string, stored: { key: string; size: number; sha256: string }) {
  await withDatabase({ databaseUrl, dataDir: undefined }, (query: Query) =>
    query(`update media_files set storage_key = $1, size = $2, sha256 = $3 where id = $4`, [stored.key, stored.size, stored.sha256, file]),
  );
}

/** One download through the route, drained: the bytes received (checked against the file's size) and when its headers came (ms). */
async function downloadThrough(url: string, cookie: string) {
  const started = performance.now();
  const answer = await fetch(url, { headers: { cookie } });
  const headersMs = performance.now() - started;
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
  return { bytes: (await answer.arrayBuffer()).byteLength, headersMs };
}

const SIDES = ["local", "s3", "s3Redirect"] as const;
type Side = (typeof SIDES)[number];

/**
 * The media download route on built servers of one run, each with a database of its own (the demo
 * seeded): files in the local folder, in the S3 sandbox streamed through Jumbe, and in the sandbox
 * handed out by a 302 to a presigned URL (fetch follows it, as a browser does). The demo's picture as
 * seeded, then the same message's file replaced by 64 KB and by 1 MB on each. Alternating, after a warm-up.
 */
async function routeRun(sandbox: S3StorageConfig, reads: number) {
  const postgres = await startPrivatePostgres();
  const databaseOf = (side: Side) => postgres.url.replace(/\/jumbe$/, `/jumbe_${side.toLowerCase()}`);
  await withDatabase({ databaseUrl: postgres.url.replace(/\/jumbe$/, "/postgres"), dataDir: undefined }, async (query: Query) => {
    for (const side of SIDES) await query(`create database jumbe_${side.toLowerCase()}`);
  });
  const environments: Record<Side, Record<string, string>> = {
    local: { STORAGE: "local" },
    s3: s3Env(sandbox),
    s3Redirect: { ...s3Env(sandbox), STORAGE_DOWNLOADS: "redirect" },
  };
  const servers: { baseUrl: string; dataDir: string; stop: () => Promise<void> }[] = [];
  try {
    const sides = {} as Record<Side, { url: string; cookie: string; file: string; size: number; databaseUrl: string; store: FileStorage }>;
    for (const side of SIDES) {
      const databaseUrl = databaseOf(side);
      const server = await startServer({ root, databaseUrl, extraEnv: environments[side] });
      servers.push(server);
      const picture = await demoPicture(databaseUrl);
      sides[side] = {
        url: `${server.baseUrl}/chat/media/${picture.message}`,
        cookie: await signIn(server.baseUrl, DEMO),
        file: picture.file,
        size: picture.size,
        databaseUrl,
        store: side === "local" ? localFileStorage(path.join(server.dataDir, "media")) : s3FileStorage(sandbox),
      };
    }
    const measure = async (bytes: number) => {
      const times = Object.fromEntries(SIDES.map((side) => [side, [] as number[]])) as Record<Side, number[]>;
      const firstBytes = Object.fromEntries(SIDES.map((side) => [side, [] as number[]])) as Record<Side, number[]>;
      for (let i = -20; i < reads; i++)
        for (const side of SIDES) {
          const started = performance.now();
          const got = await downloadThrough(sides[side].url, sides[side].cookie);
          if (i >= 0) times[side].push(performance.now() - started);
          if (i >= 0) firstBytes[side].push(got.headersMs);
          if (got.bytes !== bytes) throw new Error(`${side} sent ${got.bytes} bytes, not ${bytes}`);
        }
      const ms = Object.fromEntries(SIDES.map((side) => [side, median(times[side])])) as Record<Side, number>;
      // Until the answer's headers: the session, the permission and file queries, and (streamed) the store's answer; (redirect) the 302 and the store's.
      const headersMs = Object.fromEntries(SIDES.map((side) => [side, median(firstBytes[side])])) as Record<Side, number>;
      return { bytes, ms, headersMs, s3Ratio: ms.s3 / ms.local, redirectRatio: ms.s3Redirect / ms.local };
    };
    /** Each side's message file replaced by `bytes` bytes, written to that side's store. */
    const replace = async (bytes: number) => {
      for (const side of SIDES) {
        const { databaseUrl, store, file } = sides[side];
        const organisationId = await withDatabase({ databaseUrl, dataDir: undefined }, async (query: Query) =>
          String((await query(`select organization_id from users where email = $1`, [DEMO.email]))[0]!.organization_id),
        );
        await repoint(
          databaseUrl,
          file,
          await store.write([Buffer.alloc(bytes, 9)], { maxBytes: bytes, organisationId, contentType: "image/png" }),
        );
      }
    };
    const picture = await measure(sides.local.size);
    await replace(64 * 1024);
    const kb64 = await measure(64 * 1024);
    await replace(MB);
    const megabyte = await measure(MB);
    return { picture, kb64, megabyte };
  } finally {
    for (const server of servers) await server.stop();
    postgres.destroy();
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-storage-"));
  const sandbox = await startSandboxProcess();
  try {
    const local = localFileStorage(dir);
    const s3 = s3FileStorage(sandbox.config);
    const oneMb = Buffer.alloc(MB, 7);
    const [localKey, s3Key] = [
      (await local.write([oneMb], { maxBytes: MB, organisationId: ORG })).key,
      (await s3.write([oneMb], { maxBytes: MB, organisationId: ORG })).key,
    ];
    const reads = Number(values.reads);
    // Where the time goes: the same object by a presigned URL and fetch (no SDK on the way: the
    // store's own time and the loopback hop), and a plain HTTP server sending the local file (the
    // floor of any store across HTTP).
    const presigned = await s3FileStorage({ ...sandbox.config, downloads: "redirect" }).downloadUrl(s3Key, {
      contentType: "application/octet-stream",
      contentDisposition: "attachment",
    });
    const plain = createServer((req, res) => {
      res.writeHead(200, { "Content-Length": String(MB) });
      createReadStream(path.join(dir, localKey)).pipe(res);
    }).listen(0, "127.0.0.1");
    await once(plain, "listening");
    const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
    const ways = {
      local: () => local.read(localKey).then(drain),
      s3: () => s3.read(s3Key).then(drain),
      presignedFetch: () => fetch(presigned!).then((r) => r.arrayBuffer()),
      plainHttpFetch: () => fetch(plainUrl).then((r) => r.arrayBuffer()),
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
    for (let i = -20; i < reads; i++)
      for (const [name, way] of Object.entries(ways)) {
        const started = performance.now();
        await way();
        if (i >= 0) times[name]!.push(performance.now() - started);
      }
    s3.client.destroy();
    plain.close();
    const ms = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)]));
    const download = { ms, ratio: ms.s3! / ms.local!, plainHttpRatio: ms.plainHttpFetch! / ms.local! };
    const memory = {
      localWrite: runChild("local-write", null, dir),
      s3Write: runChild("s3-write", sandbox.config, dir),
      localBlob: runChild("local-blob", null, dir),
      s3Blob: runChild("s3-blob", sandbox.config, dir),
    };
    const route = values.route ? await routeRun(sandbox.config, reads) : null;
    const result = { cpus: os.cpus().length, loadAverage: os.loadavg(), reads, download, memory, route };
    if (values.json) console.log(JSON.stringify(result));
    else {
      console.log(`${result.cpus} cores, load average at the end ${result.loadAverage.map((n) => n.toFixed(2)).join(" ")}`);
      console.log(
        `1 MB read, median of ${reads} (ms): ${Object.entries(download.ms)
          .map(([name, value]) => `${name} ${value.toFixed(2)}`)
          .join(", ")}; S3/local ${download.ratio.toFixed(2)}x, plain HTTP/local ${download.plainHttpRatio.toFixed(2)}x`,
      );
      if (route)
        for (const [name, r] of Object.entries(route))
          console.log(
            `GET /chat/media/:id (${name}, ${r.bytes} bytes), median of ${reads} (ms): local ${r.ms.local.toFixed(2)}, s3 streamed ${r.ms.s3.toFixed(2)}, s3 redirect ${r.ms.s3Redirect.toFixed(2)}; S3/local ${r.s3Ratio.toFixed(2)}x streamed, ${r.redirectRatio.toFixed(2)}x redirect; until the headers ${SIDES.map((side) => `${side} ${r.headersMs[side].toFixed(2)}`).join(", ")}`,
          );
      for (const [name, m] of Object.entries(memory))
        console.log(
          `16 MB ${name}: peak RSS +${m.peakAboveMb.toFixed(1)} MB above the start${m.maxRssMb ? ` (maxRSS ${m.maxRssMb.toFixed(0)} MB)` : ""}, ${m.ms.toFixed(0)} ms`,
        );
    }
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.sandbox) await serveSandbox();
else if (values.child) {
  const config = values.config ? (JSON.parse(values.config) as S3StorageConfig) : null;
  const storage = config ? s3FileStorage(config) : localFileStorage(values.dir!);
  await child(values.child, storage);
  process.exit(0);
} else await main();
