import { randomBytes, randomInt } from "node:crypto";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import routes from "../../app/routes";
import { test, expect } from "./fixtures";
import { ADMIN, BASE_URL, DEMO, field, randomIp, signIn, signUpAndVerifyViaApi } from "./helpers";
import { connectSmsApp } from "./sms-helpers";

// Issue 39: every page of the product at a small phone's width (360 × 740), signed out, as the demo
// business, as a business of its own and as the platform's administrator. Every route of app/routes.ts
// is either walked here or skipped below with its reason: a new page cannot escape the walk.
// Issue 74: every walk in each of the product's languages, English, Swahili and French (their words
// are longer or shorter in other places), and in the pseudo-locale without JavaScript (every word
// two-fifths longer, as a language added later may be).
//
// On each page (in the language walked: the page's <html lang> says so):
// - the document does not scroll sideways: it is no wider than the 360 px screen (measured against
//   the screen's 360 px, not window.innerWidth: a phone zooms out to show a page wider than its
//   screen, and innerWidth grows with the page);
// - no visible element, nor any text, sticks out past the screen's right edge (content inside a box
//   that scrolls or clips sideways itself, and visually hidden text, aside: a wide table scrolls inside
//   its own box);
// - every visible form control is wide enough to use: a text field, select or text area at least
//   120 px wide (check boxes, radio buttons, hidden and file inputs aside; a field for at most six
//   characters, as a code's digit boxes, at least 40 px), a button at least 24 px.
// A page's failures are collected and reported together, so one run shows everything.

const WIDTH = 360;
const PHONE = { viewport: { width: WIDTH, height: 740 }, isMobile: true, hasTouch: true } as const;
const MIN_FIELD = 120;
const MIN_BUTTON = 24;
const MIN_SHORT_FIELD = 40;

/** Routes that are not pages (files, streams, hooks, redirects, the API): never drawn at any width. */
const SKIPPED: Record<string, string> = {
  "robots.txt": "a text file for search engines",
  "sitemap.xml": "an XML file for search engines",
  "manifest.webmanifest": "the web app manifest (JSON)",
  "dev/ui": "the kit's showcase, for development only (404 in a production build)",
  logout: "signs out and redirects",
  "preferences/sidebar": "a form target that remembers the menu's state and redirects back",
  language: "the language switcher's form target: keeps the choice and redirects back (a GET goes home)",
  "notifications/:id": "marks a notification read and redirects to what it is about",
  settings: "redirects to the first settings section",
  "whatsapp-setup": "a redirect into the WhatsApp setup",
  "templates/:id/sample": "a template's media sample (an image file)",
  "messaging/contacts/import/:id/rejected.csv": "a CSV download",
  "messaging/contacts/export.csv": "a CSV download",
  "messaging/contacts/:id/data.json": "a JSON download",
  "integrations/shopify/requests/:id/data.json": "a JSON download (a Shopify customer's data request)",
  "integrations/google-sheets/picker-token": "the Google Picker's token: JSON, POST only",
  "search/suggest": "the search boxes' suggestions as one types: JSON (walked in search-words.spec.ts)",
  "analytics/daily.csv": "a CSV download",
  "analytics/payments.csv": "a CSV download",
  "analytics/ads.csv": "a CSV download",
  "revenue-share/transactions.csv": "a CSV download",
  "messaging/campaigns/:id/results.csv": "a CSV download",
  "messaging/campaigns/:id/events": "a live stream (server-sent events)",
  "messaging/events": "a live stream (server-sent events): the Campaigns tab's figures",
  "chat/events": "a live stream (server-sent events)",
  "chat/:id/conversion": 'the inbox\'s "Mark as converted" form target: redirects back to the conversation',
  "chat/media/:id": "a message's media file",
  "chat/ads/:id/picture": "an ad's picture file",
  "catalog-images/:file": "a product's uploaded picture (an image file, public for Meta's catalog)",
  "shop/orders.csv": "a CSV download",
  "billing/invoices/:id/pdf": "a PDF download",
  "revenue-share/settlements/:id/statement": "a PDF download",
  "billing/card-return": "where the card checkout returns: verifies, then redirects",
  "webhooks/mpesa/stk/:paymentId/:secret": "a payment provider's callback",
  "webhooks/mpesa/b2c/:payoutId/:secret/:kind": "a payment provider's callback",
  "webhooks/paybill/:secret/:step": "a payment provider's callback",
  "webhooks/paystack": "a payment provider's callback",
  "webhooks/pay/:token/stk": "an organisation's own shortcode's M-Pesa callback",
  "webhooks/pay/:token/c2b/:step": "an organisation's own shortcode's M-Pesa callback",
  "webhooks/sms/:token/:kind": "an organisation's own Africa's Talking callback",
  "notifications/events": "a live stream (server-sent events)",
  "admin/export.csv": "a CSV download",
  "admin/users/export.csv": "a CSV download",
  "admin/billing/export.csv": "a CSV download",
  "admin/billing/invoices/:id/pdf": "a PDF download",
  "admin/whatsapp/export.csv": "a CSV download",
  "admin/system/export.csv": "a CSV download",
  "admin/templates/export.csv": "a CSV download",
  "admin/templates/:id/header-sample": "a template's media sample (an image file)",
  "admin/audit/export.csv": "a CSV download",
  metrics: "the metrics scrape (text)",
  "*": "any other address redirects home",
};

/** Whole parts of the route table that are not pages. */
const SKIPPED_PREFIXES: Record<string, string> = { "api/": "the JSON API (cookie-authenticated), and its public v1" };
const skipped = (path: string) => path in SKIPPED || Object.keys(SKIPPED_PREFIXES).some((prefix) => path.startsWith(prefix));

/** Every path of the route table ("" is the home page), layouts flattened, the API's prefix kept. */
function routePaths(entries: RouteConfigEntry[], parent = ""): string[] {
  return entries.flatMap((entry) => {
    const path = entry.index ? parent : [parent, entry.path ?? ""].filter(Boolean).join("/");
    if (entry.children?.length) return routePaths(entry.children, path);
    return [path];
  });
}

const ALL_PATHS = routePaths(routes);

/**
 * A page to walk: its route's pattern, and its address. A route with parameters takes its address
 * from a link on a page walked before it (`find`: the first link seen matching a pattern, see
 * `linkIn`), or from records made for the walk (`ids`).
 */
type Ids = Record<string, string>;
type Found = { find: (pattern: RegExp) => string; ids: Ids };
type Walk = [pattern: string, url: string | ((found: Found) => string)];

/** The languages walked: the `lng` cookie chooses one (decision 071); the pseudo-locale's cookie writes English words longer. */
interface Language {
  name: string;
  /** What the page's <html lang> says. */
  lang: string;
  cookies: { name: string; value: string; url: string }[];
  /** Only without JavaScript: the server writes it over its HTML, React in the browser would draw its own words again. */
  noScriptOnly?: boolean;
}
const LANGUAGES: Language[] = [
  ...(["en", "sw", "fr"] as const).map((lang) => ({
    name: { en: "English", sw: "Swahili", fr: "French" }[lang],
    lang,
    cookies: [{ name: "lng", value: lang, url: BASE_URL }],
  })),
  {
    name: "the pseudo-locale",
    lang: "en",
    cookies: [
      { name: "lng", value: "en", url: BASE_URL },
      { name: "jumbe_pseudo", value: "1", url: BASE_URL },
    ],
    noScriptOnly: true,
  },
];

/** Problems on the page drawn now (see the rules at the top), its language, and the addresses it links to. */
async function problemsOnPage(page: Page) {
  return page.evaluate(
    ({ width, minField, minButton, minShortField }) => {
      // The screen's width: not window.innerWidth, which grows when the phone zooms out to show a wider page.
      const vw = Math.min(width, document.documentElement.clientWidth);
      const found: string[] = [];
      const describe = (el: Element) => {
        const label =
          el.getAttribute("aria-label") ?? el.getAttribute("name") ?? (el.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 40);
        const classes = (el.getAttribute("class") ?? "").split(/\s+/).slice(0, 4).join(".");
        return `<${el.tagName.toLowerCase()}${classes ? "." + classes : ""}> "${label}"`;
      };
      const visuallyHidden = (s: CSSStyleDeclaration, el: Element) =>
        s.clip === "rect(0px, 0px, 0px, 0px)" ||
        s.clipPath === "inset(50%)" ||
        (s.position === "absolute" && (el as HTMLElement).offsetWidth <= 1 && (el as HTMLElement).offsetHeight <= 1);
      const visuallyHiddenWithin = (el: Element) => {
        for (let e: Element | null = el; e && e !== document.body; e = e.parentElement)
          if (visuallyHidden(getComputedStyle(e), e)) return true;
        return false;
      };
      // Inside a box that scrolls or clips sideways itself (not the page's own root), or visually hidden;
      // `clipsOwn`: the element's own clipping counts too (a text in a box that truncates it).
      const contained = (el: Element, clipsOwn = false) => {
        for (let e: Element | null = el; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
          const s = getComputedStyle(e);
          if (visuallyHidden(s, e)) return true;
          if ((clipsOwn || e !== el) && ["auto", "scroll", "hidden", "clip"].includes(s.overflowX)) return true;
        }
        return false;
      };
      const visible = (el: Element) => {
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 &&
          r.height > 0 &&
          el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true, contentVisibilityAuto: true } as CheckVisibilityOptions)
        );
      };

      const scrollWidth = document.scrollingElement!.scrollWidth;
      if (scrollWidth > vw) found.push(`the page scrolls sideways: ${scrollWidth} px wide on a ${vw} px screen`);

      const sticking = new Set<Element>();
      for (const el of Array.from(document.body.querySelectorAll("*"))) {
        const right = el.getBoundingClientRect().right;
        if (right <= vw + 0.5 || !visible(el) || contained(el)) continue;
        // Report the outermost element only: its children go with it.
        let reportedAncestor = false;
        for (let a = el.parentElement; a; a = a.parentElement) if (sticking.has(a)) reportedAncestor = true;
        sticking.add(el);
        if (!reportedAncestor) found.push(`${describe(el)} ends at ${Math.round(right)} px, past the screen's ${vw} px`);
      }

      // Text that runs out of its own box past the screen's edge (a long name with no place to break).
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const parent = text.parentElement;
        if (!parent || !text.textContent?.trim() || sticking.has(parent)) continue;
        const range = document.createRange();
        range.selectNodeContents(text);
        const right = range.getBoundingClientRect().right;
        if (right <= vw + 0.5 || !visible(parent) || contained(parent, true)) continue;
        found.push(
          `the text "${text.textContent.trim().slice(0, 40)}" of ${describe(parent)} ends at ${Math.round(right)} px, past the screen's ${vw} px`,
        );
      }

      for (const el of Array.from(document.body.querySelectorAll("input, select, textarea, button"))) {
        // A control inside a sideways-scrolling box still has to be usable: only visually hidden ones are left out.
        if (!visible(el) || visuallyHiddenWithin(el)) continue;
        const type = (el.getAttribute("type") ?? "").toLowerCase();
        const isButton = el.tagName === "BUTTON" || ["submit", "button", "reset", "image"].includes(type);
        if (el.tagName === "INPUT" && ["checkbox", "radio", "hidden", "file"].includes(type)) continue;
        const width = el.getBoundingClientRect().width;
        const maxLength = Number(el.getAttribute("maxlength") ?? "Infinity");
        const min = isButton ? minButton : maxLength <= 6 ? minShortField : minField;
        if (width < min) found.push(`${describe(el)} is ${Math.round(width)} px wide (at least ${min} px to be usable)`);
      }
      const links = Array.from(document.querySelectorAll("a[href]"), (a) => a.getAttribute("href") ?? "");
      return { found, lang: document.documentElement.lang, links };
    },
    { width: WIDTH, minField: MIN_FIELD, minButton: MIN_BUTTON, minShortField: MIN_SHORT_FIELD },
  );
}

/**
 * Opens each address in turn, in `language` (its cookies set in the page's context), and checks it;
 * every page's problems are reported together at the end.
 */
async function walk(page: Page, pages: Walk[], language: Language, ids: Ids = {}) {
  await page.context().clearCookies({ name: "jumbe_pseudo" });
  await page.context().addCookies(language.cookies);
  const failures: string[] = [];
  const seen: string[] = [];
  const find = (pattern: RegExp) => {
    const link = linkIn(seen, pattern);
    if (!link) throw new Error(`no link matching ${pattern} on the pages walked before`);
    return link;
  };
  for (const [, address] of pages) {
    const url = typeof address === "string" ? address : address({ find, ids });
    const answer = await page.goto(url);
    expect(answer, url).not.toBeNull();
    const { found, lang, links } = await problemsOnPage(page);
    expect(lang, `${url} is written in ${language.name}`).toBe(language.lang);
    seen.push(...links);
    for (const problem of found) failures.push(`${url}: ${problem}`);
  }
  expect(failures, `pages too wide for a 360 px phone in ${language.name}`).toEqual([]);
}

/**
 * The first of `hrefs` whose address matches `pattern`: the address without its query, or what the
 * pattern's first group caught when it has one.
 */
function linkIn(hrefs: string[], pattern: RegExp) {
  for (const href of hrefs) {
    const match = pattern.exec(pattern.source.includes("(") ? href : href.split(/[?#]/)[0]!);
    if (match) return match[1] ?? match[0];
  }
  return undefined;
}

/** The first link on the page at `url` matching `pattern` (see `linkIn`). */
async function linkOn(page: Page, url: string, pattern: RegExp) {
  await page.goto(url);
  const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
  const link = linkIn(hrefs, pattern);
  if (!link) throw new Error(`no link matching ${pattern} on ${url}`);
  return link;
}

async function phoneContext(browser: Browser, javaScriptEnabled: boolean): Promise<BrowserContext> {
  return browser.newContext({ ...PHONE, baseURL: BASE_URL, javaScriptEnabled, extraHTTPHeaders: { "X-Forwarded-For": randomIp() } });
}

const PUBLIC: Walk[] = [
  ["", "/"],
  ["privacy-policy", "/privacy-policy"],
  ["privacy", "/privacy"],
  ["terms-of-service", "/terms-of-service"],
  ["terms", "/terms"],
  ["login", "/login"],
  ["signin", "/signin"],
  // Without a sign-in under way these send the visitor back to the sign-in form: what they show is checked.
  ["login/two-factor", "/login/two-factor"],
  ["login/email-code", "/login/email-code"],
  ["signup", "/signup"],
  ["verify-otp", "/verify-otp"],
  ["forgot-password", "/forgot-password"],
  ["reset-password", "/reset-password"],
  ["unauthorized", "/unauthorized"],
  // An invitation's link that is not (or no longer) valid: the page that says so.
  ["invitations/:token", "/invitations/not-a-real-invitation-token"],
];

/** A business of its own (so the demo's data stays as seeded): a payment's page, a CSV import's page and a keyword rule's. */
const OWN_BUSINESS: Walk[] = [
  ["billing/payments/:id", ({ ids }) => ids.payment!],
  ["messaging/contacts/import/:id", ({ ids }) => ids.importRun!],
  ["automations/:id", ({ ids }) => ids.rule!],
  // Deleting it asks first, on the list's own address.
  ["automations", ({ ids }) => `/automations?confirm=delete&rule=${ids.rule!.split("/").pop()}`],
  // A chatbot flow's builder, with a step kind's form open (a page state of its own), and its deletion's question.
  ["automations/flows/:id", ({ ids }) => ids.flow!],
  ["automations/flows/:id", ({ ids }) => `${ids.flow!}?add=question`],
  // The products step's form (decision 143), with no product in the catalog yet: what it says then.
  ["automations/flows/:id", ({ ids }) => `${ids.flow!}?add=products`],
  ["automations/flows", ({ ids }) => `/automations/flows?confirm=delete&flow=${ids.flow!.split("/").pop()}`],
  // With SMS connected (the demo has none): the connection, its callback addresses and the automations'
  // SMS fallback forms (decision 159); and Settings → Payments' way to the payment request's fallback.
  ["settings/sms", "/settings/sms"],
  ["settings/payments", "/settings/payments"],
];

/** The demo's records the walk opens, found through links on the pages walked before them. */
const demo = {
  contact: ({ find }: Found) => find(/^\/messaging\/contacts\/[0-9a-f-]{36}$/),
  campaign: ({ find }: Found) => find(/^\/messaging\/campaigns\/[0-9a-f-]{36}$/),
  templateId: ({ find }: Found) => find(/[?&]template=([0-9a-f-]{36})/),
  conversation: ({ find }: Found) => find(/^\/chat\/[0-9a-f-]{36}$/),
  invoice: ({ find }: Found) => find(/^\/billing\/invoices\/[0-9a-f-]{36}$/),
  product: ({ find }: Found) => find(/^\/shop\/products\/[0-9a-f-]{36}$/),
  order: ({ find }: Found) => find(/^\/shop\/orders\/[0-9a-f-]{36}$/),
};

const BUSINESS: Walk[] = [
  ["dashboard", "/dashboard"],
  ["get-started", "/get-started"],
  ["profile", "/profile"],
  ["change-password", "/change-password"],
  ["whatsapp", "/whatsapp"],
  // Where Meta's signup dialog returns: without its answer, the page that says what went wrong.
  ["embedded-callback", "/embedded-callback"],
  ["activity", "/activity"],
  ["developers", "/developers"],
  ["developers/errors", "/developers/errors"],
  ["developers/api/:operation", "/developers/api/sendMessage"],
  ["search", "/search?q=a"],
  ["templates", "/templates"],
  ["templates/new", "/templates/new"],
  ["templates/:id/edit", (found) => `/templates/${demo.templateId(found)}/edit`],
  ["preview", "/preview"],
  ["messaging", "/messaging"],
  ["messaging/broadcasts", "/messaging/broadcasts"],
  ["messaging/contacts", "/messaging/contacts"],
  ["messaging/contacts/segments", "/messaging/contacts/segments"],
  ["messaging/contacts/fields", "/messaging/contacts/fields"],
  ["messaging/contacts/:id", demo.contact],
  ["messaging/contacts/import", "/messaging/contacts/import"],
  ["messaging/campaigns/new", "/messaging/campaigns/new"],
  ["messaging/broadcasts/new", "/messaging/broadcasts/new"],
  ["messaging/campaigns/:id", demo.campaign],
  ["settings/organisation", "/settings/organisation"],
  ["settings/team", "/settings/team"],
  ["settings/payments", "/settings/payments"],
  ["settings/sms", "/settings/sms"],
  ["settings/ads", "/settings/ads"],
  ["settings/retention", "/settings/retention"],
  ["settings/notifications", "/settings/notifications"],
  ["settings/security", "/settings/security"],
  ["settings/account", "/settings/account"],
  ["notifications", "/notifications"],
  ["chat", "/chat"],
  ["chat/quick-replies", "/chat/quick-replies"],
  ["chat/new", "/chat/new"],
  ["chat/new", "/chat/new?q=a"],
  ["chat/:id", demo.conversation],
  ["chat/:id/sms", `${demo.conversation}/sms`],
  // The shop (decision 138): the demo's products and its past order.
  ["shop/products", "/shop/products"],
  ["shop/products/:id", demo.product],
  ["shop/products/new", "/shop/products/new"],
  ["shop/products/import", "/shop/products/import"],
  ["shop/orders", "/shop/orders"],
  ["shop/orders/:id", demo.order],
  ["automations", "/automations"],
  ["automations/new", "/automations/new"],
  ["automations/hours", "/automations/hours"],
  ["automations/flows", "/automations/flows"],
  ["automations/flows/new", "/automations/flows/new"],
  // The AI assistant's settings and the knowledge base (the demo's articles and assistant).
  ["automations/assistant", "/automations/assistant"],
  ["automations/knowledge", "/automations/knowledge"],
  ["billing", "/billing"],
  ["billing/invoices/:id", demo.invoice],
  ["analytics", "/analytics"],
  ["analytics/ads", "/analytics/ads"],
  ["integrations", "/integrations"],
  // The catalogue's connect dialog (an address of its own), a category, and the disconnect question's page.
  ["integrations", "/integrations?category=CRM&dialog=connect-hubspot"],
  ["integrations", "/integrations?dialog=connect-rest-hooks"],
  // A provider's return without a state from here: the page that says the request is not valid.
  ["integrations/:provider/callback", "/integrations/hubspot/callback"],
  // The connectors' settings, the demo's connections filled in (its HubSpot portal, Shopify shop and export).
  ["integrations/hubspot", "/integrations/hubspot"],
  ["integrations/shopify", "/integrations/shopify"],
  ["integrations/google-sheets", "/integrations/google-sheets"],
  ["revenue-share", "/revenue-share"],
  // Dialogs and confirmations that are addresses of their own (they open without JavaScript too).
  ["billing", "/billing?dialog=topup"],
  ["templates", (found) => `/templates?dialog=view&template=${demo.templateId(found)}`],
  ["billing/invoices/:id", (found) => `${demo.invoice(found)}?dialog=dispute`],
  ["messaging/contacts/:id", (found) => `${demo.contact(found)}?confirm=erase`],
];

const ADMIN_INVOICE = /^\/admin\/billing\/invoices\/[0-9a-f-]{36}$/;

const ADMIN_PAGES: Walk[] = [
  ["admin", "/admin"],
  ["admin/users", "/admin/users"],
  ["admin/users/:id", ({ find }) => find(/^\/admin\/users\/[0-9a-f-]{36}$/)],
  ["admin/billing", "/admin/billing"],
  ["admin/billing/invoices/:id", ({ find }) => find(ADMIN_INVOICE)],
  ["admin/billing/disputes/:id", ({ find }) => find(/^\/admin\/billing\/disputes\/[0-9a-f-]{36}$/)],
  ["admin/billing/wallets/:id", ({ find }) => find(/^\/admin\/billing\/wallets\/[0-9a-f-]{36}$/)],
  ["admin/whatsapp", "/admin/whatsapp"],
  ["admin/whatsapp/:id", ({ find }) => find(/^\/admin\/whatsapp\/[0-9a-f-]{36}$/)],
  ["admin/system", "/admin/system"],
  ["admin/templates", "/admin/templates"],
  ["admin/templates/:id", ({ find }) => find(/^\/admin\/templates\/[0-9a-f-]{36}$/)],
  ["admin/audit", "/admin/audit"],
  ["admin/search", "/admin/search?q=demo"],
  ["admin/notifications", "/admin/notifications"],
  ["admin/profile", "/admin/profile"],
  ["admin/staff", "/admin/staff"],
  ["admin/*", "/admin/no-such-page"],
  // A dialog that is an address of its own.
  ["admin/billing/invoices/:id", ({ find }) => `${find(ADMIN_INVOICE)}?dialog=reconcile`],
  // The partner programme's four tabs (the demo's partners), and Enrol Partner's dialog.
  ["revenue-share", "/revenue-share"],
  ["revenue-share/partners", "/revenue-share/partners"],
  ["revenue-share/partners", "/revenue-share/partners?dialog=enrol"],
  ["revenue-share/transactions", "/revenue-share/transactions"],
  ["revenue-share/settlements", "/revenue-share/settlements"],
];

test.use(PHONE);

test("every route of app/routes.ts is walked below or skipped with a reason", () => {
  const walked = [...PUBLIC, ...OWN_BUSINESS, ...BUSINESS, ...ADMIN_PAGES].map(([pattern]) => pattern);
  expect(ALL_PATHS.length, "the route table was read").toBeGreaterThan(50);
  expect(
    Object.keys(SKIPPED).filter((path) => !ALL_PATHS.includes(path)),
    "skipped routes that app/routes.ts no longer has",
  ).toEqual([]);
  expect(
    walked.filter((path) => !ALL_PATHS.includes(path)),
    "walked routes that app/routes.ts no longer has",
  ).toEqual([]);
  expect(
    ALL_PATHS.filter((path) => !walked.includes(path) && !skipped(path)),
    "routes neither walked nor skipped",
  ).toEqual([]);
  expect(walked.filter(skipped), "routes both walked and skipped").toEqual([]);
});

// One signed-in context per language and role: each test signs in once and walks its pages in turn.
for (const language of LANGUAGES) {
  test.describe(`in ${language.name}`, () => {
    test.skip(
      ({ javaScriptEnabled }) => javaScriptEnabled && !!language.noScriptOnly,
      "the pseudo-locale serves pages drawn without JavaScript",
    );

    test(`public pages, signed out, fit 360 px in ${language.name}`, async ({ page }) => {
      await walk(page, PUBLIC, language);
    });

    test(`the demo business's pages fit 360 px in ${language.name}`, async ({ page }) => {
      test.setTimeout(180_000);
      await page.context().addCookies(language.cookies);
      await signIn(page, DEMO.email, DEMO.password);
      await walk(page, BUSINESS, language);
      if (language.lang !== "sw" || language.noScriptOnly) return;
      // Issue 74: the Get Started tour's next button, "Endelea", was cut off at the screen's edge.
      await page.goto("/get-started");
      await expect(page.getByRole("link", { name: "Endelea" })).toBeInViewport({ ratio: 1 });
    });

    test(`the administrator's pages fit 360 px in ${language.name}`, async ({ page }) => {
      test.setTimeout(180_000);
      await page.context().addCookies(language.cookies);
      await signIn(page, ADMIN.email, ADMIN.password);
      await walk(page, ADMIN_PAGES, language);
    });
  });
}

// A business of its own (so the demo's data stays as seeded): a payment's page, a CSV import's page, a
// keyword rule's and a flow's, made once through their forms, and SMS connected, then walked in every language.
test("a business's own records' pages fit 360 px in every language", async ({ browser, request, javaScriptEnabled }) => {
  test.setTimeout(180_000);
  const own = await phoneContext(browser, javaScriptEnabled);
  try {
    const owner = await signUpAndVerifyViaApi(request);
    const ownPage = await own.newPage();
    await signIn(ownPage, owner.email, owner.password, { to: "/billing?dialog=topup" });
    const dialog = ownPage.getByRole("dialog", { name: "Top up your wallet" });
    await dialog.getByRole("radio", { name: /^Bank transfer/ }).check();
    await dialog.getByRole("button", { name: "Continue to payment" }).click();
    await expect(ownPage).toHaveURL(/\/billing\/payments\/[0-9a-f-]{36}$/);
    const payment = new URL(ownPage.url()).pathname;
    await ownPage.goto("/messaging/contacts/import");
    await ownPage.getByLabel("CSV file").setInputFiles({
      name: "wateja.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("Jina,Simu\r\nAmina Njeri,0712 345 678\r\n", "utf8"),
    });
    await ownPage.getByRole("button", { name: "Upload" }).click();
    await expect(ownPage).toHaveURL(/\/messaging\/contacts\/import\/[0-9a-f-]{36}$/);
    const importRun = new URL(ownPage.url()).pathname;
    // A keyword rule, made through its form (the demo has none).
    await ownPage.goto("/automations/new");
    await field(ownPage, "Name").fill("Bei zetu");
    await field(ownPage, "Keywords").fill("bei\nprice");
    await field(ownPage, "Reply").fill("Bei zetu: Starter KES 2,000 kwa mwezi.");
    await ownPage.getByRole("button", { name: "Create rule" }).click();
    await expect(ownPage).toHaveURL(/\/automations$/);
    const rule = await linkOn(ownPage, "/automations", /^\/automations\/[0-9a-f-]{36}$/);
    // A chatbot flow, named through its form: its builder is where it leads.
    await ownPage.goto("/automations/flows/new");
    await field(ownPage, "Name").fill("Order status");
    await ownPage.getByRole("button", { name: "Create the flow" }).click();
    await expect(ownPage).toHaveURL(/\/automations\/flows\/[0-9a-f-]{36}$/);
    const flow = new URL(ownPage.url()).pathname;
    // SMS, connected to an Africa's Talking sandbox application of its own.
    const suffix = randomBytes(3).toString("hex");
    await connectSmsApp(
      ownPage,
      request,
      {
        username: `duka-${suffix}`,
        apiKey: `atsk_duka_${suffix}_sandbox`,
        senderIds: ["DUKA"],
        shortcodes: [String(randomInt(20_000, 99_999))],
      },
      { create: true },
    );
    for (const language of LANGUAGES.filter((l) => !(javaScriptEnabled && l.noScriptOnly))) {
      // The language its owner signed up in is kept on the account and wins over the cookie: chosen
      // as a person does, with the language switcher's form, which keeps it on the account too.
      const chosen = await ownPage.request.post("/language", {
        form: { locale: language.lang, redirectTo: "/dashboard" },
        headers: { Origin: BASE_URL },
        maxRedirects: 0,
      });
      expect(chosen.status(), await chosen.text()).toBe(302);
      await walk(ownPage, OWN_BUSINESS, language, { payment, importRun, rule, flow });
    }
  } finally {
    await own.close();
  }
});

test("the pseudo-locale writes every word longer", async ({ page, javaScriptEnabled }) => {
  test.skip(javaScriptEnabled, "the server writes the pseudo-locale over its HTML: React in the browser would draw its own words again");
  await page.context().addCookies(LANGUAGES.find((l) => l.noScriptOnly)!.cookies);
  await page.goto("/login");
  await expect(page.locator("h1")).toContainText(/[áëíöüÅÉÍÖÜ]/);
});

test("the console's header keeps its search and its export on a phone", async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  // A row of its own for the search.
  for (const [url, search] of [
    ["/admin", "Search the platform"],
    ["/admin/users", "Search users"],
  ] as const) {
    await page.goto(url);
    const header = page.getByRole("banner");
    for (const control of [header.getByRole("searchbox", { name: search }), header.getByRole("link", { name: "Export Data" })]) {
      await expect(control, url).toBeInViewport({ ratio: 1 });
    }
  }
});
