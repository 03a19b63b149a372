import { AsyncLocalStorage } from "node:async_hooks";
import type { Pool } from "pg";
import { Counter, Gauge } from "prom-client";
import { log } from "../log";
import { processState } from "../process-state";
import { instanceRegistry } from "../metrics/instance";
import { isDatabaseUnavailableError } from "./availability";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";
import { inOpenTransaction } from "./transaction-guard";

/**
 * A streaming replica for heavy reads (issue 78, decision 163). `readDb()` (client.ts) answers the replica's
 * database when it can serve the calling request, else the primary's:
 *
 * - only inside a read scope (`withReadScope`: a page's or a download's request, never a job or a
 *   webhook, which call without one) and outside a transaction;
 * - only while the replica answers (a connection error opens a breaker: the primary for
 *   REPLICA_RETRY_MS, then a measurement tries the replica again) and lags no more than the
 *   configured maximum, as this instance measured it at most MEASURE_EVERY_MS ago;
 * - read-your-writes: a scope that carries the primary's WAL position after the person's last
 *   write reads the replica only once the replica has replayed past it. The replica's replay
 *   position is cached REPLAY_FRESH_MS, refreshed by one statement; nothing waits for replay.
 *
 * A replica query that fails because the replica cannot be reached (or was cancelled by a recovery
 * conflict) runs again on the primary, so a replica going down is never an error page.
 */

/** client.ts's Database, spelt here: client.ts imports this module. */
type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** How often each instance measures the replica's lag (and, while it is down, no more often than REPLICA_RETRY_MS). */
export const MEASURE_EVERY_MS = 1000;
/** How long the replica is left alone after a connection error before it is tried again. */
export const REPLICA_RETRY_MS = 3000;
/** How long a read of the replica's replay position stands for read-your-writes checks. */
export const REPLAY_FRESH_MS = 150;
/** Connections each instance opens to the replica (heavy reads are few; the pool is small). */
export const REPLICA_POOL_SIZE = 4;

export interface ReplicaStatus {
  /** `serving`: reads go to the replica; `lagging`: past the maximum lag; `down`: unreachable or not a standby. */
  state: "serving" | "lagging" | "down";
  lagBytes: number | null;
  lagMs: number | null;
  maxLagMs: number;
  /** When this instance last measured the replica (ISO), or null before its first measurement. */
  measuredAt: string | null;
  /** Why it is down, in English (the log's words), or null. */
  reason: string | null;
}

interface Attached {
  db: Database;
  pool: Pool;
  primary: Pool;
  maxLagMs: number;
  timer: ReturnType<typeof setInterval>;
}

interface ReplicaState {
  attached?: Attached;
  up: boolean;
  reason: string | null;
  /** Breaker: the replica is not tried before this time (ms). */
  retryAt: number;
  replayLsn: bigint | null;
  replayReadAt: number;
  /** Primary positions seen by the measurements and not yet replayed, oldest first: the lag in time. */
  pending: { lsn: bigint; at: number }[];
  lagBytes: number | null;
  lagMs: number | null;
  measuredAt: number | null;
  measuring: Promise<void> | null;
  refreshing: Promise<void> | null;
}

const fresh = (): ReplicaState => ({
  up: false,
  reason: null,
  retryAt: 0,
  replayLsn: null,
  replayReadAt: 0,
  pending: [],
  lagBytes: null,
  lagMs: null,
  measuredAt: null,
  measuring: null,
  refreshing: null,
});

const st = processState<{ current: ReplicaState }>("database-replica", () => ({ current: fresh() }));

/** What a request's reads may use: the primary's WAL position after the person's last write, if any. */
interface ReadScope {
  after: bigint | null;
}
const scopes = processState("database-read-scope", () => new AsyncLocalStorage<ReadScope>());

/** Runs `work` (a request's loaders) with replica reads allowed, none before `after` is replayed. */
export function withReadScope<T>(after: bigint | null, work: () => Promise<T>): Promise<T> {
  return scopes.run({ after }, work);
}

/** A PostgreSQL LSN (`16/B374D848`) as a number of bytes; null for anything else. */
export function parseLsn(text: string | null | undefined): bigint | null {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text ?? "");
  if (!match) return null;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** True when a replica is configured on this instance (PostgreSQL with DATABASE_REPLICA_URL). */
export function replicaConfigured() {
  return st.current.attached !== undefined;
}

/**
 * The replica's database when it can serve this request's heavy read, else null (the primary's): see
 * readDb. `after`: a primary position the read must see besides the person's own mark (writes made on
 * their behalf outside their requests, by a job: an import's rows).
 */
export async function replicaForRead(after: bigint | null = null): Promise<Database | null> {
  const attached = st.current.attached;
  const scope = scopes.getStore();
  if (!attached || !scope || inOpenTransaction()) return null;
  const floor = scope.after === null || (after !== null && after > scope.after) ? after : scope.after;
  if (await replicaServes(attached, floor)) {
    metrics().reads.inc({ target: "replica" });
    return attached.db;
  }
  metrics().reads.inc({ target: "primary" });
  return null;
}

async function replicaServes(attached: Attached, after: bigint | null) {
  const s = st.current;
  if (!s.up || Date.now() < s.retryAt || s.lagMs === null || s.lagMs > attached.maxLagMs) return false;
  if (after === null || (s.replayLsn !== null && s.replayLsn >= after)) return true;
  if (Date.now() - s.replayReadAt < REPLAY_FRESH_MS) return false;
  s.refreshing ??= refreshReplay(attached).finally(() => (s.refreshing = null));
  await s.refreshing;
  return s.up && s.replayLsn !== null && s.replayLsn >= after;
}

/** One statement on the replica: whether it is a standby, and how far it has replayed. */
async function refreshReplay(attached: Attached) {
  try {
    const { rows } = await attached.pool.query<{ standby: boolean; lsn: string | null }>(
      "select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as lsn",
    );
    const lsn = parseLsn(rows[0]?.lsn);
    if (!rows[0]?.standby || lsn === null) return replicaFailed(new Error("DATABASE_REPLICA_URL is not a standby in recovery"));
    st.current.replayLsn = lsn;
    st.current.replayReadAt = Date.now();
  } catch (error) {
    replicaFailed(error);
  }
}

/** The breaker opens: the primary serves every read until a measurement after REPLICA_RETRY_MS succeeds. */
function replicaFailed(error: unknown) {
  const s = st.current;
  const reason = error instanceof Error ? error.message : String(error);
  if (s.up || s.reason === null) log().warn({ reason }, "read replica unavailable: heavy reads go to the primary");
  s.up = false;
  s.reason = reason;
  s.retryAt = Date.now() + REPLICA_RETRY_MS;
}

/** The primary's position now and the replica's replay position: the lag in bytes and in time. */
async function measure(attached: Attached) {
  const s = st.current;
  if (Date.now() < s.retryAt) return;
  const [primary] = await Promise.all([
    attached.primary
      .query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn")
      .then(({ rows }) => parseLsn(rows[0]?.lsn))
      .catch(() => null),
    refreshReplay(attached),
  ]);
  const now = Date.now();
  if (s.retryAt > now || s.replayLsn === null) return;
  if (!s.up) log().warn({ downFor: s.reason }, "read replica available again");
  s.up = true;
  s.reason = null;
  s.measuredAt = now;
  if (primary !== null && (s.pending.length === 0 || primary > s.pending.at(-1)!.lsn)) s.pending.push({ lsn: primary, at: now });
  const replayed = s.replayLsn;
  s.pending = s.pending.filter((sample) => sample.lsn > replayed);
  const newest = primary ?? s.pending.at(-1)?.lsn ?? replayed;
  s.lagBytes = newest > replayed ? Number(newest - replayed) : 0;
  // Since the oldest primary position the replica has not reached was seen: 0 once it has caught up.
  s.lagMs = s.pending.length ? now - s.pending[0]!.at : 0;
}

/** Measures now (the timer does it every MEASURE_EVERY_MS); concurrent calls share one measurement. */
export async function measureReplica() {
  const attached = st.current.attached;
  if (!attached) return;
  st.current.measuring ??= measure(attached).finally(() => (st.current.measuring = null));
  await st.current.measuring;
}

/** The replica as this instance last measured it, or null without one. */
export function replicaStatus(): ReplicaStatus | null {
  const attached = st.current.attached;
  if (!attached) return null;
  const s = st.current;
  const down = !s.up || Date.now() < s.retryAt;
  return {
    state: down ? "down" : s.lagMs !== null && s.lagMs <= attached.maxLagMs ? "serving" : "lagging",
    lagBytes: down ? null : s.lagBytes,
    lagMs: down ? null : s.lagMs,
    maxLagMs: attached.maxLagMs,
    measuredAt: s.measuredAt === null ? null : new Date(s.measuredAt).toISOString(),
    reason: down ? s.reason : null,
  };
}

/**
 * How long after a write its reader must be sent to the primary unless the replica shows it has
 * replayed it: long enough for a replica within the maximum lag to have replayed it, with a margin
 * (the write mark's lifetime). Null without a replica.
 */
export function ownWritesWindowMs(): number | null {
  const attached = st.current.attached;
  return attached ? attached.maxLagMs + 60_000 : null;
}

/** The primary's WAL insert position: every write this connection's transactions made is before it. */
export async function primaryWritePosition(): Promise<bigint | null> {
  const attached = st.current.attached;
  if (!attached) return null;
  const { rows } = await attached.primary.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn");
  return parseLsn(rows[0]?.lsn);
}

/** A replica error worth running the statement again on the primary: unreachable, or a recovery conflict. */
function primaryCanAnswer(error: unknown) {
  if (isDatabaseUnavailableError(error)) return true;
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === "40001" && typeof e.message === "string" && /conflict with recovery/i.test(e.message);
}

/**
 * The replica's pool runs a statement it cannot answer on the primary instead (the breaker opens),
 * and a connection it cannot open (a transaction's) comes from the primary: the caller sees answers.
 */
function failOverToPrimary(pool: Pool, primary: Pool) {
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  const again = primary.query.bind(primary) as (...args: unknown[]) => Promise<unknown>;
  Object.assign(pool, {
    query: async (...args: unknown[]) => {
      try {
        return await query(...args);
      } catch (error) {
        if (!primaryCanAnswer(error)) throw error;
        if (isDatabaseUnavailableError(error)) replicaFailed(error);
        return again(...args);
      }
    },
    connect: async (...args: unknown[]) => {
      try {
        return await connect(...args);
      } catch (error) {
        if (!isDatabaseUnavailableError(error)) throw error;
        replicaFailed(error);
        return primary.connect();
      }
    },
  });
}

export interface ReplicaOptions {
  url: string;
  maxLagMs: number;
}

/**
 * Opens the replica's pool beside the primary's (`primary`), measures it once, and measures it every
 * MEASURE_EVERY_MS until `detachReplica`. `open` builds the ORM over a pool (client.ts's, so the
 * statements are counted like the primary's). The replica's statements are never named (decision
 * 163): its URL may reach a PgBouncer.
 */
export async function attachReplica(primary: Pool, options: ReplicaOptions, open: (pool: Pool) => Database) {
  await detachReplica();
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({
    connectionString: options.url,
    max: REPLICA_POOL_SIZE,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  // A lost replica connection only opens the breaker: the primary stays up, and nothing else is told.
  pool.on("connect", (client) => client.on("error", (error) => void (isDatabaseUnavailableError(error) && replicaFailed(error))));
  pool.on("error", (error) => void (isDatabaseUnavailableError(error) && replicaFailed(error)));
  failOverToPrimary(pool, primary);
  st.current = fresh();
  const timer = setInterval(() => void measureReplica(), MEASURE_EVERY_MS);
  timer.unref();
  st.current.attached = { db: open(pool), pool, primary, maxLagMs: options.maxLagMs, timer };
  metrics();
  await measureReplica();
}

export async function detachReplica() {
  const attached = st.current.attached;
  if (!attached) return;
  clearInterval(attached.timer);
  st.current = fresh();
  await attached.pool.end();
}

/** The replica's figures on this instance's /metrics, read at scrape time. */
const metrics = () =>
  processState("database-replica-metrics", () => {
    const registers = [instanceRegistry()];
    const status = () => replicaStatus();
    new Gauge({
      name: "jumbe_replica_up",
      help: "1 while this instance reads from the replica (reachable and within the maximum lag), 0 otherwise; absent without a replica.",
      registers,
      collect() {
        const s = status();
        this.reset();
        if (s) this.set(s.state === "serving" ? 1 : 0);
      },
    });
    new Gauge({
      name: "jumbe_replica_lag_bytes",
      help: "WAL bytes the replica has not replayed yet, as this instance last measured them.",
      registers,
      collect() {
        const s = status();
        this.reset();
        if (s?.lagBytes != null) this.set(s.lagBytes);
      },
    });
    new Gauge({
      name: "jumbe_replica_lag_seconds",
      help: "How long ago the primary was at the oldest position the replica has not replayed, in seconds (0 when caught up).",
      registers,
      collect() {
        const s = status();
        this.reset();
        if (s?.lagMs != null) this.set(s.lagMs / 1000);
      },
    });
    return {
      reads: new Counter({
        name: "jumbe_replica_reads_total",
        help: "Heavy reads (readDb) sent to the replica or to the primary by this instance.",
        labelNames: ["target"] as const,
        registers,
      }),
    };
  });
