import { describe, expect, it } from "vitest";
import { recordActivity } from "~/.server/domains/activity/record";
import { currentUser } from "~/.server/domains/auth/guards";
import { PlatformScopeRefused } from "~/.server/infrastructure/db/scope";
import { platformUsers } from "~/.server/domains/search/providers";
import { loader as searchLoader } from "~/routes/app/search";
import { loader as searchSuggestLoader } from "~/routes/app/search-suggest";
import { loader as adminUsers } from "~/routes/admin/users";
import { loader as revenueShare } from "~/routes/app/revenue-share/index";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { inLocale } from "~/.server/infrastructure/http/display-zone";

// Issue 10: the top bar's search box, the admin console's search and its bell did nothing. They
// search what exists, each tenant inside its own data.
async function signedIn(options: Parameters<typeof createVerifiedUser>[0] = {}) {
  const account = await createVerifiedUser(options);
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

const titles = (sections: { id: string; hits: { title: string }[] }[], id: string) =>
  sections.find((s) => s.id === id)?.hits.map((h) => h.title) ?? [];

describe("search", () => {
  it("finds the tenant's pages, WhatsApp numbers and activity, and nothing of another tenant's", async () => {
    const mine = await signedIn({ businessName: "Mama Mboga Groceries" });
    const theirs = await signedIn({ businessName: "Other Sacco" });
    await connectedNumber(mine.organization.id, {
      wabaId: "102290129340398",
      phoneNumberId: "106540352242922",
      display: "+254 712 345 678",
    });
    await connectedNumber(theirs.organization.id, {
      wabaId: "202290129340398",
      phoneNumberId: "206540352242922",
      display: "+254 733 000 111",
    });
    await recordActivity({
      organizationId: mine.organization.id,
      type: "profile",
      status: "success",
      action: "Profile updated",
      details: "Business name changed to Mama Mboga Groceries",
    });
    await recordActivity({
      organizationId: theirs.organization.id,
      type: "profile",
      status: "success",
      action: "Profile updated",
      details: "Business name changed to Other Sacco",
    });

    const pages = await run(searchLoader, getRequest("/search?q=api+key", { cookie: mine.cookie }));
    expect(titles(pages.data.sections, "pages")).toEqual(["Developers"]);

    const byNumber = await run(searchLoader, getRequest("/search?q=0712345", { cookie: mine.cookie }));
    expect(byNumber.data.sections.find((s: { id: string }) => s.id === "whatsapp")?.hits[0].detail).toContain("+254 712 345 678");
    const foreignNumber = await run(searchLoader, getRequest("/search?q=733000", { cookie: mine.cookie }));
    expect(titles(foreignNumber.data.sections, "whatsapp")).toEqual([]);

    const activity = await run(searchLoader, getRequest("/search?q=business+name", { cookie: mine.cookie }));
    const details = activity.data.sections.find((s: { id: string }) => s.id === "activity")?.hits.map((h: { detail: string }) => h.detail);
    expect(details).toEqual(["Business name changed to Mama Mboga Groceries"]);
    // An owner's search has no cross-tenant Users section and never offers the admin console.
    expect(titles(activity.data.sections, "users")).toEqual([]);
    expect(titles((await run(searchLoader, getRequest("/search?q=admin", { cookie: mine.cookie }))).data.sections, "pages")).not.toContain(
      "Admin Console",
    );
  });

  it("treats % and _ as text, and says what is wrong with a query too short or too long", async () => {
    const me = await signedIn();
    await recordActivity({
      organizationId: me.organization.id,
      type: "security",
      status: "success",
      action: "Signed in",
      details: "from Nairobi",
    });
    expect((await run(searchLoader, getRequest("/search?q=%25%25", { cookie: me.cookie }))).data.sections).toEqual([]);
    expect((await run(searchLoader, getRequest("/search?q=__", { cookie: me.cookie }))).data.sections).toEqual([]);
    expect((await run(searchLoader, getRequest("/search?q=a", { cookie: me.cookie }))).data.message).toBe(
      "Type at least 2 characters to search.",
    );
    expect((await run(searchLoader, getRequest(`/search?q=${"x".repeat(101)}`, { cookie: me.cookie }))).data.message).toBe(
      "Search for at most 100 characters.",
    );
    const nul = await run(searchLoader, getRequest("/search?q=Signed%00in", { cookie: me.cookie }));
    expect(nul.status).toBe(200);
    expect((await run(searchLoader, getRequest("/search", { cookie: me.cookie }))).data).toEqual({
      query: "",
      message: null,
      sections: [],
    });
    expect((await run(searchLoader, getRequest("/search?q=signed"))).location).toBe("/login?from=%2Fsearch%3Fq%3Dsigned");
  });

  it("lets a platform administrator find users in every organisation, and nobody else", async () => {
    const admin = await signedIn({ usertype: "admin", businessName: "Jumbe Platform" });
    const owner = await signedIn({ businessName: "Kilimo Bora Cooperative", email: "wanjiku@kilimobora.co.ke" });
    // The header's search box filters the Users tab (spec section 2), across every organisation.
    const found = await run(adminUsers, getRequest("/admin/users?q=kilimo", { cookie: admin.cookie }));
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.data)).toContain("Kilimo Bora Cooperative");
    expect(JSON.stringify(found.data)).not.toContain("Jumbe Platform");
    const current = (await currentUser({ request: getRequest("/", { cookie: owner.cookie }), context: undefined }))!;
    await expect(platformUsers.search(current, "kilimo", 5)).rejects.toBeInstanceOf(PlatformScopeRefused);
  });

  it("finds the Billing page and the organisation's invoices by number or description, for owners and admins only", async () => {
    const mine = await signedIn({ businessName: "Mama Mboga Groceries" });
    const theirs = await signedIn({ businessName: "Other Sacco" });
    const ours = await startBankTransfer({ organizationId: mine.organization.id, userId: mine.user.id }, { amount: 2500 });
    await startBankTransfer({ organizationId: theirs.organization.id, userId: theirs.user.id }, { amount: 4000 });
    const [invoice] = await rawQuery<{ number: string }>(`select number from invoices where id = $1`, [ours.invoiceId]);

    const page = await run(searchLoader, getRequest("/search?q=top+up", { cookie: mine.cookie }));
    expect(titles(page.data.sections, "pages")).toEqual(["Billing & Subscription"]);
    const found = await run(searchLoader, getRequest("/search?q=bank+transfer", { cookie: mine.cookie }));
    const hits = found.data.sections.find((s: { id: string }) => s.id === "invoices")?.hits ?? [];
    expect(hits).toEqual([
      { title: invoice!.number, detail: expect.stringContaining("KES 2,500.00 · Pending"), to: `/billing/invoices/${ours.invoiceId}` },
    ]);
    const byNumber = await run(searchLoader, getRequest(`/search?q=${invoice!.number}`, { cookie: mine.cookie }));
    expect(titles(byNumber.data.sections, "invoices")).toEqual([invoice!.number]);

    // An agent of the organisation finds neither the page nor its invoices.
    await rawQuery(`update users set org_role = 'agent' where id = $1`, [mine.user.id]);
    const asAgent = await run(searchLoader, getRequest("/search?q=bank+transfer", { cookie: mine.cookie }));
    expect(titles(asAgent.data.sections, "invoices")).toEqual([]);
    expect(titles((await run(searchLoader, getRequest("/search?q=top+up", { cookie: mine.cookie }))).data.sections, "pages")).toEqual([]);
  });

  // Issue 39: the top bar's search finds pages by their names as the navigation shows them, a page
  // named by the words first, and only pages the member's role may open.
  it("finds pages by name, the page so named first, each only for the roles that may open it", async () => {
    const me = await signedIn();
    const pages = async (q: string) =>
      titles((await run(searchLoader, getRequest(`/search?q=${encodeURIComponent(q)}`, { cookie: me.cookie }))).data.sections, "pages");
    expect((await pages("templates"))[0]).toBe("Templates");
    expect(await pages("create template")).toEqual(["Create Template"]);
    expect((await pages("billing"))[0]).toBe("Billing & Subscription");
    expect(await pages("api key")).toEqual(["Developers"]);
    expect((await pages("inbox"))[0]).toBe("Inbox");
    expect((await pages("automations"))[0]).toBe("Automations");
    expect((await pages("away message"))[0]).toBe("Welcome and away messages");
    expect((await pages("contacts"))[0]).toBe("Contacts");
    expect((await pages("campaigns"))[0]).toBe("Message Center");
    expect(await pages("broadcasts")).toContain("Broadcasts");
    expect((await pages("settings"))[0]).toBe("Account Settings");
    expect((await pages("paybill"))[0]).toBe("Payments");
    expect((await pages("products"))[0]).toBe("Shop");
    expect(await pages("orders")).toContain("Orders");
    // Every page found is one the product has, and each appears once.
    const everything = await pages("account settings");
    expect(new Set(everything).size).toBe(everything.length);

    // A viewer finds the templates but not the form that makes one, nor Billing or the API key.
    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [me.user.id]);
    expect(await pages("templates")).toContain("Templates");
    expect(await pages("create template")).toEqual([]);
    expect(await pages("billing")).toEqual([]);
    expect(await pages("api key")).toEqual([]);
  });

  it("finds pages by their Swahili and French names too, accents or not, shown in the reader's language (issue 74)", async () => {
    const me = await signedIn();
    const pages = async (q: string) =>
      titles((await run(searchLoader, getRequest(`/search?q=${encodeURIComponent(q)}`, { cookie: me.cookie }))).data.sections, "pages");
    expect((await pages("violezo"))[0]).toBe("Templates");
    expect((await pages("Modèles"))[0]).toBe("Templates");
    expect((await pages("modeles"))[0]).toBe("Templates");
    expect((await pages("takwimu"))[0]).toBe("Advanced Analytics");
    expect((await pages("equipe"))[0]).toBe("Team");
    expect((await pages("Mipangilio ya akaunti"))[0]).toBe("Account Settings");
    // English always, whatever the page's language; the hit is named in the page's language.
    expect((await inLocale("sw", () => pages("templates")))[0]).toBe("Violezo");
    expect((await inLocale("sw", () => pages("Facturation")))[0]).toBe("Malipo na usajili");
    expect((await inLocale("fr", () => pages("violezo")))[0]).toBe("Modèles");

    // What the box lists as one types: a small JSON answer, the pages first, named in the page's language.
    type Suggested = { query: string; hits: { title: string; section: string; to: string }[] };
    const suggest = (q: string) =>
      run<Suggested>(searchSuggestLoader, getRequest(`/search/suggest?q=${encodeURIComponent(q)}`, { cookie: me.cookie }));
    const answer = await suggest("violezo");
    expect(answer.headers?.get("content-type")).toContain("application/json");
    expect(answer.data.query).toBe("violezo");
    expect(answer.data.hits[0]).toEqual({ title: "Templates", section: "Pages", to: "/templates" });
    expect((await inLocale("fr", () => suggest("takwimu"))).data.hits[0]?.title).toBe("Statistiques avancées");
    expect((await suggest("a")).data).toEqual({ query: "", hits: [] });

    // Still only the pages the role may open.
    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [me.user.id]);
    expect(await pages("Facturation")).toEqual([]);
    expect((await suggest("Facturation")).data.hits.map((hit) => hit.to)).not.toContain("/billing");
  });

  it("finds the Revenue Share page, which asks a signed-out visitor to sign in", async () => {
    const me = await signedIn();
    const pages = await run(searchLoader, getRequest("/search?q=referral", { cookie: me.cookie }));
    expect(titles(pages.data.sections, "pages")).toEqual(["Revenue Share"]);
    expect((await run(revenueShare, getRequest("/revenue-share", { cookie: me.cookie }))).data).toMatchObject({ view: "apply" });
    expect((await run(revenueShare, getRequest("/revenue-share"))).location).toBe("/login?from=%2Frevenue-share");
  });
});
