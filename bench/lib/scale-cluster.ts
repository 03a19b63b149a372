// The PostgreSQL 15 cluster of bench/scale-db.ts: a data directory that outlives one run (generate,
// then measure, then the retention bench, each a run of its own), under /work/wt/h7-data by default
// (SCALE_DB_DIR): the generated database is tens of gigabytes, too large for a small /tmp.
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { postgresBinDir } from "./database.mjs";

export interface ScaleCluster {
  url: string;
  dir: string;
  /** Restarts with these settings (`-c name=value`), e.g. fsync on for the retention bench. */
  restart(settings: Record<string, string>): void;
  stop(): void;
  destroy(): void;
}

/** Loading tens of millions of rows: a larger cache and fewer checkpoints; nothing durable (the data is thrown away). */
const LOAD_SETTINGS: Record<string, string> = {
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  shared_buffers: "'2GB'",
  effective_cache_size: "'8GB'",
  work_mem: "'32MB'",
  maintenance_work_mem: "'1GB'",
  max_wal_size: "'16GB'",
  checkpoint_timeout: "'30min'",
  max_connections: "50",
  max_parallel_workers_per_gather: "1",
  max_parallel_maintenance_workers: "1",
  log_min_duration_statement: "-1",
  session_preload_libraries: "'auto_explain'",
  "auto_explain.log_min_duration": "-1",
  "auto_explain.log_analyze": "on",
  "auto_explain.log_buffers": "on",
  "auto_explain.log_timing": "on",
  "auto_explain.log_nested_statements": "on",
  "auto_explain.log_format": "'json'",
};

export function clusterDir() {
  return process.env.SCALE_DB_DIR ?? "/work/wt/h7-data";
}

/** Starts the cluster in `dir` (made with initdb the first time); resolves to its `jumbe` database's URL. */
export async function openScaleCluster(dir = clusterDir()): Promise<ScaleCluster> {
  const bindir = postgresBinDir();
  if (!bindir) throw new Error("PostgreSQL binaries not found (/usr/lib/postgresql/15/bin or pg_config --bindir)");
  const asRoot = process.getuid?.() === 0;
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  const run = (bin: string, args: string[], allowFailure = false) => {
    const [command, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", path.join(bindir, bin), ...args]]
      : [path.join(bindir, bin), args];
    const result = spawnSync(command, argv, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0 && !allowFailure) throw new Error(`${bin} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
    return result.status === 0;
  };
  const portFile = path.join(dir, "port");
  if (!existsSync(path.join(data, "PG_VERSION"))) {
    mkdirSync(dir, { recursive: true });
    if (asRoot) {
      const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
      chownSync(dir, id("-u"), id("-g"));
    }
    chmodSync(dir, 0o700);
    run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
    const port = 20000 + Math.floor(Math.random() * 20000);
    writeFileSync(portFile, String(port));
    appendFileSync(
      path.join(data, "postgresql.conf"),
      `\n# bench/lib/scale-cluster.ts\nlisten_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = '${dir}'\n` +
        Object.entries(LOAD_SETTINGS)
          .map(([name, value]) => `${name} = ${value}\n`)
          .join(""),
    );
  }
  const port = Number(readFileSync(portFile, "utf8"));
  const running = () => run("pg_ctl", ["-D", data, "status"], true);
  const start = (settings: Record<string, string> = {}) => {
    const options = Object.entries(settings)
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(" ");
    run("pg_ctl", ["-D", data, "-l", logFile, "-w", "-t", "300", ...(options ? ["-o", options] : []), "start"]);
  };
  const stop = () => {
    if (running()) run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "300", "stop"]);
  };
  if (!running()) start();
  const url = `postgres://postgres@127.0.0.1:${port}/jumbe`;
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  const exists = await admin.query(`select 1 from pg_database where datname = 'jumbe'`);
  if (!exists.rowCount) await admin.query("create database jumbe");
  await admin.end();
  return {
    url,
    dir,
    restart(settings) {
      stop();
      start(settings);
    },
    stop,
    destroy() {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
