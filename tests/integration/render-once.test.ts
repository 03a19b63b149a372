import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildExists, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest } from "../support/raw-http";

// The public pages are rendered once per process and sent with each request's own nonce
// (app/.server/infrastructure/http/render-once.ts). What a visitor gets must be exactly what a fresh render gives.
let server: BuiltServer;

beforeAll(async () => {
  if (!buildExists()) return;
  server = await startBuiltServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const get = (path: string, cookie?: string) =>
  rawRequest(server.base, { method: "GET", path, headers: { accept: "text/html", ...(cookie ? { cookie } : {}) } });
const nonceOf = (csp: unknown) => /'nonce-([^']+)'/.exec(String(csp))?.[1] ?? "";

describe.skipIf(!buildExists())("public pages rendered once (built server)", () => {
  it.each(["/", "/privacy-policy", "/terms-of-service"])(
    "%s: each answer carries its own nonce, and equals a fresh render",
    async (path) => {
      const first = await get(path);
      const second = await get(path);
      // A toast cookie (here one that does not verify, so no toast shows) forces a fresh render.
      const fresh = await get(path, "jumbe_toast=not-a-signed-value");
      for (const answer of [first, second, fresh]) {
        expect(answer.status).toBe(200);
        expect(String(answer.headers["content-type"])).toContain("text/html");
      }
      // The first two came from the kept page; the one with the cookie was rendered for itself.
      expect([first, second, fresh].map((answer) => String(answer.headers["server-timing"]).includes('page;desc="rendered once"'))).toEqual(
        [true, true, false],
      );
      const nonces = [first, second, fresh].map((answer) => nonceOf(answer.headers["content-security-policy"]));
      expect(new Set(nonces).size).toBe(3);
      const bodies = [first, second, fresh].map((answer) => answer.body);
      bodies.forEach((body, i) => {
        // Every nonce'd element carries this answer's nonce and no other.
        const used = [...body.matchAll(/nonce="([^"]*)"/g)].map((m) => m[1]);
        expect(used.length).toBeGreaterThan(0);
        expect(new Set(used)).toEqual(new Set([nonces[i]]));
        expect(body).not.toContain("JumbeNonce");
      });
      const normalised = bodies.map((body, i) => body.replaceAll(nonces[i]!, "NONCE"));
      expect(normalised[0]).toBe(normalised[2]);
      expect(normalised[1]).toBe(normalised[2]);
      // Caching headers are the page's own, the same both ways.
      expect(first.headers["cache-control"]).toBe(fresh.headers["cache-control"]);
    },
  );

  it("renders for a visitor reading another language, never sending the kept English page (decision 071)", async () => {
    const langOf = (body: string) => /<html lang="([^"]*)"/.exec(body)?.[1];
    const kept = await get("/");
    const chosen = await get("/", "lng=sw");
    const asked = await get("/?lng=fr");
    const browser = await rawRequest(server.base, {
      method: "GET",
      path: "/",
      headers: { accept: "text/html", "accept-language": "sw-KE,sw;q=0.9" },
    });
    expect([kept, chosen, asked, browser].map((answer) => langOf(answer.body))).toEqual(["en", "sw", "fr", "sw"]);
    expect(
      [kept, chosen, asked, browser].map((answer) => String(answer.headers["server-timing"]).includes('page;desc="rendered once"')),
    ).toEqual([true, false, false, false]);
    expect(chosen.body).toContain(">Lugha ya kuonyesha</label>");
  });

  it("answers HEAD without a body and leaves other methods and paths to the router", async () => {
    const head = await rawRequest(server.base, { method: "HEAD", path: "/", headers: { accept: "text/html" } });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect((await get("/login")).status).toBe(200);
    expect(
      (
        await rawRequest(server.base, {
          method: "POST",
          path: "/",
          headers: { origin: server.base, "content-type": "application/x-www-form-urlencoded" },
          body: "a=1",
        })
      ).status,
    ).toBe(405);
  });
});
