import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, chmodSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

/** Debian's PgBouncer, or the first on PATH; undefined when there is none. */
export function findPgBouncer(): string | undefined {
  const candidates = ["/usr/sbin/pgbouncer", ...(process.env.PATH ?? "").split(":").map((dir) => path.join(dir, "pgbouncer"))];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
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
}

/**
 * PgBouncer in front of the PostgreSQL server of `upstreamUrl`, as a child process in the foreground
 * with its configuration, log and pid file in a temporary folder: `pool_mode` (transaction unless
 * said), at most `poolSize` server connections per database and user, every database of the server
 * (`* =`), trust authentication as the test cluster has. As root it drops to `runAs` (PgBouncer
 * refuses to run as root), hence a folder others may read.
 */
export async function startPgBouncer(
  binary: string,
  upstreamUrl: string,
  options: { poolSize: number; mode?: "transaction" | "session"; runAs?: string },
): Promise<RunningPgBouncer> {
  const upstream = new URL(upstreamUrl);
  const user = decodeURIComponent(upstream.username || "postgres");
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "jumbe-pgbouncer-"));
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, "userlist.txt"), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      `admin_users = ${user}`,
      `pool_mode = ${options.mode ?? "transaction"}`,
      `default_pool_size = ${options.poolSize}`,
      "min_pool_size = 0",
      "reserve_pool_size = 0",
      "max_client_conn = 400",
      "",
    ].join("\n"),
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
  // Ready once the console answers (a deadline, not a number of tries).
  const deadline = Date.now() + 30_000;
  let last: unknown;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      await admin("SHOW VERSION");
      return { pid: child.pid!, through, admin, output: () => output, stop };
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
