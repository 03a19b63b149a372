import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { listShortcodes, testShortcode, unmatchedReceipts } from "~/.server/domains/payments";
import { paymentFigures } from "~/.server/domains/analytics/payments";
import { DEMO_ACCOUNTS } from "~/.server/demo/seed";
import { DEMO_PAYMENT_REQUESTS, DEMO_UNMATCHED_RECEIPT } from "~/.server/demo/seed-payment-requests";
import { createMpesaSandbox, type MpesaSandbox } from "@jumbe/sandbox/mpesa/index";
import { DEMO_TILLS, demoTillShortcodes } from "@jumbe/sandbox/mpesa/demo-tills";
import { keepIdleConnections } from "@jumbe/sandbox/test-server";
import { META } from "../support/accounts";
import { demoData } from "../support/demo-snapshot";

// Issue 76: two demo tenants really have their own tills, known to the M-Pesa sandbox as sandbox
// mode starts it (server.ts), so "Test connection" on each says working.

let sandbox: MpesaSandbox;
let close: () => Promise<void>;
let origin = "";

beforeAll(async () => {
  const config = env();
  sandbox = createMpesaSandbox({
    consumerKey: config.MPESA_CONSUMER_KEY,
    consumerSecret: config.MPESA_CONSUMER_SECRET,
    shortcode: config.MPESA_SHORTCODE,
    passkey: config.MPESA_PASSKEY,
    shortcodes: demoTillShortcodes(),
    callbackDelayMs: 0,
  });
  const app = express().use("/sandbox/mpesa", sandbox.router);
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    await sandbox.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
});
// Each test starts from an emptied database (setup.ts): the demo again, from the file's copy after the first.
beforeEach(async () => {
  await demoData();
  setEnv({
    ...env(),
    MPESA_CALLBACK_BASE_URL: "http://127.0.0.1:9",
    mpesaShortcodeBaseUrls: { ...env().mpesaShortcodeBaseUrls, sandbox: `${origin}/sandbox/mpesa` },
  });
}, 300_000);
afterAll(() => close?.());

describe("the demo's own tills", () => {
  it.each(DEMO_TILLS.map((till) => [till.organization, till] as const))(
    "%s has its till, the default, and it tests as working",
    async (_name, till) => {
      const [owner] = await rawQuery<{ id: string; organization_id: string }>(
        `select u.id, u.organization_id from users u join organizations o on o.id = u.organization_id
        where o.name = $1 order by u.created_at limit 1`,
        [till.organization],
      );
      expect(owner, till.organization).toBeDefined();
      const shortcodes = await listShortcodes(owner!.organization_id);
      expect(shortcodes).toMatchObject([
        { label: till.label, kind: "till", tillNumber: till.tillNumber, isDefault: true, status: "working" },
      ]);
      const [sealed] = await rawQuery<{ consumer_secret_sealed: string; passkey_sealed: string }>(
        `select consumer_secret_sealed, passkey_sealed from mpesa_shortcodes where organization_id = $1`,
        [owner!.organization_id],
      );
      // Sealed as a real one is, and the very credentials the sandbox knows.
      expect(sealed!.passkey_sealed).not.toContain(till.passkey);
      expect(decryptSecret(sealed!.passkey_sealed)).toBe(till.passkey);
      expect(decryptSecret(sealed!.consumer_secret_sealed)).toBe(till.consumerSecret);
      const actor = { user: { id: owner!.id }, organization: { id: owner!.organization_id }, role: "owner" as const };
      const result = await testShortcode(actor, shortcodes[0]!.id, META);
      expect(result).toEqual({ label: till.label, working: true, reason: null });
      expect(sandbox.allPrompts()[0]).toMatchObject({ businessShortCode: till.shortcode, shortcode: till.tillNumber });
    },
  );
});

// Decision 144: the demo Sacco's payment requests keep the invariants real ones keep, so /analytics,
// the threads, the orders and Settings → Payments show what the payments domain would have left.
describe("the demo's payment requests", () => {
  async function sacco() {
    const [row] = await rawQuery<{ organization_id: string }>(`select u.organization_id from users u where u.email = $1`, [
      DEMO_ACCOUNTS.find((a) => a.usertype === "individual")!.email,
    ]);
    return row!.organization_id;
  }
  type Row = {
    id: string;
    status: string;
    source: string;
    source_id: string | null;
    created_by: string | null;
    amount_kes: number;
    reference: string;
    paid_via: string | null;
    paid_receipt: string | null;
    paid_amount_kes: number | null;
    amount_mismatch: boolean;
    created_at: Date | string;
    paid_at: Date | string | null;
    closed_at: Date | string | null;
    expires_at: Date | string;
    message_contact: string | null;
    contact_id: string;
    paid_attempts: number;
    unfinished_attempts: number;
    c2b_receipts: number;
    c2b_trans: string | null;
    receipt_messages: number;
  };
  const time = (v: Date | string | null) => (v === null ? null : new Date(v).getTime());

  it("are paid once each, with one receipt and its message; failed, expired, cancelled and open ones as the domain leaves them", async () => {
    const organizationId = await sacco();
    const rows = await rawQuery<Row>(
      `select r.id, r.status, r.source, r.source_id, r.created_by, r.amount_kes, r.reference, r.paid_via, r.paid_receipt,
              r.paid_amount_kes, r.amount_mismatch, r.created_at, r.paid_at, r.closed_at, r.expires_at, r.contact_id,
              (select m.contact_id::text from messages m where m.id = r.message_id) as message_contact,
              (select count(*)::int from payment_attempts a where a.request_id = r.id and a.state = 'paid') as paid_attempts,
              (select count(*)::int from payment_attempts a where a.request_id = r.id and a.state in ('pending', 'in_doubt')) as unfinished_attempts,
              (select count(*)::int from payment_c2b_receipts c where c.request_id = r.id) as c2b_receipts,
              (select min(c.trans_id) from payment_c2b_receipts c where c.request_id = r.id) as c2b_trans,
              (select count(*)::int from messages m where m.contact_id = r.contact_id and m.direction = 'outbound'
                 and r.paid_receipt is not null and position(r.paid_receipt in m.body) > 0) as receipt_messages
       from payment_requests r where r.organization_id = $1`,
      [organizationId],
    );
    expect(rows).toHaveLength(DEMO_PAYMENT_REQUESTS.length);
    const by = (status: string) => rows.filter((r) => r.status === status);
    expect(by("paid").length).toBeGreaterThanOrEqual(5);
    expect(by("expired").length).toBeGreaterThanOrEqual(2);
    expect(by("cancelled").length).toBeGreaterThanOrEqual(1);
    expect(by("open").length).toBeGreaterThanOrEqual(1);
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(["inbox", "contact", "flow", "order", "api"]));
    const members = await rawQuery<{ id: string }>(`select id from users where organization_id = $1 and org_role = 'agent'`, [
      organizationId,
    ]);
    expect(
      rows.some((r) => members.some((m) => m.id === r.created_by)),
      "one asked by an agent",
    ).toBe(true);
    const [flow] = await rawQuery<{ id: string }>(`select id from flows where organization_id = $1`, [organizationId]);
    expect(rows.filter((r) => r.source === "flow").every((r) => r.source_id === flow!.id)).toBe(true);
    const receipts = by("paid").map((r) => r.paid_receipt);
    expect(new Set(receipts).size, "receipts unique").toBe(receipts.length);

    for (const r of rows) {
      const what = `${r.reference} (${r.status})`;
      // Its asking message is in its customer's thread.
      expect(r.message_contact, what).toBe(r.contact_id);
      expect(r.unfinished_attempts, `${what}: a prompt left ringing`).toBe(0);
      if (r.status === "paid") {
        expect(r.paid_receipt, what).toMatch(/^[A-Z][A-L][1-9A-V][A-Z0-9]{7}$/);
        expect(time(r.paid_at)!, `${what}: paid after it was made`).toBeGreaterThan(time(r.created_at)!);
        expect(time(r.closed_at)!, what).toBeGreaterThanOrEqual(time(r.paid_at)!);
        expect(r.amount_mismatch, what).toBe(r.paid_amount_kes !== r.amount_kes);
        // Exactly one receipt: its prompt's, or its C2B confirmation's; and one receipt message.
        if (r.paid_via === "stk") expect([r.paid_attempts, r.c2b_receipts], what).toEqual([1, 0]);
        else expect([r.paid_attempts, r.c2b_receipts, r.c2b_trans], what).toEqual([0, 1, r.paid_receipt]);
        expect(r.receipt_messages, `${what}: its receipt message`).toBe(1);
      } else {
        expect([r.paid_via, r.paid_receipt, r.paid_amount_kes, r.paid_at, r.paid_attempts, r.c2b_receipts], what).toEqual([
          null,
          null,
          null,
          null,
          0,
          0,
        ]);
        expect(r.amount_mismatch, what).toBe(false);
      }
      if (r.status === "open") {
        expect(r.closed_at, what).toBeNull();
        expect(time(r.expires_at)!, what).toBeGreaterThan(Date.now());
      } else expect(time(r.closed_at)!, what).toBeLessThanOrEqual(Date.now());
      if (r.status === "expired") expect(time(r.closed_at), what).toBe(time(r.expires_at));
    }
    // Every Daraja outcome of a prompt, each told to the customer.
    const outcomes = await rawQuery<{ result_code: string; state: string; told: number }>(
      `select a.result_code, a.state,
              (select count(*)::int from messages m where m.contact_id = r.contact_id and m.direction = 'outbound'
                 and m.created_at >= a.finished_at and m.payload::text like '%' || r.id || ':retry%') as told
       from payment_attempts a join payment_requests r on r.id = a.request_id where r.organization_id = $1`,
      [organizationId],
    );
    expect(new Set(outcomes.map((o) => o.result_code))).toEqual(new Set(["0", "1", "1032", "1037", "2001"]));
    for (const o of outcomes) {
      expect(o.state, o.result_code).toBe(o.result_code === "0" ? "paid" : "failed");
      if (o.state === "failed") expect(o.told, `${o.result_code}: told with Try again`).toBeGreaterThanOrEqual(1);
    }
  });

  it("has orders whose totals are their items' and whose status agrees with their request", async () => {
    const organizationId = await sacco();
    const orders = await rawQuery<{
      id: string;
      status: string;
      total_cents: string | number;
      items_cents: string | number;
      request_status: string | null;
      request_amount: number | null;
      request_source: string | null;
      request_source_id: string | null;
    }>(
      `select o.id, o.status, o.total_cents, (select sum(i.quantity * i.unit_price_cents) from order_items i where i.order_id = o.id) as items_cents,
              r.status as request_status, r.amount_kes as request_amount, r.source as request_source, r.source_id as request_source_id
       from orders o left join payment_requests r on r.id = o.payment_request_id where o.organization_id = $1`,
      [organizationId],
    );
    expect(orders.length).toBeGreaterThanOrEqual(3);
    for (const o of orders) {
      expect(Number(o.total_cents), o.id).toBe(Number(o.items_cents));
      const expected = { paid: "paid", open: "awaiting_payment" }[o.request_status ?? ""] ?? "received";
      expect(o.status, o.id).toBe(expected);
      if (o.request_status) {
        expect(o.request_amount, o.id).toBe(Math.ceil(Number(o.total_cents) / 100));
        expect([o.request_source, o.request_source_id], o.id).toEqual(["order", o.id]);
      }
    }
    expect(orders.map((o) => o.status).sort()).toEqual(expect.arrayContaining(["awaiting_payment", "paid", "received"]));
  });

  it("lists one till payment without a request on Settings → Payments, which an owner can match", async () => {
    const organizationId = await sacco();
    const unmatched = await unmatchedReceipts(organizationId);
    expect(unmatched).toEqual([
      expect.objectContaining({
        amountKes: DEMO_UNMATCHED_RECEIPT.amountKes,
        billRef: DEMO_UNMATCHED_RECEIPT.billRef,
        reason: "no_request",
        shortcodeLabel: "Sacco office till",
      }),
    ]);
    // The open request it was meant for: the same amount, its reference one character longer.
    const [meant] = await rawQuery<{ reference: string; amount_kes: number }>(
      `select reference, amount_kes from payment_requests where organization_id = $1 and status = 'open' and reference like $2 || '%'`,
      [organizationId, DEMO_UNMATCHED_RECEIPT.billRef],
    );
    expect(meant!.amount_kes).toBe(DEMO_UNMATCHED_RECEIPT.amountKes);
  });

  it("fills the Payments section of /analytics with the rows' own figures", async () => {
    const organizationId = await sacco();
    const end = new Date();
    const start = new Date(end.getTime() - 30 * 24 * 3600_000);
    const figures = await paymentFigures(organizationId, { start, end, number: null, goneName: () => "Deleted" });
    const [counted] = await rawQuery<{ requested: number; paid: number; kes: number; mismatched: number }>(
      `select count(*)::int as requested, count(*) filter (where status = 'paid')::int as paid,
              coalesce(sum(paid_amount_kes) filter (where status = 'paid'), 0)::int as kes,
              count(*) filter (where status = 'paid' and amount_mismatch)::int as mismatched
       from payment_requests where organization_id = $1 and created_at >= $2 and created_at < $3`,
      [organizationId, start, end],
    );
    expect(counted!.requested).toBeGreaterThan(0);
    expect(figures).toMatchObject({
      requested: counted!.requested,
      paid: counted!.paid,
      kesCollected: counted!.kes,
      amountMismatches: counted!.mismatched,
    });
    expect(figures.amountMismatches).toBeGreaterThanOrEqual(1);
    expect(figures.byAgent.length).toBeGreaterThanOrEqual(2);
    expect(figures.byFlow).toEqual([expect.objectContaining({ name: "Mkopo wa dharura", requested: 1, paid: 1 })]);
  });
});
