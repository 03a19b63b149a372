import { siteConfig } from "~/.server/domains/marketing/site";

/**
 * Everything public may be crawled; the signed-in app, the API and the sandboxes may not. The admin
 * console is not named: its addresses say nothing about themselves (404 to anyone but an administrator).
 */
const DISALLOW = [
  "/sandbox/",
  "/api/",
  "/dashboard",
  "/get-started",
  "/profile",
  "/change-password",
  "/preferences/",
  "/verify-otp",
  "/reset-password",
  "/logout",
  "/unauthorized",
];

export function loader() {
  const { siteUrl } = siteConfig();
  const body = [
    "User-agent: *",
    "Allow: /",
    ...DISALLOW.map((path) => `Disallow: ${path}`),
    "",
    `Sitemap: ${siteUrl}/sitemap.xml`,
    "",
  ].join("\n");
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" } });
}
