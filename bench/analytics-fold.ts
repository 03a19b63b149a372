// The analytics fold's active-contact step (decision 175): the set-based statement against the
// function called a period at a time it replaced (analytics_contact_period, drizzle/0054), on the same
// batches of the same database, in one run, on a private PostgreSQL 15 cluster:
//
//   node --import tsx bench/analytics-fold.ts [--contacts 100000] [--batches 6] [--rounds 3]
//
// - One organisation, `contacts` contacts on one business number; 60% of them have a history in
//   contact_active_periods (2 to 6 days in the last month, 1 to 4 hours in the last two days, on the
//   number and on any number), with contact_first_counts as the fold would have made it: about
//   700,000 periods at 100,000 contacts, the size the SMS fallback bench's database reaches.
// - `batches` batches of 2,000 "contact" events as a campaign makes them (the fold's EVENTS_BATCH):
//   a contact each, most of them known, a fifth new, one event in twenty an hour or a day late (between
//   periods the contact already has), one in fifty the same contact twice.
// - Each batch, `rounds` times, each way in its own transaction rolled back (so both start from the
//   same rows), alternately first: the statement's time, then what it left (contact_first_counts whole
//   and contact_active_periods' rows, hashed), which must be the same both ways. Then each way's
//   EXPLAIN (ANALYZE, BUFFERS) on one batch.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, db, openDatabase, type Executor } from "../app/.server/infrastructure/db/client";
import { queryRow, queryRows } from "../app/.server/infrastructure/db/query";
import { organizations } from "../app/.server/infrastructure/db/schema";
import { newBusinessId } from "../app/.server/domains/auth/signup";
import { activeContactsStatement } from "../app/.server/domains/analytics/fold";
import { startPrivatePostgres } from "./lib/database.mjs";

const { values: options } = parseArgs({
  options: {
    contacts: { type: "string", default: "100000" },
    batches: { type: "string", default: "6" },
    rounds: { type: "string", default: "3" },
  },
});
const CONTACTS = Number(options.contacts);
const BATCHES = Number(options.batches);
const ROUNDS = Number(options.rounds);
const NUMBER = "bench-number";
const BATCH = 2_000;

interface Event {
  organization_id: string;
  contact_id: string;
  phone_number_id: string;
  at: string;
}

let seed = 175;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The step as it was (fold.ts before decision 175): analytics_contact_period called a period at a time. */
async function oldNoteActiveContacts(tx: Executor, events: Event[], explain = false) {
  const column = <K extends keyof Event>(key: K) => sql.param(events.map((e) => e[key]));
  return queryRows<{ "QUERY PLAN": string }>(
    tx,
    sql`${sql.raw(explain ? "explain (analyze, buffers) " : "")}
    with deltas as materialized (
      select p.organization_id, p.number, p.grain, d.at, d.previous_at, d.delta
      from (
        select distinct e.organization_id, e.contact_id, n.number, g.grain,
               case g.grain when 'hour' then date_trunc('hour', e.at at time zone 'UTC') at time zone 'UTC'
                            else date_trunc('day', e.at at time zone 'Africa/Nairobi') at time zone 'Africa/Nairobi' end as at
        from unnest(${column("organization_id")}::uuid[], ${column("contact_id")}::uuid[],
                    ${column("phone_number_id")}::text[], ${column("at")}::timestamptz[])
             as e(organization_id, contact_id, phone_number_id, at)
        cross join lateral (values (e.phone_number_id), ('')) as n(number)
        cross join (values ('hour'), ('day')) as g(grain)
        where g.grain = 'day' or e.at >= now() - make_interval(hours => 60)
        order by 5, 1, 2, 3, 4
      ) p
      cross join lateral analytics_contact_period(p.organization_id, p.contact_id, p.number, p.grain, p.at) d
      where exists (select 1 from organizations o where o.id = p.organization_id)
    ),
    summed as (
      select organization_id, number, grain, at, previous_at, sum(delta)::bigint as n
      from deltas group by 1, 2, 3, 4, 5
    )
    insert into contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
    select s.organization_id, s.number, s.grain, s.at, s.previous_at, s.n
    from summed s
    where s.n > 0 or (s.n < 0 and exists (select 1 from contact_first_counts c
                                          where c.organization_id = s.organization_id and c.phone_number_id = s.number
                                            and c.grain = s.grain and c.at = s.at and c.previous_at = s.previous_at))
    on conflict (organization_id, phone_number_id, grain, at, previous_at)
    do update set contacts = contact_first_counts.contacts + excluded.contacts`,
  );
}

async function seedTenant() {
  const [org] = await db().insert(organizations).values({ name: "Bench Fold", businessId: newBusinessId(), status: "active" }).returning();
  const o = org!.id;
  await db().execute(sql`create temporary table bench_contacts as
    select i, gen_random_uuid() as id from generate_series(0, ${CONTACTS - 1}) i`);
  // The history: days in the last month and hours in the last two days, each on the number and on any number.
  await db().execute(sql`
    insert into contact_active_periods (organization_id, contact_id, phone_number_id, grain, at)
    select distinct ${o}::uuid, c.id, n.number, p.grain, p.at
    from bench_contacts c
    cross join lateral (
      select 'day' as grain, date_trunc('day', now() at time zone 'Africa/Nairobi') at time zone 'Africa/Nairobi'
                             - (1 + floor(random() * 30)) * interval '1 day' as at
      from generate_series(1, 2 + (c.i % 5))
      union all
      select 'hour', date_trunc('hour', now()) - (1 + floor(random() * 47)) * interval '1 hour'
      from generate_series(1, 1 + (c.i % 4))
    ) p
    cross join (values (${NUMBER}), ('')) as n(number)
    where c.i % 5 < 3`);
  await db().execute(sql`
    insert into contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
    select organization_id, phone_number_id, grain, at, previous_at, count(*)
    from (select organization_id, phone_number_id, grain, at,
                 coalesce(lag(at) over (partition by contact_id, phone_number_id, grain order by at), '-infinity') as previous_at
          from contact_active_periods) x
    group by 1, 2, 3, 4, 5`);
  await db().execute(sql`analyze`);
  const contacts = (await queryRows<{ id: string }>(db(), sql`select id::text from bench_contacts order by i`)).map((c) => c.id);
  const periods = await queryRow<{ n: number }>(db(), sql`select count(*)::int as n from contact_active_periods`);
  return { organizationId: o, contacts, periods: periods?.n ?? 0 };
}

function batchOf(organizationId: string, contacts: string[], b: number): Event[] {
  const events: Event[] = [];
  const now = Date.now();
  for (let k = 0; k < BATCH; k++) {
    const late = random() < 0.05;
    const i = (b * BATCH + k) % contacts.length;
    const at = now - (late ? (random() < 0.5 ? 3_600_000 : 86_400_000 + 3_600_000) : Math.floor(random() * 60_000));
    const event = { organization_id: organizationId, contact_id: contacts[i]!, phone_number_id: NUMBER, at: new Date(at).toISOString() };
    events.push(event);
    if (random() < 0.02) events.push({ ...event, at: new Date(now - Math.floor(random() * 60_000)).toISOString() });
  }
  return events.slice(0, BATCH);
}

/** What the step left: contact_first_counts whole, and contact_active_periods' rows, hashed. */
async function digest(tx: Executor) {
  return queryRow<{ counts: string; periods: string }>(
    tx,
    sql`select
      (select md5(string_agg(concat_ws('|', organization_id, phone_number_id, grain, at, previous_at, contacts), ','
                             order by organization_id, phone_number_id, grain, at, previous_at))
       from contact_first_counts) as counts,
      (select count(*) || ':' || sum(hashtext(concat_ws('|', contact_id, phone_number_id, grain, at))::bigint)
       from contact_active_periods) as periods`,
  );
}

/** The step one way in a transaction rolled back: its time in ms and what it left. */
async function once(way: "old" | "new", events: Event[]) {
  let ms = 0;
  let left: Awaited<ReturnType<typeof digest>> = undefined;
  await db()
    .transaction(async (tx) => {
      const started = performance.now();
      if (way === "old") await oldNoteActiveContacts(tx, events);
      else await tx.execute(activeContactsStatement(events));
      ms = performance.now() - started;
      left = await digest(tx);
      tx.rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.message.includes("Rollback"))) throw error;
    });
  return { ms, left: JSON.stringify(left) };
}

/** EXPLAIN (ANALYZE, BUFFERS) one way, rolled back. */
async function explain(way: "old" | "new", events: Event[]) {
  let plan: string[] = [];
  await db()
    .transaction(async (tx) => {
      const rows =
        way === "old"
          ? await oldNoteActiveContacts(tx, events, true)
          : await queryRows<{ "QUERY PLAN": string }>(tx, sql`explain (analyze, buffers) ${activeContactsStatement(events)}`);
      plan = rows.map((r) => r["QUERY PLAN"]);
      tx.rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.message.includes("Rollback"))) throw error;
    });
  return plan;
}

async function main() {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.bench" }));
  const cluster = await startPrivatePostgres();
  try {
    await openDatabase({ databaseUrl: cluster.url, poolSize: 2 });
    const seeded = await seedTenant();
    console.log(`${seeded.contacts.length.toLocaleString("en-US")} contacts, ${seeded.periods.toLocaleString("en-US")} active periods`);
    const times = { old: [] as number[], new: [] as number[] };
    let same = true;
    for (let b = 0; b < BATCHES; b++) {
      const events = batchOf(seeded.organizationId, seeded.contacts, b);
      for (let r = 0; r < ROUNDS; r++) {
        const order: ("old" | "new")[] = (b + r) % 2 ? ["old", "new"] : ["new", "old"];
        const results: Record<string, { ms: number; left: string }> = {};
        for (const way of order) results[way] = await once(way, events);
        times.old.push(results.old!.ms);
        times.new.push(results.new!.ms);
        if (results.old!.left !== results.new!.left) {
          same = false;
          console.log(`  batch ${b} round ${r}: DIFFERENT\n    old ${results.old!.left}\n    new ${results.new!.left}`);
        }
      }
      console.log(
        `  batch ${b}: old ${median(times.old.slice(-ROUNDS)).toFixed(1)} ms, new ${median(times.new.slice(-ROUNDS)).toFixed(1)} ms`,
      );
    }
    console.log(
      `\nThe fold's active-contact step, ${BATCH.toLocaleString("en-US")} events a batch, median of ${times.old.length} (PostgreSQL 15):` +
        `\n  a period at a time (analytics_contact_period): ${median(times.old).toFixed(1)} ms` +
        `\n  set-based (decision 175):                      ${median(times.new).toFixed(1)} ms` +
        `\n  what each left, every batch: ${same ? "the same" : "DIFFERENT"}`,
    );
    const events = batchOf(seeded.organizationId, seeded.contacts, BATCHES);
    for (const way of ["old", "new"] as const) {
      console.log(`\nEXPLAIN (ANALYZE, BUFFERS), ${way === "old" ? "a period at a time" : "set-based"}:`);
      for (const line of await explain(way, events)) console.log(`  ${line}`);
    }
    if (!same) process.exitCode = 1;
  } finally {
    await closeDatabase();
    cluster.destroy();
  }
}

await main();
