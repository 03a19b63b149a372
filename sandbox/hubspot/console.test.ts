import { afterEach, describe, expect, it } from "vitest";
import { DUKA_HUB_ID, startHubspot, type HubspotHarness } from "./test-support";

let h: HubspotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TOKEN = "s".repeat(40);

describe("the console", () => {
  it("shows the portals' contacts and lists, and its forms work without JavaScript", async () => {
    h = await startHubspot();
    const html = await (await fetch(h.base)).text();
    expect(html).toContain("Duka Bora CRM");
    expect(html).toContain("wanjiku@example.com");
    expect(html).toContain("VIP customers");
    expect(html).toContain('<style nonce="test-nonce">');

    const added = await h.postForm(`/console/portals/${DUKA_HUB_ID}/contacts`, { email: "new@example.com", firstname: "Neema" });
    expect(added.status).toBe(303);
    expect(h.sandbox.contacts(DUKA_HUB_ID).some((c) => c.properties.email === "new@example.com")).toBe(true);
    const tokens = await h.connect();
    await h.postForm(`/console/portals/${DUKA_HUB_ID}/expire-tokens`, {});
    expect((await h.api("/crm/v3/objects/contacts", tokens.access_token)).status).toBe(401);
    await h.postForm("/console/faults", { fault: "500", times: "1" });
    const refreshed = await h.token({
      grant_type: "refresh_token",
      client_id: "hubspot-sandbox-tests-client",
      client_secret: "hubspot-sandbox-tests-secret",
      refresh_token: tokens.refresh_token,
    });
    expect((await h.api("/crm/v3/objects/contacts", refreshed.json.access_token)).status).toBe(500);
  });

  it("asks for the sandbox token on a demo host; OAuth and the CRM API stay open", async () => {
    h = await startHubspot({ controlToken: TOKEN });
    expect((await fetch(h.base)).status).toBe(401);
    expect((await h.control("/portals")).status).toBe(401);
    expect((await fetch(`${h.base}/control/portals`, { headers: { "X-Sandbox-Token": TOKEN } })).status).toBe(200);
    const tokens = await h.connect();
    expect((await h.api("/crm/v3/objects/contacts", tokens.access_token)).status).toBe(200);
  });
});
