import { describe, expect, it } from "vitest";
import { chooseLocale, fromAcceptLanguage, localeOf, localeOfPath } from "./locale";

describe("the language a request is written in (decision 071)", () => {
  it("takes ?lng= first, then the visitor's cookie, then the browser's languages, else English", () => {
    expect(chooseLocale("fr", "sw", "en")).toBe("fr");
    expect(chooseLocale(null, "sw", "fr-CI")).toBe("sw");
    expect(chooseLocale(undefined, undefined, "fr-CI,fr;q=0.9")).toBe("fr");
    expect(chooseLocale(null, null, null)).toBe("en");
  });

  it("ignores a language it does not speak wherever it is named", () => {
    expect(chooseLocale("de", "xx", "es-ES")).toBe("en");
    expect(chooseLocale("SW", undefined, undefined)).toBe("en");
    expect(chooseLocale("", "", "")).toBe("en");
  });

  it("reads Accept-Language by its weights and primary tags: sw-KE is Swahili, fr-CI French", () => {
    expect(fromAcceptLanguage("sw-KE,sw;q=0.9,en;q=0.8")).toBe("sw");
    expect(fromAcceptLanguage("en-US,en;q=0.9,sw;q=0.95")).toBe("en");
    expect(fromAcceptLanguage("de-DE,fr;q=0.5,sw;q=0.7")).toBe("sw");
    expect(fromAcceptLanguage("FR-cd")).toBe("fr");
    expect(fromAcceptLanguage("sw;q=0,fr;q=0.1")).toBe("fr");
    expect(fromAcceptLanguage("*")).toBeUndefined();
    expect(fromAcceptLanguage("sw;q=abc")).toBeUndefined();
    expect(fromAcceptLanguage(null)).toBeUndefined();
    // A header of thousands of entries is read no further than its first 32.
    expect(fromAcceptLanguage(`${"de;q=0.1,".repeat(40)}fr`)).toBeUndefined();
  });

  it("reads a web request and the path and headers Express holds alike", () => {
    const request = new Request("https://jumbe.test/login?lng=sw", { headers: { cookie: "lng=fr", "accept-language": "en" } });
    expect(localeOf(request)).toBe("sw");
    expect(localeOf(new Request("https://jumbe.test/", { headers: { cookie: "a=%E0%A4%A; lng=fr" } }))).toBe("fr");
    expect(localeOfPath("/?lng=fr", "lng=sw", "en")).toBe("fr");
    expect(localeOfPath("/", "theme=dark; lng=sw", undefined)).toBe("sw");
    expect(localeOfPath("/", "lng=%E0%A4%A", "fr")).toBe("fr");
    expect(localeOfPath("/", undefined, undefined)).toBe("en");
  });
});
