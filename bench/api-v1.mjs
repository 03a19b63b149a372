// GET /api/v1/account with an API key: key lookup (SHA-256, one indexed row), the per-key rate
// limit (one upsert in the database), the account read, and the usage upsert for the Developers
// page. The bench server runs with RATE_LIMIT_MULTIPLIER raised, so the limit counts but never refuses.
import autocannon from "autocannon";
import { request } from "./lib/http.mjs";

/** The demo tenant's live key, read the way the Developers page reads it. */
export async function apiKeyFor(baseUrl, cookie) {
  const response = await request(`${baseUrl}/api/developer/api-key`, { headers: { Cookie: cookie } });
  if (response.status !== 200) throw new Error(`GET /api/developer/api-key answered ${response.status}`);
  return JSON.parse(response.body.toString("utf8")).key;
}

export async function benchApiV1(baseUrl, key, { duration, connections }) {
  const url = `${baseUrl}/api/v1/account`;
  const headers = { Authorization: `Bearer ${key}` };
  const first = await request(url, { headers });
  if (first.status !== 200)
    return { endpoint: "GET /api/v1/account", problem: `answered ${first.status}: ${first.body.toString("utf8").slice(0, 160)}`, runs: [] };
  await autocannon({ url, headers, connections: 2, duration: 2 }); // warm-up
  const runs = [];
  for (const count of connections) {
    const result = await autocannon({ url, headers, connections: count, duration, pipelining: 1, timeout: 30 });
    runs.push({
      connections: count,
      requestsPerSecond: result.requests.average,
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      requests: result.requests.total,
      statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count])),
      errors: result.errors,
    });
  }
  return { endpoint: "GET /api/v1/account", runs };
}

export function formatApiV1(report) {
  if (report.problem) return `${report.endpoint}: not measured (${report.problem})`;
  const lines = [
    `${report.endpoint}  (API key lookup, rate limit upsert, account read, usage upsert)`,
    "connections   req/s  p50 ms  p99 ms  requests  statuses",
    "-----------  ------  ------  ------  --------  --------",
  ];
  for (const r of report.runs)
    lines.push(
      `${String(r.connections).padStart(11)}  ${r.requestsPerSecond.toFixed(1).padStart(6)}  ${String(r.latencyMs.p50).padStart(6)}  ${String(r.latencyMs.p99).padStart(6)}  ${String(r.requests).padStart(8)}  ${Object.entries(
        r.statuses,
      )
        .map(([c, n]) => `${c}:${n}`)
        .join(" ")}`,
    );
  return lines.join("\n");
}
