import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildExists, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest } from "../support/raw-http";

// Issue 9: the start-up banner printed http://127.0.0.1:PORT while APP_URL defaulted to
// http://localhost:PORT; opened at the banner's address, Embedded Signup waited forever and the
// sign-in links jumped hosts. One origin by default, printed, and a clear page at any other host.
let server: BuiltServer;

beforeAll(async () => {
  if (!buildExists()) return;
  server = await startBuiltServer({ APP_URL: undefined, SITE_URL: undefined });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const HTML = "text/html,application/xhtml+xml,*/*;q=0.8";

describe.skipIf(!buildExists())("one origin by default (built server, APP_URL unset)", () => {
  it("prints APP_URL in the banner, and the sandbox links under it", () => {
    const app = `http://localhost:${server.port}`;
    expect(server.output()).toContain(`Jumbe is running at ${app} (listening on 127.0.0.1:${server.port}`);
    expect(server.output()).toContain(`Mail outbox: ${app}/sandbox/mail`);
    expect(server.output()).toContain(`Meta (Graph API, Embedded Signup, webhooks): ${app}/sandbox/meta`);
    expect(server.output()).toContain(`M-Pesa (Daraja: STK push, paybill): ${app}/sandbox/mpesa`);
    expect(server.output()).not.toContain(`http://127.0.0.1:${server.port}`);
  });

  it("serves pages at the printed address", async () => {
    const page = await rawRequest(server.base, {
      method: "GET",
      path: "/login",
      headers: { host: `localhost:${server.port}`, accept: HTML },
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain("<form");
    // Embedded Signup's dialog and callback are built from the same origin.
    expect(page.body).not.toContain("127.0.0.1");
  });

  it("answers a page at another host with where Jumbe is set up, and a link to the same page there", async () => {
    const page = await rawRequest(server.base, { method: "GET", path: "/whatsapp?from=banner", headers: { accept: HTML } });
    expect(page.status).toBe(421);
    expect(page.body).toContain(`Jumbe is set up for http://localhost:${server.port}`);
    expect(page.body).toContain(`href="http://localhost:${server.port}/whatsapp?from=banner"`);
    // Health probes, scripts and the API are not pages.
    expect((await rawRequest(server.base, { method: "GET", path: "/healthz", headers: { accept: HTML } })).status).toBe(200);
    expect((await rawRequest(server.base, { method: "GET", path: "/login", headers: { accept: "*/*" } })).status).toBe(200);
  });
});
