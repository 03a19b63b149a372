import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { currentUser } from "~/.server/domains/auth/guards";
import { recordAdminAction } from "~/.server/domains/admin/audit";
import { checkStepUp, STEP_UP_MESSAGES, stepUpNeeded } from "~/.server/domains/admin/step-up";
import { loader as auditLoader } from "~/routes/admin/audit";
import { loader as auditExportLoader } from "~/routes/admin/audit-export";
import { loader as queueLoader } from "~/routes/api/admin.queue";
import { createVerifiedUser, META, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";

// Issue 19, decision 037: the admin audit log is append-only and readable by administrators only;
// destructive actions want a proof of identity within 10 minutes (step-up).

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  const cookie = await signedInCookie(account.email, account.password);
  const current = (await currentUser({ request: getRequest("/admin", { cookie }), context: undefined }))!;
  return { ...account, cookie, current };
}

/** The database's own words for a refused statement (drizzle wraps them in its error's cause). */
async function refusal(statement: Promise<unknown>) {
  try {
    await statement;
    return "not refused";
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause;
    return cause?.message ?? (error as Error).message;
  }
}

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
};

describe("the admin audit log", () => {
  it("keeps every record: the database refuses to change or delete one", async () => {
    const { current } = await admin();
    const tenant = await createVerifiedUser({ businessName: "Duka la Mama Ltd" });
    await recordAdminAction(db(), current, META, {
      action: "organization.suspend",
      organizationId: tenant.organization.id,
      targetType: "organization",
      targetId: tenant.organization.id,
      reason: "Unpaid invoices since August",
      before: { status: "active" },
      after: { status: "suspended" },
    });
    const [row] = await queryRows<{ id: number; admin_email: string; ip_address: string; before: unknown; after: unknown }>(
      db(),
      sql`select id, admin_email, ip_address, before, after from admin_audit_log`,
    );
    expect(row).toMatchObject({ admin_email: current.user.email, ip_address: META.ip });
    expect(await refusal(db().execute(sql`update admin_audit_log set reason = 'nothing happened'`))).toMatch(/append-only: UPDATE refused/);
    expect(await refusal(db().execute(sql`delete from admin_audit_log`))).toMatch(/append-only: DELETE refused/);
    const [still] = await queryRows<{ reason: string; n: number }>(
      db(),
      sql`select max(reason) as reason, count(*)::int as n from admin_audit_log`,
    );
    expect(still).toEqual({ reason: "Unpaid invoices since August", n: 1 });
  });

  it("shows administrators the records newest first, one organisation's on request, in pages, and as a formula-safe CSV", async () => {
    const { current, cookie } = await admin();
    const a = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const b = await createVerifiedUser({ businessName: "Mombasa Fresh Fish" });
    for (let i = 0; i < 55; i++)
      await recordAdminAction(db(), current, META, {
        action: "wallet.adjust",
        organizationId: i % 5 === 0 ? b.organization.id : a.organization.id,
        targetType: "wallet",
        targetId: a.organization.id,
        reason: i === 54 ? '=HYPERLINK("http://evil.example")' : `Goodwill credit ${i}`,
        before: { balanceCents: i * 100 },
        after: { balanceCents: i * 100 + 50_000 },
      });
    const first = await run(auditLoader, getRequest("/admin/audit", { cookie }));
    expect(first.status).toBe(200);
    expect(first.data.records).toHaveLength(50);
    expect(first.data.records[0].reason).toBe('=HYPERLINK("http://evil.example")');
    expect(first.data.records[1].reason).toBe("Goodwill credit 53");
    expect(first.data.records[0].organizationName).toBe("Nyota Savings Sacco");
    const second = await run(auditLoader, getRequest(`/admin/audit?after=${first.data.next}`, { cookie }));
    expect(second.data.records.map((r: { reason: string }) => r.reason)).toEqual([4, 3, 2, 1, 0].map((i) => `Goodwill credit ${i}`));
    expect(second.data.next).toBeNull();

    const onlyB = await run(auditLoader, getRequest(`/admin/audit?org=${b.organization.id}`, { cookie }));
    expect(onlyB.data.records).toHaveLength(11);
    expect(new Set(onlyB.data.records.map((r: { organizationName: string }) => r.organizationName))).toEqual(
      new Set(["Mombasa Fresh Fish"]),
    );

    const csv = await run<string>(auditExportLoader, getRequest(`/admin/audit/export.csv?org=${a.organization.id}`, { cookie }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = csv.data.trim().split("\r\n");
    expect(lines[0]).toContain('"When","Administrator","Action"');
    expect(lines).toHaveLength(1 + 44);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(lines[1]).toContain('"{""balanceCents"":5400}"');
  });

  it("answers 404 to visitors and members at the audit log, its export and the admin JSON API", async () => {
    const member = await createVerifiedUser();
    const cookie = await signedInCookie(member.email, member.password);
    for (const who of [undefined, cookie]) {
      expect((await run(auditLoader, getRequest("/admin/audit", { cookie: who }))).status).toBe(404);
      expect((await run(auditExportLoader, getRequest("/admin/audit/export.csv", { cookie: who }))).status).toBe(404);
      const api = await run(queueLoader, getRequest("/api/admin/queue", { cookie: who }));
      expect(api.status).toBe(404);
      expect(api.data).toEqual({ message: "Not Found: The requested resource does not exist." });
    }
  });
});

describe("step-up for destructive actions", () => {
  it("needs nothing within 10 minutes of signing in, then the password, and restarts the 10 minutes", async () => {
    const { current, password, cookie } = await admin();
    expect(stepUpNeeded(current)).toBe(false);
    expect(await checkStepUp(current, form({}))).toEqual({ ok: true });

    await db().execute(sql`update sessions set confirmed_at = now() - interval '11 minutes'`);
    const stale = (await currentUser({ request: getRequest("/admin", { cookie }), context: undefined }))!;
    expect(stepUpNeeded(stale)).toBe(true);
    expect(await checkStepUp(stale, form({}))).toEqual({ ok: false, status: 400, message: STEP_UP_MESSAGES.required });
    expect(await checkStepUp(stale, form({ confirmation: "Wrong#Horse1" }))).toEqual({
      ok: false,
      status: 400,
      message: STEP_UP_MESSAGES.wrong,
    });
    // Six digits without two-factor are a password attempt, and wrong.
    expect((await checkStepUp(stale, form({ confirmation: "123456" }))).ok).toBe(false);
    expect(await checkStepUp(stale, form({ confirmation: password }))).toEqual({ ok: true });

    // The proof is the session's: a new request on any instance sees it.
    const again = (await currentUser({ request: getRequest("/admin", { cookie }), context: undefined }))!;
    expect(stepUpNeeded(again)).toBe(false);
  });

  it("stops guessing: wrong passwords run out the administrator's own bucket", async () => {
    const { cookie } = await admin();
    await db().execute(sql`update sessions set confirmed_at = now() - interval '11 minutes'`);
    const stale = (await currentUser({ request: getRequest("/admin", { cookie }), context: undefined }))!;
    const outcomes = [];
    for (let i = 0; i < 12; i++) outcomes.push(await checkStepUp(stale, form({ confirmation: `Wrong#Horse${i}` })));
    expect(outcomes.at(-1)).toMatchObject({ ok: false, status: 429 });
  });
});
