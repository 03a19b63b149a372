import type { Route } from "./+types/privacy";
import type { PageHandle } from "~/root";
import { legalPageData } from "~/.server/domains/marketing/legal-page";
import { LegalDocument, legalPageMeta } from "~/components/legal/legal-document";
import { privacyPolicy } from "~/content/legal/privacy-policy";

// Served at /privacy-policy and /privacy; plain server-rendered HTML with no JavaScript (docs/decisions/007).
export const handle: PageHandle = { hydrate: false };

export function loader() {
  return legalPageData(privacyPolicy);
}

export const meta: Route.MetaFunction = ({ loaderData }) => legalPageMeta(privacyPolicy, loaderData);

export default function PrivacyPolicy() {
  return <LegalDocument document={privacyPolicy} />;
}
