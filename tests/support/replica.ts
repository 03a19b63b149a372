import { execFile, execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./local-tools";
import { postgresBinDir } from "./private-postgres";

/**
 * A primary and its streaming standby of a test's own (decision 163), from PostgreSQL 15's binaries:
 * the primary with `wal_level = replica` and WAL senders, the standby made by `pg_basebackup -R`
 * (streaming, `standby.signal` and `primary_conninfo` written for it), both on free loopback ports in
 * a temporary directory, trust authentication, fsync off (the data is thrown away). As root, the
 * clusters belong to the `postgres` system user, as scripts/with-postgres.sh makes them.
 */
export interface ReplicatedClusters {
  /** postgres://... of the primary's `jumbe` database. */
  primaryUrl: string;
  /** The same database on the standby. */
  standbyUrl: string;
  /** One statement as the superuser on the primary's or the standby's `jumbe` database. */
  primary(text: string): Promise<Record<string, unknown>[]>;
  standby(text: string): Promise<Record<string, unknown>[]>;
  /** `pg_ctl stop -m fast` on the standby (its connections end, new ones are refused); `startStandby` brings it back. */
  stopStandby(): void;
  startStandby(): void;
  /**
   * SIGKILL to the standby's postmaster, as a crash ends it (no shutdown); resolves once its backends,
   * which notice the postmaster's death, have gone, so `startStandby` finds its shared memory free.
   */
  killStandby(): Promise<void>;
  /** `startStandby` without blocking this process meanwhile (a bench's prober keeps probing). */
  startStandbyInBackground(): Promise<void>;
  destroy(): void;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGKILL to the postmaster of `data` (postmaster.pid's first line), then waits for its children to end. */
async function killPostmaster(data: string) {
  const pid = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = () =>
    spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .map(Number);
  const orphans = children();
  process.kill(pid, "SIGKILL");
  // A hang detector, not a timing: the backends exit within moments of their postmaster's death.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && [pid, ...orphans].some(alive)) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Whether this machine can start them: PostgreSQL's server binaries with pg_basebackup. */
export function replicationAvailable() {
  const bindir = postgresBinDir();
  return !!bindir && existsSync(path.join(bindir, "pg_basebackup"));
}

export async function startReplicatedClusters(): Promise<ReplicatedClusters> {
  const bindir = postgresBinDir();
  if (!bindir) throw new Error("PostgreSQL binaries not found (/usr/lib/postgresql/15/bin or pg_config --bindir)");
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "jumbe-pg-replica-"));
  if (root) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, id("-u"), id("-g"));
  }
  chmodSync(dir, 0o700);
  const command = (bin: string, args: string[]) =>
    root
      ? { file: "runuser", argv: ["-u", "postgres", "--", path.join(bindir, bin), ...args] }
      : { file: path.join(bindir, bin), argv: args };
  const runInBackground = (bin: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const { file, argv } = command(bin, args);
      execFile(file, argv, { cwd: dir, encoding: "utf8" }, (error, stdout, stderr) =>
        error ? reject(new Error(`${bin} ${args.join(" ")} failed:\n${stdout}${stderr}`)) : resolve(),
      );
    });
  const run = (bin: string, args: string[]) => {
    const command = root ? "runuser" : path.join(bindir, bin);
    const argv = root ? ["-u", "postgres", "--", path.join(bindir, bin), ...args] : args;
    const result = spawnSync(command, argv, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  };
  const primaryData = path.join(dir, "primary");
  const standbyData = path.join(dir, "standby");
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const settings = (port: number) =>
    `\nlisten_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = '${dir}'\nfsync = off\nfull_page_writes = off\nmax_connections = 60\n`;
  // The default pg_hba.conf of `initdb -A trust` lets loopback replication connections in.
  run("initdb", ["-D", primaryData, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  appendFileSync(path.join(primaryData, "postgresql.conf"), `${settings(primaryPort)}wal_level = replica\nmax_wal_senders = 4\n`);
  // A start waits up to 180 s: a standby reaches consistency only once the primary's WAL has streamed
  // to it, and under a loaded CI machine that once took over 60 s (the limit guards a hang, it times nothing).
  const pgCtl = (data: string, action: "start" | "stop") =>
    run(
      "pg_ctl",
      action === "start"
        ? ["-D", data, "-l", path.join(dir, `${path.basename(data)}.log`), "-w", "-t", "180", "start"]
        : ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"],
    );
  pgCtl(primaryData, "start");
  const started = [primaryData];
  const cleanUp = () => {
    for (const data of started) {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const statement = async (port: number, database: string, text: string) => {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/${database}` });
      await client.connect();
      try {
        return (await client.query(text)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    };
    await statement(primaryPort, "postgres", "create database jumbe");
    run("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      standbyData,
      "-R",
      "-X",
      "stream",
      "--no-sync",
    ]);
    appendFileSync(path.join(standbyData, "postgresql.conf"), `${settings(standbyPort)}hot_standby = on\n`);
    pgCtl(standbyData, "start");
    started.push(standbyData);
    return {
      primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/jumbe`,
      standbyUrl: `postgres://postgres@127.0.0.1:${standbyPort}/jumbe`,
      primary: (text) => statement(primaryPort, "jumbe", text),
      standby: (text) => statement(standbyPort, "jumbe", text),
      stopStandby: () => pgCtl(standbyData, "stop"),
      killStandby: () => killPostmaster(standbyData),
      startStandby: () => pgCtl(standbyData, "start"),
      startStandbyInBackground: () =>
        runInBackground("pg_ctl", ["-D", standbyData, "-l", path.join(dir, "standby.log"), "-w", "-t", "180", "start"]),
      destroy: cleanUp,
    };
  } catch (error) {
    cleanUp();
    throw error;
  }
}

/**
 * The settings an instance of a multi-machine deployment shares with the others: the database
 * through PgBouncer in transaction pooling (its direct connection for LISTEN and migrations), heavy
 * reads on the standby, and files in the S3 sandbox's bucket. The several-machines test and the
 * fault runs (bench/fault-runs.ts) start their instances with it.
 */
export function severalMachinesEnv(
  clusters: Pick<ReplicatedClusters, "primaryUrl" | "standbyUrl">,
  s3: { endpoint: string; bucket?: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } },
) {
  return {
    DATABASE_POOLER: "pgbouncer-transaction",
    DATABASE_DIRECT_URL: clusters.primaryUrl,
    DATABASE_REPLICA_URL: clusters.standbyUrl,
    STORAGE: "s3",
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket!,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    S3_FORCE_PATH_STYLE: "1",
  };
}
