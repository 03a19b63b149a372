// Analytics at scale (issue 18), on a private PostgreSQL cluster:
//
//   node bench/run.mjs --analytics-only                                  (10,000,000 messages; about 25 minutes)
//   node bench/run.mjs --analytics-only --analytics-messages 100000 --analytics-others 10   (a smoke run, about 2 minutes)
//
// 1. Seed, straight in SQL: a tenant with `messages` messages over the last 365 days from `contacts`
//    contacts on two business numbers, and `others` tenants with `othersMessages` each (100 contacts,
//    one number). Of each tenant's messages: 35% inbound; 60% template messages (20 templates for
//    the large tenant, marketing, utility and authentication, some far more used than others; 3 for
//    a small one), charged 200 cents (refunded when failed), their pricing category as Meta reports
//    it; 5% free-form replies from the inbox (service). Outbound statuses: accepted, delivered 95%,
//    read 70%, failed 3%; replied_at on 10% of them. The messages' secondary indexes are dropped
//    while loading and rebuilt after, and the triggers (the analytics statement trigger among them)
//    do not run (session_replication_role = replica), as bench/inbox.mjs loads its 5,000,000.
// 2. The figures built as a live database would have them: `analytics_backfill(org, false)`
//    (drizzle/0031_analytics.sql) for each tenant, small ones first (the function reads the whole of
//    contact_active_periods for one organisation), then foldAnalytics() (app/.server/domains/analytics/fold.ts)
//    until nothing is pending (bench/lib/analytics-report.ts), then ANALYZE; each timed. The large
//    tenant's rollups are checked against its messages.
// 3. analyticsReport() in process (bench/lib/analytics-report.ts): `requests` sequential calls per
//    period (24h, 7d, 30d, 90d, a custom 365 days, 90d on one number) for the large tenant and a small
//    one, median and 95th percentile, beside the same round trips doing no work; then each statement
//    of the large tenant's report timed alone and explained (EXPLAIN (ANALYZE, BUFFERS)).
// 4. The production build on the cluster: `GET /analytics?period=…` (when the page is built: until
//    then the route answers the "coming soon" page, and the rows say so), `GET /dashboard` and
//    `GET /api/v1/analytics?period=…` (the same report as JSON, with each tenant's API key),
//    `requests` times each for both tenants, the server's own time (Server-Timing app;dur) and the
//    time seen here; beside bench/baseline-app at the nearest size (a page, or a JSON object) and the
//    bare node:http server sending as many bytes.
//
// `--analytics-keep` leaves the seeded cluster running at the end (bench/run.mjs prints its URL and
// removes it on Ctrl-C), for a look at plans by hand.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { request } from "./lib/http.mjs";
import { FAMILY_NAMES, FIRST_NAMES } from "./lib/names.mjs";
import { timePage } from "./lib/page-timing.mjs";
import { reportHelper, timeReferences, withPrivateCluster, withSignedInServer } from "./lib/scale-run.mjs";
import { apiKeyFor } from "./api-v1.mjs";

const BENCH_SQL = "/* bench:analytics */";
export const GOAL_MS = 150;
const DAY_MS = 86_400_000;

// The large tenant's templates: [name, category, language, body]; the first ones are used most.
const TEMPLATES = [
  ["loan_repayment_reminder", "UTILITY", "en", "Habari {{1}}, your loan installment of KES {{2}} is due on {{3}}."],
  ["dividend_announcement", "MARKETING", "en", "Dear member, the 2026 dividend of {{1}}% will be paid on {{2}}."],
  ["otp_verification", "AUTHENTICATION", "en", "{{1}} is your verification code."],
  ["savings_statement_ready", "UTILITY", "en", "Your statement for {{1}} is ready."],
  ["agm_invitation", "MARKETING", "en", "You are invited to the AGM on {{1}} at {{2}}."],
  ["payment_received", "UTILITY", "en", "We received KES {{1}} on {{2}}. Thank you."],
  ["loan_offer_top_up", "MARKETING", "en", "You qualify for a top-up of up to KES {{1}}."],
  ["ukumbusho_wa_mkopo", "UTILITY", "sw", "Habari {{1}}, malipo yako ya KES {{2}} yanadaiwa tarehe {{3}}."],
  ["login_code", "AUTHENTICATION", "en", "Use {{1}} to sign in. It expires in 10 minutes."],
  ["new_branch_opening", "MARKETING", "en", "Our {{1}} branch opens on {{2}}."],
  ["guarantor_request", "UTILITY", "en", "{{1}} has asked you to guarantee a loan of KES {{2}}."],
  ["school_fees_loan", "MARKETING", "en", "School fees loans at {{1}}% are open until {{2}}."],
  ["card_ready_for_collection", "UTILITY", "en", "Your card is ready at the {{1}} branch."],
  ["tangazo_la_gawio", "MARKETING", "sw", "Gawio la {{1}}% litalipwa tarehe {{2}}."],
  ["password_reset_code", "AUTHENTICATION", "en", "{{1}} is your password reset code."],
  ["account_dormant_notice", "UTILITY", "en", "Your account {{1}} will be dormant on {{2}}."],
  ["holiday_greetings", "MARKETING", "en", "Happy holidays from all of us, {{1}}!"],
  ["arrears_notice", "UTILITY", "en", "Your loan is KES {{1}} in arrears."],
  ["member_survey", "MARKETING", "en", "Tell us how we did: {{1}}"],
  ["transaction_code", "AUTHENTICATION", "en", "{{1}} is your code to approve the withdrawal."],
];
const SMALL_TEMPLATES = [
  ["payment_reminder", "UTILITY", "en", "Your payment of KES {{1}} is due on {{2}}."],
  ["monthly_offer", "MARKETING", "en", "This month: {{1}}."],
  ["verification_code", "AUTHENTICATION", "en", "{{1}} is your code."],
];
const CUSTOMER_TEXTS = [
  "Habari, nimetuma pesa lakini sijaona kwenye akaunti yangu",
  "Hello, when will the dividend be paid this year?",
  "Asante sana",
  "Please send me my loan statement",
  "Nataka kujua salio la akiba yangu",
  "STOP",
  "Ok",
  "How much can I borrow with my current shares?",
  "Is the office in Nakuru open on Saturday?",
  "Thank you, received",
];
const AGENT_TEXTS = [
  "Habari! Tumepokea ujumbe wako, tunaangalia sasa hivi.",
  "Your statement has been sent to your registered email address.",
  "Ndiyo, ofisi iko wazi Jumamosi kuanzia saa mbili hadi saa sita mchana.",
  "Karibu!",
  "We have reversed the transaction. It will reflect within 24 hours.",
];

const seconds = (started) => (performance.now() - started) / 1000;

/**
 * One INSERT ... SELECT of messages g = $8..$9 of a tenant's $15: organisation $1, its numbers $2,
 * templates $3 (ids), $4 (names), $5 (Meta's pricing category), $6 (bodies), $7 contacts (tenant
 * $10 of bench_contacts), wamids '$11<g>', texts $12 (customers) and $13 (agents), over the $14 days
 * before now, oldest first (message g in slot g of the span, jittered inside it). The random numbers
 * come from the innermost subquery, so each is drawn once per row.
 */
const MESSAGES_SQL = `${BENCH_SQL}
insert into messages (organization_id, contact_id, direction, status, body, wamid, phone_number_id, message_type, payload,
                      sent_at, created_at, source, recipient_phone, template_id, accepted_at, delivered_at, read_at, failed_at,
                      replied_at, error_code, error_title, pricing_category, pricing_type, billable, price_cents, charge_state)
select $1, c.id,
       case when s.kind = 'in' then 'inbound' else 'outbound' end,
       case when s.kind = 'in' then 'received' when s.r_s < 0.03 then 'failed' when s.r_s < 0.05 then 'sent'
            when s.r_s < 0.30 then 'delivered' else 'read' end,
       s.body, s.wamid, ($2::text[])[s.num],
       case when s.kind = 'tpl' then 'template' else 'text' end,
       case s.kind
         when 'in' then jsonb_build_object('from', substr(c.phone, 2), 'id', s.wamid, 'timestamp', extract(epoch from s.t)::bigint::text,
                                          'type', 'text', 'text', jsonb_build_object('body', s.body))
         when 'tpl' then jsonb_build_object('messaging_product', 'whatsapp', 'recipient_type', 'individual', 'to', c.phone, 'type', 'template',
                                            'template', jsonb_build_object('name', ($4::text[])[s.tpl], 'language', jsonb_build_object('code', 'en')))
         else jsonb_build_object('messaging_product', 'whatsapp', 'recipient_type', 'individual', 'to', c.phone, 'type', 'text',
                                 'text', jsonb_build_object('body', s.body)) end,
       case when s.kind = 'in' then s.t else s.t + interval '2 seconds' end,
       case when s.kind = 'in' then s.t + interval '1 second' else s.t end,
       case s.kind when 'in' then null when 'reply' then 'inbox' else case when s.r_src < 0.7 then 'campaign' else 'api' end end,
       case when s.kind <> 'in' then c.phone end,
       case when s.kind = 'tpl' then ($3::uuid[])[s.tpl] end,
       case when s.kind <> 'in' then s.t + interval '1 second' end,
       case when s.kind <> 'in' and s.r_s >= 0.05 then least(now(), s.t + s.delivery) end,
       case when s.kind <> 'in' and s.r_s >= 0.30 then least(now(), s.t + s.delivery + s.reading) end,
       case when s.kind <> 'in' and s.r_s < 0.03 then s.t + interval '8 seconds' end,
       case when s.kind <> 'in' and s.r_s >= 0.03 and s.r_r < 0.10 then least(now(), s.t + s.delivery + s.reading + s.replying) end,
       case when s.kind <> 'in' and s.r_s < 0.03 then 131026 end,
       case when s.kind <> 'in' and s.r_s < 0.03 then 'Message undeliverable' end,
       case s.kind when 'tpl' then ($5::text[])[s.tpl] when 'reply' then 'service' end,
       case s.kind when 'tpl' then 'regular' when 'reply' then 'free_customer_service' end,
       case s.kind when 'tpl' then true when 'reply' then false end,
       case when s.kind = 'tpl' then 200 end,
       case when s.kind = 'tpl' then case when s.r_s < 0.03 then 'refunded' else 'charged' end end
from (
  select x.*,
         case x.kind when 'in' then ($12::text[])[1 + x.g % array_length($12::text[], 1)]
                     when 'reply' then ($13::text[])[1 + x.g % array_length($13::text[], 1)]
                     else ($6::text[])[x.tpl] end as body,
         $11 || x.g as wamid
  from (
    select g,
           case when r_kind < 0.35 then 'in' when r_kind < 0.95 then 'tpl' else 'reply' end as kind,
           now() - interval '30 seconds' - interval '1 day' * $14::int * (1 - (g - 1 + r_time) / $15::float8) as t,
           1 + floor($7::int * power(r_contact, 1.5))::int as k,
           1 + floor(array_length($3::uuid[], 1) * power(r_tpl, 1.6))::int as tpl,
           1 + floor(array_length($2::text[], 1) * r_num * r_num)::int as num,
           r_s, r_r, r_src,
           interval '1 second' * (2 + 30 * r_d) as delivery,
           interval '1 minute' * (1 + 600 * power(r_read, 3)) as reading,
           interval '1 minute' * (1 + 180 * r_rep) as replying
    from (select g, random() as r_kind, random() as r_time, random() as r_contact, random() as r_tpl, random() as r_num,
                 random() as r_s, random() as r_r, random() as r_src, random() as r_d, random() as r_read, random() as r_rep
          from generate_series($8::int, $9::int) as g) as draws
  ) x
) s
join bench_contacts c on c.o = $10 and c.k = s.k`;

/** A tenant: organisation, owner (the given password hash), a WhatsApp account, its numbers and templates. */
async function createTenant(query, { name, email, hash, numbers, templates, tag, index }) {
  const [org] = await query(
    `${BENCH_SQL} insert into organizations (name, business_id, status, plan_type, billing_type) values ($1, $2, 'active', 'Enterprise', 'prepaid') returning id`,
    [name, `BENCH-AN-${tag}-${index}`],
  );
  await query(
    `insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, org_role) values ($1, $2, 'Wanjiru', 'Kimani', $3, true, 'owner')`,
    [org.id, email, hash],
  );
  const waba = `BENCHWABA${tag}${index}`;
  const [account] = await query(
    `insert into whatsapp_accounts (organization_id, waba_id, name, access_token_encrypted, subscribed) values ($1, $2, $3, 'v1.bench.bench.bench', true) returning id`,
    [org.id, waba, name],
  );
  for (const [i, number] of numbers.entries())
    await query(
      `insert into whatsapp_phone_numbers (organization_id, account_id, phone_number_id, display_phone_number, phone_digits, verified_name,
                                           quality_rating, status, platform_type, messaging_limit, registered_at)
       values ($1, $2, $3, $4, $5, $6, 'GREEN', 'CONNECTED', 'CLOUD_API', 'TIER_10K', now())`,
      [
        org.id,
        account.id,
        number,
        `+254 7${String(index).padStart(2, "0")} 555 00${i + 1}`,
        `2547${String(index).padStart(2, "0")}55500${i + 1}`,
        name,
      ],
    );
  const rows = await query(
    `insert into message_templates (organization_id, account_id, waba_id, meta_template_id, name, language, category, status, components, source, submitted_at)
     select $1, $2, $3, $4 || '-' || i, t.name, t.language, t.category, 'approved',
            jsonb_build_array(jsonb_build_object('type', 'BODY', 'text', t.body)), 'jumbe', now() - interval '400 days'
     from unnest($5::text[], $6::text[], $7::text[], $8::text[]) with ordinality as t(name, category, language, body, i)
     order by i
     returning id, name, category, components -> 0 ->> 'text' as body`,
    [
      org.id,
      account.id,
      waba,
      `9${tag}${index}`,
      templates.map((t) => t[0]),
      templates.map((t) => t[1]),
      templates.map((t) => t[2]),
      templates.map((t) => t[3]),
    ],
  );
  // In the order of `templates` (the first are used most).
  const byName = new Map(rows.map((r) => [r.name, r]));
  const ordered = templates.map(([name]) => byName.get(name));
  return {
    organizationId: org.id,
    email,
    numbers,
    templates: {
      ids: ordered.map((r) => r.id),
      names: ordered.map((r) => r.name),
      // Meta's pricing category in its status webhooks: marketing, utility, authentication.
      categories: ordered.map((r) => r.category.toLowerCase()),
      bodies: ordered.map((r) => r.body),
    },
  };
}

async function seed(query, { hash, messages, contacts, others, othersMessages, days, log }) {
  const timings = {};
  const step = async (name, work) => {
    const started = performance.now();
    const result = await work();
    timings[name] = seconds(started);
    return result;
  };
  const tag = randomBytes(3).toString("hex").toUpperCase();
  const numberBase = 700_000_000_000 + Math.floor(Math.random() * 1e9) * 100;
  const tenants = await step("tenants", async () => {
    const list = [
      await createTenant(query, {
        name: "Bench Analytics Sacco",
        email: `analytics-bench-${tag.toLowerCase()}@jumbe.demo`,
        hash,
        numbers: [String(numberBase), String(numberBase + 1)],
        templates: TEMPLATES,
        tag,
        index: 0,
      }),
    ];
    for (let i = 1; i <= others; i++)
      list.push(
        await createTenant(query, {
          name: `Bench Chama ${i}`,
          email: `analytics-bench-${tag.toLowerCase()}-${i}@jumbe.demo`,
          hash,
          numbers: [String(numberBase + 10 + i)],
          templates: SMALL_TEMPLATES,
          tag,
          index: i,
        }),
      );
    return list;
  });
  log(`  ${tenants.length} tenants created in ${timings.tenants.toFixed(1)} s`);

  const smallContacts = 100;
  await step("contacts", async () => {
    await query(`create temporary table bench_contacts (o int not null, k int not null, id uuid not null, phone text not null)`);
    await query(
      `insert into bench_contacts select 0, k, gen_random_uuid(), '+2547' || lpad((10000000 + k)::text, 8, '0') from generate_series(1, $1::int) k`,
      [contacts],
    );
    await query(
      `insert into bench_contacts select o, k, gen_random_uuid(), '+2541' || lpad((o * 1000 + k)::text, 8, '0')
       from generate_series(1, $1::int) o, generate_series(1, $2::int) k`,
      [others, smallContacts],
    );
    await query(`create unique index on bench_contacts (o, k)`);
    await query(`analyze bench_contacts`);
    await query(
      `${BENCH_SQL} insert into contacts (id, organization_id, name, phone, wa_id, opt_in, created_at, last_seen_at)
       select c.id, ($1::uuid[])[c.o + 1], ($2::text[])[1 + c.k % 40] || ' ' || ($3::text[])[1 + (c.k / 40) % 50],
              c.phone, substr(c.phone, 2), 'opted_in', now() - interval '400 days', now() - interval '365 days' * power(random(), 2)
       from bench_contacts c order by c.o, c.k`,
      [tenants.map((t) => t.organizationId), FIRST_NAMES, FAMILY_NAMES],
    );
  });
  log(`  ${(contacts + others * smallContacts).toLocaleString("en-US")} contacts in ${timings.contacts.toFixed(1)} s`);

  // The secondary indexes go while loading and come back after; no trigger runs meanwhile (foreign
  // keys, the analytics statement trigger): every id is one just made.
  const indexes = await query(
    `select indexname, indexdef from pg_indexes where schemaname = 'public' and tablename = 'messages' and indexname <> 'messages_pkey'`,
  );
  const insertFor = (tenant, o, from, to, total) =>
    query(MESSAGES_SQL, [
      tenant.organizationId,
      tenant.numbers,
      tenant.templates.ids,
      tenant.templates.names,
      tenant.templates.categories,
      tenant.templates.bodies,
      o === 0 ? contacts : smallContacts,
      from,
      to,
      o,
      `wamid.AN${tag}.${o}.`,
      CUSTOMER_TEXTS,
      AGENT_TEXTS,
      days,
      total,
    ]);
  await step("messagesLoad", async () => {
    for (const { indexname } of indexes) await query(`drop index ${indexname}`);
    await query(`set session_replication_role = replica`);
    for (let o = 1; o <= others; o++) await insertFor(tenants[o], o, 1, othersMessages, othersMessages);
    if (others) log(`    ${(others * othersMessages).toLocaleString("en-US")} messages of the ${others} small tenants`);
    const batch = 500_000;
    const started = performance.now();
    for (let from = 1; from <= messages; from += batch) {
      const to = Math.min(messages, from + batch - 1);
      await insertFor(tenants[0], 0, from, to, messages);
      const rate = to / seconds(started);
      log(`    ${to.toLocaleString("en-US")} messages of the large tenant (${Math.round(rate).toLocaleString("en-US")} a second)`);
    }
    await query(`set session_replication_role = origin`);
  });
  await step("messagesIndexes", async () => {
    await query(`set maintenance_work_mem = '1GB'`);
    for (const { indexname, indexdef } of indexes) {
      const started = performance.now();
      await query(indexdef);
      log(`    index ${indexname} rebuilt in ${seconds(started).toFixed(1)} s`);
    }
  });
  await step("analyzeMessages", () => query(`analyze messages; analyze contacts; analyze message_templates`));
  await query(`drop table bench_contacts`);
  return { tag, tenants, timings, indexes: indexes.map((i) => i.indexname) };
}

/** The large tenant's figures from its messages, as the trigger and the fold count them, against its daily rollup. */
async function checkRollups(query, organizationId) {
  const [fromMessages] = await query(
    `${BENCH_SQL} select count(*) filter (where direction = 'inbound') as received,
            count(*) filter (where direction = 'outbound' and accepted_at is not null) as sent,
            count(*) filter (where direction = 'outbound' and coalesce(delivered_at, read_at) is not null) as delivered,
            count(*) filter (where direction = 'outbound' and read_at is not null) as read,
            count(*) filter (where direction = 'outbound' and status = 'failed' and failed_at is not null) as failed,
            count(*) filter (where direction = 'outbound' and replied_at is not null) as replied,
            coalesce(sum(price_cents) filter (where direction = 'outbound' and accepted_at is not null and charge_state = 'charged'), 0) as spend_cents
     from messages where organization_id = $1`,
    [organizationId],
  );
  const [fromDaily] = await query(
    `select sum(received) as received, sum(sent) as sent, sum(delivered) as delivered, sum(read) as read, sum(failed) as failed,
            sum(replied) as replied, sum(spend_cents) as spend_cents
     from message_stats_daily where organization_id = $1`,
    [organizationId],
  );
  const [fromHourly] = await query(`select sum(sent) as sent from message_stats_hourly where organization_id = $1`, [organizationId]);
  // The hourly chart's own rollup (hour and number alone).
  const [fromVolume] = await query(
    `select sum(sent) as sent, sum(delivered) as delivered, sum(read) as read from message_volume_hourly where organization_id = $1`,
    [organizationId],
  );
  const keys = Object.keys(fromMessages);
  const numbers = (row) => Object.fromEntries(keys.map((k) => [k, Number(row?.[k] ?? 0)]));
  const messages = numbers(fromMessages);
  const daily = numbers(fromDaily);
  const volume = {
    sent: Number(fromVolume?.sent ?? 0),
    delivered: Number(fromVolume?.delivered ?? 0),
    read: Number(fromVolume?.read ?? 0),
  };
  return {
    messages,
    daily,
    hourlySent: Number(fromHourly?.sent ?? 0),
    volume,
    agrees:
      keys.every((k) => messages[k] === daily[k]) &&
      Number(fromHourly?.sent ?? 0) === messages.sent &&
      ["sent", "delivered", "read"].every((k) => volume[k] === messages[k]),
  };
}

async function sizes(query, organizationId) {
  const [row] = await query(
    `select (select count(*) from messages) as messages,
            (select count(*) from message_stats_hourly where organization_id = $1) as hourly,
            (select count(*) from message_stats_daily where organization_id = $1) as daily,
            (select count(*) from message_volume_hourly where organization_id = $1) as volume,
            (select count(*) from contact_active_periods where organization_id = $1) as active_periods,
            (select count(*) from contact_first_counts where organization_id = $1) as first_counts,
            (select count(*) from message_stats_hourly) as all_hourly,
            (select count(*) from message_stats_daily) as all_daily,
            (select count(*) from contact_active_periods) as all_active_periods,
            (select count(*) from contact_first_counts) as all_first_counts,
            pg_total_relation_size('messages') as messages_bytes, pg_relation_size('messages') as messages_heap_bytes,
            pg_total_relation_size('message_stats_hourly') as hourly_bytes, pg_total_relation_size('message_stats_daily') as daily_bytes,
            pg_total_relation_size('contact_active_periods') as active_periods_bytes,
            pg_total_relation_size('contact_first_counts') as first_counts_bytes`,
    [organizationId],
  );
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

/** The Nairobi date `days` from now, YYYY-MM-DD. */
const nairobiDate = (days = 0) => new Date(Date.now() + 3 * 3_600_000 + days * DAY_MS).toISOString().slice(0, 10);

/** The periods measured: the page's query strings. */
function periodCases(number) {
  return [
    { label: "24h", query: "period=24h" },
    { label: "7d", query: "period=7d" },
    { label: "30d", query: "period=30d" },
    { label: "90d", query: "period=90d" },
    { label: "custom 365 days", query: `period=custom&from=${nairobiDate(-364)}&to=${nairobiDate(0)}` },
    { label: "90d, one number", query: `period=90d&number=${number}` },
  ];
}

/** The Overview's figures (app/.server/domains/dashboard/progress.ts), which read the same rollups. */
const OVERVIEW_CASE = { label: "Overview figures", query: "overview" };

const COMING_SOON = 'id="coming-soon-title"';

/** timePage's arguments after the URL: the cookie, the count, the options. */
const withRequests = ([cookie, options], requests) => [cookie, requests, options];

async function measurePages({ root, databaseUrl, large, small, password, requests, log }) {
  const users = { large: { email: large.email, password }, small: { email: small.email, password } };
  return withSignedInServer({ root, databaseUrl, users, log }, async ({ baseUrl, cookies, refs }) => {
    // The page is built once /analytics answers something other than the "coming soon" page.
    const probe = await fetch(`${baseUrl}/analytics?period=7d`, { headers: { Cookie: cookies.large } });
    const probeBody = await probe.text();
    const analyticsPage =
      probe.status === 200 && !probeBody.includes(COMING_SOON)
        ? "built"
        : probeBody.includes(COMING_SOON)
          ? "coming soon"
          : `answered ${probe.status}`;
    log(`  /analytics: ${analyticsPage === "built" ? "the page is built" : `not measured (${analyticsPage})`}`);
    // The public API's analytics (GET /api/v1/analytics: the same report, its cards and daily rows as JSON), with each tenant's key.
    const keys = { large: await apiKeyFor(baseUrl, cookies.large), small: await apiKeyFor(baseUrl, cookies.small) };
    const probeApi = await request(`${baseUrl}/api/v1/analytics?period=7d`, { headers: { Authorization: `Bearer ${keys.large}` } });
    const api = probeApi.status === 200 ? "built" : `answered ${probeApi.status}`;
    const pages = [];
    const forSmall = (query) => query.replace(large.numbers[0], small.numbers[0]);
    const paths = [
      ...(analyticsPage === "built"
        ? periodCases(large.numbers[0]).map((c) => ({
            label: `/analytics ${c.label}`,
            path: `/analytics?${c.query}`,
            smallPath: `/analytics?${forSmall(c.query)}`,
            kind: "html",
          }))
        : []),
      { label: "/dashboard", path: "/dashboard", smallPath: "/dashboard", kind: "html" },
      ...(api === "built"
        ? periodCases(large.numbers[0]).map((c) => ({
            label: `API ${c.label}`,
            path: `/api/v1/analytics?${c.query}`,
            smallPath: `/api/v1/analytics?${forSmall(c.query)}`,
            kind: "json",
          }))
        : []),
    ];
    for (const p of paths) {
      log(`  GET ${p.path} (${requests} times, each tenant) ...`);
      const as = (tenant) =>
        p.kind === "json"
          ? ["", { headers: { Authorization: `Bearer ${keys[tenant]}`, Accept: "application/json" } }]
          : [cookies[tenant], {}];
      const big = await timePage(`${baseUrl}${p.path}`, ...withRequests(as("large"), requests));
      const little = await timePage(`${baseUrl}${p.smallPath}`, ...withRequests(as("small"), requests));
      // bench/baseline-app at the nearest size: a page of rows of 100 bytes, or a JSON object padded to as many bytes.
      pages.push({ ...p, large: big, small: little, ...(await timeReferences(refs, p.kind, big.bytes, requests)) });
    }
    return { analyticsPage, api, requests, pages };
  });
}

export async function benchAnalytics({
  root,
  accounts,
  messages = 10_000_000,
  contacts = 200_000,
  others = 100,
  othersMessages = 1_000,
  days = 365,
  requests = 30,
  keep = false,
  log = console.log,
}) {
  const password = accounts.individual.password;
  const extraSettings = { shared_buffers: "'1GB'", maintenance_work_mem: "'1GB'", max_wal_size: "'8GB'", checkpoint_timeout: "'30min'" };
  return withPrivateCluster({ root, password, extraSettings, keep, log }, async ({ databaseUrl, postgres, client, query, prepared }) => {
    const report = { settings: { messages, contacts, others, othersMessages, days, requests }, postgresSettings: postgres.settings };
    report.migrateSeconds = prepared.migrateMs / 1000;

    log(
      `  seeding ${messages.toLocaleString("en-US")} messages for one tenant, ${othersMessages.toLocaleString("en-US")} for each of ${others} others ...`,
    );
    const seedStarted = performance.now();
    const seeded = await seed(query, { hash: prepared.hash, messages, contacts, others, othersMessages, days, log });
    report.seed = { seconds: seconds(seedStarted), timings: seeded.timings, indexesRebuilt: seeded.indexes };
    log(`  seeded in ${report.seed.seconds.toFixed(1)} s`);
    const [large, ...rest] = seeded.tenants;
    const small = rest[0] ?? null;

    // 2. The figures: backfill each tenant (small ones first), fold, ANALYZE.
    log(`  analytics_backfill(org, false) for each tenant ...`);
    await query(`set work_mem = '256MB'`);
    const backfill = { smallSeconds: 0, largeSeconds: 0 };
    let started = performance.now();
    for (const t of rest) await query(`${BENCH_SQL} select analytics_backfill($1, false)`, [t.organizationId]);
    backfill.smallSeconds = seconds(started);
    if (rest.length) log(`    ${rest.length} small tenants in ${backfill.smallSeconds.toFixed(1)} s`);
    started = performance.now();
    await query(`${BENCH_SQL} select analytics_backfill($1, false)`, [large.organizationId]);
    backfill.largeSeconds = seconds(started);
    log(`    the large tenant in ${backfill.largeSeconds.toFixed(1)} s`);
    await query(`reset work_mem`);
    report.backfill = backfill;
    log(`  foldAnalytics() until nothing is pending ...`);
    report.fold = await reportHelper(root, "fold", { databaseUrl });
    log(`    folded in ${(report.fold.ms / 1000).toFixed(1)} s`);
    started = performance.now();
    await query(`analyze`);
    report.analyzeSeconds = seconds(started);
    report.sizes = await sizes(query, large.organizationId);
    report.check = await checkRollups(query, large.organizationId);
    log(`  rollups ${report.check.agrees ? "agree with" : "DO NOT agree with"} the large tenant's messages`);

    // 3. The report in process.
    log(`  analyticsReport() in process, ${requests} calls a period ...`);
    const cases = [
      ...[...periodCases(large.numbers[0]), OVERVIEW_CASE].map((c) => ({ ...c, tenant: "large", organizationId: large.organizationId })),
      ...(small
        ? [...periodCases(small.numbers[0]), OVERVIEW_CASE].map((c) => ({ ...c, tenant: "small", organizationId: small.organizationId }))
        : []),
    ];
    report.inProcess = await reportHelper(root, "report", { databaseUrl, cases, requests, explainTenants: ["large"] });

    // 4. The pages through the production build.
    report.tenants = {
      large: { organizationId: large.organizationId, email: large.email, numbers: large.numbers, messages },
      small: small && { organizationId: small.organizationId, email: small.email, numbers: small.numbers, messages: othersMessages },
    };
    await client.end();
    if (small) report.http = await measurePages({ root, databaseUrl, large, small, password, requests, log });
    if (keep) {
      // Left running for a look at the plans (bench/run.mjs waits for Ctrl-C, then destroys it); not in the JSON.
      Object.defineProperty(report, "cluster", { value: postgres, enumerable: false });
      report.keptAt = databaseUrl;
    }
    return report;
  });
}

// ---------------------------------------------------------------------------------------------
// Report

const ms = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const int = (value) => (typeof value === "number" && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const mib = (bytes) => (typeof bytes === "number" ? `${Math.round(bytes / 2 ** 20).toLocaleString("en-US")} MiB` : "-");
const over = (value) => (typeof value === "number" && value >= GOAL_MS ? " *" : "");

export function formatAnalytics(report, { table }) {
  if (report.skipped) return `Analytics: skipped (${report.skipped})`;
  if (report.problem) return `Analytics: not measured (${report.problem})`;
  const lines = [];
  const s = report.settings;
  const t = report.seed?.timings ?? {};
  lines.push(
    `Analytics at scale (PostgreSQL, private cluster): one tenant with ${int(s.messages)} messages from ${int(s.contacts)} contacts over ${s.days} days, ${s.others} others with ${int(s.othersMessages)} each`,
  );
  if (report.seed)
    lines.push(
      `  Seed ${ms(report.seed.seconds)} s (tenants ${ms(t.tenants)}, contacts ${ms(t.contacts)}, messages ${ms(t.messagesLoad)}, ${report.seed.indexesRebuilt.length} indexes rebuilt ${ms(t.messagesIndexes)}, ANALYZE ${ms(t.analyzeMessages)}); ` +
        `backfill ${ms(report.backfill?.smallSeconds)} s for the small tenants, ${ms(report.backfill?.largeSeconds)} s for the large one; ` +
        `fold ${ms((report.fold?.ms ?? NaN) / 1000)} s (${int(report.fold?.deltas)} deltas, ${report.fold?.calls} calls of foldAnalytics()); ANALYZE ${ms(report.analyzeSeconds)} s.`,
    );
  const z = report.sizes;
  if (z)
    lines.push(
      `  messages ${int(z.messages)} rows, ${mib(z.messages_bytes)} with indexes; the large tenant's rollups: ${int(z.hourly)} hourly rows, ${int(z.daily)} daily, ${int(z.volume)} of the hourly chart's, ` +
        `${int(z.active_periods)} contact active periods, ${int(z.first_counts)} first-count rows (all tenants: ${mib(z.hourly_bytes)}, ${mib(z.daily_bytes)}, ${mib(z.active_periods_bytes)}, ${mib(z.first_counts_bytes)}).`,
    );
  const c = report.check;
  if (c)
    lines.push(
      `  Rollups against the messages: ${c.agrees ? "agree" : "DO NOT AGREE"} (sent ${int(c.messages.sent)}, delivered ${int(c.messages.delivered)}, read ${int(c.messages.read)}, ` +
        `failed ${int(c.messages.failed)}, replied ${int(c.messages.replied)}, received ${int(c.messages.received)}, spend ${int(c.messages.spend_cents / 100)} KES)` +
        (c.agrees
          ? ""
          : `; daily says ${JSON.stringify(c.daily)}, hourly sent ${int(c.hourlySent)}, the chart's ${JSON.stringify(c.volume)}`),
    );
  const p = report.inProcess;
  if (p) {
    const small = new Map(p.cases.filter((x) => x.tenant === "small").map((x) => [x.label, x]));
    lines.push(
      `\nanalyticsReport() in process (app/.server/domains/analytics/report.ts; parseAnalyticsFilters reads each query string): ${p.requests} sequential calls after ${p.warmUp} warm-up; * = ${GOAL_MS} ms or more`,
    );
    lines.push(
      table(
        [
          "period",
          "large median ms",
          "large p95 ms",
          "max ms",
          "statements",
          "sent (card)",
          "small median ms",
          "small p95 ms",
          "no-work round trips ms",
        ],
        p.cases
          .filter((x) => x.tenant === "large")
          .map((x) => [
            x.label,
            `${ms(x.medianMs)}${over(x.medianMs)}`,
            `${ms(x.p95Ms)}${over(x.p95Ms)}`,
            ms(x.maxMs),
            x.statements,
            int(x.check?.sent ?? x.check?.messagesSent),
            ms(small.get(x.label)?.medianMs),
            ms(small.get(x.label)?.p95Ms),
            ms(p.baseline.medianMs),
          ]),
      ),
    );
    lines.push(`  no-work round trips: ${p.baseline.what}; median ${ms(p.baseline.medianMs)} ms, p95 ${ms(p.baseline.p95Ms)} ms.`);
    lines.push(
      `\nThe large tenant's statements that read the rollups (and any other of 5 ms or more), each alone (${Math.min(p.requests, 15)} runs) and EXPLAIN (ANALYZE, BUFFERS) once; full plans in latest.json`,
    );
    const rows = [];
    for (const x of p.cases.filter((y) => y.tenant === "large"))
      for (const st of x.statementsAlone ?? [])
        if (HEAVY.has(statementName(st.statement)) || st.medianMs >= 5)
          rows.push([
            x.label,
            statementName(st.statement),
            ms(st.medianMs),
            ms(st.p95Ms),
            ms(st.executionMs, 2),
            ms(st.planningMs, 2),
            topNode(st.shape),
          ]);
    lines.push(table(["period", "statement", "median ms", "p95 ms", "exec ms", "plan ms", "plan"], rows));
  }
  const h = report.http;
  if (h) {
    lines.push(
      `\nPages through the production build: ${h.requests} sequential requests each after one untimed; server = Server-Timing app;dur; /analytics ${h.analyticsPage === "built" ? "is built" : `not measured: ${h.analyticsPage}`}; GET /api/v1/analytics (API key) ${h.api === "built" ? "measured" : `not measured: ${h.api}`}`,
    );
    lines.push(
      table(
        [
          "page",
          "status",
          "server median",
          "server p95",
          "client median",
          "statements",
          "bytes",
          "small server median/p95",
          "baseline-app median",
          "bare, same bytes",
        ],
        h.pages.map((x) => [
          x.label,
          x.large.status,
          `${ms(x.large.serverMedian)}${over(x.large.serverMedian)}`,
          `${ms(x.large.serverP95)}${over(x.large.serverP95)}`,
          ms(x.large.median),
          x.large.statements ?? "-",
          int(x.large.bytes),
          `${ms(x.small.serverMedian)}/${ms(x.small.serverP95)} (${x.small.status})`,
          `${ms(x.baseline.median)} (${int(x.baseline.bytes)} B)`,
          ms(x.bare, 2),
        ]),
      ),
    );
  }
  lines.push(`  Goal (issue 18): under ${GOAL_MS} ms of server time for every period. Figures, not checks.`);
  return lines.join("\n");
}

const HEAVY = new Set(["figures (hourly)", "figures (daily)", "volume chart", "unique contacts", "overview figures"]);

/** figures, volume, contacts, numbers, billing type, template names: which of the report's statements this is. */
function statementName(text) {
  if (/ as approved/.test(text)) return "overview figures";
  if (/grouping sets/.test(text)) return /message_stats_hourly/.test(text) ? "figures (hourly)" : "figures (daily)";
  if (/from message_(volume|stats)_hourly/.test(text)) return "volume chart";
  if (/from contact_first_counts/.test(text)) return "unique contacts";
  if (/whatsapp_phone_numbers/.test(text)) return "numbers";
  if (/billing_type/.test(text)) return "billing type";
  if (/message_templates/.test(text)) return "template names";
  return text.slice(0, 40);
}

/** The plan's first nodes, short. */
function topNode(shape) {
  const text = (shape ?? []).map((l) => l.trim()).join(" > ");
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
