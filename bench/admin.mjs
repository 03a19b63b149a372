// The admin console at 10,000 organisations (issue 19), on a private PostgreSQL cluster:
//
//   npm run build && node bench/run.mjs --admin-only                                 (10,000 organisations; about 10 minutes)
//   node bench/run.mjs --admin-only --admin-organizations 500 --admin-requests 10     (a smoke run, under a minute)
//   node bench/run.mjs --admin-only --admin-keep                                      (then the cluster stays, for EXPLAIN by hand)
//
// 1. Seed, straight in SQL (generate_series): `organizations` organisations over the last two
//    years (names from Kenyan towns and trades; 3% pending, 2% suspended, 5% with template review),
//    each with an owner and two members (names, e-mail addresses, phone numbers), a plan and billing
//    type, a wallet with a year of ledger entries (a top-up and a charge a month, running balances),
//    a year of monthly subscription invoices (the current month's pending, the rest paid, some overdue)
//    with their M-Pesa payments, an open dispute on 1% of them; 90% have a WhatsApp account with one
//    or two numbers and five templates (2% held for review); five contacts and `messages` messages a
//    year, twice a month at the tenant's own hour (35% inbound; outbound templates delivered and
//    mostly read, 3% failed). The messages load with the triggers off (as bench/analytics.mjs loads
//    them); analytics_backfill(null, false) (drizzle/0031_analytics.sql) then foldAnalytics() build
//    the rollups (message_stats_daily and the rest) as a live database would have them; then failed
//    jobs, open health alerts and administrator actions in the audit log, and ANALYZE.
// 2. The production build on the cluster, signed in as a platform administrator of its own: each
//    tab's first page (/admin, /admin/users, /admin/billing, /admin/whatsapp, /admin/system,
//    /admin/templates, /admin/audit), /admin/notifications and the header's search (a name, a phone
//    number, an invoice number's part), `requests` sequential requests each after one untimed: the
//    server's own time (Server-Timing app;dur) median and p95 and the time seen here; beside
//    bench/baseline-app at the nearest size and the bare node:http server sending as many bytes,
//    measured in the same run. A tab not built yet answers its stub, fast: the rows say what answered.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { FAMILY_NAMES, FIRST_NAMES } from "./lib/names.mjs";
import { timePage } from "./lib/page-timing.mjs";
import { reportHelper, timeReferences, withPrivateCluster, withSignedInServer } from "./lib/scale-run.mjs";

const BENCH_SQL = "/* bench:admin */";
export const GOAL_MS = 200;

const TOWNS =
  "Nairobi Mombasa Kisumu Nakuru Eldoret Thika Nyeri Machakos Meru Embu Kitale Malindi Garissa Kericho Naivasha Nanyuki Kakamega Bungoma Kitui Voi Lamu Narok Isiolo Muranga Kiambu Kajiado Homa-Bay Migori Kisii Bomet".split(
    " ",
  );
const TRADES = [
  "Savings Sacco",
  "Traders Ltd",
  "Hardware",
  "Pharmacy",
  "Dairy Cooperative",
  "Motors",
  "Agrovet",
  "Supermarket",
  "Academy",
  "Women's Chama",
  "Bodaboda Group",
  "Fresh Produce",
  "Logistics",
  "Medical Clinic",
  "Bakery",
  "Electronics",
  "Tea Growers",
  "Fish Traders",
  "Water Services",
  "Investment Group",
];
const TEMPLATE_NAMES = ["payment_reminder", "order_confirmation", "monthly_offer", "verification_code", "account_statement_ready"];
const PLANS = ["Starter", "Growth", "Enterprise"];

const seconds = (started) => (performance.now() - started) / 1000;

async function seed(query, { hash, organizations, messages, log }) {
  const timings = {};
  const step = async (name, work) => {
    const started = performance.now();
    await work();
    timings[name] = seconds(started);
    log(`    ${name} in ${timings[name].toFixed(1)} s`);
  };
  const tag = randomBytes(3).toString("hex");
  const admin = { email: `admin-bench-${tag}@jumbe.demo` };

  await step("administrator", async () => {
    const [org] = await query(
      `${BENCH_SQL} insert into organizations (name, business_id, status, plan_type, created_at)
       values ('Jumbe Platform (bench)', $1, 'active', 'Enterprise', now() - interval '800 days') returning id`,
      [`BENCH-ADMIN-${tag}`],
    );
    await query(
      `insert into users (organization_id, email, first_name, last_name, phone_number, usertype, password_hash, is_verified, org_role)
       values ($1, $2, 'Wanjiru', 'Kamau', '+254711000009', 'admin', $3, true, 'owner')`,
      [org.id, admin.email, hash],
    );
  });

  // Each organisation's number g, id and (when it has WhatsApp) its account, numbers and WABA.
  await step("organizations", async () => {
    await query(
      `create temporary table bench_orgs as
       select g, gen_random_uuid() as id, random() as r_status, random() as r_plan, random() as r_wa, random() as r_age
       from generate_series(1, $1::int) g`,
      [organizations],
    );
    await query(`create unique index on bench_orgs (g)`);
    await query(
      `${BENCH_SQL} insert into organizations (id, name, business_id, status, plan_type, billing_type, message_limit, created_at, updated_at,
                                               suspended_at, suspension_reason, template_review, county)
       select o.id,
              ($1::text[])[1 + o.g % array_length($1::text[], 1)] || ' ' || ($2::text[])[1 + (o.g / array_length($1::text[], 1)) % array_length($2::text[], 1)]
                || case when o.g > array_length($1::text[], 1) * array_length($2::text[], 1) then ' ' || (o.g / (array_length($1::text[], 1) * array_length($2::text[], 1)) + 1) else '' end,
              'JMB-' || $3 || '-' || lpad(o.g::text, 6, '0'),
              case when o.r_status < 0.03 then 'pending' when o.r_status < 0.05 then 'suspended' else 'active' end,
              ($4::text[])[1 + floor(o.r_plan * o.r_plan * 3)::int],
              case when o.g % 3 = 0 then 'postpaid' else 'prepaid' end,
              (array[1000, 10000, 100000])[1 + floor(o.r_plan * o.r_plan * 3)::int],
              now() - interval '730 days' * o.r_age, now() - interval '30 days' * o.r_age,
              case when o.r_status >= 0.03 and o.r_status < 0.05 then now() - interval '10 days' * o.r_age end,
              case when o.r_status >= 0.03 and o.r_status < 0.05 then 'Unpaid invoices for three months' end,
              o.g % 20 = 0,
              ($1::text[])[1 + o.g % array_length($1::text[], 1)]
       from bench_orgs o`,
      [TOWNS, TRADES, tag.toUpperCase(), PLANS],
    );
  });

  await step("users", async () => {
    await query(
      `${BENCH_SQL} insert into users (organization_id, email, first_name, last_name, phone_number, password_hash, is_verified, org_role,
                                       created_at, last_login_at)
       select o.id, lower(f.first || '.' || f.family) || o.g || '-' || i || '@bench-' || $3 || '.co.ke', f.first, f.family,
              '+2547' || lpad(((o.g * 3 + i) % 100000000)::text, 8, '0'), $4, true,
              (array['owner', 'admin', 'agent'])[i], now() - interval '700 days' * o.r_age, now() - interval '1 day' * i * random() * 30
       from bench_orgs o
       cross join generate_series(1, 3) i
       cross join lateral (select ($1::text[])[1 + (o.g * 7 + i * 13) % array_length($1::text[], 1)] as first,
                                  ($2::text[])[1 + (o.g * 11 + i * 5) % array_length($2::text[], 1)] as family) f`,
      [FIRST_NAMES, FAMILY_NAMES, tag, hash],
    );
  });

  // A year, month 0 the current one: the subscription invoice of each month, paid by M-Pesa but the current one.
  await step("invoices", async () => {
    await query(
      `${BENCH_SQL} insert into invoices (id, organization_id, number, series, kind, status, issued_at, due_at, paid_at, period_start, period_end,
                                          description, plan_type, billing_type, net_cents, vat_cents, total_cents, prices_include_vat,
                                          seller, buyer, lines, payment_method, payment_reference, reminders)
       select gen_random_uuid(), o.id,
              'INV-' || extract(year from p.start)::int || '-' || lpad((row_number() over (order by p.start, o.g))::text, 7, '0'),
              'INV', 'subscription',
              case when m = 0 then 'pending' when m = 1 and o.g % 33 = 0 then 'overdue' else 'paid' end,
              p.start, p.start + interval '14 days',
              case when m = 0 or (m = 1 and o.g % 33 = 0) then null else p.start + interval '2 days' end,
              p.start::date, (p.start + interval '1 month' - interval '1 day')::date,
              'Subscription, ' || to_char(p.start, 'FMMonth YYYY'), 'Growth', 'prepaid', 431034, 68966, 500000, true,
              '{"name": "Jumbe Technologies Ltd"}', jsonb_build_object('organization', o.g), '[]',
              case when m = 0 or (m = 1 and o.g % 33 = 0) then null else 'mpesa' end,
              case when m = 0 or (m = 1 and o.g % 33 = 0) then null else 'S' || upper($1) || o.g || 'M' || m end,
              case when m = 1 and o.g % 33 = 0 then 2 else 0 end
       from bench_orgs o
       cross join generate_series(0, 11) m
       cross join lateral (select date_trunc('month', now()) - interval '1 month' * m as start) p`,
      [tag],
    );
    await query(
      `${BENCH_SQL} insert into payments (organization_id, method, status, amount_cents, invoice_id, phone, receipt, created_at, completed_at)
       select i.organization_id, 'mpesa', 'completed', i.total_cents, i.id, '2547' || lpad((abs(hashtext(i.number)) % 100000000)::text, 8, '0'),
              i.payment_reference, i.paid_at - interval '1 minute', i.paid_at
       from invoices i join bench_orgs o on o.id = i.organization_id
       where i.status = 'paid'`,
    );
    await query(`update invoices i set payment_id = p.id from payments p where p.invoice_id = i.id and i.payment_id is null`);
    // 1% of organisations dispute their latest paid invoice.
    await query(
      `${BENCH_SQL} with chosen as (
         select distinct on (i.organization_id) i.id, i.organization_id, i.issued_at from invoices i join bench_orgs o on o.id = i.organization_id
         where o.g % 100 = 7 and i.status = 'paid' order by i.organization_id, i.issued_at desc)
       insert into invoice_disputes (organization_id, invoice_id, reason, previous_status, created_at)
       select organization_id, id, 'We were charged for the Growth plan but moved to Starter last month.', 'paid',
              now() - interval '20 days' * random() from chosen`,
    );
    await query(`update invoices set status = 'disputed' where id in (select invoice_id from invoice_disputes where status = 'open')`);
    // Reminded as a live platform would have reminded them when they fell due (billing/cycle.ts):
    // otherwise the server's first billing cycle mails every tenant at once during the measurement.
    await query(
      `${BENCH_SQL} update invoices set status = 'overdue', reminders = 1, last_reminder_at = now() - interval '1 day'
       where status in ('pending', 'overdue') and due_at < now()`,
    );
  });

  // A top-up at the start of each month and the month's message charges in the middle, with running balances.
  await step("wallets", async () => {
    await query(
      `${BENCH_SQL} insert into wallet_entries (organization_id, kind, amount_cents, balance_after_cents, held_after_cents, message_count,
                                                receipt, description, created_at)
       select o.id, e.kind, e.amount, e.after, 0, e.messages, e.receipt, e.description, e.at
       from bench_orgs o
       cross join generate_series(0, 11) m
       cross join lateral (values
         ('topup', 600000, (12 - m) * 600000 - (11 - m) * 450000, null::int, 'T' || upper($1) || o.g || 'M' || m, 'M-Pesa top-up',
          date_trunc('month', now()) - interval '1 month' * m + interval '1 hour'),
         ('charge', -450000, (12 - m) * 150000, 2250, null, 'Messages sent',
          date_trunc('month', now()) - interval '1 month' * m + interval '14 days')) as e(kind, amount, after, messages, receipt, description, at)
       where e.at < now()
       order by o.g, e.at`,
      [tag],
    );
    await query(
      `${BENCH_SQL} insert into wallets (organization_id, balance_cents, low_balance_threshold_cents)
       select o.id, coalesce((select w.balance_after_cents from wallet_entries w where w.organization_id = o.id order by w.id desc limit 1), 0),
              case when o.g % 4 = 0 then 100000 end
       from bench_orgs o
       on conflict (organization_id) do update
         set balance_cents = excluded.balance_cents, low_balance_threshold_cents = excluded.low_balance_threshold_cents`,
    );
  });

  await step("whatsapp", async () => {
    await query(`alter table bench_orgs add column account_id uuid, add column waba text, add column number text`);
    await query(
      `update bench_orgs set account_id = gen_random_uuid(), waba = '1' || $1::int || lpad(g::text, 8, '0'),
                             number = '2' || $1::int || lpad(g::text, 8, '0') where r_wa < 0.9`,
      [parseInt(tag.slice(0, 4), 16) % 1000],
    );
    await query(
      `${BENCH_SQL} insert into whatsapp_accounts (id, organization_id, waba_id, name, status, access_token_encrypted, subscribed, connected_at)
       select o.account_id, o.id, o.waba, org.name, case when o.g % 50 = 0 then 'disconnected' else 'connected' end, 'v1.bench.bench.bench', true,
              org.created_at + interval '3 days'
       from bench_orgs o join organizations org on org.id = o.id where o.account_id is not null`,
    );
    await query(
      `${BENCH_SQL} insert into whatsapp_phone_numbers (organization_id, account_id, phone_number_id, display_phone_number, phone_digits,
                                                        verified_name, quality_rating, status, platform_type, messaging_limit, registered_at)
       select o.id, o.account_id, o.number || n, '+254 7' || lpad((o.g % 100)::text, 2, '0') || ' ' || lpad((o.g / 100 % 1000)::text, 3, '0') || ' ' || n || lpad((o.g % 100)::text, 2, '0'),
              '2547' || lpad((o.g % 100)::text, 2, '0') || lpad((o.g / 100 % 1000)::text, 3, '0') || n || lpad((o.g % 100)::text, 2, '0'),
              org.name, (array['GREEN', 'GREEN', 'GREEN', 'YELLOW', 'RED'])[1 + o.g % 5], 'CONNECTED', 'CLOUD_API', 'TIER_1K', org.created_at + interval '3 days'
       from bench_orgs o join organizations org on org.id = o.id
       cross join generate_series(1, 2) n
       where o.account_id is not null and (n = 1 or o.g % 4 = 0)`,
    );
    await query(
      `${BENCH_SQL} insert into message_templates (organization_id, account_id, waba_id, meta_template_id, name, language, category, status, components,
                                                   source, submitted_at, created_at)
       select o.id, o.account_id, o.waba, case when o.g % 50 <> 1 or t.i <> 5 then o.waba || '-' || t.i end, t.name, 'en',
              (array['UTILITY', 'UTILITY', 'MARKETING', 'AUTHENTICATION', 'UTILITY'])[t.i],
              case when o.g % 50 = 1 and t.i = 5 then 'held' when t.i = 3 and o.g % 10 = 0 then 'rejected' else 'approved' end,
              jsonb_build_array(jsonb_build_object('type', 'BODY', 'text', 'Habari {{1}}, your ' || replace(t.name, '_', ' ') || ' is here.')),
              'jumbe', now() - interval '300 days' * o.r_age, now() - interval '300 days' * o.r_age
       from bench_orgs o cross join unnest($1::text[]) with ordinality as t(name, i)
       where o.account_id is not null`,
      [TEMPLATE_NAMES],
    );
  });

  // Five contacts each and a year of messages, in slices of organisations; the analytics trigger records them.
  await step("messages", async () => {
    await query(
      `${BENCH_SQL} insert into contacts (organization_id, name, phone, wa_id, opt_in, created_at)
       select o.id, ($1::text[])[1 + (o.g + k) % array_length($1::text[], 1)] || ' ' || ($2::text[])[1 + (o.g * 3 + k) % array_length($2::text[], 1)],
              '+2541' || lpad((o.g * 5 + k)::text, 8, '0'), '2541' || lpad((o.g * 5 + k)::text, 8, '0'), 'opted_in', now() - interval '400 days'
       from bench_orgs o cross join generate_series(1, 5) k where o.account_id is not null`,
      [FIRST_NAMES, FAMILY_NAMES],
    );
    if (!messages) return;
    // The trigger off while loading (as bench/analytics.mjs loads); analytics_backfill builds the figures after.
    await query(`set session_replication_role = replica`);
    const slice = Math.max(1, Math.floor(200_000 / messages));
    for (let from = 1; from <= organizations; from += slice) {
      await query(
        `${BENCH_SQL} insert into messages (organization_id, contact_id, direction, status, body, wamid, phone_number_id, message_type, sent_at,
                                            created_at, source, recipient_phone, accepted_at, delivered_at, read_at, failed_at, error_code,
                                            pricing_category, pricing_type, billable, price_cents, charge_state)
         select o.id, c.id, s.direction,
                case when s.direction = 'inbound' then 'received' when s.r < 0.03 then 'failed' when s.r < 0.3 then 'delivered' else 'read' end,
                case when s.direction = 'inbound' then 'Asante, nimepokea' else 'Habari, your payment reminder is here.' end,
                'wamid.AD' || $4 || '.' || o.g || '.' || s.m, o.number || '1',
                case when s.direction = 'inbound' then 'text' else 'template' end,
                s.t, s.t, case when s.direction = 'outbound' then 'campaign' end, case when s.direction = 'outbound' then c.phone end,
                case when s.direction = 'outbound' then s.t end,
                case when s.direction = 'outbound' and s.r >= 0.03 then s.t + interval '5 seconds' end,
                case when s.direction = 'outbound' and s.r >= 0.3 then s.t + interval '10 minutes' end,
                case when s.direction = 'outbound' and s.r < 0.03 then s.t + interval '8 seconds' end,
                case when s.direction = 'outbound' and s.r < 0.03 then 131026 end,
                case when s.direction = 'outbound' then 'utility' end, case when s.direction = 'outbound' then 'regular' end,
                case when s.direction = 'outbound' then true end, case when s.direction = 'outbound' then 80 end,
                case when s.direction = 'outbound' then case when s.r < 0.03 then 'refunded' else 'charged' end end
         from bench_orgs o
         cross join lateral (select m, random() as r, case when random() < 0.35 then 'inbound' else 'outbound' end as direction,
                                    -- twice a month, at the tenant's own hour: campaigns and their replies
                                    date_trunc('day', now()) - interval '1 day' * (1 + 15 * floor(random() * 24) + o.g % 15) + interval '1 hour' * (6 + o.g % 10) + interval '1 minute' * floor(random() * 50) as t
                             from generate_series(1, $3::int) m) s
         join contacts c on c.organization_id = o.id and c.phone = '+2541' || lpad((o.g * 5 + 1 + s.m % 5)::text, 8, '0')
         where o.g between $1 and $2 and o.account_id is not null`,
        [from, Math.min(organizations, from + slice - 1), messages, tag],
      );
    }
    await query(`set session_replication_role = origin`);
  });
  // Every organisation's figures from its messages in one pass (drizzle/0031_analytics.sql), into the pending deltas the fold adds up.
  if (messages) await step("analytics_backfill", () => query(`${BENCH_SQL} select analytics_backfill(null, false)`));
  // Two activity records a month for each tenant over the year (a sign-in, a campaign, a template,
  // a top-up), and the platform's own organisation's 500 most recent ones on top, which the
  // Overview's "recent activity across tenants" must skip.
  await step("activity", async () => {
    await query(
      `${BENCH_SQL} insert into activity_logs (organization_id, type, status, action, details, ip_address, created_at)
       select o.id, k.type, k.status, k.action, k.details, '197.248.' || (o.g % 250) || '.' || (m.x % 250),
              now() - interval '1 day' * (m.x * 15 + o.g % 15) - interval '1 minute' * (o.g % 1440)
       from bench_orgs o cross join generate_series(0, 23) m(x)
       cross join lateral (select * from (values
         ('auth', 'success', 'Signed in', 'From a browser in Nairobi'),
         ('campaign', 'success', 'Campaign sent', 'Monthly offer to 1,200 contacts'),
         ('template', 'info', 'Template submitted', 'payment_reminder (English)'),
         ('billing', 'success', 'Wallet topped up', 'KES 5,000 by M-Pesa')) v(type, status, action, details)
         offset (o.g + m.x) % 4 limit 1) k`,
    );
    await query(
      `${BENCH_SQL} insert into activity_logs (organization_id, type, status, action, details, created_at)
       select (select organization_id from users where email = $1), 'admin', 'info', 'Console action', 'A platform administrator''s own record',
              now() - interval '1 second' * g
       from generate_series(1, 500) g`,
      [admin.email],
    );
  });

  await step("platform", async () => {
    await query(
      `${BENCH_SQL} insert into jobs (queue, payload, attempts, failed_at, last_error, created_at)
       select (array['mail', 'webhooks', 'templates', 'billing'])[1 + g % 4], '{}', 5, now() - interval '1 hour' * g, 'Gave up after 5 attempts: ECONNREFUSED',
              now() - interval '1 hour' * g - interval '10 minutes'
       from generate_series(1, 25) g`,
    );
    await query(
      `${BENCH_SQL} insert into system_alerts (rule, key, level, title, details, opened_at)
       values ('queue_lag', 'webhooks', 'warning', 'Webhook queue lag over 2 minutes', 'The oldest job has waited 3 minutes', now() - interval '20 minutes'),
              ('error_rate', '', 'error', 'Error rate over 2%', '2.4% of requests failed in the last 5 minutes', now() - interval '5 minutes')`,
    );
    await query(
      `${BENCH_SQL} insert into admin_audit_log (admin_id, admin_email, action, organization_id, target_type, target_id, reason, ip_address, user_agent, created_at)
       select (select id from users where email = $1), $1, (array['organization.suspend', 'wallet.adjust', 'invoice.reconcile', 'template.approve'])[1 + n.x % 4],
              o.id, 'organization', o.id::text, 'Checked with the customer by phone', '197.248.10.' || (n.x % 250), 'Mozilla/5.0', now() - interval '1 hour' * n.x
       from generate_series(1, 5000) n(x) join bench_orgs o on o.g = 1 + (n.x * 7) % $2::int`,
      [admin.email, organizations],
    );
  });
  const [sample] = await query(
    `select org.name, u.phone_number, i.number from bench_orgs o join organizations org on org.id = o.id
     join users u on u.organization_id = o.id and u.org_role = 'owner'
     join invoices i on i.organization_id = o.id
     where o.g = greatest(1, $1::int / 2) order by i.issued_at desc limit 1`,
    [organizations],
  );
  await query(`drop table bench_orgs`);
  return { tag, admin, timings, sample };
}

async function counts(query) {
  const [row] = await query(
    `select (select count(*) from organizations) as organizations, (select count(*) from users) as users,
            (select count(*) from invoices) as invoices, (select count(*) from payments) as payments,
            (select count(*) from wallet_entries) as wallet_entries, (select count(*) from invoice_disputes) as disputes,
            (select count(*) from whatsapp_accounts) as whatsapp_accounts, (select count(*) from whatsapp_phone_numbers) as numbers,
            (select count(*) from message_templates) as templates, (select count(*) from message_templates where status = 'held') as held,
            (select count(*) from messages) as messages, (select count(*) from message_stats_daily) as daily_rows,
            (select count(*) from admin_audit_log) as audit, (select count(*) from activity_logs) as activity`,
  );
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

/** The pages measured: each tab's first page, the notifications, and the header's search. */
function pageCases(sample) {
  const words = sample.name.split(" ");
  const searchWords = `${words[0]} ${words[1] ?? ""}`.trim();
  const phone = `0${sample.phone_number.slice(4, 7)} ${sample.phone_number.slice(7, 10)}`;
  const invoicePart = sample.number.slice(4, 13);
  return [
    { label: "/admin (Overview)", path: "/admin" },
    { label: "/admin/users", path: "/admin/users" },
    { label: "/admin/billing", path: "/admin/billing" },
    { label: "/admin/whatsapp", path: "/admin/whatsapp" },
    { label: "/admin/system", path: "/admin/system" },
    { label: "/admin/templates", path: "/admin/templates" },
    { label: "/admin/audit", path: "/admin/audit" },
    { label: "/admin/notifications", path: "/admin/notifications" },
    { label: `search "${searchWords}"`, path: `/admin/search?q=${encodeURIComponent(searchWords)}` },
    { label: `search "${phone}"`, path: `/admin/search?q=${encodeURIComponent(phone)}` },
    { label: `search "${invoicePart}"`, path: `/admin/search?q=${encodeURIComponent(invoicePart)}` },
    { label: 'search "wanjiru"', path: "/admin/search?q=wanjiru" },
  ];
}

/** "built", or what a stub says: the issue's "built by this issue's work in progress" stubs answer a bare heading. */
function pageState(status, body) {
  if (status !== 200) return `answered ${status}`;
  return body.includes("built by this issue") || /<main[^>]*>\s*<h1[^>]*>[^<]*<\/h1>\s*<\/main>/.test(body) ? "stub" : "page";
}

async function measurePages({ root, databaseUrl, admin, password, sample, requests, log }) {
  const users = { admin: { email: admin.email, password } };
  return withSignedInServer({ root, databaseUrl, users, log }, async ({ baseUrl, cookies, refs }) => {
    const pages = [];
    for (const p of pageCases(sample)) {
      log(`  GET ${p.path} (${requests} times) ...`);
      const probe = await fetch(`${baseUrl}${p.path}`, { headers: { Cookie: cookies.admin, Accept: "text/html" }, redirect: "manual" });
      const state = pageState(probe.status, await probe.text());
      const timed = await timePage(`${baseUrl}${p.path}`, cookies.admin, requests);
      pages.push({ ...p, state, jumbe: timed, ...(await timeReferences(refs, "html", timed.bytes, requests)) });
    }
    return { requests, pages };
  });
}

export async function benchAdmin({
  root,
  accounts,
  organizations = 10_000,
  messages = 60,
  requests = 30,
  keep = false,
  log = console.log,
}) {
  const password = accounts.admin.password;
  const extraSettings = { shared_buffers: "'512MB'", maintenance_work_mem: "'512MB'", max_wal_size: "'4GB'" };
  return withPrivateCluster({ root, password, extraSettings, keep, log }, async ({ databaseUrl, postgres, client, query, prepared }) => {
    const report = { settings: { organizations, messages, requests }, postgresSettings: postgres.settings };
    report.migrateSeconds = prepared.migrateMs / 1000;

    log(`  seeding ${organizations.toLocaleString("en-US")} organisations, ${messages} messages a year each ...`);
    const started = performance.now();
    const seeded = await seed(query, { hash: prepared.hash, organizations, messages, log });
    report.seed = { seconds: seconds(started), timings: seeded.timings };
    log(`  foldAnalytics() until nothing is pending ...`);
    report.fold = await reportHelper(root, "fold", { databaseUrl });
    const analyzeStarted = performance.now();
    await query(`analyze`);
    report.analyzeSeconds = seconds(analyzeStarted);
    report.counts = await counts(query);
    log(
      `  seeded in ${report.seed.seconds.toFixed(1)} s, folded in ${(report.fold.ms / 1000).toFixed(1)} s: ${JSON.stringify(report.counts)}`,
    );
    await client.end();
    report.sample = seeded.sample;
    report.http = await measurePages({ root, databaseUrl, admin: seeded.admin, password, sample: seeded.sample, requests, log });
    // --admin-keep: left running for a look at the plans (bench/run.mjs waits for Ctrl-C, then destroys it); not in the JSON.
    if (keep) report.keptAt = databaseUrl;
    return report;
  });
}

// ---------------------------------------------------------------------------------------------
// Report

const ms = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const int = (value) => (typeof value === "number" && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const over = (value) => (typeof value === "number" && value >= GOAL_MS ? " *" : "");

export function formatAdmin(report, { table }) {
  if (report.skipped) return `Admin console: skipped (${report.skipped})`;
  if (report.problem) return `Admin console: not measured (${report.problem})`;
  const lines = [];
  const s = report.settings;
  const c = report.counts ?? {};
  lines.push(
    `Admin console at scale (PostgreSQL, private cluster): ${int(c.organizations)} organisations, ${int(c.users)} users, ${int(c.invoices)} invoices, ` +
      `${int(c.payments)} payments, ${int(c.wallet_entries)} ledger entries, ${int(c.disputes)} disputes, ${int(c.whatsapp_accounts)} WhatsApp accounts with ` +
      `${int(c.numbers)} numbers, ${int(c.templates)} templates (${int(c.held)} held), ${int(c.messages)} messages (${s.messages} a tenant over a year; ` +
      `${int(c.daily_rows)} message_stats_daily rows), ${int(c.activity)} activity records, ${int(c.audit)} audit records`,
  );
  if (report.seed) {
    const t = report.seed.timings;
    lines.push(
      `  Seed ${ms(report.seed.seconds)} s (${Object.entries(t)
        .map(([k, v]) => `${k} ${ms(v)}`)
        .join(", ")}); fold ${ms((report.fold?.ms ?? NaN) / 1000)} s; ANALYZE ${ms(report.analyzeSeconds)} s.`,
    );
  }
  const h = report.http;
  if (h) {
    lines.push(
      `\nPages through the production build, signed in as a platform administrator: ${h.requests} sequential requests each after one untimed; ` +
        `server = Server-Timing app;dur; * = ${GOAL_MS} ms or more; "stub" = the tab is not built on this commit`,
    );
    lines.push(
      table(
        [
          "page",
          "status",
          "answers",
          "server median",
          "server p95",
          "client median",
          "statements",
          "bytes",
          "baseline-app median",
          "bare, same bytes",
        ],
        h.pages.map((x) => [
          x.label,
          x.jumbe.status,
          x.state,
          `${ms(x.jumbe.serverMedian)}${over(x.jumbe.serverMedian)}`,
          `${ms(x.jumbe.serverP95)}${over(x.jumbe.serverP95)}`,
          ms(x.jumbe.median),
          x.jumbe.statements ?? "-",
          int(x.jumbe.bytes),
          `${ms(x.baseline.median)} (${int(x.baseline.bytes)} B)`,
          ms(x.bare, 2),
        ]),
      ),
    );
  }
  lines.push(`  Goal (issue 19): under ${GOAL_MS} ms of server time for each tab's first page and the search. Figures, not checks.`);
  return lines.join("\n");
}
