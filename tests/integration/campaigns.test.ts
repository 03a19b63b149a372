import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { countStatements } from "~/.server/infrastructure/db/statement-count";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { saveContact, phoneHash } from "~/.server/domains/contacts/manage";
import { defineAttribute } from "~/.server/domains/contacts/field-definitions";
import {
  cancelCampaign,
  checkCampaign,
  createCampaign,
  estimateCampaign,
  pauseCampaign,
  resumeCampaign,
} from "~/.server/domains/campaigns/lifecycle";
import type { CampaignInput } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaign, feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { campaignCounts, finalCounts } from "~/.server/domains/campaigns/progress";
import { eraseContact } from "~/.server/domains/contacts/rights";
import { getCampaign, listCampaigns, openRecipientsCsv, RECIPIENTS_PER_PAGE, recipientsPage } from "~/.server/domains/campaigns/queries";
import { previewMessages } from "~/.server/domains/campaigns/preview";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, routeArgs, run } from "../support/http";
import { loader as eventsLoader } from "~/routes/app/messaging/campaigns/events";
import { loader as campaignLoader } from "~/routes/app/messaging/campaigns/campaign";
import { loader as campaignsLoader } from "~/routes/app/messaging/campaigns";
import { loader as broadcastsLoader } from "~/routes/app/messaging/broadcasts";
import { metaSandboxForFile } from "../support/meta-harness";
import {
  approvedBodyTemplate,
  approvedMediaTemplate,
  metaReceived,
  recipient,
  setBucketRate,
  settleStatuses,
} from "../support/sending-kit";
import { nextMillisecond } from "../support/clock";
import { isRefusal } from "~/.server/infrastructure/refusal";

// Campaigns (issue 14): the audience's rules, variables and their fallbacks, the estimate, the
// feeder turning recipients into messages a little ahead of the dispatcher, pause, resume, cancel,
// scheduling, replies, erasure mid-campaign and tenant separation; against the Meta sandbox.

// A call the loaded machine answers after 3 s would be in doubt and tried again after its minute:
// the tests here count sends, so they give the sandbox the time a full parallel run may take.
const meta = metaSandboxForFile({ env: { GRAPH_API_TIMEOUT_MS: "10000" } });

async function connectedTenant(name = "Kaunti ya Nakuru") {
  const user = await createVerifiedUser({ businessName: name });
  const connection = await meta.graph.connect(user.organization.id, name);
  return { organizationId: user.organization.id, userId: user.user.id, email: user.email, password: user.password, ...connection };
}
type Tenant = Awaited<ReturnType<typeof connectedTenant>>;

/** An approved template at Meta (the sandbox) and in Jumbe, with `{{1}}`… in its body; answers Meta's id. */
const template = (t: Tenant, name: string, category: "UTILITY" | "MARKETING", text: string) =>
  approvedBodyTemplate(meta.graph, t, name, category, text);

async function refusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "campaign")) return { status: error.status, code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

const campaignRow = async (id: string) =>
  (await rawQuery<Record<string, unknown> & { status: string }>(`select * from campaigns where id = $1`, [id]))[0]!;

/** Feeds and dispatches until the campaign has ended (or `until` holds). */
async function runCampaign(id: string, until = (row: { status: string }) => ["completed", "cancelled", "failed"].includes(row.status)) {
  await vi.waitFor(
    async () => {
      await feedCampaigns();
      await drainDispatcher();
      await drainJobs();
      expect(until(await campaignRow(id))).toBe(true);
    },
    { timeout: 30_000, interval: 20 },
  );
}

describe("the audience", () => {
  it("counts who receives a marketing campaign and why the others are left out, and freezes exactly that at the start", async () => {
    const t = await connectedTenant();
    await template(t, "mega_sale", "MARKETING", "Habari {{1}}! Mega sale in {{2}} this weekend.");
    await defineAttribute(t, { key: "town", label: "Town", type: "text" });
    const yes = { consent: { status: "opted_in" as const, source: "manual" as const } };
    await saveContact(t, { name: "Amina Wekesa", phone: "0712 000 118", tags: ["nakuru"], attributes: { town: "Nakuru" } }, yes);
    await saveContact(t, { name: "Baraka Otieno", phone: "0712 000 128", tags: ["nakuru"] }, yes); // no town, has a fallback
    await saveContact(t, { name: "Chebet Kiprop", phone: "0712 000 138", tags: ["nakuru"], attributes: { town: "Naivasha" } }); // unknown consent
    await saveContact(t, { name: "Daudi Mwangi", phone: "0712 000 148", tags: ["other"], attributes: { town: "Molo" } }, yes);
    // Someone erased earlier: their number is only a tombstone now.
    await rawQuery(`insert into contact_tombstones (organization_id, phone_hash) values ($1, $2)`, [
      t.organizationId,
      phoneHash(t.organizationId, "+254712000158"),
    ]);
    const input: CampaignInput = {
      name: "Weekend sale",
      template: { name: "mega_sale" },
      parameters: { body: [{ field: "first_name" }, { field: "town", fallback: "your town" }] },
      audience: {
        tags: ["nakuru"],
        // Daudi by number, Amina again in another form, the erased one, junk twice, and a stranger never asked.
        phones: ["+254 712 000 148", "254712000118", "0712000158", "12", "12", "0712 000 168"],
      },
    };
    const checked = await checkCampaign(t.organizationId, input);
    const estimate = await estimateCampaign(t.organizationId, checked);
    expect(estimate).toMatchObject({
      recipients: 3,
      total: 9,
      leftOut: { not_opted_in: 2, erased: 1, invalid_number: 1, duplicate: 2 },
    });
    // The plan's price (decision 035): postpaid Starter includes 1,000 messages a month, KES 2.00 each beyond.
    expect(estimate).toMatchObject({ estimatedCostCents: 0, perMessageKes: 2, includedLeft: 1000 });
    // Prepaid: KES 2.00 a message from the wallet.
    await rawQuery(`update organizations set billing_type = 'prepaid' where id = $1`, [t.organizationId]);
    expect(await estimateCampaign(t.organizationId, checked)).toMatchObject({
      estimatedCostCents: 600,
      perMessageKes: 2,
      includedLeft: null,
    });
    await rawQuery(`update organizations set billing_type = 'postpaid' where id = $1`, [t.organizationId]);

    // The preview: the first real messages, as the people will read them.
    expect(await previewMessages(t.organizationId, checked)).toEqual([
      { to: "+254712000118", name: "Amina Wekesa", header: null, body: "Habari Amina! Mega sale in Nakuru this weekend.", footer: null },
      {
        to: "+254712000128",
        name: "Baraka Otieno",
        header: null,
        body: "Habari Baraka! Mega sale in your town this weekend.",
        footer: null,
      },
      { to: "+254712000148", name: "Daudi Mwangi", header: null, body: "Habari Daudi! Mega sale in Molo this weekend.", footer: null },
    ]);

    const id = await createCampaign(t, input);
    const row = await campaignRow(id);
    expect(row).toMatchObject({ status: "sending", audience_size: 9 });
    expect(row.left_out).toEqual({ not_opted_in: 2, erased: 1, invalid_number: 1, duplicate: 2 });
    const pending = await rawQuery<{ phone: string }>(
      `select phone from campaign_recipients where campaign_id = $1 and state = 'pending' order by id`,
      [id],
    );
    expect(pending.map((r) => r.phone)).toEqual(["+254712000118", "+254712000128", "+254712000148"]);

    await setBucketRate(t.phoneNumberId, 1000);
    await runCampaign(id);
    const atMeta = await metaReceived(meta.graph, t.phoneNumberId);
    const bodies = new Map(
      atMeta.map((m) => {
        const components = ((m.body as { template: { components: { parameters: { text: string }[] }[] } }).template.components ?? [])[0]!;
        return [m.to, components.parameters.map((p) => p.text)];
      }),
    );
    // What the campaign's page and its download show.
    const view = await getCampaign(t.organizationId, id);
    expect(view).toMatchObject({
      status: "completed",
      from: `+${t.phone.phoneDigits}`,
      audienceLabel: "Tag nakuru + 6 numbers",
      audienceSize: 9,
      template: { name: "mega_sale", category: "MARKETING" },
    });
    expect(view.counts.sent).toBe(3);
    expect((await listCampaigns(t.organizationId, { search: "weekend" })).campaigns.map((c) => c.id)).toEqual([id]);
    expect((await listCampaigns(t.organizationId, { status: "draft" })).campaigns).toEqual([]);
    const leftOutRows = (await recipientsPage(t.organizationId, id, { result: "left_out" })).recipients;
    expect(leftOutRows.map((r) => [r.phone, r.reason])).toEqual([
      ["+254712000138", "Not opted in to marketing messages"],
      ["+254712000158", "Erased at their request"],
      ["+254712000168", "Not opted in to marketing messages"],
      ["12", "Not a valid phone number"],
    ]);
    const bytes = Buffer.from(await new Response(await openRecipientsCsv(t.organizationId, id)).arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const csv = bytes.subarray(3).toString("utf8");
    expect(csv.split("\r\n")[0]).toBe('"Phone","Name","Result","Replied","Reason","Sent at","Delivered at","Read at","Replied at"');
    expect(csv.split("\r\n").filter(Boolean)).toHaveLength(1 + 7);
    const other = await connectedTenant("Another County");
    await expect(getCampaign(other.organizationId, id)).rejects.toMatchObject({ status: 404 });
    await expect(recipientsPage(other.organizationId, id)).rejects.toMatchObject({ status: 404 });
    expect(bodies).toEqual(
      new Map([
        ["+254712000118", ["Amina", "Nakuru"]],
        ["+254712000128", ["Baraka", "your town"]],
        ["+254712000148", ["Daudi", "Molo"]],
      ]),
    );
  });

  it("leaves out a person whose placeholder would be empty when it has no fallback", async () => {
    const t = await connectedTenant();
    await template(t, "statement_ready", "UTILITY", "Dear {{1}}, your statement for {{2}} is ready.");
    await defineAttribute(t, { key: "account", label: "Account", type: "text" });
    await saveContact(t, { name: "Esther Njeri", phone: "0722 100 118", tags: ["members"], attributes: { account: "ACC-001" } });
    await saveContact(t, { name: "Faith Achieng", phone: "0722 100 128", tags: ["members"] });
    const input: CampaignInput = {
      name: "November statements",
      template: { name: "statement_ready" },
      parameters: { body: [{ field: "name" }, { field: "account" }] },
      audience: { tags: ["members"] },
    };
    // A utility template needs no marketing consent; the empty account leaves Faith out.
    expect(await estimateCampaign(t.organizationId, await checkCampaign(t.organizationId, input))).toMatchObject({
      recipients: 1,
      leftOut: { missing_value: 1 },
    });
  });

  it("refuses a bad campaign with the field it is about, and stores nothing", async () => {
    const t = await connectedTenant();
    await template(t, "statement_ready", "UTILITY", "Dear {{1}}, your statement for {{2}} is ready.");
    const good: CampaignInput = {
      name: "Statements",
      template: { name: "statement_ready" },
      parameters: { body: [{ field: "name" }, { value: "October" }] },
      audience: { phones: ["0722 200 118"] },
    };
    expect(await refusal(createCampaign(t, { ...good, name: "  " }))).toMatchObject({ code: "invalid_campaign", field: "name" });
    expect(await refusal(createCampaign(t, { ...good, template: { name: "nope" } }))).toMatchObject({
      code: "template_not_found",
      field: "template",
    });
    expect(await refusal(createCampaign(t, { ...good, parameters: { body: [{ field: "name" }] } }))).toMatchObject({
      code: "invalid_parameters",
      message: "The template's body takes 2 values; 1 was given.",
    });
    expect(await refusal(createCampaign(t, { ...good, parameters: { body: [{ field: "shoe_size" }, { value: "x" }] } }))).toMatchObject({
      code: "invalid_parameters",
    });
    expect(await refusal(createCampaign(t, { ...good, audience: {} }))).toMatchObject({ code: "invalid_audience", field: "audience" });
    expect(await refusal(createCampaign(t, { ...good, audience: { segmentId: "00000000-0000-4000-8000-000000000000" } }))).toMatchObject({
      code: "invalid_audience",
    });
    expect(await refusal(createCampaign(t, { ...good, audience: { phones: ["12", "34"] } }))).toMatchObject({ code: "empty_audience" });
    expect(await refusal(createCampaign(t, { ...good, scheduledFor: new Date(Date.now() - 3_600_000) }))).toMatchObject({
      code: "invalid_schedule",
    });
    expect(await refusal(createCampaign(t, { ...good, from: "+254799999999" }))).toMatchObject({
      code: "no_whatsapp_number",
      field: "from",
    });
    expect((await rawQuery(`select count(*)::int as n from campaigns`))[0]).toEqual({ n: 0 });
  });
});

describe("sending", () => {
  it("pauses within the batch already with Meta, resumes, and finishes with every recipient sent once", async () => {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    await setBucketRate(t.phoneNumberId, 80);
    const phones = Array.from({ length: 400 }, (_, i) => recipient(i));
    const id = await createCampaign(t, {
      name: "Water rationing",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Nakuru East" }] },
      audience: { phones },
    });
    // The feeder keeps about two seconds of the number's rate queued (80 a second): not all 400.
    await feedCampaign(id);
    const [queued] = await rawQuery<{ n: number }>(`select count(*)::int as n from messages where campaign_id = $1`, [id]);
    expect(queued!.n).toBe(160);
    await drainDispatcher();
    await pauseCampaign(t, id);
    const sentBefore = (await metaReceived(meta.graph, t.phoneNumberId)).length;
    // Paused: nothing more leaves, however long the dispatcher and feeder run.
    for (let i = 0; i < 3; i++) {
      await feedCampaigns();
      await drainDispatcher();
    }
    expect((await metaReceived(meta.graph, t.phoneNumberId)).length).toBe(sentBefore);
    // A message a worker put back after the pause (due again at once) is still not sent.
    await rawQuery(`update messages set next_attempt_at = now() where campaign_id = $1 and status = 'queued'`, [id]);
    await drainDispatcher();
    expect((await metaReceived(meta.graph, t.phoneNumberId)).length).toBe(sentBefore);
    expect(await refusal(pauseCampaign(t, id))).toMatchObject({ status: 409, code: "campaign_state" });

    await setBucketRate(t.phoneNumberId, 1000);
    await resumeCampaign(t, id);
    await runCampaign(id);
    const atMeta = await metaReceived(meta.graph, t.phoneNumberId);
    expect(atMeta).toHaveLength(400);
    expect(new Set(atMeta.map((m) => m.to)).size).toBe(400);
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect(await finalCounts(id)).toMatchObject({ queued: 0, sent: 400, delivered: 400, read: 400, failed: 0 });
      },
      { timeout: 30_000, interval: 50 },
    );
    const log = await rawQuery<{ action: string }>(`select action from activity_logs where organization_id = $1 order by created_at, id`, [
      t.organizationId,
    ]);
    expect(log.map((l) => l.action)).toEqual(["Campaign started", "Campaign paused", "Campaign resumed", "Campaign completed"]);
  });

  it("keeps a sending campaign's figures fresh from the feeder, so a page reads them without counting", async () => {
    const t = await connectedTenant();
    await template(t, "meter_reading", "UTILITY", "Your meter reading for {{1}} is due.");
    await setBucketRate(t.phoneNumberId, 80);
    const id = await createCampaign(t, {
      name: "Meter readings",
      template: { name: "meter_reading" },
      parameters: { body: [{ value: "November" }] },
      audience: { phones: Array.from({ length: 200 }, (_, i) => recipient(500 + i)) },
    });
    await feedCampaign(id);
    await drainDispatcher();
    // The feeder's round counts what was sent since (its figures were older than a second).
    await rawQuery(`update campaigns set counted_at = now() - interval '2 seconds' where id = $1`, [id]);
    await feedCampaigns();
    const stored = await campaignRow(id);
    expect(stored.status).toBe("sending");
    // What Meta has, and the rest (fed, or put back by the rate limit) waiting for the dispatcher.
    const counts = stored.counts as { sent: number; queued: number };
    expect(counts.sent).toBe((await metaReceived(meta.graph, t.phoneNumberId)).length);
    expect(counts.sent).toBeGreaterThan(0);
    expect(counts.sent + counts.queued).toBe(200);
    expect(stored.counts).toEqual(await finalCounts(id));
    // A page a moment later shows them as stored, with no count of its own: one statement (the campaign).
    const { result: page, statements } = await countStatements(() => getCampaign(t.organizationId, id));
    expect(page.counts).toEqual(stored.counts);
    expect(statements).toBe(1);
    // Left stale by the feeder (none is running), a reader counts them itself.
    await rawQuery(`update campaigns set counted_at = now() - interval '5 seconds' where id = $1`, [id]);
    expect((await countStatements(() => getCampaign(t.organizationId, id))).statements).toBe(2);

    // A campaign of 100,000 is counted every 5 s, not each second (counting reads all its messages):
    // figures 2 s old are left for the feeder's next rounds and read as stored by a page.
    const large = { queued: 60_000, sent: 40_000, delivered: 0, read: 0, replied: 0, failed: 0 };
    await rawQuery(`update campaigns set counts = $2::jsonb, counted_at = now() - interval '2 seconds' where id = $1`, [
      id,
      JSON.stringify(large),
    ]);
    await feedCampaigns();
    expect((await campaignRow(id)).counts).toEqual(large);
    expect((await countStatements(() => getCampaign(t.organizationId, id))).statements).toBe(1);
    // Five seconds old, the feeder counts them again: the campaign's 200 people.
    await rawQuery(`update campaigns set counted_at = now() - interval '5500 milliseconds' where id = $1`, [id]);
    await feedCampaigns();
    expect((await campaignRow(id)).counts).toEqual(await finalCounts(id));
  });

  it("shows a campaign's recipients 25 a page, in audience order, each once", async () => {
    const t = await connectedTenant();
    await template(t, "bin_collection", "UTILITY", "Bins are collected in {{1}} on Monday.");
    const phones = Array.from({ length: 30 }, (_, i) => recipient(700 + i));
    const id = await createCampaign(t, {
      name: "Bin collection",
      template: { name: "bin_collection" },
      parameters: { body: [{ value: "Kilimani" }] },
      audience: { phones },
    });
    expect(RECIPIENTS_PER_PAGE).toBe(25);
    const first = await recipientsPage(t.organizationId, id);
    expect(first.recipients).toHaveLength(25);
    expect(first.next).not.toBeNull();
    const second = await recipientsPage(t.organizationId, id, { after: first.next! });
    expect(second.recipients).toHaveLength(5);
    expect(second.next).toBeNull();
    expect([...first.recipients, ...second.recipients].map((r) => r.phone)).toEqual(phones);
  });

  it("cancels mid-way: the rest are left out, so sent + failed + left out is the audience", async () => {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    await setBucketRate(t.phoneNumberId, 80);
    const id = await createCampaign(t, {
      name: "Cancelled notice",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Gilgil" }] },
      audience: { phones: Array.from({ length: 300 }, (_, i) => recipient(i)) },
    });
    await feedCampaign(id);
    await drainDispatcher();
    await cancelCampaign(t, id);
    await feedCampaigns();
    await drainDispatcher();
    const sent = (await metaReceived(meta.graph, t.phoneNumberId)).length;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(300);
    const [states] = await rawQuery<{ queued: number; cancelled: number; pending: number }>(
      `select count(*) filter (where state = 'queued')::int as queued, count(*) filter (where reason = 'cancelled')::int as cancelled,
              count(*) filter (where state = 'pending')::int as pending
       from campaign_recipients where campaign_id = $1`,
      [id],
    );
    expect(states).toEqual({ queued: sent, cancelled: 300 - sent, pending: 0 });
    const cancelled = await campaignRow(id);
    expect(cancelled.status).toBe("cancelled");
    // The stored figures add up: sent + left out is the audience.
    expect(cancelled.left_out).toEqual({ cancelled: 300 - sent });
    expect(await refusal(resumeCampaign(t, id))).toMatchObject({ code: "campaign_state" });
  });

  it("starts a scheduled campaign when its time comes, and not before", async () => {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const id = await createCampaign(t, {
      name: "Later",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Njoro" }] },
      audience: { phones: [recipient(1), recipient(2)] },
      scheduledFor: new Date(Date.now() + 3_600_000),
    });
    await feedCampaigns();
    expect(await campaignRow(id)).toMatchObject({ status: "scheduled", audience_size: null });
    // The clock reaches the time (moved by moving the time, as a restart an hour later would find it).
    await rawQuery(`update campaigns set scheduled_for = now() - interval '1 second' where id = $1`, [id]);
    await setBucketRate(t.phoneNumberId, 1000);
    await runCampaign(id);
    expect(await campaignRow(id)).toMatchObject({ status: "completed", audience_size: 2 });
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(2);
  });

  it("counts a reply within 72 hours of delivery, and skips a person erased before their turn", async () => {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const first = await saveContact(t, { name: "Grace Wanjiru", phone: recipient(1), tags: ["estate"] });
    const second = await saveContact(t, { name: "Hassan Ali", phone: recipient(2), tags: ["estate"] });
    const id = await createCampaign(t, {
      name: "Estate notice",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Lanet" }] },
      audience: { tags: ["estate"] },
    });
    await eraseContact(t, second.contact.id);
    await setBucketRate(t.phoneNumberId, 1000);
    await runCampaign(id);
    expect((await metaReceived(meta.graph, t.phoneNumberId)).map((m) => m.to)).toEqual([first.contact.phone]);
    const leftOut = await rawQuery<{ phone: string | null; reason: string }>(
      `select phone, reason from campaign_recipients where campaign_id = $1 and state = 'left_out'`,
      [id],
    );
    expect(leftOut).toEqual([{ phone: null, reason: "erased" }]);
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await finalCounts(id)).delivered).toBe(1);
      },
      { timeout: 30_000, interval: 50 },
    );
    // The page's figures, stored when the campaign completed (and its delivery since), are read as stored...
    await campaignCounts((await campaignRow(id)) as never, 60_000);
    expect(await campaignCounts((await campaignRow(id)) as never, 60_000)).toMatchObject({ replied: 0 });
    await meta.customerWrites(t.phoneNumberId, first.contact.phone!.slice(1), { text: "Asante, tutajiandaa." });
    const counts = await finalCounts(id);
    expect(counts).toMatchObject({ sent: 1, delivered: 1, replied: 1 });
    // ... until the reply marks them out of date: the next reader counts them, however fresh they were.
    const row = await campaignRow(id);
    expect(row.counts).toMatchObject({ replied: 0 });
    expect(row.counted_at).toBeNull();
    expect(await campaignCounts(row as never, 60_000)).toMatchObject({ replied: 1 });
    expect((await campaignRow(id)).counts).toMatchObject({ replied: 1 });
    // A week after its end the figures are final: counted once more after that, then never again.
    await rawQuery(
      `update campaigns set finished_at = now() - interval '8 days', counted_at = now() - interval '8 days', counts = counts || '{"replied": 0}' where id = $1`,
      [id],
    );
    expect(await campaignCounts((await campaignRow(id)) as never, 60_000)).toMatchObject({ replied: 1 });
    await rawQuery(`update campaigns set counts = counts || '{"replied": 5}', counted_at = now() - interval '1 day' where id = $1`, [id]);
    expect(await campaignCounts((await campaignRow(id)) as never, 60_000)).toMatchObject({ replied: 5 });
    expect((await campaignRow(id)).counts).toMatchObject({ replied: 5 });
  });
});

describe("the guards", () => {
  /** A campaign of 300 to a number sending 80 a second, fed and dispatched once: part sent, the rest waiting. */
  async function halfSent(t: Tenant, templateName: string) {
    await setBucketRate(t.phoneNumberId, 80);
    const id = await createCampaign(t, {
      name: "Guarded",
      template: { name: templateName },
      parameters: { body: [{ value: "Rongai" }] },
      audience: { phones: Array.from({ length: 300 }, (_, i) => recipient(i)) },
    });
    await feedCampaign(id);
    await drainDispatcher();
    return id;
  }

  async function pausedBy(id: string, phoneNumberId: string) {
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await campaignRow(id)).status).toBe("paused");
      },
      { timeout: 30_000, interval: 20 },
    );
    const sent = (await metaReceived(meta.graph, phoneNumberId)).length;
    for (let i = 0; i < 3; i++) {
      await feedCampaigns();
      await drainDispatcher();
    }
    // Nothing more leaves once it paused itself.
    expect((await metaReceived(meta.graph, phoneNumberId)).length).toBe(sent);
    expect(sent).toBeLessThan(300);
    return (await campaignRow(id)).paused_reason as string;
  }

  it("pauses a campaign whose template Meta pauses, and says why", async () => {
    const t = await connectedTenant();
    const templateId = await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const id = await halfSent(t, "water_notice");
    await meta.sandbox.setTemplateStatus(templateId, "PAUSED");
    expect(await pausedBy(id, t.phoneNumberId)).toMatch(/^Meta paused the template water_notice/);
    const [log] = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Campaign paused'`,
      [t.organizationId],
    );
    expect(log!.details).toMatch(/^Guarded: Meta paused the template water_notice/);
  });

  it("pauses the number's campaigns when Meta flags its quality as low", async () => {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const id = await halfSent(t, "water_notice");
    await meta.sandbox.sendQualityUpdate({ phoneNumberId: t.phoneNumberId, event: "FLAGGED" });
    expect(await pausedBy(id, t.phoneNumberId)).toMatch(/^Meta flagged the quality of .* as low/);
  });

  it("pauses a campaign whose utility template Meta recategorises as marketing", async () => {
    const t = await connectedTenant();
    await template(t, "recategorise_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const id = await halfSent(t, "recategorise_notice");
    // The sandbox's reviewer approves a pending template named "recategorise…", then moves it UTILITY → MARKETING.
    const [atMeta] = meta.sandbox.templates(t.wabaId);
    await meta.sandbox.setTemplateStatus(atMeta!.id, "PENDING", { silent: true });
    await meta.sandbox.reviewTemplatesNow();
    expect(await pausedBy(id, t.phoneNumberId)).toMatch(/^Meta recategorised the template recategorise_notice as marketing/);
  });

  it("sends what the number's messaging limit allows, says so, and continues when the limit allows again", async () => {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    await rawQuery(`update whatsapp_phone_numbers set messaging_limit = 'TIER_250' where phone_number_id = $1`, [t.phoneNumberId]);
    await setBucketRate(t.phoneNumberId, 1000);
    const id = await createCampaign(t, {
      name: "Over the limit",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Kaptembwo" }] },
      audience: { phones: Array.from({ length: 300 }, (_, i) => recipient(i)) },
    });
    await vi.waitFor(
      async () => {
        await feedCampaigns();
        await drainDispatcher();
        expect((await metaReceived(meta.graph, t.phoneNumberId)).length).toBe(250);
        expect((await campaignRow(id)).notice).toMatch(/^50 messages wait for the number's messaging limit/);
      },
      { timeout: 30_000, interval: 20 },
    );
    expect((await campaignRow(id)).status).toBe("sending");
    // A day later (the clock moved by moving the times): the people reached no longer count, the held messages are due.
    await rawQuery(`update messaging_limit_recipients set reached_at = reached_at - interval '25 hours'`);
    // Only the messages the limit held: one whose call was in doubt waits for Meta's webhook, not for the limit.
    const held = await rawQuery(
      `update messages set next_attempt_at = now() where campaign_id = $1 and status = 'queued' and error_title = 'messaging_limit_reached' returning id`,
      [id],
    );
    expect(held).toHaveLength(50);
    await runCampaign(id);
    expect(await metaReceived(meta.graph, t.phoneNumberId)).toHaveLength(300);
    expect((await campaignRow(id)).notice).toBeNull();
  });

  it("reports Meta's per-person marketing limit (131049) in words and does not retry it", async () => {
    const t = await connectedTenant();
    await template(t, "mega_sale", "MARKETING", "Habari {{1}}! Mega sale this weekend.");
    const yes = { consent: { status: "opted_in" as const, source: "manual" as const } };
    await saveContact(t, { name: "Imani Baraka", phone: "+254712341049", tags: ["sale"] }, yes);
    await saveContact(t, { name: "Jabari Kamau", phone: recipient(7), tags: ["sale"] }, yes);
    await setBucketRate(t.phoneNumberId, 1000);
    const id = await createCampaign(t, {
      name: "Sale",
      template: { name: "mega_sale" },
      parameters: { body: [{ field: "first_name" }] },
      audience: { tags: ["sale"] },
    });
    await runCampaign(id);
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect(await finalCounts(id)).toMatchObject({ sent: 2, failed: 1, read: 1 });
      },
      { timeout: 30_000, interval: 50 },
    );
    await feedCampaigns();
    await drainDispatcher();
    expect((await metaReceived(meta.graph, t.phoneNumberId)).filter((m) => m.to === "+254712341049")).toHaveLength(1);
    const failed = (await recipientsPage(t.organizationId, id, { result: "failed" })).recipients;
    expect(failed.map((r) => [r.phone, r.reason])).toEqual([
      ["+254712341049", "Meta did not deliver it to keep this person's experience healthy: they received many marketing messages lately."],
    ]);
  });
});

describe("tenants", () => {
  it("answers another tenant's campaign 404 for pause, resume and cancel, and leaves it alone", async () => {
    const t = await connectedTenant();
    const other = await connectedTenant("Other County");
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const id = await createCampaign(t, {
      name: "Mine",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Bahati" }] },
      audience: { phones: [recipient(1)] },
      scheduledFor: new Date(Date.now() + 3_600_000),
    });
    for (const act of [pauseCampaign, resumeCampaign, cancelCampaign])
      expect(await refusal(act(other, id))).toMatchObject({ status: 404, code: "campaign_not_found" });
    expect(await refusal(pauseCampaign(other, "not-a-uuid"))).toMatchObject({ status: 404 });
    expect((await campaignRow(id)).status).toBe("scheduled");
  });
});

describe("the lists", () => {
  it("page older and back newer by cursor, newest first, without skipping or repeating one", async () => {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.unshift(
        await createCampaign(t, {
          name: `Notice ${i}`,
          template: { name: "water_notice" },
          parameters: { body: [{ value: "Naivasha" }] },
          audience: { phones: [recipient(i)] },
          draft: true,
        }),
      );
      await nextMillisecond();
    }
    const first = await listCampaigns(t.organizationId, {}, { limit: 2 });
    expect(first.campaigns.map((c) => c.id)).toEqual(ids.slice(0, 2));
    expect(first.newer).toBeNull();
    const second = await listCampaigns(t.organizationId, {}, { cursor: first.older, limit: 2 });
    expect(second.campaigns.map((c) => c.id)).toEqual(ids.slice(2, 4));
    const third = await listCampaigns(t.organizationId, {}, { cursor: second.older, limit: 2 });
    expect(third.campaigns.map((c) => c.id)).toEqual(ids.slice(4));
    expect(third.older).toBeNull();
    const back = await listCampaigns(t.organizationId, {}, { before: third.newer, limit: 2 });
    expect(back.campaigns.map((c) => c.id)).toEqual(ids.slice(2, 4));
    const start = await listCampaigns(t.organizationId, {}, { before: back.newer, limit: 2 });
    expect(start.campaigns.map((c) => c.id)).toEqual(ids.slice(0, 2));
    expect(start.newer).toBeNull();
    // A cursor this code did not write reads the first page.
    expect((await listCampaigns(t.organizationId, {}, { before: "bm90IGEgY3Vyc29y", limit: 2 })).campaigns.map((c) => c.id)).toEqual(
      ids.slice(0, 2),
    );
  });
});

describe("media headers and buttons", () => {
  const POSTER = "https://nyota.co.ke/media/gawio-2026.jpg";
  const STATEMENT = { type: "URL", text: "View statement", url: "https://nyota.co.ke/statements/{{1}}", example: ["NYOTA-0042"] };

  /** An approved template with an image header, a body placeholder and a dynamic URL button. */
  const posterTemplate = (t: Tenant, name = "dividend_poster") =>
    approvedMediaTemplate(meta.graph, t, name, {
      body: "Habari {{1}}, your dividend statement for 2026 is ready.",
      buttons: [{ type: "QUICK_REPLY", text: "Asante" }, STATEMENT],
    });

  /** A file in the tenant's media store (its row; the bytes are not read by these checks). */
  const storedFile = async (organizationId: string, mimeType: string, fileName: string) =>
    (
      await rawQuery<{ id: string }>(
        `insert into media_files (organization_id, direction, mime_type, size, sha256, file_name, storage_key)
         values ($1, 'outbound', $2, 100, 'x', $3, 'test/none') returning id`,
        [organizationId, mimeType, fileName],
      )
    )[0]!.id;

  const sent = (m: { body: unknown }) =>
    (m.body as { template: { components: { type: string; sub_type?: string; index?: string; parameters: Record<string, unknown>[] }[] } })
      .template.components;

  it("sends the header file to everyone and each person's button suffix from a contact field, with its fallback", async () => {
    const t = await connectedTenant("Nyota Savings Sacco");
    await posterTemplate(t);
    await defineAttribute(t, { key: "member_no", label: "Member number", type: "text" });
    await saveContact(t, { name: "Amina Wekesa", phone: recipient(1), tags: ["members"], attributes: { member_no: "NYOTA-0101" } });
    await saveContact(t, { name: "Baraka Otieno", phone: recipient(2), tags: ["members"] }); // no member number: the fallback
    const input: CampaignInput = {
      name: "Dividend statements",
      template: { name: "dividend_poster" },
      parameters: {
        body: [{ field: "first_name" }],
        headerMedia: { link: POSTER },
        buttons: [{ index: 1, source: { field: "member_no", fallback: "search" } }],
      },
      audience: { tags: ["members"] },
    };
    const checked = await checkCampaign(t.organizationId, input);
    const preview = await previewMessages(t.organizationId, checked);
    expect(preview.map((m) => [m.header, m.buttons])).toEqual([
      [`[image: ${POSTER}]`, [{ text: "View statement", value: "https://nyota.co.ke/statements/NYOTA-0101" }]],
      [`[image: ${POSTER}]`, [{ text: "View statement", value: "https://nyota.co.ke/statements/search" }]],
    ]);

    const id = await createCampaign(t, input);
    expect((await campaignRow(id)).parameters).toEqual({
      body: [{ field: "first_name" }],
      headerMedia: { link: POSTER },
      buttons: [{ index: 1, source: { field: "member_no", fallback: "search" } }],
    });
    await setBucketRate(t.phoneNumberId, 1000);
    await runCampaign(id);
    const atMeta = new Map((await metaReceived(meta.graph, t.phoneNumberId)).map((m) => [m.to, sent(m)]));
    const expected = (name: string, suffix: string) => [
      { type: "header", parameters: [{ type: "image", image: { link: POSTER } }] },
      { type: "body", parameters: [{ type: "text", text: name }] },
      { type: "button", sub_type: "url", index: "1", parameters: [{ type: "text", text: suffix }] },
    ];
    expect(atMeta).toEqual(
      new Map([
        [recipient(1), expected("Amina", "NYOTA-0101")],
        [recipient(2), expected("Baraka", "search")],
      ]),
    );
    expect((await getCampaign(t.organizationId, id)).counts.sent).toBe(2);
  });

  it("leaves out a person whose button value would be empty, and names an uploaded header file by its own name", async () => {
    const t = await connectedTenant();
    await posterTemplate(t);
    await defineAttribute(t, { key: "member_no", label: "Member number", type: "text" });
    await saveContact(t, { name: "Chebet Kiprop", phone: recipient(3), tags: ["members"], attributes: { member_no: "NYOTA-0303" } });
    await saveContact(t, { name: "Daudi Mwangi", phone: recipient(4), tags: ["members"] });
    const poster = await storedFile(t.organizationId, "image/png", "gawio.png");
    const input: CampaignInput = {
      name: "Statements by upload",
      template: { name: "dividend_poster" },
      parameters: {
        body: [{ value: "member" }],
        headerMedia: { mediaId: poster },
        buttons: [{ index: 1, source: { field: "member_no" } }],
      },
      audience: { tags: ["members"] },
    };
    const checked = await checkCampaign(t.organizationId, input);
    expect(await estimateCampaign(t.organizationId, checked)).toMatchObject({ recipients: 1, leftOut: { missing_value: 1 } });
    expect((await previewMessages(t.organizationId, checked)).map((m) => m.header)).toEqual(["[image: gawio.png]"]);
  });

  it("refuses a missing or insecure header file, one the template has no place for, another's file, and missing buttons", async () => {
    const t = await connectedTenant();
    const other = await connectedTenant("Another Sacco");
    await posterTemplate(t);
    await template(t, "statement_ready", "UTILITY", "Dear {{1}}, your statement is ready.");
    const good: CampaignInput = {
      name: "Posters",
      template: { name: "dividend_poster" },
      parameters: { body: [{ value: "member" }], headerMedia: { link: POSTER }, buttons: [{ index: 1, source: { value: "all" } }] },
      audience: { phones: [recipient(5)] },
    };
    const withParameters = (parameters: Partial<CampaignInput["parameters"]>) => ({
      ...good,
      parameters: { ...good.parameters, ...parameters },
    });
    const refusals = {
      missing: await refusal(createCampaign(t, withParameters({ headerMedia: undefined }))),
      http: await refusal(createCampaign(t, withParameters({ headerMedia: { link: "http://nyota.co.ke/gawio.jpg" } }))),
      notALink: await refusal(createCampaign(t, withParameters({ headerMedia: { link: "gawio.jpg" } }))),
      noPlace: await refusal(
        createCampaign(t, {
          ...good,
          template: { name: "statement_ready" },
          parameters: { body: [{ value: "x" }], headerMedia: { link: POSTER } },
        }),
      ),
      foreign: await refusal(
        createCampaign(t, withParameters({ headerMedia: { mediaId: await storedFile(other.organizationId, "image/png", "x.png") } })),
      ),
      pdf: await refusal(
        createCampaign(t, withParameters({ headerMedia: { mediaId: await storedFile(t.organizationId, "application/pdf", "a.pdf") } })),
      ),
      noButton: await refusal(createCampaign(t, withParameters({ buttons: [] }))),
      quickReply: await refusal(
        createCampaign(t, withParameters({ buttons: [{ index: 0, source: { value: "x" } }, ...good.parameters.buttons!] })),
      ),
      unknownField: await refusal(createCampaign(t, withParameters({ buttons: [{ index: 1, source: { field: "shoe_size" } }] }))),
    };
    expect(refusals).toMatchObject({
      missing: {
        status: 422,
        code: "invalid_parameters",
        field: "parameters",
        message: "dividend_poster has an image header: give the file to send with it, as an https link or an uploaded file.",
      },
      http: { status: 422, code: "invalid_parameters", field: "parameters", message: expect.stringContaining("must start with https://") },
      notALink: { status: 422, code: "invalid_parameters", field: "parameters" },
      noPlace: {
        status: 422,
        code: "invalid_parameters",
        field: "parameters",
        message: "statement_ready has no image, video or document header: leave out the header file.",
      },
      foreign: { status: 404, code: "media_not_found", field: "parameters" },
      pdf: { status: 422, code: "media_type_mismatch", field: "parameters" },
      noButton: {
        status: 422,
        code: "invalid_parameters",
        field: "parameters",
        message: expect.stringContaining("button 2 (View statement) ends its link with a placeholder"),
      },
      quickReply: { status: 422, code: "invalid_parameters", message: "dividend_poster has no button 1 that takes a value." },
      unknownField: {
        status: 422,
        code: "invalid_parameters",
        message: expect.stringContaining('button 2 (View statement) is mapped to "shoe_size"'),
      },
    });
    expect((await rawQuery(`select count(*)::int as n from campaigns`))[0]).toEqual({ n: 0 });
    expect(await createCampaign(t, good)).toEqual(expect.any(String));
  });

  it("takes a copy code per person for a marketing template's COPY_CODE button", async () => {
    const t = await connectedTenant();
    await approvedMediaTemplate(meta.graph, t, "gawio_offer", {
      category: "MARKETING",
      body: "Habari {{1}}! Use your code for 10% off loan fees.",
      buttons: [{ type: "COPY_CODE", example: "GAWIO26" }],
    });
    await defineAttribute(t, { key: "promo", label: "Promo code", type: "text" });
    const yes = { consent: { status: "opted_in" as const, source: "manual" as const } };
    await saveContact(t, { name: "Esther Njeri", phone: recipient(6), tags: ["offer"], attributes: { promo: "ESTHER10" } }, yes);
    const input: CampaignInput = {
      name: "Loan fee offer",
      template: { name: "gawio_offer" },
      parameters: { body: [{ field: "first_name" }], headerMedia: { link: POSTER }, buttons: [{ index: 0, source: { field: "promo" } }] },
      audience: { tags: ["offer"] },
    };
    expect(
      await refusal(
        createCampaign(t, { ...input, parameters: { ...input.parameters, buttons: [{ index: 0, source: { value: "X".repeat(16) } }] } }),
      ),
    ).toMatchObject({
      code: "invalid_parameters",
      message: "A copy code has at most 15 characters.",
    });
    const id = await createCampaign(t, input);
    await setBucketRate(t.phoneNumberId, 1000);
    await runCampaign(id);
    const [message] = await metaReceived(meta.graph, t.phoneNumberId);
    expect(sent(message!).at(-1)).toEqual({
      type: "button",
      sub_type: "copy_code",
      index: "0",
      parameters: [{ type: "coupon_code", coupon_code: "ESTHER10" }],
    });
  });
});

describe("the live figures", () => {
  it("streams an ended campaign's figures once and closes, and another tenant's campaign is not found", async () => {
    const t = await connectedTenant();
    const other = await createVerifiedUser({ businessName: "Duka Lingine" });
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const id = await createCampaign(t, {
      name: "Ended already",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Molo" }] },
      audience: { phones: [recipient(1)] },
    });
    await cancelCampaign(t, id);
    const cookie = await signedInCookie(t.email, t.password);
    const request = getRequest(`/messaging/campaigns/${id}/events`, { cookie });
    const response = (await eventsLoader(routeArgs(request, { id }))) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const text = await response.text();
    // Nothing was sent, so nothing can move: its figures once, then the end.
    expect(text).toMatch(/^event: figures\ndata: \{.*"status":"cancelled".*\}\n\nevent: end\ndata: \{\}\n\n$/);
    const foreign = getRequest(`/messaging/campaigns/${id}/events`, { cookie: await signedInCookie(other.email, other.password) });
    const refused = await eventsLoader(routeArgs(foreign, { id })).catch((thrown: unknown) => thrown);
    expect((refused as { init?: { status?: number } }).init?.status).toBe(404);
  });

  /** A campaign to one person who reads it and two whose phones only ever say "sent" (the sandbox's 0003 numbers), run to its end. */
  async function endedWithStatusesToCome() {
    const t = await connectedTenant();
    await template(t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    await setBucketRate(t.phoneNumberId, 1000);
    const id = await createCampaign(t, {
      name: "Late receipts",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Njoro" }] },
      audience: { phones: [recipient(1), "+254712000003", "+254712010003"] },
    });
    await runCampaign(id);
    const messages = await rawQuery<{ id: string; wamid: string; recipient_phone: string }>(
      `select id, wamid, recipient_phone from messages where campaign_id = $1 order by recipient_phone`,
      [id],
    );
    await settleStatuses(
      messages.map((m) => m.id),
      ["sent", "read"],
    );
    await settleStatuses([messages.find((m) => m.recipient_phone === recipient(1))!.id], ["read"]);
    const late = messages.filter((m) => m.recipient_phone !== recipient(1));
    /** Meta's late status for one of the two, through the webhook and its queue. */
    const status = async (m: (typeof late)[number], name: "delivered" | "read") => {
      await meta.sandbox.sendStatus({
        phoneNumberId: t.phoneNumberId,
        wamid: m.wamid,
        status: name,
        recipientId: m.recipient_phone.slice(1),
      });
      await settleStatuses([m.id], [name]);
    };
    return { t, id, late, status };
  }

  it("shows the same figures on the campaign's page, the Campaigns tab and Broadcast History as statuses arrive after it completed", async () => {
    const { t, id, late, status } = await endedWithStatusesToCome();
    const cookie = await signedInCookie(t.email, t.password);
    const figures = async () => {
      const page = await campaignLoader(routeArgs(getRequest(`/messaging/campaigns/${id}`, { cookie }), { id }));
      const list = await run(campaignsLoader, getRequest("/messaging", { cookie }));
      const history = await run(broadcastsLoader, getRequest("/messaging/broadcasts", { cookie }));
      const inList = (data: { page: { campaigns: { id: string; counts: Record<string, number> }[] } }) =>
        data.page.campaigns.find((c) => c.id === id)!.counts;
      expect(page.campaign.status).toBe("completed");
      expect(page.followed).toBe(true);
      expect(inList(list.data)).toEqual(page.campaign.counts);
      expect(inList(history.data)).toEqual(page.campaign.counts);
      return page.campaign.counts;
    };
    expect(await figures()).toMatchObject({ sent: 3, delivered: 1, read: 1, failed: 0 });
    // Statuses arrive after the end, a moment after the figures were read: every page shows them at once.
    await status(late[0]!, "delivered");
    expect(await figures()).toMatchObject({ sent: 3, delivered: 2, read: 1 });
    await status(late[0]!, "read");
    await status(late[1]!, "read");
    expect(await figures()).toMatchObject({ sent: 3, delivered: 3, read: 3 });
    expect(await figures()).toEqual(await finalCounts(id));
  });

  it("follows a completed campaign's figures while a status can still move, then ends; not after a day", async () => {
    const { t, id, late, status } = await endedWithStatusesToCome();
    const cookie = await signedInCookie(t.email, t.password);
    const open = async () => {
      const response = (await eventsLoader(routeArgs(getRequest(`/messaging/campaigns/${id}/events`, { cookie }), { id }))) as Response;
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      const stream = { text: "", closed: false };
      void (async () => {
        for (;;) {
          const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
          if (chunk.done) return void (stream.closed = true);
          stream.text += decoder.decode(chunk.value, { stream: true });
        }
      })();
      const events = () =>
        stream.text
          .split("\n\n")
          .filter(Boolean)
          .map((block) => {
            const [event, data] = block.split("\n").map((line) => line.slice(line.indexOf(": ") + 2));
            return { event: event!, data: JSON.parse(data!) as { status: string; counts: Record<string, number> } };
          });
      return { stream, events, cancel: () => reader.cancel() };
    };

    const live = await open();
    try {
      await vi.waitFor(() => expect(live.events()).toHaveLength(1), { timeout: 30_000, interval: 20 });
      expect(live.events()[0]).toMatchObject({ event: "figures", data: { status: "completed", counts: { delivered: 1, read: 1 } } });
      // Completed, and still open: two messages can still be delivered and read.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(live.stream.closed).toBe(false);
      await status(late[0]!, "read");
      await vi.waitFor(() => expect(live.events().at(-1)!.data.counts).toMatchObject({ delivered: 2, read: 2 }), {
        timeout: 30_000,
        interval: 50,
      });
      expect(live.stream.closed).toBe(false);
      // The last one read: nothing more can move, so it says so and closes.
      await status(late[1]!, "read");
      await vi.waitFor(() => expect(live.stream.closed).toBe(true), { timeout: 30_000, interval: 50 });
      const events = live.events();
      expect(events.at(-2)).toMatchObject({ event: "figures", data: { status: "completed", counts: { delivered: 3, read: 3 } } });
      expect(events.at(-1)!.event).toBe("end");
    } finally {
      await live.cancel();
    }

    // A day after its end it is no longer followed, whatever could still move: the figures once, then the end.
    await rawQuery(`update messages set read_at = null, status = 'sent' where id = $1`, [
      (await rawQuery<{ id: string }>(`select id from messages where wamid = $1`, [late[1]!.wamid]))[0]!.id,
    ]);
    await rawQuery(`update campaigns set finished_at = now() - interval '25 hours' where id = $1`, [id]);
    const old = await open();
    await vi.waitFor(() => expect(old.stream.closed).toBe(true), { timeout: 30_000, interval: 20 });
    expect(old.events().map((e) => e.event)).toEqual(["figures", "end"]);
    const page = await campaignLoader(routeArgs(getRequest(`/messaging/campaigns/${id}`, { cookie }), { id }));
    expect(page.followed).toBe(false);
  });
});
