import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { NOT_FOUND_TEXT } from "~/components/ui/not-found";
import { allowedMethods } from "~/.server/infrastructure/http/methods";

// Issue 39: the admin console answers anyone but a platform administrator with the product's own
// Not Found page and status 404 (decision 037), never the crash screen, whatever the method, and
// robots.txt does not name it. Pages name no decision record, issue or code path.

const ID = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
const CONSOLE_PAGES = [
  "/admin",
  "/admin/users",
  `/admin/users/${ID}`,
  "/admin/billing",
  `/admin/billing/invoices/${ID}`,
  "/admin/audit",
  // No such console page: the same answer, so no address says whether it exists.
  "/admin/no-such-page",
  "/admin/users/export.csv/x",
];
const CONSOLE_FILES = ["/admin/export.csv", "/admin/users/export.csv", `/admin/billing/invoices/${ID}/pdf`];

function ask(path: string, method: string, cookie?: string) {
  const headers = new Headers({ accept: "text/html,application/xhtml+xml", "sec-fetch-mode": "navigate", "user-agent": "vitest" });
  if (cookie) headers.set("cookie", cookie);
  let body: URLSearchParams | undefined;
  if (method === "POST" || method === "PUT" || method === "DELETE") {
    headers.set("origin", APP);
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams({ intent: "anything" });
  }
  return appFetch(new Request(`${APP}${path}`, { method, headers, body }));
}

async function member() {
  const account = await createVerifiedUser({ businessName: "Duka la Mama Ltd" });
  return signedInCookie(account.email, account.password);
}

describe("the admin console to anyone but a platform administrator", () => {
  it("is the product's Not Found page with status 404, for a visitor and a member, by every method", async () => {
    const cookies = { visitor: undefined, member: await member() };
    for (const [who, cookie] of Object.entries(cookies))
      for (const path of CONSOLE_PAGES)
        for (const method of ["GET", "POST", "PUT", "DELETE"]) {
          const response = await ask(path, method, cookie);
          const label = `${who} ${method} ${path}`;
          expect(response.status, label).toBe(404);
          const html = await response.text();
          expect(html, label).toContain(NOT_FOUND_TEXT.title);
          expect(html, label).toContain("Go to the home page");
          expect(html, label).not.toContain("Something went wrong");
          expect(html, label).not.toContain("Internal Server Error");
        }
  });

  it("answers HEAD, React Router's .data requests and the console's downloads with 404 too", async () => {
    const cookie = await member();
    for (const path of CONSOLE_PAGES) {
      const head = await ask(path, "HEAD", cookie);
      expect(head.status, `HEAD ${path}`).toBe(404);
      const data = path === "/admin" ? "/admin.data" : `${path}.data`;
      const fetched = await appFetch(new Request(`${APP}${data}`, { headers: { cookie, "user-agent": "vitest" } }));
      expect(fetched.status, `GET ${data}`).toBe(404);
      const posted = await ask(data, "POST", cookie);
      expect(posted.status, `POST ${data}`).toBe(404);
    }
    for (const path of CONSOLE_FILES)
      for (const method of ["GET", "POST"]) {
        const response = await ask(path, method, cookie);
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(await response.text(), `${method} ${path}`).not.toContain("Something went wrong");
      }
  });

  it("reaches the console's guard by every method on the server, where other pages answer 405", () => {
    // The server's method check (Express, before React Router): the route lookup says whether a path takes posts.
    const check = allowedMethods({ exempt: () => false, routes: (path) => ({ action: !path.endsWith(".csv") }) });
    const outcome = (method: string, path: string) => {
      let answered: number | "next" = "next";
      const res = {
        locals: {},
        headersSent: false,
        status: (s: number) => ((answered = s), res),
        set: () => res,
        type: () => res,
        send: () => res,
        json: () => res,
        end: () => res,
      };
      check({ method, path, headers: {}, get: () => undefined } as never, res as never, () => {});
      return answered;
    };
    for (const method of ["POST", "PUT", "PATCH", "DELETE"])
      for (const path of ["/admin", "/admin.data", "/admin/users", "/admin/users.data", "/admin/users/export.csv"])
        expect(outcome(method, path), `${method} ${path}`).toBe("next");
    expect(outcome("PUT", "/dashboard")).toBe(405);
    expect(outcome("POST", "/messaging/contacts/export.csv")).toBe(405);
    expect(outcome("TRACE", "/admin")).toBe(405);
    expect(outcome("PUT", "/administrators")).toBe(405);
  });

  it("refuses an administrator's request by a method other than GET, HEAD or POST", async () => {
    const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const cookie = await signedInCookie(account.email, account.password);
    for (const method of ["PUT", "DELETE"]) {
      const response = await ask("/admin/users", method, cookie);
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow"), method).toBe("GET, HEAD, POST");
      expect(await response.text(), method).toBe("Method not allowed.");
    }
  });

  it("answers an administrator's unknown console address with the Not Found page too", async () => {
    const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const cookie = await signedInCookie(account.email, account.password);
    for (const method of ["GET", "POST"]) {
      const response = await ask("/admin/no-such-page", method, cookie);
      expect(response.status, method).toBe(404);
      expect(await response.text(), method).toContain(NOT_FOUND_TEXT.title);
    }
  });

  it("is still the console for a platform administrator", async () => {
    const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const response = await ask("/admin", "GET", await signedInCookie(account.email, account.password));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toContain(NOT_FOUND_TEXT.title);
    expect(html).toContain("Revenue metrics");
    expect(html).not.toMatch(INTERNAL_WORDS);
  });
});

/** What a reader of a page should never meet: the project's own records and files. */
const INTERNAL_WORDS = /\b(decision|issue) \d{2,3}\b|docs\/decisions|app\/\.server|\bTODO\b|\bFIXME\b/i;

describe("the pages' words", () => {
  it("name no decision record, issue, code path or to-do outside the code's comments", () => {
    const root = path.resolve(import.meta.dirname, "../../app");
    const files = ["routes", "components"].flatMap((dir) =>
      readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".tsx") && !file.includes(".test."))
        .map((file) => path.join(root, dir, file)),
    );
    expect(files.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const file of files) {
      // Comments (JSX ones too) and import lines are for developers; everything else may reach a page.
      const code = readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/(^|[^:"'`])\/\/.*$/gm, "$1")
        .replace(/^import .*$/gm, "");
      for (const line of code.split("\n")) if (INTERNAL_WORDS.test(line)) found.push(`${path.relative(root, file)}: ${line.trim()}`);
    }
    expect(found).toEqual([]);
  });
});

describe("robots.txt", () => {
  it("does not name the admin console", async () => {
    const response = await appFetch(new Request(`${APP}/robots.txt`));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("Disallow: /api/");
    expect(text).not.toMatch(/admin/i);
  });
});
