import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { appHostOnly } from "./app-host";

// Issue 9: opened at another host than APP_URL (the banner printed 127.0.0.1, APP_URL said
// localhost), Embedded Signup waited forever and sign-in links jumped hosts. Pages now say where
// Jumbe is set up instead.
let server: Server;
let port = 0;

beforeAll(async () => {
  const app = express();
  app.set("trust proxy", "loopback");
  app.use((_req, res, next) => {
    res.locals.cspNonce = "n0nce";
    next();
  });
  app.use(appHostOnly({ appUrl: "http://localhost:3000" }));
  app.all("/{*splat}", (_req, res) => void res.type("html").send("<p>the page</p>"));
  server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string, headers: Record<string, string>, method = "GET") {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("pages at a host that is not APP_URL's", () => {
  it("answers 421 with a page naming APP_URL and linking to the same path there", async () => {
    const answer = await get("/login?next=%2Fdashboard", { host: "127.0.0.1:3000", accept: HTML });
    expect(answer.status).toBe(421);
    expect(answer.headers["content-type"]).toMatch(/^text\/html/);
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.body).toContain("Jumbe is set up for http://localhost:3000");
    expect(answer.body).toContain(
      `<a href="http://localhost:3000/login?next=%2Fdashboard">http://localhost:3000/login?next=%2Fdashboard</a>`,
    );
    expect(answer.body).toContain("You opened it at 127.0.0.1:3000");
    expect(answer.body).toContain(`<style nonce="n0nce">`);
    expect((await get("/", { host: "127.0.0.1:3000", accept: HTML }, "HEAD")).status).toBe(421);
  });

  it("escapes what the request wrote and keeps the link on APP_URL's origin", async () => {
    const answer = await get(`//evil.example/"><script>x</script>`, { host: "evil.example", accept: HTML });
    expect(answer.status).toBe(421);
    expect(answer.body).not.toContain("<script>");
    expect(answer.body).toContain(`href="http://localhost:3000//evil.example/`);
  });

  it("serves pages at APP_URL's host, in any case and with the default port spelled out", async () => {
    for (const host of ["localhost:3000", "LOCALHOST:3000"]) {
      const answer = await get("/dashboard", { host, accept: HTML });
      expect(answer.status, host).toBe(200);
      expect(answer.body).toBe("<p>the page</p>");
    }
  });

  it("leaves health probes, assets, webhooks, the API, data requests and Graph calls alone", async () => {
    for (const path of [
      "/healthz",
      "/readyz",
      "/assets/app-1.js",
      "/webhooks/whatsapp",
      "/api/auth/me",
      "/sandbox/meta/graph/v25.0/debug_token",
      "/dashboard.data",
    ]) {
      expect((await get(path, { host: "127.0.0.1:3000", accept: HTML })).status, path).toBe(200);
    }
    // Not a browser asking for a page: fetch(), curl.
    expect((await get("/dashboard", { host: "127.0.0.1:3000", accept: "*/*" })).status).toBe(200);
    expect((await get("/dashboard", { host: "127.0.0.1:3000" })).status).toBe(200);
  });

  it("uses the host a trusted proxy forwarded", async () => {
    expect((await get("/", { host: "127.0.0.1:3000", "x-forwarded-host": "localhost:3000", accept: HTML })).status).toBe(200);
    expect((await get("/", { host: "localhost:3000", "x-forwarded-host": "jumbe.example.co.ke", accept: HTML })).status).toBe(421);
  });
});

describe("APP_URL on a default port", () => {
  it("treats host and host:443 alike for https", async () => {
    const app = express();
    app.use(appHostOnly({ appUrl: "https://jumbe.example.co.ke" }));
    app.all("/{*splat}", (_req, res) => void res.send("ok"));
    const s: Server = await new Promise((resolve) => {
      const x = app.listen(0, "127.0.0.1", () => resolve(x));
    });
    const p = (s.address() as AddressInfo).port;
    const status = (host: string) =>
      new Promise<number>((resolve) =>
        http.get(
          { host: "127.0.0.1", port: p, path: "/", headers: { host, accept: HTML }, agent: false },
          (res) => (res.resume(), resolve(res.statusCode ?? 0)),
        ),
      );
    expect(await status("jumbe.example.co.ke")).toBe(200);
    expect(await status("jumbe.example.co.ke:443")).toBe(200);
    expect(await status("jumbe.example.co.ke:8443")).toBe(421);
    await new Promise<void>((resolve) => s.close(() => resolve()));
  });
});
