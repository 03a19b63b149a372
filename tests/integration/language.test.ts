import { describe, expect, it } from "vitest";
import { APP } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";

// Issue 43, decision 071: the language a person reads, chosen with ?lng=, the switcher's cookie or the
// browser's languages, and the switcher's form (a plain post: the same without JavaScript).

function page(path: string, headers: Record<string, string> = {}) {
  return appFetch(new Request(`${APP}${path}`, { headers: { accept: "text/html", "sec-fetch-mode": "navigate", ...headers } }));
}

function choose(fields: Record<string, string>, cookie?: string) {
  return appFetch(
    new Request(`${APP}/language`, {
      method: "POST",
      headers: { origin: APP, "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields),
    }),
  );
}

const langOf = async (response: Response) => /<html lang="([^"]*)"/.exec(await response.text())?.[1];

describe("the language of a page", () => {
  it("is English unless asked: ?lng= first, then the cookie, then Accept-Language", async () => {
    expect(await langOf(await page("/login"))).toBe("en");
    expect(await langOf(await page("/login", { cookie: "lng=sw" }))).toBe("sw");
    expect(await langOf(await page("/login?lng=fr", { cookie: "lng=sw" }))).toBe("fr");
    expect(await langOf(await page("/signup", { "accept-language": "fr-CI,fr;q=0.9,en;q=0.5" }))).toBe("fr");
    expect(await langOf(await page("/signup?lng=de", { cookie: "lng=xx", "accept-language": "es" }))).toBe("en");
  });

  it("names the switcher in the page's language on the public site, with the current one chosen", async () => {
    const html = await (await page("/", { cookie: "lng=sw" })).text();
    expect(html).toContain(">Lugha ya kuonyesha</label>");
    expect(html).toMatch(/<option value="sw" lang="sw" selected="">Kiswahili<\/option>/);
    expect(html).toMatch(/<form [^>]*action="\/language" method="post">/);
    expect(html).toContain('name="redirectTo" value="/"');
  });

  it("is the member's choice inside the app too: the user menu carries the switcher", async () => {
    const account = await createVerifiedUser({ businessName: "Soko Huru Traders" });
    const cookie = await signedInCookie(account.email, account.password);
    const response = await page("/dashboard", { cookie: `${cookie}; lng=fr` });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<html lang="fr"');
    expect(html).toContain(">Langue d&#x27;affichage</label>");
    expect(html).toContain('name="redirectTo" value="/dashboard"');
  });
});

describe("the switcher's form", () => {
  it("keeps the choice a year and goes back to the page, without a ?lng= that would outvote it", async () => {
    const response = await choose({ locale: "sw", redirectTo: "/login?lng=fr&from=%2Fdashboard" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/login?from=%2Fdashboard");
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^lng=sw; Path=\/; Max-Age=31536000; HttpOnly; SameSite=Lax/);
    expect(await langOf(await page("/login?from=%2Fdashboard", { cookie: "lng=sw" }))).toBe("sw");
  });

  it("refuses a language it does not speak with a 400 that keeps nothing, and never leaves the site", async () => {
    const unknown = await choose({ locale: "de", redirectTo: "/signup" });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toBe("Choose English, Kiswahili or Français.");
    expect(unknown.headers.get("set-cookie")).toBeNull();
    const inSwahili = await choose({ locale: "xx", redirectTo: "/" }, "lng=sw");
    expect(await inSwahili.text()).toBe("Chagua English, Kiswahili au Français.");
    for (const elsewhere of ["https://evil.example/", "//evil.example", "/\\evil.example", ""]) {
      const away = await choose({ locale: "fr", redirectTo: elsewhere });
      expect(away.headers.get("location")).toBe("/");
    }
    const missing = await choose({});
    expect(missing.status).toBe(400);
    expect(missing.headers.get("set-cookie")).toBeNull();
  });

  it("answers a GET by going home", async () => {
    const response = await page("/language");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/");
  });
});
