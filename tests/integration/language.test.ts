import { describe, expect, it } from "vitest";
import { APP } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";

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

describe("a member's saved language", () => {
  it("is kept on the account by the switcher and wins over the device's cookie and languages; a link's ?lng= still wins", async () => {
    const account = await createVerifiedUser({ businessName: "Mama Mboga Supplies" });
    const cookie = await signedInCookie(account.email, account.password);
    const chosen = await choose({ locale: "sw", redirectTo: "/dashboard" }, cookie);
    expect(chosen.status).toBe(302);
    const [row] = await db().select({ locale: users.locale }).from(users).where(eq(users.id, account.user.id));
    expect(row?.locale).toBe("sw");
    // Another device: its own cookie says French, its browser English; the account says Swahili.
    expect(await langOf(await page("/dashboard", { cookie: `${cookie}; lng=fr`, "accept-language": "en" }))).toBe("sw");
    expect(await langOf(await page("/billing", { cookie }))).toBe("sw");
    expect(await langOf(await page("/dashboard?lng=fr", { cookie }))).toBe("fr");
    // Signed out, the device's own choice.
    expect(await langOf(await page("/login", { cookie: "lng=fr" }))).toBe("fr");
  });

  it("is not written for a visitor, nor for a language the product does not speak", async () => {
    const account = await createVerifiedUser({ businessName: "Kisumu Fish Mongers" });
    const cookie = await signedInCookie(account.email, account.password);
    await choose({ locale: "de", redirectTo: "/dashboard" }, cookie);
    const [row] = await db().select({ locale: users.locale }).from(users).where(eq(users.id, account.user.id));
    expect(row?.locale).toBeNull();
    expect((await choose({ locale: "fr", redirectTo: "/" })).status).toBe(302);
  });

  it("leaves the JSON API in English whatever the person chose (its codes are stable, its messages English)", async () => {
    const response = await appFetch(new Request(`${APP}/api/auth/me`, { headers: { cookie: "lng=sw", "accept-language": "sw" } }));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { message: string }).message).toBe("Unauthorized: Please log in.");
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
