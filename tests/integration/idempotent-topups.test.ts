import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { paymentsHarnessForFile } from "../support/payments-harness";
import { appFetch } from "../support/in-process-app";

// Issue 38, item 1: the same top-up request twice, then twenty times at once, with one
// Idempotency-Key, by each method. Each makes one payment (one prompt, one checkout page, one
// invoice), every answer is the first one's, and the database keeps answering throughout: the
// repeat of a bank transfer used to read outside its own transaction and freeze PGlite for good.

const pay = paymentsHarnessForFile();
const PHONE = "0712 345 678";

async function owner(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  return { organizationId: account.organization.id, cookie: await signedInCookie(account.email, account.password) };
}

async function topUp(cookie: string, body: unknown, key: string) {
  const response = await appFetch(
    new Request(`${pay.origin}/api/billing/topups`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const paymentsWithKey = (organizationId: string, key: string) =>
  rawQuery<{ id: string; invoice_id: string | null }>(
    `select id, invoice_id from payments where organization_id = $1 and idempotency_key = $2`,
    [organizationId, key],
  );

/** The database still answers a plain read (a frozen PGlite never does, and the test times out here). */
async function databaseAnswers() {
  expect((await rawQuery<{ one: number }>(`select 1 as one`))[0]!.one).toBe(1);
}

const REQUESTS = {
  mpesa: { amount: 1000, method: "mpesa", phone: PHONE },
  card: { amount: 2500, method: "card" },
  bank: { amount: 100, method: "bank" },
} as const;

describe.each(Object.keys(REQUESTS) as (keyof typeof REQUESTS)[])("a top-up by %s with an Idempotency-Key", (method) => {
  it("answers a repeat with the first payment and makes nothing new", async () => {
    const t = await owner(`Repeat ${method} Traders`);
    const first = await topUp(t.cookie, REQUESTS[method], "key-twice-0001");
    expect(first.status).toBe(201);
    const again = await topUp(t.cookie, REQUESTS[method], "key-twice-0001");
    expect(again).toEqual(first);
    await databaseAnswers();
    expect(await paymentsWithKey(t.organizationId, "key-twice-0001")).toHaveLength(1);
    if (method === "mpesa") expect(pay.mpesa.prompts()).toHaveLength(1);
    if (method === "card") expect(first.body.authorizationUrl).toEqual(expect.stringContaining("/checkout/"));
    if (method === "bank") {
      const invoices = await rawQuery(`select id from invoices where organization_id = $1`, [t.organizationId]);
      expect(invoices).toHaveLength(1);
      const started = await rawQuery(`select id from activity_logs where organization_id = $1 and action = 'Bank transfer started'`, [
        t.organizationId,
      ]);
      expect(started).toHaveLength(1);
    }
  });

  it("makes one payment for twenty identical requests at once, and answers each of them with it", async () => {
    const t = await owner(`Burst ${method} Traders`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => topUp(t.cookie, REQUESTS[method], "key-burst-0001")));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    await databaseAnswers();
    const stored = await paymentsWithKey(t.organizationId, "key-burst-0001");
    expect(stored.map((p) => p.id)).toEqual([...ids]);
    if (method === "mpesa") expect(pay.mpesa.prompts()).toHaveLength(1);
    if (method === "card") expect(new Set(answers.map((a) => a.body.authorizationUrl)).size).toBe(1);
    if (method === "bank") expect(new Set(answers.map((a) => a.body.reference)).size).toBe(1);
  });

  it("refuses the same key for another amount, and keeps the first payment as it was", async () => {
    const t = await owner(`Conflict ${method} Traders`);
    const first = await topUp(t.cookie, REQUESTS[method], "key-conflict-01");
    expect(first.status).toBe(201);
    const other = await topUp(t.cookie, { ...REQUESTS[method], amount: 5000 }, "key-conflict-01");
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      code: "idempotency_conflict",
      message: "This Idempotency-Key was used for a different payment (another amount, method or phone). Use a new key for a new payment.",
    });
    const [payment] = await rawQuery<{ amount_cents: string }>(`select amount_cents::text from payments where id = $1`, [first.body.id]);
    expect(payment!.amount_cents).toBe(String(REQUESTS[method].amount * 100));
    expect(await paymentsWithKey(t.organizationId, "key-conflict-01")).toHaveLength(1);
  });
});

// Issue 40: a card top-up repeated with the same key after its payment was settled answers that
// payment (201), never a 502, whether or not its checkout page was recorded.
describe("a card top-up repeated after it was settled", () => {
  it("answers the first payment as it is now, with its page, once it was paid", async () => {
    const t = await owner("Settled Card Traders");
    const first = await topUp(t.cookie, REQUESTS.card, "key-settled-001");
    expect(first.status).toBe(201);
    const [stored] = await rawQuery<{ reference: string }>(`select reference from payments where id = $1`, [first.body.id]);
    pay.paystack.pay(stored!.reference, "success");
    await pay.paystack.flushWebhooks();
    const again = await topUp(t.cookie, REQUESTS.card, "key-settled-001");
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, status: "completed", authorizationUrl: first.body.authorizationUrl });
  });

  it("answers a payment settled before its page was recorded with the payment, not 502", async () => {
    const t = await owner("Older Card Traders");
    const first = await topUp(t.cookie, REQUESTS.card, "key-older-0001");
    // A payment from before checkout pages were kept: paid, no page on record.
    await rawQuery(`update payments set checkout_url = null, status = 'completed', completed_at = now() where id = $1`, [first.body.id]);
    const again = await topUp(t.cookie, REQUESTS.card, "key-older-0001");
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, status: "completed", authorizationUrl: null });
    expect(await paymentsWithKey(t.organizationId, "key-older-0001")).toHaveLength(1);
  });
});
