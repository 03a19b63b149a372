// The data of bench/scale-db.ts, generated set-wise in PostgreSQL (INSERT ... SELECT FROM
// generate_series, never a row at a time from Node). Each step records itself in scale_progress once
// done, so a second run goes on where the first stopped; the messages are loaded in batches, each
// recorded, and a batch interrupted half-way is rolled back with its transaction.
//
// Shape (docs/scaling.md says why): `organizations` organisations, the first five large (8% of the
// contacts and messages each, 40% together), the rest sharing the other 60% evenly; three members
// each, a WhatsApp account with one number and five templates; one contact per 20 messages, one
// conversation per contact; the messages spread evenly over the last 12 months in arrival order
// (the table's physical order follows time, as a live one does): 45% inbound (90% text, the rest
// media, reactions and locations), 55% outbound (40% campaign templates, 40% inbox replies, 20% API);
// outbound statuses 62% read, 25% delivered, 8% sent, 5% failed, with the timestamps and prices each
// status implies. Webhook events (one per three messages: Meta batches statuses) for the last 30 days
// that housekeeping keeps, and activity records (one per 40 messages) for the 90 days the default
// log retention keeps.
import { performance } from "node:perf_hooks";
import type pg from "pg";
import { FAMILY_NAMES, FIRST_NAMES } from "./names.mjs";

export const LARGE_ORGANISATIONS = 5;
const LARGE_SHARE = 0.08;
const MESSAGES_PER_CONTACT = 20;
const BATCH = 1_000_000;

const GREETINGS = ["Habari", "Hello", "Hi", "Sasa", "Good morning", "Mambo", "Jambo", "Hujambo", "Niaje", "Hey"];
const PHRASES = [
  "nimetuma pesa kupitia M-Pesa, tafadhali thibitisha",
  "is my order ready for delivery to Westlands?",
  "bei ya mfuko wa unga ni ngapi leo",
  "I would like to book an appointment for Saturday",
  "asante sana kwa huduma nzuri",
  "my account balance is not showing the last payment",
  "naomba maelezo zaidi kuhusu mkopo",
  "can you send the invoice again please",
  "the delivery has not arrived yet, what happened",
  "tafadhali nipigie simu baadaye",
  "where is your branch in Kisumu",
  "nataka kubadilisha nambari yangu ya simu",
  "thank you, received in good order",
  "what time do you close on Sunday",
  "sijapokea ujumbe wa uthibitisho",
  "please cancel my subscription",
];
const REPLIES = [
  "Karibu! Your order has been dispatched and will arrive tomorrow.",
  "Thank you for your payment, it has been received.",
  "Tunashughulikia ombi lako, tafadhali subiri kidogo.",
  "Our branch in Kisumu is on Oginga Odinga Street, open 8am to 6pm.",
  "Your appointment is confirmed for Saturday at 10am.",
  "Pole kwa usumbufu, tumetuma tena.",
  "The invoice is attached. Asante!",
  "Please share your account number so we can check.",
];

export interface SeedOptions {
  organizations: number;
  messages: number;
  /** Messages of one more month, the 13th back, for the retention bench to expire (loaded first: the oldest rows). */
  retentionMonth: number;
  say(text: string): void;
}

type Query = (text: string, params?: unknown[]) => Promise<pg.QueryResult>;

/** Runs `work` once across runs: skipped when scale_progress has `name`; its time and rows recorded. */
async function step(query: Query, name: string, say: (text: string) => void, work: () => Promise<number | void>) {
  const done = await query(`select seconds, rows from scale_progress where step = $1`, [name]);
  if (done.rowCount) {
    say(`${name}: done before (${done.rows[0].seconds} s), skipped`);
    return;
  }
  const started = performance.now();
  // One transaction a step: one that fails leaves nothing behind, and the next run does it again.
  await query("begin");
  try {
    const rows = (await work()) ?? null;
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    await query(`insert into scale_progress (step, seconds, rows) values ($1, $2, $3)`, [name, seconds, rows]);
    await query("commit");
    say(`${name}: ${seconds} s${rows !== null ? `, ${rows.toLocaleString("en-US")} rows` : ""}`);
  } catch (error) {
    await query("rollback");
    throw error;
  }
}
export async function seed(query: Query, { organizations, messages, retentionMonth, say }: SeedOptions) {
  await query(
    `create table if not exists scale_progress (step text primary key, seconds real not null, rows bigint, at timestamptz not null default now())`,
  );
  const large = Math.min(LARGE_ORGANISATIONS, organizations - 1);
  // The run's clock: every time is relative to it, so a resumed run continues the same 12 months.
  await query(
    `create table if not exists scale_settings as
               select now() as t0, $1::int as organizations, $2::bigint as messages, $3::int as contacts, $4::bigint as retention_month`,
    [organizations, messages, Math.max(organizations * 10, Math.round(messages / MESSAGES_PER_CONTACT)), retentionMonth],
  );
  const [settings] = (await query(`select * from scale_settings`)).rows;
  // The contacts as the first run made them (a run resumed with fewer messages keeps them).
  const contacts = Number(settings.contacts);
  if (
    Number(settings.messages) !== messages ||
    settings.organizations !== organizations ||
    Number(settings.retention_month) !== retentionMonth
  )
    throw new Error(`This cluster was generated with other settings (${JSON.stringify(settings)}): destroy it first`);

  await step(query, "organizations", say, async () => {
    await query(
      `create table scale_orgs (g int primary key, id uuid not null, account_id uuid not null, waba text not null, number text not null)`,
    );
    await query(
      `insert into scale_orgs select g, gen_random_uuid(), gen_random_uuid(), '1' || lpad(g::text, 9, '0'), '2' || lpad(g::text, 9, '0')
       from generate_series(1, $1::int) g`,
      [organizations],
    );
    const inserted = await query(
      `insert into organizations (id, name, business_id, status, plan_type, billing_type, message_limit, created_at, updated_at)
       select o.id, case when o.g <= $1 then 'Large Retailer ' || o.g else 'Business ' || o.g end, 'JMB-SCALE-' || lpad(o.g::text, 6, '0'), 'active',
              case when o.g <= $1 then 'Enterprise' else (array['Starter', 'Growth', 'Business'])[1 + o.g % 3] end,
              case when o.g % 3 = 0 then 'postpaid' else 'prepaid' end,
              case when o.g <= $1 then 100000 else 10000 end, (select t0 from scale_settings) - interval '400 days', (select t0 from scale_settings)
       from scale_orgs o`,
      [large],
    );
    await query(
      `insert into users (organization_id, email, first_name, last_name, phone_number, password_hash, is_verified, org_role, created_at)
       select o.id, 'member' || i || '.org' || o.g || '@scale.example', ($1::text[])[1 + (o.g + i) % 40], ($2::text[])[1 + (o.g * 3 + i) % 50],
              '+2547' || lpad((o.g * 3 + i)::text, 8, '0'), 'scale-no-sign-in', true, (array['owner', 'admin', 'agent'])[i],
              (select t0 from scale_settings) - interval '400 days'
       from scale_orgs o cross join generate_series(1, 3) i`,
      [FIRST_NAMES, FAMILY_NAMES],
    );
    await query(
      `insert into whatsapp_accounts (id, organization_id, waba_id, name, status, access_token_encrypted, subscribed, connected_at)
       select o.account_id, o.id, o.waba, 'Business ' || o.g, 'connected', 'v1.scale.scale.scale', true, (select t0 from scale_settings) - interval '399 days'
       from scale_orgs o`,
    );
    await query(
      `insert into whatsapp_phone_numbers (organization_id, account_id, phone_number_id, display_phone_number, phone_digits, verified_name,
                                           quality_rating, status, platform_type, messaging_limit, registered_at)
       select o.id, o.account_id, o.number, '+254 7' || lpad(o.g::text, 8, '0'), '2547' || lpad(o.g::text, 8, '0'), 'Business ' || o.g,
              'GREEN', 'CONNECTED', 'CLOUD_API', case when o.g <= $1 then 'TIER_100K' else 'TIER_1K' end, (select t0 from scale_settings) - interval '399 days'
       from scale_orgs o`,
      [large],
    );
    await query(
      `insert into message_templates (organization_id, account_id, waba_id, meta_template_id, name, language, category, status, components, source, submitted_at, created_at)
       select o.id, o.account_id, o.waba, o.waba || '-' || t.i, t.name, 'en', (array['UTILITY', 'UTILITY', 'MARKETING', 'AUTHENTICATION', 'MARKETING'])[t.i], 'approved',
              jsonb_build_array(jsonb_build_object('type', 'BODY', 'text', 'Habari {{1}}, your ' || replace(t.name, '_', ' ') || ' is here.')),
              'jumbe', (select t0 from scale_settings) - interval '398 days', (select t0 from scale_settings) - interval '398 days'
       from scale_orgs o cross join unnest(array['payment_reminder', 'order_update', 'monthly_offer', 'login_code', 'new_arrivals']) with ordinality as t(name, i)`,
    );
    // Each organisation's agent and templates by key, for the messages' load to read without a lookup a row.
    await query(`alter table scale_orgs add column agent uuid, add column templates uuid[]`);
    await query(
      `update scale_orgs o set agent = (select u.id from users u where u.organization_id = o.id and u.org_role = 'agent'),
              templates = (select array_agg(t.id order by t.name) from message_templates t where t.organization_id = o.id)`,
    );
    return inserted.rowCount ?? 0;
  });

  // Contact n (0-based) belongs to organisation 1 + n / (8% of contacts) among the large ones, else to one of the rest in turn.
  await step(query, "contacts", say, async () => {
    const largeContacts = Math.floor(contacts * LARGE_SHARE);
    await query(`create table scale_contacts (n int primary key, id uuid not null, g int not null)`);
    await query(
      `insert into scale_contacts select n, gen_random_uuid(),
              case when n < $2::int * $3::int then 1 + n / $2::int else $3::int + 1 + n % ($4::int - $3::int) end
       from generate_series(0, $1::int - 1) n`,
      [contacts, largeContacts, large, organizations],
    );
    const inserted = await query(
      `insert into contacts (id, organization_id, name, phone, wa_id, opt_in, tags, attributes, language, created_at, updated_at, last_seen_at)
       select c.id, o.id, ($1::text[])[1 + c.n % 40] || ' ' || ($2::text[])[1 + (c.n / 40) % 50], '+2547' || lpad(c.n::text, 8, '0'),
              '2547' || lpad(c.n::text, 8, '0'), (array['opted_in', 'opted_in', 'unknown', 'opted_out'])[1 + c.n % 4],
              case when c.n % 5 = 0 then array['customer'] when c.n % 7 = 0 then array['vip', 'customer'] else '{}' end,
              case when c.n % 3 = 0 then jsonb_build_object('county', (array['Nairobi', 'Mombasa', 'Kisumu', 'Nakuru'])[1 + c.n % 4]) else '{}'::jsonb end,
              case when c.n % 2 = 0 then 'sw' else 'en' end,
              (select t0 from scale_settings) - interval '365 days' * ((c.n::bigint * 7919) % 1000) / 1000.0, (select t0 from scale_settings), null
       from scale_contacts c join scale_orgs o on o.g = c.g`,
      [FIRST_NAMES, FAMILY_NAMES],
    );
    return inserted.rowCount ?? 0;
  });

  await step(query, "conversations", say, async () => {
    const inserted = await query(
      `insert into conversations (id, organization_id, phone_number_id, contact_id, status, assigned_to, created_at, last_message_at)
       select gen_random_uuid(), o.id, o.number, c.id, case when c.n % 5 = 0 then 'open' else 'resolved' end,
              case when c.n % 5 < 3 then o.agent end,
              (select t0 from scale_settings) - interval '365 days', (select t0 from scale_settings) - interval '365 days'
       from scale_contacts c join scale_orgs o on o.g = c.g`,
    );
    return inserted.rowCount ?? 0;
  });

  await loadMessages(query, { messages, retentionMonth, contacts, say });

  await step(query, "conversations.last_message_at", say, async () => {
    const updated = await query(
      `update conversations v set last_message_at = x.last, last_inbound_at = x.inbound,
              unread_count = case when v.status = 'open' then 1 + x.n % 3 else 0 end
       from (select contact_id, max(created_at) as last, max(created_at) filter (where direction = 'inbound') as inbound, count(*) as n
             from messages group by contact_id) x
       where v.contact_id = x.contact_id`,
    );
    return updated.rowCount ?? 0;
  });

  await step(query, "webhook_events", say, async () => {
    await monthPartitions(query, "webhook_events", "received_at");
    // A month's messages over 3, spread over the last 30 days; a body shaped as Meta's (the WABA id indexed).
    const inserted = await query(
      `insert into webhook_events (received_at, body, signature, processed_at, outcome)
       select at, '{"object":"whatsapp_business_account","entry":[{"id":"' || o.waba || '","changes":[{"value":{"messaging_product":"whatsapp",' ||
                  '"metadata":{"display_phone_number":"254700000000","phone_number_id":"' || o.number || '"},' ||
                  case when e % 2 = 0 then '"statuses":[{"id":"wamid.HBgM' || md5(e::text) || '","status":"delivered","timestamp":"' || extract(epoch from at)::bigint ||
                                           '","recipient_id":"2547' || lpad((e % 10000000)::text, 8, '0') || '","pricing":{"billable":true,"pricing_model":"PMP","category":"utility"}}]'
                       else '"contacts":[{"profile":{"name":"Customer"},"wa_id":"2547' || lpad((e % 10000000)::text, 8, '0') || '"}],"messages":[{"from":"2547' ||
                            lpad((e % 10000000)::text, 8, '0') || '","id":"wamid.HBgM' || md5(e::text) || '","timestamp":"' || extract(epoch from at)::bigint ||
                            '","text":{"body":"Habari, is my order ready?"},"type":"text"}]' end ||
                  '},"field":"messages"}]}]}',
              'sha256=' || md5(e::text) || md5((e + 1)::text), at + interval '200 milliseconds', 'processed'
       from generate_series(1, $1::bigint) e
       cross join lateral (select (select t0 from scale_settings) - interval '30 days' + interval '30 days' * e / $1::bigint as at) t
       join scale_orgs o on o.g = 1 + (e * 7) % $2::int`,
      [Math.round(messages / 12 / 3), organizations],
    );
    return inserted.rowCount ?? 0;
  });

  await step(query, "activity_logs", say, async () => {
    await monthPartitions(query, "activity_logs", "created_at");
    const inserted = await query(
      `insert into activity_logs (organization_id, user_id, type, status, action, details, ip_address, created_at)
       select o.id, null, k.type, k.status, k.action, k.details, '197.248.' || (a % 250) || '.' || (a % 199),
              (select t0 from scale_settings) - interval '90 days' + interval '90 days' * a / $1::bigint
       from generate_series(1, $1::bigint) a
       join scale_contacts c on c.n = (a * 7919) % $2::int
       join scale_orgs o on o.g = c.g
       cross join lateral (select * from (values
         ('auth', 'success', 'Signed in', 'From a browser in Nairobi'),
         ('campaign', 'success', 'Campaign sent', 'Monthly offer to 1,200 contacts'),
         ('contacts', 'success', 'Contact updated', 'Tags changed'),
         ('template', 'info', 'Template submitted', 'payment_reminder (English)')) v(type, status, action, details)
         offset a % 4 limit 1) k`,
      [Math.round(((messages / 12) * 3) / 40), contacts],
    );
    return inserted.rowCount ?? 0;
  });

  // The analytics rollups of the largest organisation, the one measured: analytics_backfill builds
  // them from its messages as the trigger would have (for every organisation it cost 52 s a quarter
  // of a million messages here, hours at tens of millions).
  await step(query, "analytics_backfill (organisation 1)", say, async () => {
    await query(`select analytics_backfill((select id from scale_orgs where g = 1), false)`);
  });
}

/** Each month's partition of a partitioned table from 13 months ago to now, as the partitions job keeps them. */
async function monthPartitions(query: Query, table: string, key: string) {
  await query(
    `select jumbe_ensure_month_partition($1, $2, m::date)
     from generate_series(date_trunc('month', (select t0 from scale_settings) at time zone 'UTC') - interval '13 months',
                          date_trunc('month', (select t0 from scale_settings) at time zone 'UTC') + interval '3 months', interval '1 month') m`,
    [table, key],
  );
}

/**
 * The messages, with their secondary indexes dropped while loading and made again after (each
 * index's build time recorded: it is also what a rebuild costs), and the analytics trigger off as
 * bench/analytics.mjs loads (analytics_backfill builds the same figures afterwards).
 */
async function loadMessages(
  query: Query,
  { messages, retentionMonth, contacts, say }: { messages: number; retentionMonth: number; contacts: number; say: (text: string) => void },
) {
  const loaded = await query(`select count(*)::int as n from scale_progress where step like 'messages batch %'`);
  const all = messages + retentionMonth;
  const batches = Math.ceil(all / BATCH);
  if (loaded.rows[0].n < batches) {
    // The months the messages fall in, each its partition (decision 181), not the default partition.
    await query(`select jumbe_ensure_month_partition('messages', 'created_at', m::date)
                 from generate_series(date_trunc('month', now() at time zone 'UTC') - interval '13 months',
                                      date_trunc('month', now() at time zone 'UTC'), interval '1 month') as m`);
    await query(`create table if not exists scale_message_indexes as
                 select indexname, indexdef from pg_indexes
                 where tablename = 'messages' and indexname not in ('messages_pkey', 'messages_id_created_at_pk')`);
    for (const { indexname } of (await query(`select indexname from scale_message_indexes`)).rows)
      await query(`drop index if exists "${indexname}"`);
  }
  for (let b = 0; b < batches; b++) {
    const from = b * BATCH + 1;
    const to = Math.min(all, (b + 1) * BATCH);
    await step(query, `messages batch ${String(b + 1).padStart(3, "0")}`, say, async () => {
      await query(`set local session_replication_role = replica`);
      const inserted = await query(messageInsert, [from, to, messages, contacts, GREETINGS, PHRASES, REPLIES, retentionMonth]);
      return inserted.rowCount ?? 0;
    });
  }
  for (const { indexname, indexdef } of (await query(`select indexname, indexdef from scale_message_indexes order by indexname`)).rows)
    await step(query, `index ${indexname}`, say, async () => {
      await query(`drop index if exists "${indexname}"`);
      await query(indexdef);
    });
}

// $1..$2: the batch's message numbers; $3 messages in the 12 months, after $8 of the 13th month back;
// $4 contacts. Message x's time is its place in its stretch plus up to an hour; its contact a hash of
// x; r1 and r2 its draws.
const messageInsert = `
  insert into messages (organization_id, contact_id, direction, status, body, wamid, phone_number_id, message_type, payload, sent_at, created_at,
                        source, recipient_phone, recipient_wa_id, template_id, accepted_at, delivered_at, read_at, failed_at, error_code, error_title,
                        pricing_category, pricing_type, billable, price_cents, charge_state, sent_by, campaign_id)
  select o.id, k.id, d.direction,
         case when d.direction = 'inbound' then 'received' when d.r2 < 0.05 then 'failed' when d.r2 < 0.13 then 'sent' when d.r2 < 0.38 then 'delivered' else 'read' end,
         case when d.direction = 'inbound' and d.kind = 'text' then ($5::text[])[1 + x % 10] || ', ' || ($6::text[])[1 + (x / 10) % 16]
              when d.direction = 'inbound' then ''
              when d.source = 'campaign' then 'Habari ' || split_part(k.name, ' ', 1) || ', your ' || (array['login code', 'monthly offer', 'new arrivals', 'order update', 'payment reminder'])[d.tpl] || ' is here.'
              else ($7::text[])[1 + x % 8] end,
         'wamid.HBgM' || md5(x::text), o.number,
         case when d.direction = 'outbound' and d.source = 'campaign' then 'template' else d.kind end,
         case when d.direction = 'inbound' then jsonb_build_object('id', 'wamid.HBgM' || md5(x::text), 'type', d.kind, 'timestamp', extract(epoch from d.t)::bigint::text) end,
         d.t, d.t,
         case when d.direction = 'outbound' then d.source end,
         case when d.direction = 'outbound' then k.phone end, case when d.direction = 'outbound' then k.wa_id end,
         case when d.direction = 'outbound' and d.source = 'campaign' then o.templates[d.tpl] end,
         case when d.direction = 'outbound' and d.r2 >= 0.05 then d.t + interval '1 second' end,
         case when d.direction = 'outbound' and d.r2 >= 0.13 then d.t + interval '4 seconds' end,
         case when d.direction = 'outbound' and d.r2 >= 0.38 then d.t + interval '1 minute' * (1 + x % 90) end,
         case when d.direction = 'outbound' and d.r2 < 0.05 then d.t + interval '2 seconds' end,
         case when d.direction = 'outbound' and d.r2 < 0.05 then 131026 end,
         case when d.direction = 'outbound' and d.r2 < 0.05 then 'Message undeliverable' end,
         case when d.direction = 'outbound' and d.source = 'campaign' then (array['authentication', 'marketing', 'marketing', 'utility', 'utility'])[d.tpl]
              when d.direction = 'outbound' then 'service' end,
         case when d.direction = 'outbound' then case when d.source = 'campaign' then 'regular' else 'free_customer_service' end end,
         case when d.direction = 'outbound' then d.source = 'campaign' end,
         case when d.direction = 'outbound' and d.source = 'campaign' then 80 end,
         case when d.direction = 'outbound' and d.source = 'campaign' then case when d.r2 < 0.05 then 'released' else 'charged' end end,
         case when d.direction = 'outbound' and d.source = 'inbox' then o.agent end,
         null
  from generate_series($1::bigint, $2::bigint) as gs(x)
  cross join lateral (
    select case when r1 < 0.45 then 'inbound' else 'outbound' end as direction, r1, r2,
           case when r1 < 0.45 * 0.9 then 'text' when r1 < 0.45 * 0.95 then 'image' when r1 < 0.45 * 0.98 then 'reaction' when r1 < 0.45 then 'location' else 'text' end as kind,
           case when r1 < 0.45 then null when r1 < 0.45 + 0.55 * 0.4 then 'campaign' when r1 < 0.45 + 0.55 * 0.8 then 'inbox' else 'api' end as source,
           1 + (x % 5)::int as tpl,
           case when x <= $8::bigint then (select t0 from scale_settings) - interval '395 days' + interval '30 days' * ((x - 1)::float8 / greatest($8::bigint, 1))
                else (select t0 from scale_settings) - interval '365 days' + interval '365 days' * ((x - $8::bigint - 1)::float8 / $3::bigint) end
             + interval '1 second' * ((x * 37) % 3600) as t
    from (select ((x * 2654435761) % 1000003) / 1000003.0 as r1, ((x * 40503) % 999983) / 999983.0 as r2) r
  ) d
  join scale_contacts sc on sc.n = (x * 48271) % $4::bigint
  join contacts k on k.id = sc.id
  join scale_orgs o on o.g = sc.g`;
