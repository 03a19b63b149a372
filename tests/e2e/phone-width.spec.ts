import type { Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, TEXT, field, signInViaForm, signUpAndVerifyViaApi } from "./helpers";

// What a first-time user saw on a phone (issue 9): every check reads the page's real geometry or style.
test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  expect(b, "the element is laid out").not.toBeNull();
  return b!;
}

function intersects(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function noSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, "the page does not scroll sideways").toBeLessThanOrEqual(innerWidth);
}

test("Developers: code samples stay inside the page, Copy never covers the code, toggles look like controls, no Regenerate before a key", async ({ page, request, javaScriptEnabled }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signInViaForm(page, user.email, user.password);
  await page.goto("/developers");

  // No key yet: nothing to regenerate.
  await expect(page.getByTestId("api-key-masked")).toContainText("No key yet");
  await expect(page.getByRole("link", { name: "Regenerate" })).toHaveCount(0);

  await noSidewaysScroll(page);
  const curl = page.getByTestId("example-curl").first();
  await expect(curl).toBeVisible();
  const codeBox = await box(curl);
  expect(codeBox.x + codeBox.width, "the code block ends inside the viewport").toBeLessThanOrEqual(375);
  if (javaScriptEnabled) {
    const copy = page.getByTestId("example-curl-block").first().getByRole("button", { name: "Copy" });
    await expect(copy).toBeVisible();
    expect(intersects(await box(copy), codeBox), "the Copy button is not drawn over the code").toBe(false);
  }

  // The language toggles are drawn as controls: a border, and a chevron that turns when open.
  const toggle = page.locator("summary").filter({ hasText: "JavaScript" }).first();
  const style = await toggle.evaluate((el) => {
    const s = getComputedStyle(el);
    return { border: parseFloat(s.borderTopWidth), cursor: s.cursor, chevron: !!el.querySelector("svg") };
  });
  expect(style).toEqual({ border: 1, cursor: "pointer", chevron: true });
  await toggle.click();
  await expect(page.getByTestId("example-javascript").first()).toBeVisible();
  await noSidewaysScroll(page);

  // Once a key exists (Show creates it), Regenerate is offered.
  await page.goto("/developers?reveal=1");
  await expect(page.getByTestId("api-key")).toBeVisible();
  await page.goto("/developers");
  await expect(page.getByRole("link", { name: "Regenerate" })).toBeVisible();
});

test("Profile: each activity time stays inside its card", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signInViaForm(page, user.email, user.password);
  await page.goto("/profile");
  const card = page.locator("section").filter({ has: page.getByRole("heading", { name: "Account activity" }) });
  const cardBox = await box(card);
  const times = card.getByTestId("activity-time");
  expect(await times.count()).toBeGreaterThan(0);
  for (const time of await times.all()) {
    const t = await box(time);
    expect(t.x).toBeGreaterThanOrEqual(cardBox.x);
    expect(t.x + t.width, `"${await time.textContent()}" ends inside the card`).toBeLessThanOrEqual(cardBox.x + cardBox.width);
  }
  await noSidewaysScroll(page);
});

test("a field in error keeps a red focus ring, not the brand green", async ({ page }) => {
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

test("Overview: Recent Activity shows repeated events once with a count; the phone top bar has the logo", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  for (let i = 0; i < 3; i++) {
    const signin = await request.post("/api/auth/signin", { headers: { "Content-Type": "application/json", Origin: BASE_URL }, data: { email: user.email, password: user.password } });
    expect(signin.status()).toBe(200);
  }
  await signInViaForm(page, user.email, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);

  const logo = page.getByTestId("topbar-logo");
  await expect(logo).toBeVisible();
  await expect(logo).toHaveAccessibleName("Jumbe overview");

  const items = page.getByTestId("recent-activity-item");
  await expect(items.first()).toBeVisible();
  const texts = (await items.allInnerTexts()).map((t) => t.split("\n")[0]!.replace(/×\d+/, "").trim());
  for (let i = 1; i < texts.length; i++) expect(texts[i], `rows ${i} and ${i + 1} differ`).not.toBe(texts[i - 1]);
  await expect(items.filter({ hasText: "Signed in" }).getByTestId("repeat-count")).toHaveText("×4");
  await noSidewaysScroll(page);
});
