import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { addressIn, languageLinks } from "./alternates";

describe("a public page's languages", () => {
  it("names each language's address, English first as the default, and the page's own as canonical", () => {
    expect(languageLinks("https://jumbe.co.ke/")).toEqual([
      { tagName: "link", rel: "canonical", href: "https://jumbe.co.ke/" },
      { tagName: "link", rel: "alternate", hrefLang: "en", href: "https://jumbe.co.ke/" },
      { tagName: "link", rel: "alternate", hrefLang: "sw", href: "https://jumbe.co.ke/?lng=sw" },
      { tagName: "link", rel: "alternate", hrefLang: "fr", href: "https://jumbe.co.ke/?lng=fr" },
      { tagName: "link", rel: "alternate", hrefLang: "x-default", href: "https://jumbe.co.ke/" },
    ]);
    expect(inLocale("sw", () => languageLinks("https://jumbe.co.ke/terms-of-service")[0])).toEqual({
      tagName: "link",
      rel: "canonical",
      href: "https://jumbe.co.ke/terms-of-service?lng=sw",
    });
    expect(addressIn("https://jumbe.co.ke/login?from=%2Fbilling", "fr")).toBe("https://jumbe.co.ke/login?from=%2Fbilling&lng=fr");
  });
});
