import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, buildExists, DEMO, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";

// Issue 40: the console's pages answer a POST (or any method) from anyone but a platform administrator
// exactly as they answer a GET, 404, on the built server with Express in front; an administrator's
// POST to a page without an action gets a plain answer, not a crash.
const PAGES = ["/admin", "/admin/users", "/admin/billing", "/admin/whatsapp", "/admin/audit", "/admin/system", "/admin/templates"];

let server: BuiltServer;
beforeAll(async () => {
  if (!buildExists()) return;
  server = await startBuiltServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

function ask(path: string, method: string, cookie?: string, form = true) {
  const headers: Record<string, string> = { accept: "text/html" };
  if (cookie) headers.cookie = cookie;
  let body: string | undefined;
  if (method !== "GET" && method !== "HEAD") {
    headers.origin = server.base;
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    body = form ? "intent=anything" : "";
  }
  return fetch(`${server.base}${path}`, { method, headers, body, redirect: "manual" });
}

describe.skipIf(!buildExists())("the console's pages by every method (built server)", () => {
  it("answer a visitor and a member 404 by every method, as GET does", async () => {
    const member = await signInCookie(server, DEMO);
    for (const cookie of [undefined, member])
      for (const path of PAGES)
        for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"])
          for (const form of method === "GET" ? [true] : [true, false]) {
            const response = await ask(path, method, cookie, form);
            expect(response.status, `${cookie ? "member" : "visitor"} ${method} ${path}${form ? "" : " (no form)"}`).toBe(404);
          }
  });

  it("answer a visitor and a member 404 to a post that shows no origin (as curl sends), and keep refusing an administrator's", async () => {
    const member = await signInCookie(server, DEMO);
    const admin = await signInCookie(server, ADMIN);
    const crossOrigin = (cookie?: string) =>
      fetch(`${server.base}/admin/users`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
        body: "intent=edit",
        redirect: "manual",
      });
    expect((await crossOrigin()).status).toBe(404);
    expect((await crossOrigin(member)).status).toBe(404);
    const refused = await crossOrigin(admin);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe("Forbidden: cross-origin request refused.");
    const notForm = await ask("/admin/users", "POST", admin, false);
    expect(notForm.status).toBe(415);
    expect(await notForm.text()).toContain("Forms must be sent as");
  });

  it("answer an administrator's POST to a page without a form with the console's page, not a crash", async () => {
    const admin = await signInCookie(server, ADMIN);
    for (const path of PAGES) {
      const response = await ask(path, "POST", admin);
      expect([400, 405], path).toContain(response.status);
      const html = await response.text();
      expect(html, path).toContain("Admin console");
      expect(html, path).not.toContain("Something went wrong");
      if (response.status === 405) expect(html, path).toContain("This page does not take a form.");
    }
  });
});
