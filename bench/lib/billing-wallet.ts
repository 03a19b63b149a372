// The wallet under contention (bench/billing.mjs), run with `node --import tsx`: N connections each
// doing `ops` hold + charge pairs on ONE wallet through the ledger's own functions
// (app/.server/domains/billing/ledger.ts: a campaign's feeder holding a batch's price, the dispatcher
// settling it), beside a bare baseline of the same number of single-row updates
// (`update bench_counters set n = n + 1 where id = 1`) on the same pool in the same run. Ends by
// checking that the wallet equals the sum of its ledger. Prints one JSON line.
//
//   node --import tsx bench/lib/billing-wallet.ts <database-url> <connections> <ops>
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { closeDatabase, db, openDatabase, rawQuery } from "../../app/.server/infrastructure/db/client";
import { changeWallet, holdForMessages } from "../../app/.server/domains/billing/ledger";

const [databaseUrl, connectionsText, opsText] = process.argv.slice(2);
const connections = Number(connectionsText);
const ops = Number(opsText);
const PRICE = 200;

interface Run {
  case: string;
  connections: number;
  statements: number;
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** `connections` workers each calling `op` `count` times in turn; each call's latency kept. */
async function measure(name: string, count: number, op: () => Promise<unknown>, statementsPerOp = 1): Promise<Run> {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        await op();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    case: name,
    connections,
    statements: latencies.length * statementsPerOp,
    seconds: round(seconds, 3),
    perSecond: round(latencies.length / seconds, 1),
    latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), max: round(latencies.at(-1) ?? 0) },
  };
}

async function main() {
  await openDatabase({ databaseUrl, poolSize: connections });
  // A tenant of the benchmark's own (its wallet opens by the trigger), with money for every hold.
  const [org] = await rawQuery<{ id: string }>(
    `insert into organizations (name, business_id, status) values ('Bench Wallet Ltd', 'BENCH-' || substr(md5(random()::text), 1, 8), 'active')
     returning id`,
  );
  const organizationId = org!.id;
  const pairs = connections * ops;
  await changeWallet(db(), { organizationId, kind: "topup", amountCents: pairs * PRICE * 2, description: "Bench top-up" });
  await rawQuery(`create table if not exists bench_counters (id int primary key, n bigint not null)`);
  await rawQuery(`insert into bench_counters values (1, 0) on conflict (id) do update set n = 0`);

  const bump = () => db().execute(sql`update bench_counters set n = n + 1 where id = 1`);
  const hold = () =>
    changeWallet(db(), { organizationId, kind: "hold", amountCents: 0, heldCents: PRICE, messageCount: 1, description: "Bench hold" });
  const charge = () =>
    changeWallet(db(), {
      organizationId,
      kind: "charge",
      amountCents: -PRICE,
      heldCents: -PRICE,
      messageCount: 1,
      description: "Bench charge",
    });
  // The feeder's own call: lock the wallet, read what it covers, hold it, in one transaction.
  const feederHold = () =>
    db().transaction((tx) => holdForMessages(tx, { organizationId, priceCents: PRICE, count: 1, description: "Bench feeder hold" }));

  // A short warm-up of each, so the pool's connections are open and the plans cached.
  await measure("warm-up", 5, bump);
  await measure("warm-up", 5, async () => {
    await hold();
    await charge();
  });
  const runs: Run[] = [];
  runs.push(await measure("bare: update bench_counters set n = n + 1 where id = 1", ops * 2, bump));
  runs.push(
    await measure(
      "wallet: hold + charge pair (changeWallet twice)",
      ops,
      async () => {
        if (!(await hold())) throw new Error("a hold was refused");
        if (!(await charge())) throw new Error("a charge was refused");
      },
      2,
    ),
  );
  runs.push(await measure("wallet: the feeder's hold (holdForMessages in a transaction)", ops, feederHold, 1));
  // What the feeder holds, released again (so the wallet ends with nothing held).
  const [{ held } = { held: 0 }] = await rawQuery<{ held: string }>(`select held_cents as held from wallets where organization_id = $1`, [
    organizationId,
  ]);
  if (Number(held))
    await changeWallet(db(), { organizationId, kind: "release", amountCents: 0, heldCents: -Number(held), description: "Bench release" });

  const [check] = await rawQuery<{
    balance: string;
    held: string;
    ledger_balance: string;
    ledger_held: string;
    entries: string;
    counter: string;
  }>(
    `select w.balance_cents::text as balance, w.held_cents::text as held,
            (select sum(amount_cents)::text from wallet_entries e where e.organization_id = w.organization_id) as ledger_balance,
            (select sum(held_cents)::text from wallet_entries e where e.organization_id = w.organization_id) as ledger_held,
            (select count(*)::text from wallet_entries e where e.organization_id = w.organization_id) as entries,
            (select n::text from bench_counters where id = 1) as counter
     from wallets w where w.organization_id = $1`,
    [organizationId],
  );
  // Every pair charged its price, the warm-up's five a connection too.
  const expectedBalance = pairs * PRICE * 2 - (pairs + connections * 5) * PRICE;
  const consistent =
    check!.balance === check!.ledger_balance &&
    check!.held === check!.ledger_held &&
    Number(check!.balance) === expectedBalance &&
    check!.held === "0";
  // The warm-up's bumps and pairs count too: 5 each per connection.
  const counterExpected = connections * (5 + ops * 2);
  console.log(
    JSON.stringify({
      connections,
      ops,
      runs: runs.filter((r) => r.case !== "warm-up"),
      check: {
        ...check,
        expectedBalance,
        consistent,
        counterExpected,
        counterConsistent: Number(check!.counter) === counterExpected,
      },
    }),
  );
  await closeDatabase();
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
