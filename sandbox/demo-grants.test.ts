import { describe, expect, it } from "vitest";
import { OAuthGrants } from "./oauth-grants";
import { demoHubspotTokens, demoShopifyToken, googleSubject } from "./demo-grants";

const grants = () => new OAuthGrants({ prefixes: { code: "c-", access: "a-", refresh: "r-" }, accessTtlMs: 60_000, now: Date.now });

describe("the demo's installs at the sandboxes", () => {
  it("derives the same tokens from the same app, and others from another", () => {
    expect(demoHubspotTokens("app-1")).toEqual(demoHubspotTokens("app-1"));
    expect(demoHubspotTokens("app-1").refreshToken).not.toBe(demoHubspotTokens("app-2").refreshToken);
    expect(demoShopifyToken("app-1")).toMatch(/^shpat_/);
    expect(googleSubject("data@nyotasacco.co.ke")).toMatch(/^\d{21}$/);
  });

  it("adopts a token it never knew, and leaves a revoked one revoked", () => {
    const g = grants();
    const grant = { account: "14500009", clientId: "app-1", scopes: ["oauth"] };
    g.adopt(grant, { refreshToken: "r-demo" });
    expect(g.refreshTokens("r-demo", "app-1")?.accessToken).toMatch(/^a-/);
    expect(g.revokeRefresh("r-demo")).toBe(true);
    g.adopt(grant, { refreshToken: "r-demo" });
    expect(g.refreshTokens("r-demo", "app-1")).toBeUndefined();
  });
});
