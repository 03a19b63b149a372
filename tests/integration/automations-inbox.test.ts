import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { createRule, deleteRule } from "~/.server/domains/automations/rules";
import { saveAutomationSettings } from "~/.server/domains/automations/settings";
import { threadMessagesByIds } from "~/.server/domains/inbox/thread";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";

// The inbox says which automation sent a message (issue 44): the rule by its name, the welcome or
// the away message; a deleted rule's replies stay labelled as an automation's.

const meta = metaSandboxForFile();

async function replies(organizationId: string, count: number) {
  return vi.waitFor(
    async () => {
      await drainJobs();
      const rows = await rawQuery<{ id: string }>(
        `select id from messages where organization_id = $1 and direction = 'outbound' and source = 'automation' order by seq`,
        [organizationId],
      );
      if (rows.length < count) throw new Error(`${rows.length} replies so far`);
      return rows.map((r) => r.id);
    },
    { timeout: 30_000, interval: 25 },
  );
}

describe("automated messages in the inbox", () => {
  it("labels each by the automation that sent it, in the reader's language", async () => {
    const user = await createVerifiedUser({ businessName: "Nyota Savings Sacco" });
    const actor = { organizationId: user.organization.id, userId: user.user.id };
    const { phoneNumberId } = await meta.graph.connect(actor.organizationId, "Nyota Savings Sacco");
    const closed = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] };
    await saveAutomationSettings(
      actor,
      {
        welcomeEnabled: true,
        welcomeText: "Karibu!",
        awayEnabled: true,
        awayText: "Tumefunga.",
        days: closed,
        holidays: [],
        holidayMode: false,
      },
      "Africa/Nairobi",
    );
    const rule = await createRule(actor, { name: "Loan rates", matchType: "contains", keywords: ["riba"], reply: "Riba ni 1% kwa mwezi." });
    for (const text of ["Habari", "Mko wazi?", "Riba ni ngapi?"])
      await meta.sandbox.sendInbound({ phoneNumberId, from: "254712000301", name: "Achieng Otieno", text });
    const ids = await replies(actor.organizationId, 3);
    const labels = async () =>
      (await threadMessagesByIds(actor.organizationId, ids)).map((message) => ({ source: message.source, automation: message.automation }));
    // The jobs of one webhook batch may run in any order: the labels, whichever came first.
    const byKind = (list: Awaited<ReturnType<typeof labels>>) =>
      [...list].sort((a, b) => a.automation!.kind.localeCompare(b.automation!.kind));
    expect(byKind(await labels())).toEqual([
      { source: "automation", automation: { kind: "away", rule: null } },
      { source: "automation", automation: { kind: "rule", rule: "Loan rates" } },
      { source: "automation", automation: { kind: "welcome", rule: null } },
    ]);
    await deleteRule(actor, rule.id);
    expect(byKind(await labels())[1]).toEqual({ source: "automation", automation: { kind: "rule", rule: null } });
  });
});
