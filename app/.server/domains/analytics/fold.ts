import { sql } from "drizzle-orm";
import { db, type Database, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";

/**
 * The analytics fold (decision 036). The trigger on messages writes what each change adds or takes
 * away as pending deltas and events, in the writer's transaction; this adds them into the hourly and
 * daily rollups, records active contacts, credits replies and measures response times. One fold at a
 * time across every instance (a transaction-scoped advisory lock); a batch is removed from pending in
 * the same transaction that adds it, so a crash loses nothing and counts nothing twice.
 */
export const ANALYTICS_FOLD_QUEUE = "analytics.fold";
export const ANALYTICS_FOLD_EVERY_SECONDS = 2;

/** Hour-grain activity is kept this long: the 24-hour period and the 24 before it need 48 hours. */
export const HOURLY_CONTACTS_KEEP_HOURS = 72;
/** Hour-grain activity older than this is not recorded (decision 036: it stays exact after pruning). */
const HOURLY_CONTACTS_ACCEPT_HOURS = 60;

const FOLD_LOCK = 3_600_036;
const STATS_BATCH = 20_000;
const EVENTS_BATCH = 2_000;
const MAX_ROUNDS = 50;

type Row = Record<string, unknown>;
const rows = async <T = Row>(executor: Executor, query: ReturnType<typeof sql>) => await queryRows<T>(executor, query);

/** Folds until nothing is pending (or a bounded number of rounds); answers what it folded. */
export async function foldAnalytics(database: Database = db()) {
  const total = { deltas: 0, events: 0 };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const done = { deltas: 0, events: 0, locked: true };
    await database.transaction(async (tx) => {
      const [lock] = await rows<{ ok: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${FOLD_LOCK}) as ok`);
      if (!lock?.ok) {
        done.locked = false;
        return;
      }
      // Events first: crediting a reply or measuring a response writes deltas of its own, folded below.
      done.events = await foldEvents(tx);
      done.deltas = await foldDeltas(tx);
    });
    if (!done.locked) break;
    total.deltas += done.deltas;
    total.events += done.events;
    if (!done.deltas && !done.events) break;
  }
  return total;
}

/** Adds a batch of pending deltas into the hourly, daily, chart and platform rollups (keys in order: no two folds deadlock). */
async function foldDeltas(tx: Executor) {
  const [result] = await rows<{ n: number | string }>(
    tx,
    sql`
    with moved as (
      delete from message_stats_pending
      where id in (select id from message_stats_pending order by id limit ${STATS_BATCH})
      returning *
    ), live as (
      select m.* from moved m where exists (select 1 from organizations o where o.id = m.organization_id)
    ), hourly as (
      insert into message_stats_hourly (organization_id, hour, phone_number_id, template_id, category, received, sent, delivered,
                                        read, failed, replied, spend_cents, responses, response_seconds)
      select organization_id, hour, phone_number_id, template_id, category, sum(received), sum(sent), sum(delivered), sum(read),
             sum(failed), sum(replied), sum(spend_cents), sum(responses), sum(response_seconds)
      from live group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
      on conflict on constraint message_stats_hourly_key do update set
        received = message_stats_hourly.received + excluded.received, sent = message_stats_hourly.sent + excluded.sent,
        delivered = message_stats_hourly.delivered + excluded.delivered, read = message_stats_hourly.read + excluded.read,
        failed = message_stats_hourly.failed + excluded.failed, replied = message_stats_hourly.replied + excluded.replied,
        spend_cents = message_stats_hourly.spend_cents + excluded.spend_cents,
        responses = message_stats_hourly.responses + excluded.responses,
        response_seconds = message_stats_hourly.response_seconds + excluded.response_seconds
      returning 1
    ), daily as (
      insert into message_stats_daily (organization_id, day, phone_number_id, template_id, category, received, sent, delivered,
                                       read, failed, replied, spend_cents, responses, response_seconds)
      select organization_id, (hour at time zone 'Africa/Nairobi')::date, phone_number_id, template_id, category, sum(received),
             sum(sent), sum(delivered), sum(read), sum(failed), sum(replied), sum(spend_cents), sum(responses), sum(response_seconds)
      from live group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
      on conflict on constraint message_stats_daily_key do update set
        received = message_stats_daily.received + excluded.received, sent = message_stats_daily.sent + excluded.sent,
        delivered = message_stats_daily.delivered + excluded.delivered, read = message_stats_daily.read + excluded.read,
        failed = message_stats_daily.failed + excluded.failed, replied = message_stats_daily.replied + excluded.replied,
        spend_cents = message_stats_daily.spend_cents + excluded.spend_cents,
        responses = message_stats_daily.responses + excluded.responses,
        response_seconds = message_stats_daily.response_seconds + excluded.response_seconds
      returning 1
    ), volume as (
      insert into message_volume_hourly (organization_id, hour, phone_number_id, sent, delivered, read)
      select organization_id, hour, phone_number_id, sum(sent), sum(delivered), sum(read)
      from live group by 1, 2, 3 having sum(sent) <> 0 or sum(delivered) <> 0 or sum(read) <> 0 order by 1, 2, 3
      on conflict (organization_id, hour, phone_number_id) do update set
        sent = message_volume_hourly.sent + excluded.sent, delivered = message_volume_hourly.delivered + excluded.delivered,
        read = message_volume_hourly.read + excluded.read
      returning 1
    ), platform as (
      -- The admin console's platform figures: a row a day, and each tenant's last day with a message.
      insert into platform_message_daily (day, sent, received)
      select (hour at time zone 'Africa/Nairobi')::date, sum(sent), sum(received)
      from live group by 1 having sum(sent) <> 0 or sum(received) <> 0 order by 1
      on conflict (day) do update set
        sent = platform_message_daily.sent + excluded.sent, received = platform_message_daily.received + excluded.received
      returning 1
    ), last_days as (
      insert into organization_message_days (organization_id, last_day)
      select organization_id, max((hour at time zone 'Africa/Nairobi')::date)
      from live where sent > 0 or received > 0 group by 1 order by 1
      on conflict (organization_id) do update set last_day = greatest(organization_message_days.last_day, excluded.last_day)
      returning 1
    )
    select count(*) as n from moved`,
  );
  return Number(result?.n ?? 0);
}

interface PendingEvent {
  kind: "contact" | "inbound" | "response";
  organization_id: string;
  contact_id: string;
  phone_number_id: string;
  message_id: string;
  at: string;
}

async function foldEvents(tx: Executor) {
  const events = await rows<PendingEvent>(
    tx,
    sql`
    delete from analytics_events_pending
    where id in (select id from analytics_events_pending order by id limit ${EVENTS_BATCH})
    returning kind, organization_id, contact_id, phone_number_id, message_id, at::text as at`,
  );
  if (!events.length) return 0;
  await noteActiveContacts(
    tx,
    events.filter((e) => e.kind === "contact"),
  );
  await creditReplies(
    tx,
    events.filter((e) => e.kind === "inbound"),
  );
  await measureResponses(
    tx,
    events.filter((e) => e.kind === "response"),
  );
  return events.length;
}

const column = <K extends keyof PendingEvent>(events: PendingEvent[], key: K) => sql.param(events.map((e) => e[key]));

/**
 * The contact was active in the event's hour and Nairobi day, on its number and on any number ('').
 * contact_first_counts counts each period of a contact's series (contact, number, grain) under the
 * period before it ('-infinity' for none). The periods this batch adds are inserted at once; the
 * counts move by what adding them changes, worked out against the series as they were before (a
 * statement's parts all read the table as it was when it began):
 * - each new period counts under the period just before it, old or new;
 * - an old period with new ones just before it moves from under its old predecessor to under the
 *   latest of them.
 * That is the sum of what inserting them one at a time in order would change (analytics_contact_period,
 * which did it a row at a time, drizzle/0054), added up by key and written once a key (decision 096).
 * Set-based rather than a function call, three statements, per period (decision 175).
 */
async function noteActiveContacts(tx: Executor, events: ContactEvent[]) {
  if (events.length) await tx.execute(activeContactsStatement(events));
}

type ContactEvent = Pick<PendingEvent, "organization_id" | "contact_id" | "phone_number_id" | "at">;

/** noteActiveContacts' statement (bench/analytics-fold.ts explains it). */
export function activeContactsStatement(events: ContactEvent[]) {
  const col = <K extends keyof ContactEvent>(key: K) => sql.param(events.map((e) => e[key]));
  return sql`
    with periods as (
      select distinct e.organization_id, e.contact_id, n.number, g.grain,
             case g.grain when 'hour' then date_trunc('hour', e.at at time zone 'UTC') at time zone 'UTC'
                          else date_trunc('day', e.at at time zone 'Africa/Nairobi') at time zone 'Africa/Nairobi' end as at
      from unnest(${col("organization_id")}::uuid[], ${col("contact_id")}::uuid[],
                  ${col("phone_number_id")}::text[], ${col("at")}::timestamptz[])
           as e(organization_id, contact_id, phone_number_id, at)
      cross join lateral (values (e.phone_number_id), ('')) as n(number)
      cross join (values ('hour'), ('day')) as g(grain)
      where (g.grain = 'day' or e.at >= now() - make_interval(hours => ${HOURLY_CONTACTS_ACCEPT_HOURS}))
        and exists (select 1 from organizations o where o.id = e.organization_id)
    ),
    added as (
      insert into contact_active_periods (organization_id, contact_id, phone_number_id, grain, at)
      select organization_id, contact_id, number, grain, at from periods order by contact_id, number, grain, at
      on conflict do nothing
      returning organization_id, contact_id, phone_number_id as number, grain, at
    ),
    placed as materialized (
      select a.organization_id, a.contact_id, a.number, a.grain, a.at,
             coalesce((select max(c.at) from contact_active_periods c
                       where c.contact_id = a.contact_id and c.phone_number_id = a.number and c.grain = a.grain and c.at < a.at),
                      '-infinity') as old_previous,
             (select min(c.at) from contact_active_periods c
              where c.contact_id = a.contact_id and c.phone_number_id = a.number and c.grain = a.grain and c.at > a.at) as old_next,
             lag(a.at) over (partition by a.contact_id, a.number, a.grain order by a.at) as new_previous
      from added a
    ),
    deltas as (
      select organization_id, number, grain, at, greatest(old_previous, coalesce(new_previous, '-infinity')) as previous_at, 1 as delta
      from placed
      union all
      select organization_id, number, grain, old_next, old_previous, -1
      from placed where old_next is not null group by organization_id, contact_id, number, grain, old_next, old_previous
      union all
      select organization_id, number, grain, old_next, max(at), 1
      from placed where old_next is not null group by organization_id, contact_id, number, grain, old_next, old_previous
    ),
    summed as (
      select organization_id, number, grain, at, previous_at, sum(delta)::bigint as n
      from deltas group by 1, 2, 3, 4, 5
    )
    insert into contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
    select s.organization_id, s.number, s.grain, s.at, s.previous_at, s.n
    from summed s
    -- A count taken from a key that has none is dropped, as the one-by-one update did; a key whose
    -- changes cancel out is not written.
    where s.n > 0 or (s.n < 0 and exists (select 1 from contact_first_counts c
                                          where c.organization_id = s.organization_id and c.phone_number_id = s.number
                                            and c.grain = s.grain and c.at = s.at and c.previous_at = s.previous_at))
    order by 1, 2, 3, 4, 5
    on conflict (organization_id, phone_number_id, grain, at, previous_at)
    do update set contacts = contact_first_counts.contacts + excluded.contacts`;
}

/**
 * A customer's message answers the business message it quotes, or else the business's latest
 * message to them on that number within the 24 hours before; once (decision 036). The answer
 * counts in the hour the customer wrote.
 */
async function creditReplies(tx: Executor, events: PendingEvent[]) {
  if (!events.length) return;
  await tx.execute(sql`
    with e as (
      select * from unnest(${column(events, "organization_id")}::uuid[], ${column(events, "contact_id")}::uuid[],
                           ${column(events, "phone_number_id")}::text[], ${column(events, "message_id")}::uuid[],
                           ${column(events, "at")}::timestamptz[])
           as e(organization_id, contact_id, phone_number_id, message_id, at)
    ), answered as (
      select distinct on (coalesce(q.id, l.id)) coalesce(q.id, l.id) as id, coalesce(q.created_at, l.created_at) as created_at,
             coalesce(q.replied_at, l.replied_at) as replied_at, e.at
      from e
      join messages i on i.id = e.message_id
      left join lateral (
        select m.id, m.created_at, m.replied_at from message_wamids w join messages m on m.id = w.message_id and m.created_at = w.created_at
        where w.organization_id = e.organization_id and w.wamid = i.payload -> 'context' ->> 'id'
          and m.organization_id = e.organization_id and m.direction = 'outbound' and m.accepted_at <= e.at
        limit 1
      ) q on i.payload -> 'context' ->> 'id' is not null
      left join lateral (
        select m.id, m.created_at, m.replied_at from messages m
        where q.id is null and m.contact_id = e.contact_id and m.organization_id = e.organization_id and m.direction = 'outbound'
          and m.phone_number_id = e.phone_number_id and m.accepted_at <= e.at and m.accepted_at > e.at - interval '24 hours'
          -- Written before it was accepted (an hour's slack for Meta's whole-second times): the months
          -- after the answer are not read (decision 183).
          and m.created_at <= e.at + interval '1 hour'
        order by m.accepted_at desc, m.seq desc
        limit 1
      ) l on true
      where coalesce(q.id, l.id) is not null
      order by coalesce(q.id, l.id), e.at
    )
    update messages m set replied_at = answered.at
    from answered
    where m.id = answered.id and m.created_at = answered.created_at and answered.replied_at is null and m.replied_at is null`);
}

/**
 * A message from the inbox, or a free-form one from the API, answers a waiting customer: the time from the customer's first
 * message since the business last answered on that number until this one was accepted (decision 036).
 */
async function measureResponses(tx: Executor, events: PendingEvent[]) {
  if (!events.length) return;
  await tx.execute(sql`
    with e as (
      select * from unnest(${column(events, "message_id")}::uuid[]) as e(message_id)
    ), reply as (
      select m.id, m.organization_id, m.contact_id, m.phone_number_id, m.accepted_at,
             (select max(p.accepted_at) from messages p
              where p.contact_id = m.contact_id and p.organization_id = m.organization_id and p.direction = 'outbound'
                and (p.source = 'inbox' or (p.source = 'api' and p.template_id is null)) and p.phone_number_id = m.phone_number_id
                and p.accepted_at is not null and p.id <> m.id and p.created_at <= m.accepted_at + interval '1 hour'
                and (p.accepted_at < m.accepted_at or (p.accepted_at = m.accepted_at and p.seq < m.seq))) as answered_before
      from e join messages m on m.id = e.message_id
      where m.contact_id is not null and m.accepted_at is not null
    ), waited as (
      select r.*,
             (select min(coalesce(i.sent_at, i.created_at)) from messages i
              where i.contact_id = r.contact_id and i.organization_id = r.organization_id and i.direction = 'inbound'
                and i.phone_number_id = r.phone_number_id
                and coalesce(i.sent_at, i.created_at) > coalesce(r.answered_before, '-infinity')
                and coalesce(i.sent_at, i.created_at) <= r.accepted_at) as since
      from reply r
    )
    insert into message_stats_pending (organization_id, hour, phone_number_id, template_id, category, responses, response_seconds)
    select organization_id, date_trunc('hour', accepted_at at time zone 'UTC') at time zone 'UTC', coalesce(phone_number_id, ''), null, '',
           1, round(extract(epoch from accepted_at - since))::bigint
    from waited where since is not null`);
}

/**
 * Hour-grain activity older than HOURLY_CONTACTS_KEEP_HOURS goes (housekeeping). Counts whose
 * previous hour goes with it are kept as "no earlier hour" ('-infinity'), which they are for every
 * range the 24-hour period reads, so a late arrival still finds the row it must move.
 */
export async function pruneHourlyContacts(executor: Executor = db()) {
  const horizon = sql`now() - make_interval(hours => ${HOURLY_CONTACTS_KEEP_HOURS})`;
  await executor.execute(sql`
    with old as (
      delete from contact_first_counts where grain = 'hour' and previous_at < ${horizon} and previous_at > '-infinity'
      returning organization_id, phone_number_id, at, contacts
    )
    insert into contact_first_counts (organization_id, phone_number_id, grain, at, previous_at, contacts)
    select organization_id, phone_number_id, 'hour', at, '-infinity', sum(contacts) from old group by 1, 2, 4
    order by 1, 2, 4
    on conflict (organization_id, phone_number_id, grain, at, previous_at)
    do update set contacts = contact_first_counts.contacts + excluded.contacts`);
  await executor.execute(sql`delete from contact_first_counts where grain = 'hour' and at < ${horizon}`);
  await executor.execute(sql`delete from contact_active_periods where grain = 'hour' and at < ${horizon}`);
}
