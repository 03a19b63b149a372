/** The web app manifest: installable with the SVG favicon, a maskable icon and PNG fallbacks. */
export function loader() {
  const manifest = {
    name: "Jumbe",
    short_name: "Jumbe",
    description: "WhatsApp Business messaging for organisations in Kenya and across Africa.",
    lang: "en",
    start_url: "/",
    scope: "/",
    display: "standalone",
    theme_color: "#059669",
    background_color: "#ffffff",
    icons: [
      { src: "/favicon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
      { src: "/icon-maskable.svg", sizes: "any", type: "image/svg+xml", purpose: "maskable" },
      { src: "/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
    ],
  };
  return new Response(JSON.stringify(manifest), {
    headers: { "Content-Type": "application/manifest+json; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
