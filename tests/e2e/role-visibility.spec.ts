import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, awaitMailsTo, randomIp, signIn, signUpAndVerifyViaApi, uniqueEmail } from "./helpers";

// Issue 15: what a role cannot use is not offered at all (the server refuses it as well: see
// tests/integration/role-matrix.test.ts). An owner invites a viewer and an agent through the team
// form and the mailed link; each then looks at the same pages. Each check is made for the owner too,
// so the test fails if the thing were missing for everyone.

type Who = "owner" | "agent" | "viewer";

/** Invites `role` by the team form and joins by the mailed link in a browser of its own; the new member's page. */
async function join(owner: Page, request: APIRequestContext, browser: Browser, javaScriptEnabled: boolean, role: "agent" | "viewer") {
  const email = uniqueEmail(role);
  await owner.goto("/settings/team");
  await field(owner, "E-mail").fill(email);
  await field(owner, "Role").selectOption(role);
  await owner.getByRole("button", { name: "Send invitation" }).click();
  await expect(owner.getByText(`Invitation sent to ${email}.`)).toBeVisible();
  const [mail] = await awaitMailsTo(request, email);
  const link = mail!.text.match(/https?:\/\/\S+\/invitations\/[\w-]+/)![0];
  const context = await browser.newContext({ baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
  const page = await context.newPage();
  await page.goto(new URL(link).pathname);
  await field(page, "First name").fill(role === "agent" ? "Brian" : "Peter");
  await field(page, "Last name").fill(role === "agent" ? "Otieno" : "Kiprono");
  await field(page, "New password").fill("Member#Pass2026");
  await field(page, "Confirm password").fill("Member#Pass2026");
  await page.getByRole("button", { name: "Join the team" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  return page;
}

/** What each role is offered on a page: a locator and the roles that see it. */
const CHECKS: { path: string; what: string; find: (page: Page) => ReturnType<Page["getByRole"]>; seenBy: Who[] }[] = [
  {
    path: "/dashboard",
    what: "the Billing entry of the side navigation",
    find: (p) => p.getByRole("complementary", { name: "Main navigation" }).getByRole("link", { name: /Billing/ }),
    seenBy: ["owner"],
  },
  {
    path: "/dashboard",
    what: "the Create Template quick action",
    find: (p) => p.getByRole("link", { name: "Create Template" }),
    seenBy: ["owner"],
  },
  {
    path: "/dashboard",
    what: "the Send Message quick action",
    find: (p) => p.getByRole("link", { name: "Send Message" }),
    seenBy: ["owner", "agent"],
  },
  {
    path: "/chat",
    what: "the inbox's New conversation",
    find: (p) => p.getByRole("link", { name: "New conversation" }),
    seenBy: ["owner", "agent"],
  },
  {
    path: "/dashboard",
    what: "the View Analytics quick action",
    find: (p) => p.getByRole("link", { name: "View Analytics" }),
    seenBy: ["owner", "agent", "viewer"],
  },
  {
    path: "/messaging",
    what: "New Campaign",
    find: (p) => p.getByRole("link", { name: "New Campaign" }).first(),
    seenBy: ["owner", "agent"],
  },
  {
    path: "/messaging",
    what: "Quick Broadcast",
    find: (p) => p.getByRole("link", { name: "Quick Broadcast" }),
    seenBy: ["owner", "agent"],
  },
  {
    path: "/messaging/contacts",
    what: "Add contact",
    find: (p) => p.getByRole("link", { name: "Add contact" }),
    seenBy: ["owner", "agent"],
  },
  { path: "/messaging/contacts", what: "Import", find: (p) => p.getByRole("link", { name: "Import" }), seenBy: ["owner", "agent"] },
  { path: "/templates", what: "Create template", find: (p) => p.getByRole("link", { name: "Create template" }).first(), seenBy: ["owner"] },
  {
    path: "/whatsapp",
    what: "the Connect button",
    find: (p) => p.getByTestId("connect-whatsapp"),
    seenBy: ["owner"],
  },
  { path: "/activity", what: "the Export link", find: (p) => p.getByTestId("export"), seenBy: ["owner"] },
  {
    path: "/settings/team",
    what: "the invitation form",
    find: (p) => p.getByRole("button", { name: "Send invitation" }),
    seenBy: ["owner"],
  },
];

test("an agent and a viewer are not offered what their role cannot use; the owner is", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  const pages: Record<Who, Page> = {
    owner: page,
    agent: await join(page, request, browser, javaScriptEnabled, "agent"),
    viewer: await join(page, request, browser, javaScriptEnabled, "viewer"),
  };
  try {
    for (const who of ["owner", "agent", "viewer"] as const) {
      const at = pages[who];
      for (const check of CHECKS) {
        if (new URL(at.url()).pathname !== check.path) {
          await at.goto(check.path);
          await expect(at.getByRole("heading", { level: 1 })).toBeVisible();
        }
        if (check.seenBy.includes(who)) await expect(check.find(at), `${who} sees ${check.what} on ${check.path}`).toBeVisible();
        else await expect(check.find(at), `${who} is not offered ${check.what} on ${check.path}`).toHaveCount(0);
      }
    }
    // And what is hidden is refused too: the viewer typing the address lands on the plain refusal.
    await pages.viewer.goto("/billing");
    await expect(pages.viewer).toHaveURL(/\/unauthorized$/);
    await expect(pages.viewer.getByRole("heading", { name: "Access denied" })).toBeVisible();
    await expect(pages.viewer.getByText("You are a viewer in")).toBeVisible();
  } finally {
    await pages.agent.context().close();
    await pages.viewer.context().close();
  }
});
