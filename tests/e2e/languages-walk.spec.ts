import { test, expect } from "./fixtures";
import type { Page } from "@playwright/test";
import { ADMIN, BASE_URL, DEMO, latestCode, newUser, signIn } from "./helpers";
import { catalogue, englishCheck, type Locale } from "./english-left";

// Issue 43's walk: sign-up, sign-in, the dashboard, a template, a campaign, the inbox, billing with an
// invoice's PDF, and the admin console, in Swahili and in French, with JavaScript on and off (the two
// projects): no English on any of them but names (english-left.ts says how it looks).

const LOCALES = ["sw", "fr"] as const satisfies readonly Exclude<Locale, "en">[];

async function inLanguage(page: Page, locale: Locale) {
  await page.context().addCookies([{ name: "lng", value: locale, url: BASE_URL }]);
}

// The demo's own records, named when they were made, in its members' language (English): data, like a
// contact's name. A quick broadcast is named after its first words by the product, in its author's
// language; an authentication template's fixed lines are WhatsApp's, in the template's language.
// "County" is the demo's custom contact field (its label is the tenant's data), offered by a rule's
// "set a contact field"; the organisation's and the invoice's county have the same English word.
const DEMO_NAMES = new Set([
  "line: Quick broadcast: Nakuru office closed",
  "line: This code expires in 10 minutes.",
  "line: Copy code",
  "line: County",
]);

/** Opens `path` and expects it in `locale` with no English left but the demo's own names. */
async function expectNoEnglish(page: Page, locale: Exclude<Locale, "en">, path: string | null) {
  if (path) await page.goto(path);
  await expect(page.locator("html")).toHaveAttribute("lang", locale);
  const english = (await englishCheck(locale).find(page)).filter((found) => !DEMO_NAMES.has(found));
  expect.soft(english, `English on ${page.url()} in ${locale}`).toEqual([]);
}

const hrefMatching = async (page: Page, pattern: RegExp) => {
  const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((link) => link.getAttribute("href") ?? ""));
  const found = hrefs.find((href) => pattern.test(href));
  expect(found, `a link matching ${pattern} on ${page.url()}`).toBeTruthy();
  return found!;
};

/** The view dialog's link of the template named `name` on the current templates page. */
const templateView = async (page: Page, name: string) => {
  const href = await page.getByRole("link", { name, exact: true }).first().getAttribute("href");
  expect(href, `a link to the template ${name} on ${page.url()}`).toMatch(/[?&]dialog=view&template=/);
  return href!;
};

for (const locale of LOCALES) {
  test(`a new person signs up and signs in in ${locale}, and sees no English`, async ({ page, request }) => {
    const words = catalogue(locale);
    const user = newUser();
    await inLanguage(page, locale);
    await expectNoEnglish(page, locale, "/signup");
    await page.locator('input[name="firstName"]').fill(user.firstName);
    await page.locator('input[name="lastName"]').fill(user.lastName);
    await page.locator('input[name="email"]').fill(user.email);
    await page.locator('input[name="password"]').fill(user.password);
    await page.locator('input[name="confirmPassword"]').fill(user.password);
    await page.locator('input[name="agreedToTerms"]').check();
    await page.getByRole("button", { name: words.auth_signup_submit }).click();
    await page.waitForURL("**/verify-otp");
    await expectNoEnglish(page, locale, null);
    // The code's e-mail is in the language the account was made in.
    const code = await latestCode(request, user.email);
    const mails = (await (await request.get("/sandbox/mail.json")).json()) as { to: string; subject: string }[];
    expect(mails.find((mail) => mail.to === user.email)!.subject).toBe(words.mail_verification_subject!.replace("{code}", code));
    const boxes = page.locator('input[name="otp"]');
    await expect(boxes).toHaveCount(6);
    for (let i = 0; i < code.length; i++) await boxes.nth(i).fill(code[i]!);
    await page.getByRole("button", { name: words.auth_verify_submit }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/verify-otp"));
    await expectNoEnglish(page, locale, null);

    // Signed out, the sign-in page; then in again through its form.
    await page.context().clearCookies();
    await inLanguage(page, locale);
    await expectNoEnglish(page, locale, "/login");
    await page.locator('input[name="email"]').fill(user.email);
    await page.locator('input[name="password"]').fill(user.password);
    await page.getByRole("button", { name: words.auth_login_submit, exact: true }).click();
    await page.waitForURL((url) => url.pathname !== "/login");
    await expectNoEnglish(page, locale, "/dashboard");
  });

  test(`a member's pages, a template, a campaign, a conversation and an invoice's PDF are in ${locale}`, async ({ page }) => {
    test.setTimeout(90_000);
    await inLanguage(page, locale);
    await signIn(page, DEMO.email, DEMO.password, { to: "/dashboard" });
    await expectNoEnglish(page, locale, null);
    await expectNoEnglish(page, locale, "/templates");
    // The demo's own template by its name: the newest link first would be whichever template was made
    // last (the seed makes several at once, other tests add more), some of them English by design.
    await expectNoEnglish(page, locale, "/templates?q=loan_repayment_reminder");
    await expectNoEnglish(page, locale, await templateView(page, "loan_repayment_reminder"));
    await expectNoEnglish(page, locale, "/templates/new");
    await expectNoEnglish(page, locale, "/messaging");
    await expectNoEnglish(page, locale, await hrefMatching(page, /^\/messaging\/campaigns\/[0-9a-f-]{36}$/));
    await expectNoEnglish(page, locale, "/messaging/campaigns/new");
    await expectNoEnglish(page, locale, "/messaging/contacts");
    await expectNoEnglish(page, locale, "/chat");
    await expectNoEnglish(page, locale, await hrefMatching(page, /^\/chat\/[0-9a-f-]{36}$/));
    await expectNoEnglish(page, locale, "/automations");
    await expectNoEnglish(page, locale, "/automations/new");
    await expectNoEnglish(page, locale, "/automations/hours");
    await expectNoEnglish(page, locale, "/automations/flows");
    await expectNoEnglish(page, locale, "/billing");
    const invoice = await hrefMatching(page, /^\/billing\/invoices\/[0-9a-f-]{36}$/);
    await expectNoEnglish(page, locale, invoice);
    await expectNoEnglish(page, locale, "/analytics");
    await expectNoEnglish(page, locale, "/settings/team");
    await expectNoEnglish(page, locale, "/developers");
    // The integrations' catalogue, a category, and its connect dialogs (an OAuth one and REST hooks).
    await expectNoEnglish(page, locale, "/integrations?category=CRM&dialog=connect-hubspot");
    await expectNoEnglish(page, locale, "/integrations?dialog=connect-rest-hooks");
    // The demo's connectors: HubSpot's portal, Shopify's mappings and events, the Sheets export.
    await expectNoEnglish(page, locale, "/integrations/hubspot");
    await expectNoEnglish(page, locale, "/integrations/shopify");
    await expectNoEnglish(page, locale, "/integrations/google-sheets");

    const pdf = await page.request.get(`${invoice}/pdf`);
    expect(pdf.status()).toBe(200);
    const { lines, english } = await englishCheck(locale).findInPdf(await pdf.body());
    const words = catalogue(locale);
    expect(lines.some((line) => [words.documents_title_tax_invoice, words.documents_title_receipt].includes(line))).toBe(true);
    expect(english, `English in ${invoice}/pdf`).toEqual([]);
  });

  test(`the admin console is in ${locale}`, async ({ page }) => {
    test.setTimeout(90_000);
    await inLanguage(page, locale);
    await signIn(page, ADMIN.email, ADMIN.password, { to: "/admin" });
    for (const path of ["/admin", "/admin/users", "/admin/billing", "/admin/whatsapp", "/admin/system", "/admin/templates", "/admin/audit"])
      await expectNoEnglish(page, locale, path);
    // A tenant's wallet: its ledger's sentences, written by the billing code in English, said in the language.
    await page.goto("/admin/billing");
    await expectNoEnglish(page, locale, await hrefMatching(page, /^\/admin\/billing\/invoices\/[0-9a-f-]{36}$/));
    await expectNoEnglish(page, locale, await hrefMatching(page, /^\/admin\/billing\/wallets\/[0-9a-f-]{36}$/));
  });
}
