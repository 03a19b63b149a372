import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { log } from "../log";
import { BodyTooLargeError } from "./body-limit";
import { finalErrorHandler } from "./error-page";

// Issue 38, item 10d: errors that reach Express's last handler are logged as what they are: a
// client's refusal with its status, the server's own failure as an unhandled error.

let server: Server;
let base = "";

beforeAll(async () => {
  const app = express();
  app.get("/contacts/:id", (_req, res) => void res.send("ok"));
  app.post("/templates/new", (_req, _res, next) => next(new BodyTooLargeError(17 * 1024 * 1024)));
  app.post("/sandbox/meta/control/flush", (_req, _res, next) =>
    next(Object.assign(new Error("request aborted"), { status: 400, type: "request.aborted" })),
  );
  app.get("/dashboard", () => {
    throw new TypeError("Cannot read properties of undefined (reading 'id')");
  });
  app.use(finalErrorHandler());
  server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => void vi.restoreAllMocks());

function captureLogs() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  for (const level of ["info", "warn", "error"] as const)
    vi.spyOn(log(), level).mockImplementation(((fields: Record<string, unknown>, message: string) => {
      lines.push({ level, fields, message });
    }) as never);
  return lines;
}

describe("Express's last error handler", () => {
  it("logs a malformed URL, a body over its limit and an aborted body as refusals, not as unhandled errors", async () => {
    const lines = captureLogs();
    expect((await fetch(`${base}/contacts/%E0%A4%A`)).status).toBe(400);
    expect((await fetch(`${base}/templates/new`, { method: "POST" })).status).toBe(413);
    expect((await fetch(`${base}/sandbox/meta/control/flush`, { method: "POST" })).status).toBe(400);
    expect(lines.map((l) => [l.level, l.message, l.fields.status ?? null, l.fields.path])).toEqual([
      ["warn", "request refused", 400, "/contacts/%E0%A4%A"],
      ["warn", "request refused", 413, "/templates/new"],
      ["info", "request aborted", null, "/sandbox/meta/control/flush"],
    ]);
  });

  it("keeps the server's own failure an unhandled error, answered 500 without its details", async () => {
    const lines = captureLogs();
    const answer = await fetch(`${base}/dashboard`);
    expect(answer.status).toBe(500);
    expect(await answer.text()).not.toContain("Cannot read properties");
    expect(lines.map((l) => [l.level, l.message, l.fields.path])).toEqual([["error", "unhandled error", "/dashboard"]]);
  });
});
