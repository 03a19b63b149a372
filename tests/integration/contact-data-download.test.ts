import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { saveContact } from "~/.server/domains/contacts/manage";
import { APP, formRequest } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";

// Issue 39: "Download their data" on a contact's page (the Data Protection Act's right of access)
// hands the browser a JSON file, with or without JavaScript: the page links to a resource route
// that answers the file as an attachment, logs the read, and keeps to the permission table and the
// organisation's own contacts.

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  return { organizationId: account.organization.id, userId: account.user.id, cookie };
}

/** A browser following a link (no JavaScript needed), or a script's fetch. */
function open(path: string, cookie: string, asking: "navigation" | "script" = "navigation") {
  const headers = new Headers({ cookie, "user-agent": "vitest" });
  if (asking === "navigation") {
    headers.set("accept", "text/html,application/xhtml+xml");
    headers.set("sec-fetch-mode", "navigate");
  } else headers.set("accept", "*/*");
  return appFetch(new Request(`${APP}${path}`, { headers }));
}

async function juma(t: { organizationId: string; userId: string }) {
  const { contact } = await saveContact(
    t,
    { name: "Juma Kiprop", phone: "0712 200 001" },
    { consent: { status: "opted_in", source: "form", evidence: "signed up at the branch" } },
  );
  return contact;
}

describe("Download their data", () => {
  it("is a link on the contact's page to the file, which works without JavaScript", async () => {
    const t = await tenant("Rights Page Ltd");
    const contact = await juma(t);
    const page = await open(`/messaging/contacts/${contact.id}`, t.cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    const link = /<a [^>]*href="([^"]+)"[^>]*>(?:(?!<\/a>).)*Download their data/s.exec(html);
    expect(link?.[1]).toBe(`/messaging/contacts/${contact.id}/data.json`);
    expect(link?.[0]).toContain(" download");
  });

  it("answers the contact's data as a JSON attachment, and logs the download", async () => {
    const t = await tenant("Rights Download Ltd");
    const contact = await juma(t);
    const response = await open(`/messaging/contacts/${contact.id}/data.json`, t.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="contact-${contact.id}.json"`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const file = JSON.parse(await response.text());
    expect(file.profile).toMatchObject({ id: contact.id, name: "Juma Kiprop", phone: "+254712200001" });
    expect(file.consent).toMatchObject([{ status: "opted_in", evidence: "signed up at the branch" }]);
    const logged = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and action = 'Contact data downloaded'`,
      [t.organizationId],
    );
    expect(logged).toHaveLength(1);
    expect(logged[0]!.details).toContain(contact.id);
    expect(logged[0]!.details).not.toContain("Juma");
  });

  it("answers 404 for another organisation's contact, and logs nothing", async () => {
    const owner = await tenant("Rights Owner Ltd");
    const contact = await juma(owner);
    const stranger = await tenant("Rights Stranger Ltd");
    for (const asking of ["navigation", "script"] as const) {
      const response = await open(`/messaging/contacts/${contact.id}/data.json`, stranger.cookie, asking);
      expect(response.status, asking).toBe(404);
      expect(await response.text(), asking).not.toContain("Juma");
    }
    expect(
      await rawQuery(`select 1 from activity_logs where organization_id = $1 and action = 'Contact data downloaded'`, [
        stranger.organizationId,
      ]),
    ).toEqual([]);
  });

  it("is refused to a role without contacts:manage (a viewer), and to a visitor", async () => {
    const t = await tenant("Rights Viewer Ltd");
    const contact = await juma(t);
    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [t.userId]);
    const path = `/messaging/contacts/${contact.id}/data.json`;
    const opened = await open(path, t.cookie);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe("/unauthorized");
    const fetched = await open(path, t.cookie, "script");
    expect(fetched.status).toBe(403);
    expect(await fetched.text()).not.toContain("Juma");
    const visitor = await open(path, "");
    expect(visitor.status).toBe(302);
    expect(visitor.headers.get("location")).toBe(`/login?from=${encodeURIComponent(`/messaging/contacts/${contact.id}`)}`);
    // A viewer's page has no link to it.
    const page = await (await open(`/messaging/contacts/${contact.id}`, t.cookie)).text();
    expect(page).not.toContain("Download their data");
    expect(
      await rawQuery(`select 1 from activity_logs where organization_id = $1 and action = 'Contact data downloaded'`, [t.organizationId]),
    ).toEqual([]);
  });

  it("takes no posts: the file is read with GET", async () => {
    const t = await tenant("Rights Post Ltd");
    const contact = await juma(t);
    const response = await appFetch(formRequest(`/messaging/contacts/${contact.id}/data.json`, {}, { cookie: t.cookie }));
    expect(response.status).toBe(405);
  });
});
