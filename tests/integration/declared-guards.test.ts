import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { sessions, users } from "~/.server/infrastructure/db/schema";
import { requireDeclaredResource, requireDeclaredUser, type RouteArgs } from "~/.server/domains/auth/guards";
import { loader as exportLoader } from "~/routes/app/messaging/export";
import { loader as consoleBillingLoader } from "~/routes/admin/billing";
import { loader as uploadLoader } from "~/routes/app/messaging/import/upload";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, routeArgs, run } from "../support/http";

/**
 * Issue 75: a route declares its permission once, in its module's `handle` (decision 055), and its
 * loader takes the signed-in user from that declaration (requireDeclaredUser, requireDeclaredResource)
 * instead of naming the permission again. Under the layouts' middleware they repeat a check already
 * passed; called alone (as these tests call loaders) they check what the middleware would.
 */
async function member(role: "owner" | "viewer" = "owner") {
  const user = await createVerifiedUser();
  if (role !== "owner") await db().update(users).set({ orgRole: role }).where(eq(users.id, user.user.id));
  return { ...user, cookie: await signedInCookie(user.email, user.password) };
}

const NAVIGATION = { "sec-fetch-mode": "navigate", accept: "text/html" };

describe("the guards that read the route's declaration", () => {
  it("refuse a route that declares nothing: an error, never an open door", async () => {
    const { cookie } = await member();
    for (const path of ["/privacy", "/no/such/page", "/webhooks/paystack"]) {
      await expect(requireDeclaredUser(routeArgs(getRequest(path, { cookie })))).rejects.toThrow("without a declared permission");
      await expect(requireDeclaredResource(routeArgs(getRequest(path, { cookie })))).rejects.toThrow("without a declared permission");
    }
  });

  it("check what the route declares when its loader is called without the middleware", async () => {
    const owner = await member();
    const viewer = await member("viewer");
    // The import's page declares contacts:manage: the owner holds it, a viewer is sent to the refusal page, a visitor to sign in.
    expect((await run(uploadLoader, getRequest("/messaging/contacts/import", { cookie: owner.cookie }))).status).toBe(200);
    expect((await run(uploadLoader, getRequest("/messaging/contacts/import", { cookie: viewer.cookie }))).location).toBe("/unauthorized");
    expect((await run(uploadLoader, getRequest("/messaging/contacts/import"))).location).toBe(
      "/login?from=%2Fmessaging%2Fcontacts%2Fimport",
    );
    // The contacts' CSV declares contacts:manage and the page a signed-out browser comes back to.
    const csv = "/messaging/contacts/export.csv";
    expect((await run(exportLoader, getRequest(csv, { cookie: viewer.cookie, headers: NAVIGATION }))).location).toBe("/unauthorized");
    expect((await run(exportLoader, getRequest(csv, { cookie: viewer.cookie }))).status).toBe(403);
    expect((await run(exportLoader, getRequest(csv, { headers: NAVIGATION }))).location).toBe("/login?from=%2Fmessaging%2Fcontacts");
    expect((await run(exportLoader, getRequest(csv))).status).toBe(401);
    expect((await run(exportLoader, getRequest(csv, { cookie: owner.cookie }))).status).toBe(200);
  });

  it("give the console's pages to the staff their route declares, and its 404 to anyone else", async () => {
    const staff = async (platformRole: "finance" | "support") => {
      const user = await createVerifiedUser({ usertype: "admin", platformRole });
      return signedInCookie(user.email, user.password);
    };
    const owner = await member();
    // The console's billing declares platform:money below the console's platform:console.
    expect((await run(consoleBillingLoader, getRequest("/admin/billing", { cookie: await staff("finance") }))).status).toBe(200);
    expect((await run(consoleBillingLoader, getRequest("/admin/billing", { cookie: await staff("support") }))).status).toBe(404);
    expect((await run(consoleBillingLoader, getRequest("/admin/billing", { cookie: owner.cookie }))).status).toBe(404);
    expect((await run(consoleBillingLoader, getRequest("/admin/billing"))).status).toBe(404);
  });

  it("read the declaration by the pattern React Router matched, with its parameters", async () => {
    const id = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
    const args: RouteArgs = {
      ...(routeArgs(getRequest(`/messaging/contacts/${id}/data.json`, { headers: NAVIGATION }), { id }) as RouteArgs),
      pattern: "messaging/contacts/:id/data.json",
    };
    const refused = await requireDeclaredResource(args).catch((thrown: unknown) => thrown);
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).headers.get("location")).toBe(`/login?from=${encodeURIComponent(`/messaging/contacts/${id}`)}`);
  });

  it("read the session once a request: a second guard of the same request asks the database nothing", async () => {
    const owner = await member();
    const args = routeArgs(getRequest("/messaging/contacts/import", { cookie: owner.cookie }));
    expect((await requireDeclaredUser(args)).user.id).toBe(owner.user.id);
    // Signed out elsewhere between the two: the same request keeps the session it read; the next request has none.
    await db().delete(sessions).where(eq(sessions.userId, owner.user.id));
    expect((await requireDeclaredUser(args)).user.id).toBe(owner.user.id);
    const next = await requireDeclaredUser(routeArgs(getRequest("/messaging/contacts/import", { cookie: owner.cookie }))).catch(
      (thrown: unknown) => thrown,
    );
    expect((next as Response).headers.get("location")).toBe("/login?from=%2Fmessaging%2Fcontacts%2Fimport");
  });
});
