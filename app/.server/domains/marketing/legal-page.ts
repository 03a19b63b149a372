import type { LegalDocumentContent } from "~/content/legal/types";
import { siteConfig } from "./site";

/** Loader data of a legal page: its canonical URL is the long path, whichever alias was asked for. */
export function legalPageData(document: LegalDocumentContent) {
  return { canonical: `${siteConfig().siteUrl}${document.path}` };
}
