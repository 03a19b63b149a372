// The Contacts tab at scale (issue 13, PostgreSQL only): the demo tenant with 1,000,000 contacts.
//
//   node bench/contacts-page.mjs [--count 1000000] [--requests 40]   (after `npm run build`)
//
//   - A throwaway PostgreSQL cluster (bench/lib/database.mjs, fsync off) and the built server on it
//     (bench/lib/server.mjs); the demo tenant gets `count` contacts in INSERT ... SELECT FROM
//     generate_series batches (names from 40 first and 50 family names, unique numbers, a spread of
//     tags, opt-in states, last-seen times and a county attribute), and 20,000 more for a second
//     tenant so every query must find its own; then ANALYZE.
//   - Each target is requested `requests` times one after another on one keep-alive connection,
//     signed in as the demo individual; the figure is the time to the whole answer on loopback
//     (median and 95th percentile), beside the bare server (bench/lib/bare-server.mjs) answering
//     the same number of bytes: the floor of Node's HTTP handling here.
//   - EXPLAIN (ANALYZE, BUFFERS) of the page's two statements (the page of 25, the capped count)
//     for the first page and for each search.
import { performance } from "node:perf_hooks";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import http from "node:http";
import { startPrivatePostgres, withDatabase } from "./lib/database.mjs";
import { startServer } from "./lib/server.mjs";
import { startBareServer } from "./lib/bare-server.mjs";
import { signIn } from "./lib/http.mjs";
import { FAMILY_NAMES, FIRST_NAMES } from "./lib/names.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: { count: { type: "string", default: "1000000" }, requests: { type: "string", default: "40" } },
});
const COUNT = Number(args.count);
const REQUESTS = Number(args.requests);
const DEMO = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" };

const FIRST = FIRST_NAMES;
const LAST = FAMILY_NAMES;

const TARGETS = [
  { label: "First page", path: "/messaging/contacts" },
  { label: "Search, a family name (2% of rows)", path: "/messaging/contacts?q=Wekesa" },
  { label: "Search, one full name", path: "/messaging/contacts?q=Zawadi+Wekesa+777007" },
  { label: "Search, a number as people write it", path: "/messaging/contacts?q=0700+777+007" },
  { label: "Search, no match", path: "/messaging/contacts?q=Nobodyhere" },
  { label: "Filter: tag vip", path: "/messaging/contacts?tag=vip" },
  { label: "Filter: opted in, seen in 7 days", path: "/messaging/contacts?optin=opted_in&seen=7" },
];

function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get(url, { headers, agent }, (res) => {
        let bytes = 0;
        res.on("data", (chunk) => (bytes += chunk.length));
        res.on("end", () => resolve({ status: res.statusCode, bytes, ms: performance.now() - started }));
      })
      .on("error", reject);
  });
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

async function timeTarget(url, headers) {
  for (let i = 0; i < 3; i++) await get(url, headers);
  const times = [];
  let last;
  for (let i = 0; i < REQUESTS; i++) {
    last = await get(url, headers);
    if (last.status !== 200) throw new Error(`${url} answered ${last.status}`);
    times.push(last.ms);
  }
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95), bytes: last.bytes };
}

async function seed(query, organizationId, otherId) {
  const batch = 100_000;
  const started = performance.now();
  const insert = async (org, from, to) =>
    query(
      `insert into contacts (organization_id, name, phone, wa_id, tags, attributes, opt_in, last_seen_at, created_at)
       select $1, ($4::text[])[1 + g % 40] || ' ' || ($5::text[])[1 + (g / 40) % 50] || ' ' || g,
              '+2547' || lpad(g::text, 8, '0'), '2547' || lpad(g::text, 8, '0'),
              case g % 10 when 0 then '{vip}'::text[] when 1 then '{nairobi,vip}'::text[] when 2 then '{mombasa}'::text[] when 3 then '{mteja}'::text[] else '{}'::text[] end,
              jsonb_build_object('county', (array['Nairobi','Mombasa','Kisumu','Nakuru','Eldoret'])[1 + g % 5]),
              (array['opted_in','opted_out','unknown'])[1 + g % 3],
              case when g % 4 = 0 then null else now() - ((g % 120) || ' days')::interval end,
              now() - ((${COUNT} - g) || ' seconds')::interval
       from generate_series($2::int, $3::int) g`,
      [org, from, to, FIRST, LAST],
    );
  for (let from = 1; from <= COUNT; from += batch) {
    await insert(organizationId, from, Math.min(COUNT, from + batch - 1));
    process.stdout.write(`\r  inserted ${Math.min(COUNT, from + batch - 1).toLocaleString("en")} contacts`);
  }
  await insert(otherId, COUNT + 1, COUNT + 20_000);
  await query("analyze contacts");
  console.log(`\n  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function explain(query, organizationId, search) {
  // As app/.server/domains/contacts/manage.ts's contactConditions writes a search: the number only from 3 digits.
  const byPhone = search && search.digits.length >= 3;
  const where = search
    ? `c.organization_id = $1 and (c.search_text like lower($2)${byPhone ? " or c.search_text like $3" : ""})`
    : `c.organization_id = $1`;
  const params = search ? [organizationId, `%${search.text}%`, ...(byPhone ? [`%${search.digits}%`] : [])] : [organizationId];
  const plan = async (sql, values = params) => {
    const rows = await query(`explain (analyze, buffers, format json) ${sql}`, values);
    const top = rows[0]["QUERY PLAN"][0];
    return { ms: top["Execution Time"], node: top.Plan["Node Type"], child: top.Plan.Plans?.[0]?.["Node Type"] ?? "" };
  };
  return {
    page: await plan(`select c.* from contacts c where ${where} order by c.created_at desc nulls last, c.id desc nulls last limit 51`),
    count: await plan(`select count(*) from (select 1 from contacts c where ${where} limit 10001) m`),
    // The tag filter's choices (app/.server/domains/contacts/tags.ts: the contact_tags catalog), on every page.
    tags: search ? null : await plan(`select tag from contact_tags where organization_id = $1 order by tag limit 200`, [organizationId]),
  };
}

const pg = await startPrivatePostgres();
let server;
let bare;
try {
  server = await startServer({ root, databaseUrl: pg.url });
  bare = await startBareServer();
  const cookie = await signIn(server.baseUrl, DEMO);
  const report = await withDatabase({ databaseUrl: pg.url }, async (query) => {
    const [{ organization_id: organizationId }] = await query(`select organization_id from users where email = $1`, [DEMO.email]);
    const [{ id: otherId }] = await query(`select id from organizations where id <> $1 limit 1`, [organizationId]);
    console.log(`Seeding ${COUNT.toLocaleString("en")} contacts for the demo tenant on PostgreSQL...`);
    await seed(query, organizationId, otherId);
    const rows = [];
    for (const target of TARGETS) {
      const jumbe = await timeTarget(`${server.baseUrl}${target.path}`, { cookie, accept: "text/html" });
      const floor = await timeTarget(`${bare.baseUrl}/?bytes=${jumbe.bytes}`);
      const q = new URL(target.path, "http://x").searchParams.get("q");
      const plans =
        target.path === "/messaging/contacts" || q
          ? await explain(query, organizationId, q ? { text: q, digits: q.replace(/\D/g, "").replace(/^0/, "") } : null)
          : null;
      rows.push({ ...target, jumbe, floor, plans });
      console.log(`  ${target.label}: ${jumbe.median.toFixed(1)} ms median`);
    }
    return rows;
  });
  console.log(
    `\nContacts tab, ${COUNT.toLocaleString("en")} contacts in one tenant (PostgreSQL 15, private cluster), ${REQUESTS} sequential requests each`,
  );
  console.log(
    "| Page | Jumbe median | Jumbe p95 | Bare server, same bytes (median) | Bytes | Page statement | Count statement | Tag choices statement |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const row of report) {
    const plan = (p) => (p ? `${p.ms.toFixed(1)} ms (${p.node}${p.child ? ` ← ${p.child}` : ""})` : "");
    console.log(
      `| ${row.label} (\`${row.path}\`) | ${row.jumbe.median.toFixed(1)} ms | ${row.jumbe.p95.toFixed(1)} ms | ${row.floor.median.toFixed(2)} ms | ${row.jumbe.bytes.toLocaleString("en")} | ${plan(row.plans?.page)} | ${plan(row.plans?.count)} | ${plan(row.plans?.tags)} |`,
    );
  }
} finally {
  agent.destroy();
  await bare?.stop();
  await server?.stop();
  pg.destroy();
}
