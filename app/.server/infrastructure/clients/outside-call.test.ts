import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callOutside, OutsideServiceError, retryAfterMs } from "./outside-call";

// A small local server that answers what the sandboxes never do: redirects, HTML, broken JSON.
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/redirect") return void res.writeHead(302, { Location: "http://127.0.0.1:9/elsewhere" }).end();
    if (req.url === "/html-502") return void res.writeHead(502, { "Content-Type": "text/html" }).end("<html>Bad gateway</html>");
    if (req.url === "/broken") return void res.writeHead(200, { "Content-Type": "application/json" }).end("{nope");
    if (req.url === "/empty") return void res.writeHead(204).end();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () =>
      res
        .writeHead(200, { "Content-Type": "application/json" })
        .end(JSON.stringify({ type: req.headers["content-type"] ?? null, body: Buffer.concat(chunks).toString() })),
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("callOutside", () => {
  it("sends objects as JSON and URLSearchParams as a form", async () => {
    expect((await callOutside("Test", `${base}/echo`, { method: "POST", body: { a: 1 }, timeoutMs: 2000 })).json).toEqual({
      type: "application/json",
      body: '{"a":1}',
    });
    expect(
      (await callOutside("Test", `${base}/echo`, { method: "POST", body: new URLSearchParams({ a: "1" }), timeoutMs: 2000 })).json,
    ).toEqual({
      type: "application/x-www-form-urlencoded",
      body: "a=1",
    });
  });

  it("never follows a redirect, reads a proxy's HTML 5xx as a 5xx, and refuses broken JSON", async () => {
    const redirected = await callOutside("Test", `${base}/redirect`, { method: "GET", timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(redirected).toBeInstanceOf(OutsideServiceError);
    expect(redirected).toMatchObject({ kind: "network", httpStatus: 0 });
    expect(await callOutside("Test", `${base}/html-502`, { method: "GET", timeoutMs: 2000 })).toMatchObject({
      status: 502,
      json: undefined,
    });
    expect(await callOutside("Test", `${base}/broken`, { method: "GET", timeoutMs: 2000 }).catch((e: unknown) => e)).toMatchObject({
      kind: "malformed",
      httpStatus: 200,
    });
    expect(await callOutside("Test", `${base}/empty`, { method: "DELETE", timeoutMs: 2000 })).toMatchObject({
      status: 204,
      json: undefined,
    });
    expect(
      await callOutside("Test", "http://127.0.0.1:1/closed", { method: "GET", timeoutMs: 2000 }).catch((e: unknown) => e),
    ).toMatchObject({ kind: "network" });
  });
});

describe("retryAfterMs", () => {
  it("reads seconds, decimal seconds and HTTP dates; the fallback otherwise", () => {
    const headers = (value?: string) => new Headers(value === undefined ? {} : { "Retry-After": value });
    expect(retryAfterMs(headers("2"), 5)).toBe(2000);
    expect(retryAfterMs(headers("2.0"), 5)).toBe(2000);
    expect(retryAfterMs(headers("Thu, 01 Jan 2026 00:00:30 GMT"), 5, Date.parse("2026-01-01T00:00:00Z"))).toBe(30_000);
    expect(retryAfterMs(headers(), 5)).toBe(5);
    expect(retryAfterMs(headers("soon"), 5)).toBe(5);
  });
});
