import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";

// Spec sections 2 and 9: the Privacy Policy (12 numbered sections) and Terms of Service (11), each
// served at two paths with a Back to Home button; plain HTML without any JavaScript (decision 007).

const DOCUMENTS = [
  {
    title: "Privacy Policy",
    paths: ["/privacy-policy", "/privacy"],
    sections: 12,
    updated: "30 November 2026",
    facts: [
      /730 days \(2 years\) unless the organisation chooses otherwise/,
      /Tax Procedures Act/,
      /under 16/,
      /Data Protection Act, 2019/,
      /Office of the Data Protection Commissioner/,
      /72 hours/,
      /privacy@jumbe\.co\.ke/,
    ],
  },
  {
    title: "Terms of Service",
    paths: ["/terms-of-service", "/terms"],
    sections: 11,
    updated: "22 November 2026",
    facts: [/30 days[’']? notice/, /non-refundable except as required by law/, /laws of Kenya/, /legal@jumbe\.co\.ke/],
  },
] as const;

const NUMBERED = /^(\d+)\. \S/;

async function sectionHeadings(page: Page) {
  return page.locator("article section > h2").allTextContents();
}

for (const doc of DOCUMENTS) {
  const [canonicalPath] = doc.paths;

  test.describe(doc.title, () => {
    for (const path of doc.paths) {
      test(`${path} serves the ${doc.title} with ${doc.sections} numbered sections`, async ({ page }) => {
        const response = await page.goto(path);
        expect(response?.status()).toBe(200);
        await expect(page).toHaveTitle(`${doc.title} | Jumbe`);
        await expect(page.getByRole("heading", { level: 1 })).toHaveText(doc.title);
        await expect(page.getByText(`Last updated: ${doc.updated}`)).toBeVisible();

        const headings = await sectionHeadings(page);
        expect(headings).toHaveLength(doc.sections);
        expect(headings.map((text) => text.match(NUMBERED)?.[1])).toEqual(Array.from({ length: doc.sections }, (_, i) => String(i + 1)));

        await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", new RegExp(`^https?://[^/]+${canonicalPath}$`));
      });
    }

    test("both paths show the same document", async ({ page }) => {
      await page.goto(doc.paths[0]);
      const long = await page.locator("article").innerText();
      await page.goto(doc.paths[1]);
      expect(await page.locator("article").innerText()).toBe(long);
    });

    test("states the facts the spec and the Data Protection Act call for", async ({ page }) => {
      await page.goto(canonicalPath);
      const text = await page.locator("article").innerText();
      for (const fact of doc.facts) expect(text).toMatch(fact);
    });

    test("the table of contents links to every section", async ({ page }) => {
      await page.goto(canonicalPath);
      const links = page.getByRole("navigation", { name: "Contents" }).getByRole("link");
      await expect(links).toHaveCount(doc.sections);
      expect(await links.allTextContents()).toEqual(await sectionHeadings(page));

      const last = doc.sections;
      await links.nth(last - 1).click();
      await expect(page).toHaveURL(new RegExp(`${canonicalPath}#section-${last}$`));
      await expect(page.locator(`#section-${last} > h2`)).toBeInViewport();

      await page.goto(canonicalPath);
      await links.nth(1).click();
      await expect(page).toHaveURL(/#section-2$/);
      await expect(page.locator("#section-2 > h2")).toBeInViewport();
    });

    test("Back to Home, at the top and the bottom, goes to /", async ({ page }) => {
      await page.goto(doc.paths[1]);
      const back = page.getByRole("link", { name: "Back to Home" });
      await expect(back).toHaveCount(2);
      for (const index of [0, 1]) await expect(back.nth(index)).toHaveAttribute("href", "/");

      await back.last().click();
      await expect(page).toHaveURL(/\/$/);
      await page.goto(canonicalPath);
      await back.first().click();
      await expect(page).toHaveURL(/\/$/);
    });

    test("is plain HTML: no scripts, and landmarks for assistive technology", async ({ page }) => {
      await page.goto(canonicalPath);
      await expect(page.locator('script:not([type="application/ld+json"])')).toHaveCount(0);
      await expect(page.locator('link[rel="modulepreload"]')).toHaveCount(0);
      await expect(page.getByRole("main")).toHaveCount(1);
      await expect(page.getByRole("article")).toHaveCount(1);
      await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
    });

    test("reads well on a phone without sideways scrolling", async ({ page }) => {
      await page.setViewportSize({ width: 360, height: 740 });
      await page.goto(canonicalPath);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await expect(page.getByRole("link", { name: "Back to Home" }).first()).toBeVisible();
    });
  });
}
