import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildExists, startBuiltServer, type BuiltServer } from "../support/built-server";
import { rawRequest } from "../support/raw-http";

// Issue 9: the sandbox was reachable past nginx's case-sensitive `/sandbox/` block, because Express
// matched its mounts case-insensitively. Only the exact lower-case prefix reaches the sandbox now.
let server: BuiltServer;

beforeAll(async () => {
  if (!buildExists()) return;
  server = await startBuiltServer();
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

describe.skipIf(!buildExists())("the sandbox answers only at its lower-case prefix (built server)", () => {
  it("does not serve the sandbox at /Sandbox, /SANDBOX or /sAnDbOx", async () => {
    const deliveriesBefore = (await (await fetch(`${server.base}/sandbox/meta/control/deliveries`)).json()) as unknown[];
    const variants = [
      { method: "GET", path: "/Sandbox/meta" },
      { method: "GET", path: "/SANDBOX/meta/control/state" },
      { method: "GET", path: "/Sandbox/mail" },
      { method: "GET", path: "/Sandbox/mail.json" },
      { method: "GET", path: "/sandbox/Meta/control/state" },
      { method: "GET", path: "/sandbox/meta/Control/state" },
      { method: "POST", path: "/sAnDbOx/meta/control/raw" },
      { method: "POST", path: "/sandbox/meta/CONTROL/raw" },
      // Encoded and dot-segment spellings, which React Router would resolve to the same prefix.
      { method: "GET", path: "/%73andbox/meta/control/state" },
      { method: "POST", path: "/x/../sandbox/meta/control/raw" },
    ];
    for (const { method, path } of variants) {
      const answer = await rawRequest(server.base, {
        method,
        path,
        headers: { "content-type": "application/json", accept: "application/json" },
        body: method === "POST" ? forged : undefined,
      });
      expect.soft(answer.status, `${method} ${path}`).toBe(404);
      expect.soft(answer.body, `${method} ${path}`).not.toMatch(/Meta sandbox|Sandbox mail outbox|"webhookUrl"|"delivery"/);
    }
    // Nothing was delivered by the forged POSTs.
    const deliveriesAfter = (await (await fetch(`${server.base}/sandbox/meta/control/deliveries`)).json()) as unknown[];
    expect(deliveriesAfter).toHaveLength(deliveriesBefore.length);
    // The real prefix still works in development (the browser tests and the demo use it).
    expect((await fetch(`${server.base}/sandbox/meta/control/state`)).status).toBe(200);
    expect((await fetch(`${server.base}/sandbox/mail.json`)).status).toBe(200);
  });

  it("answers 404 for the API and webhook prefixes in another case, where Express's prefix rules would not apply", async () => {
    for (const path of ["/API/auth/me", "/Api/v1/account", "/WEBHOOKS/whatsapp"]) {
      const answer = await rawRequest(server.base, { method: "GET", path, headers: { accept: "text/html" } });
      expect.soft(answer.status, path).toBe(404);
    }
    // A sandbox path that resolves to a page would skip the page's origin and form checks.
    expect(
      (
        await rawRequest(server.base, {
          method: "POST",
          path: "/sandbox/../login",
          headers: { "content-type": "application/json" },
          body: "{}",
        })
      ).status,
    ).toBe(404);
    expect((await rawRequest(server.base, { method: "GET", path: "/sandbox/nothing-here", headers: { accept: "text/html" } })).status).toBe(
      404,
    );
    // Pages keep React Router's case-insensitive matching: /Login is the sign-in page.
    const login = await rawRequest(server.base, { method: "GET", path: "/Login", headers: { accept: "text/html" } });
    expect(login.status).toBe(200);
    expect(login.body).toContain("<form");
  });
});
