import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { findExecutable } from "./local-tools";
import { rawRequest } from "./raw-http";

/** nginx as Debian installs it, or the first on PATH; undefined when there is none. */
export const findNginx = () => findExecutable("nginx");

export const SITE_CONFIG = "deploy/nginx/jumbe.conf";

/**
 * The deploy site made runnable in a test, changing only what a test machine needs: the upstream
 * instances' ports, plain HTTP on free loopback ports instead of 80 and 443 with TLS (every `ssl_`
 * line goes, IPv6 listens too). Everything else (server names, headers, locations, limits) is the
 * file as shipped. Each rewrite must apply, so the test notices when the site changes shape.
 */
export function siteConfigForTest(source: string, ports: { http: number; https: number; upstreams: [number, number] }) {
  let config = source;
  const rewrite = (pattern: RegExp, replacement: string, what: string) => {
    if (!pattern.test(config)) throw new Error(`${SITE_CONFIG} no longer has ${what} (${pattern}); update tests/support/nginx.ts`);
    pattern.lastIndex = 0;
    config = config.replace(pattern, replacement);
  };
  rewrite(/server 127\.0\.0\.1:3000\b/, `server 127.0.0.1:${ports.upstreams[0]}`, "the upstream instance on 3000");
  rewrite(/server 127\.0\.0\.1:3001\b/, `server 127.0.0.1:${ports.upstreams[1]}`, "the upstream instance on 3001");
  rewrite(/^[ \t]*listen \[::\]:[^;]*;[ \t]*\n/gm, "", "IPv6 listens");
  rewrite(/\blisten 80\b/g, `listen 127.0.0.1:${ports.http}`, "listen 80");
  rewrite(/\blisten 443 ssl http2\b/g, `listen 127.0.0.1:${ports.https}`, "listen 443 ssl http2");
  rewrite(/^[ \t]*ssl_[a-z_]+ [^;]*;[ \t]*\n/gm, "", "ssl_ settings");
  return config;
}

export interface RunningNginx {
  /** The site's former 443 server, on plain HTTP. */
  base: string;
  /** The site's port-80 server (the redirect to https). */
  httpBase: string;
  child: ChildProcess;
  /** Access log lines: `<status> <upstream or -> <method> <uri>`. */
  accessLog: () => string[];
  output: () => string;
  stop: () => Promise<void>;
}

/** The response header `answerUpstream` asks for: the instance (`$upstream_addr`) that answered. */
export const UPSTREAM_HEADER = "x-test-upstream";

/**
 * Runs nginx in the foreground (`daemon off`) as a child process with everything under a temporary
 * prefix: the configuration, the pid file, the logs and the temp paths for bodies and proxied
 * responses, so it needs no root and touches nothing of the machine's own nginx. Run as root, its
 * workers drop to nobody, hence a prefix others may enter.
 *
 * `answerUpstream`: each answer names the instance nginx chose in UPSTREAM_HEADER, set in the
 * test's http block around the site (which inherits it: the site's own add_header is in /assets/
 * only), so a test knows where a request went as the answer starts: a stream still open, or the
 * webhook, which the site does not log.
 */
export async function startNginx(
  binary: string,
  site: string,
  ports: { http: number; https: number },
  options: { answerUpstream?: boolean } = {},
): Promise<RunningNginx> {
  const prefix = mkdtempSync(path.join(tmpdir(), "jumbe-nginx-"));
  chmodSync(prefix, 0o755);
  for (const dir of ["logs", "temp"]) mkdirSync(path.join(prefix, dir), { mode: 0o777 });
  chmodSync(path.join(prefix, "temp"), 0o777);
  writeFileSync(path.join(prefix, "jumbe.conf"), site);
  const temp = (name: string) => path.join(prefix, "temp", name);
  writeFileSync(
    path.join(prefix, "nginx.conf"),
    [
      "worker_processes 1;",
      "events { worker_connections 256; }",
      "http {",
      "    default_type application/octet-stream;",
      `    client_body_temp_path ${temp("client_body")};`,
      `    proxy_temp_path ${temp("proxy")};`,
      `    fastcgi_temp_path ${temp("fastcgi")};`,
      `    uwsgi_temp_path ${temp("uwsgi")};`,
      `    scgi_temp_path ${temp("scgi")};`,
      "    log_format upstream '$status $upstream_addr $request_method $request_uri';",
      `    access_log ${path.join(prefix, "logs", "access.log")} upstream;`,
      ...(options.answerUpstream ? [`    add_header ${UPSTREAM_HEADER} $upstream_addr always;`] : []),
      `    include ${path.join(prefix, "jumbe.conf")};`,
      "}",
      "",
    ].join("\n"),
  );
  const directives = `daemon off; master_process on; pid ${path.join(prefix, "nginx.pid")}; error_log ${path.join(prefix, "logs", "error.log")} warn;`;
  const child = spawn(binary, ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-g", directives], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const errorLog = () => {
    try {
      return readFileSync(path.join(prefix, "logs", "error.log"), "utf8");
    } catch {
      return "";
    }
  };
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
  const base = `http://127.0.0.1:${ports.https}`;
  // A deadline, not a number of tries (each try may wait 2 s for its answer): under the hooks' 60 s.
  const deadline = Date.now() + 50_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const probe = await rawRequest(
      base,
      { method: "GET", path: "/healthz", headers: { host: "nginx-probe.invalid" } },
      { timeoutMs: 2000 },
    );
    // nginx failing to bind a port retries for a while before it exits: whoever answers meanwhile
    // is another process, so an [emerg] in its log ends the wait with nginx's own words.
    if (/\[emerg\]/.test(`${output}${errorLog()}`)) break;
    // An answer, or the catch-all's dropped connection; not a refusal, nor a probe that timed out.
    if (probe.status > 0 || /socket hang up|ECONNRESET/.test(probe.body)) {
      return {
        base,
        httpBase: `http://127.0.0.1:${ports.http}`,
        child,
        accessLog: () => {
          try {
            return readFileSync(path.join(prefix, "logs", "access.log"), "utf8")
              .split("\n")
              .filter(Boolean);
          } catch {
            return [];
          }
        },
        output: () => `${output}${errorLog()}`,
        stop,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const failure = `${output}${errorLog()}`;
  await stop();
  throw new Error(`nginx did not start:\n${failure}`);
}

/**
 * `nginx -t` of the site as shipped (TLS, ports 80 and 443, HTTP/2, the catch-all's
 * ssl_reject_handshake), with a throwaway self-signed certificate in place of Let's Encrypt's.
 * Nothing is bound. Undefined when openssl is missing.
 */
export function checkShippedSite(binary: string, source: string): { ok: boolean; output: string } | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), "jumbe-nginx-t-"));
  try {
    const cert = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=jumbe.example.co.ke",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
      ],
      { encoding: "utf8" },
    );
    if (cert.error || cert.status !== 0) return undefined;
    const site = source
      .replace(/\/etc\/letsencrypt\/live\/[^/]+\/fullchain\.pem/g, path.join(dir, "cert.pem"))
      .replace(/\/etc\/letsencrypt\/live\/[^/]+\/privkey\.pem/g, path.join(dir, "key.pem"));
    writeFileSync(path.join(dir, "site.conf"), site);
    const temp = (name: string) => path.join(dir, name);
    writeFileSync(
      path.join(dir, "nginx.conf"),
      `events {}\nhttp {\n    client_body_temp_path ${temp("body")}; proxy_temp_path ${temp("proxy")}; fastcgi_temp_path ${temp("fastcgi")}; uwsgi_temp_path ${temp("uwsgi")}; scgi_temp_path ${temp("scgi")};\n    access_log off;\n    include ${path.join(dir, "site.conf")};\n}\n`,
    );
    const test = spawnSync(
      binary,
      ["-t", "-p", dir, "-c", path.join(dir, "nginx.conf"), "-g", `pid ${temp("nginx.pid")}; error_log ${temp("error.log")};`],
      { encoding: "utf8" },
    );
    return { ok: test.status === 0, output: `${test.stdout}${test.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One directive of an nginx configuration: its name, its arguments, and the block it opens. */
export interface NginxDirective {
  name: string;
  args: string[];
  block?: NginxDirective[];
}

/**
 * nginx's configuration syntax, enough for the site: directives end with `;` or open a `{ }`
 * block, `#` starts a comment, quotes keep spaces. A regex holding `{`, `;` or `#` must be quoted
 * in nginx too, so words split where nginx splits them.
 */
export function parseNginxConfig(source: string): NginxDirective[] {
  const tokens: string[] = [];
  for (let i = 0; i < source.length;) {
    const c = source[i]!;
    if (/\s/.test(c)) i++;
    else if (c === "#") while (i < source.length && source[i] !== "\n") i++;
    else if (c === ";" || c === "{" || c === "}") tokens.push(source[i++]!);
    else if (c === '"' || c === "'") {
      let word = "";
      for (i++; i < source.length && source[i] !== c; i++) word += source[i] === "\\" ? source[++i] : source[i];
      i++;
      tokens.push(word);
    } else {
      let word = "";
      while (i < source.length && !/[\s;{}]/.test(source[i]!)) word += source[i++];
      tokens.push(word);
    }
  }
  let at = 0;
  const block = (): NginxDirective[] => {
    const directives: NginxDirective[] = [];
    while (at < tokens.length && tokens[at] !== "}") {
      const words: string[] = [];
      while (at < tokens.length && tokens[at] !== ";" && tokens[at] !== "{") words.push(tokens[at++]!);
      const [name, ...args] = words;
      if (!name) throw new Error(`nginx configuration: a directive without a name near token ${at}`);
      if (tokens[at++] === "{") {
        directives.push({ name, args, block: block() });
        at++;
      } else directives.push({ name, args });
    }
    return directives;
  };
  return block();
}

/** An nginx size (`1m`, `512k`, `4096`) in bytes. */
export function nginxBytes(size: string) {
  const match = /^(\d+)([kKmMgG]?)$/.exec(size);
  if (!match) throw new Error(`not an nginx size: ${size}`);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2]!.toLowerCase() as "" | "k" | "m" | "g"];
  return Number(match[1]) * unit;
}

export interface SiteLocation {
  /** `=`, `^~`, `~`, `~*`, or "" for a plain prefix. */
  modifier: string;
  pattern: string;
  /** Its own client_max_body_size, in bytes. */
  bodyLimit?: number;
}

/** The public site's body limits: its server's client_max_body_size and its locations'. */
export interface SiteBodyLimits {
  server: number;
  locations: SiteLocation[];
}

/** The server that serves the site's name over TLS (the one browsers reach), as shipped. */
export function siteBodyLimits(source: string, name = "jumbe.example.co.ke"): SiteBodyLimits {
  const http = parseNginxConfig(source).filter((d) => d.name === "server");
  const server = http.find(
    (s) =>
      s.block!.some((d) => d.name === "server_name" && d.args.includes(name)) &&
      s.block!.some((d) => d.name === "listen" && d.args[0] === "443"),
  );
  if (!server) throw new Error(`${SITE_CONFIG} has no server for ${name} on 443; update tests/support/nginx.ts`);
  const size = (directives: NginxDirective[]) => {
    const limit = directives.find((d) => d.name === "client_max_body_size");
    return limit ? nginxBytes(limit.args[0]!) : undefined;
  };
  const locations = server
    .block!.filter((d) => d.name === "location")
    .map((d) => {
      if (d.block!.some((inner) => inner.name === "location")) throw new Error("nested locations: update tests/support/nginx.ts");
      const [modifier, pattern] = d.args.length === 2 ? d.args : ["", d.args[0]!];
      return { modifier: modifier!, pattern: pattern!, bodyLimit: size(d.block!) };
    });
  // nginx's own default when the server says nothing.
  return { server: size(server.block!) ?? 1024 ** 2, locations };
}

/**
 * The location nginx picks for a (normalised) path, as nginx documents it: an exact `=` match;
 * else the longest prefix, kept if it is `^~`; else the first regex in the file's order that
 * matches (`~*` ignoring case); else that longest prefix.
 */
export function locationFor(site: SiteBodyLimits, path: string): SiteLocation | undefined {
  const exact = site.locations.find((l) => l.modifier === "=" && l.pattern === path);
  if (exact) return exact;
  const prefix = site.locations
    .filter((l) => (l.modifier === "" || l.modifier === "^~") && path.startsWith(l.pattern))
    .sort((a, b) => b.pattern.length - a.pattern.length)[0];
  if (prefix?.modifier === "^~") return prefix;
  const regex = site.locations.find(
    (l) => (l.modifier === "~" || l.modifier === "~*") && new RegExp(l.pattern, l.modifier === "~*" ? "i" : "").test(path),
  );
  return regex ?? prefix;
}

/** The most a body may carry at `path` before nginx answers 413 itself. */
export function nginxBodyLimitAt(site: SiteBodyLimits, path: string) {
  return locationFor(site, path)?.bodyLimit ?? site.server;
}
