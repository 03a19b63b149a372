import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createCampaign } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaign, feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { LATE_FAILURES_QUEUE, tellLateFailures } from "~/.server/domains/campaigns/late-failures";
import { actionInWords, detailsInWords } from "~/.server/domains/activity/words";
import { noticeIn } from "~/.server/domains/notifications/words";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, recipient, setBucketRate } from "../support/sending-kit";

// Issue 74, "Figures that tell the truth": a campaign completes once Meta has accepted every
// message; Meta's failed statuses for three of its eight come after. The bell, the activity log (and
// so the dashboard, which shows the log) must end up saying 5 sent and 3 failed with why, each
// failure told once (decision 114); and a template refused with 131047 says what Meta meant.

const meta = metaSandboxForFile();

async function connectedTenant() {
  const account = await createVerifiedUser({ businessName: "Maji Safi Water" });
  const organizationId = account.organization.id;
  await rawQuery(`update organizations set billing_type = 'postpaid', plan_type = 'Growth' where id = $1`, [organizationId]);
  const connection = await meta.graph.connect(organizationId, "Maji Safi Water");
  const t = { organizationId, userId: account.user.id, ...connection };
  await approvedBodyTemplate(meta.graph, t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
  await setBucketRate(connection.phoneNumberId, 1000);
  return { ...t, cookie: await signedInCookie(account.email, account.password) };
}

const scalar = async (sql: string, params: unknown[]) => (await rawQuery<{ n: number }>(sql, params))[0]!.n;
const statusOf = async (id: string) => (await rawQuery<{ status: string }>(`select status from campaigns where id = $1`, [id]))[0]!.status;
const finished = (organizationId: string) =>
  rawQuery<{ title: string; body: string; words: unknown; read_at: string | null }>(
    `select title, body, words, read_at from notifications where organization_id = $1 and event = 'campaign_finished'`,
    [organizationId],
  );
const activity = (organizationId: string) =>
  rawQuery<{ action: string; status: string; details: string }>(
    `select action, status, details from activity_logs where organization_id = $1 and action like 'Campaign %' order by id`,
    [organizationId],
  );
/** The late-failures job, made due now (it waits a few seconds for a burst of statuses), then run. */
async function lateJobRuns() {
  await rawQuery(`update jobs set run_at = now() where queue = $1 and finished_at is null and failed_at is null`, [LATE_FAILURES_QUEUE]);
  await drainJobs();
}
/** A page's text as read: React's markers between adjacent texts taken out. */
const visible = async (response: Response) => (await response.text()).replaceAll("<!-- -->", "");

const REASONS = "2 not reachable on WhatsApp, 1 refused by WhatsApp as a re-engagement message";

describe("a campaign where 3 of 8 fail after it finished", () => {
  it("tells them in the bell and the activity log once they arrive, each failure once, in English and Swahili", async () => {
    const t = await connectedTenant();
    // Five who receive it; two not on WhatsApp (the sandbox fails …0000 with 131026 after accepting
    // it) and one refused as a re-engagement message (…0047, 131047), each in a status webhook later.
    const phones = [1, 2, 3, 4, 5].map(recipient).concat(["+254712340000", "+254712350000", "+254712340047"]);
    const id = await createCampaign(t, {
      name: "Maji Rongai",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Rongai" }] },
      audience: { phones },
    });
    await feedCampaign(id);
    // Meta accepts all eight; its webhooks wait in the job queue, not yet read.
    await vi.waitFor(
      async () => {
        await drainDispatcher();
        expect(await scalar(`select count(*)::int as n from messages where campaign_id = $1 and accepted_at is not null`, [id])).toBe(8);
      },
      { timeout: 30_000, interval: 20 },
    );
    await vi.waitFor(
      async () => {
        await feedCampaigns();
        expect(await statusOf(id)).toBe("completed");
      },
      { timeout: 30_000, interval: 20 },
    );
    // At that moment Meta had reported nothing failed: that is what it says then, and the owner reads it.
    expect((await finished(t.organizationId)).map((n) => n.body)).toEqual([
      "8 sent, none failed. Failures WhatsApp reports later show on its page, with the results.",
    ]);
    await rawQuery(`update notifications set read_at = now() where organization_id = $1`, [t.organizationId]);

    // Meta's three failed statuses arrive.
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect(await scalar(`select count(*)::int as n from messages where campaign_id = $1 and status = 'failed'`, [id])).toBe(3);
      },
      { timeout: 30_000, interval: 20 },
    );
    await lateJobRuns();

    const outcome = `5 sent, 3 failed (${REASONS})`;
    const [notice, ...others] = await finished(t.organizationId);
    expect(others).toEqual([]);
    expect(notice!.body).toBe(`${outcome}. WhatsApp reported 3 of these failures after it finished.`);
    expect(notice!.title).toBe("Campaign finished: Maji Rongai");
    // Unread again: the bell shows it to the owner who had read "none failed".
    expect(notice!.read_at).toBeNull();
    expect(noticeIn("sw", notice!).body).toBe(
      "Matokeo: zilizotumwa 5, zilizoshindwa 3 (hawapatikani kwenye WhatsApp: 2, zimekataliwa na WhatsApp kama ujumbe wa kumrudia mteja: 1). WhatsApp iliripoti 3 kati ya jumbe hizi zilizoshindwa baada ya kukamilika.",
    );

    const laterLine = {
      action: "Campaign failures reported after it finished",
      status: "warning",
      details: `Maji Rongai: WhatsApp reported 3 more failed after it finished (${REASONS}). In all: ${outcome}.`,
    };
    expect(await activity(t.organizationId)).toEqual([
      expect.objectContaining({ action: "Campaign started" }),
      {
        action: "Campaign completed",
        status: "success",
        details: "Maji Rongai: 8 sent, none failed when it finished; failures WhatsApp reports later show on its page.",
      },
      laterLine,
    ]);
    // The log (and the dashboard, which shows it) says the stored line in its reader's language.
    expect(inLocale("sw", () => actionInWords(laterLine.action))).toBe("Kampeni: jumbe zilizoshindwa baada ya kukamilika");
    expect(inLocale("sw", () => detailsInWords(laterLine.details))).toBe(
      "Maji Rongai: WhatsApp iliripoti jumbe zaidi zilizoshindwa baada ya kukamilika: 3 (hawapatikani kwenye WhatsApp: 2, zimekataliwa na WhatsApp kama ujumbe wa kumrudia mteja: 1). Jumla: zilizotumwa 5, zilizoshindwa 3 (hawapatikani kwenye WhatsApp: 2, zimekataliwa na WhatsApp kama ujumbe wa kumrudia mteja: 1).",
    );
    expect(inLocale("fr", () => detailsInWords(laterLine.details))).toMatch(/^Maji Rongai : WhatsApp a signalé d'autres échecs/);

    // Told once: the job again, or a failed status repeated, adds nothing and counts nothing twice.
    expect(await tellLateFailures(id)).toBe(0);
    await rawQuery(`update notifications set read_at = now() where organization_id = $1`, [t.organizationId]);
    await lateJobRuns();
    expect((await activity(t.organizationId)).length).toBe(3);
    expect((await finished(t.organizationId))[0]!.read_at).not.toBeNull();

    // The dashboard's recent activity says it (in the reader's language: detailsInWords above).
    const dashboard = await visible(await appFetch(getRequest("/dashboard", { cookie: t.cookie })));
    expect(dashboard).toContain(laterLine.details);

    // The campaign's page says what 131047 means for a template, not that only a template can reach them.
    const page = await visible(await appFetch(getRequest(`/messaging/campaigns/${id}?result=failed`, { cookie: t.cookie })));
    expect(page).toContain("WhatsApp turned it away as a re-engagement message (131047)");
    expect(page).not.toContain("only a template can reach them");
  });

  it("a further failure reported later still is told on its own, the total kept", async () => {
    const t = await connectedTenant();
    const id = await createCampaign(t, {
      name: "Maji Kitengela",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Kitengela" }] },
      audience: { phones: [recipient(11), recipient(12), "+254712360000"] },
    });
    await feedCampaign(id);
    await vi.waitFor(
      async () => {
        await drainDispatcher();
        expect(await scalar(`select count(*)::int as n from messages where campaign_id = $1 and accepted_at is not null`, [id])).toBe(3);
      },
      { timeout: 30_000, interval: 20 },
    );
    await vi.waitFor(
      async () => {
        await feedCampaigns();
        expect(await statusOf(id)).toBe("completed");
      },
      { timeout: 30_000, interval: 20 },
    );
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect(await scalar(`select count(*)::int as n from messages where campaign_id = $1 and status = 'failed'`, [id])).toBe(1);
      },
      { timeout: 30_000, interval: 20 },
    );
    await lateJobRuns();
    // Hours later Meta fails one it had accepted (as it may): told on its own line, the notification's total grows.
    await rawQuery(
      `update messages set status = 'failed', failed_at = now(), error_code = 131049, error_title = 'healthy ecosystem engagement'
       where campaign_id = $1 and recipient_phone = $2`,
      [id, recipient(11)],
    );
    expect(await tellLateFailures(id)).toBe(1);
    const lines = (await activity(t.organizationId)).filter((l) => l.action === "Campaign failures reported after it finished");
    expect(lines.map((l) => l.details)).toEqual([
      "Maji Kitengela: WhatsApp reported 1 more failed after it finished (1 not reachable on WhatsApp). In all: 2 sent, 1 failed (1 not reachable on WhatsApp).",
      "Maji Kitengela: WhatsApp reported 1 more failed after it finished (1 held back by Meta's marketing limit). In all: 1 sent, 2 failed (1 held back by Meta's marketing limit, 1 not reachable on WhatsApp).",
    ]);
    expect((await finished(t.organizationId))[0]!.body).toBe(
      "1 sent, 2 failed (1 held back by Meta's marketing limit, 1 not reachable on WhatsApp). WhatsApp reported 2 of these failures after it finished.",
    );
  });
});
