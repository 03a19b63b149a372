import { describe, expect, it } from "vitest";
import { safeRedirectTarget } from "~/.server/domains/auth/guards";
import { action as loginAction, loader as loginLoader } from "~/routes/auth/login";
import { loader as dashboardLoader } from "~/routes/app/dashboard";
import { loader as adminLayoutLoader } from "~/routes/admin/layout";
import { loader as adminOverviewLoader } from "~/routes/admin/overview";
import { loader as appLayoutLoader } from "~/routes/app/layout";
import { loader as profileLoader } from "~/routes/app/profile";
import { loader as catchAll } from "~/routes/catch-all";
import { formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";

describe("roles and redirects", () => {
  it("lands an admin on /admin and an individual on /dashboard", async () => {
    const admin = await createVerifiedUser({ usertype: "admin" });
    const individual = await createVerifiedUser();
    expect((await run(loginAction, formRequest("/login", { email: admin.email, password: admin.password }))).location).toBe("/admin");
    expect((await run(loginAction, formRequest("/login", { email: individual.email, password: individual.password }))).location).toBe(
      "/dashboard",
    );
  });

  it("sends an administrator to /unauthorized from /dashboard, and answers 404 to a member at the console", async () => {
    const admin = await createVerifiedUser({ usertype: "admin" });
    const individual = await createVerifiedUser();
    const adminCookie = await signedInCookie(admin.email, admin.password);
    const individualCookie = await signedInCookie(individual.email, individual.password);
    expect((await run(dashboardLoader, getRequest("/dashboard", { cookie: adminCookie }))).location).toBe("/unauthorized");
    expect((await run(adminLayoutLoader, getRequest("/admin", { cookie: individualCookie }))).status).toBe(404);
    expect((await run(adminOverviewLoader, getRequest("/admin", { cookie: individualCookie }))).status).toBe(404);
    expect((await run(adminOverviewLoader, getRequest("/admin"))).status).toBe(404);
    expect((await run(dashboardLoader, getRequest("/dashboard", { cookie: individualCookie }))).status).toBe(200);
    expect((await run(adminOverviewLoader, getRequest("/admin", { cookie: adminCookie }))).status).toBe(200);
  });

  it("sends visitors to /login with the attempted location, and honours it after sign-in", async () => {
    const res = await run(profileLoader, getRequest("/profile?tab=security"));
    expect(res.location).toBe("/login?from=%2Fprofile%3Ftab%3Dsecurity");
    expect((await run(appLayoutLoader, getRequest("/get-started"))).location).toBe("/login?from=%2Fget-started");
    const user = await createVerifiedUser();
    const signedIn = await run(
      loginAction,
      formRequest("/login", { email: user.email, password: user.password, from: "/profile?tab=security" }),
    );
    expect(signedIn.location).toBe("/profile?tab=security");
  });

  it("ignores unsafe or wrong-role `from` values", () => {
    expect(safeRedirectTarget("//evil.example/x", "owner")).toBe("/dashboard");
    expect(safeRedirectTarget("https://evil.example", "owner")).toBe("/dashboard");
    expect(safeRedirectTarget("/\\evil.example", "owner")).toBe("/dashboard");
    expect(safeRedirectTarget("/admin", "owner")).toBe("/dashboard");
    expect(safeRedirectTarget("/dashboard", "platform_admin")).toBe("/admin");
    expect(safeRedirectTarget("/login", "platform_admin")).toBe("/admin");
    expect(safeRedirectTarget("/profile", "platform_admin")).toBe("/profile");
  });

  it("redirects a signed-in visitor away from the sign-in page", async () => {
    const user = await createVerifiedUser();
    const cookie = await signedInCookie(user.email, user.password);
    expect((await run(loginLoader, getRequest("/login", { cookie }))).location).toBe("/dashboard");
  });

  it("sends any other path to /", async () => {
    expect((await run(catchAll, getRequest("/no/such/page"))).location).toBe("/");
  });
});
