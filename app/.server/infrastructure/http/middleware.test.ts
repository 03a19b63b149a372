import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { requireSameOrigin } from "./same-origin";
import { cspNonce, securityHeaders } from "./security-headers";

let server: Server;
let base = "";
/** APP_URL in these tests, as in the integration tests: not the address the server listens on. */
const APP = "http://jumbe.test";

beforeAll(async () => {
  const app = express();
  app.use(securityHeaders({ production: false }));
  app.use(
    requireSameOrigin({
      appUrl: APP,
      exempt: (p) => p.startsWith("/webhooks/") || p.startsWith("/sandbox/") || p.startsWith("/api/v1/"),
    }),
  );
  app.get("/public-page", (_req, res) => void res.set("Cache-Control", "public, max-age=600").type("html").send("<p>hi</p>"));
  app.get("/assets/app.js", (_req, res) => void res.set("Cache-Control", "public, max-age=31536000, immutable").type("js").send("1"));
  app.get("/signed-in", (_req, res) => void res.redirect("/login"));
  app.get("/voice.ogg", (_req, res) => void res.set("Cache-Control", "private, max-age=86400, immutable").type("audio/ogg").send("OggS"));
  app.get("/risiti.pdf", (_req, res) => void res.set("Cache-Control", "private, max-age=86400, immutable").type("pdf").send("%PDF"));
  app.get("/og-image.png", (_req, res) => void res.set("Cache-Control", "public, max-age=3600").type("png").send("PNG"));
  // React Router's Express adapter appends each header of a route's Response to those already set.
  app.get("/export.csv", (_req, res) => void res.append("X-Content-Type-Options", "nosniff").type("csv").send("name\n"));
  app.get("/written-head", (_req, res) => void res.writeHead(200, { "X-Content-Type-Options": "nosniff" }).end("ok"));
  app.all("/{*splat}", (_req, res) => void res.json({ ok: true, nonce: res.locals.cspNonce }));
  server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (path: string, headers: Record<string, string>, body = "{}") => fetch(`${base}${path}`, { method: "POST", headers, body });

/** A request over node:http, which sends the Host header given (fetch writes its own) and keeps repeated header lines apart. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body = "") {
  const { port } = new URL(base);
  return new Promise<{ status: number; rawHeaders: string[]; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
const rawPost = (path: string, headers: Record<string, string>) => raw("POST", path, headers, "a=1");

/** The values of every line of one header, however many lines there were. */
const headerLines = (rawHeaders: string[], name: string) =>
  rawHeaders.flatMap((value, i) => (i % 2 === 1 && rawHeaders[i - 1]!.toLowerCase() === name ? [value] : []));

describe("security headers", () => {
  it("enforces a CSP with a fresh nonce per response", async () => {
    const [a, b] = await Promise.all([fetch(`${base}/`), fetch(`${base}/`)]);
    const csp = a.headers.get("content-security-policy")!;
    const { nonce } = (await a.json()) as { nonce: string };
    expect(csp).toContain(`script-src 'nonce-${nonce}' 'strict-dynamic'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(a.headers.get("content-security-policy-report-only")).toBeNull();
    expect(b.headers.get("content-security-policy")).not.toBe(csp);
    expect(a.headers.get("x-content-type-options")).toBe("nosniff");
    expect(a.headers.get("x-frame-options")).toBe("DENY");
    expect(a.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });

  it("draws nonces of 16 random bytes, never the same one twice across several draws from the CSPRNG", () => {
    const nonces = Array.from({ length: 1000 }, () => cspNonce());
    expect(new Set(nonces).size).toBe(1000);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });

  // Issue 38, item 10c: a route's own nosniff and the one set here went out as two header lines.
  it("sends X-Content-Type-Options exactly once on every response, whether or not the route set it too", async () => {
    for (const path of ["/", "/export.csv", "/written-head", "/assets/app.js", "/voice.ogg"]) {
      const answer = await raw("GET", path, { cookie: "jumbe_session=abc123" });
      expect(headerLines(answer.rawHeaders, "x-content-type-options"), path).toEqual(["nosniff"]);
    }
    const refused = await rawPost("/developers", { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" });
    expect(refused.status).toBe(403);
    expect(headerLines(refused.rawHeaders, "x-content-type-options")).toEqual(["nosniff"]);
  });
});

describe("no-store for signed-in browsers", () => {
  const session = { cookie: "theme=dark; jumbe_session=abc123" };
  it("makes every page, JSON answer and redirect to a browser with a session cookie uncacheable", async () => {
    for (const path of ["/public-page", "/api/auth/me", "/developers?reveal=1", "/signed-in"]) {
      const res = await fetch(`${base}${path}`, { headers: session, redirect: "manual" });
      expect(res.headers.get("cache-control"), path).toBe("private, no-store");
    }
    const posted = await post("/developers", { ...session, origin: APP, "content-type": "application/x-www-form-urlencoded" }, "a=1");
    expect(posted.headers.get("cache-control")).toBe("private, no-store");
  });

  it("leaves public caching alone without a session cookie, and static assets always", async () => {
    expect((await fetch(`${base}/public-page`)).headers.get("cache-control")).toBe("public, max-age=600");
    expect((await fetch(`${base}/public-page`, { headers: { cookie: "jumbe_session=" } })).headers.get("cache-control")).toBe(
      "public, max-age=600",
    );
    expect((await fetch(`${base}/assets/app.js`, { headers: session })).headers.get("cache-control")).toBe(
      "public, max-age=31536000, immutable",
    );
    // A public image keeps its caching, whoever asks.
    expect((await fetch(`${base}/og-image.png`, { headers: session })).headers.get("cache-control")).toBe("public, max-age=3600");
  });

  // Issue 38, item 10b: an inbox photo or voice note stayed in the browser's cache for a day after sign-out.
  it("never lets a browser keep a tenant's media or documents, which their routes mark private", async () => {
    expect((await fetch(`${base}/voice.ogg`, { headers: session })).headers.get("cache-control")).toBe("private, no-store");
    expect((await fetch(`${base}/risiti.pdf`, { headers: session })).headers.get("cache-control")).toBe("private, no-store");
  });
});

describe("CSRF origin checks", () => {
  it("refuses a cross-site form post and accepts a same-origin one", async () => {
    expect(
      (await post("/login", { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" }, "a=1")).status,
    ).toBe(403);
    expect((await post("/login", { origin: APP, "content-type": "application/x-www-form-urlencoded" }, "a=1")).status).toBe(200);
    // The address the server listens on is not APP_URL: pages are only served at APP_URL (421 elsewhere).
    expect((await post("/login", { origin: base, "content-type": "application/x-www-form-urlencoded" }, "a=1")).status).toBe(403);
  });

  // Issue 38, item 10e: the Host header is the client's to write, so it cannot vouch for the Origin.
  it("compares Origin and Referer with APP_URL, never with the Host the client sent", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const forged = await rawPost("/developers", { ...form, host: "evil.example", origin: "http://evil.example" });
    expect(forged.status).toBe(403);
    expect(forged.body).toBe(JSON.stringify({ message: "Forbidden: cross-origin request refused." }));
    expect((await rawPost("/developers", { ...form, host: "evil.example", referer: "http://evil.example/developers" })).status).toBe(403);
    expect(
      (await rawPost("/api/auth/logout", { "content-type": "application/json", host: "evil.example", origin: "http://evil.example" }))
        .status,
    ).toBe(403);
    // A post from APP_URL's pages passes whatever the Host says (React Router itself refuses a Host that is not the Origin's).
    expect((await rawPost("/developers", { ...form, host: "jumbe.test", origin: APP })).status).toBe(200);
    expect((await rawPost("/developers", { ...form, host: "jumbe.test", referer: `${APP}/developers` })).status).toBe(200);
  });

  it("requires JSON and a same-origin Origin on cookie-authenticated API posts", async () => {
    const noOrigin = await post("/api/auth/logout", { "content-type": "application/json" });
    expect(noOrigin.status).toBe(403);
    expect(await noOrigin.json()).toEqual({ message: "Forbidden: cross-origin request refused." });
    const form = await post("/api/auth/logout", { origin: APP, "content-type": "text/plain" });
    expect(form.status).toBe(415);
    expect(await form.json()).toEqual({ message: "Content-Type must be application/json." });
    expect((await post("/api/auth/logout", { origin: APP, "content-type": "application/json" }, "")).status).toBe(200);
    expect((await post("/api/auth/logout", { origin: "null", "content-type": "application/json" })).status).toBe(403);
  });

  it("refuses a form post with no Origin unless Sec-Fetch-Site or Referer says same-origin", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    for (const path of ["/developers", "/profile", "/change-password", "/whatsapp", "/preferences/sidebar", "/logout", "/login"]) {
      const bare = await post(path, form, "intent=regenerate");
      expect(bare.status, path).toBe(403);
      expect(await bare.json()).toEqual({ message: "Forbidden: cross-origin request refused." });
    }
    expect((await post("/developers", { ...form, "sec-fetch-site": "same-origin" }, "a=1")).status).toBe(200);
    expect((await post("/developers", { ...form, "sec-fetch-site": "cross-site" }, "a=1")).status).toBe(403);
    expect((await post("/developers", { ...form, "sec-fetch-site": "same-site" }, "a=1")).status).toBe(403);
    expect((await post("/developers", { ...form, "sec-fetch-site": "none" }, "a=1")).status).toBe(403);
    expect((await post("/developers", { ...form, referer: `${APP}/developers?reveal=1` }, "a=1")).status).toBe(200);
    expect((await post("/developers", { ...form, referer: `${base}/developers` }, "a=1")).status).toBe(403);
    expect((await post("/developers", { ...form, referer: "https://evil.example/jumbe.test" }, "a=1")).status).toBe(403);
    expect((await post("/developers", { ...form, referer: "not a url" }, "a=1")).status).toBe(403);
    // Sec-Fetch-Site speaks for the browser: a cross-site fetch with a same-origin-looking Referer is refused.
    expect((await post("/developers", { ...form, "sec-fetch-site": "cross-site", referer: `${APP}/` }, "a=1")).status).toBe(403);
  });

  it("leaves safe methods and webhooks alone", async () => {
    expect((await fetch(`${base}/api/auth/me`, { headers: { origin: "https://evil.example" } })).status).toBe(200);
    expect((await post("/webhooks/whatsapp", { "content-type": "application/json" })).status).toBe(200);
    expect((await post("/sandbox/meta/control/flush", { "content-type": "application/json" })).status).toBe(200);
    expect((await post("/api/v1/messages", { "content-type": "application/json", authorization: "Bearer jmb_live_x" })).status).toBe(200);
  });
});
