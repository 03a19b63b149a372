import { describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { whatsappAccounts } from "~/.server/infrastructure/db/schema";
import { parseEnv, setEnv, env } from "~/.server/infrastructure/config/env";
import { encryptSecret, decryptSecret } from "~/.server/infrastructure/security/crypto";
import { graphClient } from "~/.server/infrastructure/clients/whatsapp-graph/graph-client";
import { graphCallsRecorded } from "~/.server/infrastructure/clients/whatsapp-graph/graph-call-log";
import { sweepExpiredData } from "~/.server/domains/housekeeping/sweep";
import { adminAccountsPage, readAccountFilters } from "~/.server/domains/admin/whatsapp/accounts";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { loader as listLoader } from "~/routes/admin/whatsapp";
import { loader as exportLoader } from "~/routes/admin/whatsapp-export";
import { loader as detailLoader, action as detailAction } from "~/routes/admin/whatsapp-account";
import { loader as tenantWhatsappLoader } from "~/routes/app/whatsapp";
import type { AdminAccountRow } from "~/lib/admin-whatsapp";
import { formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";
import { metaSandboxForFile } from "../support/meta-harness";

// Issue 19: the admin console's WhatsApp tab. The table and its filters against stored accounts,
// View Logs, Test Connection against the Graph sandbox (working, a token Meta refuses, the sandbox
// stopped), resubscribe, disconnect with step-up, mark for reconnection as the tenant sees it, the
// audit records, and the engine's Graph calls recorded in graph_call_log.

const harness = metaSandboxForFile();

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

/** A loader or action of the detail route, with its :id. */
function withId(handler: (args: never) => unknown, id: string) {
  return (args: object) => handler({ ...(args as object), params: { id } } as never);
}

const list = (path: string, cookie?: string) =>
  run<{ accounts: AdminAccountRow[]; next: string | null; problems: string[] }>(listLoader, getRequest(path, { cookie }));
const detail = (id: string, cookie?: string, query = "") =>
  run(withId(detailLoader as never, id), getRequest(`/admin/whatsapp/${id}${query}`, { cookie }));
const act = (id: string, fields: Record<string, string>, cookie: string) =>
  run(withId(detailAction as never, id), formRequest(`/admin/whatsapp/${id}`, fields, { cookie }));

async function auditOf(targetId: string) {
  return queryRows<{ action: string; reason: string | null; before: unknown; after: Record<string, unknown> | null; admin_email: string }>(
    db(),
    sql`select action, reason, before, after, admin_email from admin_audit_log where target_id = ${targetId} order by id`,
  );
}

async function statsThisMonth(organizationId: string, phoneNumberId: string, sent: number, received: number) {
  await db().execute(sql`
    insert into message_stats_daily (organization_id, day, phone_number_id, category, sent, received)
    values (${organizationId}, (now() at time zone 'Africa/Nairobi')::date, ${phoneNumberId}, 'utility', ${sent}, ${received})`);
  // "Messages this month" is what the plan's charges counted (the same figure on every tab).
  await db().execute(sql`
    insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
    values (${organizationId}, (now() at time zone 'Africa/Nairobi')::date, ${phoneNumberId}, 'utility', ${sent}, ${sent * 200})`);
}

async function webhookFor(wabaId: string, field: string, receivedAt = new Date()) {
  const body = JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: wabaId, changes: [{ field, value: {} }] }] });
  await db().execute(
    sql`insert into webhook_events (body, signature, received_at) values (${body}, 'sha256=test', ${receivedAt.toISOString()})`,
  );
}

describe("the WhatsApp tab's table", () => {
  it("lists every tenant's accounts with numbers, status, quality, tier, this month's messages and webhook status; filters and sorts", async () => {
    const boss = await admin();
    const nyota = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const duka = await createVerifiedUser({ businessName: "Duka la Mama Ltd" });
    const pwani = await createVerifiedUser({ businessName: "Pwani Fresh Produce" });
    const one = await connectedNumber(nyota.organization.id, { wabaId: "710001", phoneNumberId: "810001", display: "+254 700 100 200" });
    const two = await connectedNumber(duka.organization.id, { wabaId: "710002", phoneNumberId: "810002", display: "+254 733 000 111" });
    const three = await connectedNumber(pwani.organization.id, { wabaId: "710003", phoneNumberId: "810003", display: "+254 722 555 666" });
    await db().execute(
      sql`update whatsapp_phone_numbers set messaging_limit = 'TIER_1K', quality_rating = 'YELLOW' where id = ${two.phone.id}`,
    );
    await db().execute(
      sql`update whatsapp_accounts set token_refused_at = now(), token_refusal = '(#190) Session has expired' where id = ${two.account.id}`,
    );
    await db().execute(
      sql`update whatsapp_accounts set status = 'disconnected', subscribed = false, disconnected_at = now() where id = ${three.account.id}`,
    );
    await statsThisMonth(nyota.organization.id, "810001", 120, 30);
    await webhookFor("710001", "messages");

    const all = await list("/admin/whatsapp", boss.cookie);
    expect(all.status).toBe(200);
    const row = all.data.accounts.find((a) => a.id === one.account.id)!;
    expect(row).toMatchObject({
      business: "Nyota Savings Sacco",
      wabaId: "710001",
      status: "connected",
      subscribed: true,
      messagesThisMonth: 120,
      apiVersion: env().GRAPH_API_VERSION,
    });
    expect(row.numbers[0]).toMatchObject({ display: "+254 700 100 200", quality: "GREEN" });
    expect(row.lastWebhookAt).not.toBeNull();
    const dukaRow = all.data.accounts.find((a) => a.id === two.account.id)!;
    expect(dukaRow).toMatchObject({ status: "token_refused", messagesThisMonth: 0, lastWebhookAt: null });
    expect(dukaRow.numbers[0]).toMatchObject({ quality: "YELLOW", messagingLimit: "TIER_1K" });
    expect(all.data.accounts.find((a) => a.id === three.account.id)?.status).toBe("disconnected");

    const ids = (r: { data: { accounts: AdminAccountRow[] } }) => r.data.accounts.map((a) => a.id);
    expect(ids(await list("/admin/whatsapp?q=duka", boss.cookie))).toEqual([two.account.id]);
    expect(ids(await list("/admin/whatsapp?q=710003", boss.cookie))).toEqual([three.account.id]);
    expect(ids(await list("/admin/whatsapp?q=0700%20100", boss.cookie))).toEqual([one.account.id]);
    expect(ids(await list("/admin/whatsapp?status=token_refused", boss.cookie))).toEqual([two.account.id]);
    expect(ids(await list("/admin/whatsapp?status=disconnected", boss.cookie))).toEqual([three.account.id]);
    expect(ids(await list("/admin/whatsapp?status=connected", boss.cookie))).toEqual([one.account.id]);
    expect(ids(await list("/admin/whatsapp?sort=business&dir=asc", boss.cookie))).toEqual([
      two.account.id,
      one.account.id,
      three.account.id,
    ]);
    expect(ids(await list("/admin/whatsapp?sort=business&dir=desc", boss.cookie))).toEqual([
      three.account.id,
      one.account.id,
      two.account.id,
    ]);
    const odd = await list("/admin/whatsapp?status=sleeping", boss.cookie);
    expect(odd.status).toBe(200);
    expect(odd.data.problems[0]).toContain("not a status");
    expect(odd.data.accounts).toHaveLength(3);

    // Keyset pages, forwards and back, in the sort's order.
    const scope = platformScope({ role: "platform_admin" } as never);
    const { filters } = readAccountFilters(new URLSearchParams("sort=business&dir=asc"));
    const first = await adminAccountsPage(scope, filters, { limit: 2 });
    expect(first.accounts.map((a) => a.business)).toEqual(["Duka la Mama Ltd", "Nyota Savings Sacco"]);
    expect(first.previous).toBeNull();
    const second = await adminAccountsPage(scope, filters, { limit: 2, after: first.next });
    expect(second.accounts.map((a) => a.business)).toEqual(["Pwani Fresh Produce"]);
    expect(second.next).toBeNull();
    const back = await adminAccountsPage(scope, filters, { limit: 2, before: second.previous });
    expect(back.accounts.map((a) => a.business)).toEqual(["Duka la Mama Ltd", "Nyota Savings Sacco"]);

    // Export Data: the same table with the page's filters.
    const csv = await run(exportLoader, getRequest("/admin/whatsapp/export.csv?status=token_refused", { cookie: boss.cookie }));
    expect(csv.status).toBe(200);
    expect(String(csv.data)).toContain("Duka la Mama Ltd");
    expect(String(csv.data)).toContain("Token refused");
    expect(String(csv.data)).not.toContain("Nyota Savings Sacco");
  });

  it("answers 404 to anyone but an administrator, and for an unknown or malformed account id", async () => {
    const boss = await admin();
    const member = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const memberCookie = await signedInCookie(member.email, member.password);
    const { account } = await connectedNumber(member.organization.id, {
      wabaId: "720001",
      phoneNumberId: "820001",
      display: "+254 700 200 300",
    });
    expect((await list("/admin/whatsapp", memberCookie)).status).toBe(404);
    expect((await list("/admin/whatsapp")).status).toBe(404);
    expect((await detail(account.id, memberCookie)).status).toBe(404);
    expect((await act(account.id, { intent: "test" }, memberCookie)).status).toBe(404);
    expect((await detail("5b0c8f5e-0000-4000-8000-000000000000", boss.cookie)).status).toBe(404);
    expect((await detail("not-an-id", boss.cookie)).status).toBe(404);
    expect((await act("5b0c8f5e-0000-4000-8000-000000000000", { intent: "test" }, boss.cookie)).status).toBe(404);
    expect((await detail(account.id, boss.cookie)).status).toBe(200);
  });
});

describe("an account's detail", () => {
  it("View Logs shows the account's Graph calls and its WABA's webhooks, newest first, in pages", async () => {
    const boss = await admin();
    const tenant = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const { account } = await connectedNumber(tenant.organization.id, {
      wabaId: "730001",
      phoneNumberId: "830001",
      display: "+254 700 300 400",
    });
    for (let i = 0; i < 22; i++)
      await db().execute(sql`
        insert into graph_call_log (organization_id, account_id, waba_id, method, path, status, duration_ms, error, origin, created_at)
        values (${tenant.organization.id}, ${account.id}, '730001', 'GET', ${`/730001/phone_numbers?n=${i}`}, 200, ${40 + i}, null, 'engine',
                now() - make_interval(mins => ${60 - i}))`);
    await db().execute(sql`
      insert into graph_call_log (account_id, waba_id, method, path, status, duration_ms, error, origin)
      values (${account.id}, '730001', 'POST', '/730001/subscribed_apps', 401, 12, 'Meta answered subscribed_apps: (#190) Invalid OAuth access token', 'admin')`);
    // Embedded Signup's calls came before the account's row: recorded without it, they are its calls
    // when made around the connection; the same WABA's call hours earlier is not.
    await db().execute(sql`
      insert into graph_call_log (method, path, status, duration_ms, origin, created_at)
      values ('GET', '/730001', 200, 30, 'engine', now() - interval '30 seconds'),
             ('GET', '/730001', 200, 31, 'engine', now() - interval '3 hours')`);
    await webhookFor("730001", "statuses", new Date(Date.now() - 120_000));
    await webhookFor("730001", "messages", new Date(Date.now() - 60_000));
    await webhookFor("739999", "account_update");

    const page = await detail(account.id, boss.cookie, "?view=logs");
    expect(page.status).toBe(200);
    const calls = page.data.calls.calls as { path: string; status: number; error: string | null; origin: string; durationMs: number }[];
    expect(calls).toHaveLength(20);
    expect(calls[0]).toMatchObject({ path: "/730001/subscribed_apps", status: 401, origin: "admin" });
    expect(calls[0]!.error).toContain("(#190)");
    expect(calls[1]).toMatchObject({ path: "/730001", durationMs: 30 });
    expect(calls[2]!.path).toBe("/730001/phone_numbers?n=21");
    const hooks = page.data.hooks.webhooks as { fields: string[] }[];
    expect(hooks.map((h) => h.fields)).toEqual([["messages"], ["statuses"]]);
    expect(page.data.hooks.next).toBeNull();

    const older = await detail(account.id, boss.cookie, `?view=logs&calls=${page.data.calls.next}`);
    expect((older.data.calls.calls as { path: string }[]).map((c) => c.path)).toEqual([
      "/730001/phone_numbers?n=3",
      "/730001/phone_numbers?n=2",
      "/730001/phone_numbers?n=1",
      "/730001/phone_numbers?n=0",
    ]);
    expect(older.data.calls.next).toBeNull();
  });

  it("Test Connection calls Meta with the stored token and shows the answer, a refused token, or a stopped sandbox; each recorded and audited", async () => {
    const boss = await admin();
    const tenant = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const { account, wabaId } = await harness.graph.connect(tenant.organization.id, "Nyota Savings Sacco");

    const works = await act(account.id, { intent: "test" }, boss.cookie);
    expect(works.status).toBe(200);
    expect(works.data.test).toMatchObject({ ok: true });
    expect(works.data.test.answer).toContain(`WhatsApp Business Account ${wabaId} (Nyota Savings Sacco)`);
    expect(works.data.test.latencyMs).toBeGreaterThanOrEqual(0);

    // A token the sandbox does not know: Meta's 190 (sandbox/README.md, "The token is missing, unknown or expired").
    await db().execute(
      sql`update whatsapp_accounts set access_token_encrypted = ${encryptSecret("EAA-revoked-token")} where id = ${account.id}`,
    );
    const refused = await act(account.id, { intent: "test" }, boss.cookie);
    expect(refused.status).toBe(200);
    expect(refused.data.test.ok).toBe(false);
    expect(refused.data.test.answer).toContain("Meta refused the call (HTTP 401): (#190/467) Invalid OAuth access token");

    // The sandbox stopped: nothing listens at the Graph address any more.
    setEnv(
      parseEnv({
        NODE_ENV: "test",
        APP_URL: "http://jumbe.test",
        GRAPH_API_BASE_URL: "http://127.0.0.1:9/sandbox/meta/graph",
        GRAPH_API_TIMEOUT_MS: "3000",
      }),
    );
    const stopped = await act(account.id, { intent: "test" }, boss.cookie);
    expect(stopped.status).toBe(200);
    expect(stopped.data.test.ok).toBe(false);
    expect(stopped.data.test.answer).toContain("Meta could not be reached");

    const logged = await queryRows<{ status: number | null; origin: string; path: string; error: string | null; organization_id: string }>(
      db(),
      sql`select status, origin, path, error, organization_id from graph_call_log where account_id = ${account.id} order by id`,
    );
    expect(logged.map((r) => [r.status, r.origin, r.path])).toEqual([
      [200, "admin", `/${wabaId}`],
      [401, "admin", `/${wabaId}`],
      [null, "admin", `/${wabaId}`],
    ]);
    expect(logged[2]!.error).toContain("unreachable");
    expect(logged.every((r) => r.organization_id === tenant.organization.id)).toBe(true);
    const audit = await auditOf(account.id);
    expect(audit.map((a) => [a.action, a.after?.ok])).toEqual([
      ["whatsapp.test", true],
      ["whatsapp.test", false],
      ["whatsapp.test", false],
    ]);
    expect(audit[0]!.admin_email).toBe(boss.email);
  });

  it("resubscribes an account to its WABA's webhooks, audited", async () => {
    const boss = await admin();
    const tenant = await createVerifiedUser({ businessName: "Duka la Mama Ltd" });
    const { account, wabaId } = await harness.graph.connect(tenant.organization.id, "Duka la Mama Ltd");
    await db().execute(sql`update whatsapp_accounts set subscribed = false where id = ${account.id}`);
    const answer = await act(account.id, { intent: "resubscribe" }, boss.cookie);
    expect(answer.status).toBe(302);
    const [row] = await queryRows<{ subscribed: boolean }>(db(), sql`select subscribed from whatsapp_accounts where id = ${account.id}`);
    expect(row!.subscribed).toBe(true);
    expect(harness.sandbox.calls().some((c) => c.method === "POST" && c.path.includes(`${wabaId}/subscribed_apps`))).toBe(true);
    const [audit] = await auditOf(account.id);
    expect(audit).toMatchObject({ action: "whatsapp.resubscribe", before: { subscribed: false }, after: { subscribed: true } });
  });

  it("disconnects only with a fresh confirmation: a stale session without the field is refused and nothing changes", async () => {
    const boss = await admin();
    const tenant = await createVerifiedUser({ businessName: "Pwani Fresh Produce" });
    const { account } = await harness.graph.connect(tenant.organization.id, "Pwani Fresh Produce");
    await db().execute(sql`update sessions set confirmed_at = now() - interval '11 minutes' where user_id = ${boss.user.id}`);

    const page = await detail(account.id, boss.cookie);
    expect(page.data.stepUpNeeded).toBe(true);
    const noReason = await act(account.id, { intent: "disconnect", reason: "" }, boss.cookie);
    expect(noReason.status).toBe(400);
    expect(noReason.data.result.error.reason).toEqual(["Give the reason, in a few words."]);
    const stale = await act(account.id, { intent: "disconnect", reason: "Fraud reported by Safaricom" }, boss.cookie);
    expect(stale.status).toBe(400);
    expect(stale.data.result.error.confirmation).toEqual([
      "Confirm it is you: enter your password (or a code from your authenticator app).",
    ]);
    expect(stale.data.result.initialValue.reason).toBe("Fraud reported by Safaricom");
    const wrong = await act(
      account.id,
      { intent: "disconnect", reason: "Fraud reported by Safaricom", confirmation: "not-it" },
      boss.cookie,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.data.result.error.confirmation).toEqual(["That password or code is not right."]);
    expect(wrong.data.result.initialValue.confirmation).toBeUndefined();
    let [row] = await db()
      .select()
      .from(whatsappAccounts)
      .where(sql`id = ${account.id}`);
    expect(row!.status).toBe("connected");
    expect(await auditOf(account.id)).toEqual([]);

    const done = await act(
      account.id,
      { intent: "disconnect", reason: "Fraud reported by Safaricom", confirmation: boss.password },
      boss.cookie,
    );
    expect(done.status).toBe(302);
    [row] = await db()
      .select()
      .from(whatsappAccounts)
      .where(sql`id = ${account.id}`);
    expect(row).toMatchObject({ status: "disconnected", subscribed: false });
    const numbers = await queryRows<{ disconnected_at: string | null }>(
      db(),
      sql`select disconnected_at from whatsapp_phone_numbers where account_id = ${account.id}`,
    );
    expect(numbers.every((n) => n.disconnected_at !== null)).toBe(true);
    const [audit] = await auditOf(account.id);
    expect(audit).toMatchObject({
      action: "whatsapp.disconnect",
      reason: "Fraud reported by Safaricom",
      before: { status: "connected" },
      after: { status: "disconnected" },
    });
    const activity = await queryRows<{ action: string }>(
      db(),
      sql`select action from activity_logs where organization_id = ${tenant.organization.id}`,
    );
    expect(activity.map((a) => a.action)).toContain("WhatsApp account disconnected by Jumbe");
    // Already disconnected: a second try changes nothing.
    const again = await act(account.id, { intent: "disconnect", reason: "Again please" }, boss.cookie);
    expect(again.status).toBe(409);
    expect(again.data.result.error[""]).toEqual(["This account is already disconnected."]);
  });

  it("marks an account for reconnection: the tenant's WhatsApp page shows the reason until they connect again", async () => {
    const boss = await admin();
    const tenant = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const tenantCookie = await signedInCookie(tenant.email, tenant.password);
    const { account } = await harness.graph.connect(tenant.organization.id, "Nyota Savings Sacco");
    const tooShort = await act(account.id, { intent: "reconnect", reason: "x" }, boss.cookie);
    expect(tooShort.status).toBe(400);
    expect(tooShort.data.result.error.reason).toEqual(["Give the reason, in a few words."]);

    const asked = await act(account.id, { intent: "reconnect", reason: "Meta asked for the business to be verified again" }, boss.cookie);
    expect(asked.status).toBe(302);
    const tenantPage = await run(tenantWhatsappLoader, getRequest("/whatsapp", { cookie: tenantCookie }));
    expect(tenantPage.data.connections[0].reconnectRequested).toMatchObject({ reason: "Meta asked for the business to be verified again" });
    const [audit] = await auditOf(account.id);
    expect(audit).toMatchObject({ action: "whatsapp.reconnect_requested", reason: "Meta asked for the business to be verified again" });
    expect((await list(`/admin/whatsapp?status=reconnect_requested`, boss.cookie)).data.accounts.map((a) => a.id)).toEqual([account.id]);

    // The tenant disconnects and connects again with the stored token: the request is met.
    const { disconnectAccount, reconnectAccount } = await import("~/.server/domains/whatsapp/connections");
    const current = { user: tenant.user, organization: tenant.organization } as never;
    await disconnectAccount(current, account.id, { ip: "198.51.100.7", userAgent: "vitest" });
    await reconnectAccount(current, account.id, { ip: "198.51.100.7", userAgent: "vitest" });
    const after = await run(tenantWhatsappLoader, getRequest("/whatsapp", { cookie: tenantCookie }));
    expect(after.data.connections[0].reconnectRequested).toBeNull();
    // The tenant's calls are recorded in the background: done before the next test's tables are reset.
    await graphCallsRecorded();
  });
});

describe("graph_call_log", () => {
  it("records the engine's Graph calls other than message sends, with the account found from the path; housekeeping keeps 30 days", async () => {
    const tenant = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const { account, wabaId, phoneNumberId } = await harness.graph.connect(tenant.organization.id, "Nyota Savings Sacco");
    const token = decryptSecret(account.accessTokenEncrypted);
    await graphCallsRecorded();
    await db().execute(sql`delete from graph_call_log`);
    await graphClient().listPhoneNumbers(wabaId, token);
    // A send (refused here: no customer window) is the messages table's record, never the call log's.
    await graphClient()
      .sendMessage(phoneNumberId, token, { messaging_product: "whatsapp", to: "254711000001", type: "text", text: { body: "Habari" } })
      .catch(() => undefined);
    await graphCallsRecorded();
    await vi.waitFor(
      async () => {
        const rows = await queryRows<{
          method: string;
          path: string;
          status: number;
          origin: string;
          account_id: string;
          organization_id: string;
          waba_id: string;
        }>(db(), sql`select method, path, status, origin, account_id, organization_id, waba_id from graph_call_log order by id`);
        expect(rows).toEqual([
          {
            method: "GET",
            path: `/${wabaId}/phone_numbers`,
            status: 200,
            origin: "engine",
            account_id: account.id,
            organization_id: tenant.organization.id,
            waba_id: wabaId,
          },
        ]);
      },
      { timeout: 30_000 },
    );

    await db().execute(sql`update graph_call_log set created_at = now() - interval '31 days'`);
    await db().execute(sql`
      insert into graph_call_log (method, path, status, duration_ms, origin) values ('GET', '/debug_token', 200, 5, 'engine')`);
    const swept = await sweepExpiredData();
    expect(swept.graphCalls).toBe(1);
    const left = await queryRows<{ path: string }>(db(), sql`select path from graph_call_log`);
    expect(left.map((r) => r.path)).toEqual(["/debug_token"]);
  });
});
