// Access to the database a stopped benchmark server used (read-only): PostgreSQL through its URL, or
// PGlite through the server's DATA_DIR (PGlite's files serve one process at a time, so only after
// the server has exited). And a private PostgreSQL cluster for a benchmark run.
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { childProcesses } from "./proc.mjs";
import { freePort } from "./server.mjs";

/** Runs `work(query)` against the database, then closes it; query(text, params) resolves to rows. */
export async function withDatabase({ databaseUrl, dataDir }, work) {
  if (databaseUrl) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await work(async (text, params) => (await client.query(text, params)).rows);
    } finally {
      await client.end();
    }
  }
  const { PGlite } = await import("@electric-sql/pglite");
  // The server's extensions (app/.server/infrastructure/db/pglite-extensions.ts: pg_trgm, not btree_gin,
  // decision 179), or tables with their indexes cannot be written.
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const client = await PGlite.create(path.join(dataDir, "pglite"), { extensions: { pg_trgm } });
  try {
    return await work(async (text, params) => (await client.query(text, params)).rows);
  } finally {
    await client.close();
  }
}

/** The settings that decide whether a PostgreSQL commit waits for the disk (null for PGlite). */
export async function postgresDurability(databaseUrl) {
  if (!databaseUrl) return null;
  const rows = await withDatabase({ databaseUrl }, (query) =>
    query(
      `select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method') order by name`,
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
}

/** PostgreSQL's programs: Debian's 15, else `pg_config --bindir`; undefined when there are none. */
export function postgresBinDir() {
  const candidates = ["/usr/lib/postgresql/15/bin"];
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    // no pg_config
  }
  return candidates.find((dir) => dir && ["initdb", "pg_ctl", "postgres"].every((bin) => existsSync(path.join(dir, bin))));
}

/**
 * A PostgreSQL cluster of the benchmark's own, as scripts/with-postgres.sh makes one: a temporary
 * directory, 127.0.0.1 on a free port, trust auth, fsync and synchronous_commit off (the data is
 * thrown away), owned by `postgres` when running as root (initdb refuses root). Resolves to
 * { url, settings, processIds, destroy } with url the cluster's `jumbe` database and processIds()
 * the cluster's processes now (the postmaster and its children: backends, writers), for CPU figures.
 * `extraSettings` adds postgresql.conf lines (bench/sending.mjs loads pg_stat_statements).
 */
export async function startPrivatePostgres({ maxConnections = 200, extraSettings = {} } = {}) {
  const bindir = postgresBinDir();
  if (!bindir) throw new Error("PostgreSQL binaries not found (/usr/lib/postgresql/15/bin or pg_config --bindir)");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-pg-"));
  const data = path.join(dir, "data");
  if (asRoot) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, id("-u"), id("-g"));
  }
  chmodSync(dir, 0o700);
  const run = (bin, args) => {
    const [command, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", path.join(bindir, bin), ...args]]
      : [path.join(bindir, bin), args];
    const result = spawnSync(command, argv, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  };
  const destroy = () => {
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // not running
    }
    // BENCH_POSTGRES_LOG=<file>: the cluster's log kept there (with BENCH_AUTO_EXPLAIN_MS, the plans of slow statements).
    if (process.env.BENCH_POSTGRES_LOG) {
      try {
        copyFileSync(path.join(dir, "server.log"), process.env.BENCH_POSTGRES_LOG);
      } catch {
        // no log written
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
    const port = await freePort();
    const settings = {
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
      max_connections: String(maxConnections),
      ...extraSettings,
      // BENCH_POSTGRES_SETTINGS="jit=off,work_mem=8MB": more postgresql.conf lines, for a run that compares settings.
      ...Object.fromEntries(
        (process.env.BENCH_POSTGRES_SETTINGS ?? "")
          .split(",")
          .filter((pair) => pair.includes("="))
          .map((pair) => [pair.slice(0, pair.indexOf("=")).trim(), pair.slice(pair.indexOf("=") + 1).trim()]),
      ),
      // BENCH_AUTO_EXPLAIN_MS=<ms>: the plan (with row counts, without per-node timing) of every statement slower than that.
      ...(process.env.BENCH_AUTO_EXPLAIN_MS
        ? {
            shared_preload_libraries: `'${[extraSettings.shared_preload_libraries?.replace(/'/g, ""), "auto_explain"].filter(Boolean).join(",")}'`,
            "auto_explain.log_min_duration": `'${Number(process.env.BENCH_AUTO_EXPLAIN_MS)}ms'`,
            "auto_explain.log_analyze": "on",
            "auto_explain.log_timing": "off",
            "auto_explain.log_buffers": "on",
            // And who waited on whom: a wait past 100 ms is logged with the holder's process.
            log_lock_waits: "on",
            deadlock_timeout: "'100ms'",
            log_line_prefix: "'%m [%p] %x '",
          }
        : {}),
    };
    appendFileSync(
      path.join(data, "postgresql.conf"),
      `\n# bench/lib/database.mjs\nlisten_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = '${dir}'\n` +
        Object.entries(settings)
          .map(([name, value]) => `${name} = ${value}\n`)
          .join(""),
    );
    run("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-w", "-t", "60", "start"]);
    await withDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres` }, (query) => query("create database jumbe"));
    const postmaster = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const processIds = () => [postmaster, ...childProcesses(postmaster)];
    // socketUrl: the same database through its Unix socket (no loopback TCP in either process's time).
    const socketUrl = `postgres://postgres@localhost/jumbe?host=${encodeURIComponent(dir)}&port=${port}`;
    return { url: `postgres://postgres@127.0.0.1:${port}/jumbe`, socketUrl, settings, processIds, destroy };
  } catch (error) {
    destroy();
    throw error;
  }
}
