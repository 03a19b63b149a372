import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LegalDocument } from "~/components/legal/legal-document";
import { privacyPolicy } from "./privacy-policy";
import { termsOfService } from "./terms-of-service";
import { formatLegalDate } from "./types";

describe.each([
  ["Privacy Policy", privacyPolicy, 12, "2026-11-30", "30 November 2026"],
  ["Terms of Service", termsOfService, 11, "2026-11-22", "22 November 2026"],
] as const)("%s", (title, document, count, date, dateInWords) => {
  it(`has ${count} sections, each with a heading and a body`, () => {
    expect(document.title).toBe(title);
    expect(document.sections).toHaveLength(count);
    for (const section of document.sections) {
      expect(section.heading.trim()).not.toBe("");
      expect(section.heading).not.toMatch(/^\d/); // the number is added when rendered
      expect(section.body).toBeTruthy();
    }
    expect(new Set(document.sections.map((section) => section.heading)).size).toBe(count);
  });

  it(`is dated ${dateInWords}`, () => {
    expect(document.lastUpdated).toBe(date);
    expect(formatLegalDate(document.lastUpdated)).toBe(dateInWords);
  });

  it("renders numbered headings with anchors, and every in-page link has a target", () => {
    const html = renderToStaticMarkup(createElement(LegalDocument, { document }));
    const headings = [...html.matchAll(/<h2 id="section-(\d+)-heading"[^>]*>(.*?)<\/h2>/g)];
    expect(headings.map(([, number]) => Number(number))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    headings.forEach(([, number, text], index) => expect(text).toBe(`${number}. ${document.sections[index]?.heading}`));
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id));
    for (const [, target] of html.matchAll(/href="#([^"]+)"/g)) expect(ids).toContain(target);
    expect(html).not.toContain("<script");
  });
});
