import { describe, expect, it } from "vitest";
import { matchPath } from "react-router";
import { declaredRoutes, sentAsDocument } from "~/.server/domains/auth/route-permissions";
import { action as sidebarAction } from "~/routes/app/sidebar-preference";
import { loader as layoutLoader, shouldRevalidate } from "~/routes/app/layout";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { countStatements } from "~/.server/infrastructure/db/statement-count";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { APP, cookieHeader, formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { appFetch, flatRoutes } from "../support/in-process-app";

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

// Issue 39, "Finding your way": the side navigation and the phone menu listed only the spec's five
// entries; Templates, the Message Center, the inbox, Analytics, Developers, Notifications and
// Settings had none. Every section a member's role may open is now listed, grouped, each a real
// page, the current one marked on its sub-pages, and the inbox's entry shows its unread count.
describe("the navigation", () => {
  type Role = "owner" | "admin" | "agent" | "viewer";

  async function member(role: Role) {
    const account = await createVerifiedUser({ businessName: `Duka la ${role}` });
    if (role !== "owner") await rawQuery(`update users set org_role = $1 where id = $2`, [role, account.user.id]);
    return { ...account, cookie: await signedInCookie(account.email, account.password) };
  }

  /** A page as the browser receives it, rendered on the server. */
  async function page(path: string, cookie: string) {
    const response = await appFetch(getRequest(path, { cookie, headers: { accept: "text/html" } }));
    expect(response.status, path).toBe(200);
    return response.text();
  }

  interface NavLink {
    href: string;
    text: string;
    current: boolean;
  }

  /**
   * The navigation's links (inside the "Main navigation" aside). It is also the phone menu: the top
   * bar's "Open menu" link targets it (#menu), and the page holds no second copy.
   */
  function linksOf(html: string): NavLink[] {
    const aside = html.indexOf('aria-label="Main navigation"');
    expect(html.slice(html.lastIndexOf("<aside", aside), aside)).toContain('id="menu"');
    expect(html).toContain('<a href="#menu" aria-label="Open menu"');
    const start = html.indexOf("<nav", aside);
    expect(start).toBeGreaterThan(-1);
    const nav = html.slice(start, html.indexOf("</nav>", start));
    const links = [...nav.matchAll(/<a ([^>]*)>([\s\S]*?)<\/a>/g)].map(([, attributes, inner]) => ({
      href: /href="([^"]*)"/.exec(attributes!)![1]!,
      text: inner!
        .replace(/<span aria-hidden="true">[\s\S]*?<\/span>/g, "")
        .replace(/<[^>]+>/g, "")
        .replace(/\s+/g, " ")
        .trim(),
      current: attributes!.includes('aria-current="page"'),
    }));
    // One copy of the list on the page.
    expect(html.match(/class="nav-link"/g)?.length).toBe(links.length);
    return links;
  }

  const OWNER_AND_ADMIN = [
    ["Overview", "/dashboard"],
    ["Get Started", "/get-started"],
    ["WhatsApp Setup", "/whatsapp"],
    ["Inbox", "/chat"],
    ["Automations", "/automations"],
    ["Contacts", "/messaging/contacts"],
    ["Campaigns", "/messaging"],
    ["Templates", "/templates"],
    ["Shop", "/shop/products"],
    ["Analytics", "/analytics"],
    ["Billing", "/billing"],
    // Issue 74: Revenue Share was found only by search; a business owner looks for it by Billing.
    ["Revenue Share", "/revenue-share"],
    ["Developers", "/developers"],
    ["Integrations", "/integrations"],
    ["Activity", "/activity"],
    ["Notifications", "/notifications"],
    ["Settings", "/settings"],
  ];
  const WITHOUT_MONEY_AND_KEYS = OWNER_AND_ADMIN.filter(
    ([label]) => !["Billing", "Revenue Share", "Developers", "Integrations"].includes(label!),
  );
  const EXPECTED: Record<Role, string[][]> = {
    owner: OWNER_AND_ADMIN,
    admin: OWNER_AND_ADMIN,
    agent: WITHOUT_MONEY_AND_KEYS,
    viewer: WITHOUT_MONEY_AND_KEYS,
  };

  it("lists every section each role may open, in the navigation (the phone menu too), each a page that opens", async () => {
    const patterns = flatRoutes()
      .filter((route) => route.parentId === "routes/app/layout")
      .map((route) => route.pattern);
    for (const role of ["owner", "admin", "agent", "viewer"] as const) {
      const me = await member(role);
      const html = await page("/dashboard", me.cookie);
      const links = linksOf(html);
      expect(
        links.map((l) => [l.text, l.href]),
        role,
      ).toEqual(EXPECTED[role]);
      expect(links.filter((l) => l.current).map((l) => l.text)).toEqual(["Overview"]);
      // Each entry is a page of the shell (not a planned "coming soon" one) that this role opens.
      for (const [, href] of EXPECTED[role]) {
        expect(patterns, href).toContain(href);
        const opened = await appFetch(getRequest(href!, { cookie: me.cookie, headers: { accept: "text/html" } }));
        expect([200, 302], `${role} opens ${href}`).toContain(opened.status);
        if (opened.status === 302) expect(opened.headers.get("location"), `${role} opens ${href}`).toMatch(new RegExp(`^${href}/`));
      }
    }
  });

  it("marks the section on its sub-pages, the longest match winning", async () => {
    const me = await member("owner");
    const current = async (path: string) =>
      linksOf(await page(path, me.cookie))
        .filter((l) => l.current)
        .map((l) => l.text);
    expect(await current("/messaging/contacts/segments")).toEqual(["Contacts"]);
    expect(await current("/messaging/broadcasts")).toEqual(["Campaigns"]);
    expect(await current("/messaging/campaigns/new")).toEqual(["Campaigns"]);
    expect(await current("/templates/new")).toEqual(["Templates"]);
    expect(await current("/chat/quick-replies")).toEqual(["Inbox"]);
    expect(await current("/automations/hours")).toEqual(["Automations"]);
    expect(await current("/settings/team")).toEqual(["Settings"]);
    expect(await current("/profile")).toEqual([]);
  });

  it("names the pages sent as documents by URL pattern, so any link to one from a hydrated page loads the document at once", async () => {
    const owner = await member("owner");
    const { documentPatterns } = (await run(layoutLoader, getRequest("/dashboard", { cookie: owner.cookie }))).data;
    // Decisions 066 to 069: these pages have no React in the browser (their routes say so); the Overview does.
    expect(documentPatterns).toEqual(
      expect.arrayContaining([
        "/billing",
        "/templates",
        "/messaging/contacts",
        "/analytics",
        "/developers",
        "/settings",
        "/profile",
        "/change-password",
        "/whatsapp",
        "/preview",
        "/messaging/campaigns/:id",
        "/messaging/contacts/:id",
        "/messaging/campaigns/new",
        "/templates/new",
        "/templates/:id/edit",
        "/chat",
        "/chat/new",
        "/chat/:id",
      ]),
    );
    for (const hydrated of ["/dashboard", "/get-started", "/search"]) expect(documentPatterns).not.toContain(hydrated);
    // The browser matches a link against the patterns alone: no hydrated page of the app may look like one of them.
    const appPages = declaredRoutes().filter((route) => route.under.includes("routes/app/layout") && !route.pattern.includes(":"));
    const lookAlikes = appPages.filter(
      (route) => !sentAsDocument(route.pattern) && documentPatterns.some((pattern: string) => matchPath(pattern, route.pattern)),
    );
    expect(lookAlikes.map((route) => route.pattern)).toEqual([]);
  });

  it("sends a toast's redirect to a page without React as a document load, so the shell's reread data does not take the toast", async () => {
    const toBilling = await redirectWithToast("/billing?dialog=topup", "success", "Saved.");
    expect(toBilling.status).toBe(302);
    expect(toBilling.headers.get("X-Remix-Reload-Document")).toBe("true");
    // A page with a parameter too: a campaign's page (decision 067), where a new campaign's form sends its author.
    const toCampaign = await redirectWithToast("/messaging/campaigns/0b6f6d0e-6a57-4c44-9a3e-7d1f2b9c8e11", "success", "Campaign started.");
    expect(toCampaign.headers.get("X-Remix-Reload-Document")).toBe("true");
    // The inbox too (decision 069); the Overview is still hydrated, and its redirect stays the router's.
    const toChat = await redirectWithToast("/chat/0b6f6d0e-6a57-4c44-9a3e-7d1f2b9c8e11", "success", "Conversation resolved.");
    expect(toChat.headers.get("X-Remix-Reload-Document")).toBe("true");
    const toOverview = await redirectWithToast("/dashboard", "success", "Saved.");
    expect(toOverview.status).toBe(302);
    expect(toOverview.headers.get("X-Remix-Reload-Document")).toBeNull();
  });

  it("reads the shell's counts again when the member moves to another page", () => {
    const move = (from: string, to: string, defaultShouldRevalidate = false) =>
      shouldRevalidate({
        currentUrl: new URL(`${APP}${from}`),
        nextUrl: new URL(`${APP}${to}`),
        defaultShouldRevalidate,
      } as Parameters<typeof shouldRevalidate>[0]);
    expect(move("/chat/1", "/dashboard")).toBe(true);
    expect(move("/dashboard", "/chat")).toBe(true);
    // The same page (a filter, a pager): as React Router decides.
    expect(move("/chat", "/chat?filter=mine")).toBe(false);
    expect(move("/chat", "/chat?filter=mine", true)).toBe(true);
  });

  it("shows how many conversations have unread messages on the Inbox entry, read with the shell's bell", async () => {
    const me = await member("agent");
    const unreadOf = async () => {
      const inbox = linksOf(await page("/dashboard", me.cookie)).find((l) => l.href === "/chat")!;
      return inbox.text;
    };
    expect(await unreadOf()).toBe("Inbox");
    const other = await member("owner");
    for (const [organizationId, phone, unread] of [
      [me.organization.id, "+254711000001", 2],
      [me.organization.id, "+254711000002", 1],
      [me.organization.id, "+254711000003", 0],
      [other.organization.id, "+254711000004", 5],
    ] as const)
      await rawQuery(
        `with c as (insert into contacts (organization_id, name, phone, wa_id) values ($1, 'Mteja', $2, $3) returning id)
         insert into conversations (organization_id, phone_number_id, contact_id, last_message_at, unread_count)
         select $1, '106540352242922', id, now(), $4 from c`,
        [organizationId, phone, phone.slice(1), unread],
      );
    // Two conversations of the member's organisation wait to be read; the other organisation's are not counted.
    expect(await unreadOf()).toBe("Inbox (2 unread)");
    const html = await page("/dashboard", me.cookie);
    expect(linksOf(html).find((l) => l.href === "/chat")!.text).toBe("Inbox (2 unread)");
    expect(html).toMatch(/data-testid="inbox-unread"><span aria-hidden="true">2<\/span>/);
    // The count comes in the bell's statement: the shell still reads the session and one statement more.
    const { result, statements } = await countStatements(() => run(layoutLoader, getRequest("/dashboard", { cookie: me.cookie })));
    expect(result.data).toMatchObject({ inboxUnread: 2, bell: { unread: 0 } });
    expect(statements).toBe(2);
  });
});
