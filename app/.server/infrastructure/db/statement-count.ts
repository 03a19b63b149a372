import { AsyncLocalStorage } from "node:async_hooks";
import type { NextFunction, Request, Response } from "express";
import { processState } from "../process-state";

/** The SQL statements one request sent, counted as the ORM or the raw driver sends them. */
interface Tally {
  statements: number;
}

// One store per process, so the count survives development reloads of this module.
const requests = processState("statement-count", () => new AsyncLocalStorage<Tally>());

/** Called for every statement sent to the database (the ORM's logger and rawQuery). */
export function noteStatement() {
  const tally = requests.getStore();
  if (tally) tally.statements++;
}

/** Runs `work` counting its statements; for tests and benchmarks that call domain code directly. */
export async function countStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const tally: Tally = { statements: 0 };
  const result = await requests.run(tally, work);
  return { result, statements: tally.statements };
}

/**
 * Each response says how many statements its request sent and how long the server took, in a
 * Server-Timing header (`db;desc="3 statements", app;dur=8.4`), written when the headers go out: a
 * page's loaders have all finished and its document is rendered by then, since documents render
 * completely before they are sent, so `app` is the page's whole server time (waits for the database
 * and the event loop included). Browsers show both in their network panel;
 * tests/integration/statement-count.test.ts pins the count per page, and the campaign benchmark
 * reads the time.
 */
export function statementCountHeader() {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.path.startsWith("/assets/")) return next();
    const started = performance.now();
    const tally: Tally = { statements: 0 };
    // The request log line reads it when the response finishes.
    res.locals.dbTally = tally;
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: unknown[]) {
      const statements = `${tally.statements} ${tally.statements === 1 ? "statement" : "statements"}`;
      this.appendHeader("Server-Timing", `db;desc="${statements}", app;dur=${(performance.now() - started).toFixed(1)}`);
      return (writeHead as (...a: unknown[]) => ReturnType<Response["writeHead"]>).apply(this, args);
    } as Response["writeHead"];
    requests.run(tally, next);
  };
}

/** Statements the request behind `res` has sent so far (undefined where nothing counted them). */
export function statementsOf(res: Response): number | undefined {
  return (res.locals.dbTally as Tally | undefined)?.statements;
}
