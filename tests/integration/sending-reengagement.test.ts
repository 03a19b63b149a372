import { beforeEach, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { queueMessage } from "~/.server/domains/messaging/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { getApiMessage } from "~/.server/adapters/api-v1/messages";
import { threadMessagesByIds } from "~/.server/domains/inbox/thread";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";

// Meta's 131047 (re-engagement: more than 24 hours since the customer last wrote) reaches Jumbe in
// two ways (decision 111): accepted with a wamid and then failed in a status webhook (what Cloud API
// accounts see, the sandbox's default), or refused in the send's own answer. Jumbe checks the window
// before queueing, so either happens when Meta's view of the window differs from Jumbe's (the
// message waited in the queue, a clock, a lost webhook): here the sandbox's clock jumps a day after
// the message was queued. Both must end the same: failed, with the same words, never sent.

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
let offset = 0;
const meta = metaSandboxForFile({ now: () => Date.now() + offset });

beforeEach(() => {
  offset = 0;
});

const CUSTOMER = "254712345678";
/** The inbox's words (messaging_failure_window). */
const WINDOW_WORDS = "More than 24 hours since the person last wrote: only a template can reach them.";
/** The API gives Meta's code and title with its details (docs/api.md), the same whichever way Meta said it. */
const API_ERROR = {
  code: "meta_131047",
  message:
    "Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
};

async function messageRow(id: string) {
  const [row] = await rawQuery<Record<string, unknown>>(`select * from messages where id = $1`, [id]);
  return row!;
}

describe("a free-form message Meta refuses with 131047 (outside the 24-hour window)", () => {
  it.each(["async", "sync"] as const)("ends failed with the window's words, never sent (%s)", async (mode) => {
    const user = await createVerifiedUser({ businessName: `Nyota Sacco ${mode}` });
    const t = await meta.graph.connect(user.organization.id, `Nyota Sacco ${mode}`);
    if (mode === "sync") meta.sandbox.setReengagement(t.phoneNumberId, "sync");
    await meta.customerWrites(t.phoneNumberId, CUSTOMER);
    const queued = await queueMessage(user.organization.id, {
      to: `+${CUSTOMER}`,
      content: { kind: "text", text: "Salio lako ni KES 1,250." },
      source: "api",
    });

    offset = DAY_AND_AN_HOUR;
    await drainDispatcher();
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await messageRow(queued.id)).status).toBe("failed");
      },
      { timeout: 30_000, interval: 20 },
    );

    const atMeta = meta.sandbox.messages({ phoneNumberId: t.phoneNumberId });
    const row = await messageRow(queued.id);
    if (mode === "async") {
      // Meta took it (a wamid), then said it failed.
      expect(atMeta).toMatchObject([{ wamid: row.wamid, outcome: "failed 131047", statuses: ["failed"] }]);
    } else {
      expect(atMeta).toEqual([]);
      expect(row.wamid).toBeNull();
    }
    expect(row).toMatchObject({ status: "failed", error_code: 131047, sent_at: null, delivered_at: null, read_at: null });
    expect(row.failed_at).not.toBeNull();

    // The same in the API and in the inbox.
    expect(await getApiMessage(user.organization.id, queued.id)).toMatchObject({
      status: "failed",
      error: API_ERROR,
      sentAt: null,
      deliveredAt: null,
    });
    expect(await threadMessagesByIds(user.organization.id, [queued.id])).toMatchObject([{ status: "failed", failure: WINDOW_WORDS }]);

    // Tried once: a refusal for the window is not retried.
    expect(meta.sandbox.messages({ phoneNumberId: t.phoneNumberId })).toHaveLength(atMeta.length);
    expect(row.attempts).toBe(1);
  });
});
