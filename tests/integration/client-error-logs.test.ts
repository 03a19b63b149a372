import { afterEach, describe, expect, it, vi } from "vitest";
import { handleError } from "~/entry.server";
import { log } from "~/.server/infrastructure/log";
import { APP, formRequest } from "../support/http";
import { appFetch } from "../support/in-process-app";

// Issue 38, item 10d: a client's mistake (a refused request, a page that is not there, a request
// the client gave up on) is logged as what it is, with its status; only the server's own failures
// are "unhandled error".

interface LogLine {
  level: "info" | "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}

function captureLogs() {
  const lines: LogLine[] = [];
  for (const level of ["info", "warn", "error"] as const)
    vi.spyOn(log(), level).mockImplementation(((fields: Record<string, unknown>, message: string) => {
      lines.push({ level, fields, message });
    }) as never);
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("client errors in the logs", () => {
  it("logs React Router's refusal of a post to a page without an action as a 405 with its reason", async () => {
    const lines = captureLogs();
    const refused = await appFetch(formRequest("/privacy-policy", { name: "x" }));
    expect(refused.status).toBe(405);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.map((l) => [l.level, l.message, l.fields.status, l.fields.method, l.fields.path])).toEqual([
      ["info", "request refused", 405, "POST", "/privacy-policy"],
    ]);
    expect(lines[0]!.fields.reason).toMatch(/did not provide an `action`/);
  });

  it("logs React Router's refusal of a post whose Origin is not the request's own as a 400", async () => {
    const lines = captureLogs();
    for (const path of ["/login", "/login.data"]) {
      const forged = await appFetch(
        new Request(`${APP}${path}`, {
          method: "POST",
          headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
          body: "email=a%40b.co&password=x",
        }),
      );
      expect(forged.status, path).toBe(400);
    }
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.map((l) => [l.level, l.message, l.fields.status, l.fields.path])).toEqual([
      ["warn", "request refused", 400, "/login"],
      ["warn", "request refused", 400, "/login.data"],
    ]);
  });

  it("logs a request the client gave up on as aborted, and a real failure still as an unhandled error", () => {
    const lines = captureLogs();
    const controller = new AbortController();
    const request = new Request(`${APP}/dashboard`, { signal: controller.signal });
    controller.abort();
    handleError(new Error("The operation was aborted."), { request });
    handleError(Object.assign(new Error("Request body too large."), { status: 413 }), {
      request: new Request(`${APP}/templates/new`, { method: "POST" }),
    });
    const failure = new TypeError("Cannot read properties of undefined (reading 'id')");
    handleError(failure, { request: new Request(`${APP}/dashboard`) });

    expect(lines.map((l) => [l.level, l.message, l.fields.status ?? null, l.fields.path])).toEqual([
      ["info", "request aborted", null, "/dashboard"],
      ["warn", "request refused", 413, "/templates/new"],
      ["error", "unhandled error", null, "/dashboard"],
    ]);
    expect(lines[2]!.fields.err).toBe(failure);
  });
});
