import type { ReactNode } from "react";
import { m } from "~/paraglide/messages";

/** One numbered section of a legal document. The number comes from its place in the list. */
export interface LegalSection {
  heading: string;
  body: ReactNode;
}

/**
 * A legal page's text: rendered by `~/components/legal/legal-document`. Its words are the request's
 * language: the documents give them through getters, read when the page is drawn.
 */
export interface LegalDocumentContent {
  title: string;
  /** For the description meta tag. */
  description: string;
  /** The canonical path; the document may also be served at a shorter alias. */
  path: string;
  /** ISO date, YYYY-MM-DD. */
  lastUpdated: string;
  /** The plain-language summary shown above the contents. */
  summary: ReactNode;
  sections: readonly LegalSection[];
  /** Where to write about this document. */
  contactEmail: string;
  /** The companion document, linked at the foot of the page. */
  related: { label: string; href: string };
}

/** The anchor of section `number` (1-based): `#section-1` and so on. */
export const sectionId = (number: number) => `section-${number}`;

const months = () => [
  m.public_legal_month_january(),
  m.public_legal_month_february(),
  m.public_legal_month_march(),
  m.public_legal_month_april(),
  m.public_legal_month_may(),
  m.public_legal_month_june(),
  m.public_legal_month_july(),
  m.public_legal_month_august(),
  m.public_legal_month_september(),
  m.public_legal_month_october(),
  m.public_legal_month_november(),
  m.public_legal_month_december(),
];

/**
 * "2026-11-22" → "22 November 2026" ("22 Novemba 2026", "22 novembre 2026"), the same on every
 * server whatever its locale data.
 */
export function formatLegalDate(iso: string) {
  const [year, month, day] = iso.split("-").map(Number) as [number, number, number];
  return `${day} ${months()[month - 1]} ${year}`;
}
