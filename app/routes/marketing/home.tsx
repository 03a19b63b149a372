import { languageLinks } from "~/lib/alternates";
import type { Route } from "./+types/home";
import landingScript from "~/assets/landing.js?url";
import type { PageHandle } from "~/root";
import { siteConfig } from "~/.server/domains/marketing/site";
import { FloatingActions, Footer, Navbar } from "~/components/marketing/chrome";
import { SentBubbleTemplate } from "~/components/marketing/demo-chat";
import { JsonLd } from "~/components/marketing/json-ld";
import { About, CaseStudies, ClientCarousel, ClosingCta, Faq, Features, Hero, Pricing, Solutions } from "~/components/marketing/sections";
import { intlLocale } from "~/lib/intl";
import { m } from "~/paraglide/messages";

// Server-rendered HTML only: no React runtime in the browser, just the small landing script (docs/decisions/007).
export const handle: PageHandle = { hydrate: false, scripts: [landingScript] };

export function loader() {
  return siteConfig();
}

export const meta: Route.MetaFunction = ({ loaderData }) => {
  // In the request's language (app/messages/public), read when the page is drawn.
  const title = m.public_home_meta_title();
  const description = m.public_home_meta_description();
  if (!loaderData) return [{ title }, { name: "description", content: description }];
  const { siteUrl } = loaderData;
  const url = `${siteUrl}/`;
  const image = `${siteUrl}/og-image.jpg`;
  return [
    { title },
    { name: "description", content: description },
    // The page in each language for search engines (issue 43), this one's as canonical.
    ...languageLinks(url),
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: "Jumbe" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { property: "og:image", content: image },
    { property: "og:image:width", content: "1200" },
    { property: "og:image:height", content: "630" },
    { property: "og:image:alt", content: m.public_home_og_image_alt() },
    { property: "og:locale", content: intlLocale().replace("-", "_") },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    { name: "twitter:image", content: image },
  ];
};

/** The Organization described for search engines (schema.org). */
function organization({ siteUrl, salesEmail, supportEmail, supportPhone }: Route.ComponentProps["loaderData"]) {
  return {
    "@context": "https://schema.org",
    "@type": "Organization",
    name: "Jumbe",
    url: `${siteUrl}/`,
    logo: `${siteUrl}/icon-512.png`,
    description: m.public_home_meta_description(),
    email: salesEmail,
    address: { "@type": "PostalAddress", addressLocality: "Nairobi", addressCountry: "KE" },
    areaServed: "Africa",
    contactPoint: [
      { "@type": "ContactPoint", contactType: "sales", email: salesEmail, areaServed: "KE", availableLanguage: ["en", "sw", "fr"] },
      {
        "@type": "ContactPoint",
        contactType: "customer support",
        email: supportEmail,
        telephone: supportPhone,
        areaServed: "KE",
        availableLanguage: ["en", "sw", "fr"],
      },
    ],
  };
}

export default function Home({ loaderData }: Route.ComponentProps) {
  const links = loaderData;
  return (
    <>
      <a
        href="#main"
        className="sr-only z-50 rounded-lg bg-white px-4 py-2 font-semibold text-brand-900 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        {m.public_skip_to_content()}
      </a>
      <div id="top" />
      <Navbar appUrl={links.appUrl} />
      <main id="main" tabIndex={-1} className="outline-none">
        <Hero appUrl={links.appUrl} salesEmail={links.salesEmail} />
        <ClientCarousel />
        <Solutions />
        <Features />
        <CaseStudies />
        <Pricing salesEmail={links.salesEmail} />
        <About />
        <Faq />
        <ClosingCta appUrl={links.appUrl} salesEmail={links.salesEmail} />
      </main>
      <Footer links={links} />
      <FloatingActions whatsappChatUrl={links.whatsappChatUrl} />
      <SentBubbleTemplate />
      <JsonLd data={organization(links)} />
    </>
  );
}
