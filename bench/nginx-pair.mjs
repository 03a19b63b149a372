// nginx in front of two instances of the production build vs one, as deploy/ runs Jumbe: the
// repository's site (deploy/nginx/jumbe.conf, TLS swapped for plain HTTP as tests/support/nginx.ts
// does) with two `node build/server/index.js` on one PostgreSQL database (a private cluster, fsync
// off). It measures GET /dashboard and GET /api/auth/me, signed in, straight at each instance, through
// nginx to one instance (the second `server` line removed) and through nginx to two, and reports the
// two-instance factor. The instances' CPU shares show whether both took the load. With `rounds` > 1
// the nginx runs repeat in alternating order (1 then 2 instances, then 2 then 1, ...) and the factor
// compares each setup's best round: other work on the machine only ever slows a run down.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { postgresBinDir, startPrivatePostgres } from "./lib/database.mjs";
import { signIn } from "./lib/http.mjs";
import { findNginx, siteConfig, SITE_CONFIG, SITE_NAME, startNginx } from "./lib/nginx.mjs";
import { childProcesses } from "./lib/proc.mjs";
import { freePort, startServer } from "./lib/server.mjs";
import { measureLoad } from "./pages.mjs";

const PATHS = [
  { path: "/dashboard", accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
  { path: "/api/auth/me", accept: "application/json" },
];

/**
 * Two instances of the production build on one private PostgreSQL cluster (fsync off), set up to sit
 * behind the repository's nginx site: APP_URL names the site (SITE_NAME at a free port, the one
 * `ports.https` gives nginx), TRUST_PROXY=loopback, sign-in limits raised. `extraEnv` goes to both
 * (one SESSION_SECRET, ENCRYPTION_KEY and META_APP_SECRET for both, as deployed). Resolves to
 * { postgres, servers, ports, host, origin, source (the site file), stop() }.
 */
export async function startInstancePair({ root, extraEnv = {}, postgresOptions = {}, log = console.log }) {
  const postgres = await startPrivatePostgres(postgresOptions);
  const servers = [];
  const stop = async () => {
    for (const server of servers) await server.stop();
    postgres.destroy();
  };
  try {
    const ports = { http: await freePort(), https: await freePort() };
    // As a browser at the site's name would send them: APP_URL names nginx's address.
    const host = `${SITE_NAME}:${ports.https}`;
    const origin = `http://${host}`;
    const env = {
      APP_URL: origin,
      TRUST_PROXY: "loopback",
      RATE_LIMIT_MULTIPLIER: "1000000",
      SESSION_SECRET: randomBytes(32).toString("hex"),
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      META_APP_SECRET: randomBytes(24).toString("hex"),
      ...extraEnv,
    };
    // One after the other: the first applies the migrations and seeds the demo accounts.
    for (let i = 0; i < 2; i++) servers.push(await startServer({ root, databaseUrl: postgres.url, extraEnv: env }));
    log(`  two instances on ports ${servers.map((s) => s.port).join(" and ")}, one PostgreSQL database`);
    const source = readFileSync(path.join(root, SITE_CONFIG), "utf8");
    return { postgres, servers, ports, host, origin, env, source, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export async function benchNginxPair({ root, accounts, duration, connections = 10, rounds = 1, log = console.log }) {
  const binary = findNginx();
  if (!binary) return { skipped: "nginx is not installed (Debian: apt-get install nginx)" };
  if (!postgresBinDir())
    return { skipped: "two instances need PostgreSQL, and its binaries were not found (/usr/lib/postgresql/15/bin or pg_config --bindir)" };

  const pair = await startInstancePair({ root, log });
  const { postgres, servers, ports, host, origin, source } = pair;
  let nginx = null;
  try {
    const pids = servers.map((s) => s.pid);

    const runs = [];
    const measureAll = async (setup, base, cookie, round = 1) => {
      for (const target of PATHS) {
        const headers = { Host: host, Accept: target.accept, Cookie: cookie };
        log(`  ${setup}${rounds > 1 ? `, round ${round}` : ""}: GET ${target.path} ...`);
        // nginx's master and workers count as the benchmark's own, not as other work.
        const helperPids = nginx ? () => [nginx.pid, ...childProcesses(nginx.pid)] : undefined;
        const run = await measureLoad({
          url: `${base}${target.path}`,
          headers,
          pids,
          databasePids: postgres.processIds,
          helperPids,
          duration,
          connections,
        });
        runs.push({ setup, round, path: target.path, ...run });
      }
    };

    // Straight at each instance, for reference and so both are warm (the Host header as nginx
    // passes it; the session, in the shared database, is good on both).
    const directCookie = await signIn(servers[0].baseUrl, accounts.individual, { host, origin });
    for (const [i, server] of servers.entries()) await measureAll(`direct, instance ${"AB"[i]}`, server.baseUrl, directCookie);

    for (let round = 1; round <= rounds; round++) {
      for (const instances of round % 2 ? [1, 2] : [2, 1]) {
        const site = siteConfig(source, { ...ports, upstreams: servers.slice(0, instances).map((s) => s.port) });
        nginx = await startNginx(binary, site, { https: ports.https, host });
        // Signed in through nginx, as a browser would be.
        const cookie = await signIn(nginx.base, accounts.individual, { host, origin });
        await measureAll(`nginx, ${instances} instance${instances > 1 ? "s" : ""}`, nginx.base, cookie, round);
        await nginx.stop();
        nginx = null;
      }
    }

    const rate = (setup, p) => Math.max(...runs.filter((r) => r.setup === setup && r.path === p).map((r) => r.requestsPerSecond));
    const factors = Object.fromEntries(PATHS.map(({ path: p }) => [p, rate("nginx, 2 instances", p) / rate("nginx, 1 instance", p)]));
    return { connections, durationSeconds: duration, rounds, postgresSettings: postgres.settings, runs, factors };
  } finally {
    await nginx?.stop();
    await pair.stop();
  }
}

const fixed = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");

export function formatNginxPair(report, { table }) {
  if (report.skipped) return `nginx in front of two instances: skipped (${report.skipped})`;
  if (report.problem) return `nginx in front of two instances: not measured (${report.problem})`;
  const rows = report.runs.map((r) => {
    const other = Object.entries(r.statuses).filter(([code]) => code !== "200");
    return [
      r.path,
      report.rounds > 1 && r.setup.startsWith("nginx") ? `${r.setup} (${r.round})` : r.setup,
      fixed(r.requestsPerSecond, 0),
      fixed(r.latencyMs.p50, 0),
      fixed(r.latencyMs.p99, 0),
      fixed(r.cpuMsPerRequest, 2),
      fixed(r.databaseCpuMsPerRequest, 2),
      r.cpuShares.map((share) => `${Math.round(share * 100)}%`).join(" + "),
      fixed(r.otherCpus, 1),
      other.length || r.errors ? `${other.map(([c, n]) => `${c}:${n}`).join(" ")}${r.errors ? ` errors:${r.errors}` : ""}` : "",
    ];
  });
  const factors = Object.entries(report.factors)
    .map(([p, f]) => `${p} ${fixed(f, 2)}x`)
    .join(", ");
  return [
    `nginx (deploy/nginx/jumbe.conf, plain HTTP) in front of Jumbe on one PostgreSQL database, ${report.connections} connections, ${report.durationSeconds} s each`,
    table(
      ["path", "setup", "req/s", "p50 ms", "p99 ms", "Node CPU ms/req", "PostgreSQL CPU ms/req", "instances' CPU", "other CPUs", "not 200"],
      rows,
    ),
    `  two instances vs one behind nginx: ${factors} the requests per second${report.rounds > 1 ? ` (best of ${report.rounds} rounds each)` : ""}`,
    "  other CPUs = CPUs busy with work outside the benchmark during the run: near 0 on a quiet machine",
  ].join("\n");
}
