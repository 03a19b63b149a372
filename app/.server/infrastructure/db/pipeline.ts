import { Writable } from "node:stream";
import type { Pool, PoolClient, QueryConfig, QueryResult } from "pg";
import { SECOND_STATEMENT } from "./pg-statements";

interface Pending {
  config: QueryConfig;
  resolve: (result: QueryResult) => void;
  reject: (error: unknown) => void;
}

/** A text whose latest runs all took longer than this goes alone, in parallel with the others (see below). */
export const SLOW_STATEMENT_MS = 10;
/** Texts whose durations (and verdicts) are kept; past it the oldest duration is forgotten (and counts as quick again). */
const KEPT_DURATIONS = 2000;

/**
 * Reads outside a transaction that are sent in the same turn of the event loop go to PostgreSQL
 * together (decision 185): one connection taken from the pool for all of them, their messages
 * written in one go (node-postgres's pipeline mode, each statement with its own Sync, so each is
 * still its own implicit transaction and one's error does not touch the others), their answers read
 * back in order. A page's loaders read in parallel, and concurrent requests' reads meet in the same
 * turn under load: a round trip, a socket write and a pool checkout each carry many statements.
 *
 * On one connection the statements of a turn run one after another, so what goes together is
 * chosen to keep that harmless:
 * - only reads (`isBatchable`): a plain select never waits for a row lock, so none of them can wait
 *   for a transaction whose progress needs another statement of its turn; writes, locking reads
 *   and lock functions go alone as before;
 * - only quick ones: a text whose latest runs all took over SLOW_STATEMENT_MS (`durations`) goes
 *   alone, so heavy reads (analytics at scale, the console's figures) keep running in parallel;
 * - nothing waits behind an earlier turn: a batch has its connection to itself until its answers
 *   are in, and a later turn takes another.
 * A lone statement goes as pool.query sends it. The pool's clients must be made with
 * `pipeline: true`; transactions take their client with pool.connect() and await each statement,
 * which pipeline mode does not change.
 */
export function pipelineAutocommitQueries(pool: Pool, durations = new StatementDurations()) {
  const single = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  let open: Pending[] | null = null;
  // Each text's verdict once, not its regular expressions on every run (at most KEPT_DURATIONS texts:
  // texts written with a value inside them would otherwise grow it without end).
  const verdicts = new Map<string, boolean>();
  const batchable = (text: string) => {
    let verdict = verdicts.get(text);
    if (verdict === undefined) {
      if (verdicts.size >= KEPT_DURATIONS) verdicts.clear();
      verdict = isBatchable(text);
      verdicts.set(text, verdict);
    }
    return verdict;
  };

  /** pool.query as it was, timed for the text's latest runs. */
  const alone = (config: QueryConfig) => {
    const started = performance.now();
    return (single(config) as Promise<QueryResult>).finally(() => durations.note(config.text, performance.now() - started));
  };

  const flush = async (batch: Pending[]) => {
    if (batch.length === 1) {
      const [only] = batch;
      alone(only!.config).then(only!.resolve, only!.reject);
      return;
    }
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    // PostgreSQL closing the connection under the batch fails its statements; the client's own
    // 'error' event then must not end the process (the pool listens only while a client is idle).
    const ignore = () => {};
    client.on("error", ignore);
    const stream = socketOf(client);
    // Answers come back in order: each statement's time is from the answer before it to its own.
    let last = performance.now();
    stream?.cork();
    // The callback form, as pool.query uses it: a statement prepared on this connection before its
    // table changed shape is run again under a fresh name (pg-statements.ts).
    const answers = batch.map(
      (pending) =>
        new Promise<unknown>((done) => {
          client.query(pending.config, (error: Error | undefined, result: QueryResult) => {
            const now = performance.now();
            durations.note(pending.config.text, now - last);
            last = now;
            if (error) pending.reject(error);
            else pending.resolve(result);
            done(error);
          });
        }),
    );
    stream?.uncork();
    const errors = await Promise.all(answers);
    client.off("error", ignore);
    // A connection PostgreSQL closed under the batch is not given back for another to fail on.
    const lost = errors.find((error) => error instanceof Error && Reflect.get(client, "_queryable") === false);
    client.release(lost instanceof Error ? lost : undefined);
  };

  Object.assign(pool, {
    query: (...args: unknown[]) => {
      const [first, second, third] = args;
      // The forms pool.query takes that this does not gather: a callback, a submittable (a cursor).
      if (typeof second === "function" || typeof third === "function") return single(...args);
      const config: QueryConfig | null =
        typeof first === "string"
          ? { text: first, ...(Array.isArray(second) ? { values: second } : {}) }
          : typeof first === "object" && first !== null && typeof (first as { submit?: unknown }).submit !== "function"
            ? { ...(first as QueryConfig), ...(Array.isArray(second) ? { values: second } : {}) }
            : null;
      if (!config) return single(...args);
      if (!batchable(config.text) || durations.isSlow(config.text)) return alone(config);
      return new Promise<QueryResult>((resolve, reject) => {
        if (!open) {
          const batch: Pending[] = [];
          open = batch;
          setImmediate(() => {
            open = null;
            void flush(batch);
          });
        }
        open.push({ config, resolve, reject });
      });
    },
  });
}

/** The client's socket (node-postgres keeps it as connection.stream), to cork around a batch's writes. */
function socketOf(client: PoolClient): { cork(): void; uncork(): void } | undefined {
  const connection: unknown = Reflect.get(client, "connection");
  const stream: unknown = typeof connection === "object" && connection !== null ? Reflect.get(connection, "stream") : undefined;
  return stream instanceof Writable ? stream : undefined;
}

const READ = /^\s*(?:\/\*[\s\S]*?\*\/\s*)*(select|with|values)\b/i;
/**
 * What can make a read wait on another transaction, or is no read: a write anywhere (a data-modifying
 * CTE), a locking clause, the lock, sleep and sequence functions, notifications and settings.
 */
const MAY_WAIT_OR_WRITE =
  /\b(insert|update|delete|merge|truncate|for\s+(no\s+key\s+)?update|for\s+(key\s+)?share|pg_advisory\w*|pg_sleep\w*|nextval|setval|pg_notify|set_config|lock)\b/i;

/** A single read that waits for no row lock: it may go in a turn's batch. */
export function isBatchable(text: string) {
  return READ.test(text) && !MAY_WAIT_OR_WRITE.test(text) && !SECOND_STATEMENT.test(text);
}

/** How many of a text's latest runs decide whether it is slow. */
const RECENT_RUNS = 5;

/**
 * Each text's latest durations (ms, at most RECENT_RUNS of them), for at most KEPT_DURATIONS texts.
 * A text is slow when every one of its latest runs took longer than SLOW_STATEMENT_MS: a duration
 * is measured in this process, from the call to the answer's callback, so it also holds the wait for
 * a connection and for the event loop, which under load is tens of milliseconds for any statement.
 * An average of those made every statement of a busy server slow, and nothing went together at the
 * very load pipelining is for; a statement that is slow in PostgreSQL is slow on every run, and one
 * quick run shows the others were waits.
 */
export class StatementDurations {
  private readonly latest = new Map<string, number[]>();
  constructor(private readonly max = KEPT_DURATIONS) {}

  note(text: string, ms: number) {
    let runs = this.latest.get(text);
    if (runs === undefined) {
      if (this.latest.size >= this.max) {
        const oldest = this.latest.keys().next().value;
        if (oldest !== undefined) this.latest.delete(oldest);
      }
      this.latest.set(text, (runs = []));
    }
    runs.push(ms);
    if (runs.length > RECENT_RUNS) runs.shift();
  }

  isSlow(text: string) {
    const runs = this.latest.get(text);
    return runs !== undefined && runs.every((ms) => ms > SLOW_STATEMENT_MS);
  }
}
