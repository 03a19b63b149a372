// Issue 76's speed: "500 payment requests a minute per organisation settle end to end (prompt,
// callback, receipt message) with the sandbox's delays removed, p99 under 300 ms of Jumbe's own time
// per step". A benchmark, never a test: figures to compare between commits (docs/benchmarks.md).
//
//   bash scripts/with-postgres.sh node --import tsx bench/payment-requests.ts          (PostgreSQL, as production runs)
//   node --import tsx bench/payment-requests.ts [--rate 500] [--seconds 60]             (PGlite in memory)
//
// One organisation, its paybill on the M-Pesa sandbox (sandbox/mpesa, answering at once:
// callbackDelayMs 0) and Jumbe's Daraja callback route on one loopback origin, in this process. A
// request is started every 60/rate seconds for `seconds` seconds, each on its own customer, and goes:
//   1. create   createPaymentRequest: the request and its interactive message queued (as the API does)
//   2. tap      the customer's "Pay" tap as its job runs it (runPaymentTaps): the attempt under the
//               request's lock, the STK push to the sandbox over HTTP, "check your phone" queued
//   (the customer approves on the sandbox phone: not Jumbe's time)
//   3. callback the sandbox's POST to /webhooks/pay/<token>/stk: receivePaymentStk (the request paid
//               under its lock, the thread's event, the webhook out and the receipt's job queued)
//   4. receipt  from the callback's answer to the receipt message queued to the customer by the
//               notify job, run by one job worker (drainJobs in a loop, as production's worker)
// Jumbe's time is each step's own time; the tap's includes the sandbox's answer to the push over
// loopback, the callback's the sandbox's answer to Jumbe's STK query (it believes a callback only
// after asking, as for top-ups), each measured apart. Beside them, in the same run, the baseline: the least a paid
// callback can write, a loopback POST whose handler does one guarded update of the attempt by its
// CheckoutRequestID (as billing's top-up callback's idempotent "where status = 'pending'" does).
// Sending the queued messages to Meta is the dispatcher's, measured by bench/sending.mjs.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import express from "express";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, db, openDatabase, rawQuery } from "../app/.server/infrastructure/db/client";
import { encryptSecret } from "../app/.server/infrastructure/security/crypto";
import { drainJobs } from "../app/.server/infrastructure/jobs/worker";
import { mpesaShortcodes } from "../app/.server/infrastructure/db/schema";
import { connectedBusiness } from "./lib/connected-business";
import { createPaymentRequest, receivePaymentStk, registerPaymentRequestJobs } from "../app/.server/domains/payments";
import { runPaymentTaps } from "../app/.server/domains/payments/requests/taps";
import { createMpesaSandbox } from "../sandbox/mpesa/index";

const { values: options } = parseArgs({
  options: { rate: { type: "string", default: "500" }, seconds: { type: "string", default: "60" } },
});
const RATE = Number(options.rate);
const SECONDS = Number(options.seconds);
const COUNT = Math.round((RATE * SECONDS) / 60);
const PASSKEY = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1).padStart(7);
  return `n ${String(sorted.length).padStart(4)}  p50 ${f(percentile(sorted, 50))} ms  p95 ${f(percentile(sorted, 95))} ms  p99 ${f(percentile(sorted, 99))} ms  max ${f(sorted.at(-1) ?? 0)} ms`;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Customer {
  contactId: string;
  conversationId: string;
  phone: string;
}

/** The organisation, its connected number, its paybill, and `count` customers who wrote five minutes ago (the window is open). */
async function seed(count: number) {
  const { organizationId, userId } = await connectedBusiness("Bench Duka", {
    wabaId: "90001",
    phoneNumberId: "90002",
    digits: "254700900002",
  });
  const callbackToken = randomBytes(24).toString("base64url");
  await db()
    .insert(mpesaShortcodes)
    .values({
      organizationId,
      label: "Bench paybill",
      kind: "paybill",
      businessShortCode: "174379",
      environment: "sandbox",
      consumerKeySealed: encryptSecret("bench-consumer-key"),
      consumerKeyHint: "-key",
      consumerSecretSealed: encryptSecret("bench-consumer-secret"),
      passkeySealed: encryptSecret(PASSKEY),
      callbackToken,
      isDefault: true,
      status: "working",
    });
  const customers: Customer[] = [];
  for (let i = 0; i < count; i++) {
    const phone = `2547${String(20_000_000 + i).padStart(8, "0")}`;
    const [contact] = await rawQuery<{ id: string }>(
      `insert into contacts (organization_id, name, phone) values ($1, $2, $3) returning id`,
      [organizationId, `Customer ${i}`, `+${phone}`],
    );
    const [conversation] = await rawQuery<{ id: string }>(
      `insert into conversations (organization_id, phone_number_id, contact_id, last_inbound_at, last_message_at)
       values ($1, '90002', $2, now() - interval '5 minutes', now() - interval '5 minutes') returning id`,
      [organizationId, contact!.id],
    );
    customers.push({ contactId: contact!.id, conversationId: conversation!.id, phone });
  }
  return { organizationId, userId, callbackToken, customers };
}

async function main() {
  const databaseUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  const mpesa = createMpesaSandbox({
    consumerKey: "bench-consumer-key",
    consumerSecret: "bench-consumer-secret",
    shortcode: "174379",
    passkey: PASSKEY,
    callbackDelayMs: 0,
    promptTimeoutMs: 600_000,
  });
  const sandboxMs: number[] = [];
  const sandboxQueryMs: number[] = [];
  const callbackMs: number[] = [];
  const baselineMs: number[] = [];
  const settled = new Map<string, () => void>();
  const app = express();
  app.use("/sandbox/mpesa", (req, res, next) => {
    const t = performance.now();
    res.on("finish", () => {
      if (req.path.endsWith("/stkpush/v1/processrequest")) sandboxMs.push(performance.now() - t);
      if (req.path.endsWith("/stkpushquery/v1/query")) sandboxQueryMs.push(performance.now() - t);
    });
    next();
  });
  app.use("/sandbox/mpesa", mpesa.router);
  app.post("/webhooks/pay/:token/stk", express.json(), async (req, res) => {
    const t = performance.now();
    const answer = await receivePaymentStk(req.params.token, req.body, "127.0.0.1");
    callbackMs.push(performance.now() - t);
    res.status(answer.status).json(answer.body);
    const id = (req.body as { Body?: { stkCallback?: { CheckoutRequestID?: string } } }).Body?.stkCallback?.CheckoutRequestID;
    if (id) settled.get(id)?.();
  });
  app.post("/baseline/:checkout", async (req, res) => {
    const t = performance.now();
    await rawQuery(
      `update payment_attempts set state = 'paid', result_code = '0', finished_at = now() where checkout_request_id = $1 and state = 'pending'`,
      [req.params.checkout],
    );
    baselineMs.push(performance.now() - t);
    res.json({ ResultCode: 0 });
  });
  const server = http.createServer(app).listen(0, "127.0.0.1");
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: origin,
      MPESA_BASE_URL: `${origin}/sandbox/mpesa`,
      MPESA_SHORTCODE_BASE_URLS: `sandbox=${origin}/sandbox/mpesa`,
      MPESA_CALLBACK_BASE_URL: origin,
      WEBHOOK_ALLOW_LOOPBACK: "1",
    }),
  );
  await openDatabase(databaseUrl ? { databaseUrl, poolSize: 20 } : { dataDir: "memory://" });
  registerPaymentRequestJobs();
  const WARM = 5;
  const tenant = await seed(COUNT + WARM);
  const actor = { organizationId: tenant.organizationId, userId: tenant.userId };

  const steps = { create: [] as number[], tap: [] as number[], receipt: [] as number[], endToEnd: [] as number[] };
  let failures = 0;
  let tapMessage = 0;
  // One job worker, as production runs one: it drains the queues and, after each round, resolves the
  // requests whose receipt is now queued (the request's own message, "check your phone", the receipt).
  const awaitingReceipt = new Map<string, () => void>();
  let working = true;
  const worker = (async () => {
    while (working) {
      const handled = await drainJobs();
      const waiting = [...awaitingReceipt.keys()];
      if (waiting.length) {
        const done = await rawQuery<{ contact_id: string }>(
          `select m.contact_id from messages m where m.organization_id = $1 and m.contact_id = any($2::uuid[]) and m.direction = 'outbound'
           group by m.contact_id having count(*) >= 3`,
          [tenant.organizationId, waiting],
        );
        for (const row of done) {
          awaitingReceipt.get(row.contact_id)?.();
          awaitingReceipt.delete(row.contact_id);
        }
      }
      if (!handled) await sleep(10);
    }
  })();

  async function one(customer: Customer) {
    const start = performance.now();
    let t = performance.now();
    const request = await createPaymentRequest(actor, customer.conversationId, { amount: 1250, description: "Order" }, { source: "api" });
    steps.create.push(performance.now() - t);
    // The customer's tap, as the webhook's ingest stores it and claims it for the taps job.
    const [tap] = await rawQuery<{ id: string }>(
      `insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload, sent_at)
       values ($1, $2, 'inbound', 'received', 'Pay with M-Pesa', '90002', 'interactive', $3, now()) returning id`,
      [
        tenant.organizationId,
        customer.contactId,
        JSON.stringify({
          type: "interactive",
          interactive: { type: "button_reply", button_reply: { id: `payreq:${request.id}:pay`, title: "Pay" } },
        }),
      ],
    );
    t = performance.now();
    await runPaymentTaps([
      {
        id: ++tapMessage,
        queue: "payments.request-taps",
        attempts: 0,
        payload: { organizationId: tenant.organizationId, messageId: tap!.id },
      },
    ]);
    steps.tap.push(performance.now() - t);
    const [attempt] = await rawQuery<{ checkout_request_id: string | null }>(
      `select checkout_request_id from payment_attempts where request_id = $1`,
      [request.id],
    );
    const checkout = attempt?.checkout_request_id;
    if (!checkout) throw new Error(`no prompt for ${request.id}`);
    const paid = new Promise<void>((resolve) => settled.set(checkout, resolve));
    // The customer approves on the phone: the sandbox posts the callback at once.
    mpesa.answer(checkout, "accept");
    await paid;
    // The receipt: the worker's notify job queues it.
    t = performance.now();
    await new Promise<void>((resolve) => awaitingReceipt.set(customer.contactId, resolve));
    steps.receipt.push(performance.now() - t);
    steps.endToEnd.push(performance.now() - start);
  }

  // Warm up: the modules, the pool, the sandbox's token (not counted).
  for (const c of tenant.customers.slice(COUNT)) await one(c).catch((error: unknown) => console.error("warm-up:", error));
  for (const list of [...Object.values(steps), sandboxMs, sandboxQueryMs, callbackMs, baselineMs]) list.length = 0;

  console.log(
    `payment requests end to end: ${COUNT} in ${SECONDS} s (${RATE}/min) for one organisation, ${databaseUrl ? "PostgreSQL" : "PGlite"}, ` +
      `${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}`,
  );
  const began = performance.now();
  const running: Promise<void>[] = [];
  for (let i = 0; i < COUNT; i++) {
    const due = (i * SECONDS * 1000) / COUNT;
    const wait = began + due - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(
      one(tenant.customers[i]!).catch((error: unknown) => {
        failures += 1;
        if (failures <= 3) console.error(error);
      }),
    );
    // The baseline's callback, interleaved: one guarded update behind a loopback POST.
    if (i % 2 === 0) await fetch(`${origin}/baseline/none-${i}`, { method: "POST" });
  }
  await Promise.all(running);
  working = false;
  await worker;
  const elapsed = (performance.now() - began) / 1000;
  const [paid] = await rawQuery<{ n: number }>(
    `select count(*)::int as n from payment_requests where organization_id = $1 and status = 'paid' and contact_id = any($2::uuid[])`,
    [tenant.organizationId, tenant.customers.slice(0, COUNT).map((c) => c.contactId)],
  );
  console.log(`  1. create                 ${stats(steps.create)}`);
  console.log(`  2. tap -> STK push        ${stats(steps.tap)}   (includes the sandbox's answer below)`);
  console.log(`     the sandbox's answer   ${stats(sandboxMs)}`);
  console.log(`  3. callback (paid)        ${stats(callbackMs)}   (includes Jumbe's status query to the sandbox below)`);
  console.log(`     the sandbox's query    ${stats(sandboxQueryMs)}`);
  console.log(`  4. receipt queued         ${stats(steps.receipt)}`);
  console.log(`  baseline: guarded update  ${stats(baselineMs)}`);
  console.log(`  end to end (with the customer's approval) ${stats(steps.endToEnd)}`);
  console.log(`  paid ${paid!.n} of ${COUNT}, failures ${failures}, all settled after ${elapsed.toFixed(1)} s (started over ${SECONDS} s)`);
  await mpesa.close();
  server.close();
  await closeDatabase();
}

await main();
