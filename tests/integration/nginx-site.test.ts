import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import routes from "~/routes";
import { ENDPOINTS } from "~/.server/adapters/api-v1/endpoints";
import { RETRY_AFTER_SECONDS } from "~/.server/infrastructure/db/availability";
import { BODY_LIMITS, bodyLimitFor, LARGE_BODY_ROUTES } from "~/.server/infrastructure/http/body-limit";
import { INBOX_ATTACHMENT_MAX_BYTES } from "~/.server/domains/inbox/reply-form";
import { IMPORT_MAX_BYTES } from "~/lib/contact-import";
import { SAMPLE_MAX_BYTES } from "~/lib/templates";
import { DEMO, buildExists, reservePort, startBuiltServer, type BuiltServer } from "../support/built-server";
import {
  checkShippedSite,
  findNginx,
  locationFor,
  nginxBodyLimitAt,
  siteBodyLimits,
  siteConfigForTest,
  SITE_CONFIG,
  startNginx,
  type RunningNginx,
} from "../support/nginx";
import { postgresBinDir, startPrivateCluster, type PrivateCluster } from "../support/private-postgres";
import { rawRequest, streamLargeBody } from "../support/raw-http";

// Issue 9: deploy/nginx/jumbe.conf as shipped (TLS swapped for plain HTTP on a free, non-standard
// port) in front of two built instances on one PostgreSQL database. It sent `Host $host`, so every
// form POST behind a non-standard port was refused (400, "request.url origin does not match"),
// and it blocked /sandbox/ case-sensitively. Issue 38: it counted an instance's 503 (the database
// down, decision 011) as a dead instance, so an outage became 502s for every request and for 10 s
// after it, and it refused chat attachments over 1 MB. Runs in `npm test`'s PostgreSQL step, after
// the build, on a cluster of its own, which it stops and starts.
const binary = findNginx();
const postgres = !!process.env.TEST_DATABASE_URL;
const required = process.env.JUMBE_REQUIRE_POSTGRES === "1";
const ready = !!binary && postgres && buildExists() && (!!postgresBinDir() || required);
const NAME = "jumbe.example.co.ke";
const MB = 1024 * 1024;
const APP_SECRET = randomBytes(24).toString("hex");

if (!ready) {
  const missing = [
    !binary && "nginx",
    !postgres && "PostgreSQL (TEST_DATABASE_URL)",
    !postgresBinDir() && "PostgreSQL's binaries",
    !buildExists() && "a build (build/server/index.js)",
  ]
    .filter(Boolean)
    .join(", ");
  console.warn(`nginx site test skipped: needs ${missing}. It runs in npm test's PostgreSQL step (Debian: apt-get install nginx).`);
}

// CI installs nginx (.ci/run); there a missing nginx is a failure, not a skip.
describe.runIf(postgres && required && !binary)("nginx site (CI)", () => {
  it("has nginx installed", () => {
    expect(binary, "nginx is missing: .ci/run installs it, and JUMBE_REQUIRE_POSTGRES=1 makes this test mandatory").toBeDefined();
  });
});

let nginx: RunningNginx;
const servers: BuiltServer[] = [];
let cluster: PrivateCluster | undefined;
let host = "";
let origin = "";

beforeAll(async () => {
  if (!ready) return;
  // Held until nginx binds them: the instances and the database start first, which takes a while.
  const reserved = [await reservePort(), await reservePort()];
  const ports = { http: reserved[0]!.port, https: reserved[1]!.port };
  host = `${NAME}:${ports.https}`;
  origin = `http://${host}`;
  cluster = await startPrivateCluster();
  // One after the other: the first applies the migrations and seeds the demo accounts.
  for (let i = 0; i < 2; i++)
    servers.push(
      await startBuiltServer({ APP_URL: origin, TRUST_PROXY: "loopback", META_APP_SECRET: APP_SECRET }, { databaseUrl: cluster.url }),
    );
  const site = siteConfigForTest(readFileSync(SITE_CONFIG, "utf8"), { ...ports, upstreams: [servers[0]!.port, servers[1]!.port] });
  for (const r of reserved) await r.release();
  nginx = await startNginx(binary!, site, ports);
}, 180_000);

afterAll(async () => {
  await nginx?.stop();
  for (const server of servers) await server.stop();
  cluster?.destroy();
});

let probes = 0;
/** A request through nginx as a browser at the public name sends it; a unique query finds its log line. */
async function through(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) {
  const probe = `probe=${++probes}`;
  const uri = `${path}${path.includes("?") ? "&" : "?"}${probe}`;
  const answer = await rawRequest(nginx.base, { method, path: uri, headers: { host, ...headers }, body });
  return { ...answer, upstream: await upstreamOf(uri) };
}

/**
 * Which instance nginx sent a request to ("-": none, nginx answered itself). nginx logs a request
 * as it finishes it, which can be just after the client has the answer: the line is waited for.
 */
async function upstreamOf(uri: string) {
  // Until the line is there, with a hang detector's deadline (2.5 s was not always enough under load).
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const line = nginx.accessLog().find((l) => l.endsWith(` ${uri}`));
    if (line) return line.split(" ")[1];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The fields a browser would post from the page's first POST form: hidden inputs and the rest. */
function formFields(html: string) {
  const form = /<form\b[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html)?.[1] ?? "";
  const fields = new URLSearchParams();
  for (const input of form.match(/<input\b[^>]*>/gi) ?? []) {
    const name = /\bname="([^"]*)"/.exec(input)?.[1];
    const type = /\btype="([^"]*)"/.exec(input)?.[1] ?? "text";
    if (!name || type === "checkbox") continue;
    fields.set(name, (/\bvalue="([^"]*)"/.exec(input)?.[1] ?? "").replace(/&amp;/g, "&").replace(/&quot;/g, '"'));
  }
  return fields;
}

const HTML = "text/html,application/xhtml+xml,*/*;q=0.8";

/** Signs in as the demo owner through nginx (the JSON API); the session cookie. */
async function signIn() {
  const answer = await through(
    "POST",
    "/api/auth/signin",
    { origin, accept: "application/json", "content-type": "application/json" },
    JSON.stringify(DEMO),
  );
  expect(answer.status, answer.body.slice(0, 300)).toBe(200);
  const cookie = (answer.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]!).find((c) => c.startsWith("jumbe_session="));
  expect(cookie).toBeDefined();
  return cookie!;
}

/** Rows of the instances' database. */
async function rows<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: cluster!.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** A multipart/form-data body as a browser sends it: text fields, then one file. */
function multipartBody(
  boundary: string,
  fields: Record<string, string>,
  file: { name: string; fileName: string; type: string; bytes: Buffer },
) {
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.fileName}"\r\nContent-Type: ${file.type}\r\n\r\n`;
  return Buffer.concat([Buffer.from(parts.join("") + fileHead), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]);
}

/**
 * Two requests on one kept-alive connection straight to an instance, the second written once the
 * first is answered: the status of each answer that came (none once the connection closed, or
 * after 60 s, a hang detector's deadline).
 */
async function twoOnOneConnection(base: string, first: Buffer, second: Buffer): Promise<number[]> {
  const url = new URL(base);
  const socket = net.connect(Number(url.port), url.hostname);
  let received = "";
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  const answers = () => [...received.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
  const wait = async (count: number) => {
    let open = true;
    void closed.then(() => (open = false));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && open && answers().length < count) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  socket.write(first);
  await wait(1);
  socket.write(second);
  await wait(2);
  socket.destroy();
  return answers();
}

/** Polls until `check` holds (a generous bound, not a timed assertion). */
async function until(check: () => Promise<boolean>, what: string, boundMs = 60_000) {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting: ${what}`);
}

/** Every path of app/routes.ts, its parameters filled in. */
function routePaths(entries: RouteConfigEntry[], parent = ""): string[] {
  return entries.flatMap((entry) => {
    const own = entry.index || entry.path === undefined ? parent : `${parent}/${entry.path}`;
    const here = entry.path === undefined && !entry.index ? [] : [own || "/"];
    return [...here, ...routePaths(entry.children ?? [], own)];
  });
}
const filled = (pattern: string) =>
  pattern
    .replace(/:[A-Za-z]+/g, "1f7c2e9a")
    .replace(/\{[A-Za-z]+\}/g, "1f7c2e9a")
    .replace(/\*$/, "x");

// No nginx needed: the site's locations against the app's list, in every test run.
describe("the site's body limits against the app's", () => {
  const site = siteBodyLimits(readFileSync(SITE_CONFIG, "utf8"));
  const wholeMegabytes = (bytes: number) => Math.ceil(bytes / MB) * MB;

  it("gives each path of the app's large-body list its limit in whole megabytes, and has no larger location besides", () => {
    expect(site.server).toBe(1 * MB);
    const paths = LARGE_BODY_ROUTES.flatMap((route) =>
      route.examples.map((path) => ({ route: route.name, path, jumbe: route.limit, nginx: nginxBodyLimitAt(site, path) })),
    );
    expect(paths.filter((p) => p.nginx !== wholeMegabytes(p.jumbe))).toEqual([]);
    // The list is what Express applies (the webhook's receiver, before Express, checks its own).
    for (const route of LARGE_BODY_ROUTES) {
      expect(route.limit, route.name).toBeGreaterThan(site.server);
      if (route.matches) for (const path of route.examples) expect(bodyLimitFor(path), path).toBe(route.limit);
    }
    const used = new Set(paths.map((p) => locationFor(site, p.path)));
    const leftOver = site.locations.filter((l) => l.bodyLimit !== undefined && l.bodyLimit > site.server && !used.has(l));
    expect(leftOver.map((l) => `location ${l.modifier} ${l.pattern}`)).toEqual([]);
  });

  it("lets through, at every route and API endpoint, what Jumbe takes there", () => {
    const paths = [...new Set(routePaths(routes).map(filled))].flatMap((path) => [path, `${path === "/" ? "/_" : path}.data`]);
    expect(paths).toContain("/chat/1f7c2e9a.data");
    const refused = paths.filter((path) => nginxBodyLimitAt(site, path) < bodyLimitFor(path));
    expect(refused.map((path) => `${path}: nginx ${nginxBodyLimitAt(site, path)}, Jumbe ${bodyLimitFor(path)}`)).toEqual([]);
    // The API's uploads declare their own limits; Express and nginx both let them through.
    const uploads = ENDPOINTS.flatMap((e) => {
      const limit = e.rawBody?.maxBytes ?? e.multipart?.maxBytes;
      return limit ? [{ path: filled(e.path), limit }] : [];
    });
    expect(uploads.map((u) => u.path)).toEqual(expect.arrayContaining(["/api/v1/media", "/api/v1/template-samples"]));
    for (const upload of uploads) {
      expect(bodyLimitFor(upload.path), upload.path).toBeGreaterThanOrEqual(upload.limit);
      expect(nginxBodyLimitAt(site, upload.path), upload.path).toBeGreaterThanOrEqual(upload.limit);
    }
    // And the pages' files fit their page's limit: the inbox's attachment, the import's CSV, a template's sample.
    expect(BODY_LIMITS.chatReply).toBeGreaterThan(INBOX_ATTACHMENT_MAX_BYTES);
    expect(BODY_LIMITS.contactImport).toBeGreaterThan(IMPORT_MAX_BYTES);
    expect(BODY_LIMITS.templateForm).toBeGreaterThan(SAMPLE_MAX_BYTES);
    expect(BODY_LIMITS.templateSample).toBeGreaterThanOrEqual(SAMPLE_MAX_BYTES);
  });
});

describe.runIf(ready)("the nginx site in front of two instances", () => {
  it("is valid as shipped, with TLS and HTTP/2 (nginx -t, a self-signed certificate)", (context) => {
    const check = checkShippedSite(binary!, readFileSync(SITE_CONFIG, "utf8"));
    if (!check) return context.skip("openssl is missing: no certificate for nginx -t");
    expect(check.ok, check.output).toBe(true);
    expect(check.output).toContain("test is successful");
  });

  it("signs in with a plain HTML form (no JavaScript) on a non-standard port", async () => {
    const page = await through("GET", "/login", { accept: HTML });
    expect(page.status).toBe(200);
    const fields = formFields(page.body);
    fields.set("email", DEMO.email);
    fields.set("password", DEMO.password);
    const signIn = await through(
      "POST",
      "/login",
      { accept: HTML, origin, "content-type": "application/x-www-form-urlencoded" },
      fields.toString(),
    );
    expect(signIn.status, signIn.body.slice(0, 300)).toBe(302);
    expect(signIn.headers.location).toBe("/dashboard");
    const cookie = (signIn.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).find((c) => c!.startsWith("jumbe_session="));
    expect(cookie).toBeDefined();
    // The session is in the shared database: every instance knows it.
    const upstreams = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const dashboard = await through("GET", "/dashboard", { accept: HTML, cookie: cookie! });
      expect(dashboard.status).toBe(200);
      expect(dashboard.body).toContain("<title>Overview | Jumbe</title>");
      upstreams.add(dashboard.upstream!);
    }
    expect(upstreams.size).toBe(2);
  });

  it("passes the public host on, whatever the client writes in X-Forwarded-Host", async () => {
    const page = await through("GET", "/login", { accept: HTML, "x-forwarded-host": "evil.example" });
    expect(page.status).toBe(200);
    expect(page.body).not.toContain("evil.example");
  });

  it("gives each request nginx's own id over the client's, and the answer says it", async () => {
    const first = await through("GET", "/login", { accept: HTML, "x-request-id": "chosen-by-the-client-1" });
    const second = await through("GET", "/login", { accept: HTML });
    expect(first.status).toBe(200);
    expect(first.headers["x-request-id"]).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers["x-request-id"]).toMatch(/^[0-9a-f]{32}$/);
    expect(second.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
  });

  it("spreads requests over both instances", async () => {
    const used = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const health = await through("GET", "/healthz");
      expect(health.status).toBe(200);
      used.add(health.upstream!);
    }
    expect([...used].sort()).toEqual([`127.0.0.1:${servers[0]!.port}`, `127.0.0.1:${servers[1]!.port}`].sort());
  });

  it("answers 404 itself for /sandbox in any case or spelling, without asking an instance", async () => {
    const attempts: Array<[string, string]> = [
      ["GET", "/sandbox/mail"],
      ["GET", "/sandbox"],
      ["GET", "/Sandbox/meta"],
      ["GET", "/SANDBOX/meta/control/state"],
      ["GET", "/Sandbox/mail"],
      ["POST", "/sAnDbOx/meta/control/raw"],
      ["GET", "/%73andbox/mail.json"],
      ["GET", "/%53ANDBOX/meta"],
      ["GET", "/login/../sandbox/mail"],
      ["GET", "/sandbox%2Fmail"],
    ];
    for (const [method, path] of attempts) {
      const answer = await through(
        method,
        path,
        { accept: "application/json", "content-type": "application/json" },
        method === "POST" ? "{}" : undefined,
      );
      expect.soft(answer.status, `${method} ${path}`).toBe(404);
      expect.soft(answer.upstream, `${method} ${path}: nginx answers, no instance`).toBe("-");
    }
    // The instances themselves do serve the sandbox (SANDBOX=1): only nginx stands in the way.
    expect((await rawRequest(servers[0]!.base, { method: "GET", path: "/sandbox/mail.json" })).status).toBe(200);
  });

  it("refuses bodies over the limits with 413: nginx's 1 MB, 4 MB for the webhook, 17 MB for the template pages, and Node's own behind it", async () => {
    const headers = { host, origin, "content-type": "application/x-www-form-urlencoded" };
    const big = await streamLargeBody(nginx.base, { path: "/login?probe=big", headers, total: 2 * 1024 * 1024, declareLength: true });
    expect(big.status).toBe(413);
    expect(await upstreamOf("/login?probe=big")).toBe("-");
    // Node's 64 KB for ordinary forms applies behind nginx's 1 MB.
    const form = await streamLargeBody(nginx.base, { path: "/profile?probe=form", headers, total: 100 * 1024, declareLength: true });
    expect(form.status).toBe(413);
    expect(await upstreamOf("/profile?probe=form")).toMatch(/^127\.0\.0\.1:/);
    // The template pages take a media sample: 17 MB there (Node answers what passes), 1 MB beside them.
    const multipart = { ...headers, "content-type": "multipart/form-data; boundary=x" };
    const sample = await streamLargeBody(nginx.base, {
      path: "/templates/new?probe=sample",
      headers: multipart,
      total: 2 * 1024 * 1024,
      declareLength: true,
    });
    expect(await upstreamOf("/templates/new?probe=sample")).toMatch(/^127\.0\.0\.1:/);
    expect(sample.status).not.toBe(413);
    const huge = await streamLargeBody(nginx.base, {
      path: "/templates/new?probe=huge",
      headers: multipart,
      total: 18 * 1024 * 1024,
      declareLength: true,
    });
    expect(huge.status).toBe(413);
    expect(await upstreamOf("/templates/new?probe=huge")).toBe("-");
    const beside = await streamLargeBody(nginx.base, {
      path: "/templates?probe=beside",
      headers: multipart,
      total: 2 * 1024 * 1024,
      declareLength: true,
    });
    expect(beside.status).toBe(413);
    expect(await upstreamOf("/templates?probe=beside")).toBe("-");
    // A conversation's page takes the composer's 16 MB attachment with the form: 17 MB there.
    const attachment = await streamLargeBody(nginx.base, {
      path: "/chat/0b4c8a52-6f2e-4f8e-9d1a-2f5b7c9e1a3d?probe=attachment",
      headers: multipart,
      total: 18 * 1024 * 1024,
      declareLength: true,
    });
    expect(attachment.status).toBe(413);
    expect(await upstreamOf("/chat/0b4c8a52-6f2e-4f8e-9d1a-2f5b7c9e1a3d?probe=attachment")).toBe("-");

    const json = { host, "content-type": "application/json", "x-hub-signature-256": "sha256=00" };
    const webhook = await streamLargeBody(nginx.base, {
      path: "/webhooks/whatsapp",
      headers: json,
      total: 5 * 1024 * 1024,
      declareLength: true,
      fill: " ",
    });
    expect(webhook.status).toBe(413);
    // Meta's batches reach 3 MB: nginx passes them on, and the instance checks the signature.
    const batch = await streamLargeBody(nginx.base, {
      path: "/webhooks/whatsapp",
      headers: json,
      total: 3 * 1024 * 1024,
      declareLength: true,
      fill: " ",
    });
    expect([401, 403]).toContain(batch.status);
  }, 120_000);

  it("answers the next request on a connection whose large post it answered without reading it", async () => {
    // A 2 MB attachment posted without a session, straight to an instance with the Host and Origin
    // nginx passes on: it answers (sign in first) before it reads the form. Node read nothing more
    // from the connection, so the next request on it waited for the keep-alive timeout and was
    // reset; nginx keeps its connections to the instances open and answered 502 to whichever
    // request it sent there next.
    const path = "/chat/0b4c8a52-6f2e-4f8e-9d1a-2f5b7c9e1a3d";
    const form = Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${2 * MB}\r\n\r\n`,
      ),
      Buffer.alloc(2 * MB, "a"),
    ]);
    const health = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(await twoOnOneConnection(servers[0]!.base, form, health)).toEqual([302, 200]);

    // Through nginx: the same post, then posts (never sent twice, so never retried elsewhere) to both instances.
    const unread = await through(
      "POST",
      path,
      { origin, accept: HTML, "content-type": "multipart/form-data; boundary=x" },
      Buffer.alloc(2 * MB, "a"),
    );
    expect(unread.status).toBe(302);
    const posts = [];
    for (let i = 0; i < 4; i++)
      posts.push(
        await through(
          "POST",
          "/api/auth/signin",
          { origin, accept: "application/json", "content-type": "application/json" },
          JSON.stringify(DEMO),
        ),
      );
    expect(posts.map((p) => p.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(posts.map((p) => p.upstream)).size).toBe(2);
  });

  it("passes a 2 MB chat attachment on to Jumbe, which reads all of it", async () => {
    const cookie = await signIn();
    // A conversation of the demo organisation whose customer wrote within the day: a reply may go.
    const [conversation] = await rows<{ id: string }>(
      `select c.id from conversations c join users u on u.organization_id = c.organization_id
       where u.email = $1 and c.last_inbound_at > now() - interval '20 hours' order by c.last_inbound_at desc limit 1`,
      [DEMO.email],
    );
    expect(conversation).toBeDefined();
    const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(2 * MB, 7)]);
    const boundary = `jumbe-${randomBytes(8).toString("hex")}`;
    const caption = `Ratiba ya mkutano ${randomBytes(4).toString("hex")}`;
    const sent = await through(
      "POST",
      `/chat/${conversation!.id}`,
      { accept: HTML, origin, cookie, "content-type": `multipart/form-data; boundary=${boundary}` },
      multipartBody(
        boundary,
        { intent: "send", body: caption },
        { name: "attachment", fileName: "ratiba.png", type: "image/png", bytes: png },
      ),
    );
    expect(sent.upstream, "nginx passed it to an instance").toMatch(/^127\.0\.0\.1:\d+$/);
    // The demo business is connected to the sandbox's demo number from the start: the reply is
    // queued (the page goes back to the thread) with the whole file stored, byte for byte.
    expect(sent.status, sent.body.slice(0, 300)).toBe(302);
    const [reply] = await rows<{ id: string }>(
      `select m.id from messages m join users u on u.organization_id = m.organization_id
       where u.email = $1 and m.direction = 'outbound' and m.payload::text like $2`,
      [DEMO.email, `%${caption}%`],
    );
    expect(reply, "the reply was queued").toBeDefined();
    const [stored] = await rows<{ size: string }>(
      `select f.size::text as size from media_files f join users u on u.organization_id = f.organization_id
       where u.email = $1 and f.file_name = 'ratiba.png' order by f.created_at desc limit 1`,
      [DEMO.email],
    );
    expect(stored, "its file was stored").toBeDefined();
    expect(Number(stored!.size)).toBe(png.length);
  });

  it("passes Node's security headers through and names no nginx version", async () => {
    const page = await through("GET", "/login", { accept: HTML });
    expect(page.headers["content-security-policy"]).toMatch(/script-src 'nonce-[^']+' 'strict-dynamic'/);
    expect(page.headers["content-security-policy"]).toContain("form-action 'self'");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(page.headers.server).toBe("nginx");
    const asset = /(\/assets\/[^"#]+\.css)#?"/.exec(page.body)?.[1]; // React Router marks CSS that on-demand chunks also bring with "#"
    expect(asset).toBeDefined();
    // (No log line: the site does not log /assets/.)
    const css = await rawRequest(nginx.base, { method: "GET", path: asset!, headers: { host } });
    expect(css.status).toBe(200);
    expect(css.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("never passes a request for another host name to Jumbe", async () => {
    for (const other of ["evil.example", `127.0.0.1:${new URL(nginx.base).port}`]) {
      const uri = `/login?probe=other-${++probes}`;
      const answer = await rawRequest(nginx.base, { method: "GET", path: uri, headers: { host: other, accept: HTML } });
      expect(answer.status, other).toBe(0); // 444: connection closed without an answer
      expect(await upstreamOf(uri)).toBe("-");
    }
  });

  it("redirects plain HTTP to https at the site's name", async () => {
    const answer = await rawRequest(nginx.httpBase, { method: "GET", path: "/login?next=x", headers: { host: NAME } });
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(`https://${NAME}/login?next=x`);
  });

  // Last: it stops the database under both instances.
  it("passes an instance's 503 and Retry-After on while the database is down (never 502), and answers 200 at once when it is back", async () => {
    const cookie = await signIn();
    const delivery = JSON.stringify({ object: "whatsapp_business_account", entry: [] });
    const signature = `sha256=${createHmac("sha256", APP_SECRET).update(delivery).digest("hex")}`;
    const page = () => through("GET", "/dashboard", { accept: HTML, cookie });
    const api = () => through("GET", "/api/auth/me", { accept: "application/json", cookie });
    // Meta's delivery (a POST nginx never sends twice). The site does not log the webhook: no upstream to read.
    const webhook = async () => ({
      ...(await rawRequest(nginx.base, {
        method: "POST",
        path: "/webhooks/whatsapp",
        headers: { host, "content-type": "application/json", "x-hub-signature-256": signature },
        body: delivery,
      })),
      upstream: undefined as string | undefined,
    });
    for (const ask of [page, api, webhook]) expect((await ask()).status).toBe(200);

    cluster!.stop();
    const during: Array<{ kind: string; status: number; retryAfter?: string | string[]; upstream?: string; body: string }> = [];
    try {
      // Enough for nginx's max_fails (3 an instance) several times over.
      for (let round = 0; round < 4; round++)
        for (const [kind, ask] of [
          ["page", page],
          ["api", api],
          ["webhook", webhook],
        ] as const) {
          const answer = await ask();
          during.push({
            kind,
            status: answer.status,
            retryAfter: answer.headers["retry-after"],
            upstream: answer.upstream,
            body: answer.body,
          });
        }
    } finally {
      cluster!.start();
    }
    expect(during.map((a) => `${a.kind} ${a.status} Retry-After: ${String(a.retryAfter)}`)).toEqual(
      during.map((a) => `${a.kind} 503 Retry-After: ${RETRY_AFTER_SECONDS}`),
    );
    expect(during[0]!.body).toContain("Service temporarily unavailable");
    expect(JSON.parse(during[1]!.body)).toEqual({ message: expect.stringMatching(/temporarily unavailable/i) });
    // Each went to one instance, whose answer it was: nginx tried no other, and left none out.
    const asked = during.filter((a) => a.kind !== "webhook").map((a) => a.upstream);
    expect(asked.filter((upstream) => !/^127\.0\.0\.1:\d+$/.test(upstream ?? ""))).toEqual([]);
    expect(new Set(asked).size).toBe(2);

    // Both instances see the database again (asked directly, not through nginx)...
    for (const server of servers)
      await until(
        async () => (await rawRequest(server.base, { method: "GET", path: "/readyz" })).status === 200,
        `${server.base}/readyz ready after the restart`,
      );
    // ...and so does nginx, from the first request on: no instance was left marked failed.
    const first = await through("GET", "/dashboard", { accept: HTML, cookie });
    expect(first.status, first.body.slice(0, 300)).toBe(200);
    const next = [await api(), await page(), await api()];
    expect(next.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set([first, ...next].map((a) => a.upstream)).size).toBe(2);
    expect((await webhook()).status).toBe(200);
  }, 120_000);
});
