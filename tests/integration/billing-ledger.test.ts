import { describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { failMessages } from "~/.server/domains/messaging/failures";
import { changeWallet, holdForMessages, walletState } from "~/.server/domains/billing/ledger";
import { WALLET_EMPTY_PAUSE } from "~/.server/domains/billing/charging";
import { foldUsage } from "~/.server/domains/billing/usage-fold";
import { resumeWalletPausedCampaigns } from "~/.server/domains/campaigns/wallet-resume";
import { createCampaign } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile, refusalOf } from "../support/meta-harness";
import { approvedTemplate, messageKeys, metaReceived, recipient } from "../support/sending-kit";

// The wallet's ledger (issue 17): concurrency never takes it below zero or loses a cent, and the
// sending engine holds, charges, releases and refunds each prepaid message exactly once.

const meta = metaSandboxForFile();

async function tenant(billingType: "prepaid" | "postpaid", balanceCents = 0, name = "Nyota Savings Sacco") {
  const user = await createVerifiedUser({ businessName: name });
  const organizationId = user.organization.id;
  await rawQuery(`update organizations set billing_type = $2, plan_type = 'Growth' where id = $1`, [organizationId, billingType]);
  if (balanceCents) await credit(organizationId, balanceCents);
  return { organizationId, userId: user.user.id };
}

const credit = (organizationId: string, cents: number) =>
  db().transaction((tx) => changeWallet(tx, { organizationId, kind: "adjustment", amountCents: cents, description: "Opening balance" }));

async function ledgerOf(organizationId: string) {
  return rawQuery<{ kind: string; amount_cents: number; held_cents: number; message_count: number | null }>(
    `select kind, amount_cents::int, held_cents::int, message_count from wallet_entries where organization_id = $1 order by id`,
    [organizationId],
  );
}

/** The wallet row agrees with the sum of its ledger, and its available part is not negative. */
async function expectLedgerAgrees(organizationId: string) {
  const [sums] = await rawQuery<{ balance: number; held: number }>(
    `select coalesce(sum(amount_cents), 0)::int as balance, coalesce(sum(held_cents), 0)::int as held from wallet_entries where organization_id = $1`,
    [organizationId],
  );
  const wallet = await walletState(db(), organizationId);
  expect({ balance: wallet.balanceCents, held: wallet.heldCents }).toEqual(sums);
  expect(wallet.availableCents).toBeGreaterThanOrEqual(0);
  return wallet;
}

const template = (to: string): SendRequest => ({
  to,
  content: { kind: "template", template: { name: "payment_received", parameters: ["KES 500"] } },
  source: "api",
});

describe("the wallet's ledger", () => {
  it("takes a thousand concurrent charges on one wallet without going below zero or losing a cent", async () => {
    const t = await tenant("prepaid", 50_000);
    // 1,000 debits of KES 1 and 1,000 holds of KES 1 against KES 500, interleaved, forty at a time:
    // four times the pool's connections contend for the one wallet row. (All 2,000 at once would
    // measure the pool's 3-second wait for a free connection on a loaded machine, not the ledger.)
    const debit = () =>
      db().transaction((tx) =>
        changeWallet(tx, { organizationId: t.organizationId, kind: "adjustment", amountCents: -100, description: "Debit" }),
      );
    const hold = () =>
      db().transaction((tx) => holdForMessages(tx, { organizationId: t.organizationId, priceCents: 100, count: 1, description: "Hold" }));
    const debited: unknown[] = [];
    const held: number[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < 2000; i = next++) {
        if (i % 2) held.push(await hold());
        else debited.push(await debit());
      }
    };
    await Promise.all(Array.from({ length: 40 }, worker));
    expect(debited.length + held.length).toBe(2000);
    const accepted = debited.filter(Boolean).length + held.reduce((n, x) => n + x, 0);
    expect(accepted).toBe(500);
    const wallet = await expectLedgerAgrees(t.organizationId);
    expect(wallet.availableCents).toBe(0);
    expect(wallet.balanceCents - wallet.heldCents).toBe(0);
    // Refused changes wrote nothing: one row per accepted change, plus the opening balance.
    expect((await ledgerOf(t.organizationId)).length).toBe(501);
  });

  it("holds as many messages as the balance covers and refuses an overdraft", async () => {
    const t = await tenant("prepaid", 1_000);
    const held = await db().transaction((tx) =>
      holdForMessages(tx, { organizationId: t.organizationId, priceCents: 300, count: 5, description: "Five" }),
    );
    expect(held).toBe(3);
    expect(
      await db().transaction((tx) =>
        changeWallet(tx, { organizationId: t.organizationId, kind: "adjustment", amountCents: -101, description: "Too much" }),
      ),
    ).toBeNull();
    expect(await expectLedgerAgrees(t.organizationId)).toMatchObject({ balanceCents: 1_000, heldCents: 900, availableCents: 100 });
  });
});

describe("charging through the sending engine", () => {
  it("holds a prepaid message's price when queued, charges it once when Meta accepts, and refuses a send the balance cannot cover", async () => {
    const t = await tenant("prepaid", 500);
    const connection = await meta.graph.connect(t.organizationId, "Nyota Savings Sacco");
    await approvedTemplate(meta.graph, { organizationId: t.organizationId, ...connection });

    const first = await queueMessage(t.organizationId, template(recipient(1)));
    const second = await queueMessage(t.organizationId, template(recipient(2)));
    expect(await walletState(db(), t.organizationId)).toMatchObject({ balanceCents: 500, heldCents: 400, availableCents: 100 });
    // KES 1 left and a message costs KES 2: refused with the API's code and a plain sentence; nothing stored.
    expect(await refusalOf(t.organizationId, template(recipient(3)))).toMatchObject({
      status: 402,
      code: "insufficient_balance",
      message: expect.stringMatching(/wallet balance is too low.*Top up on the Billing page/),
    });
    expect((await rawQuery(`select count(*)::int as n from messages where organization_id = $1`, [t.organizationId]))[0]).toEqual({ n: 2 });

    await drainDispatcher();
    await vi.waitFor(
      async () => {
        await drainJobs();
        const rows = await rawQuery<{ status: string; charge_state: string }>(
          `select status, charge_state from messages where id = any($1::uuid[])`,
          [[first.id, second.id]],
        );
        expect(rows.map((r) => [r.status, r.charge_state])).toEqual([
          ["read", "charged"],
          ["read", "charged"],
        ]);
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(await expectLedgerAgrees(t.organizationId)).toMatchObject({ balanceCents: 100, heldCents: 0 });
    const ledger = await ledgerOf(t.organizationId);
    expect(ledger.filter((e) => e.kind === "charge").reduce((n, e) => n + e.amount_cents, 0)).toBe(-400);
    await foldUsage();
    const [usage] = await rawQuery<{ messages: number; amount: number }>(
      `select sum(messages)::int as messages, sum(amount_cents)::int as amount from billing_usage_daily where organization_id = $1`,
      [t.organizationId],
    );
    expect(usage).toEqual({ messages: 2, amount: 400 });
    expect(await metaReceived(meta.graph, connection.phoneNumberId)).toHaveLength(2);
  });

  it("releases the hold of a message that fails before Meta takes it, and refunds one Meta fails afterwards", async () => {
    const t = await tenant("prepaid", 1_000);
    const connection = await meta.graph.connect(t.organizationId, "Nyota Savings Sacco");
    await approvedTemplate(meta.graph, { organizationId: t.organizationId, ...connection });

    const unsent = await queueMessage(t.organizationId, template(recipient(4)));
    const [unsentKey] = await messageKeys([unsent.id]);
    await failMessages([{ ...unsentKey!, organizationId: t.organizationId, code: null, title: "no_whatsapp_number", details: "Gone" }]);
    // A second failure of the same message changes nothing.
    await failMessages([{ ...unsentKey!, organizationId: t.organizationId, code: null, title: "no_whatsapp_number", details: "Gone" }]);
    expect(await expectLedgerAgrees(t.organizationId)).toMatchObject({ balanceCents: 1_000, heldCents: 0 });

    // The sandbox accepts a send to a number ending 0000, then reports it failed (131026).
    const undeliverable = await queueMessage(t.organizationId, template("+254712340000"));
    await drainDispatcher();
    await vi.waitFor(
      async () => {
        await drainJobs();
        const [row] = await rawQuery<{ status: string; charge_state: string }>(`select status, charge_state from messages where id = $1`, [
          undeliverable.id,
        ]);
        expect(row).toEqual({ status: "failed", charge_state: "refunded" });
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(await expectLedgerAgrees(t.organizationId)).toMatchObject({ balanceCents: 1_000, heldCents: 0 });
    expect((await ledgerOf(t.organizationId)).map((e) => e.kind)).toEqual(["adjustment", "hold", "release", "hold", "charge", "refund"]);
    await foldUsage();
    const [usage] = await rawQuery<{ messages: number }>(
      `select coalesce(sum(messages), 0)::int as messages from billing_usage_daily where organization_id = $1`,
      [t.organizationId],
    );
    expect(usage!.messages).toBe(0);
  });

  it("counts a postpaid organisation's messages as usage without touching its wallet", async () => {
    const t = await tenant("postpaid");
    const connection = await meta.graph.connect(t.organizationId, "Nyota Savings Sacco");
    await approvedTemplate(meta.graph, { organizationId: t.organizationId, ...connection });
    const queued = await queueMessage(t.organizationId, template(recipient(5)));
    await drainDispatcher();
    await vi.waitFor(
      async () => {
        await drainJobs();
        const [row] = await rawQuery<{ charge_state: string }>(`select charge_state from messages where id = $1`, [queued.id]);
        expect(row!.charge_state).toBe("counted");
      },
      { timeout: 30_000 },
    );
    expect(await ledgerOf(t.organizationId)).toEqual([]);
    await foldUsage();
    const [usage] = await rawQuery<{ messages: number; amount: number; category: string }>(
      `select messages, amount_cents::int as amount, category from billing_usage_daily where organization_id = $1`,
      [t.organizationId],
    );
    expect(usage).toEqual({ messages: 1, amount: 0, category: "utility" });
  });

  it("pauses a campaign when the wallet runs dry and resumes it after a top-up, sending each recipient once", async () => {
    const t = await tenant("prepaid", 1_000);
    const connection = await meta.graph.connect(t.organizationId, "Nyota Savings Sacco");
    await approvedTemplate(meta.graph, { organizationId: t.organizationId, ...connection });
    const phones = Array.from({ length: 12 }, (_, i) => recipient(100 + i));
    const id = await createCampaign(t, {
      name: "Dividend notice",
      template: { name: "payment_received" },
      parameters: { body: [{ value: "KES 500" }] },
      audience: { phones },
    });
    const status = async () =>
      (
        await rawQuery<{ status: string; paused_reason: string | null }>(`select status, paused_reason from campaigns where id = $1`, [id])
      )[0]!;
    // KES 10 pays for five messages at KES 2: five go, then the campaign pauses itself and says why.
    await vi.waitFor(
      async () => {
        await feedCampaigns();
        await drainDispatcher();
        await drainJobs();
        expect(await status()).toEqual({ status: "paused", paused_reason: WALLET_EMPTY_PAUSE });
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(await metaReceived(meta.graph, connection.phoneNumberId)).toHaveLength(5);
    // Nothing resumes while the wallet is still empty.
    expect(await resumeWalletPausedCampaigns(t.organizationId)).toBe(0);

    await credit(t.organizationId, 5_000);
    expect(await resumeWalletPausedCampaigns(t.organizationId)).toBe(1);
    await vi.waitFor(
      async () => {
        await feedCampaigns();
        await drainDispatcher();
        await drainJobs();
        expect((await status()).status).toBe("completed");
      },
      { timeout: 30_000, interval: 20 },
    );
    const atMeta = await metaReceived(meta.graph, connection.phoneNumberId);
    expect(atMeta).toHaveLength(12);
    expect(new Set(atMeta.map((m) => m.to)).size).toBe(12);
    expect(await expectLedgerAgrees(t.organizationId)).toMatchObject({ balanceCents: 6_000 - 12 * 200, heldCents: 0 });
  });
});
