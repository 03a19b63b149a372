import type { Route } from "./+types/terms";
import type { PageHandle } from "~/root";
import { siteConfig } from "~/.server/marketing/site";
import { LegalDocument } from "~/components/legal/legal-document";
import { termsOfService } from "~/content/legal/terms-of-service";

// Served at /terms-of-service and /terms; plain server-rendered HTML with no JavaScript (docs/decisions/007).
export const handle: PageHandle = { hydrate: false };

export function loader() {
  return { canonical: `${siteConfig().siteUrl}${termsOfService.path}` };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: `${termsOfService.title} | Jumbe` },
  { name: "description", content: termsOfService.description },
  ...(loaderData ? [{ tagName: "link", rel: "canonical", href: loaderData.canonical }] : []),
];

export default function TermsOfService() {
  return <LegalDocument document={termsOfService} />;
}
