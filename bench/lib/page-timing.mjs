// A page timed one request after another, as this process sees it (request to last byte) and as the
// server reports it in Server-Timing (`db;desc="N statements", app;dur=…`: request in to headers out,
// the document rendered by then); and the bare server (bench/lib/bare-server.mjs) sending as many
// bytes, the floor of Node's HTTP handling here. Used by bench/campaign.mjs and bench/inbox.mjs.
import { performance } from "node:perf_hooks";
import { request } from "./http.mjs";

export const median = (sorted) => sorted[Math.floor(sorted.length / 2)];
// Nearest rank: the smallest value at or above 95% of the samples (the 57th of 60).
export const p95 = (sorted) => sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)];

/** The server's own figures in a Server-Timing header: { appMs, statements } (null when absent). */
export function serverTiming(header) {
  const text = String(header ?? "");
  const app = /app;dur=([\d.]+)/.exec(text);
  const statements = /db;desc="(\d+) statements?"/.exec(text);
  return { appMs: app ? Number(app[1]) : null, statements: statements ? Number(statements[1]) : null };
}

/**
 * `requests` sequential GETs of `url` after one untimed one (an instance's first request for a route
 * loads its module and compiles its code). The first differs from the server's own figure by this
 * process's waits for a CPU, which on a busy 2-CPU machine are not the server's.
 */
export async function timePage(url, cookie, requests = 60, { headers = {} } = {}) {
  const times = [];
  const serverTimes = [];
  const statements = [];
  let bytes = 0;
  let status = 0;
  const all = { Cookie: cookie, Accept: "text/html", ...headers };
  await request(url, { headers: all });
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const answer = await request(url, { headers: all });
    times.push(performance.now() - started);
    const reported = serverTiming(answer.headers["server-timing"]);
    if (reported.appMs !== null) serverTimes.push(reported.appMs);
    if (reported.statements !== null) statements.push(reported.statements);
    bytes = answer.body.length;
    status = answer.status;
  }
  times.sort((a, b) => a - b);
  serverTimes.sort((a, b) => a - b);
  statements.sort((a, b) => a - b);
  return {
    status,
    bytes,
    median: median(times),
    p95: p95(times),
    serverMedian: serverTimes.length ? median(serverTimes) : null,
    serverP95: serverTimes.length ? p95(serverTimes) : null,
    serverMax: serverTimes.length ? serverTimes.at(-1) : null,
    statements: statements.length ? median(statements) : null,
  };
}

/** The bare server's median time for a body of `bytes`, over `requests` sequential GETs. */
export async function timeBare(bare, bytes, requests = 20) {
  const times = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await request(`${bare.baseUrl}/?bytes=${bytes}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
