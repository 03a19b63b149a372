import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createCampaign } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaign, feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { loader as listEventsLoader } from "~/routes/app/messaging/events";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, routeArgs } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, recipient, setBucketRate } from "../support/sending-kit";

// Issue 74: the Campaigns tab followed a campaign only on a reload ("8 0 0 0 0" a minute after it
// completed) while the campaign's own page was live. The list now follows the same way: a stream of
// the figures of the campaigns on the page that can still change (/messaging/events), the table a
// live region, and without JavaScript a refresh while one sends.

const meta = metaSandboxForFile();

async function connectedTenant(name = "Maji Safi Water") {
  const account = await createVerifiedUser({ businessName: name });
  const organizationId = account.organization.id;
  await rawQuery(`update organizations set billing_type = 'postpaid', plan_type = 'Growth' where id = $1`, [organizationId]);
  const connection = await meta.graph.connect(organizationId, name);
  const t = { organizationId, userId: account.user.id, ...connection };
  await approvedBodyTemplate(meta.graph, t, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
  await setBucketRate(connection.phoneNumberId, 1000);
  return { ...t, cookie: await signedInCookie(account.email, account.password) };
}

const html = async (path: string, cookie: string) =>
  (await (await appFetch(getRequest(path, { cookie }))).text()).replaceAll("<!-- -->", "");
const statusOf = async (id: string) => (await rawQuery<{ status: string }>(`select status from campaigns where id = $1`, [id]))[0]!.status;

type Listed = { id: string; status: string; counts: Record<string, number> }[];

/** Opens the list's stream and reads its events as they come. */
async function open(path: string, cookie: string) {
  const response = (await listEventsLoader(routeArgs(getRequest(path, { cookie })))) as Response;
  expect(response.headers.get("content-type")).toBe("text/event-stream");
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
        return { event: event!, data: JSON.parse(data!) as Listed };
      });
  return { stream, events, cancel: () => reader.cancel() };
}

describe("the Campaigns tab follows a sending campaign live", () => {
  it("draws its table as a live region with the stream of the campaigns that can change, and refreshes without JavaScript", async () => {
    const t = await connectedTenant();
    const other = await connectedTenant("Kaunti ya Nakuru");
    const id = await createCampaign(t, {
      name: "Maji Rongai",
      template: { name: "water_notice" },
      parameters: { body: [{ value: "Rongai" }] },
      // Two who receive it and one Meta fails after accepting it (…0000, 131026).
      audience: { phones: [recipient(1), recipient(2), "+254712340000"] },
    });
    await feedCampaign(id);
    expect(await statusOf(id)).toBe("sending");

    const sending = await html("/messaging", t.cookie);
    expect(sending).toContain(`id="campaigns-table"`);
    expect(sending).toMatch(new RegExp(`data-live-region="[^"]*"[^>]*data-live-events="/messaging/events\\?ids=${id}"`));
    expect(sending).toContain(`<noscript><meta http-equiv="refresh" content="5"/></noscript>`);
    // The page loads the live script, as a campaign's page does.
    expect(sending).toMatch(/<script[^>]+live[^"]*\.js/);

    // The stream: its figures now, then again as they move, to completed and the late failure.
    const live = await open(`/messaging/events?ids=${id},${(await connectedCampaign(other)).id}`, t.cookie);
    try {
      await vi.waitFor(() => expect(live.events().length).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
      const first = live.events()[0]!;
      expect(first.event).toBe("figures");
      // Another tenant's campaign is not in it.
      expect(first.data.map((c) => c.id)).toEqual([id]);
      expect(first.data[0]!.status).toBe("sending");
      await vi.waitFor(
        async () => {
          await drainDispatcher();
          await feedCampaigns();
          await drainJobs();
          const last = live.events().findLast((e) => e.event === "figures")!.data[0]!;
          expect(last).toMatchObject({ status: "completed", counts: { sent: 3, delivered: 2, read: 2, failed: 1 } });
        },
        { timeout: 30_000, interval: 50 },
      );
      // The sandbox reads the two at once and fails the third: nothing can move any more, so it ends.
      await vi.waitFor(() => expect(live.stream.closed).toBe(true), { timeout: 30_000, interval: 20 });
      expect(live.events().at(-1)!.event).toBe("end");
    } finally {
      await live.cancel();
    }

    // Ended a day ago, nothing followed: no stream drawn, no refresh, and a stream asked for ends at once.
    await rawQuery(`update campaigns set finished_at = now() - interval '25 hours' where id = $1`, [id]);
    const old = await html("/messaging", t.cookie);
    expect(old).toContain(`id="campaigns-table"`);
    expect(old).not.toContain("data-live-events");
    expect(old).not.toContain(`http-equiv="refresh"`);
    const ended = await open(`/messaging/events?ids=${id}`, t.cookie);
    await vi.waitFor(() => expect(ended.stream.closed).toBe(true), { timeout: 30_000, interval: 20 });
    expect(ended.events().map((e) => e.event)).toEqual(["figures", "end"]);
    // Another tenant asking for this campaign learns nothing: no figures, the end.
    const foreign = await open(`/messaging/events?ids=${id}`, other.cookie);
    await vi.waitFor(() => expect(foreign.stream.closed).toBe(true), { timeout: 30_000, interval: 20 });
    expect(foreign.events()).toEqual([
      { event: "figures", data: [] },
      { event: "end", data: {} },
    ]);
  }, 120_000);
});

/** A scheduled campaign of another tenant: its id, which the first tenant's stream must ignore. */
async function connectedCampaign(t: Awaited<ReturnType<typeof connectedTenant>>) {
  const id = await createCampaign(t, {
    name: "Nakuru notice",
    template: { name: "water_notice" },
    parameters: { body: [{ value: "Nakuru" }] },
    audience: { phones: [recipient(9)] },
    scheduledFor: new Date(Date.now() + 3600_000),
  });
  return { id };
}
