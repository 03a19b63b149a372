import { describe, expect, it } from "vitest";
import { UNAVAILABLE_MESSAGE } from "../db/availability";
import { STORAGE_UNAVAILABLE_MESSAGE } from "../storage/types";
import { outagePage } from "./database-unavailable";
import { errorPage } from "./error-page";

// The outage pages (decisions 011 and 161) in the visitor's language, found without the database:
// `?lng=`, the language cookie, the browser's Accept-Language. The API's answers keep the English.

const request = (url: string, headers: Record<string, string> = {}) => ({ originalUrl: url, url, headers });

describe("the outage page", () => {
  it("speaks the browser's language, or the visitor's chosen one over it, or English", () => {
    expect(outagePage(request("/dashboard", { "accept-language": "sw-KE,sw;q=0.9" }), { what: "database" })).toEqual({
      lang: "sw",
      title: "Huduma haipatikani kwa muda",
      message: "Huduma haipatikani kwa muda: hifadhidata haifikiki. Tafadhali jaribu tena baada ya sekunde chache.",
      home: "Nenda Jumbe",
    });
    expect(outagePage(request("/chat/1", { "accept-language": "sw", cookie: "lng=fr" }), { what: "files" })).toMatchObject({
      lang: "fr",
      message:
        "Fichiers temporairement indisponibles : le stockage des fichiers est injoignable. Veuillez réessayer dans quelques secondes.",
    });
    expect(outagePage(request("/contacts?lng=sw"), { what: "files" }).lang).toBe("sw");
  });

  it("in English says what the API's answers say", () => {
    expect(outagePage(request("/"), { what: "database" })).toMatchObject({ lang: "en", message: UNAVAILABLE_MESSAGE });
    expect(outagePage(request("/"), { what: "files" })).toMatchObject({ lang: "en", message: STORAGE_UNAVAILABLE_MESSAGE });
  });

  it("is rendered with its language on the page and its words escaped", () => {
    const html = errorPage(503, "ignored", "n0nce", { lang: "fr", title: "Titre <b>", message: "Texte & suite", home: "Aller sur Jumbe" });
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('<h1>Titre &#60;b&#62;</h1><p>Texte &#38; suite</p><a href="/">Aller sur Jumbe</a>');
    expect(errorPage(503, "Plain English.")).toContain('<html lang="en">');
  });
});
