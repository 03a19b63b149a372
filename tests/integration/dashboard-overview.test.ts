import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import { loader as dashboardLoader } from "~/routes/app/dashboard";
import { loader as getStartedLoader } from "~/routes/app/get-started";
import { accountStatus, overviewFigures } from "~/.server/domains/dashboard/progress";
import { nairobiToday } from "~/lib/analytics";
import { nairobiMidnight } from "~/lib/dates";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { appFetch } from "../support/in-process-app";
import { foldAll, HOUR, MINUTE } from "../support/analytics-history";

// Issue 18: the Overview's four cards from real data, and the Get Started steps a tenant has done.

async function signedIn(businessName: string) {
  const account = await createVerifiedUser({ businessName });
  return { ...account, organizationId: account.organization.id, cookie: await signedInCookie(account.email, account.password) };
}

async function contact(organizationId: string, phone: string) {
  const [row] = await rawQuery<{ id: string }>(
    `insert into contacts (organization_id, name, phone) values ($1, 'Mteja', $2) returning id`,
    [organizationId, phone],
  );
  return row!.id;
}

const message = (organizationId: string, contactId: string, direction: "inbound" | "outbound", at: Date) =>
  rawQuery(
    direction === "outbound"
      ? `insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, accepted_at, source)
         values ($1, $2, 'outbound', 'sent', 'Habari', '418000000000101', $3, 'api')`
      : `insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, sent_at)
         values ($1, $2, 'inbound', 'received', 'Asante', '418000000000101', $3)`,
    [organizationId, contactId, at.toISOString()],
  );

describe("the Overview's cards", () => {
  it("counts this month's sent messages, contacts of the last 30 days and approved templates, each tenant its own", async () => {
    const now = new Date();
    const monthStart = nairobiMidnight(`${nairobiToday(now).slice(0, 8)}01`);
    const a = await signedIn("Nyota Savings Sacco");
    const b = await signedIn("Duka la Mama Njeri");
    const recent = await contact(a.organizationId, "+254711000001");
    const old = await contact(a.organizationId, "+254711000002");
    const other = await contact(b.organizationId, "+254711000001");
    // Sent this month (one second after its first Nairobi midnight, and now), and one before it.
    await message(a.organizationId, recent, "outbound", new Date(monthStart.getTime() + 1000));
    await message(a.organizationId, recent, "outbound", new Date(now.getTime() - MINUTE));
    await message(a.organizationId, recent, "outbound", new Date(monthStart.getTime() - 1000));
    // As the plan's charges counted them: two on this month's days, one on the last day before it.
    await db().execute(sql`
      insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents) values
        (${a.organizationId}, ${nairobiToday(new Date(monthStart.getTime() + 1000))}::date, '', 'utility', 1, 200),
        (${a.organizationId}, ${nairobiToday(now)}::date, '6101', 'utility', 1, 200),
        (${a.organizationId}, ${nairobiToday(new Date(monthStart.getTime() - 1000))}::date, '', 'utility', 1, 200)
      on conflict (organization_id, day, phone_number_id, category) do update set messages = billing_usage_daily.messages + 1`);
    // The old contact last wrote 31 days ago; the other tenant's contact today.
    await message(a.organizationId, old, "inbound", new Date(now.getTime() - 31 * 24 * HOUR));
    await message(b.organizationId, other, "inbound", new Date(now.getTime() - HOUR));
    await db()
      .insert(messageTemplates)
      .values(
        (["approved", "approved", "pending", "rejected"] as const).map((status, i) => ({
          organizationId: a.organizationId,
          name: `mkopo_${i}`,
          category: "UTILITY" as const,
          language: "sw",
          status,
          components: [{ type: "BODY", text: "Habari" }],
        })),
      );
    await foldAll();

    const page = await run(dashboardLoader, getRequest("/dashboard", { cookie: a.cookie }));
    // Sent: the two of this month, not the one a second before it. Active: the recent contact, not the one of 31 days ago.
    expect(page.data.overview).toMatchObject({
      messagesSent: 2,
      activeContacts: 1,
      templatesApproved: 2,
      templatesTotal: 4,
      accountStatus: "Setup",
      progress: { whatsapp: false, templates: true, contacts: true, campaign: false, results: false },
    });
    const others = await run(dashboardLoader, getRequest("/dashboard", { cookie: b.cookie }));
    expect(others.data.overview).toMatchObject({ messagesSent: 0, activeContacts: 1, templatesApproved: 0, templatesTotal: 0 });
  });

  it("reads Setup until a number is connected and a template approved, then Active, and Suspended when the platform suspends", async () => {
    const a = await signedIn("Nyota Savings Sacco");
    expect(accountStatus(await overviewFigures(a.organizationId))).toBe("Setup");
    await connectedNumber(a.organizationId, { wabaId: "318000000000101", phoneNumberId: "418000000000101", display: "+254 711 800 101" });
    expect(accountStatus(await overviewFigures(a.organizationId))).toBe("Setup");
    await db()
      .insert(messageTemplates)
      .values({
        organizationId: a.organizationId,
        name: "karibu",
        category: "UTILITY",
        language: "en",
        status: "approved",
        components: [{ type: "BODY", text: "Karibu" }],
      });
    expect((await run(dashboardLoader, getRequest("/dashboard", { cookie: a.cookie }))).data.overview.accountStatus).toBe("Active");
    await rawQuery(`update organizations set status = 'suspended' where id = $1`, [a.organizationId]);
    expect(accountStatus(await overviewFigures(a.organizationId))).toBe("Suspended");
  });

  it("shows on Get Started which steps the tenant has done", async () => {
    const a = await signedIn("Nyota Savings Sacco");
    const before = await run(getStartedLoader, getRequest("/get-started", { cookie: a.cookie }));
    expect(before.data.progress).toEqual({ whatsapp: false, templates: false, contacts: false, campaign: false, results: false });
    await connectedNumber(a.organizationId, { wabaId: "318000000000102", phoneNumberId: "418000000000102", display: "+254 711 800 102" });
    const person = await contact(a.organizationId, "+254711000009");
    await rawQuery(
      `insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, accepted_at, delivered_at, source)
       values ($1, $2, 'outbound', 'delivered', 'Habari', '418000000000102', now() - interval '5 minutes', now(), 'api')`,
      [a.organizationId, person],
    );
    await foldAll();
    const after = await run(getStartedLoader, getRequest("/get-started?step=2", { cookie: a.cookie }));
    expect(after.data.progress).toEqual({ whatsapp: true, templates: false, contacts: true, campaign: false, results: true });
  });
});

// Issue 39: "Manage Contacts" opened the Message Center's Campaigns tab, and "Send Message" a
// campaign's list. They open the Contacts tab and a new conversation (where one person is written to).
describe("the Overview's quick actions", () => {
  /** The Quick Actions card's links, label → href, as the server renders them. */
  async function quickActions(cookie: string) {
    const response = await appFetch(getRequest("/dashboard", { cookie, headers: { accept: "text/html" } }));
    expect(response.status).toBe(200);
    const html = await response.text();
    const start = html.indexOf(">Quick Actions</h2>");
    expect(start).toBeGreaterThan(-1);
    const card = html.slice(start, html.indexOf(">Recent Activity</h2>", start));
    return Object.fromEntries(
      [...card.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].map(([, href, inner]) => [
        inner!.replace(/<[^>]+>/g, "").trim(),
        href,
      ]),
    );
  }

  it("sends Manage Contacts to the Contacts tab and Send Message to a new conversation, for the roles that can use them", async () => {
    const owner = await signedIn("Nyota Savings Sacco");
    expect(await quickActions(owner.cookie)).toEqual({
      "Send Message": "/chat/new",
      "Manage Contacts": "/messaging/contacts",
      "Create Template": "/templates",
      "View Analytics": "/analytics",
    });
    const agent = await signedIn("Duka la Mama Njeri");
    await rawQuery(`update users set org_role = 'agent' where id = $1`, [agent.user.id]);
    expect(await quickActions(agent.cookie)).toEqual({
      "Send Message": "/chat/new",
      "Manage Contacts": "/messaging/contacts",
      "View Analytics": "/analytics",
    });
    // A viewer answers nobody and changes no contact: only the figures.
    await rawQuery(`update users set org_role = 'viewer' where id = $1`, [agent.user.id]);
    expect(await quickActions(agent.cookie)).toEqual({ "View Analytics": "/analytics" });
  });
});
