// The contacts CSV import (issue 13) at 100,000 rows, on PostgreSQL and on PGlite:
//
//   node bench/run.mjs --contacts-import-only                        (PostgreSQL: a private cluster; then PGlite)
//   node bench/run.mjs --contacts-import-only --contacts-import-rows 20000
//
// - a CSV file written for the run: name (Swahili names, some with emoji), phone (the Kenyan forms
//   people type: 07.., 2547.., +254 7.. ..), tags; 2% of the rows have a number that cannot be real
//   and 5% repeat an earlier row's number (written another way);
// - the production build (node build/server/index.js, its job workers on) on a private PostgreSQL
//   cluster (fsync off, as --private-postgres) and then on its embedded PGlite; the demo tenant
//   uploads the file through the import page (multipart, streamed), maps the columns, and the job
//   runs; the time is the import's own (started_at to finished_at, from the database), and also
//   from the mapping's POST to the finished page as a client sees it;
// - the server's resident memory sampled every 100 ms from /proc during the import (the peak, and
//   the figure before the upload), and the same for a file a tenth of the size (other numbers,
//   imported first), to show whether memory grows with the file;
// - the bare baseline: the same file through Jumbe's own CSV reader and phone check in a process
//   of its own, with no database (bench/lib/contacts-parse.ts), its time and peak memory.
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { once } from "node:events";
import { startPrivatePostgres, withDatabase } from "./lib/database.mjs";
import { request, signIn } from "./lib/http.mjs";
import { startServer } from "./lib/server.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const FIRST = ["Wanjiku", "Otieno", "Mũthoni", "Kamau", "Achieng'", "Njeri", "Mwangi", "Zuhura", "Baraka", "Amani", "Nyambura", "Kiprono"];
const LAST = ["Kariuki", "Odhiambo", "Wafula", "Chebet", "Mohamed", "Mutua", "Wairimu", "Ng'ang'a", "Omondi", "Juma"];
const TAGS = ["vip", "mteja", "nairobi", "mombasa", "kisumu", "wholesale", "retail", "2026"];

/** The number of row i, in one of the ways people write Kenyan numbers. */
function phoneOf(i, form) {
  const digits = String(10_000_000 + i).slice(-8);
  const prefix = i % 3 === 0 ? "1" : "7";
  switch (form % 4) {
    case 0:
      return `0${prefix}${digits}`;
    case 1:
      return `254${prefix}${digits}`;
    case 2:
      return `+254 ${prefix}${digits.slice(0, 2)} ${digits.slice(2, 5)} ${digits.slice(5)}`;
    default:
      return `0${prefix}${digits.slice(0, 2)} ${digits.slice(2, 5)} ${digits.slice(5)}`;
  }
}

/** Writes the file; answers its size and what it holds. */
export async function writeContactsCsv(file, rows, { offset = 0 } = {}) {
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write("\uFEFFName,Phone,Tags\r\n");
  let invalid = 0;
  let duplicates = 0;
  let unique = 0;
  for (let i = 0; i < rows; i++) {
    const name = `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]}${i % 50 === 0 ? " 🌍" : ""}`;
    const tags = `"${TAGS[i % TAGS.length]},${TAGS[(i * 3 + 1) % TAGS.length]}"`;
    let phone;
    if (i % 50 === 49) {
      phone = `07${String(i % 1000).padStart(3, "0")}`; // 2%: too short to be a number
      invalid++;
    } else if (i % 20 === 10 && unique > 0) {
      phone = phoneOf(offset + ((i * 7919) % unique), i + 1); // 5%: an earlier row's number, written another way
      duplicates++;
    } else {
      phone = phoneOf(offset + unique++, i);
    }
    await write(`${name},${phone},${tags}\r\n`);
  }
  out.end();
  await once(out, "finish");
  return { rows, invalid, duplicates, unique, bytes: statSync(file).size };
}

const rssOf = (pid) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb * 1024 : null;
  } catch {
    return null;
  }
};

/** One import through the pages: upload, map, wait for the end. */
async function importThroughPages(server, cookie, file, fileName) {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, readFileSync(file), tail]);
  const headers = { Cookie: cookie, Origin: server.baseUrl };
  const rssBefore = rssOf(server.pid);
  let rssPeak = rssBefore ?? 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rssPeak = Math.max(rssPeak, rssOf(server.pid) ?? 0);
      await sleep(100);
    }
  })();
  try {
    const uploadStarted = performance.now();
    const uploaded = await request(`${server.baseUrl}/messaging/contacts/import`, {
      method: "POST",
      headers: { ...headers, "Content-Type": `multipart/form-data; boundary=${boundary}`, "Content-Length": String(body.length) },
      body,
    });
    const uploadSeconds = (performance.now() - uploadStarted) / 1000;
    const location = uploaded.headers.location;
    if (uploaded.status !== 302 || !location)
      throw new Error(`upload answered ${uploaded.status}: ${uploaded.body.toString("utf8").slice(0, 300)}`);
    const id = /import\/([0-9a-f-]{36})/.exec(location)?.[1];
    const mapped = await request(`${server.baseUrl}${location}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        column0: "name",
        column1: "phone",
        column2: "tags",
        duplicates: "update",
        consentEvidence: "",
      }).toString(),
    });
    if (mapped.status !== 302) throw new Error(`mapping answered ${mapped.status}: ${mapped.body.toString("utf8").slice(0, 300)}`);
    const started = performance.now();
    for (;;) {
      const page = (await request(`${server.baseUrl}${location}`, { headers: { Cookie: cookie } })).body.toString("utf8");
      if (page.includes("Import finished") || page.includes("Import failed")) {
        const count = (name) => Number((new RegExp(`data-count="${name}"[^>]*>([\\d,]+)<`).exec(page)?.[1] ?? "NaN").replace(/,/g, ""));
        return {
          id,
          failed: page.includes("Import failed"),
          clientSeconds: (performance.now() - started) / 1000,
          uploadSeconds,
          counts: { created: count("created"), updated: count("updated"), skipped: count("skipped"), invalid: count("invalid") },
          rssBeforeBytes: rssBefore,
          rssPeakBytes: rssPeak,
        };
      }
      await sleep(200);
    }
  } finally {
    sampling = false;
    await sampler;
  }
}

/** The import's own time from the database (started_at to finished_at). */
async function importSeconds(where, id) {
  return withDatabase(where, async (query) => {
    const [row] = await query(`select extract(epoch from finished_at - started_at)::float8 as seconds from contact_imports where id = $1`, [
      id,
    ]);
    return row ? Number(row.seconds) : null;
  });
}

async function runOn(kind, { root, accounts, big, small, log }) {
  const cluster = kind === "postgres" ? await startPrivatePostgres() : null;
  let server;
  try {
    server = await startServer({ root, databaseUrl: cluster?.url });
    const cookie = await signIn(server.baseUrl, accounts.individual);
    log(`  ${kind}: ${small.rows.toLocaleString("en-US")} rows ...`);
    const first = await importThroughPages(server, cookie, small.file, "small.csv");
    log(`  ${kind}: ${big.rows.toLocaleString("en-US")} rows ...`);
    const second = await importThroughPages(server, cookie, big.file, "contacts.csv");
    await server.stop({ keepDataDir: kind === "pglite" });
    const where = cluster ? { databaseUrl: cluster.url } : { dataDir: server.dataDir };
    first.seconds = await importSeconds(where, first.id);
    second.seconds = await importSeconds(where, second.id);
    return { small: first, big: second };
  } finally {
    if (server) {
      await server.stop().catch(() => undefined);
      server.removeDataDir();
    }
    cluster?.destroy();
  }
}

export async function benchContactsImport({ root, accounts, rows = 100_000, log = console.log }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-import-"));
  try {
    const big = { file: path.join(dir, "contacts.csv"), ...(await writeContactsCsv(path.join(dir, "contacts.csv"), rows)) };
    const smallRows = Math.max(1000, Math.round(rows / 10));
    const small = {
      file: path.join(dir, "small.csv"),
      ...(await writeContactsCsv(path.join(dir, "small.csv"), smallRows, { offset: 500_000 })),
    };
    log(
      `  file: ${big.rows.toLocaleString("en-US")} rows, ${(big.bytes / 1e6).toFixed(1)} MB, ${big.invalid} invalid, ${big.duplicates} duplicates`,
    );
    const parsed = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "bench/lib/contacts-parse.ts"), big.file], {
      cwd: root,
      encoding: "utf8",
    });
    if (parsed.status !== 0) throw new Error(`the baseline failed: ${parsed.stderr.slice(0, 500)}`);
    const baseline = JSON.parse(parsed.stdout.trim().split("\n").at(-1));
    const result = { file: { ...big, file: undefined }, smallFile: { ...small, file: undefined }, baseline };
    for (const kind of ["postgres", "pglite"]) {
      try {
        result[kind] = await runOn(kind, { root, accounts, big, small, log });
      } catch (error) {
        result[kind] = { problem: error instanceof Error ? error.message : String(error) };
      }
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (bytes) => (typeof bytes === "number" ? (bytes / 2 ** 20).toFixed(0) : "-");

export function formatContactsImport(result, { table }) {
  if (result.problem) return `  not measured: ${result.problem}`;
  const { file, baseline } = result;
  const lines = [
    `Contacts import: ${file.rows.toLocaleString("en-US")} rows (${(file.bytes / 1e6).toFixed(1)} MB; ${file.invalid} invalid, ${file.duplicates} duplicates; duplicates update)`,
  ];
  const rows = [
    [
      "baseline: CSV reader + phone check, no database",
      baseline.rows,
      baseline.seconds.toFixed(2),
      "-",
      Math.round(baseline.rows / baseline.seconds),
      "-",
      mb(baseline.peakRssBytes),
      "-",
    ],
  ];
  for (const kind of ["postgres", "pglite"]) {
    const run = result[kind];
    if (!run || run.problem) {
      rows.push([kind, "-", "-", "-", "-", "-", "-", run?.problem?.slice(0, 80) ?? "not run"]);
      continue;
    }
    for (const [label, r, size] of [
      ["", run.big, file.rows],
      [" (a tenth)", run.small, result.smallFile.rows],
    ])
      rows.push([
        `${kind}${label}`,
        size,
        typeof r.seconds === "number" ? r.seconds.toFixed(2) : "-",
        r.clientSeconds.toFixed(2),
        typeof r.seconds === "number" ? Math.round(size / r.seconds) : "-",
        mb(r.rssBeforeBytes),
        mb(r.rssPeakBytes),
        `${r.counts.created}/${r.counts.updated}/${r.counts.skipped}/${r.counts.invalid}${r.failed ? " FAILED" : ""}`,
      ]);
  }
  lines.push(
    table(["case", "rows", "import s", "client s", "rows/s", "RSS before MB", "RSS peak MB", "created/updated/skipped/invalid"], rows),
  );
  return lines.join("\n");
}
