// The reply gate (issue 71, decision 097): what `admitAutomatedReplies` costs a reply's transaction,
// and what the number's lock (new with it: one business number's automated replies are queued one
// transaction at a time) costs in throughput. On a private PostgreSQL 15 cluster (bench/lib/database.mjs,
// as scripts/with-postgres.sh makes one), then on PGlite in process, in one run.
//
//   node --import tsx bench/reply-gate.ts [--runs 300] [--count 200] [--rounds 3] [--skip-pglite] [--json]
//
// - One organisation, one number, 2,000 contacts and conversations (1 in 50 opted out, 1 in 40 held
//   by a person), 5,000 automation runs in the last hour spread over them (their inbound messages
//   too; 900 carry a reply, the number just under its 1,000 cap: the gate reads every run of the hour
//   whether it carries one or not), and 20,000 older runs (the last week).
// - Per transaction: begin, the old statements (reproduced here: writeRun's one lock and one count,
//   deliverPlanned's locks in one statement and a count grouped by conversation) or the gate, commit;
//   for 1, 20 and 100 asks of distinct conversations, alternately, `--runs` times each after a warm-up.
// - Contention: K workers (1, 2, 4), each on its own pooled connection, each `--count` transactions of
//   gate + one outbound message + one automation run (written whatever the verdict: the same work each
//   time), with the gate vs the same gate without the number's key (its lock and its count); distinct
//   conversations, so only the number's lock is shared. Median throughput of `--rounds` rounds.
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, db, openDatabase, type Executor } from "../app/.server/infrastructure/db/client";
import { queryRow, queryRows } from "../app/.server/infrastructure/db/query";
import { organizations } from "../app/.server/infrastructure/db/schema";
import { newBusinessId } from "../app/.server/domains/auth/signup";
import { admitAutomatedReplies, type ReplyAsk } from "../app/.server/domains/automations/reply-gate";
import { lockConversations } from "../app/.server/domains/messaging/conversation-lock";
import { startPrivatePostgres } from "./lib/database.mjs";

const { values: options } = parseArgs({
  options: {
    runs: { type: "string", default: "300" },
    count: { type: "string", default: "200" },
    rounds: { type: "string", default: "3" },
    "skip-pglite": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const RUNS = Number(options.runs);
const COUNT = Number(options.count);
const ROUNDS = Number(options.rounds);
const NUMBER = "bench-number";

let seed = 71;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: Math.round(percentile(sorted, 50)), p99: Math.round(percentile(sorted, 99)) };
};
const load = () => os.loadavg()[0]!.toFixed(2);

interface Conversation {
  id: string;
  answering: string;
}

/** The tenant's data, as the app's tables hold it (migrations applied by openDatabase). */
async function seedTenant(): Promise<Conversation[]> {
  const [org] = await db().insert(organizations).values({ name: "Bench Gate", businessId: newBusinessId(), status: "active" }).returning();
  const o = org!.id;
  await db().execute(sql`
    insert into contacts (organization_id, name, phone, opt_in, opt_in_changed_at)
    select ${o}, 'Mteja ' || i, '+2547' || lpad(i::text, 8, '0'), case when i % 50 = 0 then 'opted_out' else 'opted_in' end, now() - interval '3 days'
    from generate_series(0, 1999) i`);
  await db().execute(sql`
    insert into conversations (organization_id, phone_number_id, contact_id, last_inbound_at, person_held_at)
    select ${o}, ${NUMBER}, c.id, now() - (random() * interval '2 hours'), case when right(c.phone, 8)::int % 40 = 0 then now() end
    from contacts c where c.organization_id = ${o}`);
  // 25,000 customer messages, each answered by a run: the last 5,000 within the hour (every conversation 2 or 3 of them).
  await db().execute(sql`
    insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, created_at, sent_at)
    select ${o}, v.contact_id, 'inbound', 'received', 'bei gani ' || s.i, ${NUMBER}, s.at, s.at
    from (select i, case when i < 5000 then now() - i * interval '700 ms' else now() - interval '1 hour' - (i - 5000) * interval '30 s' end as at
          from generate_series(0, 24999) i) s
    join (select id, contact_id, row_number() over (order by id) - 1 as k from conversations where organization_id = ${o}) v
      on v.k = (s.i * 7919) % 2000`);
  await db().execute(sql`
    insert into automation_runs (organization_id, message_id, conversation_id, contact_id, phone_number_id, kind, reply_id, created_at)
    select m.organization_id, m.id, v.id, m.contact_id, ${NUMBER}, 'rule',
           case when m.created_at < now() - interval '1 hour' or random() < 0.18 then gen_random_uuid() end, m.created_at + interval '1 s'
    from messages m join conversations v on v.contact_id = m.contact_id where m.organization_id = ${o}`);
  await db().execute(sql`analyze`);
  return queryRows<Conversation>(
    db(),
    sql`select v.id, (select m.id from messages m where m.contact_id = v.contact_id order by m.created_at desc limit 1) as answering
        from conversations v where v.organization_id = ${o} order by v.id`,
  );
}

/** Before issue 71 (commit e51df522^): writeRun's one lock and one count, deliverPlanned's batch form. */
async function oldLockAndCount(tx: Executor, ids: string[]) {
  if (ids.length === 1) {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`automation:${ids[0]}`}))`);
    await queryRow(
      tx,
      sql`select count(*)::int as n from automation_runs where conversation_id = ${ids[0]} and reply_id is not null
            and created_at > now() - interval '1 hour'`,
    );
    return;
  }
  const conversations = [...ids].sort();
  await tx.execute(sql`
    select pg_advisory_xact_lock(hashtext('automation:' || c)) from unnest(${sql.param(conversations)}::text[]) as t(c) order by c`);
  await queryRows(
    tx,
    sql`select conversation_id, count(*)::int as n from automation_runs
        where conversation_id = any(${sql.param(conversations)}::uuid[]) and reply_id is not null and created_at > now() - interval '1 hour'
        group by conversation_id`,
  );
}

/** The baseline for contention: the gate's reads for the conversations, without the number's lock and count. */
async function gateWithoutNumber(tx: Executor, asks: ReplyAsk[]) {
  const ids = asks.map((a) => a.conversationId);
  await lockConversations(tx, ids);
  await queryRows(
    tx,
    sql`
    select v.person_held_at is not null as held,
           (c.opt_in = 'opted_out' and (a.m is null or c.opt_in_changed_at is null
              or c.opt_in_changed_at >= (select p.created_at from messages p where p.id = a.m))) as opted_out,
           coalesce(v.last_inbound_at > now() - interval '24 hours', false) as window_open,
           (select count(*) from automation_runs r where r.conversation_id = v.id and r.reply_id is not null
              and r.created_at > now() - interval '1 hour')::int as replies
    from unnest(${sql.param(ids)}::uuid[], ${sql.param(asks.map((a) => a.answering))}::uuid[]) as a(v, m)
    join conversations v on v.id = a.v join contacts c on c.id = v.contact_id`,
  );
}

const ask = (c: Conversation, answering: string | null = c.answering): ReplyAsk => ({
  conversationId: c.id,
  phoneNumberId: NUMBER,
  sends: true,
  freeForm: true,
  answering,
});

function sample(conversations: Conversation[], n: number) {
  const chosen = new Set<Conversation>();
  while (chosen.size < n) chosen.add(conversations[Math.floor(random() * conversations.length)]!);
  return [...chosen];
}

async function perTransaction(conversations: Conversation[]) {
  const rows = [];
  for (const batch of [1, 20, 100]) {
    const old: number[] = [];
    const gate: number[] = [];
    for (let i = -20; i < RUNS; i++) {
      const chosen = sample(conversations, batch);
      const [ids, asks] = [chosen.map((c) => c.id), chosen.map((c) => ask(c))];
      let t = performance.now();
      await db().transaction((tx) => oldLockAndCount(tx, ids));
      if (i >= 0) old.push((performance.now() - t) * 1000);
      t = performance.now();
      await db().transaction((tx) => admitAutomatedReplies(tx, asks));
      if (i >= 0) gate.push((performance.now() - t) * 1000);
    }
    const [o, g] = [stats(old), stats(gate)];
    rows.push({ batch, old: o, gate: g, ratioP50: +(g.p50 / o.p50).toFixed(2), ratioP99: +(g.p99 / o.p99).toFixed(2), load: load() });
  }
  return rows;
}

/** One round: K workers, each COUNT transactions on its own conversations; transactions a second and whether the gate admitted. */
async function contend(conversations: Conversation[], k: number, withNumber: boolean) {
  let admitted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: k }, async (_, w) => {
      for (let i = 0; i < COUNT; i++) {
        const c = conversations[(w + i * k) % conversations.length]!;
        await db().transaction(async (tx) => {
          if (withNumber) {
            const [verdict] = await admitAutomatedReplies(tx, [ask(c, null)]);
            if (verdict === null) admitted++;
          } else await gateWithoutNumber(tx, [ask(c, null)]);
          const reply = await queryRow<{ id: string }>(
            tx,
            sql`insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, source, recipient_phone, next_attempt_at)
                select organization_id, contact_id, 'outbound', 'queued', 'Asante! Tutakujibu hivi karibuni.', ${NUMBER}, 'automation', '+254700000000', now()
                from conversations where id = ${c.id} returning id`,
          );
          await tx.execute(sql`
            insert into automation_runs (organization_id, conversation_id, contact_id, phone_number_id, kind, reply_id)
            select organization_id, id, contact_id, ${NUMBER}, 'flow', ${reply!.id} from conversations where id = ${c.id}`);
        });
      }
    }),
  );
  const perSecond = (k * COUNT) / ((performance.now() - started) / 1000);
  // The round's rows go, so every round counts the same runs.
  await db().execute(sql`delete from messages where source = 'automation'`);
  await db().execute(sql`delete from automation_runs where kind = 'flow'`);
  return { perSecond, admitted };
}

async function contention(conversations: Conversation[]) {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  await contend(conversations, 4, true); // warm: every connection open, every statement prepared
  const rows = [];
  for (const k of [1, 2, 4]) {
    const without: number[] = [];
    const withLock: number[] = [];
    let admitted = 0;
    for (let r = 0; r < ROUNDS; r++) {
      without.push((await contend(conversations, k, false)).perSecond);
      const round = await contend(conversations, k, true);
      withLock.push(round.perSecond);
      admitted = round.admitted;
    }
    const [a, b] = [median(without), median(withLock)];
    rows.push({ k, without: Math.round(a), with: Math.round(b), ratio: +(b / a).toFixed(2), admitted, load: load() });
  }
  return rows;
}

async function measure(label: string, open: () => Promise<unknown>) {
  await open();
  const conversations = await seedTenant();
  const result = { label, perTransaction: await perTransaction(conversations), contention: await contention(conversations) };
  await closeDatabase();
  return result;
}

async function main() {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.bench" }));
  const results = [];
  const cluster = await startPrivatePostgres();
  try {
    results.push(await measure("PostgreSQL 15", () => openDatabase({ databaseUrl: cluster.url, poolSize: 4 })));
  } finally {
    cluster.destroy();
  }
  if (!options["skip-pglite"]) results.push(await measure("PGlite (one connection)", () => openDatabase({ dataDir: "memory://" })));
  if (options.json) return console.log(JSON.stringify(results));
  for (const r of results) {
    console.log(`\n${r.label}: per transaction, µs (${RUNS} each)\n| asks | old p50 / p99 | gate p50 / p99 | ratio p50 / p99 | load |`);
    console.log("| ---: | ---: | ---: | ---: | ---: |");
    for (const x of r.perTransaction)
      console.log(
        `| ${x.batch} | ${x.old.p50} / ${x.old.p99} | ${x.gate.p50} / ${x.gate.p99} | ${x.ratioP50} / ${x.ratioP99} | ${x.load} |`,
      );
    console.log(`\n${r.label}: K workers × ${COUNT} transactions, median of ${ROUNDS}, transactions/s`);
    console.log(
      "| K | without the number's lock | with it (the gate) | ratio | admitted | load |\n| ---: | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const x of r.contention) console.log(`| ${x.k} | ${x.without} | ${x.with} | ${x.ratio} | ${x.admitted} | ${x.load} |`);
  }
}

await main();
