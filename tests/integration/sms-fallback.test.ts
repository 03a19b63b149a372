import { describe, expect, it, vi } from "vitest";
import { africastalkingForFile } from "../support/sms";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createCampaign } from "~/.server/domains/campaigns/lifecycle";
import { reviewCampaign } from "~/.server/domains/campaigns/campaign-form";
import { feedCampaign } from "~/.server/domains/campaigns/feeder";
import { campaignFallbackSummary, runFallback, sweepFallbacks } from "~/.server/domains/sms";
import { quietHoursEnd } from "~/.server/domains/sms/fallback";
import { isRefusal } from "~/.server/infrastructure/refusal";
import {
  connectedTenant as connectedTenantOf,
  fallbacks,
  ONLY_SENT,
  scalar,
  sendCampaign,
  settle,
  UNREACHABLE,
  daytimeClockForFile,
} from "../support/sms-fallback";
import { metaSandboxForFile } from "../support/meta-harness";
import { recipient } from "../support/sending-kit";
import { createApiCampaign, getApiCampaign, listApiCampaigns } from "~/.server/adapters/api-v1/campaigns";
import { CampaignCreate, CampaignsQuery } from "~/.server/adapters/api-v1/campaign-schemas";
import { ApiProblem } from "~/.server/adapters/api-v1/problem";

// Issue 77's fallback (decision 152): a campaign's WhatsApp message Meta cannot deliver (131026: the
// sandbox fails numbers ending 0000 after accepting them) reaches the person by SMS, exactly once
// whatever is retried or repeated; a WhatsApp message delivered late cancels a fallback not yet sent.

const meta = metaSandboxForFile();
const at = africastalkingForFile({ reset: true });
daytimeClockForFile();

const connectedTenant = (name: string, options: { sms?: boolean } = {}) => connectedTenantOf(meta, name, options);
const smsTo = (phone: string) => at.sandbox.sent().filter((sent) => JSON.stringify(sent).includes(phone));

describe("a campaign with the SMS fallback", () => {
  it("reaches the one not on WhatsApp by SMS exactly once, in their conversation, under retried jobs and a repeated webhook", async () => {
    const t = await connectedTenant("Duka la Mama Njeri");
    const id = await sendCampaign(t, [recipient(1), recipient(2), UNREACHABLE], { mode: "own", text: "Mama Njeri: order {{1}} is ready." });
    await settle(async () => {
      expect(smsTo(UNREACHABLE)).toHaveLength(1);
      expect(await scalar(`select count(*)::int as n from messages where campaign_id = $1 and status = 'read'`, [id])).toBe(2);
    });
    expect(JSON.stringify(smsTo(UNREACHABLE)[0])).toContain("Mama Njeri: order #42 is ready.");
    expect(at.sandbox.sent()).toHaveLength(1);
    const [fallback] = await fallbacks(id);
    expect(fallback).toMatchObject({ state: "sent", trigger: "failed" });
    // The SMS is in the recipient's conversation, channel sms, accepted by Africa's Talking.
    const [sms] = await rawQuery<{ channel: string; status: string; body: string; contact_id: string; recipient_phone: string }>(
      `select channel, status, body, contact_id, recipient_phone from messages where id = $1`,
      [fallback!.sms_message_id],
    );
    expect(sms).toMatchObject({ channel: "sms", status: "sent", recipient_phone: UNREACHABLE });
    expect(
      await scalar(`select count(*)::int as n from conversations where organization_id = $1 and contact_id = $2`, [
        t.organizationId,
        sms!.contact_id,
      ]),
    ).toBe(1);

    // Meta's failed status again (a duplicated webhook), the fallback's job again, the SMS's job again: nothing more.
    const [failed] = await rawQuery<{ wamid: string }>(`select wamid from messages where campaign_id = $1 and recipient_phone = $2`, [
      id,
      UNREACHABLE,
    ]);
    await meta.graph.sandbox.sendStatus({
      phoneNumberId: t.phoneNumberId,
      wamid: failed!.wamid,
      status: "failed",
      recipientId: UNREACHABLE.slice(1),
      errorCode: 131026,
    });
    await rawQuery(
      `insert into jobs (queue, payload) values ('sms.fallback', jsonb_build_object('fallbackId', $1::text)),
              ('sms.send', jsonb_build_object('messageId', $2::text))`,
      [fallback!.id, fallback!.sms_message_id],
    );
    await drainJobs();
    expect(await runFallback(fallback!.id)).toBe("none");
    expect(await sweepFallbacks(new Date(Date.now() + 3 * 3_600_000))).toBe(0);
    await drainJobs();
    expect(at.sandbox.sent()).toHaveLength(1);
    expect(await fallbacks(id)).toHaveLength(1);
    expect(await scalar(`select count(*)::int as n from messages where organization_id = $1 and channel = 'sms'`, [t.organizationId])).toBe(
      1,
    );
    expect(await campaignFallbackSummary(t.organizationId, id)).toEqual({
      afterMinutes: 60,
      sent: 1,
      pending: 0,
      cancelled: 0,
      skipped: 0,
    });
  });

  it("sends after the set time without delivery, and a late delivered status cancels a fallback not yet sent", async () => {
    const t = await connectedTenant("Kibanda cha Otieno");
    // Both stay "sent" at Meta (…0003: never delivered); the campaign waits 30 minutes.
    const late = "+254712350003";
    const id = await sendCampaign(t, [ONLY_SENT, late], { mode: "message", afterMinutes: 30 });
    await drainJobs();
    // Within the time: nothing.
    const now = (await rawQuery<{ now: string }>(`select now()::text as now`, []))[0]!.now;
    expect(await sweepFallbacks(new Date(new Date(now).getTime() + 10 * 60_000))).toBe(0);
    // Past it: both become pending (their jobs not yet run), then WhatsApp delivers one.
    expect(await sweepFallbacks(new Date(new Date(now).getTime() + 31 * 60_000))).toBe(2);
    await rawQuery(`update jobs set run_at = now() + interval '1 hour' where queue = 'sms.fallback' and finished_at is null`, []);
    const [wamid] = await rawQuery<{ wamid: string }>(`select wamid from messages where campaign_id = $1 and recipient_phone = $2`, [
      id,
      late,
    ]);
    await meta.graph.sandbox.sendStatus({
      phoneNumberId: t.phoneNumberId,
      wamid: wamid!.wamid,
      status: "delivered",
      recipientId: late.slice(1),
    });
    await settle(async () => expect((await fallbacks(id)).map((f) => f.state).sort()).toEqual(["cancelled", "pending"]));
    // Then the jobs run: one SMS, to the one WhatsApp never delivered to.
    await rawQuery(`update jobs set run_at = now() where queue = 'sms.fallback' and finished_at is null`, []);
    await drainJobs();
    expect((await fallbacks(id)).map((f) => f.state).sort()).toEqual(["cancelled", "sent"]);
    expect(smsTo(late)).toHaveLength(0);
    expect(smsTo(ONLY_SENT)).toHaveLength(1);
    // "Use the message's text": the template's body with the recipient's values.
    expect(JSON.stringify(smsTo(ONLY_SENT)[0])).toContain("Your order #42 is ready.");
    expect((await fallbacks(id)).find((f) => f.state === "cancelled")).toMatchObject({ reason: "delivered", trigger: "not_delivered" });
  });

  it("two workers claiming one fallback at once send one SMS (and the fallback's job after them nothing)", async () => {
    const t = await connectedTenant("Duka la Wawili");
    const id = await sendCampaign(t, [ONLY_SENT], { mode: "own", text: "Wawili: {{1}}", afterMinutes: 5 });
    await drainJobs();
    const now = (await rawQuery<{ now: string }>(`select now()::text as now`, []))[0]!.now;
    expect(await sweepFallbacks(new Date(new Date(now).getTime() + 6 * 60_000))).toBe(1);
    const [fallback] = await fallbacks(id);
    const outcomes = await Promise.all([runFallback(fallback!.id), runFallback(fallback!.id), runFallback(fallback!.id)]);
    expect(outcomes.sort()).toEqual(["none", "none", "sent"]);
    await drainJobs();
    expect(smsTo(ONLY_SENT)).toHaveLength(1);
    expect(await fallbacks(id)).toMatchObject([{ state: "sent", trigger: "not_delivered" }]);
    expect(await scalar(`select count(*)::int as n from messages where organization_id = $1 and channel = 'sms'`, [t.organizationId])).toBe(
      1,
    );
  });

  it("respects consent, waits out quiet hours, skips without a connection, and keeps tenants apart", async () => {
    const t = await connectedTenant("Soko Safi");
    const id = await sendCampaign(t, [UNREACHABLE, "+254712350000"], { mode: "own", text: "Soko Safi: {{1}}" });
    // The first opted out (STOP by SMS or WhatsApp) before the fallback: no SMS.
    await rawQuery(`update contacts set opt_in = 'opted_out' where organization_id = $1 and phone = $2`, [t.organizationId, UNREACHABLE]);
    await rawQuery(`insert into contacts (organization_id, name, phone, opt_in) values ($1, $2, $2, 'opted_out') on conflict do nothing`, [
      t.organizationId,
      UNREACHABLE,
    ]);
    // Meta's failures arrive at 21:00 in Nairobi: the other one's SMS waits until 08:00.
    vi.setSystemTime(new Date(new Date().setUTCHours(18, 0, 0, 0)));
    // Both failures in (the campaign sends them one after the other), one fallback decided.
    await settle(async () => {
      const both = await fallbacks(id);
      expect([both.length, both.filter((f) => f.state !== "pending").length]).toEqual([2, 1]);
    });
    const states = await fallbacks(id);
    expect(states.map((f) => f.reason)).toEqual(expect.arrayContaining(["opted_out", null]));
    expect(at.sandbox.sent()).toHaveLength(0);
    const waiting = states.find((f) => f.state === "pending")!;
    const [due] = await rawQuery<{ due_at: string }>(`select due_at::text as due_at from sms_fallbacks where id = $1`, [waiting.id]);
    expect(new Date(due!.due_at).getTime()).toBe(quietHoursEnd(new Date()).getTime());
    // Another tenant's campaign page counts nothing of it.
    const other = await connectedTenant("Duka Jingine", { sms: false });
    expect(await campaignFallbackSummary(other.organizationId, id)).toBeNull();
    // At 08:00 the sweep gives it a job, and it goes.
    vi.setSystemTime(quietHoursEnd(new Date()));
    await sweepFallbacks(new Date());
    await drainJobs();
    expect(smsTo("+254712350000")).toHaveLength(1);
    expect(smsTo(UNREACHABLE)).toHaveLength(0);

    // SMS disconnected after the campaign started: the fallback is skipped, said why.
    const gone = await connectedTenant("Bila SMS");
    const plain = await sendCampaign(gone, [UNREACHABLE], { mode: "own", text: "Hello" });
    await rawQuery(`delete from sms_connections where organization_id = $1`, [gone.organizationId]);
    await settle(async () => expect(await fallbacks(plain)).toMatchObject([{ state: "skipped", reason: "not_connected" }]));
  });

  it("refuses a fallback out of bounds at the campaign's field, and prices its worst case per part on Review", async () => {
    const t = await connectedTenant("Mipaka");
    const make = (smsFallback: { mode: "own" | "message"; text?: string; afterMinutes?: number }) =>
      createCampaign(t, {
        name: "Bounds",
        template: { name: "order_ready" },
        parameters: { body: [{ value: "#1" }] },
        audience: { phones: [recipient(3)] },
        smsFallback,
      }).catch((error: unknown) => (isRefusal(error, "campaign") ? error : null));
    expect(await make({ mode: "own", text: "" })).toMatchObject({ field: "smsFallback", status: 422 });
    // Offered only with SMS connected.
    const bare = await connectedTenant("Bila SMS kabisa", { sms: false });
    await expect(
      createCampaign(bare, {
        name: "No SMS",
        template: { name: "order_ready" },
        parameters: { body: [{ value: "#1" }] },
        audience: { phones: [recipient(3)] },
        smsFallback: { mode: "message" },
      }),
    ).rejects.toMatchObject({ field: "smsFallback", status: 409 });
    expect(await make({ mode: "own", text: "x".repeat(1531) })).toMatchObject({ field: "smsFallback" });
    expect(await make({ mode: "own", text: "ok", afterMinutes: 2 })).toMatchObject({ field: "smsFallback" });
    expect(await make({ mode: "own", text: "ok", afterMinutes: 24 * 60 + 1 })).toMatchObject({ field: "smsFallback" });
    // Review prices the worst case per part: the SMS as each person gets it (203 characters: 2 parts), everyone by SMS.
    const review = await reviewCampaign(
      t.organizationId,
      {
        name: "Bounds",
        template: { name: "order_ready" },
        parameters: { body: [{ value: "#1" }] },
        audience: { phones: [recipient(3), recipient(4)] },
        smsFallback: { mode: "own", text: `${"a".repeat(200)} {{1}}` },
      },
      { segmentName: () => null, approvalThreshold: null },
    );
    expect(review.sms).toMatchObject({ parts: 2, perSmsCents: 200, totalCents: 400, afterMinutes: 60 });
    const id = await make({ mode: "message", afterMinutes: 45 });
    expect(typeof id).toBe("string");
    const [row] = await rawQuery<{ sms_fallback: unknown }>(`select sms_fallback from campaigns where id = $1`, [id]);
    expect(row!.sms_fallback).toEqual({ mode: "message", text: "Your order {{1}} is ready.", named: [], afterMinutes: 45 });
  });
});

describe("the SMS fallback through the API", () => {
  const body = (smsFallback: unknown, phones: string[]) =>
    CampaignCreate.parse({
      name: "Orders ready (API)",
      template: "order_ready",
      audience: { phones },
      parameters: [{ value: "#77" }],
      smsFallback,
    });
  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiProblem);
    const problem = error as ApiProblem;
    return [problem.status, problem.code, problem.message];
  };

  it("takes its own text or the template's, says how it went on one campaign, and keeps the form's rules", async () => {
    const t = await connectedTenant("Duka API SMS");
    const made = await createApiCampaign(
      t.organizationId,
      body({ text: "Order {{1}} is ready, by SMS.", afterMinutes: 30 }, [UNREACHABLE]),
    );
    expect(made.smsFallback).toEqual({
      text: "Order {{1}} is ready, by SMS.",
      fromTemplate: false,
      afterMinutes: 30,
      counts: { sent: 0, pending: 0, cancelled: 0, skipped: 0 },
    });
    await feedCampaign(made.id);
    await settle(async () => {
      await drainDispatcher();
      expect(smsTo(UNREACHABLE)).toHaveLength(1);
    });
    expect(JSON.stringify(smsTo(UNREACHABLE)[0])).toContain("Order #77 is ready, by SMS.");
    expect((await getApiCampaign(t.organizationId, made.id)).smsFallback?.counts).toEqual({
      sent: 1,
      pending: 0,
      cancelled: 0,
      skipped: 0,
    });
    // The list says what it is, not how it went (no statement per campaign).
    const listed = await listApiCampaigns(t.organizationId, CampaignsQuery.parse({}));
    expect(listed.data[0]!.smsFallback).toEqual({ text: "Order {{1}} is ready, by SMS.", fromTemplate: false, afterMinutes: 30 });

    // Without a text: the template's body, and the default time.
    const fromTemplate = await createApiCampaign(t.organizationId, body({}, [recipient(5)]));
    expect(fromTemplate.smsFallback).toMatchObject({ text: "Your order {{1}} is ready.", fromTemplate: true, afterMinutes: 60 });
    // None: null.
    expect((await createApiCampaign(t.organizationId, body(null, [recipient(6)]))).smsFallback).toBeNull();

    // The form's rules and words; nothing stored.
    const before = await scalar(`select count(*)::int as n from campaigns where organization_id = $1`, [t.organizationId]);
    expect(await refusal(createApiCampaign(t.organizationId, body({ afterMinutes: 2 }, [recipient(7)])))).toEqual([
      422,
      "invalid_campaign",
      "Send the SMS after 5 to 1440 minutes without delivery.",
    ]);
    expect(() => body({ text: "x", extra: true }, [recipient(7)])).toThrow();
    const unconnected = await connectedTenant("Duka API Bila SMS", { sms: false });
    expect(await refusal(createApiCampaign(unconnected.organizationId, body({ text: "Hi" }, [recipient(8)])))).toEqual([
      409,
      "invalid_campaign",
      "Connect SMS in Settings → SMS to send an SMS fallback.",
    ]);
    expect(await scalar(`select count(*)::int as n from campaigns where organization_id = $1`, [t.organizationId])).toBe(before);
    // Another tenant's campaign is not found.
    expect((await refusal(getApiCampaign(unconnected.organizationId, made.id)))[0]).toBe(404);
  });
});
