import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { changeStaff } from "~/.server/domains/admin/staff/staff";
import { signIn } from "~/.server/domains/auth/signin";
import { action as settlementsAction } from "~/routes/app/revenue-share/settlements";
import { action as invitationAction } from "~/routes/auth/invitation";
import { Refusal } from "~/.server/infrastructure/refusal";
import { roleOf } from "~/lib/permissions";
import { appFetch } from "../support/in-process-app";
import { APP, cookieHeader, formRequest, run } from "../support/http";
import { createVerifiedUser, latestMailTo, META, signedInCookie } from "../support/accounts";

/**
 * Issue 74: payouts above the maker-checker threshold need a second administrator, and there was no
 * way to add one. The console's Staff tab (decision 112): owners invite staff by e-mail with a role,
 * change roles, suspend and reactivate, with the step-up and an audit record each; staff set up
 * two-factor sign-in first; finance approves a payout another staff member asked for; support opens
 * no money page and posts no money action; the console keeps an active owner.
 */
registerJobHandlers();

async function staff(platformRole: "owner" | "finance" | "support", businessName = "Jumbe Platform") {
  const account = await createVerifiedUser({ usertype: "admin", platformRole, businessName });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

/** A page as a browser opens it. */
const open = (path: string, cookie: string) =>
  appFetch(new Request(`${APP}${path}`, { headers: { cookie, accept: "text/html", "sec-fetch-mode": "navigate" } }));

/** A form posted as a browser without JavaScript posts it (through the console's middleware). */
async function post(path: string, cookie: string, fields: Record<string, string>) {
  const response = await appFetch(
    new Request(`${APP}${path}`, {
      method: "POST",
      headers: {
        cookie,
        origin: APP,
        accept: "text/html",
        "sec-fetch-mode": "navigate",
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": "vitest",
      },
      body: new URLSearchParams(fields),
    }),
  );
  return { status: response.status, location: response.headers.get("location"), html: await response.text() };
}

const audit = async (action: string) =>
  rawQuery<{ admin_email: string; target_type: string; before: unknown; after: unknown }>(
    `select admin_email, target_type, before, after from admin_audit_log where action = $1 order by id`,
    [action],
  );

const stale = (userId: string) => rawQuery(`update sessions set confirmed_at = now() - interval '11 minutes' where user_id = $1`, [userId]);

async function settlement(netCents: number) {
  const owner = await createVerifiedUser({ businessName: "Coast Integrators" });
  const [partner] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
     values ($1, $2, 'Coast Integrators', 'Agency', 'active', 1500, 'mpesa', '254712345678', 'P051234567Q', now()) returning id`,
    [owner.organization.id, `STF${Math.floor(Math.random() * 1e9)}`],
  );
  const [row] = await rawQuery<{ id: string }>(
    `insert into partner_settlements (partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps, withholding_cents, net_cents, carried_out_cents, payable_cents, payout_method)
     values ($1, '2026-10-01', 4, $2::bigint * 10, $2::bigint + 7500, 500, 7500, $2, 0, $2, 'mpesa') returning id`,
    [partner!.id, netCents],
  );
  return row!.id;
}

const payouts = async (settlementId: string) =>
  rawQuery<{ status: string; requested_by: string; approved_by: string | null }>(
    `select status, requested_by, approved_by from partner_payouts where settlement_id = $1 order by attempt`,
    [settlementId],
  );

describe("the console's staff", () => {
  it("an owner invites finance staff by e-mail; they join as platform staff, set up two-factor first, and see Billing but not Staff", async () => {
    const owner = await staff("owner");
    const page = await open("/admin/staff", owner.cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Platform staff");
    expect(html).toContain(owner.email);

    const email = "fedha@jumbe.example";
    const invited = await post("/admin/staff?dialog=invite", owner.cookie, { intent: "invite", email, role: "finance" });
    expect(invited.status).toBe(302);
    expect(await audit("staff.invite")).toEqual([
      { admin_email: owner.email, target_type: "staff_invitation", before: null, after: { email, role: "finance" } },
    ]);
    await drainJobs();
    const mail = await latestMailTo(email);
    expect(mail?.textBody).toContain("finance staff of the Jumbe console");
    const token = mail!.textBody.match(/\/invitations\/([\w-]+)/)![1]!;
    const joined = await run(
      invitationAction,
      formRequest(`/invitations/${token}`, {
        firstName: "Wanjiru",
        lastName: "Kamau",
        newPassword: "Fedha#Salama26",
        confirmPassword: "Fedha#Salama26",
      }),
      { params: { token } },
    );
    expect(joined.status).toBe(302);
    expect(joined.location).toBe("/admin");
    const [stored] = await rawQuery<Record<string, unknown>>(
      `select usertype, platform_role, two_factor_required, is_verified, organization_id = $2 as platform_org from users where lower(email) = $1`,
      [email, owner.organization.id],
    );
    expect(stored).toEqual({
      usertype: "admin",
      platform_role: "finance",
      two_factor_required: true,
      is_verified: true,
      platform_org: true,
    });

    // Two-factor before any console page.
    const cookie = cookieHeader(joined.setCookies);
    const first = await open("/admin/billing", cookie);
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("/settings/security");
    await rawQuery(`update users set two_factor_enabled_at = now() where lower(email) = $1`, [email]);
    expect((await open("/admin/billing", cookie)).status).toBe(200);
    const tabs = await (await open("/admin", cookie)).text();
    expect(tabs).toContain('href="/admin/billing"');
    expect(tabs).not.toContain('href="/admin/staff"');
    // Staff management is the owners': 404, as the console is to anyone else.
    expect((await open("/admin/staff", cookie)).status).toBe(404);
    const refused = await post("/admin/staff?dialog=invite", cookie, { intent: "invite", email: "mtu@jumbe.example", role: "owner" });
    expect(refused.status).toBe(404);
    expect(await rawQuery(`select 1 from invitations where email = 'mtu@jumbe.example'`)).toEqual([]);
  });

  it("support staff open people and numbers but no money page, and a money action from them changes nothing", async () => {
    const support = await staff("support");
    expect(roleOf(support.user)).toBe("platform_support");
    expect((await open("/admin/users", support.cookie)).status).toBe(200);
    expect((await open("/admin/whatsapp", support.cookie)).status).toBe(200);
    for (const path of ["/admin/billing", "/admin/billing/export.csv", "/admin/staff"])
      expect((await open(path, support.cookie)).status, path).toBe(404);
    const tabs = await (await open("/admin", support.cookie)).text();
    expect(tabs).toContain('href="/admin/users"');
    expect(tabs).not.toContain('href="/admin/billing"');
    // The Overview without its money: no revenue card, no revenue metrics.
    expect(tabs).toContain("Organisations");
    expect(tabs).not.toContain("Revenue this month");
    expect(tabs).not.toContain("Revenue metrics");

    const maker = await staff("owner");
    const id = await settlement(150_000_00);
    const asked = await run(
      settlementsAction,
      formRequest("/revenue-share/settlements", { intent: "settle", settlement: id, reference: "" }, { cookie: maker.cookie }),
    );
    expect(asked.status).toBe(302);
    expect(await payouts(id)).toEqual([{ status: "awaiting_approval", requested_by: maker.user.id, approved_by: null }]);
    // Support posting the finance action: refused (the page's 403), nothing approved.
    const refused = await run(
      settlementsAction,
      formRequest("/revenue-share/settlements", { intent: "approve-payout", settlement: id }, { cookie: support.cookie }),
    );
    expect(refused.location).toBe("/unauthorized");
    expect((await open("/revenue-share/settlements", support.cookie)).headers.get("location")).toBe("/unauthorized");
    expect(await payouts(id)).toEqual([{ status: "awaiting_approval", requested_by: maker.user.id, approved_by: null }]);
  });

  it("maker-checker end to end: an owner asks for a payout above KES 100,000, the same owner cannot approve it, finance staff do", async () => {
    const maker = await staff("owner");
    const checker = await staff("finance");
    const id = await settlement(120_000_00);
    const asked = await run(
      settlementsAction,
      formRequest("/revenue-share/settlements", { intent: "settle", settlement: id, reference: "" }, { cookie: maker.cookie }),
    );
    expect(asked.status).toBe(302);
    const self = await run(
      settlementsAction,
      formRequest("/revenue-share/settlements", { intent: "approve-payout", settlement: id }, { cookie: maker.cookie }),
    );
    expect(self.status).toBe(409);
    expect(JSON.stringify(self.data)).toContain("Another administrator must approve a payout you asked for.");
    expect(await payouts(id)).toEqual([{ status: "awaiting_approval", requested_by: maker.user.id, approved_by: null }]);
    const approved = await run(
      settlementsAction,
      formRequest("/revenue-share/settlements", { intent: "approve-payout", settlement: id }, { cookie: checker.cookie }),
    );
    expect(approved.status).toBe(302);
    expect(await payouts(id)).toEqual([{ status: "requested", requested_by: maker.user.id, approved_by: checker.user.id }]);
    expect((await audit("settlement.payout_approve")).map((r) => r.admin_email)).toEqual([checker.email]);
  });

  it("a suspended staff member is signed out at once and cannot sign in; reactivated, they can; each change audited, with the step-up", async () => {
    const owner = await staff("owner");
    const finance = await staff("finance");
    expect((await open("/admin/billing", finance.cookie)).status).toBe(200);

    // The step-up: a session proven over 10 minutes ago types the password in the same form.
    await stale(owner.user.id);
    const unproven = await post(`/admin/staff?dialog=manage&staff=${finance.user.id}`, owner.cookie, {
      intent: "suspend",
      staff: finance.user.id,
    });
    expect(unproven.status).toBe(400);
    expect(unproven.html).toContain("Your password or authenticator code");
    expect((await open("/admin/billing", finance.cookie)).status).toBe(200);

    const suspended = await post("/admin/staff?dialog=manage", owner.cookie, {
      intent: "suspend",
      staff: finance.user.id,
      confirmation: owner.password,
    });
    expect(suspended.status).toBe(302);
    expect(await rawQuery(`select 1 from sessions where user_id = $1`, [finance.user.id])).toEqual([]);
    expect((await open("/admin/billing", finance.cookie)).status).toBe(404);
    const again = await signIn(finance.email, finance.password, false, META);
    expect(again).toMatchObject({ ok: false, status: 403, reason: "suspended" });
    expect((await audit("staff.suspend")).map((r) => [r.admin_email, r.after])).toEqual([
      [owner.email, { email: finance.email, role: "finance", suspended: true }],
    ]);
    const list = await (await open("/admin/staff", owner.cookie)).text();
    expect(list).toContain("Suspended");

    expect(
      (await post(`/admin/staff?dialog=manage&staff=${finance.user.id}`, owner.cookie, { intent: "reactivate", staff: finance.user.id }))
        .status,
    ).toBe(302);
    expect((await signIn(finance.email, finance.password, false, META)).ok).toBe(true);
    expect(
      (
        await post(`/admin/staff?dialog=manage&staff=${finance.user.id}`, owner.cookie, {
          intent: "role",
          staff: finance.user.id,
          role: "support",
        })
      ).status,
    ).toBe(302);
    expect((await rawQuery(`select platform_role from users where id = $1`, [finance.user.id]))[0]).toEqual({ platform_role: "support" });
    expect((await audit("staff.role_change")).map((r) => r.after)).toEqual([{ email: finance.email, role: "support", suspended: false }]);
  });

  it("keeps an active owner: no owner changes themselves, and two owners demoting each other at once leave one", async () => {
    const a = await staff("owner");
    const b = await staff("owner");
    const self = await post(`/admin/staff?dialog=manage&staff=${a.user.id}`, a.cookie, { intent: "suspend", staff: a.user.id });
    expect(self.status).toBe(409);
    expect(self.html).toContain("another owner does");
    // A foreign or unknown id: 404.
    const tenant = await createVerifiedUser({ businessName: "Duka la Mama" });
    expect(
      (await post(`/admin/staff?dialog=manage&staff=${tenant.user.id}`, a.cookie, { intent: "suspend", staff: tenant.user.id })).status,
    ).toBe(404);
    expect((await post("/admin/staff?dialog=manage", a.cookie, { intent: "suspend", staff: "not-an-id" })).status).toBe(404);

    const actor = (who: typeof a) => ({ user: who.user, role: roleOf(who.user), organization: who.organization });
    const outcomes = await Promise.allSettled([
      changeStaff(actor(a), META, b.user.id, { kind: "role", role: "support" }),
      changeStaff(actor(b), META, a.user.id, { kind: "role", role: "support" }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refusal = (outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult).reason as Refusal;
    expect({ status: refusal.status, code: refusal.code }).toEqual({ status: 409, code: "last_owner" });
    const owners = await rawQuery(`select 1 from users where usertype = 'admin' and coalesce(platform_role, 'owner') = 'owner'`);
    expect(owners).toHaveLength(1);
  });
});
