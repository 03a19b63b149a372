import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "react-router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import {
  HubspotError,
  hubspotAuthorizeUrl,
  hubspotClient,
  withHubspotToken,
  type HubspotTokens,
} from "~/.server/infrastructure/clients/hubspot";
import { createApp } from "../../server";
import { createHubspotSandbox, type HubspotSandbox } from "@jumbe/sandbox/hubspot/index";

// Jumbe's HubSpot client against the sandbox inside Jumbe's own Express app, as in sandbox mode.
const DUKA = 14500001;
const PWANI = 14500002;
const RATE_LIMIT = { max: 30, intervalMs: 60_000 };
let server: Server;
let sandbox: HubspotSandbox;
let origin: string;
const before = env();

beforeAll(async () => {
  setEnv(parseEnv({ ...process.env, NODE_ENV: "test", SANDBOX: "1" }));
  sandbox = createHubspotSandbox({
    clientId: env().HUBSPOT_CLIENT_ID!,
    clientSecret: env().HUBSPOT_CLIENT_SECRET!,
    rateLimit: RATE_LIMIT,
    slowMs: 5_000,
  });
  const noPages = async (): Promise<ServerBuild> => {
    throw new Error("no React Router pages in this test");
  };
  server = createApp(noPages, { hubspotSandbox: sandbox }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  setEnv({ ...env(), APP_URL: origin, HUBSPOT_AUTH_URL: `${origin}/sandbox/hubspot`, HUBSPOT_API_URL: `${origin}/sandbox/hubspot` });
});

afterAll(async () => {
  await sandbox?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  setEnv(before);
});

/** The install as a browser without JavaScript does it: the page, then its form for a portal; answers the code. */
async function installFor(hubId: number, state = "state-1") {
  const redirectUri = `${origin}/integrations/hubspot/callback`;
  const page = await fetch(hubspotAuthorizeUrl({ redirectUri, state }));
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]),
  );
  const posted = await fetch(`${origin}${action}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...hidden, hub_id: String(hubId), decision: "allow" }).toString(),
    redirect: "manual",
  });
  expect(posted.status).toBe(303);
  const back = new URL(posted.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe(state);
  return { code: back.searchParams.get("code")!, redirectUri };
}

async function connect(hubId = DUKA) {
  const { code, redirectUri } = await installFor(hubId);
  return hubspotClient().exchangeCode(code, redirectUri);
}

describe("Jumbe's HubSpot client against the mounted sandbox", () => {
  it("installs: the code is exchanged for 30-minute tokens of the chosen portal", async () => {
    const client = hubspotClient();
    const before = Date.now();
    const tokens = await connect();
    // expires_in is 1800 s from the answer, which came between these two instants.
    expect(tokens.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 1_800_000);
    expect(tokens.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_800_000);
    expect(await client.tokenInfo(tokens.accessToken)).toMatchObject({
      hubId: DUKA,
      scopes: expect.arrayContaining(["crm.objects.contacts.write", "crm.lists.read"]),
    });
    const spent = await client.exchangeCode("hs-code-unknown", `${origin}/integrations/hubspot/callback`).catch((e: unknown) => e);
    expect(spent).toMatchObject({ kind: "revoked", category: "BAD_AUTH_CODE" });
  });

  it("refreshes after a 401 and goes on with the new token", async () => {
    const client = hubspotClient();
    const tokens = await connect();
    expect(sandbox.expireTokens(DUKA)).toBeGreaterThan(0);
    const refused = await client.getContact(tokens.accessToken, sandbox.contacts(DUKA)[0]!.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HubspotError);
    expect(refused).toMatchObject({ kind: "expired_token", httpStatus: 401, category: "EXPIRED_AUTHENTICATION" });

    const saved: HubspotTokens[] = [];
    const contact = await withHubspotToken(
      client,
      tokens,
      async (next) => void saved.push(next),
      (token) => client.getContact(token, sandbox.contacts(DUKA)[0]!.id, ["email", "phone"]),
    );
    expect(contact.properties.email).toBe("wanjiku@example.com");
    expect(saved).toHaveLength(1);
    expect(saved[0]!.accessToken).not.toBe(tokens.accessToken);
    expect(saved[0]!.refreshToken).toBe(tokens.refreshToken);

    await client.revokeRefreshToken(tokens.refreshToken);
    expect(await client.refresh(tokens.refreshToken).catch((e: unknown) => e)).toMatchObject({ kind: "revoked" });
  });

  it("answers an existing contact's id on a duplicate e-mail (409)", async () => {
    const client = hubspotClient();
    const { accessToken } = await connect();
    const created = await client.createContact(accessToken, { email: "juma@example.com", firstname: "Juma", phone: "+254722000111" });
    expect(created.kind).toBe("created");
    const again = await client.createContact(accessToken, { email: "JUMA@example.com" });
    expect(again).toEqual({ kind: "exists", existingId: created.kind === "created" ? created.contact.id : "" });
    const updated = await client.updateContact(accessToken, again.kind === "exists" ? again.existingId : "", { lastname: "Mwangi" });
    expect(updated.properties.lastname).toBe("Mwangi");
  });

  it("searches page by page, reads a list's members and logs a WhatsApp message", async () => {
    const client = hubspotClient();
    const { accessToken } = await connect();
    const found: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await client.searchContacts(accessToken, {
        filterGroups: [{ filters: [{ propertyName: "email", operator: "CONTAINS_TOKEN", value: "*@example.com" }] }],
        properties: ["email", "phone"],
        limit: 2,
        after,
      });
      found.push(...page.items.map((c) => c.properties.email ?? ""));
      after = page.after;
      pages++;
    } while (after);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(found).toEqual(
      expect.arrayContaining(["wanjiku@example.com", "otieno@example.com", "achieng@example.com", "mwangi@example.com"]),
    );

    const lists = await client.searchLists(accessToken, "VIP");
    expect(lists.items[0]).toMatchObject({ name: "VIP customers", size: 3 });
    const members = await client.listMembers(accessToken, lists.items[0]!.listId);
    expect(members.items).toHaveLength(3);

    const logged = await client.logWhatsappMessage(accessToken, {
      contactId: members.items[0]!,
      body: "Asante! Your order has shipped.",
      at: new Date(),
    });
    expect(logged.id).toMatch(/^\d+$/);
  });

  it("reads HubSpot's 429 with its policy, and fails a slow answer with a timeout", async () => {
    const client = hubspotClient();
    const { accessToken } = await connect(PWANI);
    let limited: unknown;
    const firstCall = Date.now();
    for (let i = 0; i <= RATE_LIMIT.max && !limited; i++)
      limited = await client.searchLists(accessToken).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(limited).toMatchObject({
      kind: "rate_limited",
      httpStatus: 429,
      policyName: "TEN_SECONDLY_ROLLING",
    });
    // Until the window's first call leaves it, in whole seconds (Retry-After): the window less the
    // time the calls took (on a loaded machine more than a second).
    const { retryAfterMs } = limited as { retryAfterMs: number };
    expect(retryAfterMs).toBeLessThanOrEqual(RATE_LIMIT.intervalMs);
    expect(retryAfterMs).toBeGreaterThanOrEqual(RATE_LIMIT.intervalMs - (Date.now() - firstCall) - 1000);

    const { accessToken: duka } = await connect();
    expect(await client.createContact(duka, { email: "magic-500@example.com" }).catch((e: unknown) => e)).toMatchObject({
      kind: "server",
      httpStatus: 500,
    });
    const impatient = hubspotClient({ timeoutMs: 200 });
    expect(await impatient.createContact(duka, { email: "magic-slow@example.com" }).catch((e: unknown) => e)).toMatchObject({
      kind: "timeout",
      httpStatus: 0,
    });
  });

  it("answers only at the lower-case prefix, as the other sandboxes do", async () => {
    for (const path of ["/Sandbox/hubspot/control/portals", "/sandbox/HubSpot/control/portals", "/sandbox/Shopify", "/sandbox/Google"])
      expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
    expect((await fetch(`${origin}/sandbox/hubspot/control/portals`)).status).toBe(200);
  });
});
