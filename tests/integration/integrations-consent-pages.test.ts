import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { registerHubspotConnector } from "~/.server/composition/hubspot-connector";
import { registerGoogleSheetsConnector } from "~/.server/composition/google-sheets-connector";
import * as integrationsPage from "~/routes/app/integrations/index";
import * as callbackRoute from "~/routes/app/integrations/callback";
import { DEMO_GOOGLE_USER, DEMO_HUBSPOT_PORTAL } from "@jumbe/sandbox/demo-grants";
import * as hubspotKit from "@jumbe/sandbox/hubspot/test-support";
import * as googleKit from "@jumbe/sandbox/google/test-support";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, formRequest, getRequest, run } from "../support/http";

// Issue 74: the HubSpot and Google sandboxes' consent pages offered every test account they held,
// the demo tenant's among them, to whoever connected. Now Jumbe passes each organisation's opaque
// key (as for Meta's signup dialog) and a page offers that organisation's own accounts, test accounts
// no one has connected yet, and a fresh account of its own; never another tenant's, never the demo's.

let hubspot: hubspotKit.HubspotHarness;
let google: googleKit.GoogleHarness;
const before = env();
beforeAll(async () => {
  hubspot = await hubspotKit.startHubspot({ demo: true });
  google = await googleKit.startGoogle({ demo: true });
  registerHubspotConnector();
  registerGoogleSheetsConnector();
});
afterAll(async () => {
  setEnv(before);
  await hubspot?.close();
  await google?.close();
});
beforeEach(() => {
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: APP,
      HUBSPOT_CLIENT_ID: hubspotKit.CLIENT_ID,
      HUBSPOT_CLIENT_SECRET: hubspotKit.CLIENT_SECRET,
      HUBSPOT_AUTH_URL: hubspot.base,
      HUBSPOT_API_URL: hubspot.base,
      GOOGLE_CLIENT_ID: googleKit.CLIENT_ID,
      GOOGLE_CLIENT_SECRET: googleKit.CLIENT_SECRET,
      GOOGLE_AUTH_URL: google.base,
      GOOGLE_OAUTH_URL: google.base,
      GOOGLE_SHEETS_URL: google.base,
    }),
  );
});

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  return { ...account, cookie, organizationId: account.organization.id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** Jumbe's connect: the consent page's address (with the organisation's key) and the page itself. */
async function consentPage(t: Tenant, integration: "hubspot" | "google-sheets") {
  const started = await run(
    integrationsPage.action,
    formRequest("/integrations", { intent: "connect", integration }, { cookie: t.cookie }),
  );
  expect(started.status, JSON.stringify(started.data)).toBe(302);
  const url = new URL(started.location!);
  const page = await fetch(url);
  expect(page.status).toBe(200);
  return { params: Object.fromEntries(url.searchParams), html: await page.text() };
}

const offered = (html: string, name: "hub_id" | "account") =>
  [...html.matchAll(new RegExp(`name="${name}" value="([^"]+)"`, "g"))].map((match) => match[1]!);

/** The page's form posted as a browser without JavaScript posts it; answers the redirect or the page again. */
async function choose(
  post: (path: string, fields: Record<string, string>) => Promise<Response>,
  path: string,
  fields: Record<string, string>,
) {
  const answer = await post(path, fields);
  return { status: answer.status, location: answer.headers.get("location"), html: answer.status === 200 ? await answer.text() : "" };
}

async function finish(t: Tenant, provider: "hubspot" | "google-sheets", location: string) {
  const back = new URL(location);
  const done = await run(callbackRoute.loader, getRequest(`/integrations/${provider}/callback${back.search}`, { cookie: t.cookie }), {
    params: { provider },
  });
  expect(done.status, JSON.stringify(done.data)).toBe(302);
  const [row] = await rawQuery<{ account_label: string }>(
    `select account_label from integration_connections where organization_id = $1 and provider = $2`,
    [t.organizationId, provider],
  );
  return row!.account_label;
}

describe("HubSpot's install page", () => {
  it("offers a tenant its own portals and a new one, never the demo's or another tenant's", async () => {
    const a = await tenant("Ukunda Surf School");
    const b = await tenant("Kakamega Poultry");
    const first = await consentPage(a, "hubspot");
    expect(first.html).not.toContain(DEMO_HUBSPOT_PORTAL.name);
    expect(first.params.sandbox_user).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(offered(first.html, "hub_id")).not.toContain(String(DEMO_HUBSPOT_PORTAL.hubId));
    expect(first.html).toContain("Create a new test account");
    // The demo's portal posted by hand is as unknown as a wrong id: the page again, no code.
    const demo = await choose(hubspot.postForm, "/oauth/authorize", {
      ...first.params,
      hub_id: String(DEMO_HUBSPOT_PORTAL.hubId),
      decision: "allow",
    });
    expect(demo.status).toBe(200);

    // A makes a portal of its own and connects it.
    const made = await choose(hubspot.postForm, "/oauth/authorize", { ...first.params, hub_id: "new", decision: "allow" });
    expect(made.status).toBe(303);
    const label = await finish(a, "hubspot", made.location!);
    const hubId = /Hub ID (\d+)/.exec(label)![1]!;
    expect(label).toBe(`portal-${hubId}.hubspot.test (Hub ID ${hubId})`);

    // B is not offered it and cannot post it; A is offered it again, first.
    const other = await consentPage(b, "hubspot");
    expect(offered(other.html, "hub_id")).not.toContain(hubId);
    expect(other.params.sandbox_user).not.toBe(first.params.sandbox_user);
    const stolen = await choose(hubspot.postForm, "/oauth/authorize", { ...other.params, hub_id: hubId, decision: "allow" });
    expect(stolen.status).toBe(200);
    expect((await consentPage(a, "hubspot")).html.indexOf(`value="${hubId}"`)).toBeGreaterThan(-1);
    expect(offered((await consentPage(a, "hubspot")).html, "hub_id")[0]).toBe(hubId);

    // A test portal no one had connected becomes B's once B connects it.
    const duka = String(hubspotKit.DUKA_HUB_ID);
    expect(offered(other.html, "hub_id")).toContain(duka);
    const taken = await choose(hubspot.postForm, "/oauth/authorize", { ...other.params, hub_id: duka, decision: "allow" });
    expect(taken.status).toBe(303);
    await finish(b, "hubspot", taken.location!);
    expect(offered((await consentPage(a, "hubspot")).html, "hub_id")).not.toContain(duka);
  });
});

describe("Google's consent page", () => {
  it("offers a tenant its own accounts and a new one, never the demo's or another tenant's", async () => {
    const a = await tenant("Nyeri Coffee Roasters");
    const b = await tenant("Garissa Camel Milk");
    const first = await consentPage(a, "google-sheets");
    expect(first.html).not.toContain(DEMO_GOOGLE_USER.email);
    expect(first.params.sandbox_user).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(first.html).toContain("Use another account");
    const demo = await choose(google.postForm, "/o/oauth2/v2/auth", {
      ...first.params,
      account: DEMO_GOOGLE_USER.email,
      decision: "allow",
    });
    expect(demo.status).toBe(200);

    const made = await choose(google.postForm, "/o/oauth2/v2/auth", { ...first.params, account: "new", decision: "allow" });
    expect(made.status).toBe(303);
    const email = await finish(a, "google-sheets", made.location!);
    expect(email).toMatch(/^test\d+@sandbox\.google\.test$/);

    const other = await consentPage(b, "google-sheets");
    expect(offered(other.html, "account")).not.toContain(email);
    const stolen = await choose(google.postForm, "/o/oauth2/v2/auth", { ...other.params, account: email, decision: "allow" });
    expect(stolen.status).toBe(200);
    expect(offered((await consentPage(a, "google-sheets")).html, "account")[0]).toBe(email);
  });
});
