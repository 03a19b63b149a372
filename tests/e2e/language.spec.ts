import { test, expect } from "./fixtures";
import { BASE_URL, DEMO, signIn, signUpAndVerifyViaApi, userMenu } from "./helpers";
import { catalogue, type Locale } from "./english-left";

// Issue 43, decision 071: a person chooses the language with the switcher in the public footer or the
// user menu; a plain form, so the same with JavaScript on and off.

const langOf = (page: import("@playwright/test").Page) => page.locator("html").getAttribute("lang");

test("the public footer's switcher writes the site in Swahili, then French, and the choice stays", async ({ page }) => {
  await page.goto("/");
  expect(await langOf(page)).toBe("en");
  const footer = page.getByRole("contentinfo");
  await footer.getByLabel("Display language").selectOption("sw");
  await footer.getByRole("button", { name: "Change" }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await langOf(page)).toBe("sw");
  await expect(footer.getByLabel("Lugha ya kuonyesha")).toHaveValue("sw");
  // Another page keeps it: the cookie, not the address, carries the choice.
  await page.goto("/login");
  expect(await langOf(page)).toBe("sw");
  await page.goto("/");
  await footer.getByLabel("Lugha ya kuonyesha").selectOption("fr");
  await footer.getByRole("button", { name: "Badilisha" }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await langOf(page)).toBe("fr");
  await expect(footer.getByLabel("Langue d'affichage")).toHaveValue("fr");
});

test("a member chooses French from the user menu and stays on the page", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/dashboard" });
  expect(await langOf(page)).toBe("en");
  await userMenu(page).click();
  const menu = page.locator("details[open]").filter({ has: page.getByLabel("Display language") });
  await menu.getByLabel("Display language").selectOption("fr");
  await menu.getByRole("button", { name: "Change" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await langOf(page)).toBe("fr");
});

// Decision 072: a hydrated page's code carries message keys, no words; the words come in one file of
// the page's language, and no other language's words reach the browser.

test("a hydrated page in Swahili loads Swahili words only, and its browser code carries none", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "the browser's words are for pages that run React");
  const [en, sw, fr] = (["en", "sw", "fr"] as Locale[]).map(catalogue);
  // Words of one language that no other writes the same way, long enough not to occur by chance.
  const own = (words: Record<string, string>, others: Record<string, string>[]) =>
    Object.entries(words)
      .filter(([key]) => others.every((other) => other[key] !== words[key]))
      .map(
        ([, text]) =>
          text
            .replace(/\{\w+\}/g, "\u0000")
            .split("\u0000")
            .sort((a, b) => b.length - a.length)[0]!,
      )
      // Sentences, not single words code may hold by chance ("Modifier" is in React's getModifierState).
      .filter((part) => part.length >= 12 && part.includes(" "));
  const swahiliOnly = own(sw!, [en!, fr!]);
  const frenchOnly = own(fr!, [en!, sw!]);
  expect(swahiliOnly.length).toBeGreaterThan(0);

  await signIn(page, DEMO.email, DEMO.password, { to: "/dashboard" });
  await page.context().addCookies([{ name: "lng", value: "sw", url: BASE_URL }]);
  await page.goto("/dashboard");
  expect(await langOf(page)).toBe("sw");
  await page.waitForFunction(() => !!(globalThis as { __jw?: unknown }).__jw);
  const scripts = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry.name)
      .filter((name) => new URL(name).pathname.endsWith(".js")),
  );
  // One file a route the page draws (the root, the signed-in layout, the Overview), from its language's folder.
  const wordsFiles = scripts.filter((url) => /\/assets\/words-sw-[0-9a-f]{10}\/[\w-]+\.js$/.test(url));
  expect(wordsFiles.map((url) => url.replace(/^.*\/|-[\w-]{8}\.js$/g, "")).sort()).toEqual(["dashboard", "layout", "root"]);
  expect(scripts.filter((url) => url.includes("/words-") && !wordsFiles.includes(url))).toEqual([]);
  for (const url of scripts) {
    const body = await (await page.request.get(url)).text();
    // Every 12 characters of the file, so that each sentence costs a lookup, not a scan of 200 KB.
    const heads = new Set<string>();
    for (let at = 0; at + 12 <= body.length; at++) heads.add(body.slice(at, at + 12));
    const holds = (text: string) => heads.has(text.slice(0, 12)) && body.includes(text);
    expect(frenchOnly.filter(holds), `French in ${url}`).toEqual([]);
    if (!wordsFiles.includes(url)) expect(swahiliOnly.filter(holds), `Swahili in ${url}`).toEqual([]);
  }
  const swahili = new Set(Object.values(sw!));
  const words = await page.evaluate(() => (globalThis as { __jw?: Record<string, string> }).__jw ?? {});
  expect(Object.keys(words).length).toBeGreaterThan(0);
  expect(Object.values(words).filter((text) => !swahili.has(text))).toEqual([]);

  // A page React draws in the browser (a navigation without the server's HTML: the marker survives)
  // brings its route's words in Swahili, and shows every word it needs (a missing one is a console
  // error, which fails the test).
  await page.evaluate(() => ((globalThis as { __marker?: number }).__marker = 1));
  await page.locator("#topbar-search").fill("Wanjiru");
  await page.locator("#topbar-search").press("Enter");
  await expect(page).toHaveURL(/\/search\?q=Wanjiru/);
  expect(await page.evaluate(() => (globalThis as { __marker?: number }).__marker)).toBe(1);
  expect(await langOf(page)).toBe("sw");
  const later = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => new URL(entry.name).pathname)
      .filter((name) => name.includes("/words-")),
  );
  expect(
    later.some((name) => /\/words-sw-[0-9a-f]{10}\/search-[\w-]+\.js$/.test(name)),
    later.join(" "),
  ).toBe(true);
  const after = await page.evaluate(() => (globalThis as { __jw?: Record<string, string> }).__jw ?? {});
  expect(Object.values(after).filter((text) => !swahili.has(text))).toEqual([]);
  await expect(page.locator("main h1")).toHaveText(sw!.app_shell_search!);
});
