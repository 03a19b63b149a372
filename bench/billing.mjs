// Billing's hot paths on a private PostgreSQL cluster, each beside a bare baseline of the same run:
//
//   node bench/run.mjs --billing-only                              (about six minutes)
//   node bench/run.mjs --billing-only --billing-ops 100 --billing-topups 50
//
// 1. The wallet under contention (bench/lib/billing-wallet.ts, run with `node --import tsx` on the
//    ledger's own functions): `connections` workers each doing `ops` hold + charge pairs on ONE
//    wallet (a campaign's feeder holding, the dispatcher settling), and the feeder's own hold
//    (holdForMessages: lock, read, hold in a transaction), beside the same number of bare
//    `update bench_counters set n = n + 1 where id = 1` on one row, same pool; then the wallet is
//    checked against the sum of its ledger.
// 2. An M-Pesa top-up end to end through the production build and its M-Pesa sandbox: POST
//    /api/billing/topups (the demo owner's cookie session) -> the prompt accepted on the customer's
//    phone (the sandbox's control API, one phone per top-up: a phone with a prompt pending refuses a
//    second push, as Daraja does, so one magic number cannot serve ten at once) -> the sandbox's
//    callback, Jumbe's STK query and the credit -> GET /api/billing/topups/<id> answering
//    `completed`. The sandbox posts its callback 1.5 s after the answer (callbackDelayMs, not
//    settable from the server's environment), so the figure beyond that delay is shown too. Beside
//    it, the same requests (a POST and a GET) to a bare node:http server.
// 3. The sending pipeline with charging: bench/sending.mjs (its own cluster, server and Meta sandbox
//    process) with `sendingMessages` messages for the demo tenant on prepaid, its wallet topped up
//    and the bulk's price held as the feeder holds it (each settle batch of the dispatcher then
//    charges the one wallet), then on postpaid (each accepted message counted for the invoice):
//    accepted a second for each, and whether every message was charged or counted once.
import { spawnSync } from "node:child_process";
import http from "node:http";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startPrivatePostgres, withDatabase } from "./lib/database.mjs";
import { startBareServer } from "./lib/bare-server.mjs";
import { jsonHeaders, signIn } from "./lib/http.mjs";
import { startServer } from "./lib/server.mjs";
import { benchSending } from "./sending.mjs";

/** The sandbox posts an STK callback this long after the prompt is answered (sandbox/mpesa/index.ts). */
const CALLBACK_DELAY_MS = 1500;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function summary(latencies, seconds) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    perSecond: round(sorted.length / seconds),
    latencyMs: { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? 0) },
  };
}

/** `count` jobs, `concurrency` at a time; resolves to each job's answer. */
async function pool(count, concurrency, job) {
  const answers = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        answers[index] = await job(index);
      }
    }),
  );
  return answers;
}

/** One request on a keep-alive agent: { status, json }. */
function call(agent, url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers, agent }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON (the bare server's "OK")
        }
        resolve({ status: response.statusCode ?? 0, json, text });
      });
      response.on("error", reject);
    });
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error(`timed out: ${method} ${url}`)));
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

function walletContention({ root, databaseUrl, connections, ops }) {
  const child = spawnSync(
    process.execPath,
    ["--import", "tsx", path.join(root, "bench/lib/billing-wallet.ts"), databaseUrl, String(connections), String(ops)],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", DATABASE_URL: databaseUrl },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const line = child.stdout.trim().split("\n").at(-1);
  if (child.status !== 0 || !line) throw new Error(`bench/lib/billing-wallet.ts failed (${child.status}):\n${child.stderr.slice(-2000)}`);
  return JSON.parse(line);
}

/** The bare floor: a POST and a GET to node:http, `count` times at `concurrency`. */
async function bareRoundTrips({ count, concurrency }) {
  const bare = await startBareServer();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    await pool(20, concurrency, () => call(agent, `${bare.baseUrl}/warm`));
    const latencies = [];
    const started = performance.now();
    await pool(count, concurrency, async () => {
      const t = performance.now();
      await call(agent, `${bare.baseUrl}/topups`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"amount":10}',
      });
      await call(agent, `${bare.baseUrl}/topups/1`);
      latencies.push(performance.now() - t);
    });
    return summary(latencies, (performance.now() - started) / 1000);
  } finally {
    agent.destroy();
    await bare.stop();
  }
}

/**
 * Top-ups through the built server: the POST, the customer's acceptance at the sandbox, then GET
 * every 20 ms from shortly before the callback is due until `completed`.
 */
async function stkTopups({ server, cookie, controlToken, count, concurrency, amount }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency * 2 });
  const headers = { ...jsonHeaders(server.baseUrl), Cookie: cookie };
  const total = [];
  const posted = [];
  const failures = [];
  const started = performance.now();
  try {
    await pool(count, concurrency, async (i) => {
      const phone = `25472${String(1_000_000 + i).slice(-7)}`;
      const t = performance.now();
      const answer = await call(agent, `${server.baseUrl}/api/billing/topups`, {
        method: "POST",
        headers,
        body: JSON.stringify({ amount, method: "mpesa", phone }),
      });
      posted.push(performance.now() - t);
      if (answer.status !== 201) return void failures.push(`POST ${answer.status}: ${answer.text.slice(0, 200)}`);
      const { id, checkoutRequestId } = answer.json;
      const accepted = await call(agent, `${server.baseUrl}/sandbox/mpesa/control/prompts/${checkoutRequestId}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Sandbox-Token": controlToken },
        body: JSON.stringify({ outcome: "accept", wait: false }),
      });
      if (accepted.status !== 202) return void failures.push(`accept ${accepted.status}: ${accepted.text.slice(0, 200)}`);
      await sleep(CALLBACK_DELAY_MS - 100);
      for (;;) {
        const state = await call(agent, `${server.baseUrl}/api/billing/topups/${id}`, { headers: { Cookie: cookie } });
        if (state.json?.status === "completed") break;
        if (state.status !== 200 || state.json?.status === "failed")
          return void failures.push(`GET ${state.status}: ${state.text.slice(0, 200)}`);
        if (performance.now() - t > 30_000) return void failures.push(`still ${state.json?.status} after 30 s`);
        await sleep(20);
      }
      total.push(performance.now() - t);
    });
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const result = summary(total, seconds);
  return {
    ...result,
    beyondCallbackDelayMs: { p50: round(result.latencyMs.p50 - CALLBACK_DELAY_MS), p99: round(result.latencyMs.p99 - CALLBACK_DELAY_MS) },
    post: summary(posted, seconds).latencyMs,
    failures: failures.length,
    firstFailures: failures.slice(0, 3),
  };
}

/** The demo wallet after the top-ups: equal to its ledger, and credited once per completed payment. */
async function checkTopups(databaseUrl, { amount }) {
  return withDatabase({ databaseUrl }, async (query) => {
    const [row] = await query(
      `select w.balance_cents::text as balance, (select sum(amount_cents)::text from wallet_entries e where e.organization_id = o.id) as ledger,
              (select count(*)::int from payments p where p.organization_id = o.id and p.method = 'mpesa' and p.status = 'completed'
                 and p.amount_cents = $1) as completed,
              (select count(*)::int from wallet_entries e join payments p on p.id = e.payment_id
                 where e.organization_id = o.id and e.kind = 'topup' and p.amount_cents = $1) as credits
       from users u join organizations o on o.id = u.organization_id join wallets w on w.organization_id = o.id
       where u.email = 'demo@jumbe.demo'`,
      [amount * 100],
    );
    return { ...row, consistent: row.balance === row.ledger && row.completed === row.credits };
  });
}

export async function benchBilling({
  root,
  accounts,
  connections = 20,
  ops = 500,
  topups = 200,
  concurrency = 10,
  sendingMessages = 20_000,
  log = console.log,
}) {
  const result = { connections, ops, topups, concurrency, sendingMessages };
  const postgres = await startPrivatePostgres();
  process.once("exit", () => postgres.destroy());
  try {
    log(`  wallet: ${connections} connections x ${ops} hold + charge pairs on one wallet, beside as many single-row updates ...`);
    result.wallet = walletContention({ root, databaseUrl: postgres.url, connections, ops });

    log(`  M-Pesa top-ups: ${topups} at ${concurrency} at a time through the production build and its M-Pesa sandbox ...`);
    const controlToken = randomBytes(24).toString("base64url");
    const server = await startServer({
      root,
      databaseUrl: postgres.url,
      extraEnv: { RATE_LIMIT_MULTIPLIER: "1000000", SANDBOX_CONTROL_TOKEN: controlToken },
    });
    try {
      const cookie = await signIn(server.baseUrl, accounts.individual);
      const amount = 10;
      // A few first, so the server's routes, pool and the sandbox's token are warm.
      await stkTopups({ server, cookie, controlToken, count: Math.min(5, topups), concurrency: Math.min(5, concurrency), amount: 11 });
      result.stk = await stkTopups({ server, cookie, controlToken, count: topups, concurrency, amount });
      result.stk.check = await checkTopups(postgres.url, { amount });
    } finally {
      await server.stop();
    }
    result.bare = await bareRoundTrips({ count: topups, concurrency });
  } finally {
    postgres.destroy();
  }
  result.sending =
    sendingMessages > 0
      ? await sendingByBillingType({ root, accounts, messages: sendingMessages, log })
      : { skipped: "--billing-sending-messages 0" };
  return result;
}

/** The sending pipeline once on prepaid and once on postpaid, each on a cluster of its own. */
async function sendingByBillingType({ root, accounts, messages, log }) {
  const runs = {};
  for (const billingType of ["prepaid", "postpaid"]) {
    log(`  sending ${messages.toLocaleString("en-US")} messages on ${billingType} (bench/sending.mjs) ...`);
    try {
      const run = await benchSending({
        root,
        accounts,
        messages,
        bareMessages: Math.min(5000, messages),
        cpuProfile: false,
        billingType,
        log: (line) => log(`  ${line}`),
      });
      runs[billingType] = {
        acceptedPerSecond: run.acceptedPerSecond,
        bareAcceptedPerSecond: run.bare?.acceptedPerSecond,
        ratioToBare: run.ratioToBare,
        checksOk: run.checks?.ok,
        billing: run.billing,
        cpuPerMessageMs: run.cpu ? { server: (run.cpu.server * 1000) / messages, postgres: (run.cpu.postgres * 1000) / messages } : null,
        databaseMs: run.statements?.totalMs ?? null,
        billingStatements: run.statements?.kinds?.filter((k) => k.kind.startsWith("billing:")) ?? [],
      };
    } catch (error) {
      runs[billingType] = { problem: error instanceof Error ? error.message : String(error) };
    }
  }
  return runs;
}

export function formatBilling(result, { table }) {
  if (result.problem) return `Billing: not measured (${result.problem})`;
  const lines = [];
  const w = result.wallet;
  lines.push(`\nWallet under contention (${w.connections} connections x ${w.ops} on one wallet; PostgreSQL, same pool and run)`);
  lines.push(
    table(
      ["case", "statements", "statements/s", "ops/s", "p50 ms", "p99 ms"],
      w.runs.map((r) => [
        r.case,
        r.statements,
        (r.statements / r.seconds).toFixed(0),
        r.perSecond.toFixed(0),
        r.latencyMs.p50.toFixed(2),
        r.latencyMs.p99.toFixed(2),
      ]),
    ),
  );
  const c = w.check;
  lines.push(
    `  the wallet after the run: balance ${c.balance} cents, held ${c.held}; its ledger (${c.entries} rows) sums to ${c.ledger_balance} and ${c.ledger_held}; ` +
      `expected ${c.expectedBalance} -> ${c.consistent ? "the wallet equals its ledger" : "WARNING: they differ"}` +
      `; the counter row ${c.counter} of ${c.counterExpected}${c.counterConsistent ? "" : " (WARNING)"}`,
  );
  if (result.stk) {
    const s = result.stk;
    lines.push(
      `\nM-Pesa top-up end to end (${result.topups} top-ups, ${result.concurrency} at a time; the sandbox's callback follows 1.5 s after the answer)`,
    );
    lines.push(
      table(
        ["case", "done", "per s", "p50 ms", "p99 ms", "beyond 1.5 s p50", "beyond 1.5 s p99", "failed"],
        [
          [
            "POST /api/billing/topups -> GET .../<id> completed",
            s.count,
            s.perSecond,
            s.latencyMs.p50,
            s.latencyMs.p99,
            s.beyondCallbackDelayMs.p50,
            s.beyondCallbackDelayMs.p99,
            s.failures,
          ],
          ["  of which the POST (push to Daraja, answered)", s.count, "", s.post.p50, s.post.p99, "", "", ""],
          [
            "bare node:http: a POST and a GET",
            result.bare.count,
            result.bare.perSecond,
            result.bare.latencyMs.p50,
            result.bare.latencyMs.p99,
            "",
            "",
            0,
          ],
        ],
      ),
    );
    if (s.firstFailures.length) lines.push(`  first failures: ${s.firstFailures.join(" | ")}`);
    lines.push(
      `  the demo wallet afterwards: balance ${s.check.balance} cents, its ledger ${s.check.ledger}; ${s.check.completed} top-ups completed, ${s.check.credits} credited -> ` +
        (s.check.consistent ? "each credited once, the wallet equals its ledger" : "WARNING: these do not agree"),
    );
  }
  const sending = result.sending ?? {};
  if (sending.skipped) lines.push(`\nSending with charging: not measured (${sending.skipped})`);
  else {
    lines.push(`\nSending with charging (${result.sendingMessages} messages through bench/sending.mjs; accepted by Meta a second)`);
    const row = (type) => {
      const r = sending[type];
      if (!r) return [type, "-", "-", "-", "-", "-", "-"];
      if (r.problem) return [type, r.problem.slice(0, 80), "", "", "", "", ""];
      return [
        type,
        r.acceptedPerSecond?.toFixed(0) ?? "-",
        r.bareAcceptedPerSecond?.toFixed(0) ?? "-",
        r.cpuPerMessageMs ? r.cpuPerMessageMs.server.toFixed(3) : "-",
        r.cpuPerMessageMs ? r.cpuPerMessageMs.postgres.toFixed(3) : "-",
        r.checksOk ? "ok" : "FAILED",
        r.billing?.after
          ? r.billing.after.consistent
            ? `ok (${r.billing.after.settled} ${type === "prepaid" ? "charged" : "counted"})`
            : "FAILED"
          : "-",
      ];
    };
    lines.push(
      table(
        ["billing", "accepted/s", "bare loop/s", "server CPU ms/msg", "PostgreSQL CPU ms/msg", "sending checks", "billing checks"],
        [row("prepaid"), row("postpaid")],
      ),
    );
    for (const type of ["prepaid", "postpaid"]) {
      const r = sending[type];
      if (!r?.billingStatements?.length) continue;
      const parts = r.billingStatements.map(
        (k) => `${k.kind.slice(9)} ${k.calls} calls, ${k.ms.toFixed(0)} ms (mean ${k.meanMs.toFixed(2)})`,
      );
      lines.push(`  ${type}: database time of billing's statements: ${parts.join("; ")}; of ${r.databaseMs.toFixed(0)} ms in all`);
    }
  }
  return lines.join("\n");
}
