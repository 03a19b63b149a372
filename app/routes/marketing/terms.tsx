import type { Route } from "./+types/terms";
import type { PageHandle } from "~/root";
import { legalPageData } from "~/.server/domains/marketing/legal-page";
import { LegalDocument, legalPageMeta } from "~/components/legal/legal-document";
import { termsOfService } from "~/content/legal/terms-of-service";

// Served at /terms-of-service and /terms; plain server-rendered HTML with no JavaScript (docs/decisions/007).
export const handle: PageHandle = { hydrate: false };

export function loader() {
  return legalPageData(termsOfService);
}

export const meta: Route.MetaFunction = ({ loaderData }) => legalPageMeta(termsOfService, loaderData);

export default function TermsOfService() {
  return <LegalDocument document={termsOfService} />;
}
