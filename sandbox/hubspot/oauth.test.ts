import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_ID, CLIENT_SECRET, DUKA_HUB_ID, REDIRECT_URI, SCOPES, startHubspot, type HubspotHarness } from "./test-support";

let h: HubspotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exchange = (code: string, extra: Record<string, string> = {}) => ({
  grant_type: "authorization_code",
  client_id: CLIENT_ID,
  client_secret: CLIENT_SECRET,
  redirect_uri: REDIRECT_URI,
  code,
  ...extra,
});

describe("the install page", () => {
  it("lists the test portals in a form that works without JavaScript", async () => {
    h = await startHubspot();
    const query = new URLSearchParams({ client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, scope: SCOPES, state: "s1" });
    const response = await fetch(`${h.base}/oauth/authorize?${query}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<form method="post" action="/sandbox/hubspot/oauth/authorize"');
    expect(html).toContain(`value="${DUKA_HUB_ID}"`);
    expect(html).toContain("crm.objects.contacts.write");
  });

  it("refuses an unknown app or scope with an error page", async () => {
    h = await startHubspot();
    const unknownApp = await fetch(
      `${h.base}/oauth/authorize?${new URLSearchParams({ client_id: "nope", redirect_uri: REDIRECT_URI, scope: SCOPES })}`,
    );
    expect(unknownApp.status).toBe(400);
    const badScope = await fetch(
      `${h.base}/oauth/authorize?${new URLSearchParams({ client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, scope: "contacts" })}`,
    );
    expect(await badScope.text()).toContain("invalid scopes: contacts");
  });

  it("redirects back with code and state, or access_denied", async () => {
    h = await startHubspot();
    const allowed = await h.authorize(DUKA_HUB_ID, "allow", "xyz");
    expect(allowed.origin + allowed.pathname).toBe(REDIRECT_URI);
    expect(allowed.searchParams.get("state")).toBe("xyz");
    expect(allowed.searchParams.get("code")).toMatch(/^hs-code-/);
    const denied = await h.authorize(DUKA_HUB_ID, "deny", "xyz");
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("code")).toBeNull();
  });
});

describe("POST /oauth/v1/token", () => {
  it("exchanges a code once, then refreshes, with HubSpot's errors", async () => {
    h = await startHubspot({ accessTokenTtlMs: 1_800_000 });
    const code = (await h.authorize()).searchParams.get("code")!;
    const first = await h.token(exchange(code));
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ token_type: "bearer", expires_in: 1800 });
    const again = await h.token(exchange(code));
    expect(again.json).toMatchObject({ status: "BAD_AUTH_CODE", message: "missing or unknown auth code" });

    const refreshed = await h.token({
      grant_type: "refresh_token",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: first.json.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.access_token).not.toBe(first.json.access_token);
    expect(refreshed.json.refresh_token).toBe(first.json.refresh_token);

    const wrongSecret = await h.token({
      grant_type: "refresh_token",
      client_id: CLIENT_ID,
      client_secret: "x",
      refresh_token: first.json.refresh_token,
    });
    expect(wrongSecret.status).toBe(400);
    const otherRedirect = await h.token(
      exchange((await h.authorize()).searchParams.get("code")!, { redirect_uri: "http://127.0.0.1:9/other" }),
    );
    expect(otherRedirect.json.status).toBe("BAD_REDIRECT_URI");
  });

  it("describes a token, and deletes a refresh token", async () => {
    h = await startHubspot();
    const tokens = await h.connect();
    const info = await fetch(`${h.base}/oauth/v1/access-tokens/${tokens.access_token}`).then((r) => r.json());
    expect(info).toMatchObject({ hub_id: DUKA_HUB_ID, token_type: "access", scopes: SCOPES.split(" ") });
    expect((await fetch(`${h.base}/oauth/v1/refresh-tokens/${tokens.refresh_token}`, { method: "DELETE" })).status).toBe(204);
    const after = await h.token({
      grant_type: "refresh_token",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: tokens.refresh_token,
    });
    expect(after.json.status).toBe("BAD_REFRESH_TOKEN");
  });

  it("answers the dated API (2026-03): token, introspection and revocation, with RFC 6749's errors", async () => {
    h = await startHubspot();
    const code = (await h.authorize()).searchParams.get("code")!;
    const dated = (path: string, fields: Record<string, string>) =>
      h!.postForm(`/oauth/2026-03/${path}`, fields).then(async (r) => ({ status: r.status, json: await r.json() }));
    const first = await dated("token", exchange(code));
    expect(first.json).toMatchObject({ token_type: "bearer", expires_in: 1800 });
    const spent = await dated("token", exchange(code));
    expect(spent).toMatchObject({ status: 400, json: { error: "invalid_grant", status: "BAD_AUTH_CODE" } });

    const credentials = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET };
    const active = await dated("token/introspect", { ...credentials, token: first.json.access_token });
    expect(active.json).toMatchObject({
      active: true,
      hub_id: DUKA_HUB_ID,
      token_type: "access",
      client_id: CLIENT_ID,
      exp: expect.any(Number),
    });
    expect((await dated("token/introspect", { ...credentials, token: "nope" })).json).toEqual({ active: false });
    expect((await dated("token/introspect", { client_id: CLIENT_ID, client_secret: "wrong", token: "nope" })).json.error).toBe(
      "invalid_client",
    );

    expect((await dated("token/revoke", { ...credentials, token: first.json.refresh_token })).status).toBe(200);
    expect((await dated("token/revoke", { ...credentials, token: first.json.refresh_token })).status).toBe(200);
    const refreshed = await dated("token", { grant_type: "refresh_token", ...credentials, refresh_token: first.json.refresh_token });
    expect(refreshed.json).toMatchObject({ error: "invalid_grant", status: "BAD_REFRESH_TOKEN" });
  });
});
