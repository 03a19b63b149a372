import type { Route } from "./+types/privacy";
import type { PageHandle } from "~/root";
import { siteConfig } from "~/.server/marketing/site";
import { LegalDocument } from "~/components/legal/legal-document";
import { privacyPolicy } from "~/content/legal/privacy-policy";

// Served at /privacy-policy and /privacy; plain server-rendered HTML with no JavaScript (docs/decisions/007).
export const handle: PageHandle = { hydrate: false };

export function loader() {
  return { canonical: `${siteConfig().siteUrl}${privacyPolicy.path}` };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: `${privacyPolicy.title} | Jumbe` },
  { name: "description", content: privacyPolicy.description },
  ...(loaderData ? [{ tagName: "link", rel: "canonical", href: loaderData.canonical }] : []),
];

export default function PrivacyPolicy() {
  return <LegalDocument document={privacyPolicy} />;
}
