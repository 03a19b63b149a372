import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, buildExists, DEMO, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest } from "../support/raw-http";

// Pages are rendered by React's string renderer in one pass (decision 188), and the loader data React
// Router's browser router reads is written after the render as React Router's own transfer wrote it.
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

const get = (path: string, cookie: string) => rawRequest(server.base, { method: "GET", path, headers: { accept: "text/html", cookie } });
const nonceOf = (csp: unknown) => /'nonce-([^']+)'/.exec(String(csp))?.[1] ?? "";
const HANDOFF =
  /<script nonce="([^"]+)">window\.__reactRouterContext\.streamController\.enqueue\((.*?)\);<\/script><script nonce="([^"]+)">window\.__reactRouterContext\.streamController\.close\(\);<\/script><\/body><\/html>$/s;

describe.skipIf(!buildExists())("documents rendered in one pass (built server)", () => {
  it("a hydrated page: the import map first in the head, the loader data at the body's end, every script with this answer's nonce", async () => {
    const page = await get("/dashboard", demo);
    expect(page.status).toBe(200);
    const nonce = nonceOf(page.headers["content-security-policy"]);
    const body = page.body;
    expect(body.startsWith('<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport"')).toBe(true);
    const map = body.indexOf('<script type="importmap"');
    expect(map).toBeGreaterThan(0);
    expect(body.indexOf('<script type="importmap"', map + 1)).toBe(-1);
    expect(map).toBeLessThan(body.indexOf('<link rel="modulepreload"'));
    expect(body.slice(map, body.indexOf("</script>", map))).toContain(`nonce="${nonce}">{"imports":{"jw/":"/assets/words-en-`);

    const handoff = HANDOFF.exec(body);
    expect(handoff).not.toBeNull();
    expect([handoff![1], handoff![3]]).toEqual([nonce, nonce]);
    // The turbo-stream text holds what the loaders read: the signed-in person, the page's figures.
    const text = JSON.parse(handoff![2]!) as string;
    expect(text).toContain('"demo@jumbe.demo"');
    expect(text.endsWith("\n")).toBe(true);
    expect(body.match(/streamController\.enqueue/g)).toHaveLength(1);
    // No Suspense boundary left for the browser; every nonce'd element carries the one nonce.
    expect(body).not.toContain("<!--$!");
    expect(new Set([...body.matchAll(/nonce="([^"]*)"/g)].map((m) => m[1]))).toEqual(new Set([nonce]));
  });

  it("a page sent without React (the console): no loader data, no import map, no boundary marks", async () => {
    const page = await get("/admin/billing", admin);
    expect(page.status).toBe(200);
    expect(page.body.startsWith("<!DOCTYPE html><html")).toBe(true);
    expect(page.body).not.toContain("streamController");
    expect(page.body).not.toContain("importmap");
    expect(page.body).not.toContain("<!--$");
    expect(page.body.endsWith("</body></html>")).toBe(true);
  });

  it("in another language too, where the import map names that language's words", async () => {
    const page = await get("/dashboard", `${demo}; lng=sw`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html lang="sw"');
    expect(page.body).toMatch(/<script type="importmap" nonce="[^"]+">\{"imports":\{"jw\/":"\/assets\/words-sw-/);
    expect(HANDOFF.test(page.body)).toBe(true);
  });
});
