import { describe, expect, it } from "vitest";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest } from "../support/http";
import { appFetch } from "../support/in-process-app";

// Issue 43: the activity log is stored in English (an audit record; the API and the export give it
// so) and read in the reader's language: signing in writes "Signed in", "Browser session", which a
// Swahili reader sees on the Overview's Recent Activity and on /activity in Swahili.

async function signedIn(businessName: string) {
  const account = await createVerifiedUser({ businessName });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function html(path: string, cookie: string) {
  const response = await appFetch(getRequest(path, { cookie, headers: { accept: "text/html" } }));
  expect(response.status, path).toBe(200);
  return response.text();
}

/** The Overview's Recent Activity list, found by its heading. */
function recentActivityCard(page: string, heading: string) {
  const start = page.indexOf(`>${heading}</h2>`);
  expect(start, heading).toBeGreaterThan(-1);
  return page.slice(start, page.indexOf("</ul>", start));
}

describe("the activity log in the reader's language", () => {
  it("shows a sign-in in Swahili on the Overview and on /activity, and in English to an English reader", async () => {
    const t = await signedIn("Nyota Savings Sacco");

    const overview = await html("/dashboard", `${t.cookie}; lng=sw`);
    const recent = recentActivityCard(overview, "Shughuli za hivi karibuni");
    expect(recent).toContain("Kuingia kumefanikiwa");
    expect(recent).toContain("Hadi kivinjari kifungwe");
    expect(recent).not.toContain("Signed in");

    const log = await html("/activity?lng=sw", t.cookie);
    expect(log).toContain("Kuingia kumefanikiwa");
    expect(log).toContain("Hadi kivinjari kifungwe");
    expect(log).not.toMatch(/>Signed in\b/);

    const french = await html("/activity?lng=fr", t.cookie);
    expect(french).toContain("Connexion réussie");

    const english = await html("/activity", t.cookie);
    expect(english).toMatch(/>Signed in\b/);
    expect(english).toContain("Browser session");
  });

  it("keeps the API's records and the CSV export in English as stored, whatever the caller reads", async () => {
    const t = await signedIn("Duka la Mama Njeri");
    const api = await appFetch(getRequest("/api/activity-logs", { cookie: `${t.cookie}; lng=sw`, headers: { "accept-language": "sw" } }));
    expect(api.status).toBe(200);
    const body = (await api.json()) as { logs: { action: string; details: string }[] };
    expect(body.logs).toContainEqual(expect.objectContaining({ action: "Signed in", details: "Browser session" }));

    const csv = await appFetch(getRequest("/api/activity-logs/export?lng=sw", { cookie: `${t.cookie}; lng=sw` }));
    expect(csv.status).toBe(200);
    const text = await csv.text();
    expect(text).toContain("Signed in");
    expect(text).not.toContain("Kuingia kumefanikiwa");
  });
});
