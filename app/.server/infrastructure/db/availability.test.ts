import { afterEach, describe, expect, it } from "vitest";
import net from "node:net";
import pg from "pg";
import {
  databaseIsDown,
  DatabaseUnavailableError,
  isDatabaseUnavailableError,
  noteDatabaseError,
  onAvailabilityChange,
  setAvailabilityProbe,
} from "./availability";

// Issue 9: a dropped PostgreSQL connection killed the process. Which errors mean "the database
// cannot be reached" (503, workers back off) rather than "this query is wrong" (500).
const pgError = (code: string, message = "error") => Object.assign(new Error(message), { code, severity: "FATAL" });

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe("isDatabaseUnavailableError", () => {
  it.each([
    ["admin_shutdown (restart, pg_terminate_backend)", pgError("57P01", "terminating connection due to administrator command")],
    ["crash_shutdown", pgError("57P02")],
    ["cannot_connect_now (starting up, shutting down)", pgError("57P03", "the database system is shutting down")],
    ["connection_failure (class 08)", pgError("08006")],
    ["connection_does_not_exist", pgError("08003")],
    ["refused", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    ["reset", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })],
    ["a connection that ended", new Error("Connection terminated unexpectedly")],
    ["the pool's connect timeout", new Error("timeout exceeded when trying to connect")],
    ["wrapped by drizzle", Object.assign(new Error("Failed query: select 1"), { cause: pgError("57P01") })],
    ["every address refused", new AggregateError([Object.assign(new Error("refused"), { code: "ECONNREFUSED" })], "")],
    ["known down already", new DatabaseUnavailableError()],
  ])("%s is unavailable", (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(true);
  });

  it.each([
    ["a unique violation", pgError("23505", "duplicate key value violates unique constraint")],
    ["a bad value", pgError("22P02", "invalid input syntax for type uuid")],
    ["a syntax error", pgError("42601")],
    ["query_canceled", pgError("57014")],
    ["a plain bug", new TypeError("Cannot read properties of undefined")],
    ["not an error", "Connection"],
    ["nothing", undefined],
  ])("%s is not", (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(false);
  });

  it("classifies what node-postgres really raises for a server that does not answer", async () => {
    const pool = new pg.Pool({ host: "127.0.0.1", port: await closedPort(), user: "x", database: "x", connectionTimeoutMillis: 2000 });
    const error = await pool.query("select 1").then(
      () => undefined,
      (e: unknown) => e,
    );
    await pool.end();
    expect(error).toBeDefined();
    expect(isDatabaseUnavailableError(error)).toBe(true);
  });
});

describe("database availability", () => {
  afterEach(() => setAvailabilityProbe(undefined));

  it("goes down on a connection error, stays down while the probe fails, comes back when it answers", async () => {
    let answering = false;
    let probes = 0;
    setAvailabilityProbe(async () => {
      probes++;
      if (!answering) throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    });
    const changes: boolean[] = [];
    const stop = onAvailabilityChange((available) => changes.push(available));

    expect(noteDatabaseError(pgError("23505"))).toBe(false);
    expect(databaseIsDown()).toBe(false);

    expect(noteDatabaseError(pgError("57P01"))).toBe(true);
    expect(noteDatabaseError(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(databaseIsDown()).toBe(true);
    for (let i = 0; i < 50 && probes < 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(probes).toBeGreaterThan(0);
    expect(databaseIsDown()).toBe(true);

    answering = true;
    for (let i = 0; i < 100 && databaseIsDown(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(databaseIsDown()).toBe(false);
    // One "down" and one "back" however many errors there were: the outage is logged and told once.
    expect(changes).toEqual([false, true]);
    stop();
  });

  it("never goes down without a probe (PGlite: in the process, nothing to reconnect)", () => {
    setAvailabilityProbe(undefined);
    expect(noteDatabaseError(pgError("57P01"))).toBe(true);
    expect(databaseIsDown()).toBe(false);
  });
});
