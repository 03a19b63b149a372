import { siteConfig } from "~/.server/domains/marketing/site";
import { addressIn } from "~/lib/alternates";
import { locales } from "~/paraglide/runtime";

/** The public pages, as absolute URLs on the public site. */
const PAGES = [
  { path: "/", changefreq: "weekly", priority: "1.0" },
  { path: "/privacy-policy", changefreq: "yearly", priority: "0.3" },
  { path: "/terms-of-service", changefreq: "yearly", priority: "0.3" },
  { path: "/login", changefreq: "yearly", priority: "0.5" },
  { path: "/signup", changefreq: "yearly", priority: "0.7" },
];

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function loader() {
  const { siteUrl } = siteConfig();
  // Every page in each language (issue 43): its own entry, each naming all of them (Google's hreflang in sitemaps).
  const urls = PAGES.flatMap((page) => {
    const url = siteUrl + page.path;
    const alternates = [
      ...locales.map((locale) => `    <xhtml:link rel="alternate" hreflang="${locale}" href="${escapeXml(addressIn(url, locale))}"/>`),
      `    <xhtml:link rel="alternate" hreflang="x-default" href="${escapeXml(url)}"/>`,
    ].join("\n");
    return locales.map(
      (locale) =>
        `  <url>\n    <loc>${escapeXml(addressIn(url, locale))}</loc>\n${alternates}\n    <changefreq>${page.changefreq}</changefreq>\n    <priority>${page.priority}</priority>\n  </url>`,
    );
  });
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${urls.join("\n")}\n</urlset>\n`;
  return new Response(body, { headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" } });
}
