// nginx with the repository's site (deploy/nginx/jumbe.conf) for benchmarks, made runnable the way
// tests/support/nginx.ts makes it: plain HTTP on free loopback ports instead of 80 and 443 with TLS,
// the upstream instances' ports changed, everything else as shipped. nginx runs in the foreground
// as a child process with its configuration, pid file, logs and temp paths under a temporary prefix.
import { spawn } from "node:child_process";
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { request } from "./http.mjs";

export const SITE_CONFIG = "deploy/nginx/jumbe.conf";
/** The site's server_name: requests carry it (with nginx's port) in Host, and APP_URL names it. */
export const SITE_NAME = "jumbe.example.co.ke";

/** nginx as Debian installs it, or the first on PATH; undefined when there is none. */
export function findNginx() {
  for (const candidate of ["/usr/sbin/nginx", ...(process.env.PATH ?? "").split(":").map((dir) => path.join(dir, "nginx"))]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The shipped site with `upstreams` (one or two ports) in place of 3000 and 3001 (with one, the
 * second `server` line goes, as the file's own comment says for a single instance), plain HTTP on
 * `ports.http` and `ports.https`. Each rewrite must apply, so a change of the site's shape is noticed.
 */
export function siteConfig(source, { http, https, upstreams }) {
  let config = source;
  const rewrite = (pattern, replacement, what) => {
    if (!pattern.test(config)) throw new Error(`${SITE_CONFIG} no longer has ${what} (${pattern}); update bench/lib/nginx.mjs`);
    pattern.lastIndex = 0;
    config = config.replace(pattern, replacement);
  };
  rewrite(/server 127\.0\.0\.1:3000\b/, `server 127.0.0.1:${upstreams[0]}`, "the upstream instance on 3000");
  if (upstreams.length > 1) rewrite(/server 127\.0\.0\.1:3001\b/, `server 127.0.0.1:${upstreams[1]}`, "the upstream instance on 3001");
  else rewrite(/^[ \t]*server 127\.0\.0\.1:3001\b[^;]*;[ \t]*\n/m, "", "the upstream instance on 3001");
  rewrite(/^[ \t]*listen \[::\]:[^;]*;[ \t]*\n/gm, "", "IPv6 listens");
  rewrite(/\blisten 80\b/g, `listen 127.0.0.1:${http}`, "listen 80");
  rewrite(/\blisten 443 ssl http2\b/g, `listen 127.0.0.1:${https}`, "listen 443 ssl http2");
  rewrite(/^[ \t]*ssl_[a-z_]+ [^;]*;[ \t]*\n/gm, "", "ssl_ settings");
  return config;
}

/**
 * Starts nginx with `site` (from siteConfig) and waits until the site answers /healthz at
 * `host`. `workers` is worker_processes (default auto: one per CPU, as Debian ships it). The access
 * log is off: the figures are the proxying's, not the disk's. `httpLines` adds directives to the
 * http block (bench/inbox.mjs adds a header naming the upstream that answered: the site's own
 * locations add none except /assets/, so it applies everywhere else). Resolves to { base, pid, stop }.
 */
export async function startNginx(binary, site, { https, host, workers = "auto", httpLines = [] }) {
  const prefix = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-nginx-"));
  // Run as root, its workers drop to nobody: the prefix must be open to them.
  chmodSync(prefix, 0o755);
  for (const dir of ["logs", "temp"]) mkdirSync(path.join(prefix, dir), { mode: 0o777 });
  chmodSync(path.join(prefix, "temp"), 0o777);
  writeFileSync(path.join(prefix, "jumbe.conf"), site);
  const temp = (name) => path.join(prefix, "temp", name);
  writeFileSync(
    path.join(prefix, "nginx.conf"),
    [
      `worker_processes ${workers};`,
      "events { worker_connections 1024; }",
      "http {",
      "    default_type application/octet-stream;",
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `    ${name}_temp_path ${temp(name)};`),
      "    access_log off;",
      ...httpLines.map((line) => `    ${line}`),
      `    include ${path.join(prefix, "jumbe.conf")};`,
      "}",
      "",
    ].join("\n"),
  );
  const errorLog = path.join(prefix, "logs", "error.log");
  const directives = `daemon off; master_process on; pid ${path.join(prefix, "nginx.pid")}; error_log ${errorLog} warn;`;
  const child = spawn(binary, ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-g", directives], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // QUIT: graceful shutdown of master and workers.
      child.kill("SIGQUIT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await new Promise((resolve) => child.once("exit", resolve));
      clearTimeout(timer);
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${https}`;
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    try {
      const health = await request(`${base}/healthz`, { headers: { Host: host } });
      if (health.status === 200) return { base, pid: child.pid, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let log = "";
  try {
    log = readFileSync(errorLog, "utf8");
  } catch {
    // none
  }
  await stop();
  throw new Error(`nginx did not start:\n${output}${log}`);
}
