import { vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { createVerifiedUser } from "./accounts";
import type { metaSandboxForFile } from "./meta-harness";

/**
 * Automations' tests (issue 44): a tenant with a connected number in the Meta sandbox, a customer who
 * writes to it, and what Jumbe sent back and recorded.
 */
export function automationHarness(meta: ReturnType<typeof metaSandboxForFile>) {
  async function tenant(name: string) {
    const user = await createVerifiedUser({ businessName: name });
    const actor = { organizationId: user.organization.id, userId: user.user.id };
    return { ...actor, actor, ...(await meta.graph.connect(user.organization.id, name)) };
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  /** A customer writes; answers when the webhook is stored and every job it set off has run. */
  async function customerWrites(t: Tenant, from: string, text: string) {
    const before = await inboundCount(t.organizationId);
    const sent = await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from, name: "Achieng Otieno", text });
    await until(
      () => inboundCount(t.organizationId),
      (n) => n === before + 1,
    );
    await drainJobs();
    return sent;
  }
  return { tenant, customerWrites };
}

/** Waits until the condition holds, running the job queue meanwhile. */
export async function until<T>(read: () => Promise<T>, check: (value: T) => boolean) {
  return vi.waitFor(
    async () => {
      await drainJobs();
      const value = await read();
      if (!check(value)) throw new Error(`not yet: ${JSON.stringify(value)}`);
      return value;
    },
    { timeout: 30_000, interval: 25 },
  );
}

/** The organisation's outbound messages, in the order they were queued. */
export const outbound = (organizationId: string) =>
  rawQuery<{ id: string; body: string; source: string; automation_run_id: string | null; context_wamid: string | null }>(
    `select id, body, source, automation_run_id, context_wamid from messages where organization_id = $1 and direction = 'outbound' order by seq`,
    [organizationId],
  );

export const inboundCount = async (organizationId: string) =>
  (
    await rawQuery<{ n: number }>(`select count(*)::int as n from messages where organization_id = $1 and direction = 'inbound'`, [
      organizationId,
    ])
  )[0]!.n;

/** What automations did with the organisation's customer messages, oldest first. */
export const runs = (organizationId: string) =>
  rawQuery<{ kind: string; rule_id: string | null; reply_id: string | null; message_id: string }>(
    `select kind, rule_id, reply_id, message_id from automation_runs where organization_id = $1 order by created_at`,
    [organizationId],
  );
