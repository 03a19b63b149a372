import { describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createCampaign } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaign, feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { changeWallet } from "~/.server/domains/billing/ledger";
import { WALLET_EMPTY_PAUSE_BEFORE } from "~/.server/domains/billing/charging";
import { resumeWalletPausedCampaigns } from "~/.server/domains/campaigns/wallet-resume";
import { changePlan } from "~/.server/domains/billing/settings";
import { detailsInWords } from "~/.server/domains/activity/words";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, recipient, setBucketRate } from "../support/sending-kit";

// Issue 39, "Words": what a campaign's finished message, pause reason, review step and activity
// lines say: what happened (sent, failed and why, left out), a pause said once, amounts in KES, a
// warning before a send the wallet cannot pay for, and times as people read them.

const meta = metaSandboxForFile();

async function connectedTenant(billing: { type: "prepaid" | "postpaid"; balanceCents?: number } = { type: "postpaid" }) {
  const account = await createVerifiedUser({ businessName: "Maji Safi Water" });
  const organizationId = account.organization.id;
  await rawQuery(`update organizations set billing_type = $2, plan_type = 'Growth' where id = $1`, [organizationId, billing.type]);
  if (billing.balanceCents)
    await db().transaction((tx) =>
      changeWallet(tx, { organizationId, kind: "adjustment", amountCents: billing.balanceCents!, description: "Opening balance" }),
    );
  const connection = await meta.graph.connect(organizationId, "Maji Safi Water");
  const t = { organizationId, userId: account.user.id, ...connection };
  await approvedBodyTemplate(meta.graph, t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
  await setBucketRate(connection.phoneNumberId, 1000);
  return { ...t, cookie: await signedInCookie(account.email, account.password) };
}

const statusOf = async (id: string) => (await rawQuery<{ status: string }>(`select status from campaigns where id = $1`, [id]))[0]!.status;
const notificationBodies = async (organizationId: string, event: string) =>
  (
    await rawQuery<{ body: string }>(`select distinct body from notifications where organization_id = $1 and event = $2`, [
      organizationId,
      event,
    ])
  ).map((r) => r.body);
/** A page's text as read: React's markers between adjacent texts taken out. */
const visible = async (response: Response) => (await response.text()).replaceAll("<!-- -->", "");
const activity = (organizationId: string, action: string) =>
  rawQuery<{ status: string; details: string }>(`select status, details from activity_logs where organization_id = $1 and action = $2`, [
    organizationId,
    action,
  ]);

describe("a campaign's finished message", () => {
  it("says what happened: sent, failed with why in words, and left out, the same in the bell and the activity log", async () => {
    const t = await connectedTenant();
    const id = await createCampaign(t, {
      name: "Maji Rongai",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Rongai" }] },
      // One read, one not on WhatsApp (the sandbox fails ...0000 with 131026), one held back by
      // Meta's marketing limit (...1049, 131049), and a number that is no number (left out).
      audience: { phones: [recipient(1), "+254712340000", "+254712341049", "12345"] },
    });
    await feedCampaign(id);
    // Meta reports the two failures after accepting them: wait for both, then let it finish.
    await vi.waitFor(
      async () => {
        await drainDispatcher();
        await drainJobs();
        const [failed] = await rawQuery<{ n: number }>(
          `select count(*)::int as n from messages where campaign_id = $1 and status = 'failed'`,
          [id],
        );
        expect(failed!.n).toBe(2);
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
    const said = "1 sent, 2 failed (1 held back by Meta's marketing limit, 1 not reachable on WhatsApp), 1 left out";
    expect(await notificationBodies(t.organizationId, "campaign_finished")).toEqual([
      `${said}. Failures WhatsApp reports later show on its page, with the results.`,
    ]);
    expect(await activity(t.organizationId, "Campaign completed")).toEqual([
      { status: "warning", details: `Maji Rongai: ${said} when it finished; failures WhatsApp reports later show on its page.` },
    ]);
    const [completed] = await activity(t.organizationId, "Campaign completed");
    expect(inLocale("sw", () => detailsInWords(completed!.details))).toBe(
      "Maji Rongai: zilizotumwa 1, zilizoshindwa 2 (zimezuiliwa na kikomo cha Meta cha jumbe za matangazo: 1, hawapatikani kwenye WhatsApp: 1), walioachwa nje 1 wakati wa kukamilika; jumbe ambazo WhatsApp itaripoti baadaye kuwa zimeshindwa zitaonekana kwenye ukurasa wake.",
    );
  });
});

describe("a pause", () => {
  it("says its reason once: the wallet ran out of money", async () => {
    // KES 4 pays for two messages at KES 2: the third waits, and the campaign pauses itself.
    const t = await connectedTenant({ type: "prepaid", balanceCents: 400 });
    const id = await createCampaign(t, {
      name: "Maji Kitengela",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Kitengela" }] },
      audience: { phones: Array.from({ length: 6 }, (_, i) => recipient(20 + i)) },
    });
    await vi.waitFor(
      async () => {
        await feedCampaigns();
        await drainDispatcher();
        await drainJobs();
        expect(await statusOf(id)).toBe("paused");
      },
      { timeout: 30_000, interval: 20 },
    );
    const page = await appFetch(getRequest(`/messaging/campaigns/${id}`, { cookie: t.cookie }));
    expect(page.status).toBe(200);
    const html = await visible(page);
    expect(html).toContain("Paused: The wallet ran out of money. It resumes by itself after a top-up covers the next messages.");
    expect(html).not.toMatch(/Paused: Paused/i);
    expect(await notificationBodies(t.organizationId, "campaign_paused")).toEqual([
      "The wallet ran out of money. It resumes by itself after a top-up covers the next messages.",
    ]);
    expect((await activity(t.organizationId, "Campaign paused")).map((a) => a.details)).toEqual([
      "Maji Kitengela: The wallet ran out of money. It resumes by itself after a top-up covers the next messages.",
    ]);
    // The log says the line, its reason too, in its reader's language (issue 43).
    const [paused] = await activity(t.organizationId, "Campaign paused");
    expect(inLocale("sw", () => detailsInWords(paused!.details))).toBe(
      "Maji Kitengela: Pochi imeishiwa pesa. Itaendelea yenyewe baada ya kuongeza salio la kutosha kulipia jumbe zinazofuata.",
    );

    // One paused before this change, its reason stored with "Paused: ": said once, and a top-up still resumes it.
    await rawQuery(`update campaigns set paused_reason = $2 where id = $1`, [id, WALLET_EMPTY_PAUSE_BEFORE]);
    const before = await visible(await appFetch(getRequest(`/messaging/campaigns/${id}`, { cookie: t.cookie })));
    expect(before).toContain("Paused: The wallet ran out of money.");
    expect(before).not.toMatch(/Paused: Paused/i);
    await db().transaction((tx) =>
      changeWallet(tx, { organizationId: t.organizationId, kind: "adjustment", amountCents: 5_000, description: "Top-up" }),
    );
    expect(await resumeWalletPausedCampaigns(t.organizationId)).toBe(1);
    expect(await statusOf(id)).toBe("sending");
  });
});

describe("the review step", () => {
  const review = (t: { cookie: string }, phones: string[], path = "/messaging/broadcasts/new") =>
    appFetch(
      formRequest(
        path,
        { intent: "review", name: "Maji Ngong", template: "water_notice|en", p1_source: "=", p1_value: "Ngong", phones: phones.join("\n") },
        { cookie: t.cookie },
      ),
    );

  it("shows amounts in KES and warns, with a link to top up, when the estimate is more than the wallet holds", async () => {
    // KES 5 in the wallet; five messages at KES 2 cost KES 10.
    const t = await connectedTenant({ type: "prepaid", balanceCents: 500 });
    const res = await review(
      t,
      Array.from({ length: 5 }, (_, i) => recipient(40 + i)),
    );
    expect(res.status).toBe(200);
    const html = await visible(res);
    expect(html).toContain("KES 10.00");
    expect(html).toContain("(KES 2.00 a message, from your wallet)");
    expect(html).not.toMatch(/ksh/i);
    expect(html).toContain("Your wallet cannot pay for all of it");
    expect(html).toContain("The estimate is KES 10.00 and your wallet has KES 5.00 available.");
    expect(html).toMatch(/<a[^>]*href="\/billing"[^>]*>Top up your wallet<\/a>/);

    // Two messages (KES 4) it can pay for: no warning.
    const covered = await visible(await review(t, [recipient(50), recipient(51)]));
    expect(covered).toContain("KES 4.00");
    expect(covered).not.toContain("Your wallet cannot pay for all of it");
  });

  it("shows a postpaid organisation its plan's price in KES, without a wallet warning", async () => {
    const t = await connectedTenant();
    const html = await visible(await review(t, [recipient(60)], "/messaging/campaigns/new"));
    expect(html).toContain('data-testid="review-recipients"');
    expect(html).toMatch(/\(your plan includes [\d,]+ more messages this month; KES \d+\.\d\d each beyond\)/);
    expect(html).not.toContain("Your wallet cannot pay for all of it");
  });
});

describe("activity lines", () => {
  it("say when a scheduled campaign sends as people read it, in the organisation's time zone", async () => {
    const t = await connectedTenant();
    await rawQuery(`update organizations set time_zone = 'Africa/Lagos' where id = $1`, [t.organizationId]);
    const at = new Date(Date.now() + 3 * 86_400_000);
    at.setUTCHours(9, 30, 0, 0); // 10:30 in Lagos
    await createCampaign(t, {
      name: "Maji Karen",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Karen" }] },
      audience: { phones: [recipient(70)] },
      scheduledFor: at,
    });
    const [line] = await activity(t.organizationId, "Campaign scheduled");
    const day = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "Africa/Lagos" }).format(at);
    expect(line!.details).toBe(`Maji Karen: water_notice to 1 recipient on ${day}, 10:30 (Lagos time).`);
    expect(line!.details).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it("say the day a plan change starts in words", async () => {
    const t = await connectedTenant();
    await changePlan(t, { plan: "starter", billingType: "prepaid" }, new Date("2026-11-20T10:00:00Z"));
    expect((await activity(t.organizationId, "Plan change requested")).map((a) => a.details)).toEqual([
      "Starter (prepaid) from 1 December 2026.",
    ]);
    const [requested] = await activity(t.organizationId, "Plan change requested");
    expect(inLocale("sw", () => detailsInWords(requested!.details))).toBe("Starter (lipa kabla) kuanzia 1 Desemba 2026.");
    expect(inLocale("fr", () => detailsInWords(requested!.details))).toBe("Starter (prépayé) à partir du 1er décembre 2026.");
  });
});
