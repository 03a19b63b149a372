import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { loader as layoutLoader } from "~/routes/admin/layout";
import { action as notificationsAction, loader as notificationsLoader } from "~/routes/admin/notifications";
import { formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { nextMillisecond } from "../support/clock";

// Issue 19: the admin console's bell. Platform events (new sign-ups, disputes opened, failed jobs,
// open health alerts), newest first, unread after the administrator's admin_bell_seen_at; the header
// shows the newest few and the unread count, /admin/notifications all of them a page at a time, and
// "Mark all as read" (a plain POST) clears the count.

interface View {
  kind: string;
  id: string;
  title: string;
  detail: string | null;
  to: string;
  unread: boolean;
}
interface Layout {
  bell: { unread: number; events: View[] };
  alerts: { id: string; text: string }[];
}
interface Page {
  events: View[];
  newer: string | null;
  older: string | null;
}

async function signedIn(options: Parameters<typeof createVerifiedUser>[0] = {}) {
  const account = await createVerifiedUser(options);
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

const header = (cookie: string) => run<Layout>(layoutLoader, getRequest("/admin", { cookie }));
const page = (cookie: string, query = "") => run<Page>(notificationsLoader, getRequest(`/admin/notifications${query}`, { cookie }));
const markRead = (cookie: string, back?: string) =>
  run(notificationsAction, formRequest("/admin/notifications", { intent: "mark-read", ...(back ? { back } : {}) }, { cookie }));

async function dispute(organizationId: string, number: string, reason: string) {
  const [invoice] = await rawQuery<{ id: string }>(
    `insert into invoices (organization_id, number, series, kind, status, description, net_cents, vat_cents, total_cents,
                           prices_include_vat, seller, buyer, lines)
     values ($1, $2, 'INV', 'bank_transfer', 'disputed', 'Bank transfer', 100000, 16000, 116000, false, '{}', '{}', '[]') returning id`,
    [organizationId, number],
  );
  const [row] = await rawQuery<{ id: string }>(
    `insert into invoice_disputes (organization_id, invoice_id, reason, previous_status) values ($1, $2, $3, 'pending') returning id`,
    [organizationId, invoice!.id, reason],
  );
  return row!.id;
}

describe("the admin console's bell", () => {
  it("lists each kind of event newest first, counts the unread and marks all as read", async () => {
    const admin = await signedIn({ usertype: "admin", businessName: "Jumbe Platform" });
    // Whatever happened before this test is read.
    expect((await markRead(admin.cookie)).location).toBe("/admin/notifications");
    expect((await header(admin.cookie)).data.bell.unread).toBe(0);

    // Each event strictly later than the one before (the expected order is by time).
    const tenant = await createVerifiedUser({ businessName: "Baraka Dairy Farmers Sacco" });
    await nextMillisecond();
    const disputeId = await dispute(tenant.organization.id, "INV-2026-770031", "We were charged twice for October's subscription.");
    await nextMillisecond();
    await rawQuery(
      `insert into jobs (queue, payload, attempts, failed_at, last_error) values ('mail', '{}', 5, now(), 'SMTP refused: 550 mailbox unavailable')`,
    );
    await nextMillisecond();
    await rawQuery(
      `insert into system_alerts (rule, key, level, title, details) values ('queue_lag', 'webhooks', 'error', 'Webhook queue lag over 5 minutes', 'Oldest job waited 7 minutes')`,
    );

    const top = await header(admin.cookie);
    expect(top.status).toBe(200);
    expect(top.data.bell.unread).toBe(4);
    // The administrator's own organisation (the platform's) is no sign-up: nothing else is listed.
    expect(top.data.bell.events.map((e) => e.kind)).toEqual(["alert", "job", "dispute", "signup"]);
    expect(top.data.bell.events.slice(0, 4)).toEqual([
      expect.objectContaining({
        title: "Webhook queue lag over 5 minutes",
        detail: "Oldest job waited 7 minutes",
        to: "/admin/system",
        unread: true,
      }),
      expect.objectContaining({
        title: "Job failed in the mail queue",
        detail: "SMTP refused: 550 mailbox unavailable",
        to: "/admin/system",
        unread: true,
      }),
      expect.objectContaining({
        title: "Dispute opened on INV-2026-770031",
        detail: "Baraka Dairy Farmers Sacco: We were charged twice for October's subscription.",
        to: `/admin/billing/disputes/${disputeId}`,
        unread: true,
      }),
      expect.objectContaining({
        title: "New sign-up: Baraka Dairy Farmers Sacco",
        to: `/admin/users/${tenant.organization.id}`,
        unread: true,
      }),
    ]);
    expect(top.data.bell.events.map((e) => e.title)).not.toContain("New sign-up: Jumbe Platform");
    // The header's system status lists the open alerts (the System tab's rules raise them).
    expect(top.data.alerts).toEqual([expect.objectContaining({ level: "error", text: "Webhook queue lag over 5 minutes" })]);

    const all = await page(admin.cookie);
    expect(all.status).toBe(200);
    expect(all.data.events.filter((e) => e.unread).map((e) => e.kind)).toEqual(["alert", "job", "dispute", "signup"]);

    // Resolved alerts leave the bell.
    await rawQuery(`update system_alerts set resolved_at = now() where rule = 'queue_lag'`);
    expect((await header(admin.cookie)).data.bell.unread).toBe(3);

    // Mark all as read, from a console page: back to it, nothing unread.
    const marked = await markRead(admin.cookie, "/admin/billing?status=overdue");
    expect(marked.status).toBe(302);
    expect(marked.location).toBe("/admin/billing?status=overdue");
    const after = await header(admin.cookie);
    expect(after.data.bell.unread).toBe(0);
    expect(after.data.bell.events.every((e) => !e.unread)).toBe(true);
    // A new sign-up after that is unread again.
    await createVerifiedUser({ businessName: "Kisumu Lakeside Traders" });
    const again = await header(admin.cookie);
    expect(again.data.bell.unread).toBe(1);
    expect(again.data.bell.events[0]).toMatchObject({ title: "New sign-up: Kisumu Lakeside Traders", unread: true });
    // Another administrator's count is their own.
    const other = await signedIn({ usertype: "admin" });
    expect((await header(other.cookie)).data.bell.unread).toBeGreaterThan(1);
  });

  it("counts at most 9+ and pages through every event without gaps or repeats", async () => {
    const admin = await signedIn({ usertype: "admin" });
    await markRead(admin.cookie);
    // One after another, each strictly later (PGlite's clock counts whole milliseconds: two sign-ups
    // in one would be ordered by their random ids).
    for (let i = 0; i < 30; i += 1) {
      await nextMillisecond();
      await createVerifiedUser({ businessName: `Tumaini Group ${i}` });
    }
    expect((await header(admin.cookie)).data.bell.unread).toBe(10);

    const first = await page(admin.cookie);
    expect(first.data.events).toHaveLength(25);
    expect(first.data.newer).toBeNull();
    expect(first.data.older).toBeTruthy();
    expect(first.data.events.slice(0, 3).map((e) => e.title)).toEqual([
      "New sign-up: Tumaini Group 29",
      "New sign-up: Tumaini Group 28",
      "New sign-up: Tumaini Group 27",
    ]);
    const second = await page(admin.cookie, `?after=${encodeURIComponent(first.data.older!)}`);
    expect(second.data.events[0]!.title).toBe("New sign-up: Tumaini Group 4");
    const firstIds = new Set(first.data.events.map((e) => e.id));
    expect(second.data.events.some((e) => firstIds.has(e.id))).toBe(false);
    expect(second.data.newer).toBeTruthy();
    // Back to the newer page: the same 25 as the first.
    const back = await page(admin.cookie, `?before=${encodeURIComponent(second.data.newer!)}`);
    expect(back.data.events.map((e) => e.id)).toEqual(first.data.events.map((e) => e.id));
    expect(back.data.newer).toBeNull();
    // A cursor that is not one is the first page.
    const junk = await page(admin.cookie, "?after=yesterday%7Csignup%7Cx");
    expect(junk.status).toBe(200);
    expect(junk.data.events.map((e) => e.id)).toEqual(first.data.events.map((e) => e.id));
  });

  it("never leaves the console on return, refuses an unknown intent and is not found for anybody else", async () => {
    const admin = await signedIn({ usertype: "admin" });
    for (const back of ["https://evil.example/admin", "//evil.example/admin", "/billing", "/admin\\@evil"]) {
      expect((await markRead(admin.cookie, back)).location, back).toBe("/admin/notifications");
    }
    const unknown = await run(notificationsAction, formRequest("/admin/notifications", { intent: "delete-all" }, { cookie: admin.cookie }));
    expect(unknown.status).toBe(400);

    const owner = await signedIn({ businessName: "Duka la Mama Ltd" });
    expect((await page(owner.cookie)).status).toBe(404);
    expect((await run(notificationsLoader, getRequest("/admin/notifications"))).status).toBe(404);
    expect((await markRead(owner.cookie)).status).toBe(404);
    const [row] = await rawQuery<{ admin_bell_seen_at: Date | null }>(`select admin_bell_seen_at from users where id = $1`, [
      owner.user.id,
    ]);
    expect(row!.admin_bell_seen_at).toBeNull();
  });
});
