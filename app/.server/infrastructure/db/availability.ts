import { log } from "../log";
import { processState } from "../process-state";
import { NETWORK_ERROR_CODES } from "../network-errors";

/**
 * Whether PostgreSQL can be reached, as this process last saw it (decision 011). A connection-level
 * error marks it down; a probe then retries `select 1` until it answers and marks it up again. While
 * it is down, requests answer 503 with Retry-After at once, /readyz says unavailable and the job
 * workers back off. PGlite runs in the process and never goes down.
 */

/** Seconds a client is told to wait (Retry-After) while the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;

export const UNAVAILABLE_MESSAGE = "Service temporarily unavailable: the database cannot be reached. Please try again in a few seconds.";

const NETWORK_CODES = new Set(["JUMBE_DATABASE_UNAVAILABLE", ...NETWORK_ERROR_CODES]);
/** admin_shutdown, crash_shutdown, cannot_connect_now, and too_many_connections. */
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection (?:is )?(?:closed|ended)/i,
  /client has encountered a connection error and is not queryable/i,
  /cannot use a pool after calling end/i,
  /server closed the connection unexpectedly/i,
  /terminating connection due to administrator command/i,
];

/**
 * True when `error` (or what it wraps: drizzle puts the driver's error in `cause`) says the database
 * cannot be reached, as opposed to a query it refused: network errors, server shutdown and start-up,
 * SQLSTATE class 08 (connection exception), a dropped connection, the pool's connect timeout.
 */
export function isDatabaseUnavailableError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current && typeof current === "object"; depth++) {
    const e = current as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    const code = typeof e.code === "string" ? e.code : "";
    if (NETWORK_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
    if (typeof e.message === "string" && MESSAGES.some((m) => m.test(e.message as string))) return true;
    // AggregateError (a host name resolving to several addresses, all refused).
    if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailableError(inner))) return true;
    current = e.cause;
  }
  return false;
}

/** Raised without asking the database while it is known to be down (the webhook ingest fails fast). */
export class DatabaseUnavailableError extends Error {
  readonly code = "JUMBE_DATABASE_UNAVAILABLE";
  constructor() {
    super("The database is unavailable");
  }
}

type Probe = () => Promise<unknown>;

/** Per process (kept across development reloads). */
const st = processState("database-availability", () => ({
  down: false,
  downSince: 0,
  probe: undefined as Probe | undefined,
  probing: false,
  probeTimer: undefined as ReturnType<typeof setTimeout> | undefined,
  listeners: new Set<(available: boolean) => void>(),
}));

/** The check that brings the database back up: the open database's `select 1`. */
export function setAvailabilityProbe(check: Probe | undefined) {
  st.probe = check;
  if (!check) resetAvailability();
}

export function databaseIsDown() {
  return st.down;
}

/** Called with false when the database goes down and true when it is back (workers wake on it). */
export function onAvailabilityChange(listener: (available: boolean) => void) {
  st.listeners.add(listener);
  return () => void st.listeners.delete(listener);
}

/**
 * Notes an error: a connection-level one marks the database down (logged once) and starts the
 * probe. Returns whether it was one, so callers can answer 503 instead of 500.
 */
export function noteDatabaseError(error: unknown): boolean {
  if (!isDatabaseUnavailableError(error)) return false;
  if (st.probe) markDown(error);
  return true;
}

function markDown(error: unknown) {
  if (!st.down) {
    st.down = true;
    st.downSince = Date.now();
    const e = error as { code?: unknown; message?: unknown };
    log().warn(
      { sqlstate: e?.code, reason: typeof e?.message === "string" ? e.message : String(error) },
      "database unavailable: answering 503 until it is back",
    );
    for (const listener of st.listeners) listener(false);
  }
  scheduleProbe(0);
}

function markUp() {
  if (!st.down) return;
  st.down = false;
  log().warn({ downMs: Date.now() - st.downSince }, "database available again");
  for (const listener of st.listeners) listener(true);
}

/** Retries every second (each try bounded by the pool's connect timeout) while the database is down. */
function scheduleProbe(delayMs: number) {
  if (st.probing || st.probeTimer) return;
  st.probeTimer = setTimeout(() => {
    st.probeTimer = undefined;
    void runProbe();
  }, delayMs);
  st.probeTimer.unref();
}

async function runProbe() {
  if (!st.probe || !st.down) return;
  st.probing = true;
  try {
    await st.probe();
    st.probing = false;
    markUp();
  } catch {
    st.probing = false;
    if (st.down) scheduleProbe(1000);
  }
}

/** Forgets the state (the database closed, or tests). */
export function resetAvailability() {
  if (st.probeTimer) clearTimeout(st.probeTimer);
  st.probeTimer = undefined;
  st.down = false;
}
