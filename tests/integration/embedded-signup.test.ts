import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import express from "express";
import type { Server } from "node:http";
import { and, eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import {
  activityLogs,
  messageStatuses,
  messages,
  organizations,
  whatsappAccounts,
  whatsappPhoneNumbers,
  whatsappRegistrationPins,
  whatsappSignupAttempts,
} from "~/.server/infrastructure/db/schema";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { currentUser } from "~/.server/domains/auth/guards";
import { embeddedSignupState } from "~/.server/domains/whatsapp/signup-state";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { takeToast } from "~/.server/infrastructure/http/toast";
import { createMetaSandbox, type MetaSandbox } from "@jumbe/sandbox/meta/index";
import * as callbackPage from "~/routes/app/embedded-callback";
import * as callbackApi from "~/routes/api/meta.embedded-callback";
import * as statusApi from "~/routes/api/embedded-signup.status";
import * as whatsappPage from "~/routes/app/whatsapp";
import * as dashboard from "~/routes/app/dashboard";
import * as connectionApi from "~/routes/api/whatsapp.account-connection";
import * as accountsApi from "~/routes/api/whatsapp.accounts";
import * as queueApi from "~/routes/api/admin.queue";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, routeArgs, run } from "../support/http";
import { startReceiver } from "../support/whatsapp";

let sandbox: MetaSandbox;
let server: Server;
let graphBase = "";
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  sandbox = createMetaSandbox({
    appId: env().META_APP_ID,
    appSecret: env().META_APP_SECRET,
    configId: env().META_CONFIG_ID,
    webhookUrl: receiver.url,
    batchWindowMs: 1,
  });
  const app = express();
  app.use("/sandbox/meta", sandbox.router);
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const address = server.address();
  graphBase = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/sandbox/meta/graph`;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((resolve) => server.close(resolve));
  await receiver.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", GRAPH_API_BASE_URL: graphBase, GRAPH_API_TIMEOUT_MS: "3000" }));
  sandbox.reset();
});

async function signedInTenant(name = "Biashara Bora Ltd") {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const current = (await currentUser({ request: getRequest("/", { cookie }), context: undefined }))!;
  return { ...account, cookie, state: embeddedSignupState(current) };
}

function callbackQuery(params: Record<string, string | undefined>) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return `/embedded-callback?${q}`;
}

/** Runs the callback page as a browser would: the processing request, then the result page it redirects to. */
async function completeCallback(cookie: string, params: Record<string, string | undefined>) {
  const first = await run(callbackPage.loader, getRequest(callbackQuery(params), { cookie }));
  expect(first.status).toBe(302);
  const shown = await run(callbackPage.loader, getRequest(first.location!, { cookie }));
  return { first, shown };
}

describe("Embedded Signup callback", () => {
  it("connects the WABA: exchanges the code, checks the grant, registers the number, subscribes the app and stores it all", async () => {
    const tenant = await signedInTenant();
    const business = sandbox.createTestBusiness({
      businessName: "Biashara Bora",
      verifiedName: "Biashara Bora",
      displayPhoneNumber: "+254 733 100 200",
    });
    const code = sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });

    const { first, shown } = await completeCallback(tenant.cookie, {
      code,
      shared_waba_id: business.wabaId,
      phone_number_id: business.phoneNumberId,
      state: tenant.state,
    });
    expect(first.location).toBe(`/embedded-callback?outcome=connected&waba=${business.wabaId}`);
    expect(first.setCookies.join(";")).toContain("toast");
    expect(shown.data).toEqual({ state: "success", numbers: ["+254733100200 (Biashara Bora)"] });

    const [account] = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.organizationId, tenant.organization.id));
    expect(account).toMatchObject({ wabaId: business.wabaId, status: "connected", subscribed: true, tokenExpiresAt: null });
    expect(decryptSecret(account!.accessTokenEncrypted)).toMatch(/^EAA/);
    expect(account!.accessTokenEncrypted).not.toContain(decryptSecret(account!.accessTokenEncrypted));
    const [phone] = await db().select().from(whatsappPhoneNumbers).where(eq(whatsappPhoneNumbers.organizationId, tenant.organization.id));
    expect(phone).toMatchObject({
      phoneNumberId: business.phoneNumberId,
      phoneDigits: "254733100200",
      verifiedName: "Biashara Bora",
      platformType: "CLOUD_API",
      status: "CONNECTED",
    });
    const [pin] = await db()
      .select()
      .from(whatsappRegistrationPins)
      .where(eq(whatsappRegistrationPins.phoneNumberId, business.phoneNumberId));
    expect(decryptSecret(pin!.pinEncrypted)).toMatch(/^\d{6}$/);
    const [org] = await db().select().from(organizations).where(eq(organizations.id, tenant.organization.id));
    expect(org!.whatsappNumber).toBe("+254733100200");

    // Meta's side agrees: the app is subscribed and the number registered.
    const steps = sandbox.calls().map((c) => `${c.method} ${c.step}`);
    expect(steps).toEqual(
      expect.arrayContaining(["GET oauth", "GET debug_token", "GET phone_numbers", "POST register", "POST subscribed_apps"]),
    );

    const status = await run(statusApi.loader, getRequest("/api/embedded-signup/status", { cookie: tenant.cookie }));
    expect(status.data).toEqual({
      completed: true,
      steps: [
        { id: "embedded-signup", title: "Embedded Signup", status: "completed" },
        { id: "verify-number", title: "Verify Number", status: "completed" },
        { id: "complete-setup", title: "Complete Setup", status: "completed" },
      ],
    });

    // PARTNER_ADDED went out when the dialog finished; here it is sent now and processed.
    await sandbox.sendAccountUpdate({ wabaId: business.wabaId, event: "PARTNER_ADDED" });
    await sandbox.flushWebhooks();
    await drainJobs();
    const logged = await db().select().from(activityLogs).where(eq(activityLogs.organizationId, tenant.organization.id));
    expect(logged.map((l) => l.action)).toEqual(
      expect.arrayContaining(["WhatsApp account connected", "Meta confirmed the WhatsApp connection"]),
    );
  });

  it("answers 'Missing required parameters.' without code or shared_waba_id, and changes nothing", async () => {
    const tenant = await signedInTenant();
    const { first, shown } = await completeCallback(tenant.cookie, { code: "abc", state: tenant.state });
    expect(first.location).toBe("/embedded-callback?outcome=missing");
    expect(shown.data).toEqual({ state: "missing" });
    const api = await run(callbackApi.loader, getRequest("/api/meta/embedded-callback?shared_waba_id=123", { cookie: tenant.cookie }));
    expect(api.status).toBe(400);
    expect(api.data).toEqual({ message: "Missing required parameters." });
    expect(sandbox.calls()).toHaveLength(0);
  });

  it("refuses a callback whose state is not this session's (a link crafted elsewhere)", async () => {
    const tenant = await signedInTenant();
    const other = await signedInTenant("Mshambulizi Ltd");
    const business = sandbox.createTestBusiness();
    const code = sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
    const { shown } = await completeCallback(tenant.cookie, { code, shared_waba_id: business.wabaId, state: other.state });
    expect(shown.data).toMatchObject({ state: "error", reason: expect.stringContaining("not started from your session") });
    expect(sandbox.calls()).toHaveLength(0);
    expect(await db().select().from(whatsappAccounts)).toHaveLength(0);
  });

  it("fails cleanly on an expired code and on a reused one", async () => {
    const tenant = await signedInTenant();
    const business = sandbox.createTestBusiness();
    const code = sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
    const params = { code, shared_waba_id: business.wabaId, state: tenant.state };
    const ok = await completeCallback(tenant.cookie, params);
    expect(ok.shown.data).toMatchObject({ state: "success" });

    const reused = await run(
      callbackApi.loader,
      getRequest(`/api/meta/embedded-callback?${new URLSearchParams(params)}`, { cookie: tenant.cookie }),
    );
    expect(reused.status).toBe(400);
    expect(reused.data).toMatchObject({
      message: "Failed to complete signup. Please try again.",
      reason: "expired",
      graphError: expect.stringContaining("36009"),
    });

    // A code older than 30 seconds, on a sandbox whose clock has moved on.
    let now = Date.now();
    const clocked = createMetaSandbox({
      appId: env().META_APP_ID,
      appSecret: env().META_APP_SECRET,
      webhookUrl: receiver.url,
      now: () => now,
    });
    const app = express().use("/sandbox/meta", clocked.router);
    const s = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    try {
      const port = (s.address() as { port: number }).port;
      setEnv(
        parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", GRAPH_API_BASE_URL: `http://127.0.0.1:${port}/sandbox/meta/graph` }),
      );
      const b2 = clocked.createTestBusiness();
      const stale = clocked.issueCode({ businessId: b2.businessId, wabaIds: [b2.wabaId] });
      now += 31_000;
      const expired = await completeCallback(tenant.cookie, { code: stale, shared_waba_id: b2.wabaId, state: tenant.state });
      expect(expired.shown.data).toEqual({
        state: "error",
        reason: "The signup code from Meta has expired or was already used. Please connect again.",
      });
      expect(await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.wabaId, b2.wabaId))).toHaveLength(0);
    } finally {
      await clocked.close();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  it("refuses a WABA the token does not grant (a spoofed session-info message)", async () => {
    const tenant = await signedInTenant();
    const mine = sandbox.createTestBusiness();
    const someoneElses = sandbox.createTestBusiness({ businessName: "Other Co" });
    const code = sandbox.issueCode({ businessId: mine.businessId, wabaIds: [mine.wabaId] });
    const { shown } = await completeCallback(tenant.cookie, { code, shared_waba_id: someoneElses.wabaId, state: tenant.state });
    expect(shown.data).toEqual({ state: "error", reason: "Meta did not grant Jumbe access to the WhatsApp Business Account you chose." });
    expect(await db().select().from(whatsappAccounts)).toHaveLength(0);
    expect(sandbox.calls().map((c) => c.step)).not.toContain("subscribed_apps");
  });

  for (const step of ["oauth", "debug_token", "phone_numbers", "register", "subscribed_apps"] as const) {
    it(`leaves nothing half-connected when Meta fails at ${step}`, async () => {
      const tenant = await signedInTenant();
      const business = sandbox.createTestBusiness();
      const code = sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
      sandbox.injectFault({ step, error: { code: 131000, message: "Something went wrong", status: 500 }, times: Infinity });
      const { first, shown } = await completeCallback(tenant.cookie, { code, shared_waba_id: business.wabaId, state: tenant.state });
      expect(first.location).toMatch(/outcome=failed/);
      expect(first.setCookies.join(";")).toContain("toast");
      expect(shown.data).toMatchObject({ state: "error" });
      expect(await db().select().from(whatsappAccounts)).toHaveLength(0);
      expect(await db().select().from(whatsappPhoneNumbers)).toHaveLength(0);
      const [org] = await db().select().from(organizations).where(eq(organizations.id, tenant.organization.id));
      expect(org!.whatsappNumber).toBeNull();
      const failed = await db()
        .select()
        .from(activityLogs)
        .where(and(eq(activityLogs.organizationId, tenant.organization.id), eq(activityLogs.action, "WhatsApp connection failed")));
      expect(failed).toHaveLength(1);
      expect(failed[0]!.details).toContain("131000");
      // Meta's side: not subscribed, whatever happened before the failure.
      sandbox.clearFaults();
      const state = await (await fetch(graphBase.replace("/graph", "/control/state"))).json();
      expect(JSON.stringify(state.subscriptions ?? {})).not.toContain(business.wabaId);

      const status = await run(statusApi.loader, getRequest("/api/embedded-signup/status", { cookie: tenant.cookie }));
      expect(status.data).toMatchObject({ completed: false, steps: [{ status: "error" }, { status: "pending" }, { status: "pending" }] });
      // The steps come from the attempt's own record, not from the activity log's wording.
      await db().update(activityLogs).set({ action: "Reworded" }).where(eq(activityLogs.organizationId, tenant.organization.id));
      const [attempt] = await db()
        .select()
        .from(whatsappSignupAttempts)
        .where(eq(whatsappSignupAttempts.organizationId, tenant.organization.id));
      expect(attempt).toMatchObject({ wabaId: business.wabaId, outcome: "failed", reason: expect.stringContaining("131000") });
      const again = await run(statusApi.loader, getRequest("/api/embedded-signup/status", { cookie: tenant.cookie }));
      expect(again.data.steps[0]).toMatchObject({ status: "error" });
    });
  }

  it("a failed attempt after registration reuses the stored PIN on the next attempt", async () => {
    const tenant = await signedInTenant();
    const business = sandbox.createTestBusiness();
    sandbox.injectFault({ step: "subscribed_apps", error: { code: 2, message: "Service temporarily unavailable", status: 503 }, times: 3 });
    const first = await completeCallback(tenant.cookie, {
      code: sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] }),
      shared_waba_id: business.wabaId,
      state: tenant.state,
    });
    expect(first.shown.data).toMatchObject({ state: "error" });
    // The number was registered with a PIN before the subscription failed: the next attempt must send the same PIN.
    const second = await completeCallback(tenant.cookie, {
      code: sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] }),
      shared_waba_id: business.wabaId,
      state: tenant.state,
    });
    expect(second.shown.data).toMatchObject({ state: "success" });
  });

  it("keeps each WABA and number with one tenant: another tenant cannot take it, see it or toggle it", async () => {
    const owner = await signedInTenant("Owner Ltd");
    const intruder = await signedInTenant("Intruder Ltd");
    const business = sandbox.createTestBusiness();
    const issue = () => sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
    expect(
      (await completeCallback(owner.cookie, { code: issue(), shared_waba_id: business.wabaId, state: owner.state })).shown.data,
    ).toMatchObject({ state: "success" });

    const taken = await completeCallback(intruder.cookie, { code: issue(), shared_waba_id: business.wabaId, state: intruder.state });
    expect(taken.shown.data).toEqual({ state: "error", reason: "This WhatsApp Business Account is connected to another organisation." });

    const page = await run(whatsappPage.loader, getRequest("/whatsapp", { cookie: intruder.cookie }));
    expect(page.data.connections).toEqual([]);
    const board = await run(dashboard.loader, getRequest("/dashboard", { cookie: intruder.cookie }));
    expect(board.data.overview.whatsapp.connections).toEqual([]);
    expect((await run(accountsApi.loader, getRequest("/api/whatsapp/accounts", { cookie: intruder.cookie }))).data).toEqual({
      accounts: [],
    });
    expect((await run(accountsApi.loader, getRequest("/api/whatsapp/accounts", { cookie: owner.cookie }))).data.accounts).toEqual([
      expect.objectContaining({ wabaId: business.wabaId, status: "connected" }),
    ]);
    // The queue's health is for administrators only.
    expect((await run(queueApi.loader, getRequest("/api/admin/queue", { cookie: intruder.cookie }))).status).toBe(404);

    const [account] = await db().select().from(whatsappAccounts);
    for (const confirm of ["yes", undefined]) {
      const toggled = await run(
        whatsappPage.action,
        formRequest(
          "/whatsapp",
          { intent: "disconnect", accountId: account!.id, ...(confirm ? { confirm } : {}) },
          { cookie: intruder.cookie },
        ),
      );
      expect(toggled.status).toBe(404);
    }
    expect(
      (await run(whatsappPage.loader, getRequest(`/whatsapp?confirm=disconnect&account=${account!.id}`, { cookie: intruder.cookie }))).data
        .confirmDisconnect,
    ).toBeNull();
    const api = await connectionApi.action(
      routeArgs(
        new Request(`http://jumbe.test/api/whatsapp/accounts/${account!.id}/disconnect`, {
          method: "POST",
          headers: { cookie: intruder.cookie },
        }),
        { id: account!.id, change: "disconnect" },
      ),
    );
    expect(api.status).toBe(404);
    const [still] = await db().select().from(whatsappAccounts);
    expect(still).toMatchObject({ status: "connected", organizationId: owner.organization.id });
  });

  it("two tenants connecting one WABA at once: the winner stays subscribed at Meta, the loser is told it is taken", async () => {
    const subscribedAt = async (wabaId: string) => {
      const state = await (await fetch(graphBase.replace("/graph", "/control/state"))).json();
      return (state.subscriptions as { wabaId: string }[]).some((s) => s.wabaId === wabaId);
    };
    for (let round = 0; round < 3; round++) {
      const one = await signedInTenant(`Kwanza ${round} Ltd`);
      const two = await signedInTenant(`Pili ${round} Ltd`);
      const business = sandbox.createTestBusiness();
      const issue = () => sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
      const results = await Promise.all(
        [one, two].map((t) => completeCallback(t.cookie, { code: issue(), shared_waba_id: business.wabaId, state: t.state })),
      );
      const shown = results.map((r) => r.shown.data);
      expect(shown.filter((d) => d.state === "success")).toHaveLength(1);
      expect(shown.filter((d) => d.state === "error")).toEqual([
        { state: "error", reason: "This WhatsApp Business Account is connected to another organisation." },
      ]);
      const winner = shown[0]!.state === "success" ? one : two;
      const stored = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.wabaId, business.wabaId));
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ organizationId: winner.organization.id, status: "connected", subscribed: true });
      expect(await subscribedAt(business.wabaId)).toBe(true);
    }
  });

  it("lets another organisation connect a number the first one disconnected; the first keeps its history and cannot take it back", async () => {
    const first = await signedInTenant("Kwanza Ltd");
    const second = await signedInTenant("Pili Ltd");
    const business = sandbox.createTestBusiness({ displayPhoneNumber: "+254 745 100 200" });
    const issue = () => sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
    expect(
      (await completeCallback(first.cookie, { code: issue(), shared_waba_id: business.wabaId, state: first.state })).shown.data,
    ).toMatchObject({ state: "success" });
    await sandbox.sendInboundText({
      phoneNumberId: business.phoneNumberId,
      from: "254799000001",
      name: "Mteja wa Kwanza",
      text: "Habari Kwanza",
    });
    await sandbox.flushWebhooks();
    await drainJobs();
    const [firstAccount] = await db().select().from(whatsappAccounts);
    await run(
      whatsappPage.action,
      formRequest("/whatsapp", { intent: "disconnect", accountId: firstAccount!.id, confirm: "yes" }, { cookie: first.cookie }),
    );
    expect((await db().select().from(whatsappAccounts))[0]).toMatchObject({ status: "disconnected" });

    const taken = await completeCallback(second.cookie, { code: issue(), shared_waba_id: business.wabaId, state: second.state });
    expect(taken.shown.data).toMatchObject({ state: "success" });
    const accounts = await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.wabaId, business.wabaId));
    expect(accounts.map((a) => [a.organizationId, a.status]).sort()).toEqual(
      [
        [first.organization.id, "disconnected"],
        [second.organization.id, "connected"],
      ].sort(),
    );
    const numbers = await db().select().from(whatsappPhoneNumbers).where(eq(whatsappPhoneNumbers.phoneNumberId, business.phoneNumberId));
    expect(numbers).toHaveLength(2);
    expect(numbers.find((n) => n.organizationId === second.organization.id)).toMatchObject({ disconnectedAt: null });
    expect(numbers.find((n) => n.organizationId === first.organization.id)!.disconnectedAt).not.toBeNull();

    // New messages go to the live connection only; the first organisation keeps what it had.
    await sandbox.sendInboundText({
      phoneNumberId: business.phoneNumberId,
      from: "254799000002",
      name: "Mteja wa Pili",
      text: "Habari Pili",
    });
    await sandbox.flushWebhooks();
    await drainJobs();
    const bodies = async (org: string) => (await db().select().from(messages).where(eq(messages.organizationId, org))).map((m) => m.body);
    expect(await bodies(first.organization.id)).toEqual(["Habari Kwanza"]);
    expect(await bodies(second.organization.id)).toEqual(["Habari Pili"]);
    const firstPage = await run(whatsappPage.loader, getRequest("/whatsapp", { cookie: first.cookie }));
    expect(firstPage.data.connections).toEqual([
      expect.objectContaining({
        wabaId: business.wabaId,
        status: "disconnected",
        numbers: [expect.objectContaining({ number: "+254745100200" })],
      }),
    ]);

    // Reconnecting the old link would take the number from its new owner: refused, nothing changes.
    const back = await run(
      whatsappPage.action,
      formRequest("/whatsapp", { intent: "reconnect", accountId: firstAccount!.id }, { cookie: first.cookie }),
    );
    const toast = await takeToast(
      new Request("http://jumbe.test/whatsapp", { headers: { cookie: back.setCookies.map((c: string) => c.split(";")[0]).join("; ") } }),
    );
    expect(toast.toast).toMatchObject({ type: "error", message: "This WhatsApp Business Account is connected to another organisation." });
    expect((await db().select().from(whatsappAccounts).where(eq(whatsappAccounts.id, firstAccount!.id)))[0]).toMatchObject({
      status: "disconnected",
    });
    const again = await completeCallback(first.cookie, { code: issue(), shared_waba_id: business.wabaId, state: first.state });
    expect(again.shown.data).toEqual({ state: "error", reason: "This WhatsApp Business Account is connected to another organisation." });
  });

  it("a tenant connecting its own disconnected WABA again gets its old link back, not a second one", async () => {
    const tenant = await signedInTenant();
    const business = sandbox.createTestBusiness();
    const issue = () => sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] });
    await completeCallback(tenant.cookie, { code: issue(), shared_waba_id: business.wabaId, state: tenant.state });
    const [account] = await db().select().from(whatsappAccounts);
    await run(
      whatsappPage.action,
      formRequest("/whatsapp", { intent: "disconnect", accountId: account!.id, confirm: "yes" }, { cookie: tenant.cookie }),
    );
    expect(
      (await completeCallback(tenant.cookie, { code: issue(), shared_waba_id: business.wabaId, state: tenant.state })).shown.data,
    ).toMatchObject({ state: "success" });
    expect(await db().select().from(whatsappAccounts)).toEqual([
      expect.objectContaining({ id: account!.id, status: "connected", disconnectedAt: null }),
    ]);
    expect(await db().select().from(whatsappPhoneNumbers)).toEqual([
      expect.objectContaining({ phoneNumberId: business.phoneNumberId, disconnectedAt: null }),
    ]);
  });

  it("disconnects (unsubscribes at Meta, keeps the history) and reconnects from the Overview card", async () => {
    const tenant = await signedInTenant();
    const business = sandbox.createTestBusiness({ displayPhoneNumber: "+254 744 555 666", verifiedName: "Duka Letu" });
    await completeCallback(tenant.cookie, {
      code: sandbox.issueCode({ businessId: business.businessId, wabaIds: [business.wabaId] }),
      shared_waba_id: business.wabaId,
      state: tenant.state,
    });
    const [account] = await db().select().from(whatsappAccounts);

    const board = await run(dashboard.loader, getRequest("/dashboard", { cookie: tenant.cookie }));
    // Connected, but no template approved yet: still Setup (Active needs both).
    expect(board.data.overview).toMatchObject({ accountStatus: "Setup", progress: { whatsapp: true, templates: false } });
    expect(board.data.overview.whatsapp.connections[0]).toMatchObject({
      status: "connected",
      numbers: [{ number: "+254744555666", verifiedName: "Duka Letu", quality: "high" }],
    });

    // Without confirm=yes the action only asks: the page shows the question, the account stays connected.
    const asked = await run(
      whatsappPage.action,
      formRequest("/whatsapp", { intent: "disconnect", accountId: account!.id, redirectTo: "/dashboard" }, { cookie: tenant.cookie }),
    );
    expect(asked.status).toBe(302);
    expect(asked.location).toBe(`/whatsapp?confirm=disconnect&account=${account!.id}&redirectTo=%2Fdashboard`);
    expect((await db().select().from(whatsappAccounts))[0]).toMatchObject({ status: "connected", subscribed: true });
    const question = await run(whatsappPage.loader, getRequest(asked.location!, { cookie: tenant.cookie }));
    expect(question.data.confirmDisconnect).toEqual({
      accountId: account!.id,
      label: expect.stringContaining("+254744555666"),
      redirectTo: "/dashboard",
    });
    // Cancel is a link back; a question for an account that is not connected (or not this tenant's) is not asked.
    const unknown = await run(
      whatsappPage.loader,
      getRequest("/whatsapp?confirm=disconnect&account=00000000-0000-4000-8000-000000000000", { cookie: tenant.cookie }),
    );
    expect(unknown.data.confirmDisconnect).toBeNull();

    const off = await run(
      whatsappPage.action,
      formRequest(
        "/whatsapp",
        { intent: "disconnect", accountId: account!.id, redirectTo: "/dashboard", confirm: "yes" },
        { cookie: tenant.cookie },
      ),
    );
    expect(off.location).toBe("/dashboard");
    expect((await db().select().from(whatsappAccounts))[0]).toMatchObject({ status: "disconnected", subscribed: false });
    expect(await db().select().from(whatsappPhoneNumbers)).toHaveLength(1);
    let state = await (await fetch(graphBase.replace("/graph", "/control/state"))).json();
    expect(JSON.stringify(state.subscriptions ?? {})).not.toContain(business.wabaId);
    const afterOff = await run(dashboard.loader, getRequest("/dashboard", { cookie: tenant.cookie }));
    expect(afterOff.data.overview).toMatchObject({ accountStatus: "Setup", progress: { whatsapp: false }, whatsapp: { connected: false } });
    // The steps agree with the status line: nothing live is connected, so no step reads completed.
    const page = await run(whatsappPage.loader, getRequest("/whatsapp", { cookie: tenant.cookie }));
    expect(page.data.status).toEqual({
      completed: false,
      steps: [
        { id: "embedded-signup", title: "Embedded Signup", status: "pending" },
        { id: "verify-number", title: "Verify Number", status: "pending" },
        { id: "complete-setup", title: "Complete Setup", status: "pending" },
      ],
    });
    expect(page.data.connections).toEqual([expect.objectContaining({ status: "disconnected" })]);

    const on = await run(
      whatsappPage.action,
      formRequest("/whatsapp", { intent: "reconnect", accountId: account!.id, redirectTo: "/dashboard" }, { cookie: tenant.cookie }),
    );
    expect(on.location).toBe("/dashboard");
    expect((await db().select().from(whatsappAccounts))[0]).toMatchObject({ status: "connected", subscribed: true });
    state = await (await fetch(graphBase.replace("/graph", "/control/state"))).json();
    expect(JSON.stringify(state.subscriptions ?? {})).toContain(business.wabaId);
  });

  it("connects more than one number for a tenant: a second WABA, and a WABA with two numbers", async () => {
    const tenant = await signedInTenant();
    const first = sandbox.createTestBusiness({ displayPhoneNumber: "+254 701 111 111", verifiedName: "Tawi la Kwanza" });
    const second = sandbox.createTestBusiness({ displayPhoneNumber: "+254 702 222 222", verifiedName: "Tawi la Pili" });
    const extra = sandbox.addPhoneNumber(second.wabaId, { displayPhoneNumber: "+254 703 333 333", verifiedName: "Tawi la Tatu" });
    for (const b of [first, second])
      expect(
        (
          await completeCallback(tenant.cookie, {
            code: sandbox.issueCode({ businessId: b.businessId, wabaIds: [b.wabaId] }),
            shared_waba_id: b.wabaId,
            state: tenant.state,
          })
        ).shown.data,
      ).toMatchObject({ state: "success" });

    const page = await run(whatsappPage.loader, getRequest("/whatsapp", { cookie: tenant.cookie }));
    expect(
      page.data.connections.map((c: { wabaId: string; numbers: { number: string }[] }) => [c.wabaId, c.numbers.map((n) => n.number)]),
    ).toEqual([
      [first.wabaId, ["+254701111111"]],
      [second.wabaId, ["+254702222222", "+254703333333"]],
    ]);
    expect(
      (await db().select().from(whatsappPhoneNumbers).where(eq(whatsappPhoneNumbers.phoneNumberId, extra.phoneNumberId)))[0],
    ).toMatchObject({ platformType: "CLOUD_API" });
    const [org] = await db().select().from(organizations).where(eq(organizations.id, tenant.organization.id));
    expect(org!.whatsappNumber).toBe("+254701111111");
  });

  it("processes the sandbox's duplicated and reordered deliveries once, ending at the highest status", async () => {
    const tenant = await signedInTenant();
    const b = sandbox.createTestBusiness();
    await completeCallback(tenant.cookie, {
      code: sandbox.issueCode({ businessId: b.businessId, wabaIds: [b.wabaId] }),
      shared_waba_id: b.wabaId,
      state: tenant.state,
    });
    await db().insert(messages).values({
      organizationId: tenant.organization.id,
      direction: "outbound",
      status: "accepted",
      body: "Karibu!",
      wamid: "wamid.CHAOS1",
      phoneNumberId: b.phoneNumberId,
    });
    sandbox.setDeliveryChaos({ duplicate: 2, reorder: true });
    for (const status of ["sent", "delivered", "read"] as const)
      await sandbox.sendStatus({ phoneNumberId: b.phoneNumberId, wamid: "wamid.CHAOS1", status, recipientId: "254712345678" });
    await sandbox.sendInboundText({ phoneNumberId: b.phoneNumberId, from: "254799111222", name: "Baraka", text: "Nimepokea, asante 👍" });
    await sandbox.flushWebhooks();
    const sent = sandbox.deliveries().filter((d) => d.state === "delivered");
    expect(sent.length).toBeGreaterThanOrEqual(12); // 4 changes, each sent three times
    await drainJobs();

    const [message] = await db().select().from(messages).where(eq(messages.wamid, "wamid.CHAOS1"));
    expect(message!.status).toBe("read");
    expect(
      (await db().select().from(messageStatuses).where(eq(messageStatuses.wamid, "wamid.CHAOS1"))).map((s) => s.status).sort(),
    ).toEqual(["delivered", "read", "sent"]);
    const inbound = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.organizationId, tenant.organization.id), eq(messages.direction, "inbound")));
    expect(inbound.map((m) => m.body)).toEqual(["Nimepokea, asante 👍"]);
  });
});
