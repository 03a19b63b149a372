import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { captureLogs } from "../log";
import { requestId } from "./request-id";
import { requestLog } from "./request-log";
import { allowedMethods } from "./methods";
import { requireSameOrigin } from "./same-origin";

// Decision 101: every answer carries its request's id, and the request log's line for it has the same;
// the console's JSON (/api/admin/...) is left to its guard whatever the method or body.

const lines: Record<string, unknown>[] = [];
let server: Server;
let base = "";
const APP = "http://jumbe.test";

beforeAll(async () => {
  captureLogs(
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );
  const app = express();
  app.use(requestId());
  app.use(requestLog());
  app.use(requireSameOrigin({ appUrl: APP, exempt: (p) => p.startsWith("/api/v1/") }));
  app.use(allowedMethods({ exempt: () => false, routes: () => ({ action: false }) }));
  // Stands for the route: what it saw of the request, and the guard's 404 for anyone (no administrator here).
  app.all("/api/admin/queue", (req, res) => void res.status(404).json({ seen: req.get("x-request-id") }));
  app.all("/{*splat}", (req, res) => void res.json({ seen: req.get("x-request-id") }));
  server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  captureLogs(undefined);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The log line of the request to `path` (it is written as the answer finishes). */
async function logLineOf(path: string) {
  for (let i = 0; i < 50 && !lines.some((l) => l.path === path); i++) await new Promise((r) => setTimeout(r, 10));
  return lines.find((l) => l.path === path);
}

describe("the request's id", () => {
  it("is made when none comes, answered as X-Request-Id, handed to the route and written in the request's log line", async () => {
    const response = await fetch(`${base}/somewhere`);
    const id = response.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await response.json()) as { seen: string }).seen).toBe(id);
    expect(await logLineOf("/somewhere")).toMatchObject({ requestId: id, method: "GET", status: 200 });
  });

  it("keeps nginx's well-formed id, and replaces one that is not", async () => {
    const nginx = "5d41402abc4b2a76b9719d911017c592";
    const kept = await fetch(`${base}/kept`, { headers: { "X-Request-Id": nginx } });
    expect(kept.headers.get("x-request-id")).toBe(nginx);
    expect(await logLineOf("/kept")).toMatchObject({ requestId: nginx });
    const forged = 'x" injected=1';
    const replaced = await fetch(`${base}/replaced`, { headers: { "X-Request-Id": forged } });
    expect(replaced.headers.get("x-request-id")).not.toBe(forged);
    expect((await logLineOf("/replaced"))!.requestId).toBe(replaced.headers.get("x-request-id"));
  });
});

describe("/api/admin/queue by another method", () => {
  it("reaches the route's guard whatever the method, origin or body: no 405, 403 or 415 that says more than its GET", async () => {
    const cases: [string, Record<string, string>, string | undefined][] = [
      ["POST", { Origin: APP, "Content-Type": "application/json" }, "{}"],
      ["POST", { Origin: APP, "Content-Type": "text/plain" }, "hello"],
      ["POST", {}, "a=1"],
      ["PUT", { Origin: APP, "Content-Type": "application/json" }, "{}"],
      ["PATCH", { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" }, "a=1"],
      ["DELETE", {}, undefined],
    ];
    const get = await fetch(`${base}/api/admin/queue`);
    for (const [method, headers, body] of cases) {
      const response = await fetch(`${base}/api/admin/queue`, { method, headers, body });
      expect(response.status, `${method} ${JSON.stringify(headers)}`).toBe(get.status);
    }
  });
});
