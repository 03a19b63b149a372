import type { Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";

// Product spec section 1 (the public landing page) and section 9 (carousel 3000 ms and 7 logos,
// back-to-top past 500 px, navbar compact past 10 px). The page is server-rendered without React;
// its behaviours come from app/assets/landing.js, and everything essential works without it.

// playwright.config.ts sets APP_URL to the test server itself.
const appUrl = () => test.info().project.use.baseURL!;
const SALES_EMAIL = "sales@jumbe.co.ke";
const WHATSAPP_DIGITS = "254711082000";

const CLAIMS = [
  "99.9% uptime",
  "multilingual support (Swahili, French, English)",
  "go-live in 4 to 6 weeks",
  "end-to-end encryption",
  "SOC 2 compliance",
  "30% fewer office visits",
  "over 150 agencies",
  "under 6 weeks",
  "65% faster response",
];

const SECTION_ANCHORS = ["solutions", "features", "case-studies", "pricing", "about", "faq"];

const scriptsOnly = () => test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "needs the landing script");

const carousel = (page: Page) => page.getByRole("region", { name: "Client logos" });
const faqItems = (page: Page) => page.locator("#faq details");
const backToTop = (page: Page) => page.getByRole("link", { name: "Back to top" });
const demoChat = (page: Page, name: string) =>
  page.locator("[data-demo-chat]").filter({ has: page.getByRole("log", { name: `Conversation with ${name}` }) });
const sentMessages = (chat: Locator) => chat.locator("[data-demo-chat-log] > [data-sent]");

test.describe("the page, with or without scripts", () => {
  test("every section of the landing page, in order, with its anchor", async ({ page }) => {
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
    await expect(page.getByRole("banner")).toBeVisible();
    await expect(page.getByRole("main")).toBeVisible();
    await expect(page.getByRole("contentinfo")).toBeVisible();

    // Anchors exist and come in the spec's order.
    const tops: number[] = [];
    for (const id of SECTION_ANCHORS) {
      const section = page.locator(`#${id}`);
      await expect(section, `#${id}`).toHaveCount(1);
      tops.push(await section.evaluate((el) => el.getBoundingClientRect().top + window.scrollY));
    }
    expect([...tops].sort((a, b) => a - b)).toEqual(tops);

    // The navbar leads to every section.
    for (const id of SECTION_ANCHORS)
      await expect(page.getByRole("navigation", { name: "Main" }).locator(`a[href="#${id}"]`)).toHaveCount(1);

    // Hero with a demo chat, three solutions each with a demo chat.
    await expect(page.locator("[data-demo-chat]")).toHaveCount(4);
    for (const title of ["Public Sector", "Banking & Financial Services", "Enterprise AI & CRM"]) {
      await expect(page.locator("#solutions").getByRole("heading", { name: title, exact: true, level: 3 })).toBeVisible();
    }
    const solutionChats = page.locator("#solutions [data-demo-chat]");
    await expect(solutionChats).toHaveCount(3);

    // Four feature cards, eight case studies with client, result and logo.
    await expect(page.locator("#features li").filter({ has: page.getByRole("heading", { level: 3 }) })).toHaveCount(4);
    const studies = page.locator("#case-studies [data-case-study]");
    await expect(studies).toHaveCount(8);
    for (const study of await studies.all()) {
      await expect(study.getByRole("heading", { level: 3 })).not.toBeEmpty();
      await expect(study.locator("svg").first()).toBeVisible();
      await expect(study.locator("p.text-2xl")).not.toBeEmpty();
    }
    for (const result of ["30% fewer office visits", "Over 150 agencies", "Live in under 6 weeks", "65% faster response"]) {
      await expect(studies.getByText(result, { exact: true })).toBeVisible();
    }

    // One Enterprise plan, price Custom, 'Talk To Us' mailing the sales address.
    const plans = page.locator("#pricing [data-plan]");
    await expect(plans).toHaveCount(1);
    await expect(plans.getByRole("heading", { name: "Enterprise" })).toBeVisible();
    await expect(plans.getByText("Custom", { exact: true })).toBeVisible();
    await expect(plans.getByRole("link", { name: "Talk To Us" })).toHaveAttribute("href", `mailto:${SALES_EMAIL}`);

    // About, FAQ with four items, closing call to action, footer with contact details.
    await expect(page.locator("#about").getByRole("heading", { level: 2 })).toBeVisible();
    await expect(faqItems(page)).toHaveCount(4);
    await expect(page.getByRole("heading", { name: "Ready to meet your customers on WhatsApp?" })).toBeVisible();
    const footer = page.getByRole("contentinfo");
    await expect(footer.getByRole("link", { name: `Sales: ${SALES_EMAIL}` })).toHaveAttribute("href", `mailto:${SALES_EMAIL}`);
    await expect(footer.getByRole("link", { name: "Support: support@jumbe.co.ke" })).toHaveAttribute("href", "mailto:support@jumbe.co.ke");
    await expect(footer.getByRole("link", { name: "+254 711 082 000" })).toHaveAttribute("href", "tel:+254711082000");
    await expect(footer.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute("href", "/privacy-policy");
    await expect(footer.getByRole("link", { name: "Terms of Service" })).toHaveAttribute("href", "/terms-of-service");
  });

  test("the spec's claims appear word for word", async ({ page }) => {
    await page.goto("/");
    const text = (await page.locator("main").innerText()).replace(/\s+/g, " ");
    for (const claim of CLAIMS) expect(text.toLowerCase(), claim).toContain(claim.toLowerCase());
    // The lower-case forms of the hero sentence, exactly.
    expect(text).toContain("with 99.9% uptime, multilingual support (Swahili, French, English) and go-live in 4 to 6 weeks");
  });

  test("headings go in order without skipping a level", async ({ page }) => {
    await page.goto("/");
    const levels = await page.locator("h1, h2, h3, h4, h5, h6").evaluateAll((hs) => hs.map((h) => Number(h.tagName[1])));
    expect(levels[0]).toBe(1);
    for (let i = 1; i < levels.length; i++) expect(levels[i]! - levels[i - 1]!, `heading ${i}`).toBeLessThanOrEqual(1);
  });

  test("sign-in and get-started point to the application host", async ({ page }) => {
    await page.goto("/");
    const banner = page.getByRole("banner");
    await expect(banner.getByRole("link", { name: "Sign in" }).first()).toHaveAttribute("href", `${appUrl()}/login`);
    await expect(banner.getByRole("link", { name: "Get started" })).toHaveAttribute("href", `${appUrl()}/signup`);
    await expect(page.locator("main").getByRole("link", { name: "Get started" })).toHaveAttribute("href", `${appUrl()}/signup`);
    await expect(page.getByRole("link", { name: "Create your account" })).toHaveAttribute("href", `${appUrl()}/signup`);

    // Every link goes somewhere: an anchor on this page, a path, the app host, mail, phone or WhatsApp.
    const hrefs = await page.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
    for (const href of hrefs) expect(href, "link target").toMatch(/^(#[a-z-]+|\/[a-z-]*|https?:\/\/\S+|mailto:\S+@\S+|tel:\+\d+)$/);
    for (const id of hrefs.filter((h) => h.startsWith("#")).map((h) => h.slice(1)))
      await expect(page.locator(`[id="${id}"]`), `#${id}`).toHaveCount(1);
  });

  test("the floating WhatsApp button opens a chat with the configured number in a new tab", async ({ page }) => {
    await page.goto("/");
    const button = page.getByRole("link", { name: /Chat with us on WhatsApp/ });
    await expect(button).toBeVisible();
    await expect(button).toHaveAttribute("href", `https://wa.me/${WHATSAPP_DIGITS}`);
    await expect(button).toHaveAttribute("target", "_blank");
    await expect(button).toHaveAttribute("rel", /\bnoopener\b/);
  });

  test("the client-logo carousel shows 7 named logos in a labelled, scrollable region", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    const region = carousel(page);
    await expect(region).toBeVisible();
    const logos = region.getByRole("img");
    await expect(logos).toHaveCount(7);
    for (const logo of await logos.all()) await expect(logo).toHaveAttribute("aria-label", /\S/);
    await expect(logos.first()).toBeVisible();
    // More logos than fit: the strip scrolls sideways (by hand without scripts).
    const { scrollWidth, clientWidth } = await region.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    await logos.last().scrollIntoViewIfNeeded();
    await expect(logos.last()).toBeInViewport();
  });

  test("the demo chats show their scripted conversations", async ({ page }) => {
    await page.goto("/");
    const hero = demoChat(page, "Jumbe Assistant");
    await expect(hero.getByText("I'd like to check the status of my application.")).toBeVisible();
    await expect(demoChat(page, "County Services").getByText("how do I renew my single business permit?")).toBeVisible();
    await expect(demoChat(page, "Bank Support").getByText("mini statement")).toHaveCount(2);
    await expect(demoChat(page, "Customer Care").getByText("Where is my order #4821?")).toBeVisible();
  });

  test("FAQ: an item opens on click, and opening one closes the others", async ({ page }) => {
    await page.goto("/");
    const items = faqItems(page);
    await expect(items.first()).toHaveAttribute("open", "");
    for (const item of await items.all()) await expect(item).toHaveAttribute("name", "faq");

    await items.nth(2).locator("summary").click();
    await expect(items.nth(2)).toHaveAttribute("open", "");
    await expect(items.nth(2).getByText("SOC 2 compliance")).toBeVisible();
    for (const i of [0, 1, 3]) await expect(items.nth(i)).not.toHaveAttribute("open");

    await items.nth(3).locator("summary").click();
    await expect(items.nth(3)).toHaveAttribute("open", "");
    await expect(page.locator("#faq details[open]")).toHaveCount(1);

    await items.nth(3).locator("summary").click();
    await expect(page.locator("#faq details[open]")).toHaveCount(0);
  });
});

test.describe("without scripts", () => {
  test.skip(({ javaScriptEnabled }) => javaScriptEnabled, "the scriptless rendering");

  test("the demo chat input is disabled and back-to-top stays out of the way", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("textbox", { name: "Message Jumbe Assistant" })).toBeDisabled();
    await expect(backToTop(page)).toBeHidden();
    await page.mouse.wheel(0, 2000);
    await expect(page.getByRole("banner")).toHaveAttribute("data-compact", "false");
  });
});

test.describe("with scripts", () => {
  scriptsOnly();

  test("demo chat: a typed message is appended as sent with the current time, by Enter or Send", async ({ page }) => {
    await page.clock.setFixedTime(new Date("2026-03-02T14:05:00+03:00")); // Africa/Nairobi (playwright.config.ts)
    await page.goto("/");
    const chat = demoChat(page, "Jumbe Assistant");
    const input = chat.getByRole("textbox", { name: "Message Jumbe Assistant" });
    await expect(input).toBeEnabled();
    const before = await sentMessages(chat).count();

    await input.fill("Habari, I need help with my M-Pesa payment");
    await input.press("Enter");
    await expect(sentMessages(chat)).toHaveCount(before + 1);
    const sent = sentMessages(chat).last();
    await expect(sent.locator("[data-text]")).toHaveText("Habari, I need help with my M-Pesa payment");
    await expect(sent.locator("time")).toHaveText("14:05");
    await expect(input).toHaveValue("");

    await input.fill("  Asante!  ");
    await chat.getByRole("button", { name: "Send message" }).click();
    await expect(sentMessages(chat)).toHaveCount(before + 2);
    await expect(sentMessages(chat).last().locator("[data-text]")).toHaveText("Asante!");
    await expect(sentMessages(chat).last().locator("time")).toHaveText("14:05");

    // The solution chats work the same way, each on its own.
    const bank = demoChat(page, "Bank Support");
    const bankBefore = await sentMessages(bank).count();
    await bank.getByRole("textbox", { name: "Message Bank Support" }).fill("Thanks");
    await bank.getByRole("textbox", { name: "Message Bank Support" }).press("Enter");
    await expect(sentMessages(bank)).toHaveCount(bankBefore + 1);
    await expect(sentMessages(chat)).toHaveCount(before + 2);
    await expect(page).toHaveURL(/\/$/); // the form never navigates
  });

  test("demo chat: blank or whitespace-only input adds nothing", async ({ page }) => {
    await page.goto("/");
    const chat = demoChat(page, "County Services");
    const input = chat.getByRole("textbox", { name: "Message County Services" });
    const before = await sentMessages(chat).count();
    await input.press("Enter");
    await input.fill("    ");
    await input.press("Enter");
    await input.fill("\t ");
    await chat.getByRole("button", { name: "Send message" }).click();
    await page.waitForTimeout(200);
    await expect(sentMessages(chat)).toHaveCount(before);
    await expect(page).toHaveURL(/\/$/);
  });

  test("carousel: every 3 s it scrolls by half its width, and wraps to the start after the end", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    // Fake timers, paused: time moves only when the test says so.
    await page.clock.install({ time: new Date("2026-03-02T09:00:00+03:00") });
    await page.clock.pauseAt(new Date("2026-03-02T09:00:01+03:00"));
    await page.goto("/");
    const region = carousel(page);
    const metrics = () => region.evaluate((el) => ({ left: el.scrollLeft, width: el.clientWidth, end: el.scrollWidth - el.clientWidth }));
    const { width, end } = await metrics();
    expect(end).toBeGreaterThan(width); // more than one step of logos to go
    const step = width / 2;
    expect((await metrics()).left).toBe(0);

    await page.clock.runFor(2990);
    await page.waitForTimeout(300);
    expect((await metrics()).left, "nothing moves before 3 s").toBe(0);
    await page.clock.runFor(10);
    await expect.poll(async () => (await metrics()).left, { message: "the first step at 3 s" }).toBeCloseTo(step, 0);

    let expected = step;
    while (expected < end) {
      await page.clock.runFor(3000);
      expected = Math.min(expected + step, end);
      await expect.poll(async () => (await metrics()).left, { message: `scrolled to ${expected}` }).toBeCloseTo(expected, 0);
    }
    // At the end: the next tick goes back to the first logo.
    await page.clock.runFor(3000);
    await expect.poll(async () => (await metrics()).left, { message: "wrapped to the start" }).toBe(0);
    await page.clock.runFor(3000);
    await expect.poll(async () => (await metrics()).left).toBeCloseTo(step, 0);
  });

  test("carousel: it pauses while hovered or focused, and goes on afterwards", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.clock.install({ time: new Date("2026-03-02T09:00:00+03:00") });
    await page.clock.pauseAt(new Date("2026-03-02T09:00:01+03:00"));
    await page.goto("/");
    const region = carousel(page);
    const left = () => region.evaluate((el) => el.scrollLeft);
    const half = await region.evaluate((el) => el.clientWidth / 2);

    await region.hover();
    await page.clock.runFor(9000);
    await page.waitForTimeout(300);
    expect(await left(), "still while hovered").toBe(0);

    await page.mouse.move(5, 5);
    await page.clock.runFor(3000);
    await expect.poll(left).toBeCloseTo(half, 0);

    await region.focus();
    await page.clock.runFor(9000);
    await page.waitForTimeout(300);
    expect(await left(), "still while focused").toBeCloseTo(half, 0);

    await region.blur();
    await page.clock.runFor(3000);
    await expect.poll(left).toBeCloseTo(2 * half, 0);
  });

  test("carousel: it does not move for visitors who prefer reduced motion", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.clock.install({ time: new Date("2026-03-02T09:00:00+03:00") });
    await page.clock.pauseAt(new Date("2026-03-02T09:00:01+03:00"));
    await page.goto("/");
    const region = carousel(page);
    await page.clock.runFor(12_000);
    await page.waitForTimeout(300);
    expect(await region.evaluate((el) => el.scrollLeft)).toBe(0);

    // The preference is read live: without it, the strip moves again.
    await page.emulateMedia({ reducedMotion: "no-preference" });
    await page.clock.runFor(3000);
    await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  });

  test("navbar turns compact past 10 px of scroll", async ({ page }) => {
    await page.goto("/");
    const navbar = page.getByRole("banner");
    await expect(navbar).toHaveAttribute("data-compact", "false");
    await page.evaluate(() => window.scrollTo(0, 11));
    await expect(navbar).toHaveAttribute("data-compact", "true");
    await page.evaluate(() => window.scrollTo(0, 10));
    await expect(navbar).toHaveAttribute("data-compact", "false");
    await page.evaluate(() => window.scrollTo(0, 800));
    await expect(navbar).toHaveAttribute("data-compact", "true");
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(navbar).toHaveAttribute("data-compact", "false");
  });

  test("back-to-top appears past 500 px and scrolls back to the top", async ({ page }) => {
    await page.goto("/");
    const button = backToTop(page);
    await expect(button).toBeHidden();
    await page.evaluate(() => window.scrollTo(0, 500));
    await page.waitForTimeout(100);
    await expect(button).toBeHidden();
    await page.evaluate(() => window.scrollTo(0, 501));
    await expect(button).toBeVisible();
    await page.evaluate(() => window.scrollTo(0, 3000));
    await button.click();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await expect(button).toBeHidden();
    await expect(page).toHaveURL(/\/$/);
  });

  test("the mobile menu opens, leads to a section and closes", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/");
    await page.getByRole("banner").getByLabel("Menu").click();
    const menu = page.getByRole("navigation", { name: "Sections" });
    await expect(menu).toBeVisible();
    await menu.getByRole("link", { name: "Pricing" }).click();
    await expect(page).toHaveURL(/#pricing$/);
    await expect(menu).toBeHidden();
    await expect(page.locator("#pricing")).toBeInViewport();
  });
});

test.describe("on a 360 px phone", () => {
  test.use({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });

  test("the WhatsApp button never covers a link, button or field, wherever the page is scrolled", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("link", { name: /Chat with us on WhatsApp/ })).toBeVisible();
    // Every 100 px from the top to the bottom: the button's box against every visible control in view.
    const covered = await page.evaluate(() => {
      const whatsapp = document.querySelector("[data-whatsapp]")!;
      const own = whatsapp.parentElement!;
      const controls = Array.from(document.querySelectorAll("a[href], button, input, select, textarea, summary")).filter(
        (el) => !own.contains(el) && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }),
      );
      // Each covered control once, with the first scroll position where it was covered.
      const found = new Map<Element, string>();
      const bottom = document.scrollingElement!.scrollHeight;
      for (let y = 0; y <= bottom; y += 100) {
        window.scrollTo({ top: y, behavior: "instant" });
        const w = whatsapp.getBoundingClientRect();
        if (w.bottom <= 0 || w.top >= window.innerHeight) continue;
        for (const el of controls) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0) continue;
          if (!found.has(el) && r.left < w.right && w.left < r.right && r.top < w.bottom && w.top < r.bottom)
            found.set(
              el,
              `"${(el.getAttribute("aria-label") ?? el.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 40)}" at ${y} px`,
            );
        }
      }
      return [...found.values()];
    });
    expect(covered, "controls under the WhatsApp button").toEqual([]);
  });
});
