import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { currentUser } from "~/.server/domains/auth/guards";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { loader as usersLoader } from "~/routes/admin/users";
import { loader as usersExport } from "~/routes/admin/users-export";
import { action as userAction, loader as userLoader } from "~/routes/admin/user";
import { SUSPENSION_HOLD_HOURS } from "~/.server/domains/admin/users/suspension";
import { USERS_PAGE_SIZE } from "~/.server/domains/admin/users/list";
import * as keyApi from "~/routes/api/developer.api-key";
import { nairobiDate } from "~/lib/dates";
import { foldAnalytics } from "~/.server/domains/analytics/fold";
import { APP, formRequest, getRequest, run } from "../support/http";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { dispatchBatch, drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { graphClient, type GraphClient } from "~/.server/infrastructure/clients/whatsapp-graph/graph-client";
import { metaSandboxForFile } from "../support/meta-harness";
import { acceptsPerMessage, approvedTemplate, metaReceived, queueTemplates, recipient, setBucketRate } from "../support/sending-kit";
import { queryRow, queryRows } from "~/.server/infrastructure/db/query";

// Issue 19, the Users tab: the table's figures, search, filters, sorting and pages; the detail
// view (404 for unknown ids and for non-admins); Edit User's validation; Suspend and Reactivate
// with step-up and their audit records; and the suspension taking effect at once everywhere,
// messages a worker had already claimed included.

const meta = metaSandboxForFile();

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function tenant(
  name: string,
  o: { plan?: string; status?: "active" | "pending" | "suspended"; phone?: string; email?: string } = {},
) {
  const account = await createVerifiedUser({ businessName: name, status: o.status, email: o.email });
  await db().execute(sql`update organizations set plan_type = ${o.plan ?? "Starter"} where id = ${account.organization.id}`);
  if (o.phone) await db().execute(sql`update users set phone_number = ${o.phone} where id = ${account.user.id}`);
  return { ...account, id: account.organization.id };
}

type Row = {
  id: string;
  businessName: string;
  status: string;
  plan: string;
  messagesUsed: number;
  revenueCents: number;
  lastActive: string | null;
};

const list = async (cookie: string, query = "") => run(usersLoader, getRequest(`/admin/users${query}`, { cookie }));
const names = (rows: Row[]) => rows.map((r) => r.businessName);

/** A loader or action of /admin/users/:id. */
const detail = (handler: typeof userLoader | typeof userAction, request: Request, id: string) =>
  run((args: Parameters<typeof userLoader>[0]) => handler({ ...args, params: { id } } as never), request);

async function auditOf(organizationId: string) {
  return (
    await queryRows<{ action: string; reason: string | null; before: unknown; after: unknown; admin_email: string }>(
      db(),
      sql`
      select action, reason, before, after, admin_email from admin_audit_log where organization_id = ${organizationId} order by id`,
    )
  ).map((r) => ({
    ...r,
    before: typeof r.before === "string" ? JSON.parse(r.before) : r.before,
    after: typeof r.after === "string" ? JSON.parse(r.after) : r.after,
  }));
}

async function statusOf(id: string) {
  const rows = await queryRows<{ status: string; suspended_at: unknown; suspension_reason: string | null }>(
    db(),
    sql`select status, suspended_at, suspension_reason from organizations where id = ${id}`,
  );
  return rows[0]!;
}

describe("the Users tab", () => {
  it("lists tenants with usage, revenue and last activity; counts by status and plan; not the platform's own organisation", async () => {
    const platform = await admin();
    const amani = await tenant("Amani Traders", { plan: "Growth" });
    await tenant("Baraka Foods", { plan: "Starter", status: "pending" });
    await tenant("Chai Sacco", { plan: "Enterprise", status: "suspended" });
    const today = nairobiDate(new Date());
    await db().execute(sql`update organizations set message_limit = 1000 where id = ${amani.id}`);
    // 1,200 messages of a 1,000 limit this month (the bar caps at 100%), and two completed payments (a pending one never counts).
    await db().execute(sql`
      insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
      values (${amani.id}, ${today}, '6101', 'utility', 700, 0), (${amani.id}, ${today}, '6101', 'marketing', 500, 0)`);
    await db().execute(sql`
      insert into payments (organization_id, method, status, amount_cents, completed_at) values
        (${amani.id}, 'mpesa', 'completed', 250000, now()), (${amani.id}, 'card', 'completed', 125050, now()),
        (${amani.id}, 'mpesa', 'pending', 999900, null)`);
    await db().execute(sql`
      insert into message_stats_pending (organization_id, hour, phone_number_id, category, sent)
      values (${amani.id}, date_trunc('hour', now()), '6101', 'utility', 3)`);
    await foldAnalytics();

    const page = await list(platform.cookie);
    expect(page.status).toBe(200);
    expect(page.data.counts.byStatus).toEqual({ active: 1, pending: 1, suspended: 1 });
    expect(page.data.counts.byPlan).toEqual({ Starter: 1, Growth: 1, Enterprise: 1 });
    // Newest first by default; the administrator's organisation is not a tenant.
    expect(names(page.data.rows)).toEqual(["Chai Sacco", "Baraka Foods", "Amani Traders"]);
    const row = page.data.rows.find((r: Row) => r.id === amani.id);
    expect(row).toMatchObject({
      plan: "Growth",
      status: "active",
      messagesUsed: 1200,
      // The Growth plan's limit (the price list), whatever the organisation was created with.
      messageLimit: 10000,
      revenueCents: 375050,
      lastActive: today,
    });
    expect(page.data.rows.find((r: Row) => r.businessName === "Baraka Foods").lastActive).toBeNull();
  });

  it("searches by business name, e-mail, phone and business id; filters by status and plan; sorts by link; pages", async () => {
    const platform = await admin();
    const amani = await tenant("Amani Traders", { plan: "Growth", phone: "+254712345678", email: "wanjiku@amani.co.ke" });
    await tenant("Baraka Foods", { plan: "Starter", status: "pending" });
    await tenant("Chai Sacco", { plan: "Growth", status: "suspended" });
    const businessId = (await queryRow<{ business_id: string }>(db(), sql`select business_id from organizations where id = ${amani.id}`))!
      .business_id;

    expect(names((await list(platform.cookie, "?q=baraka")).data.rows)).toEqual(["Baraka Foods"]);
    expect(names((await list(platform.cookie, "?q=WANJIKU%40amani")).data.rows)).toEqual(["Amani Traders"]);
    expect(names((await list(platform.cookie, "?q=0712%20345%20678")).data.rows)).toEqual(["Amani Traders"]);
    expect(names((await list(platform.cookie, `?q=${businessId}`)).data.rows)).toEqual(["Amani Traders"]);
    expect(names((await list(platform.cookie, "?q=no-such-business")).data.rows)).toEqual([]);
    expect(names((await list(platform.cookie, "?status=suspended")).data.rows)).toEqual(["Chai Sacco"]);
    expect(names((await list(platform.cookie, "?plan=Growth&sort=business&dir=asc")).data.rows)).toEqual(["Amani Traders", "Chai Sacco"]);
    expect(names((await list(platform.cookie, "?sort=business&dir=desc")).data.rows)).toEqual([
      "Chai Sacco",
      "Baraka Foods",
      "Amani Traders",
    ]);
    expect(names((await list(platform.cookie, "?sort=status&dir=asc")).data.rows)).toEqual(["Amani Traders", "Baraka Foods", "Chai Sacco"]);

    // A filter the page does not offer: 400 with the reason, the rest of the page as without it.
    const bad = await list(platform.cookie, "?status=deleted&plan=Gold&sort=revenue");
    expect(bad.status).toBe(400);
    expect(bad.data.problems).toEqual([
      "Choose a status from the list.",
      "Choose a plan from the list.",
      "Choose a column to sort by from the list.",
    ]);
    expect(bad.data.rows).toHaveLength(3);

    // 30 more tenants: 33 in pages of USERS_PAGE_SIZE (20).
    await db().execute(sql`
      insert into organizations (name, business_id, status, plan_type)
      select 'Kiosk ' || lpad(i::text, 2, '0'), 'BIZ-PAGE-' || i, 'active', 'Starter' from generate_series(1, 30) i`);
    const first = await list(platform.cookie, "?sort=business&dir=asc");
    expect(first.data).toMatchObject({ total: 33, page: 1, pages: 2 });
    expect(first.data.rows).toHaveLength(USERS_PAGE_SIZE);
    const second = await list(platform.cookie, "?sort=business&dir=asc&page=2");
    expect(second.data.rows).toHaveLength(33 - USERS_PAGE_SIZE);
    expect(names(second.data.rows).at(-1)).toBe("Kiosk 30");
    expect(new Set([...names(first.data.rows), ...names(second.data.rows)]).size).toBe(33);
    // The page as served: sorted by name, its pager says Previous and Next (never Newer and Older).
    const served = await appFetch(
      new Request(`${APP}/admin/users?sort=business&dir=asc`, { headers: { cookie: platform.cookie, "user-agent": "vitest" } }),
    );
    expect(served.status).toBe(200);
    const pager = (await served.text()).match(/<nav aria-label="Organisation pages".*?<\/nav>/s)?.[0] ?? "";
    expect(pager).toMatch(/<span aria-disabled="true"[^>]*>.*?Previous<\/span>/s);
    expect(pager).toMatch(/<a [^>]*href="\/admin\/users\?sort=business&amp;dir=asc&amp;page=2"[^>]*>Next\b/);
    expect(pager.replace(/<!-- -->/g, "")).toContain("Page 1 of 2");
    expect(pager).not.toMatch(/Newer|Older/);
    // Past the last page: the last page.
    expect((await list(platform.cookie, "?sort=business&dir=asc&page=9")).data.page).toBe(2);

    const csv = await run(
      usersExport,
      getRequest("/admin/users/export.csv?plan=Growth&sort=business&dir=asc", { cookie: platform.cookie }),
    );
    expect(csv.status).toBe(200);
    const lines = String(csv.data)
      .replace(/^\uFEFF/, "")
      .trim()
      .split(/\r?\n/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('"Amani Traders"');
    expect(lines[2]).toContain('"Chai Sacco"');
  });

  it("answers 404 to non-admins, and for an unknown, malformed or non-tenant id", async () => {
    const platform = await admin();
    const amani = await tenant("Amani Traders");
    const member = await signedInCookie(amani.email, amani.password);
    expect((await list(member)).status).toBe(404);
    expect((await detail(userLoader, getRequest(`/admin/users/${amani.id}`, { cookie: member }), amani.id)).status).toBe(404);
    expect((await run(usersExport, getRequest("/admin/users/export.csv", { cookie: member }))).status).toBe(404);
    const post = formRequest(`/admin/users/${amani.id}`, { intent: "suspend", reason: "Fraud" }, { cookie: member });
    expect((await detail(userAction, post, amani.id)).status).toBe(404);
    expect((await statusOf(amani.id)).status).toBe("active");

    const ok = await detail(userLoader, getRequest(`/admin/users/${amani.id}`, { cookie: platform.cookie }), amani.id);
    expect(ok.status).toBe(200);
    expect(ok.data.tenant).toMatchObject({ name: "Amani Traders", status: "active" });
    expect(ok.data.members).toHaveLength(1);
    for (const id of ["6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", "not-an-id", platform.organization.id])
      expect((await detail(userLoader, getRequest(`/admin/users/${id}`, { cookie: platform.cookie }), id)).status).toBe(404);
  });
});

describe("Edit User", () => {
  it("refuses bad input with clear messages and changes nothing; saves with an audit record of before and after", async () => {
    const platform = await admin();
    const amani = await tenant("Amani Traders", { plan: "Starter", email: "owner@amani.co.ke" });
    const other = await tenant("Baraka Foods", { email: "owner@baraka.co.ke" });
    const edit = (fields: Record<string, string>) =>
      detail(
        userAction,
        formRequest(`/admin/users/${amani.id}?dialog=edit`, { intent: "edit", ...fields }, { cookie: platform.cookie }),
        amani.id,
      );
    const valid = {
      plan: "Growth",
      status: "active",
      firstName: "Wanjiku",
      lastName: "Kamau",
      email: "owner@amani.co.ke",
      phone: "0712 345 678",
    };

    const bad = await edit({ ...valid, plan: "Gold", limitOverride: "lots", email: "not-an-address", phone: "12", firstName: " " });
    expect(bad.status).toBe(400);
    expect(bad.data.result.error).toEqual({
      plan: ["Choose Starter, Growth or Enterprise."],
      limitOverride: ["Give the message limit as a whole number of messages."],
      firstName: ["First name is required."],
      email: ["Enter an e-mail address like name@example.co.ke."],
      phone: ["Enter a phone number like 0712 345 678 or +254 712 345 678."],
    });
    expect((await edit({ ...valid, status: "suspended" })).status).toBe(400);
    const taken = await edit({ ...valid, email: other.email.toUpperCase() });
    expect(taken.status).toBe(409);
    expect(taken.data.result.error.email).toEqual(["Another account already uses this e-mail address."]);
    expect(await auditOf(amani.id)).toEqual([]);

    const saved = await edit(valid);
    expect(saved.status).toBe(302);
    const rows = await queryRows<Record<string, unknown>>(
      db(),
      sql`
      select o.plan_type, o.message_limit, u.first_name, u.phone_number from organizations o join users u on u.organization_id = o.id
      where o.id = ${amani.id}`,
    );
    expect(rows[0]).toEqual({ plan_type: "Growth", message_limit: 10000, first_name: "Wanjiku", phone_number: "+254712345678" });
    const [record] = await auditOf(amani.id);
    expect(record).toMatchObject({
      action: "organization.edit",
      admin_email: platform.email,
      before: { plan: "Starter", limitOverride: null, overrideReason: null, ownerName: "Test User", ownerPhone: null },
      after: { plan: "Growth", limitOverride: null, overrideReason: null, ownerName: "Wanjiku Kamau", ownerPhone: "+254712345678" },
    });
  });

  it("sets the limit from the plan's price list unless an override with its reason is given, and shows which", async () => {
    const platform = await admin();
    const amani = await tenant("Amani Traders", { plan: "Starter", email: "owner@amani.co.ke" });
    const edit = (fields: Record<string, string>) =>
      detail(
        userAction,
        formRequest(
          `/admin/users/${amani.id}?dialog=edit`,
          { intent: "edit", status: "active", firstName: "Test", lastName: "User", email: "owner@amani.co.ke", ...fields },
          { cookie: platform.cookie },
        ),
        amani.id,
      );
    const limitOf = async () =>
      (await queryRow<{ message_limit: number; message_limit_override: number | null; message_limit_override_reason: string | null }>(
        db(),
        sql`
          select message_limit, message_limit_override, message_limit_override_reason from organizations where id = ${amani.id}`,
      ))!;
    const shown = async () =>
      (await detail(userLoader, getRequest(`/admin/users/${amani.id}`, { cookie: platform.cookie }), amani.id)).data.tenant;

    // An override without its reason is refused, and nothing changes.
    const noReason = await edit({ plan: "Growth", limitOverride: "25,000", overrideReason: "  " });
    expect(noReason.status).toBe(400);
    expect(noReason.data.result.error).toEqual({
      overrideReason: ["Give the reason for overriding the plan's message limit, or leave the limit empty to follow the plan."],
    });
    expect(await limitOf()).toEqual({ message_limit: 1000, message_limit_override: null, message_limit_override_reason: null });

    // The plan alone sets the limit.
    expect((await edit({ plan: "Enterprise", limitOverride: "" })).status).toBe(302);
    expect(await limitOf()).toEqual({ message_limit: 100000, message_limit_override: null, message_limit_override_reason: null });
    expect(await shown()).toMatchObject({ messageLimit: 100000, planMessageLimit: 100000, limitOverride: null });

    // An override with its reason wins over the plan, is shown as such, and is recorded.
    const reason = "Black Friday campaign agreed with sales";
    expect((await edit({ plan: "Growth", limitOverride: "25,000", overrideReason: reason })).status).toBe(302);
    expect(await limitOf()).toEqual({ message_limit: 25000, message_limit_override: 25000, message_limit_override_reason: reason });
    expect(await shown()).toMatchObject({ messageLimit: 25000, planMessageLimit: 10000, limitOverride: { messages: 25000, reason } });
    const record = (await auditOf(amani.id)).at(-1);
    expect(record).toMatchObject({ after: { plan: "Growth", limitOverride: 25000, overrideReason: reason } });

    // Writing the limit directly does not escape the rule; clearing the override returns to the plan's.
    await db().execute(sql`update organizations set message_limit = 7 where id = ${amani.id}`);
    expect((await limitOf()).message_limit).toBe(25000);
    expect((await edit({ plan: "Growth", limitOverride: "", overrideReason: reason })).status).toBe(302);
    expect(await limitOf()).toEqual({ message_limit: 10000, message_limit_override: null, message_limit_override_reason: null });
  });

  it("follows the plan when an organisation is created or changes plan or billing type", async () => {
    const created = (await queryRow<{ id: string; message_limit: number }>(
      db(),
      sql`
        insert into organizations (name, business_id, plan_type, billing_type) values ('Kisumu Fresh', 'JMB-KISUMU01', 'Enterprise', 'prepaid')
        returning id, message_limit`,
    ))!;
    expect(created.message_limit).toBe(100000);
    const after = (await queryRow<{ message_limit: number }>(
      db(),
      sql`
        update organizations set plan_type = 'Growth', billing_type = 'postpaid' where id = ${created.id} returning message_limit`,
    ))!;
    expect(after.message_limit).toBe(10000);
  });
});

describe("Suspend User and Reactivate", () => {
  async function sendingCampaign(organizationId: string) {
    await connectedNumber(organizationId, { wabaId: "5101", phoneNumberId: "6101", display: "+254 700 100 200" });
    const [campaign] = await queryRows<{ id: string }>(
      db(),
      sql`
        insert into campaigns (organization_id, name, status, phone_number_id, template_name, template_language, template_category,
                               parameters, audience, started_at)
        values (${organizationId}, 'Black Friday', 'sending', '6101', 'black_friday', 'en', 'MARKETING', '{"body":[]}', '{}', now())
        returning id`,
    );
    const [paused] = await queryRows<{ id: string }>(
      db(),
      sql`
        insert into campaigns (organization_id, name, status, phone_number_id, template_name, template_language, template_category,
                               parameters, audience, started_at, paused_by)
        values (${organizationId}, 'Paused by a member', 'paused', '6101', 'black_friday', 'en', 'MARKETING', '{"body":[]}', '{}', now(), null)
        returning id`,
    );
    await db().execute(sql`
      insert into messages (organization_id, direction, status, body, phone_number_id, campaign_id, recipient_phone, next_attempt_at)
      values (${organizationId}, 'outbound', 'queued', 'Habari', '6101', ${campaign!.id}, '254712000001', now())`);
    return { campaignId: campaign!.id, memberPausedId: paused!.id };
  }

  const campaignState = async (id: string) =>
    (await queryRow<{ status: string; paused_reason: string | null; held: boolean | null }>(
      db(),
      sql`
        select c.status, c.paused_reason, (select bool_and(m.next_attempt_at = 'infinity') from messages m where m.campaign_id = c.id) as held
        from campaigns c where c.id = ${id}`,
    ))!;

  it("takes effect at once everywhere: sessions end, the API key is refused, campaigns pause and hold; reactivating undoes it", async () => {
    const platform = await admin();
    const amani = await tenant("Amani Traders");
    const memberCookie = await signedInCookie(amani.email, amani.password);
    const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie: memberCookie }))).data.key as string;
    const account = () => handleApiV1(new Request(`${APP}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } }));
    expect((await account()).status).toBe(200);
    const { campaignId, memberPausedId } = await sendingCampaign(amani.id);

    const suspend = formRequest(
      `/admin/users/${amani.id}?dialog=suspend`,
      { intent: "suspend", reason: "Chargebacks on card payments" },
      { cookie: platform.cookie },
    );
    const done = await detail(userAction, suspend, amani.id);
    expect(done.status).toBe(302);
    expect(done.location).toBe(`/admin/users/${amani.id}`);
    expect(await statusOf(amani.id)).toMatchObject({ status: "suspended", suspension_reason: "Chargebacks on card payments" });
    expect((await statusOf(amani.id)).suspended_at).not.toBeNull();
    // The member's cookie no longer signs anyone in; the API key answers 403 account_suspended (decision 052).
    expect(await currentUser({ request: getRequest("/dashboard", { cookie: memberCookie }), context: undefined })).toBeNull();
    expect((await account()).status).toBe(403);
    expect(await campaignState(campaignId)).toEqual({ status: "paused", paused_reason: "suspended", held: true });
    expect(await campaignState(memberPausedId)).toMatchObject({ status: "paused", paused_reason: null });
    const page = await detail(userLoader, getRequest(`/admin/users/${amani.id}`, { cookie: platform.cookie }), amani.id);
    expect(page.data.tenant).toMatchObject({ status: "suspended", suspensionReason: "Chargebacks on card payments" });
    expect((await list(platform.cookie, "?status=suspended")).data.rows.map((r: Row) => r.id)).toEqual([amani.id]);

    // Suspending twice is refused; Reactivate needs a reason too.
    expect(
      (
        await detail(
          userAction,
          formRequest(`/admin/users/${amani.id}`, { intent: "suspend", reason: "Again" }, { cookie: platform.cookie }),
          amani.id,
        )
      ).status,
    ).toBe(409);
    const noReason = await detail(
      userAction,
      formRequest(`/admin/users/${amani.id}`, { intent: "reactivate", reason: "  " }, { cookie: platform.cookie }),
      amani.id,
    );
    expect(noReason.status).toBe(400);
    expect(noReason.data.result.error.reason).toEqual(["Give the reason."]);

    const back = await detail(
      userAction,
      formRequest(
        `/admin/users/${amani.id}?dialog=reactivate`,
        { intent: "reactivate", reason: "Chargebacks settled" },
        { cookie: platform.cookie },
      ),
      amani.id,
    );
    expect(back.status).toBe(302);
    expect(await statusOf(amani.id)).toEqual({ status: "active", suspended_at: null, suspension_reason: null });
    expect(await campaignState(campaignId)).toEqual({ status: "sending", paused_reason: null, held: false });
    expect(await campaignState(memberPausedId)).toMatchObject({ status: "paused" });
    expect((await account()).status).toBe(200);
    // Signing in works again (the old session stays ended).
    expect(await currentUser({ request: getRequest("/dashboard", { cookie: memberCookie }), context: undefined })).toBeNull();
    expect(
      await currentUser({
        request: getRequest("/dashboard", { cookie: await signedInCookie(amani.email, amani.password) }),
        context: undefined,
      }),
    ).not.toBeNull();

    const records = await auditOf(amani.id);
    expect(records.map((r) => [r.action, r.reason])).toEqual([
      ["organization.suspend", "Chargebacks on card payments"],
      ["organization.reactivate", "Chargebacks settled"],
    ]);
    expect(records[0]).toMatchObject({
      before: { status: "active" },
      after: { status: "suspended", sessionsEnded: 1, campaignsPaused: 1 },
    });
    expect(records[1]).toMatchObject({
      before: { status: "suspended", suspensionReason: "Chargebacks on card payments" },
      after: { status: "active" },
    });
  });

  it("asks a stale session to confirm: refused without the field or with a wrong password, nothing changed; done with the right one", async () => {
    const platform = await admin();
    const amani = await tenant("Amani Traders");
    await db().execute(sql`update sessions set confirmed_at = now() - interval '11 minutes' where user_id = ${platform.user.id}`);
    const page = await detail(userLoader, getRequest(`/admin/users/${amani.id}?dialog=suspend`, { cookie: platform.cookie }), amani.id);
    expect(page.data.stepUpNeeded).toBe(true);
    const suspend = (extra: Record<string, string>) =>
      detail(
        userAction,
        formRequest(
          `/admin/users/${amani.id}?dialog=suspend`,
          { intent: "suspend", reason: "Spam reports", ...extra },
          { cookie: platform.cookie },
        ),
        amani.id,
      );

    const missing = await suspend({});
    expect(missing.status).toBe(400);
    expect(missing.data.result.error.confirmation).toEqual([
      "Confirm it is you: enter your password (or a code from your authenticator app).",
    ]);
    const wrong = await suspend({ confirmation: "not my password" });
    expect(wrong.status).toBe(400);
    expect(wrong.data.result.error.confirmation).toEqual(["That password or code is not right."]);
    expect((await statusOf(amani.id)).status).toBe("active");
    expect(await auditOf(amani.id)).toEqual([]);

    expect((await suspend({ confirmation: platform.password })).status).toBe(302);
    expect((await statusOf(amani.id)).status).toBe("suspended");
    // Confirmed now: the next destructive action within 10 minutes needs nothing.
    const back = await detail(
      userAction,
      formRequest(`/admin/users/${amani.id}`, { intent: "reactivate", reason: "Reviewed" }, { cookie: platform.cookie }),
      amani.id,
    );
    expect(back.status).toBe(302);
    expect((await auditOf(amani.id)).map((r) => r.action)).toEqual(["organization.suspend", "organization.reactivate"]);
  });
});

describe("a suspension reaches the messages already on their way", () => {
  async function connectedTenant(name: string) {
    const t = await tenant(name);
    const { wabaId, phoneNumberId } = await meta.graph.connect(t.id, name);
    await approvedTemplate(meta.graph, { organizationId: t.id, wabaId, phoneNumberId });
    await setBucketRate(phoneNumberId, 1000);
    return { ...t, phoneNumberId };
  }
  const adminAction = async (cookie: string, id: string, intent: "suspend" | "reactivate", reason: string) =>
    (await detail(userAction, formRequest(`/admin/users/${id}`, { intent, reason }, { cookie }), id)).status;
  const states = (ids: string[]) =>
    rawQuery<{
      id: string;
      status: string;
      accepted: boolean;
      failed: boolean;
      claimed: boolean;
      held: boolean;
      attempts: number;
      charge_state: string;
    }>(
      `select id, status, charge_state, accepted_at is not null as accepted, failed_at is not null as failed, locked_until is not null as claimed,
              next_attempt_at = 'infinity' as held, attempts
       from messages where id = any($1::uuid[]) order by seq`,
      [ids],
    );

  it("holds what a worker claimed before the suspension committed, at the last moment before Meta; reactivating sends each once", async () => {
    const platform = await admin();
    const t = await connectedTenant("Amani Traders");
    const ids = await queueTemplates(
      t.id,
      Array.from({ length: 70 }, (_, i) => recipient(500 + i)),
    );
    // Every other message is a running campaign's: the suspension pauses it, reactivating resumes it.
    const [campaign] = await rawQuery<{ id: string }>(
      `insert into campaigns (organization_id, name, status, phone_number_id, template_name, template_language, template_category,
                              parameters, audience, started_at)
       values ($1, 'Black Friday', 'sending', $2, 'payment_received', 'en', 'UTILITY', '{"body":[]}', '{}', now()) returning id`,
      [t.id, t.phoneNumberId],
    );
    const inCampaign = ids.filter((_, i) => i % 2 === 1);
    await rawQuery(`update messages set campaign_id = $1 where id = any($2::uuid[])`, [campaign!.id, inCampaign]);

    // The administrator suspends the organisation while the batch's first round of calls to Meta is
    // on its way (those calls passed the check before it and go out: they were already in flight);
    // all 70 are claimed by then, and the calls that had not started yet must not go.
    const real = graphClient();
    let suspension: Promise<void> | undefined;
    const suspending: GraphClient = Object.assign(Object.create(real) as GraphClient, {
      sendMessage: async (...args: Parameters<GraphClient["sendMessage"]>) => {
        suspension ??= adminAction(platform.cookie, t.id, "suspend", "Spam reports from recipients").then((status) => {
          expect(status).toBe(302);
        });
        await suspension;
        return real.sendMessage(...args);
      },
    });
    const before = await states(ids);
    expect((await dispatchBatch(suspending)).claimed).toBe(70);
    expect(suspension).toBeDefined();

    const after = await states(ids);
    const sentIds = after.filter((m) => m.accepted).map((m) => m.id);
    const held = after.filter((m) => !m.accepted);
    expect(held.length).toBeGreaterThan(0);
    // Held as the suspension holds the rest: still queued, unclaimed, untried, never due, never failed.
    for (const m of held) expect(m).toMatchObject({ status: "queued", failed: false, claimed: false, held: true, attempts: 0 });
    expect(held.some((m) => inCampaign.includes(m.id)) && held.some((m) => !inCampaign.includes(m.id))).toBe(true);
    const received = await metaReceived(meta.graph, t.phoneNumberId);
    expect(received.map((m) => m.callbackData).sort()).toEqual([...sentIds].sort());
    // Nor charged: their price stays as it was when they were queued.
    const queuedCharge = new Map(before.map((m) => [m.id, m.charge_state]));
    for (const m of held) expect(m.charge_state).toBe(queuedCharge.get(m.id));
    expect(after.filter((m) => m.accepted).every((m) => ["charged", "counted"].includes(m.charge_state))).toBe(true);

    // Nothing more leaves while it is suspended.
    await drainDispatcher();
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(sentIds.length);
    expect((await states(held.map((m) => m.id))).every((m) => m.held && !m.failed)).toBe(true);

    // Reactivated: the held messages, in campaigns and outside them, go once each.
    expect(await adminAction(platform.cookie, t.id, "reactivate", "Recipients' reports reviewed")).toBe(302);
    await drainDispatcher();
    const all = await metaReceived(meta.graph, t.phoneNumberId);
    expect(all).toHaveLength(70);
    expect([...acceptsPerMessage(all).values()].every((n) => n === 1)).toBe(true);
    expect((await states(ids)).every((m) => m.accepted && !m.failed)).toBe(true);
  });

  it("holds messages queued before the suspension that no worker had taken yet, outside campaigns too", async () => {
    const platform = await admin();
    const t = await connectedTenant("Baraka Hardware");
    const [queued] = await queueTemplates(t.id, [recipient(600)]);
    expect(await adminAction(platform.cookie, t.id, "suspend", "Unpaid invoices")).toBe(302);
    await drainDispatcher();
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toEqual([]);
    expect(await states([queued!])).toMatchObject([{ status: "queued", failed: false, claimed: false, held: true, attempts: 0 }]);

    expect(await adminAction(platform.cookie, t.id, "reactivate", "Invoices paid")).toBe(302);
    await drainDispatcher();
    expect((await metaReceived(meta.graph, t.phoneNumberId)).map((m) => m.callbackData)).toEqual([queued]);
  });

  it(`fails instead of sending late a message outside a campaign that waited out more than ${SUSPENSION_HOLD_HOURS} hours of suspension`, async () => {
    const platform = await admin();
    const t = await connectedTenant("Kendu Bay Traders");
    const [old, recent] = await queueTemplates(t.id, [recipient(610), recipient(611)]);
    expect(await adminAction(platform.cookie, t.id, "suspend", "Under review")).toBe(302);
    await drainDispatcher();
    // The first was queued more than a day before the reactivation; the second an hour before.
    await db().execute(
      sql`update messages set created_at = now() - make_interval(hours => ${SUSPENSION_HOLD_HOURS + 1}) where id = ${old!}`,
    );
    expect(await adminAction(platform.cookie, t.id, "reactivate", "Review done")).toBe(302);
    await drainDispatcher();
    expect((await metaReceived(meta.graph, t.phoneNumberId)).map((m) => m.callbackData)).toEqual([recent]);
    const [row] = await rawQuery<{ status: string; error_title: string; error_details: string }>(
      `select status, error_title, error_details from messages where id = $1`,
      [old!],
    );
    expect(row).toEqual({
      status: "failed",
      error_title: "organization_suspended",
      error_details: `Not sent: the organisation was suspended, and the message waited more than ${SUSPENSION_HOLD_HOURS} hours.`,
    });
  });
});
