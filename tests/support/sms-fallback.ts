import { afterEach, beforeEach, expect, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createCampaign } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaign } from "~/.server/domains/campaigns/feeder";
import { saveSmsConnection } from "~/.server/domains/sms";
import { API_KEY, SENDER_ID, USERNAME } from "@jumbe/sandbox/africastalking/test-support";
import { createVerifiedUser } from "./accounts";
import type { metaSandboxForFile } from "./meta-harness";
import { approvedBodyTemplate, setBucketRate } from "./sending-kit";

// Issue 77's campaigns with an SMS fallback (decision 152), for the tests of the fallback: the Meta
// sandbox fails numbers ending 0000 with 131026 after accepting them, and leaves those ending 0003 `sent`.

export const UNREACHABLE = "+254712340000";
export const ONLY_SENT = "+254712340003";

type Meta = ReturnType<typeof metaSandboxForFile>;

/** A postpaid Growth organisation with a connected number, its template `order_ready` approved, and SMS connected (unless told not). */
export async function connectedTenant(meta: Meta, name: string, options: { sms?: boolean } = {}) {
  const account = await createVerifiedUser({ businessName: name });
  const organizationId = account.organization.id;
  await rawQuery(`update organizations set billing_type = 'postpaid', plan_type = 'Growth' where id = $1`, [organizationId]);
  const connection = await meta.graph.connect(organizationId, name);
  const t = { organizationId, userId: account.user.id, ...connection };
  await approvedBodyTemplate(meta.graph, t, "order_ready", "UTILITY", "Your order {{1}} is ready.");
  await setBucketRate(connection.phoneNumberId, 1000);
  if (options.sms !== false)
    await saveSmsConnection(
      { user: { id: account.user.id }, organization: { id: organizationId }, role: "owner" },
      { username: USERNAME, apiKey: API_KEY, senderId: SENDER_ID },
    );
  return t;
}
export type FallbackTenant = Awaited<ReturnType<typeof connectedTenant>>;

export const scalar = async (sql: string, params: unknown[]) => Number((await rawQuery<{ n: number }>(sql, params))[0]!.n);

export const fallbacks = (campaignId: string) =>
  rawQuery<{ id: string; state: string; reason: string | null; trigger: string; sms_message_id: string | null }>(
    `select id, state, reason, trigger, sms_message_id from sms_fallbacks where campaign_id = $1 order by created_at`,
    [campaignId],
  );

/** The campaign "Orders ready" ({{1}} = "#42") to `phones`, fed and sent: every message accepted by Meta. */
export async function sendCampaign(
  t: FallbackTenant,
  phones: string[],
  smsFallback: { mode: "own" | "message"; text?: string; afterMinutes?: number },
) {
  const id = await createCampaign(t, {
    name: "Orders ready",
    template: { name: "order_ready" },
    parameters: { body: [{ value: "#42" }] },
    audience: { phones },
    smsFallback,
  });
  await feedCampaign(id);
  await vi.waitFor(
    async () => {
      await drainDispatcher();
      expect(await scalar(`select count(*)::int as n from messages where campaign_id = $1 and accepted_at is not null`, [id])).toBe(
        phones.length,
      );
    },
    { timeout: 30_000, interval: 20 },
  );
  return id;
}

/** Meta's webhooks read (they wait in the job queue) until `check` holds. */
export const settle = (check: () => Promise<void>) =>
  vi.waitFor(
    async () => {
      await drainJobs();
      await check();
    },
    { timeout: 30_000, interval: 20 },
  );

/** Each test of the file at 10:00 in Nairobi (outside SMS quiet hours), the clock running on; the database keeps its own. Call at the file's top level. */
export function daytimeClockForFile() {
  beforeEach(() => {
    const today = new Date();
    today.setUTCHours(7, 0, 0, 0);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true, now: today });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
