// Message templates at scale (PostgreSQL only): the Templates pages for a tenant with 5,000
// templates, beside the same run's baselines (issue 11).
//
//   - 5,000 templates for the demo individual's organisation and as many for the demo admin's
//     ("Jumbe Platform"), so every query must find its tenant's among 10,000: one
//     INSERT ... SELECT FROM generate_series per tenant (a spread of statuses, the three categories,
//     English, Swahili and French, names from a few dozen words, created over 18 months, oldest
//     first; submitted ones carry a WABA, Meta's id and a submission time), then ANALYZE.
//   - Under load (autocannon, bench/pages.mjs's measureLoad), each beside bench/baseline-app at the
//     nearest size and the bare server at the same bytes: /templates; a deep page reached by
//     following the page's own "Older" link; a status filter; a language and type filter; a name
//     search; the view dialog (?dialog=view&template=<id>); /preview?template=<id>; and
//     GET /api/v1/templates with the tenant's API key. With --private-postgres the cluster's CPU
//     per request is counted.
//   - EXPLAIN (ANALYZE, BUFFERS) of the statements those pages send (app/.server/domains/templates/queries.ts,
//     app/.server/adapters/api-v1/templates.ts): node types, rows, time, the rows each plan read.
//   - Afterwards the inserted templates are deleted again.
import { performance } from "node:perf_hooks";
import { measureBesideBaselines, probe, startBaselines } from "./pages.mjs";

// ---------------------------------------------------------------------------------------------
// Generated templates

// Shares in percent; each list sums to 100.
const STATUS_MIX = [
  ["approved", 55],
  ["draft", 15],
  ["rejected", 12],
  ["pending", 8],
  ["paused", 6],
  ["disabled", 4],
];
const CATEGORY_MIX = [
  ["UTILITY", 50],
  ["MARKETING", 35],
  ["AUTHENTICATION", 15],
];
const LANGUAGE_MIX = [
  ["en", 50],
  ["sw", 35],
  ["fr", 15],
];
// Names are <topic>_<kind>_<n>: lowercase, digits and underscores, as Meta requires; `n` keeps
// them unique per language. "dividend" is one topic in twenty: the name search finds about 5%.
const TOPICS = [
  "loan",
  "repayment",
  "dividend",
  "welcome",
  "order",
  "delivery",
  "appointment",
  "meeting",
  "harambee",
  "chama",
  "school_fees",
  "insurance",
  "airtime",
  "statement",
  "invoice",
  "promo",
  "survey",
  "account",
  "mpesa",
  "agm",
];
const KINDS = ["reminder", "update", "confirmation", "notice", "alert", "receipt", "offer", "invite", "summary", "code"];
const REJECTIONS = ["INVALID_FORMAT", "TAG_CONTENT_MISMATCH", "PROMOTIONAL", "ABUSIVE_CONTENT"];
export const SEARCH_WORD = "dividend";

/** Meta's components for a category and language, as app/lib/templates.ts's toMetaComponents writes them. */
function componentsFor(category, language) {
  if (category === "AUTHENTICATION")
    return [
      { type: "BODY", add_security_recommendation: true },
      { type: "FOOTER", code_expiration_minutes: 10 },
      { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] },
    ];
  const text = {
    en: "Hello {{1}}, your payment of KES {{2}} to Nyota Sacco is due on {{3}}. Pay via M-Pesa Paybill 522522.",
    sw: "Habari {{1}}, malipo yako ya KES {{2}} kwa Nyota Sacco yanadaiwa tarehe {{3}}. Lipa kwa M-Pesa Paybill 522522.",
    fr: "Bonjour {{1}}, votre paiement de KES {{2}} à Nyota Sacco est dû le {{3}}. Payez par M-Pesa Paybill 522522.",
  }[language];
  const components = [
    { type: "HEADER", format: "TEXT", text: language === "sw" ? "Kumbukumbu" : language === "fr" ? "Rappel" : "Reminder" },
    { type: "BODY", text, example: { body_text: [["Wanjikũ", "4,500", "15 December 2026"]] } },
    { type: "FOOTER", text: "Nyota Sacco" },
  ];
  if (category === "MARKETING")
    components.push({
      type: "BUTTONS",
      buttons: [
        { type: "QUICK_REPLY", text: language === "sw" ? "Ndiyo" : language === "fr" ? "Oui" : "Yes" },
        { type: "URL", text: "Learn more", url: "https://nyota.co.ke/offers" },
      ],
    });
  return components;
}

/** A CASE picking a value by cumulative percentage of the uniform number `r`. */
function weighted(r, mix, literal) {
  let total = 0;
  const arms = mix.slice(0, -1).map(([value, share]) => `when ${r} < ${(total += share) / 100} then ${literal(value)}`);
  return `case ${arms.join(" ")} else ${literal(mix.at(-1)[0])} end`;
}

/**
 * INSERT ... SELECT from generate_series($4): organisation $1, creator $2, created_at spread evenly
 * over the $3 days before now (jitter inside each slot, oldest first), Meta ids from $5 up. The
 * random numbers come from a subquery, so each is drawn once per row.
 */
export function insertSql(literal) {
  const array = (values) => `array[${values.map(literal).join(", ")}]`;
  const pick = (values, r) => `(${array(values)})[1 + floor(${r} * ${values.length})::int]`;
  const components = `case category || '/' || language ${CATEGORY_MIX.flatMap(([category]) =>
    LANGUAGE_MIX.map(
      ([language]) =>
        `when ${literal(`${category}/${language}`)} then ${literal(JSON.stringify(componentsFor(category, language)))}::jsonb`,
    ),
  ).join(" ")} end`;
  return `
insert into message_templates (organization_id, account_id, waba_id, meta_template_id, name, language, category, status, components,
                               rejection_reason, quality_score, source, created_by, submitted_at, created_at, updated_at)
select $1::uuid, null, case when status = 'draft' then null else '109000000000042' end,
       case when status = 'draft' then null else ($5::bigint + i)::text end,
       ${pick(TOPICS, "r_topic")} || '_' || ${pick(KINDS, "r_kind")} || '_' || i, language, category, status, ${components},
       case when status = 'rejected' then ${pick(REJECTIONS, "r_kind")} end,
       case when status = 'approved' then (case when r_topic < 0.85 then 'GREEN' when r_topic < 0.95 then 'YELLOW' else 'RED' end) end,
       case when status <> 'draft' and r_source < 0.1 then 'meta' else 'jumbe' end,
       case when status <> 'draft' and r_source < 0.1 then null else $2::uuid end,
       case when status = 'draft' then null else created + interval '5 minutes' end,
       created, created + case when status = 'draft' then interval '0' else interval '1 day' end
from (
  select i, ${weighted("r_status", STATUS_MIX, literal)} as status, ${weighted("r_category", CATEGORY_MIX, literal)} as category,
         ${weighted("r_language", LANGUAGE_MIX, literal)} as language, r_topic, r_kind, r_source,
         now() - make_interval(days => $3::int) + (make_interval(days => $3::int) / $4::int) * (i - 1 + r_time) as created
  from (select i, random() as r_status, random() as r_category, random() as r_language, random() as r_topic, random() as r_kind,
               random() as r_source, random() as r_time
        from generate_series(1, $4::int) as g(i)) as draws
) as rows`;
}

// ---------------------------------------------------------------------------------------------
// The statements the pages send (app/.server/domains/templates/queries.ts), for EXPLAIN

const LIST_COLUMNS =
  "id, name, category, language, status, waba_id, submitted_at, created_at, created_at::text as position, last_error, rejection_reason, source";

/** listTemplates: the tenant, not being deleted, the filters, the keyset, newest first, a page and one more. */
export function listQuery(
  organizationId,
  { status, category, language, q, after, limit = 25, order = "created_at desc nulls last, id desc nulls last" } = {},
) {
  const params = [organizationId];
  const where = ["organization_id = $1", "deleting_at is null"];
  if (status) where.push(`status = $${params.push(status)}`);
  if (category) where.push(`category = $${params.push(category)}`);
  if (language) where.push(`language = $${params.push(language)}`);
  if (q) where.push(`strpos(name, $${params.push(q)}) > 0`);
  if (after) where.push(`(created_at, id) < ($${params.push(after.createdAt)}::timestamptz, $${params.push(after.id)}::uuid)`);
  return {
    text: `select ${LIST_COLUMNS} from message_templates where ${where.join(" and ")} order by ${order} limit $${params.push(limit + 1)}`,
    params,
  };
}

export const statusCountsQuery = (organizationId) => ({
  text: `select status, count(*)::int as n from message_templates where organization_id = $1 and deleting_at is null group by status`,
  params: [organizationId],
});
export const choicesQuery = (organizationId) => ({
  text: `select id, name, language, status from message_templates where organization_id = $1 and deleting_at is null order by status <> 'approved', name, language limit $2`,
  params: [organizationId, 500],
});
const findQuery = (organizationId, id) => ({
  text: `select * from message_templates where organization_id = $1 and id = $2 and deleting_at is null`,
  params: [organizationId, id],
});

/** The page's keyset cursor (queries.ts encodeCursor): base64url of "created_at|id". */
function decodeCursor(cursor) {
  if (!cursor) return null;
  const [createdAt, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  return { createdAt, id };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) in text: each plan node's type and relation or index with its actual
 * rows (per loop, times loops), the rows the scans of message_templates read (returned plus
 * removed by a filter), the buffers and the execution time.
 */
export async function explain(client, { text, params }) {
  const plan = (await client.query(`explain (analyze, buffers, format text) ${text}`, params)).rows.map((r) => r["QUERY PLAN"]);
  const executionMs = Number(plan.find((l) => l.startsWith("Execution Time"))?.match(/([\d.]+) ms/)?.[1]);
  const nodes = [];
  let rowsRead = 0;
  let last = null;
  for (const line of plan) {
    const node = line.match(
      /^\s*(?:->\s+)?([A-Z][A-Za-z ]+?)(?: using (\S+))?(?: on (\S+)(?: \w+)?)?\s+\(cost=.*?\(actual time=[\d.]+\.\.([\d.]+) rows=(\d+) loops=(\d+)\)/,
    );
    if (node) {
      const [, type, index, relation, , rows, loops] = node;
      last = { type, index: index ?? null, relation: relation ?? null, rows: Number(rows) * Number(loops) };
      nodes.push(last);
      if (relation === "message_templates" || index?.startsWith("message_templates")) rowsRead += last.rows;
      continue;
    }
    const removed = line.match(/Rows Removed by (?:Filter|Index Recheck): (\d+)/);
    if (removed && last) {
      last.removed = (last.removed ?? 0) + Number(removed[1]);
      if (last.relation === "message_templates" || last.index?.startsWith("message_templates")) rowsRead += Number(removed[1]);
    }
    const sort = line.match(/Sort Method: (.+?)\s+Memory: (\d+)kB/);
    if (sort && last) last.sort = `${sort[1]} ${sort[2]} kB`;
    const buffers = line.match(/^\s*Buffers: (.+)$/);
    if (buffers && last && !last.buffers) last.buffers = buffers[1];
  }
  const shape = nodes
    .map((n) => `${n.type}${n.index ? ` ${n.index}` : n.relation ? ` ${n.relation}` : ""} (${n.rows}${n.removed ? `, -${n.removed}` : ""})`)
    .join(" > ");
  return { executionMs, rowsRead, shape, nodes, plan };
}

// ---------------------------------------------------------------------------------------------
// Pages

const HTML = "text/html,application/xhtml+xml,*/*;q=0.8";
const unescapeHtml = (text) => text.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#x27;", "'");

/** The "Older" link of a /templates page (the Pager), as a path, or null on the last page. */
function olderLink(html) {
  const nav = html.slice(html.indexOf('aria-label="Template pages"'));
  const match = nav.match(/<a [^>]*href="([^"]*\bafter=[^"]*)"[^>]*>(?:(?!<\/a>)[\s\S])*Older/);
  if (!match) return null;
  const href = unescapeHtml(match[1]);
  return href.startsWith("?") ? `/templates${href}` : href;
}

/** Rows on a /templates page: each has one "View <name>" link. */
const rowsOn = (html) => (html.match(/aria-label="View /g) ?? []).length;

/**
 * Everything above on a running server. `cookies.individual` is the demo user's session, `apiKey`
 * the demo tenant's key, `databasePids` the private cluster's processes (when there is one).
 */
export async function benchTemplates({
  baseUrl,
  databaseUrl,
  cookies,
  apiKey,
  serverPid,
  databasePids,
  templates = 5000,
  hops = 100,
  duration = 10,
  connections = 10,
  log = console.log,
}) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const one = async (text, params) => (await client.query(text, params)).rows[0];
  const report = { templates, connections, durationSeconds: duration };
  let inserted = null;
  let refs = null;
  try {
    const big = await one(`select organization_id, id from users where email = 'demo@jumbe.demo'`);
    const other = await one(`select organization_id, id from users where email = 'admin@jumbe.demo'`);
    if (!big || !other) throw new Error("the demo accounts are missing (the server seeds them with SANDBOX=1)");
    if (big.organization_id === other.organization_id) throw new Error("the demo individual and admin share an organisation");

    // 1. The templates.
    const existing = (
      await client.query(`select id from message_templates where organization_id in ($1, $2)`, [big.organization_id, other.organization_id])
    ).rows.map((r) => r.id);
    inserted = { existing, tenants: [big.organization_id, other.organization_id] };
    const sql = insertSql((value) => client.escapeLiteral(value));
    log(
      `  inserting ${templates.toLocaleString("en-US")} templates for the demo tenant and as many for the admin's (one INSERT ... SELECT each) ...`,
    );
    await client.query(`select setseed(0.11)`);
    let started = performance.now();
    const result = await client.query(sql, [big.organization_id, big.id, 540, templates, 9_100_000_000_000]);
    const insertMs = performance.now() - started;
    await client.query(`select setseed(0.42)`);
    await client.query(sql, [other.organization_id, other.id, 540, templates, 9_200_000_000_000]);
    started = performance.now();
    await client.query(`analyze message_templates`);
    const analyzeMs = performance.now() - started;
    const mix = (
      await client.query(
        `select status, category, language, count(*)::int as n from message_templates where organization_id = $1 and deleting_at is null group by 1, 2, 3`,
        [big.organization_id],
      )
    ).rows;
    const by = (key) =>
      Object.fromEntries(
        [...new Set(mix.map((m) => m[key]))].sort().map((v) => [v, mix.filter((m) => m[key] === v).reduce((a, m) => a + m.n, 0)]),
      );
    const searchHits = Number(
      (
        await one(`select count(*) as n from message_templates where organization_id = $1 and strpos(name, $2) > 0`, [
          big.organization_id,
          SEARCH_WORD,
        ])
      ).n,
    );
    report.insert = {
      rows: result.rowCount,
      ms: insertMs,
      analyzeMs,
      tenantTemplates: mix.reduce((a, m) => a + m.n, 0),
      tableTemplates: Number((await one(`select count(*) as n from message_templates`)).n),
      byStatus: by("status"),
      byCategory: by("category"),
      byLanguage: by("language"),
      searchHits,
      tableBytesWithIndexes: Number((await one(`select pg_total_relation_size('message_templates') as n`)).n),
      indexes: (await client.query(`select indexname, indexdef from pg_indexes where tablename = 'message_templates' order by indexname`))
        .rows,
    };
    log(`  inserted in ${(insertMs / 1000).toFixed(2)} s; ANALYZE message_templates took ${(analyzeMs / 1000).toFixed(2)} s`);

    // 2. The URLs: the deep page by following "Older" `hops` times from the first page.
    const html = { Accept: HTML, Cookie: cookies.individual };
    log(`  following "Older" ${hops} times from /templates ...`);
    let deepPath = "/templates";
    const walkMs = [];
    for (let hop = 0; hop < hops; hop++) {
      const t = performance.now();
      const page = await probe(`${baseUrl}${deepPath}`, html);
      walkMs.push(performance.now() - t);
      if (page.status !== 200) throw new Error(`GET ${deepPath} answered ${page.status} after ${hop} hops`);
      const next = olderLink(page.body.toString("utf8"));
      if (!next) break;
      deepPath = next;
    }
    report.deepPage = { hops: walkMs.length, rowsBefore: walkMs.length * 25, walkMs };
    const newest = await one(
      `select id from message_templates where organization_id = $1 and deleting_at is null and status = 'approved' and category = 'UTILITY' order by created_at desc limit 1`,
      [big.organization_id],
    );
    const cases = [
      { name: "first page", path: "/templates" },
      { name: `deep page (${walkMs.length} x Older)`, path: deepPath },
      { name: "status filter", path: "/templates?status=rejected" },
      { name: "language + type", path: "/templates?language=fr&type=AUTHENTICATION" },
      { name: "name search", path: `/templates?q=${SEARCH_WORD}` },
      { name: "view dialog", path: `/templates?dialog=view&template=${newest.id}` },
      { name: "preview", path: `/preview?template=${newest.id}` },
      { name: "API list", path: "/api/v1/templates", kind: "json" },
    ];

    // 3. Each under load beside the baselines.
    log(`  ${cases.length} cases, ${duration} s per run beside bench/baseline-app and bare Node ...`);
    refs = await startBaselines({ log });
    report.baselineShellBytes = refs.shell;
    report.rows = [];
    for (const c of cases) {
      const kind = c.kind ?? "html";
      const headers =
        kind === "json" ? { Accept: "application/json", Authorization: `Bearer ${apiKey}` } : { Accept: HTML, Cookie: cookies.individual };
      const first = await probe(`${baseUrl}${c.path}`, headers);
      const label = c.path.includes("after=") ? `/templates?after=<page ${walkMs.length + 1}>` : c.path.replace(newest.id, "<id>");
      const row = { name: c.name, path: label, url: c.path, as: kind === "json" ? "apiKey" : "individual", kind, bytes: first.bytes };
      if (first.status !== 200) {
        report.rows.push({ ...row, problem: `HTTP ${first.status}${first.location ? ` -> ${first.location}` : ""}` });
        log(`  ${c.path}: HTTP ${first.status}, not loaded`);
        continue;
      }
      const body = first.body.toString("utf8");
      row.listed = kind === "json" ? JSON.parse(body).data.length : c.path.startsWith("/templates") ? rowsOn(body) : null;
      row.statements = Number(/db;desc="(\d+) statements?"/.exec(String(first.headers?.["server-timing"] ?? ""))?.[1]) || null;
      log(`  ${c.name}: ${label} (${first.bytes} bytes) ...`);
      const options = {
        url: `${baseUrl}${c.path}`,
        headers,
        kind,
        bytes: first.bytes,
        serverPid,
        databasePids,
        refs,
        duration,
        connections,
      };
      report.rows.push(await measureBesideBaselines(row, options));
    }

    // 4. Plans of the statements those pages send, for the demo tenant.
    log("  EXPLAIN ANALYZE of the templates statements ...");
    const org = big.organization_id;
    const deepCursor = decodeCursor(new URL(deepPath, baseUrl).searchParams.get("after"));
    const apiIds = (await client.query(listQuery(org).text, listQuery(org).params)).rows.slice(0, 25).map((r) => r.id);
    const plans = {};
    plans.listFirstPage = await explain(client, listQuery(org));
    // Not what the server sends: plain DESC (NULLS FIRST) matches no index; the server's order before this benchmark.
    plans.listFirstPagePlainDescForComparison = await explain(client, listQuery(org, { order: "created_at desc, id desc" }));
    if (deepCursor) plans.listDeepPage = await explain(client, listQuery(org, { after: deepCursor }));
    plans.listStatus = await explain(client, listQuery(org, { status: "rejected" }));
    plans.listLanguageType = await explain(client, listQuery(org, { language: "fr", category: "AUTHENTICATION" }));
    plans.listNameSearch = await explain(client, listQuery(org, { q: SEARCH_WORD }));
    plans.statusCounts = await explain(client, statusCountsQuery(org));
    plans.previewChoices = await explain(client, choicesQuery(org));
    plans.findTemplate = await explain(client, findQuery(org, newest.id));
    plans.apiFullRows = await explain(client, {
      text: `select * from message_templates where organization_id = $1 and id = any($2::uuid[])`,
      params: [org, apiIds],
    });
    report.plans = plans;
  } finally {
    await refs?.stop();
    if (inserted) {
      log("  deleting the inserted templates ...");
      try {
        const removed = await client.query(
          `delete from message_templates where organization_id = any($1::uuid[]) and id <> all($2::uuid[])`,
          [inserted.tenants, inserted.existing],
        );
        report.cleanup = { deleted: removed.rowCount };
      } catch (error) {
        report.cleanup = { error: String(error) };
      }
    }
    await client.end();
  }
  return report;
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const int = (value) => (typeof value === "number" && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const shares = (counts) =>
  Object.entries(counts)
    .map(([k, n]) => `${k} ${int(n)}`)
    .join(", ");

export function formatTemplates(report, { table, databaseKind, formatPages }) {
  if (report.skipped) return `\nMessage templates at scale: skipped (${report.skipped})`;
  if (report.problem) return `\nMessage templates at scale: not measured: ${report.problem}`;
  const lines = [];
  const ins = report.insert;
  lines.push(
    `\nMessage templates at scale (PostgreSQL): the demo tenant has ${int(ins.tenantTemplates)} templates, ${int(ins.tableTemplates)} in the table (the admin's tenant has as many)`,
  );
  lines.push(
    `  Insert: ${int(ins.rows)} rows in one INSERT ... SELECT FROM generate_series in ${fixed(ins.ms)} ms (${ins.indexes.length} indexes); ANALYZE ${fixed(ins.analyzeMs)} ms; table + indexes ${fixed(ins.tableBytesWithIndexes / 2 ** 20)} MiB.`,
  );
  lines.push(
    `  Statuses: ${shares(ins.byStatus)}. Types: ${shares(ins.byCategory)}. Languages: ${shares(ins.byLanguage)}. "${SEARCH_WORD}" in ${int(ins.searchHits)} names.`,
  );
  const d = report.deepPage;
  lines.push(
    `  Deep page: ${d.hops} "Older" links followed from /templates (${int(d.rowsBefore)} templates before it), ${fixed(d.walkMs.reduce((a, b) => a + b, 0) / 1000, 2)} s in all, ` +
      `the first ${fixed(d.walkMs[0])} ms, the last ${fixed(d.walkMs.at(-1))} ms (sequential, one connection).`,
  );
  lines.push("");
  lines.push(formatPages({ ...report, rows: report.rows }, { table, databaseKind, title: "Templates pages" }));
  lines.push(
    table(
      ["case", "path", "rows listed", "statements"],
      report.rows.map((r) => [r.name, r.path, r.listed ?? "-", r.statements ?? "-"]),
    ),
  );
  if (report.plans) {
    lines.push(
      `\nEXPLAIN (ANALYZE, BUFFERS) for the demo tenant (app/.server/domains/templates/queries.ts; rows read = returned + removed by a filter on message_templates; full plans in latest.json)`,
    );
    lines.push(
      table(
        ["statement", "exec ms", "rows read", "plan (node (rows, -removed))"],
        Object.entries(report.plans).map(([name, p]) => [
          name,
          fixed(p.executionMs, 3),
          int(p.rowsRead),
          p.shape.length > 120 ? `${p.shape.slice(0, 117)}...` : p.shape,
        ]),
      ),
    );
    const full = Object.entries(report.plans).filter(([, p]) =>
      p.nodes.some(
        (n) =>
          (n.type === "Seq Scan" && n.relation === "message_templates") || (n.type.includes("Sort") && n.rows >= ins.tenantTemplates * 0.9),
      ),
    );
    lines.push(
      full.length
        ? `  Reading or sorting the whole tenant (or table): ${full.map(([name]) => name).join(", ")}.`
        : "  No plan scans the table sequentially or sorts all of the tenant's templates.",
    );
  }
  if (report.cleanup)
    lines.push(
      `\nCleanup: ${report.cleanup.error ? `FAILED: ${report.cleanup.error}` : `${int(report.cleanup.deleted)} inserted templates deleted`}.`,
    );
  return lines.join("\n");
}
