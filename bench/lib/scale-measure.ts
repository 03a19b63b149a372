// `bench/scale-db.ts measure`: Jumbe's own reads on the largest organisation of the generated
// database, through the domain functions (not SQL written here): each statement's plan comes from
// auto_explain (ANALYZE, BUFFERS, timing) in the cluster's log, read back after each call.
import { performance } from "node:perf_hooks";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { parseEnv, setEnv } from "../../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase } from "../../app/.server/infrastructure/db/client";
import { parseAnalyticsFilters } from "../../app/lib/analytics";
import type { ScaleCluster } from "./scale-cluster";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Actual Total Time"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

interface PlanSummary {
  ms: number;
  query: string;
  /** The plan's nodes, depth-first, each "type on relation using index (rows x loops, ms)". */
  nodes: string[];
  sharedHit: number;
  sharedRead: number;
}

/** The nodes of a plan tree, as lines, indented by depth. */
function nodeLines(node: PlanNode, depth = 0): string[] {
  const on = node["Relation Name"] ? ` on ${node["Relation Name"]}` : "";
  const using = node["Index Name"] ? ` using ${node["Index Name"]}` : "";
  const line = `${"  ".repeat(depth)}${node["Node Type"]}${on}${using} (${node["Actual Rows"]} rows x ${node["Actual Loops"]}, ${node["Actual Total Time"]} ms)`;
  return [line, ...(node.Plans ?? []).flatMap((child) => nodeLines(child, depth + 1))];
}

/** The plans auto_explain wrote to the log since `offset` (its JSON format). */
function plansSince(logFile: string, offset: number): PlanSummary[] {
  const text = readFileSync(logFile, "utf8").slice(offset);
  const plans: PlanSummary[] = [];
  for (const entry of text.split(/\n(?=\d{4}-\d\d-\d\d )/)) {
    const head = /LOG:\s+duration: ([\d.]+) ms\s+plan:\n/.exec(entry);
    if (!head) continue;
    try {
      const json = JSON.parse(entry.slice(head.index + head[0].length).replace(/^\t/gm, "")) as { "Query Text": string; Plan: PlanNode };
      plans.push({
        ms: Number(head[1]),
        query: json["Query Text"].replace(/\s+/g, " ").trim().slice(0, 240),
        nodes: nodeLines(json.Plan),
        sharedHit: json.Plan["Shared Hit Blocks"] ?? 0,
        sharedRead: json.Plan["Shared Read Blocks"] ?? 0,
      });
    } catch {
      // a plan cut by the log's rotation: not summarised
    }
  }
  return plans;
}

export async function measure(cluster: ScaleCluster, say: (text: string) => void, options: Record<string, string>) {
  const repeats = Number(options.repeats ?? 3);
  const logFile = path.join(cluster.dir, "server.log");
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  const one = async (text: string, params?: unknown[]) => (await admin.query(text, params)).rows[0];
  const org = await one(`select o.id, o.agent, o.number from scale_orgs o where o.g = 1`);
  const counts = await one(
    `select (select count(*) from messages where organization_id = $1)::bigint as messages,
            (select count(*) from contacts where organization_id = $1)::bigint as contacts,
            (select count(*) from conversations where organization_id = $1)::bigint as conversations,
            (select count(*) from messages)::bigint as all_messages`,
    [org.id],
  );
  say(`organisation 1: ${JSON.stringify(counts)}`);
  // The thread opened: the conversation with the newest message, and the one with the most messages.
  const newest = await one(
    `select id, contact_id, phone_number_id from conversations where organization_id = $1 order by last_message_at desc limit 1`,
    [org.id],
  );
  await admin.query(`alter database jumbe set auto_explain.log_min_duration = 0`);
  setEnv(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local", LOG_LEVEL: "warn", DATA_DIR: path.join(cluster.dir, "files") }));
  await openDatabase({ databaseUrl: cluster.url, poolSize: 4, migrate: false });
  const { listConversations } = await import("../../app/.server/domains/inbox/list");
  const { threadOf } = await import("../../app/.server/domains/inbox/thread");
  const { analyticsReport } = await import("../../app/.server/domains/analytics/report");
  const { openContactsCsv } = await import("../../app/.server/domains/contacts/export");
  const { enforceRetention } = await import("../../app/.server/domains/housekeeping/retention");
  const analyticsFilters = parseAnalyticsFilters(new URLSearchParams({ period: "30d" })).filters;
  const owner = { organizationId: org.id, conversationId: newest.id, contactId: newest.contact_id, phoneNumberId: newest.phone_number_id };
  const readAll = async (stream: ReadableStream<Uint8Array>) => {
    let bytes = 0;
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
    return bytes;
  };
  const cases: { name: string; once?: boolean; run: () => Promise<unknown> }[] = [
    { name: "inbox list, all", run: () => listConversations(org.id, { viewerId: org.agent }) },
    { name: "inbox list, open", run: () => listConversations(org.id, { viewerId: org.agent, filter: "open" }) },
    { name: "inbox list, mine", run: () => listConversations(org.id, { viewerId: org.agent, filter: "mine" }) },
    { name: "inbox search, common word (order)", run: () => listConversations(org.id, { viewerId: org.agent, q: "order" }) },
    { name: "inbox search, rarer word (mkopo)", run: () => listConversations(org.id, { viewerId: org.agent, q: "mkopo" }) },
    { name: "inbox search, a name (Wanjiru)", run: () => listConversations(org.id, { viewerId: org.agent, q: "Wanjiru" }) },
    { name: "thread, newest conversation", run: () => threadOf(owner) },
    { name: "analytics report, 30 days", run: () => analyticsReport(org.id, analyticsFilters) },
    { name: "contacts export, all (CSV streamed)", run: async () => readAll(await openContactsCsv(org.id, {})) },
    {
      name: "retention, one large organisation, its oldest month (335 days kept)",
      once: true,
      run: () => enforceRetention({ id: org.id, messageDays: 335, mediaDays: 90, logDays: 90 }),
    },
  ];
  const results = [];
  for (const c of cases) {
    const times: number[] = [];
    let plans: PlanSummary[] = [];
    let answer: unknown;
    for (let i = 0; i < (c.once ? 1 : 1 + repeats); i++) {
      const offset = statSync(logFile).size;
      const started = performance.now();
      answer = await c.run();
      times.push(performance.now() - started);
      // The plans of the first warm call (the second), or of the only one.
      if (c.once || i === 1) plans = plansSince(logFile, offset);
    }
    const warm = times.slice(1).sort((a, b) => a - b);
    const result = {
      name: c.name,
      firstMs: Math.round(times[0]! * 10) / 10,
      warmMedianMs: warm.length ? Math.round(warm[Math.floor(warm.length / 2)]! * 10) / 10 : null,
      statements: plans.length,
      answer: summariseAnswer(answer),
      plans,
    };
    say(
      `${c.name}: first ${result.firstMs} ms, warm median ${result.warmMedianMs} ms, ${plans.length} statements, ${JSON.stringify(result.answer)}`,
    );
    for (const p of plans.slice(0, 12)) say(`    ${p.ms} ms  ${p.nodes[0]}  |  ${p.query.slice(0, 100)}`);
    results.push(result);
  }
  await closeDatabase();
  await admin.query(`alter database jumbe reset auto_explain.log_min_duration`);
  await admin.end();
  writeFileSync(path.join(cluster.dir, "scale-plans.json"), JSON.stringify({ counts, results }, null, 2));
  say(`plans in ${path.join(cluster.dir, "scale-plans.json")}`);
}

function summariseAnswer(answer: unknown) {
  if (typeof answer === "number") return { bytes: answer };
  if (answer && typeof answer === "object") {
    const a = answer as Record<string, unknown>;
    if (Array.isArray(a.rows)) return { rows: a.rows.length };
    if (Array.isArray(a.items)) return { items: a.items.length };
    if ("bodies" in a) return a;
    return { keys: Object.keys(a).slice(0, 6) };
  }
  return null;
}
