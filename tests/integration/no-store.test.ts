import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, buildExists, DEMO, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest } from "../support/raw-http";

// Issue 9: /developers?reveal=1 showed the API key without Cache-Control: no-store. Every answer
// to a signed-in browser must be uncacheable; public pages keep their caching.
let server: BuiltServer;
let demo = "";
let admin = "";

beforeAll(async () => {
  if (!buildExists()) return;
  server = await startBuiltServer();
  demo = await signInCookie(server, DEMO);
  admin = await signInCookie(server, ADMIN);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const HTML = "text/html,application/xhtml+xml,*/*;q=0.8";
const get = (path: string, cookie?: string, accept = HTML) =>
  rawRequest(server.base, { method: "GET", path, headers: { accept, ...(cookie ? { cookie } : {}) } });
const NO_STORE = /(^|,\s*)no-store(\s*,|$)/;

// Every signed-in page of app/routes.ts (app and admin layouts, and the setup redirect).
const USER_PAGES = [
  "/dashboard",
  "/get-started",
  "/profile",
  "/change-password",
  "/preferences/sidebar",
  "/whatsapp",
  "/embedded-callback",
  "/activity",
  "/developers",
  "/developers?reveal=1",
  "/whatsapp-setup",
];
const ADMIN_PAGES = ["/admin", "/admin/profile"];
// Every cookie-authenticated JSON route that answers GET.
const USER_API = [
  "/api/auth/me",
  "/api/embedded-signup/status",
  "/api/whatsapp/accounts",
  "/api/activity-logs",
  "/api/activity-logs/export",
  "/api/developer/api-key",
  "/api/no-such-thing",
];
const ADMIN_API = ["/api/admin/queue"];

describe.skipIf(!buildExists())("no-store for signed-in browsers (built server)", () => {
  it("answers every signed-in page, its data request and redirect with no-store", async () => {
    for (const [cookie, paths] of [
      [demo, USER_PAGES],
      [admin, ADMIN_PAGES],
    ] as const) {
      for (const path of paths) {
        const page = await get(path, cookie);
        expect(page.status, path).toBeLessThan(500);
        expect(String(page.headers["cache-control"]), `${path} (${page.status})`).toMatch(NO_STORE);
        const data = await get(`${path.split("?")[0]}.data`, cookie, "*/*");
        expect(String(data.headers["cache-control"]), `${path}.data (${data.status})`).toMatch(NO_STORE);
      }
    }
    // A signed-in user sent elsewhere (a redirect), refused (403) or shown a public page.
    for (const [path, cookie] of [
      ["/login", demo],
      ["/admin", demo],
      ["/", demo],
      ["/privacy", demo],
    ] as const) {
      expect(String((await get(path, cookie)).headers["cache-control"]), path).toMatch(NO_STORE);
    }
  });

  it("answers every cookie-authenticated API route with no-store", async () => {
    for (const [cookie, paths] of [
      [demo, USER_API],
      [admin, ADMIN_API],
    ] as const) {
      for (const path of paths) {
        const res = await get(path, cookie, "application/json");
        expect(res.status, path).toBeLessThan(500);
        expect(String(res.headers["cache-control"]), `${path} (${res.status})`).toMatch(NO_STORE);
      }
    }
  });

  it("keeps public caching for browsers without a session, and static assets cached for everyone", async () => {
    const robots = await get("/robots.txt", undefined, "*/*");
    expect(robots.headers["cache-control"]).toBe("public, max-age=3600");
    expect(String((await get("/", undefined)).headers["cache-control"] ?? "")).not.toMatch(NO_STORE);
    const landing = await get("/", undefined);
    const asset = /\/assets\/[^"]+\.js/.exec(landing.body)?.[0] ?? /\/assets\/[^"]+\.css/.exec(landing.body)?.[0];
    expect(asset).toBeTruthy();
    expect(String((await get(asset!, demo, "*/*")).headers["cache-control"])).toMatch(/immutable/);
  });
});
