import { describe, expect, it } from "vitest";
import { action as sidebarAction } from "~/routes/app/sidebar-preference";
import { loader as layoutLoader } from "~/routes/app/layout";
import { cookieHeader, formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";

describe("side navigation preference", () => {
  it("remembers the collapsed state and returns to a local page only", async () => {
    const user = await createVerifiedUser();
    const cookie = await signedInCookie(user.email, user.password);
    const collapsed = await run(
      sidebarAction,
      formRequest("/preferences/sidebar", { collapsed: "true", redirectTo: "/profile" }, { cookie }),
    );
    expect(collapsed.location).toBe("/profile");
    const withPreference = cookieHeader(collapsed.setCookies, cookie);
    expect((await run(layoutLoader, getRequest("/dashboard", { cookie: withPreference }))).data.collapsed).toBe(true);

    for (const target of ["//evil.example", "/\\evil.example", "https://evil.example"]) {
      const res = await run(sidebarAction, formRequest("/preferences/sidebar", { collapsed: "false", redirectTo: target }, { cookie }));
      expect(res.location).toBeNull();
      expect(res.data).toEqual({ collapsed: false });
    }
  });

  it("needs a signed-in user", async () => {
    const res = await run(sidebarAction, formRequest("/preferences/sidebar", { collapsed: "true", redirectTo: "/dashboard" }));
    expect(res.location).toMatch(/^\/login\?from=/);
  });
});
