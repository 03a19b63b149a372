import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { findExecutable, freePort } from "./local-tools";

/** Debian's PgBouncer, or the first on PATH; undefined when there is none. */
export const findPgBouncer = () => findExecutable("pgbouncer");

export const SHIPPED_CONFIG = "deploy/pgbouncer/pgbouncer.ini";

/**
 * The shipped PgBouncer configuration made runnable in a test, changing only what a test machine
 * needs: every database of the test cluster (`* =`, each test file has its own) at its address,
 * a free loopback port and no Unix socket, trust authentication as the test cluster has, the pool
 * size asked for (no reserve, the database's ceiling the same), no log or pid file (the child's
 * output; the folder may not be writable once it drops root). Everything else (pool_mode, the
 * reset query, timeouts, the checks) is the file as shipped. Each rewrite must apply, so the test
 * notices when the file changes shape.
 */
export function pgbouncerConfigForTest(
  source: string,
  settings: { upstream: { host: string; port: number }; port: number; poolSize: number; authFile: string; adminUser: string },
) {
  let config = source;
  const rewrite = (pattern: RegExp, replacement: string, what: string) => {
    if (!pattern.test(config)) throw new Error(`${SHIPPED_CONFIG} no longer has ${what} (${pattern}); update tests/support/pgbouncer.ts`);
    config = config.replace(pattern, replacement);
  };
  rewrite(
    /^jumbe = host=\S+ port=\d+ dbname=jumbe$/m,
    `* = host=${settings.upstream.host} port=${settings.upstream.port}`,
    "the jumbe database",
  );
  rewrite(/^listen_port = \d+$/m, `listen_port = ${settings.port}`, "listen_port");
  rewrite(/^listen_addr = .*$/m, "listen_addr = 127.0.0.1", "listen_addr");
  rewrite(/^unix_socket_dir = .*$/m, "unix_socket_dir =", "unix_socket_dir");
  rewrite(/^auth_type = .*$/m, "auth_type = trust", "auth_type");
  rewrite(/^auth_file = .*$/m, `auth_file = ${settings.authFile}`, "auth_file");
  rewrite(/^default_pool_size = \d+$/m, `default_pool_size = ${settings.poolSize}`, "default_pool_size");
  rewrite(/^reserve_pool_size = \d+$/m, "reserve_pool_size = 0", "reserve_pool_size");
  rewrite(/^max_db_connections = \d+$/m, `max_db_connections = ${settings.poolSize}`, "max_db_connections");
  rewrite(/^admin_users = .*$/m, `admin_users = ${settings.adminUser}`, "admin_users");
  rewrite(/^logfile = .*\n/m, "", "logfile");
  rewrite(/^pidfile = .*\n/m, "", "pidfile");
  if (!/^pool_mode = transaction$/m.test(config)) throw new Error(`${SHIPPED_CONFIG} is no longer in transaction pooling`);
  return config;
}

export interface RunningPgBouncer {
  /** PgBouncer's process (its CPU time, for the bench). */
  pid: number;
  /** `url` with PgBouncer's host and port in place of PostgreSQL's (same user and database). */
  through(url: string): string;
  /** A statement on PgBouncer's admin console (`SHOW POOLS`, `SHOW SERVERS`...). */
  admin<Row = Record<string, unknown>>(text: string): Promise<Row[]>;
  output: () => string;
  stop: () => Promise<void>;
  /** SIGKILL, as a machine's crash or the OOM killer ends it (no shutdown), then its folder removed. */
  kill: () => Promise<void>;
}

/**
 * PgBouncer in front of the PostgreSQL server of `upstreamUrl`, as a child process in the foreground,
 * with the shipped configuration (pgbouncerConfigForTest: transaction pooling unless `mode` says
 * session, at most `poolSize` server connections per database) in a temporary folder. As root it
 * drops to `runAs` (PgBouncer refuses to run as root), hence a folder others may read.
 */
export async function startPgBouncer(
  binary: string,
  upstreamUrl: string,
  options: { poolSize: number; mode?: "transaction" | "session"; runAs?: string; port?: number },
): Promise<RunningPgBouncer> {
  const upstream = new URL(upstreamUrl);
  const user = decodeURIComponent(upstream.username || "postgres");
  // A port given: a PgBouncer brought back where the instances' DATABASE_URL points (bench/fault-runs.ts).
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(path.join(tmpdir(), "jumbe-pgbouncer-"));
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, "userlist.txt"), `"${user}" ""\n`);
  const shipped = readFileSync(path.resolve(import.meta.dirname, "../..", SHIPPED_CONFIG), "utf8");
  const config = pgbouncerConfigForTest(shipped, {
    upstream: { host: upstream.hostname, port: Number(upstream.port || 5432) },
    port,
    poolSize: options.poolSize,
    authFile: path.join(dir, "userlist.txt"),
    adminUser: user,
  });
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    options.mode === "session" ? config.replace(/^pool_mode = transaction$/m, "pool_mode = session") : config,
  );
  for (const file of ["userlist.txt", "pgbouncer.ini"]) chmodSync(path.join(dir, file), 0o644);
  const runAs = options.runAs ?? (process.getuid?.() === 0 ? "postgres" : undefined);
  const child: ChildProcess = spawn(binary, [...(runAs ? ["-u", runAs] : []), path.join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const through = (url: string) => {
    const next = new URL(url);
    next.hostname = "127.0.0.1";
    next.port = String(port);
    return next.toString();
  };
  const admin = async <Row>(text: string) => {
    const client = new pg.Client({ host: "127.0.0.1", port, user, database: "pgbouncer" });
    await client.connect();
    try {
      // Without parameters node-postgres sends the simple protocol, the only one the console speaks.
      return (await client.query(text)).rows as Row[];
    } finally {
      await client.end();
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // INT: PgBouncer's immediate shutdown.
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await new Promise((resolve) => child.once("exit", resolve));
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once the console answers (a deadline, not a number of tries).
  const deadline = Date.now() + 30_000;
  let last: unknown;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      await admin("SHOW VERSION");
      return { pid: child.pid!, through, admin, output: () => output, stop, kill };
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const log = `${output}${(() => {
    try {
      return readFileSync(path.join(dir, "pgbouncer.log"), "utf8");
    } catch {
      return "";
    }
  })()}`;
  await stop();
  throw new Error(`PgBouncer did not start (${(last as Error | undefined)?.message ?? "exited"}):\n${log}`);
}
