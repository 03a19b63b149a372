import type { Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, TEXT, field, signIn, signUpAndVerifyViaApi } from "./helpers";

// What a first-time user saw on a phone (issue 9), one test per finding. Every check reads the
// page's real geometry or style, and finds elements by what a user sees (roles, headings, texts).
test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

type Box = { x: number; y: number; width: number; height: number };

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  expect(b, "the element is laid out").not.toBeNull();
  return b!;
}

function intersects(a: Box, b: Box) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function noSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement!.scrollWidth,
    // The screen's width: a phone zooms out to show a wider page, and window.innerWidth grows with it.
    innerWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, "the page does not scroll sideways").toBeLessThanOrEqual(innerWidth);
}

async function signedInAsNewUser(page: Page, request: import("@playwright/test").APIRequestContext, goto: string) {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  await page.goto(goto);
  return user;
}

test("(a) Developers: the curl sample scrolls inside its block and its Copy button never covers the command", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  await signedInAsNewUser(page, request, "/developers");
  // The tab's own example (sending a message); each endpoint's page draws its example the same way.
  const endpoint = page.locator("section").filter({ has: page.getByRole("heading", { name: "Send a message" }) });
  const curlCode = page.locator("pre").filter({ hasText: /^\s*curl\b/ });
  const curl = endpoint.locator(curlCode);
  await expect(curl).toHaveCount(1);
  await expect(curl).toBeVisible();
  await noSidewaysScroll(page);
  const codeBox = await box(curl);
  expect(codeBox.x + codeBox.width, "the code block ends inside the viewport").toBeLessThanOrEqual(375);
  // The long command scrolls within its block.
  const scrolls = await curl.evaluate((el) => ({ overflow: getComputedStyle(el).overflowX, wider: el.scrollWidth > el.clientWidth }));
  expect(scrolls).toEqual({ overflow: "auto", wider: true });

  if (!javaScriptEnabled) return; // Copy needs scripts and is not drawn without them.
  // Within this endpoint, the innermost block holding both the command and a Copy button (the last
  // such ancestor in document order): that button is the command's.
  const block = endpoint
    .locator("div")
    .filter({ has: curlCode })
    .filter({ has: page.getByRole("button", { name: "Copy" }) })
    .last();
  const copy = block.getByRole("button", { name: "Copy" }).first();
  await expect(copy).toBeVisible();
  expect(intersects(await box(copy), codeBox), "the Copy button is not drawn over the code").toBe(false);
});

test("(b) Developers: the examples' language is chosen once, by tabs that are links, and every sample follows", async ({
  page,
  request,
}) => {
  await signedInAsNewUser(page, request, "/developers");
  const tabs = page.getByRole("navigation", { name: "Examples in" });
  await expect(tabs.getByRole("link", { name: "curl" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("example-curl")).toHaveCount(1);
  await tabs.getByRole("link", { name: "JavaScript" }).click();
  await expect(page).toHaveURL(/[?&]lang=javascript/);
  await expect(tabs.getByRole("link", { name: "JavaScript" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("example-javascript")).toContainText("fetch(");
  await expect(page.getByTestId("example-curl")).toHaveCount(0);
  await noSidewaysScroll(page);
  // An endpoint opened from here shows its example in the language chosen.
  await page.getByTestId("endpoint").first().getByRole("link").click();
  await expect(page).toHaveURL(/\/developers\/api\/\w+\?lang=javascript$/);
  await expect(tabs.getByRole("link", { name: "JavaScript" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("example-javascript")).toContainText("fetch(");
  await noSidewaysScroll(page);
});

test("(c) Profile: each activity time stays inside its card", async ({ page, request }) => {
  await signedInAsNewUser(page, request, "/profile");
  const card = page.locator("section").filter({ has: page.getByRole("heading", { name: "Account activity" }) });
  const cardBox = await box(card);
  const rows = card.getByRole("listitem");
  expect(await rows.count()).toBeGreaterThan(0);
  for (const part of await rows.locator(":scope > *").all()) {
    const p = await box(part);
    const text = (await part.textContent())?.trim();
    expect(p.x, `"${text}" starts inside the card`).toBeGreaterThanOrEqual(cardBox.x);
    expect(p.x + p.width, `"${text}" ends inside the card`).toBeLessThanOrEqual(cardBox.x + cardBox.width);
  }
  await noSidewaysScroll(page);
});

test("(d) a field in error keeps a red focus ring, not the brand green", async ({ page }) => {
  await page.goto("/login");
  await field(page, "Email").fill("not-an-email");
  await field(page, "Password").fill("x");
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByText(TEXT.emailInvalid).first()).toBeVisible();
  const email = field(page, "Email");
  await expect(email).toHaveAttribute("aria-invalid", "true");
  await email.focus();
  const colours = await email.evaluate((el) => {
    const s = getComputedStyle(el);
    // The focus ring is the box-shadow layer with a spread and no blur ("... 0px 0px 0px 2px").
    const ringLayer = s.boxShadow.split(/,(?![^(]*\))/).find((layer) => /0px 0px 0px [1-9]/.test(layer)) ?? "";
    const ring = /^\s*((?:rgba?|oklch|oklab|color)\([^)]*\)|#[0-9a-f]+)/i.exec(ringLayer)?.[1] ?? "transparent";
    // Whatever notation the browser reports (rgb, oklch), paint one pixel and read its red and green.
    const rgb = (colour: string) => {
      const ctx = document.createElement("canvas").getContext("2d")!;
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g] = ctx.getImageData(0, 0, 1, 1).data;
      return { colour, r: r!, g: g! };
    };
    return { border: rgb(s.borderTopColor), ring: rgb(ring) };
  });
  // Red has more red than green; the brand's green (rgb(5, 150, 105) and its light ring) the other way round.
  expect(colours.border.r, `border ${JSON.stringify(colours.border)}`).toBeGreaterThan(colours.border.g);
  expect(colours.ring.r, `focus ring ${JSON.stringify(colours.ring)}`).toBeGreaterThan(colours.ring.g);
});

test("(e) Developers: no Regenerate before a key exists; offered once Show has created one", async ({ page, request }) => {
  await signedInAsNewUser(page, request, "/developers");
  const regenerate = page
    .getByRole("main")
    .getByRole("link", { name: /Regenerate/ })
    .or(page.getByRole("main").getByRole("button", { name: /Regenerate/ }));
  await expect(page.getByRole("heading", { name: "Endpoints" })).toBeVisible();
  await expect(regenerate).toHaveCount(0);
  // Nor its confirmation, asked for by address.
  await page.goto("/developers?confirm=regenerate");
  await expect(page.getByRole("alertdialog")).toHaveCount(0);

  await page.goto("/developers?reveal=1");
  await expect(page.getByTestId("api-key")).toBeVisible();
  await page.goto("/developers");
  await expect(regenerate).toBeVisible();
});

test("(f) Overview: Recent Activity shows repeated events once, with a count", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  for (let i = 0; i < 3; i++) {
    const signin = await request.post("/api/auth/signin", {
      headers: { "Content-Type": "application/json", Origin: BASE_URL },
      data: { email: user.email, password: user.password },
    });
    expect(signin.status()).toBe(200);
  }
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);

  const card = page.locator("section").filter({ has: page.getByRole("heading", { name: "Recent Activity" }) });
  const rows = card.getByRole("listitem");
  await expect(rows.first()).toBeVisible();
  // A row's event is its first line (the count badge aside); its time is the last.
  const events = (await rows.allInnerTexts()).map((t) => t.split("\n")[0]!.replace(/×\d+/, "").trim());
  for (let i = 1; i < events.length; i++) expect(events[i], `rows ${i} and ${i + 1} differ`).not.toBe(events[i - 1]);
  // Four sign-ins in a row: one entry that says so.
  await expect(rows.filter({ hasText: "Signed in" })).toHaveCount(1);
  // Every one of them was read: an exact count, not "×4+".
  await expect(rows.filter({ hasText: "Signed in" })).toContainText(/×4(?!\+)/);
  await noSidewaysScroll(page);
});

test("(g) the phone top bar carries the Jumbe logo, linking to the overview", async ({ page, request }) => {
  await signedInAsNewUser(page, request, "/dashboard");
  const logo = page.getByRole("banner").getByRole("link", { name: /Jumbe/ });
  await expect(logo).toBeVisible();
  await expect(logo.locator("svg, img").first()).toBeVisible();
  const b = await box(logo);
  expect(b.x + b.width, "inside the viewport").toBeLessThanOrEqual(375);
  await logo.click();
  await expect(page).toHaveURL(/\/dashboard$/);
});
