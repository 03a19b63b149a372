import { afterAll, beforeAll, beforeEach, inject } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { localFileStorage, setFileStorage } from "~/.server/infrastructure/storage";
import { closeTestDatabase, disarmStatisticsTimer, openTestDatabase, resetTables } from "./database";
import { answerWatchers } from "~/.server/adapters/api-v1/answer-watchers";
import { readRouteDeclarations } from "./in-process-app";
import { wireDomainEvents } from "~/.server/composition/domain-events";
import { sessionCache } from "~/.server/domains/auth/sessions";
import { watchForHangs } from "./hang-watchdog";

// What a lower domain announces reaches the higher one that acts on it, as in the server.
wireDomainEvents();

// The session cache (decision 166) is off unless a test turns it on (tests/integration/session-cache.test.ts),
// or a run asks for it (SESSION_CACHE_MS=5000): a test writes users and sessions in SQL of its own and
// reads at once, where on PostgreSQL the NOTIFY reaches the cache a moment later.
const TEST_ENV = { NODE_ENV: "test", APP_URL: "http://jumbe.test", SESSION_CACHE_MS: process.env.SESSION_CACHE_MS ?? "0" };

// Every test file gets its own database: PGlite in memory, or a fresh database on TEST_DATABASE_URL.
setEnv(parseEnv(TEST_ENV));

// ...and its own file storage in a temporary folder, whatever DATA_DIR a test configures.
const storageDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-test-files-"));
setFileStorage(localFileStorage(storageDir));

// A worker stuck inside the database is ended after minutes, naming its test (decision 179).
watchForHangs();

beforeAll(async () => {
  await openTestDatabase();
  // The routes' declared permissions (decision 055): the layouts' middleware, the shell's navigation,
  // search and sign-in's `from` ask them. Read from the route modules once per run (the global setup);
  // a file that sends requests to the application loads the modules themselves (appBuild).
  readRouteDeclarations(inject("routeDeclarations"));
}, 60_000);

beforeEach(async () => {
  setEnv(parseEnv(TEST_ENV));
  await resetTables();
  // The reset deletes with triggers off: no NOTIFY forgets what the last test's lookups left.
  sessionCache().clear();
  // A clock the last test moved and put back leaves PGlite no timer that fires every millisecond.
  await disarmStatisticsTimer();
});

// Every answer of /api/v1 in every test is held to the error catalogue and to its endpoint's
// documented codes (decision 052): an undocumented one fails the file that provoked it.
// A worker runs many files with its modules shared (isolate: false), so each file's watcher is
// taken off again when the file ends.
const apiAnswers: Promise<string | undefined>[] = [];
const watchApiAnswer = (request: Request, response: Response) => {
  if (response.status < 400) return;
  const copy = response.clone();
  apiAnswers.push(import("./api-answer-check").then(({ undocumentedAnswer }) => undocumentedAnswer(request, copy)));
};
answerWatchers.add(watchApiAnswer);

afterAll(async () => {
  answerWatchers.delete(watchApiAnswer);
  const undocumented = [...new Set((await Promise.all(apiAnswers.splice(0))).filter(Boolean))];
  if (undocumented.length) throw new Error(`Undocumented API answers (the catalogue, decision 052):\n${undocumented.join("\n")}`);
}, 60_000);

afterAll(async () => {
  await closeTestDatabase();
  setFileStorage(undefined);
  rmSync(storageDir, { recursive: true, force: true });
});
