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
    const result = { cpus: os.cpus().length, reads, download, memory };
    if (values.json) console.log(JSON.stringify(result));
    else {
      console.log(
        `1 MB read, median of ${reads} (ms): ${Object.entries(download.ms)
          .map(([name, value]) => `${name} ${value.toFixed(2)}`)
          .join(", ")}; S3/local ${download.ratio.toFixed(2)}x, plain HTTP/local ${download.plainHttpRatio.toFixed(2)}x`,
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
