import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./test-support";

// Issue 9: on a demo host (production with the sandbox) the control API forged signed webhooks for
// any tenant. With a control token configured, the control API, the console and its forms ask for it.
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TOKEN = "demo-host-control-token-0123456789abcdef";
const forged = {
  body: {
    object: "whatsapp_business_account",
    entry: [{ id: "1", changes: [{ field: "account_update", value: { event: "PARTNER_REMOVED" } }] }],
  },
};

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

describe("sandbox control token", () => {
  it("refuses the control API without the token and accepts it in X-Sandbox-Token or as a bearer token", async () => {
    h = await startHarness({ controlToken: TOKEN });
    const refused = await post(`${h.base}/control/raw`, forged);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await refused.json()).toEqual({
      message: "The sandbox control API needs the SANDBOX_CONTROL_TOKEN: send it in the X-Sandbox-Token header.",
    });
    expect((await post(`${h.base}/control/raw`, forged, { "x-sandbox-token": "wrong-token-wrong-token-wrong-token" })).status).toBe(401);
    for (const path of ["/control/state", "/control/deliveries", "/control/calls"])
      expect((await fetch(`${h.base}${path}`)).status, path).toBe(401);
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(0);

    const accepted = await post(`${h.base}/control/raw`, forged, { "x-sandbox-token": TOKEN });
    expect(accepted.status).toBe(200);
    expect((await fetch(`${h.base}/control/state`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
  });

  it("asks for the token on the console, then lets its forms post with the cookie it sets", async () => {
    h = await startHarness({ controlToken: TOKEN });
    const gate = await fetch(`${h.base}?notice=x`, { headers: { accept: "text/html" } });
    expect(gate.status).toBe(401);
    const html = await gate.text();
    expect(html).toContain("Sandbox token");
    expect(html).toContain(`action="/sandbox/meta/token"`);
    expect(html).not.toContain("Test businesses");
    // A console form without the cookie changes nothing.
    const unauthorised = await fetch(`${h.base}/console/reset`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(unauthorised.status).toBe(401);

    const wrong = await fetch(`${h.base}/token`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: "nope", next: "/sandbox/meta" }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("That is not this host&#39;s sandbox token.");
    expect(wrong.headers.getSetCookie()).toEqual([]);

    const signIn = await fetch(`${h.base}/token`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: TOKEN, next: "/sandbox/meta" }),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toBe("/sandbox/meta");
    const setCookie = signIn.headers.getSetCookie()[0]!;
    expect(setCookie).toMatch(/^jumbe_sandbox=[0-9a-f]{64}; Path=\/sandbox; HttpOnly; SameSite=Strict/);
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(";")[0]!;

    const console = await fetch(h.base, { headers: { cookie } });
    expect(console.status).toBe(200);
    expect(await console.text()).toContain("Test businesses");
    const form = await fetch(`${h.base}/console/business`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin: h.origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ businessName: "Cookie Works Ltd" }),
    });
    expect(form.status).toBe(303);
    expect(
      (await (await fetch(`${h.base}/control/state`, { headers: { cookie } })).json()).businesses.map((b: { name: string }) => b.name),
    ).toContain("Cookie Works Ltd");
    // The cookie does not carry a post from another origin.
    const crossSite = await fetch(`${h.base}/console/reset`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(crossSite.status).toBe(403);
  });

  it("only goes back to sandbox pages after the token form", async () => {
    h = await startHarness({ controlToken: TOKEN });
    for (const next of ["https://evil.example/", "//evil.example/x", "/dashboard", "/sandbox/../dashboard"]) {
      const answer = await fetch(`${h.base}/token`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: TOKEN, next }),
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location"), next).toBe("/sandbox/meta");
    }
  });

  it("keeps the Embedded Signup dialog and the Graph API open: the demo's own flow uses them", async () => {
    h = await startHarness({ controlToken: TOKEN });
    const dialog = await fetch(
      `${h.base}/dialog/oauth?client_id=987654321012345&redirect_uri=${encodeURIComponent("http://app.test/cb")}&response_type=code`,
    );
    expect(dialog.status).toBe(200);
    expect((await h.graph("debug_token?input_token=x")).status).not.toBe(401);
  });

  it("needs no token when none is configured (development, tests)", async () => {
    h = await startHarness();
    expect((await fetch(`${h.base}/control/state`)).status).toBe(200);
    expect((await fetch(h.base)).status).toBe(200);
  });
});
