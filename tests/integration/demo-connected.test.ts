import type { Server } from "node:http";
import express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { DEMO_ACCOUNTS, DEMO_TEMPLATES, seedDemoData } from "~/.server/demo/seed";
import { demoConnectionForSandbox } from "~/.server/demo/seed-demo-connection";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { action as conversationAction } from "~/routes/app/chat/conversation";
import { loader as adminLayoutLoader } from "~/routes/admin/layout";
import { loader as adminNotificationsLoader } from "~/routes/admin/notifications";
import { createMetaSandbox, type MetaSandbox } from "@jumbe/sandbox/meta/index";
import { businessDemoIds, businessDemoTemplateId, businessDemoToken } from "@jumbe/sandbox/meta/business-demo";
import { formRequest, getRequest, routeArgs, run } from "../support/http";
import { signedInCookie } from "../support/accounts";
import { startReceiver } from "../support/whatsapp";
import { overviewFigures } from "~/.server/domains/dashboard/progress";
import { estimateSendCost } from "~/.server/domains/billing/charging";
import { db } from "~/.server/infrastructure/db/client";

// Issue 39, "a demo that makes sense on first sight": on a fresh start the demo business is connected
// to the Meta sandbox's demo number as Embedded Signup leaves it, its templates are approved in Jumbe
// and at the sandbox under the same ids, its open conversations can be answered through the sandbox,
// every demo organisation has a name of its own, and the platform's organisation is no sign-up.

const business = DEMO_ACCOUNTS.find((a) => a.usertype === "individual")!;
const admin = DEMO_ACCOUNTS.find((a) => a.usertype === "admin")!;

async function demoOrganization() {
  const [row] = await rawQuery<{ organization_id: string }>(`select organization_id from users where email = $1`, [business.email]);
  return row!.organization_id;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The sandbox as sandbox mode starts it beside the seeded demo, its webhooks to Jumbe's receiver. */
async function sandboxAsStarted(): Promise<MetaSandbox> {
  const receiver = await startReceiver();
  const demoConnection = await demoConnectionForSandbox(DEMO_TEMPLATES);
  expect(demoConnection, "the seeded demo asks the sandbox for its connection").toBeDefined();
  const sandbox = createMetaSandbox({
    appId: env().META_APP_ID,
    appSecret: env().META_APP_SECRET,
    webhookUrl: receiver.url,
    batchWindowMs: 1,
    statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
    consoleDemo: true,
    demoConnection,
  });
  const app = express();
  app.use("/sandbox/meta", sandbox.router);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", GRAPH_API_BASE_URL: `http://127.0.0.1:${port}/sandbox/meta/graph` }));
  close = async () => {
    await sandbox.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await receiver.close();
  };
  return sandbox;
}

describe("the demo business on a fresh start", () => {
  it("is connected to the sandbox's demo number as Embedded Signup leaves it, and the sandbox agrees", async () => {
    expect(await seedDemoData()).toBe(true);
    const organizationId = await demoOrganization();
    const ids = businessDemoIds(env().META_APP_ID);
    const accounts = await rawQuery<{ waba_id: string; status: string; subscribed: boolean; token: string; business_id: string }>(
      `select waba_id, status, subscribed, access_token_encrypted as token, business_id from whatsapp_accounts where organization_id = $1`,
      [organizationId],
    );
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({ waba_id: ids.wabaId, business_id: ids.businessId, status: "connected", subscribed: true });
    expect(decryptSecret(accounts[0]!.token)).toBe(businessDemoToken(env().META_APP_ID));
    const numbers = await rawQuery<{
      phone_number_id: string;
      registered_at: Date | null;
      platform_type: string;
      display_phone_number: string;
    }>(
      `select phone_number_id, registered_at, platform_type, display_phone_number from whatsapp_phone_numbers where organization_id = $1`,
      [organizationId],
    );
    expect(numbers).toHaveLength(1);
    expect(numbers[0]).toMatchObject({ phone_number_id: ids.phoneNumberId, platform_type: "CLOUD_API" });
    expect(numbers[0]!.registered_at).not.toBeNull();
    // Every message of the demo's history went from that number.
    const [others] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from messages where organization_id = $1 and direction = 'outbound' and phone_number_id <> $2`,
      [organizationId, ids.phoneNumberId],
    );
    expect(others!.n).toBe(0);

    const sandbox = await sandboxAsStarted();
    const state = await fetchState();
    const phone = state.phoneNumbers.find((p) => p.id === ids.phoneNumberId)!;
    expect(phone).toMatchObject({ registered: true, platformType: "CLOUD_API", displayPhoneNumber: numbers[0]!.display_phone_number });
    expect(state.wabas.find((w) => w.id === ids.wabaId)).toMatchObject({ subscribed: true, name: business.organization });

    // The templates: approved in Jumbe, and at the sandbox under the same names and ids.
    const templates = await rawQuery<{ name: string; language: string; status: string; meta_template_id: string; waba_id: string }>(
      `select name, language, status, meta_template_id, waba_id from message_templates where organization_id = $1 order by name`,
      [organizationId],
    );
    expect(templates.map((t) => t.name)).toEqual(DEMO_TEMPLATES.map((t) => t.name).sort());
    const atMeta = sandbox.templates(ids.wabaId);
    for (const t of templates) {
      expect(t, t.name).toMatchObject({ status: "approved", waba_id: ids.wabaId });
      expect(t.meta_template_id).toBe(businessDemoTemplateId(env().META_APP_ID, t.name, t.language));
      expect(
        atMeta.find((m) => m.id === t.meta_template_id),
        t.name,
      ).toMatchObject({ name: t.name, language: t.language, status: "APPROVED" });
    }

    async function fetchState() {
      const base = env().GRAPH_API_BASE_URL.replace(/\/graph$/, "");
      return (await (await fetch(`${base}/control/state`)).json()) as {
        phoneNumbers: { id: string; registered: boolean; platformType: string; displayPhoneNumber: string }[];
        wabas: { id: string; subscribed: boolean; name: string }[];
      };
    }
  });

  it("answers a customer who wrote recently through the sandbox, and the reply comes back delivered", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    const ids = businessDemoIds(env().META_APP_ID);
    const [open] = await rawQuery<{ id: string; last_inbound_at: Date | string }>(
      `select id, last_inbound_at from conversations where organization_id = $1 and phone_number_id = $2
       order by last_inbound_at desc nulls last limit 1`,
      [organizationId, ids.phoneNumberId],
    );
    expect(Date.now() - new Date(open!.last_inbound_at).getTime(), "inside the 24-hour window").toBeLessThan(24 * 3600_000);
    const sandbox = await sandboxAsStarted();

    const cookie = await signedInCookie(business.email, business.password);
    const request = formRequest(
      `/chat/${open!.id}`,
      { intent: "send", body: "Asante kwa kutuandikia. Tunashughulikia ombi lako sasa." },
      { cookie },
    );
    let answered: unknown;
    try {
      answered = await conversationAction(routeArgs(request, { id: open!.id }));
    } catch (thrown) {
      answered = thrown;
    }
    expect(answered instanceof Response ? answered.status : 200, JSON.stringify(answered)).toBeLessThan(400);
    const [queued] = await rawQuery<{ id: string }>(
      `select id from messages where organization_id = $1 and source = 'inbox' and body like 'Asante kwa kutuandikia%'`,
      [organizationId],
    );
    expect(queued).toBeDefined();
    await drainDispatcher();
    await vi.waitFor(
      async () => {
        await drainJobs();
        const [row] = await rawQuery<{ status: string; error_title: string | null }>(
          `select status, error_title from messages where id = $1`,
          [queued!.id],
        );
        expect(row!.error_title).toBeNull();
        expect(["delivered", "read"]).toContain(row!.status);
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(sandbox.messages({ phoneNumberId: ids.phoneNumberId })).toHaveLength(1);
  });
});

describe("the demo's figures", () => {
  it("agree with each other: a connected number beside the messages it sent, every template approved, an estimate at the plan's price", async () => {
    await seedDemoData();
    const organizationId = await demoOrganization();
    // "Messages this month" as the Overview showed it when the demo last sent: in the first minutes of a
    // Nairobi month the demo has rightly sent nothing yet this month.
    const [last] = await rawQuery<{ at: Date }>(
      `select max(accepted_at) as at from messages where organization_id = $1 and direction = 'outbound' and billable`,
      [organizationId],
    );
    expect(last!.at).not.toBeNull();
    const figures = await overviewFigures(organizationId, new Date(last!.at));
    expect(figures.messagesSent).toBeGreaterThan(0);
    expect(figures.progress.whatsapp, "messages sent from a connected number").toBe(true);
    expect([figures.templatesApproved, figures.templatesTotal]).toEqual([DEMO_TEMPLATES.length, DEMO_TEMPLATES.length]);
    // Every campaign names an approved template of the number it goes from.
    const [orphans] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from campaigns c where c.organization_id = $1 and not exists (
         select 1 from message_templates t where t.organization_id = c.organization_id and t.name = c.template_name
           and t.language = c.template_language and t.status = 'approved')`,
      [organizationId],
    );
    expect(orphans!.n).toBe(0);
    // The campaign waiting for approval shows what the plan would charge for it, as confirming estimates it.
    const [waiting] = await rawQuery<{ estimated: string; recipients: number }>(
      `select c.estimated_cost_cents::text as estimated,
              (select count(*)::int from contacts k where k.organization_id = c.organization_id and 'members' = any(k.tags)) as recipients
       from campaigns c where c.organization_id = $1 and c.status = 'awaiting_approval'`,
      [organizationId],
    );
    expect(Number(waiting!.estimated)).toBe((await estimateSendCost(db(), organizationId, waiting!.recipients)).totalCents);
    // The bell's notifications name only the demo's own campaigns, templates and number.
    const titles = (await rawQuery<{ title: string }>(`select title from notifications where organization_id = $1`, [organizationId])).map(
      (r) => r.title,
    );
    for (const title of titles) expect(title).not.toMatch(/Mavuno|711 000 101/);
    // Google Sheets: the rows the page says were exported are the batches Google took (issue 74).
    const [sheets] = await rawQuery<{ shown: number; recorded: number }>(
      `select e.rows_exported::int as shown,
              (select coalesce(sum(b.rows), 0)::int from google_sheets_export_batches b where b.organization_id = e.organization_id and not b.header) as recorded
       from google_sheets_exports e where e.organization_id = $1`,
      [organizationId],
    );
    expect(sheets!.shown).toBe(sheets!.recorded);
  });
});

describe("the demo's organisations", () => {
  it("each have a name of their own, and the platform's own is no sign-up in the administrator's bell", async () => {
    await seedDemoData();
    const names = (await rawQuery<{ name: string }>(`select name from organizations order by name`)).map((r) => r.name);
    expect(names.length).toBeGreaterThan(10);
    expect(
      names.filter((name, i) => names.indexOf(name) !== i),
      "names given twice",
    ).toEqual([]);

    const cookie = await signedInCookie(admin.email, admin.password);
    const header = await run<{ bell: { events: { kind: string; title: string }[] } }>(adminLayoutLoader, getRequest("/admin", { cookie }));
    const page = await run<{ events: { kind: string; title: string }[] }>(
      adminNotificationsLoader,
      getRequest("/admin/notifications", { cookie }),
    );
    const signups = [...header.data.bell.events, ...page.data.events].filter((e) => e.kind === "signup").map((e) => e.title);
    expect(signups.length, "the tenants' sign-ups are there").toBeGreaterThan(0);
    expect(signups.filter((title) => title.includes(admin.organization))).toEqual([]);
  });
});
