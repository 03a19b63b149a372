import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { createMemoryRouter, RouterProvider } from "react-router";
import type { ReactNode } from "react";
import { SearchBox } from "./search";
import { SearchResults } from "./search-results";

/** Renders inside a router, as pages are, so forms and links resolve. */
function render(node: ReactNode) {
  const router = createMemoryRouter([{ path: "*", element: node }], { initialEntries: ["/search"] });
  return renderToStaticMarkup(<RouterProvider router={router} />);
}

const SECTIONS = [
  {
    id: "invoices",
    label: "Invoices",
    hits: [
      { title: "INV-2026-000001", detail: "Kilimo Bora Agrovet · KES 2,900.00 · Paid", to: "/admin/billing/invoices/1" },
      { title: "INV-2026-000002", to: "/admin/billing/invoices/2" },
    ],
  },
];

describe("SearchBox", () => {
  it("is a GET search form sending q, labelled, and tied to the reason a query was refused", () => {
    const html = render(<SearchBox action="/admin/search" id="q-box" label="Search the platform" placeholder="Name..." messageId="why" />);
    const form = /<form[^>]*>/.exec(html)![0];
    for (const attribute of ['role="search"', 'action="/admin/search"', 'method="get"']) expect(form).toContain(attribute);
    expect(html).toContain('<label for="q-box" class="sr-only">Search the platform</label>');
    const input = /<input[^>]*>/.exec(html)![0];
    for (const attribute of ['id="q-box"', 'name="q"', 'type="search"', 'aria-describedby="why"', 'aria-invalid="true"'])
      expect(input).toContain(attribute);
    const plain = render(<SearchBox action="/search" id="q" label="Search" placeholder="Search..." maxLength={100} variant="bar" />);
    expect(plain).toContain('maxLength="100"');
    expect(plain).not.toContain("aria-invalid");
  });
});

describe("SearchResults", () => {
  it("groups the hits under their headings, a link each, and notes a capped group", () => {
    const html = render(<SearchResults query="INV" message={null} sections={SECTIONS} idPrefix="s" cappedAt={2} />);
    expect(html).toMatch(/<section[^>]*aria-labelledby="s-invoices"/);
    expect(html).toContain('<h2 id="s-invoices"');
    expect(html).toContain("(the first 2: add more words to narrow)");
    expect(html).toContain('href="/admin/billing/invoices/1"');
    expect(html).toContain("Kilimo Bora Agrovet · KES 2,900.00 · Paid");
    expect(render(<SearchResults query="INV" message={null} sections={SECTIONS} idPrefix="s" />)).not.toContain("the first");
  });

  it("says when nothing was found, and why a query was refused", () => {
    expect(render(<SearchResults query="zzz" message={null} sections={[]} idPrefix="s" />)).toContain("Nothing found for “zzz”.");
    expect(render(<SearchResults query="" message={null} sections={[]} idPrefix="s" />)).not.toContain("Nothing found");
    const refused = render(
      <SearchResults query="k" message="Type at least 2 characters to search." messageId="why" sections={[]} idPrefix="s" />,
    );
    expect(refused).toContain('<p id="why" role="alert"');
    expect(refused).not.toContain("Nothing found");
  });
});
