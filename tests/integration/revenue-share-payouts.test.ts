import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import {
  approvePayout,
  markSettlementPaidByBank,
  PAYOUT_FAILURES,
  payoutSecret,
  queryOverduePayouts,
  runPayoutJobs,
  startPayout,
} from "~/.server/domains/revenue-share/payouts";
import { settleMonth } from "~/.server/domains/revenue-share/settle";
import { ownProgramme, parseSettlementFilters, settlementPage } from "~/.server/domains/revenue-share/read";
import { createVerifiedUser } from "../support/accounts";
import { paymentsHarnessForFile } from "../support/payments-harness";

registerJobHandlers();

// Partners' settlements paid by M-Pesa B2C through the local Daraja (issue 46): the attempt is sent
// by a job, its result reaches Jumbe's secret address and pays the settlement with its receipt; a
// failure is believed only from Safaricom's addresses and retried as a new attempt without paying
// twice; a silent one is asked about; big payouts wait for a second administrator.

const pay = paymentsHarnessForFile();
const admin = { userId: randomUUID() };
const second = { userId: randomUUID() };

async function settlement(netCents: number, phone = "254712345678", method: "mpesa" | "bank" = "mpesa") {
  const user = await createVerifiedUser({ businessName: `Partner ${randomUUID().slice(0, 6)}` });
  const [partner] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, bank_details, kra_pin, approved_at)
     values ($1, $2, 'Savannah Digital Agency', 'Agency', 'active', 1500, $4, $3, $5, 'P051234567Q', now()) returning id`,
    [
      user.organization.id,
      `P${randomUUID().slice(0, 8).toUpperCase()}`,
      method === "mpesa" ? phone : null,
      method,
      method === "bank"
        ? JSON.stringify({ bank: "KCB", branch: "Moi Avenue", accountName: "Savannah Digital", accountNumber: "1234567890" })
        : null,
    ],
  );
  const withholding = Math.round(netCents / 19);
  // As settleMonth writes it: M-Pesa pays the whole shillings, the cents are carried to the next settlement.
  const carried = method === "mpesa" ? netCents % 100 : 0;
  const [row] = await rawQuery<{ id: string }>(
    `insert into partner_settlements (partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps, withholding_cents, net_cents, carried_out_cents, payable_cents, payout_method)
     values ($1, '2026-10-01', 3, $2, $3, 500, $4, $5, $6, $7, $8) returning id`,
    [partner!.id, netCents * 6, netCents + withholding, withholding, netCents, carried, netCents - carried, method],
  );
  return row!.id;
}

const settled = async (id: string) =>
  (
    await rawQuery<{ status: string; payout_reference: string | null; failure_reason: string | null }>(
      `select status, payout_reference, failure_reason from partner_settlements where id = $1`,
      [id],
    )
  )[0]!;
const attempts = (id: string) =>
  rawQuery<{ attempt: number; status: string; amount_cents: string; receipt: string | null; result_code: number | null }>(
    `select attempt, status, amount_cents::text, receipt, result_code from partner_payouts where settlement_id = $1 order by attempt`,
    [id],
  );

/** The job sends, the sandbox answers, its callback reaches Jumbe. */
async function run() {
  await drainJobs();
  await pay.mpesa.flush();
}

describe("partner payouts by M-Pesa B2C", () => {
  it("pays a settlement in whole shillings and records M-Pesa's receipt", async () => {
    const id = await settlement(1_864_049); // KES 18,640.49: M-Pesa pays 18,640
    const payout = await startPayout(admin, id);
    expect(payout).toMatchObject({ status: "requested", attempt: 1, originator_conversation_id: `jumbe-payout-${payout.id}` });
    expect((await settled(id)).status).toBe("processing");
    await run();
    const [sent] = pay.mpesa.payouts();
    expect(sent).toMatchObject({ partyB: "254712345678", amount: 18_640, state: "paid" });
    expect(await attempts(id)).toEqual([{ attempt: 1, status: "paid", amount_cents: "1864000", receipt: sent!.receipt, result_code: 0 }]);
    expect(await settled(id)).toEqual({ status: "paid", payout_reference: sent!.receipt, failure_reason: null });
    // Paid: a second payout is refused.
    await expect(startPayout(admin, id)).rejects.toMatchObject({ status: 409 });
  });

  it("sends the same attempt again after a doubt without paying twice", async () => {
    const id = await settlement(500_000);
    const payout = await startPayout(admin, id);
    await run();
    // As if the job had timed out after Daraja took it: the same attempt is sent again.
    await rawQuery(`update partner_payouts set status = 'requested' where id = $1`, [payout.id]);
    await rawQuery(`update partner_settlements set status = 'processing' where id = $1`, [id]);
    await runPayoutJobs([{ id: 1, queue: "partners.payout", attempts: 2, payload: { payoutId: payout.id } }]);
    await pay.mpesa.flush();
    // Daraja paid the id once and answered the repeat as a duplicate (15), which settles nothing.
    expect(pay.mpesa.payouts().filter((p) => p.state === "paid")).toHaveLength(1);
    expect((await attempts(id))[0]!.status).toBe("accepted");
    // The status query then tells it was paid.
    await rawQuery(`update partner_payouts set next_check_at = now() - interval '1 second' where id = $1`, [payout.id]);
    expect(await queryOverduePayouts()).toBe(1);
    await pay.mpesa.flush();
    expect(await settled(id)).toMatchObject({ status: "paid", payout_reference: pay.mpesa.payouts()[0]!.receipt });
  });

  it("fails on a believed failure, then pays with a new attempt, once", async () => {
    const id = await settlement(1_200_000);
    // A wrong initiator password: Daraja accepts, then answers 2001.
    setEnv({ ...env(), mpesaB2c: { ...env().mpesaB2c!, initiatorPassword: "not-the-password" } });
    await startPayout(admin, id);
    await run();
    expect(await settled(id)).toMatchObject({
      status: "failed",
      failure_reason: "M-Pesa did not pay (result 2001): The initiator information is invalid.",
    });
    setEnv({ ...env(), mpesaB2c: { ...env().mpesaB2c!, initiatorPassword: "Safaricom999!*!" } });
    await startPayout(admin, id);
    await run();
    expect((await attempts(id)).map((a) => [a.attempt, a.status, a.result_code])).toEqual([
      [1, "failed", 2001],
      [2, "paid", 0],
    ]);
    expect(pay.mpesa.payouts().filter((p) => p.state === "paid")).toHaveLength(1);
    expect((await settled(id)).status).toBe("paid");
  });

  it("believes no result from outside Safaricom's addresses: the attempt waits and is asked about instead", async () => {
    const id = await settlement(300_000);
    setEnv({ ...env(), mpesaTrustedIps: ["196.201.214.200"] });
    const payout = await startPayout(admin, id);
    await run();
    expect((await attempts(id))[0]!.status).toBe("accepted");
    expect((await settled(id)).status).toBe("processing");
    const [due] = await rawQuery<{ due: boolean }>(`select next_check_at <= now() as due from partner_payouts where id = $1`, [payout.id]);
    expect(due!.due).toBe(true);
  });

  it("asks about a payout whose result never comes, and pays it from the status answer", async () => {
    const id = await settlement(140_400); // KES 1,404: the sandbox sends no result
    const payout = await startPayout(admin, id);
    await run();
    expect((await attempts(id))[0]!.status).toBe("accepted");
    // Not yet due: nothing asked.
    expect(await queryOverduePayouts()).toBe(0);
    await rawQuery(`update partner_payouts set next_check_at = now() - interval '1 second' where id = $1`, [payout.id]);
    expect(await queryOverduePayouts()).toBe(1);
    await pay.mpesa.flush();
    expect(await settled(id)).toMatchObject({ status: "paid", payout_reference: pay.mpesa.payout(`jumbe-payout-${payout.id}`)!.receipt });
  });

  it("holds a payout above the threshold for a second administrator, never the one who asked", async () => {
    const id = await settlement(12_000_000);
    const payout = await startPayout(admin, id, { approvalThresholdCents: 10_000_000 });
    expect(payout.status).toBe("awaiting_approval");
    await run();
    expect(pay.mpesa.payouts()).toEqual([]);
    await expect(approvePayout(admin, payout.id)).rejects.toMatchObject({ status: 409, code: "same_person" });
    await approvePayout(second, payout.id);
    await run();
    expect((await settled(id)).status).toBe("paid");
    await expect(approvePayout(second, payout.id)).rejects.toMatchObject({ status: 409 });
  });

  it("answers a wrong secret 404 and a body that is not a result 400, changing nothing", async () => {
    const id = await settlement(250_000);
    const payout = await startPayout(admin, id, { approvalThresholdCents: 0 });
    const post = (secret: string, body: string) =>
      fetch(`${pay.origin}/webhooks/mpesa/b2c/${payout.id}/${secret}/result`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
    const forged = JSON.stringify({
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: "ok",
        OriginatorConversationID: payout.originator_conversation_id,
        TransactionID: "TKR0000000",
      },
    });
    expect((await post("not-the-secret", forged)).status).toBe(404);
    expect((await post(payoutSecret(payout.id), "not json")).status).toBe(400);
    expect((await post(payoutSecret(payout.id), JSON.stringify({ Result: {} }))).status).toBe(400);
    expect((await fetch(`${pay.origin}/webhooks/mpesa/b2c/${payout.id}/${payoutSecret(payout.id)}/result`)).status).toBe(405);
    expect((await attempts(id))[0]!.status).toBe("awaiting_approval");
  });
});

/** The partner organisation behind a settlement, with a webhook endpoint subscribed to the event. */
async function partnerEndpoint(settlementId: string) {
  const [row] = await rawQuery<{ organization_id: string }>(
    `select p.organization_id from partner_settlements s join partners p on p.id = s.partner_id where s.id = $1`,
    [settlementId],
  );
  await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, 'http://127.0.0.1:9/jumbe', $2)`, [
    row!.organization_id,
    ["partner.settlement.paid"],
  ]);
  return row!.organization_id;
}

const deliveries = (organizationId: string) =>
  rawQuery<{ event_type: string; payload: { type: string; data: Record<string, unknown> } }>(
    `select event_type, payload from webhook_deliveries where organization_id = $1`,
    [organizationId],
  );

describe("a paid settlement tells the partner, and a bank transfer is marked paid once", () => {
  it("sends partner.settlement.paid to the partner's endpoint when M-Pesa pays, with the receipt", async () => {
    const id = await settlement(1_000_000);
    const organizationId = await partnerEndpoint(id);
    await startPayout(admin, id);
    await run();
    const receipt = (await settled(id)).payout_reference;
    expect(receipt).toMatch(/^[A-Z0-9]{10}$/);
    const sent = await deliveries(organizationId);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      event_type: "partner.settlement.paid",
      payload: {
        type: "partner.settlement.paid",
        data: {
          settlementId: id,
          month: "2026-10",
          currency: "KES",
          netCents: 1_000_000,
          method: "mpesa",
          reference: receipt,
          markedBy: "mpesa",
        },
      },
    });
  });

  it("marks a bank transfer paid with its reference and tells the partner; refuses a bad reference, a second mark, an unknown id and an M-Pesa partner", async () => {
    const id = await settlement(2_500_000, "", "bank");
    const organizationId = await partnerEndpoint(id);
    await expect(markSettlementPaidByBank(admin, id, "no")).rejects.toMatchObject({ status: 422, code: "reference" });
    await expect(markSettlementPaidByBank(admin, id, "FT26 301")).rejects.toMatchObject({ status: 422 });
    expect((await settled(id)).status).toBe("pending");
    expect(await deliveries(organizationId)).toEqual([]);

    await markSettlementPaidByBank(admin, id, " FT26301ABC/77 ");
    expect(await settled(id)).toEqual({ status: "paid", payout_reference: "FT26301ABC/77", failure_reason: null });
    const [sent] = await deliveries(organizationId);
    expect(sent!.payload.data).toMatchObject({ settlementId: id, method: "bank", reference: "FT26301ABC/77", markedBy: "administrator" });

    await expect(markSettlementPaidByBank(admin, id, "FT26301XYZ")).rejects.toMatchObject({ status: 409, code: "in_hand" });
    expect((await settled(id)).payout_reference).toBe("FT26301ABC/77");
    expect(await deliveries(organizationId)).toHaveLength(1);

    await expect(markSettlementPaidByBank(admin, randomUUID(), "FT26301ABC")).rejects.toMatchObject({ status: 404 });
    await expect(markSettlementPaidByBank(admin, "not-a-settlement", "FT26301ABC")).rejects.toMatchObject({ status: 404 });
    // Another kind of id (the partner organisation's) is no settlement either.
    await expect(markSettlementPaidByBank(admin, organizationId, "FT26301ABC")).rejects.toMatchObject({ status: 404 });

    const mpesa = await settlement(300_000);
    await expect(markSettlementPaidByBank(admin, mpesa, "FT26301ABC")).rejects.toMatchObject({ status: 422, code: "not_bank" });
    expect((await settled(mpesa)).status).toBe("pending");
    // And the other way round: a bank partner's settlement is not paid by M-Pesa.
    const bank = await settlement(300_000, "", "bank");
    await expect(startPayout(admin, bank)).rejects.toMatchObject({ status: 422, code: "not_mpesa" });
    await expect(startPayout(admin, "not-a-settlement")).rejects.toMatchObject({ status: 404 });
    await expect(approvePayout(second, "not-a-payout")).rejects.toMatchObject({ status: 404 });
  });

  it("starts one attempt when two administrators start the same payout at once", async () => {
    const id = await settlement(800_000);
    const outcomes = await Promise.allSettled([startPayout(admin, id), startPayout(second, id)]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ status: 409, code: "in_hand" });
    expect(await attempts(id)).toEqual([expect.objectContaining({ attempt: 1, status: "requested" })]);
    await run();
    expect(pay.mpesa.payouts().filter((p) => p.state === "paid" && p.amount === 8_000)).toHaveLength(1);
    expect((await settled(id)).status).toBe("paid");
  });

  it("stores a failure as a sentence a page says in its reader's language", async () => {
    const english = "M-Pesa did not pay (result 2001): The initiator information is invalid.";
    expect(PAYOUT_FAILURES.say(english, "en")).toBe(english);
    expect(PAYOUT_FAILURES.say(english, "sw")).toBe("M-Pesa haikulipa (matokeo 2001): The initiator information is invalid.");
    expect(PAYOUT_FAILURES.say("The payout waited too long in M-Pesa's queue and was dropped: nothing was paid.", "fr")).toBe(
      "Le versement a trop attendu dans la file d'attente de M-Pesa et a été abandonné : rien n'a été payé.",
    );
  });
});

/** An M-Pesa partner with one client, and ledger rows as the recorder writes them (share 100%: partner_cents = amount). */
async function mpesaPartnerEarning(months: [string, number][]) {
  const user = await createVerifiedUser({ businessName: `Carry ${randomUUID().slice(0, 6)}` });
  const [partner] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
     values ($1, $2, 'Kilifi Digital', 'Agency', 'active', 1500, 'mpesa', '254712345678', 'P051234567Q', now()) returning id`,
    [user.organization.id, `C${randomUUID().slice(0, 8).toUpperCase()}`],
  );
  for (const [at, cents] of months)
    await rawQuery(
      `insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents, platform_cents, occurred_at)
       values ($1, $2, gen_random_uuid(), 'topup', $3, 10000, $3, 0, $4::timestamptz)`,
      [partner!.id, user.organization.id, cents, at],
    );
  return partner!.id;
}

const figuresOf = (partnerId: string) =>
  rawQuery<{ period: string; net_cents: string; carried_in_cents: string; carried_out_cents: string; payable_cents: string }>(
    `select to_char(period, 'YYYY-MM') as period, net_cents::text, carried_in_cents::text, carried_out_cents::text, payable_cents::text
     from partner_settlements where partner_id = $1 order by period`,
    [partnerId],
  );

describe("a payout pays what the statement says (issue 72)", () => {
  it("pays KES 620 of a 620.69 net, shows 620.00 paid and carries the 0.69 to the next settlement", async () => {
    // 5% withheld: 653.36 - 32.67 = 620.69 in October; 100.34 - 5.02 = 95.32 in November.
    const partnerId = await mpesaPartnerEarning([
      ["2026-10-10T09:00:00Z", 65_336],
      ["2026-11-10T09:00:00Z", 10_034],
    ]);
    await settleMonth("2026-10-01");
    expect(await figuresOf(partnerId)).toEqual([
      { period: "2026-10", net_cents: "62069", carried_in_cents: "0", carried_out_cents: "69", payable_cents: "62000" },
    ]);
    const [october] = await rawQuery<{ id: string }>(`select id from partner_settlements where partner_id = $1`, [partnerId]);
    const payout = await startPayout(admin, october!.id);
    await run();
    const sent = pay.mpesa.payouts().find((p) => p.OriginatorConversationID === payout.originator_conversation_id);
    expect(sent).toMatchObject({ amount: 620, state: "paid" });
    expect(await attempts(october!.id)).toMatchObject([{ status: "paid", amount_cents: "62000" }]);
    expect((await settled(october!.id)).status).toBe("paid");
    // The Settlements tab and the partner's own page show what was paid beside the net and the cents carried.
    const shown = { netCents: 62069, carriedInCents: 0, carriedOutCents: 69, payableCents: 62000, status: "paid" };
    const tab = await settlementPage({ kind: "platform" }, parseSettlementFilters(new URLSearchParams({ partner: partnerId })));
    expect(tab.rows).toMatchObject([shown]);
    const [owner] = await rawQuery<{ organization_id: string }>(`select organization_id from partners where id = $1`, [partnerId]);
    expect((await ownProgramme(owner!.organization_id))!.settlements).toMatchObject([shown]);

    // November pays its own net and October's cents: 95.32 + 0.69 = 96.01, M-Pesa pays 96, 0.01 carried on.
    await settleMonth("2026-11-01");
    expect((await figuresOf(partnerId))[1]).toEqual({
      period: "2026-11",
      net_cents: "9532",
      carried_in_cents: "69",
      carried_out_cents: "1",
      payable_cents: "9600",
    });
  });
});
