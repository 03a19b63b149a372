import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { buildExists, builtServerRefusal, demoHostEnv, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest } from "../support/raw-http";

// Issue 9: with SANDBOX=1 in production anyone could forge a signed PARTNER_REMOVED webhook for any
// tenant through the sandbox's control API. Production refuses the sandbox unless DEMO_HOST=1 and a
// SANDBOX_CONTROL_TOKEN declare a demo host, and then the control API, console and outbox ask for it.
const TOKEN = randomBytes(24).toString("base64url");
let server: BuiltServer;

beforeAll(async () => {
  if (!buildExists()) return;
  server = await startBuiltServer(demoHostEnv(TOKEN));
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const forged = JSON.stringify({
  body: {
    object: "whatsapp_business_account",
    entry: [{ id: "1", changes: [{ field: "account_update", value: { event: "PARTNER_REMOVED" } }] }],
  },
});

describe.skipIf(!buildExists())("the sandbox in production (built server)", () => {
  it("refuses to start with SANDBOX=1 unless DEMO_HOST=1 and SANDBOX_CONTROL_TOKEN say it is a demo host", async () => {
    const settings = demoHostEnv(TOKEN);
    const [withoutDemoHost, withoutToken] = await Promise.all([
      builtServerRefusal({ ...settings, DEMO_HOST: "0" }),
      builtServerRefusal({ ...settings, SANDBOX_CONTROL_TOKEN: "" }),
    ]);
    expect(withoutDemoHost.code).toBe(1);
    expect(withoutDemoHost.output).toContain("Invalid configuration:");
    expect(withoutDemoHost.output).toContain("SANDBOX: refusing to start in production with SANDBOX=1");
    expect(withoutToken.code).toBe(1);
    expect(withoutToken.output).toMatch(
      /SANDBOX_CONTROL_TOKEN: SANDBOX_CONTROL_TOKEN (is required on a demo host|must be at least 32 characters)/,
    );
  }, 120_000);

  it("asks for the token before the control API forges a webhook, and for the outbox and console", async () => {
    expect(server.output()).toContain("Demo host: the sandbox is on in production");
    const refused = await rawRequest(server.base, {
      method: "POST",
      path: "/sandbox/meta/control/raw",
      headers: { "content-type": "application/json" },
      body: forged,
    });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({
      message: "The sandbox control API needs the SANDBOX_CONTROL_TOKEN: send it in the X-Sandbox-Token header.",
    });
    for (const path of ["/sandbox/meta/control/state", "/sandbox/meta/control/deliveries", "/sandbox/mail.json"])
      expect((await rawRequest(server.base, { method: "GET", path })).status, path).toBe(401);
    for (const path of ["/sandbox/meta", "/sandbox/mail"]) {
      const page = await rawRequest(server.base, { method: "GET", path, headers: { accept: "text/html" } });
      expect(page.status, path).toBe(401);
      expect(page.body).toContain("Sandbox token");
    }

    const deliveries = await rawRequest(server.base, {
      method: "GET",
      path: "/sandbox/meta/control/deliveries",
      headers: { "x-sandbox-token": TOKEN },
    });
    expect(deliveries.status).toBe(200);
    expect(JSON.parse(deliveries.body)).toEqual([]);
    const mail = await rawRequest(server.base, { method: "GET", path: "/sandbox/mail.json", headers: { "x-sandbox-token": TOKEN } });
    expect(mail.status).toBe(200);

    // The outbox's token form sets the cookie the pages then accept.
    const signIn = await rawRequest(server.base, {
      method: "POST",
      path: "/sandbox/token",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.base },
      body: new URLSearchParams({ token: TOKEN, next: "/sandbox/mail" }).toString(),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe("/sandbox/mail");
    const cookie = String(signIn.headers["set-cookie"]).split(";")[0]!;
    expect(String(signIn.headers["set-cookie"])).toContain("Secure");
    const outbox = await rawRequest(server.base, { method: "GET", path: "/sandbox/mail", headers: { accept: "text/html", cookie } });
    expect(outbox.status).toBe(200);
    expect(outbox.body).toContain("Sandbox mail outbox");
    const console = await rawRequest(server.base, { method: "GET", path: "/sandbox/meta", headers: { accept: "text/html", cookie } });
    expect(console.status).toBe(200);
    expect(console.body).toContain("Test businesses");
  });

  it("keeps the demo's own flow open: the Embedded Signup dialog and the Graph API", async () => {
    const dialog = await rawRequest(server.base, {
      method: "GET",
      path: "/sandbox/meta/dialog/oauth?client_id=1&redirect_uri=x",
      headers: { accept: "text/html" },
    });
    expect(dialog.status).not.toBe(401);
    expect(dialog.body).not.toContain("Sandbox token");
  });
});
