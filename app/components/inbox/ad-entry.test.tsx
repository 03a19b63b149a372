import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { AdEntry } from "./ad-entry";

// The conversation header's line about the ad a customer came from and Meta's free entry window.

const NOW = "2026-11-30T08:00:00.000Z";
const AD = { headline: "Maji safi kwa nyumba yako", body: "Bei ya leo", sourceUrl: "https://fb.me/abc", picture: null };
const text = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&#x27;/g, "'");

describe("AdEntry", () => {
  it("names the ad, links to it away from Jumbe, and says how long messages stay free", () => {
    const html = renderToStaticMarkup(<AdEntry ad={AD} freeEntryUntil="2026-12-03T07:40:00.000Z" now={NOW} />);
    expect(text(html)).toBe("From ad: Maji safi kwa nyumba yako · Ad's free entry window: messages free for 71 h 40 min");
    expect(html).toContain('href="https://fb.me/abc"');
    expect(html).toContain('rel="noopener noreferrer"');
    expect(html).toContain('title="Bei ya leo"');
  });

  it("says an ad without a headline or a link plainly, and drops an ended window", () => {
    const html = renderToStaticMarkup(
      <AdEntry ad={{ ...AD, headline: null, sourceUrl: null }} freeEntryUntil="2026-11-30T07:59:00.000Z" now={NOW} />,
    );
    expect(text(html)).toBe("From an ad");
    expect(html).not.toContain("href");
  });

  it("shows nothing for a conversation that did not come from an ad", () => {
    expect(renderToStaticMarkup(<AdEntry ad={null} freeEntryUntil={null} now={NOW} />)).toBe("");
  });
});
