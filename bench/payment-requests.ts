// Payment requests' hot path (issue 76, decision 137): an STK result settling a pending prompt, in
// process on PGlite: the request's row lock, the attempt and the request marked paid, the thread's
// live event, the webhook out and the receipt's job queued (settleAttempt), beside a baseline in the
// same run: the least a paid callback can write (one guarded update of the attempt by its
// CheckoutRequestID, as billing's top-ups' idempotent "where status = 'pending'" does).
//
//   node --import tsx bench/payment-requests.ts [--count 300]
import os from "node:os";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase, rawQuery } from "../app/.server/infrastructure/db/client";
import { newBusinessId } from "../app/.server/domains/auth/signup";
import { settleAttempt } from "../app/.server/domains/payments/requests/settle";

const { values: options } = parseArgs({ options: { count: { type: "string", default: "300" } } });
const COUNT = Number(options.count);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50).toFixed(2), p99: percentile(sorted, 99).toFixed(2) };
};

/** One organisation, its shortcode, `count` customers each with an open request and a pending prompt. */
async function seed(count: number, prefix: string) {
  const [org] = await rawQuery<{ id: string }>(`insert into organizations (name, business_id) values ('Bench Duka', $1) returning id`, [
    newBusinessId(),
  ]);
  const [shortcode] = await rawQuery<{ id: string }>(
    `insert into mpesa_shortcodes (organization_id, label, kind, business_short_code, environment, consumer_key_sealed, consumer_key_hint,
                                   consumer_secret_sealed, passkey_sealed, callback_token, is_default)
     values ($1, 'Bench', 'paybill', '174379', 'sandbox', 'x', 'x', 'x', 'x', $2, true) returning id`,
    [org!.id, randomBytes(24).toString("base64url")],
  );
  const checkouts: string[] = [];
  for (let i = 0; i < count; i++) {
    const [contact] = await rawQuery<{ id: string }>(
      `insert into contacts (organization_id, name, phone) values ($1, $2, $3) returning id`,
      [org!.id, `Customer ${i}`, `+2547${String(10_000_000 + i).padStart(8, "0")}`],
    );
    const [conversation] = await rawQuery<{ id: string }>(
      `insert into conversations (organization_id, phone_number_id, contact_id) values ($1, 'bench-number', $2) returning id`,
      [org!.id, contact!.id],
    );
    const [request] = await rawQuery<{ id: string }>(
      `insert into payment_requests (organization_id, shortcode_id, contact_id, conversation_id, amount_kes, description, reference, expires_at, source)
       values ($1, $2, $3, $4, 1250, 'Order', $5, now() + interval '1 day', 'inbox') returning id`,
      [org!.id, shortcode!.id, contact!.id, conversation!.id, `B${i}`],
    );
    const checkout = `ws_CO_${prefix}_${i}`;
    await rawQuery(
      `insert into payment_attempts (organization_id, request_id, phone, checkout_request_id, merchant_request_id) values ($1, $2, '254700000000', $3, $4)`,
      [org!.id, request!.id, checkout, `m_${prefix}_${i}`],
    );
    checkouts.push(checkout);
  }
  return checkouts;
}

async function main() {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.bench" }));
  await openDatabase({ dataDir: "memory://" });
  const baseline = await seed(COUNT, "base");
  const measured = await seed(COUNT, "settle");
  const base: number[] = [];
  const settle: number[] = [];
  // Alternately, so the machine's moments fall on both alike.
  for (let i = 0; i < COUNT; i++) {
    let t = performance.now();
    await rawQuery(
      `update payment_attempts set state = 'paid', result_code = '0', finished_at = now() where checkout_request_id = $1 and state = 'pending'`,
      [baseline[i]],
    );
    base.push(performance.now() - t);
    t = performance.now();
    await settleAttempt(measured[i]!, {
      kind: "paid",
      receipt: `RCPT${String(i).padStart(6, "0")}`,
      amountKes: 1250,
      phone: "254700000000",
      at: new Date(),
    });
    settle.push(performance.now() - t);
  }
  const [queued] = await rawQuery<{ n: number }>(`select count(*)::int as n from jobs where queue = 'payments.request-notify'`);
  console.log(`payment requests, PGlite in process, ${COUNT} callbacks each, load ${os.loadavg()[0]!.toFixed(2)}`);
  console.log(`baseline (one guarded update):          p50 ${stats(base).p50} ms  p99 ${stats(base).p99} ms`);
  console.log(`settleAttempt (lock, paid, event, jobs): p50 ${stats(settle).p50} ms  p99 ${stats(settle).p99} ms`);
  console.log(`receipts queued: ${queued!.n} of ${COUNT}`);
  await closeDatabase();
}

await main();
