#!/usr/bin/env node
// A newcomer's first start (issue 75, decision 118): on a fresh copy of the repository (node_modules
// linked, so the install is left out), the production build (`npm run build`: the browser, then the
// server) and then `npm run serve` until the first page answers 200. `npm start` is exactly these two
// in sequence (package.json), so the first start is their sum. The baseline (by default `main`) and
// the candidate (by default HEAD) are each measured in the same run on a fresh copy of their own,
// alternating, so a busy machine weighs on both alike.
//
//   node bench/first-start.mjs                          (main against HEAD, one round)
//   node bench/first-start.mjs --baseline 1b64d51e --candidate HEAD --rounds 2
//   node bench/first-start.mjs --only HEAD              (no baseline)
//
// For each: wall seconds and CPU seconds (user + system, every process of the step: /usr/bin/time's
// figures for the build, /proc for the server up to its first page), the modules each environment
// transformed, the server's bundle, and whether the browser's files are byte for byte the
// baseline's (what the browser downloads must not change). Figures only, never a pass/fail check;
// the machine's load average is printed beside them.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort } from "./lib/server.mjs";
import { childProcesses, cpuSeconds } from "./lib/proc.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const { values: args } = parseArgs({
  options: {
    baseline: { type: "string", default: "main" },
    candidate: { type: "string", default: "HEAD" },
    only: { type: "string" },
    rounds: { type: "string", default: "1" },
    "first-page-timeout": { type: "string", default: "600" },
    keep: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(
    readFileSync(fileURLToPath(import.meta.url), "utf8")
      .split("\n")
      .slice(1, 17)
      .join("\n"),
  );
  process.exit(0);
}

const git = (...argv) => execFileSync("git", argv, { cwd: root, encoding: "utf8" }).trim();
const refs = args.only ? [args.only] : [args.baseline, args.candidate];
const commits = refs.map((ref) => ({ ref, sha: git("rev-parse", "--verify", `${ref}^{commit}`) }));
const rounds = Math.max(1, Number(args.rounds) || 1);
const work = mkdtempSync(path.join(os.tmpdir(), "jumbe-first-start-"));
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

/** A fresh copy of a commit: a clone sharing this repository's objects, its own files, no build, no data, no compiled words. */
function freshCopy(sha, name) {
  const dir = path.join(work, name);
  execFileSync("git", ["clone", "--quiet", "--shared", "--no-checkout", root, dir]);
  execFileSync("git", ["-C", dir, "checkout", "--quiet", "--detach", sha]);
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

/** The environment a newcomer's shell gives `npm start`: nothing of this project's, a port of its own. */
function newcomerEnv(port) {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(NODE_ENV|DEPLOYMENT|APP_URL|SITE_URL|DATABASE_URL|DATA_DIR|SANDBOX|DEMO_HOST|HOST|PORT|LOG_|SMTP_|VITE_)/.test(name))
      delete env[name];
  return { ...env, PORT: String(port) };
}

/** Runs a command to its end; wall seconds, CPU seconds of it and every process it waited for, and its output. */
function timed(command, argv, { cwd, env }) {
  const started = process.hrtime.bigint();
  const timeFile = path.join(work, `time-${Date.now()}`);
  const [file, list] = TIME ? [TIME, ["-f", "%U %S", "-o", timeFile, command, ...argv]] : [command, argv];
  return new Promise((resolve, reject) => {
    const child = spawn(file, list, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      const wall = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return reject(new Error(`${command} ${argv.join(" ")} exited with ${code}\n${output.slice(-4000)}`));
      const [user, system] = TIME ? readFileSync(timeFile, "utf8").trim().split("\n").at(-1).split(" ").map(Number) : [NaN, NaN];
      resolve({ wall, cpu: user + system, output });
    });
  });
}

/** CPU seconds of a process and all its descendants now. */
function treeCpu(pid) {
  let total = 0;
  const pending = [pid];
  while (pending.length) {
    const next = pending.pop();
    try {
      total += cpuSeconds(next);
      pending.push(...childProcesses(next));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** `npm run serve` until `/` answers 200: wall and CPU seconds to that first page, then stops it. */
async function serveToFirstPage(cwd) {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn("npm", ["run", "serve"], { cwd, env: newcomerEnv(port), stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (chunk) => (output = (output + chunk).slice(-8000)));
  child.stderr.on("data", (chunk) => (output = (output + chunk).slice(-8000)));
  let exited = null;
  child.on("exit", (code, signal) => (exited = { code, signal }));
  const deadline = Date.now() + Number(args["first-page-timeout"]) * 1000;
  try {
    for (;;) {
      if (exited) throw new Error(`npm run serve exited (${JSON.stringify(exited)}) before its first page\n${output}`);
      if (Date.now() > deadline) throw new Error(`no first page within ${args["first-page-timeout"]} s\n${output}`);
      const status = await fetch(`http://localhost:${port}/`, { redirect: "manual" }).then(
        (response) => response.arrayBuffer().then(() => response.status),
        () => 0,
      );
      if (status === 200) break;
      // Polling the port, not a wait measured: the figure is when the page answered.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { wall: Number(process.hrtime.bigint() - started) / 1e9, cpu: treeCpu(child.pid) };
  } finally {
    // Only the process group this benchmark started.
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((resolve) => (exited ? resolve() : child.once("exit", resolve)));
    // npm exits before the server it started has closed its database: wait for the whole group.
    for (let tries = 0; tries < 300; tries++) {
      try {
        process.kill(-child.pid, 0);
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Bytes of every file under a folder (or those whose name ends so), and one hash of their names and contents. */
function folderDigest(dir, ending = "") {
  const hash = createHash("sha256");
  let bytes = 0;
  let files = 0;
  const walk = (at) => {
    for (const name of readdirSync(at).sort()) {
      const file = path.join(at, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith(ending)) {
        const body = readFileSync(file);
        hash.update(`${path.relative(dir, file)}\0`).update(body);
        bytes += body.length;
        files++;
      }
    }
  };
  walk(dir);
  return { bytes, files, hash: hash.digest("hex").slice(0, 12) };
}

async function measure({ ref, sha }, round) {
  const dir = freshCopy(sha, `${round}-${sha.slice(0, 8)}`);
  const load = os.loadavg()[0];
  const build = await timed("npm", ["run", "build"], { cwd: dir, env: newcomerEnv(0) });
  const transformed = [...build.output.matchAll(/✓ (\d+) modules transformed/g)].map((found) => Number(found[1]));
  const server = folderDigest(path.join(dir, "build/server"), ".js").bytes;
  const serve = await serveToFirstPage(dir);
  const row = {
    ref,
    sha: sha.slice(0, 8),
    round,
    load: Number(load.toFixed(2)),
    buildWall: build.wall,
    buildCpu: build.cpu,
    serveWall: serve.wall,
    serveCpu: serve.cpu,
    firstStart: build.wall + serve.wall,
    clientModules: transformed[0],
    serverModules: transformed[1],
    serverBytes: server,
    client: folderDigest(path.join(dir, "build/client")),
  };
  // The server may still be writing its database as npm exits: retried until the folder is empty.
  if (!args.keep) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  return row;
}

const s = (seconds) => (Number.isFinite(seconds) ? seconds.toFixed(1) : "-");
const mb = (bytes) => (bytes / 1e6).toFixed(2);

const rows = [];
console.log(`First start on a fresh copy, ${os.cpus().length} CPUs; copies under ${work}`);
for (let round = 1; round <= rounds; round++) {
  // Alternate which goes first, so neither always meets the same neighbours on a shared machine.
  const order = round % 2 ? commits : [...commits].reverse();
  for (const commit of order) {
    process.stdout.write(`round ${round}: ${commit.ref} (${commit.sha.slice(0, 8)}) ... `);
    const row = await measure(commit, round);
    rows.push(row);
    console.log(`build ${s(row.buildWall)} s, first page ${s(row.firstStart)} s (load ${row.load})`);
  }
}

console.log(
  "\n| commit | round | load | build wall / CPU s | serve to first page wall / CPU s | first start s | modules client / server | server bundle MB | browser files |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
for (const row of rows)
  console.log(
    `| ${row.ref} \`${row.sha}\` | ${row.round} | ${row.load} | ${s(row.buildWall)} / ${s(row.buildCpu)} | ${s(row.serveWall)} / ${s(row.serveCpu)} | ${s(row.firstStart)} | ${row.clientModules} / ${row.serverModules} | ${mb(row.serverBytes)} | ${row.client.files} files, ${mb(row.client.bytes)} MB, \`${row.client.hash}\` |`,
  );
if (commits.length === 2) {
  const [base, candidate] = commits.map(({ sha }) => rows.filter((row) => row.sha === sha.slice(0, 8)));
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)];
  const ratio = (key) => (median(candidate.map((row) => row[key])) / median(base.map((row) => row[key]))).toFixed(2);
  console.log(
    `\ncandidate / baseline (medians): build wall ${ratio("buildWall")}, build CPU ${ratio("buildCpu")}, serve wall ${ratio("serveWall")}, first start ${ratio("firstStart")}; browser files ${base[0].client.hash === candidate[0].client.hash ? "identical" : "DIFFER"}`,
  );
}
mkdirSync(path.join(root, "bench/results"), { recursive: true });
writeFileSync(path.join(root, "bench/results/first-start.json"), JSON.stringify(rows, null, 2));
if (!args.keep) rmSync(work, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
