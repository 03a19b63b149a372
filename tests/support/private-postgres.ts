import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./built-server";

/**
 * A PostgreSQL cluster of a test's own, made the way scripts/with-postgres.sh makes one (a temporary
 * directory, 127.0.0.1 only, trust auth, fsync off; owned by `postgres` when running as root), for
 * tests that stop and start the server: the shared cluster of the PostgreSQL pass stays untouched.
 */
export interface PrivateCluster {
  /** postgres://... of the cluster's `jumbe` database. */
  url: string;
  /** `pg_ctl stop -m fast`: sessions are terminated and new connections refused, as in a restart. */
  stop(): void;
  start(): void;
  /**
   * SIGSTOP to the server and every backend: connections stay open and nothing answers, as a
   * database host that hangs. `thaw` (SIGCONT) lets it go on.
   */
  freeze(): void;
  thaw(): void;
  /** Runs one statement as the superuser on the cluster's `postgres` database. */
  query(text: string): Promise<unknown[]>;
  destroy(): void;
}

export function postgresBinDir(): string | undefined {
  const candidates = ["/usr/lib/postgresql/15/bin"];
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // no pg_config
  }
  return candidates.find((dir) => dir && ["initdb", "pg_ctl", "postgres"].every((bin) => existsSync(path.join(dir, bin))));
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const bindir = postgresBinDir();
  if (!bindir) throw new Error("PostgreSQL binaries not found (/usr/lib/postgresql/15/bin or pg_config --bindir)");
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "jumbe-pg-private-"));
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const run = (bin: string, args: string[]) => {
    const command = root ? "runuser" : path.join(bindir, bin);
    const argv = root ? ["-u", "postgres", "--", path.join(bindir, bin), ...args] : args;
    const result = spawnSync(command, argv, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  };
  run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  appendFileSync(
    path.join(data, "postgresql.conf"),
    `\nlisten_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = '${dir}'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 100\n`,
  );
  const start = () => run("pg_ctl", ["-D", data, "-l", logFile, "-w", "-t", "60", "start"]);
  const stop = () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
  start();
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const query = async (text: string) => {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      return (await client.query(text)).rows as unknown[];
    } finally {
      await client.end();
    }
  };
  await query("create database jumbe");
  const signalAll = (signal: "SIGSTOP" | "SIGCONT") => {
    const postmaster = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = spawnSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .map(Number);
    process.kill(postmaster, signal);
    for (const pid of children) {
      try {
        process.kill(pid, signal);
      } catch (error) {
        // A backend that ended between the listing and the signal (its client went): nothing to stop.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/jumbe`,
    stop,
    start,
    freeze: () => signalAll("SIGSTOP"),
    thaw: () => signalAll("SIGCONT"),
    query,
    destroy() {
      try {
        signalAll("SIGCONT");
      } catch {
        // not running
      }
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
