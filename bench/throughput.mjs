// Requests per second for two JSON API calls, with autocannon's programmatic API:
//   POST /api/auth/signin  - argon2id verification (19 MiB, t=2) dominates; then a session row,
//                            an activity row and a users update.
//   GET  /api/auth/me      - one session lookup (a join of sessions, users, organisations) plus
//                            the month's message count.
import os from "node:os";
import autocannon from "autocannon";
import { hash, verify } from "@node-rs/argon2";
import { jsonHeaders, request } from "./lib/http.mjs";

// Same parameters as app/.server/domains/auth/password.ts (OWASP's argon2id baseline).
const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

function summarise(result) {
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]));
  return {
    connections: result.connections,
    durationSeconds: result.duration,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    statuses,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

function run(options) {
  return autocannon({ pipelining: 1, timeout: 30, ...options });
}

/** Time one argon2id verification in this process, to show how much of a sign-in it is. */
export async function argon2Cost(samples = 10) {
  const stored = await hash("JumbeDemo#2026", ARGON2);
  await verify(stored, "JumbeDemo#2026");
  const started = process.hrtime.bigint();
  for (let i = 0; i < samples; i++) await verify(stored, "JumbeDemo#2026");
  const verifyMs = Number(process.hrtime.bigint() - started) / 1e6 / samples;
  // @node-rs/argon2 runs on libuv's thread pool, so at most that many verifications run at once.
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  return { verifyMs, threadPool: threads, cpus: os.availableParallelism?.() ?? os.cpus().length };
}

/** Checks one call answers as expected before loading it, so a figure never hides refusals. */
async function probe(url, options, expected) {
  const response = await request(url, options);
  if (response.status !== expected) {
    return `${options.method ?? "GET"} ${new URL(url).pathname} answered ${response.status}: ${response.body.toString("utf8").slice(0, 160)}`;
  }
  return null;
}

/**
 * Valid sign-ins at each connection count, then one run with an unknown e-mail: that path still
 * verifies a password (against a dummy hash, so timing reveals nothing) but writes nothing, which
 * shows how much of a sign-in is the hash.
 */
export async function benchSignin(baseUrl, account, { duration, connections }) {
  const url = `${baseUrl}/api/auth/signin`;
  const signinOptions = (email) => ({
    method: "POST",
    headers: jsonHeaders(baseUrl),
    body: JSON.stringify({ email, password: account.password }),
  });
  const valid = signinOptions(account.email);
  const unknown = signinOptions("nobody-bench@jumbe.demo");
  const problem = (await probe(url, valid, 200)) ?? (await probe(url, unknown, 401));
  if (problem) return { endpoint: "POST /api/auth/signin", problem, runs: [] };
  await run({ url, ...valid, connections: 2, duration: 2 }); // warm-up, not reported
  const runs = [];
  for (const count of connections)
    runs.push({ case: "valid account", ...summarise(await run({ url, ...valid, connections: count, duration })) });
  runs.push({ case: "unknown e-mail (401)", expectedStatus: 401, ...summarise(await run({ url, ...unknown, connections: 1, duration })) });
  return { endpoint: "POST /api/auth/signin", runs };
}

export async function benchMe(baseUrl, cookie, { duration, connections }) {
  const url = `${baseUrl}/api/auth/me`;
  const options = { method: "GET", headers: { Cookie: cookie } };
  const problem = await probe(url, options, 200);
  if (problem) return { endpoint: "GET /api/auth/me", problem, runs: [] };
  await run({ url, ...options, connections: 4, duration: 2 }); // warm-up, not reported
  const runs = [];
  for (const count of connections)
    runs.push({ case: "signed in", ...summarise(await run({ url, ...options, connections: count, duration })) });
  return { endpoint: "GET /api/auth/me", runs };
}
