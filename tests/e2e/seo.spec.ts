import { test, expect } from "./fixtures";

// Search and sharing for the public site: meta tags, structured data, robots.txt, sitemap.xml,
// the web app manifest and the favicon. SITE_URL defaults to APP_URL, the test server itself.
const siteUrl = () => test.info().project.use.baseURL!;

test("/ has a title, description, canonical URL, Open Graph and Twitter cards", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveTitle(/Jumbe/);
  const head = page.locator("head");
  const meta = (selector: string) => head.locator(selector).getAttribute("content");

  const description = await meta('meta[name="description"]');
  expect(description?.length ?? 0).toBeGreaterThan(50);
  expect(description!.length).toBeLessThanOrEqual(200);
  await expect(head.locator('link[rel="canonical"]')).toHaveAttribute("href", `${siteUrl()}/`);
  await expect(head.locator('meta[name="viewport"]')).toHaveCount(1);

  expect(await meta('meta[property="og:type"]')).toBe("website");
  expect(await meta('meta[property="og:title"]')).toBe(await page.title());
  expect(await meta('meta[property="og:description"]')).toBe(description);
  expect(await meta('meta[property="og:url"]')).toBe(`${siteUrl()}/`);
  expect(await meta('meta[property="og:site_name"]')).toBe("Jumbe");
  const ogImage = await meta('meta[property="og:image"]');
  expect(ogImage).toMatch(new RegExp(`^${siteUrl()}/`));

  expect(await meta('meta[name="twitter:card"]')).toBe("summary_large_image");
  expect(await meta('meta[name="twitter:title"]')).toBe(await page.title());
  expect(await meta('meta[name="twitter:description"]')).toBe(description);
  expect(await meta('meta[name="twitter:image"]')).toBe(ogImage);

  // The share image exists and is an image.
  const image = await page.request.get(ogImage!.replace(siteUrl(), ""));
  expect(image.status()).toBe(200);
  expect(image.headers()["content-type"]).toMatch(/^image\//);
});

test("/ describes the organisation in JSON-LD", async ({ page }) => {
  await page.goto("/");
  const blocks = await page.locator('script[type="application/ld+json"]').allTextContents();
  expect(blocks.length).toBeGreaterThan(0);
  const data = blocks.map((text) => JSON.parse(text) as Record<string, unknown>);
  const organization = data.find((d) => d["@type"] === "Organization");
  expect(organization).toBeTruthy();
  expect(organization).toMatchObject({ "@context": "https://schema.org", name: "Jumbe", url: `${siteUrl()}/`, email: "sales@jumbe.co.ke" });
  expect(String(organization!.logo)).toMatch(new RegExp(`^${siteUrl()}/`));
});

test("the favicon and the manifest are linked from the page and served", async ({ page, request }) => {
  await page.goto("/");
  await expect(page.locator('head link[rel="icon"]')).toHaveAttribute("href", "/favicon.svg");
  await expect(page.locator('head link[rel="manifest"]')).toHaveAttribute("href", "/manifest.webmanifest");

  const favicon = await request.get("/favicon.svg");
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()["content-type"]).toContain("image/svg+xml");
  expect(await favicon.text()).toContain("<svg");
});

test("/manifest.webmanifest is a web app manifest with icons", async ({ request }) => {
  const response = await request.get("/manifest.webmanifest");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("application/manifest+json");
  const manifest = (await response.json()) as {
    name: string;
    short_name: string;
    start_url: string;
    display: string;
    theme_color: string;
    background_color: string;
    icons: { src: string; type: string; purpose?: string; sizes: string }[];
  };
  expect(manifest).toMatchObject({ name: "Jumbe", short_name: "Jumbe", start_url: "/", display: "standalone", theme_color: "#059669" });
  expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
  expect(manifest.icons.some((icon) => icon.src === "/favicon.svg" && icon.type === "image/svg+xml")).toBe(true);
  expect(manifest.icons.some((icon) => icon.purpose?.split(" ").includes("maskable"))).toBe(true);
  for (const icon of manifest.icons) {
    const file = await request.get(icon.src);
    expect(file.status(), icon.src).toBe(200);
    expect(file.headers()["content-type"], icon.src).toContain(icon.type);
  }
});

test("/robots.txt allows the public site, keeps crawlers out of the app and names the sitemap", async ({ request }) => {
  const response = await request.get("/robots.txt");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("text/plain");
  const lines = (await response.text()).split("\n").map((line) => line.trim());
  expect(lines).toContain("User-agent: *");
  expect(lines).toContain("Allow: /");
  for (const path of ["/sandbox/", "/api/", "/dashboard"]) expect(lines).toContain(`Disallow: ${path}`);
  // The admin console is not named: to anyone but an administrator its addresses are 404 like any other.
  expect(lines.some((line) => line.includes("admin"))).toBe(false);
  expect(lines).not.toContain("Disallow: /");
  expect(lines.some((line) => /^Disallow: \/(login|signup|privacy-policy|terms-of-service)\b/.test(line))).toBe(false);
  expect(lines).toContain(`Sitemap: ${siteUrl()}/sitemap.xml`);
});

test("/sitemap.xml is valid XML listing the public pages with absolute URLs", async ({ page, request }) => {
  const response = await request.get("/sitemap.xml");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("xml");
  const xml = await response.text();
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);

  // Parse it with the browser's XML parser: a parse error comes back as a <parsererror> document.
  const parsed = await page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, "application/xml");
    return {
      error: doc.getElementsByTagName("parsererror").length > 0,
      root: doc.documentElement.localName,
      ns: doc.documentElement.namespaceURI,
      locs: [...doc.getElementsByTagNameNS("http://www.sitemaps.org/schemas/sitemap/0.9", "loc")].map((loc) => loc.textContent),
      alternates: [...doc.getElementsByTagNameNS("http://www.w3.org/1999/xhtml", "link")].map(
        (link) => `${link.getAttribute("hreflang")} ${link.getAttribute("href")}`,
      ),
    };
  }, xml);
  expect(parsed.error).toBe(false);
  expect(parsed.root).toBe("urlset");
  expect(parsed.ns).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
  // Each page in each language (issue 43), every entry naming the three and the default.
  const pages = ["/", "/login", "/privacy-policy", "/signup", "/terms-of-service"].map((p) => `${siteUrl()}${p}`);
  expect(parsed.locs.sort()).toEqual(pages.flatMap((url) => [url, `${url}?lng=sw`, `${url}?lng=fr`]).sort());
  expect(parsed.alternates.filter((alternate) => alternate.endsWith("/terms-of-service?lng=fr"))).toEqual(
    Array(3).fill(`fr ${siteUrl()}/terms-of-service?lng=fr`),
  );
  expect(parsed.alternates).toContain(`x-default ${siteUrl()}/`);
});

test("the public pages name their other languages for search engines, and their own as canonical", async ({ page }) => {
  await page.goto("/terms-of-service?lng=sw");
  const head = page.locator("head");
  await expect(head.locator('link[rel="canonical"]')).toHaveAttribute("href", `${siteUrl()}/terms-of-service?lng=sw`);
  for (const [lang, href] of <[string, string][]>[
    ["en", `${siteUrl()}/terms-of-service`],
    ["sw", `${siteUrl()}/terms-of-service?lng=sw`],
    ["fr", `${siteUrl()}/terms-of-service?lng=fr`],
    ["x-default", `${siteUrl()}/terms-of-service`],
  ])
    await expect(head.locator(`link[rel="alternate"][hreflang="${lang}"]`)).toHaveAttribute("href", href);
  await page.goto("/");
  await expect(head.locator('link[rel="alternate"][hreflang="fr"]')).toHaveAttribute("href", `${siteUrl()}/?lng=fr`);
});
