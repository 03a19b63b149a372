import { afterEach, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createVerifiedUser } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";

// A statement trigger that joins its transition tables (old_rows to new_rows) must not keep the plan
// its first call made. PL/pgSQL keeps a statement's plan for the session, and a query without
// parameters keeps its first, generic plan: planned for the one-row update a session happened to
// fire first, the join became a nested loop that rescanned new_rows for every row of old_rows and
// built every row's whole record on each pass. Applying 3,738 failed statuses then took 23 to 70 s
// of CPU inside messages_analytics_update (perf and gdb on the SMS fallback bench: ExecEvalWholeRowVar
// under plpgsql_exec_trigger), and the status batches behind it waited on its row locks.
// Migration 0083 runs these joins through EXECUTE, planned on each call for the rows it has.
//
// Every such trigger the migrations made keeps its transition tables inside EXECUTE (PGlite and
// PostgreSQL); and the two there are, seen through auto_explain's plans of the nested statements (PostgreSQL only: PGlite cannot load
// it): after a first, one-row update in the session, a bulk update's trigger reads each transition
// table once.

const BULK = 300;

interface PlanNode {
  "Node Type": string;
  "Parent Relationship"?: string;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** Every Named Tuplestore Scan (a transition table; the plan does not name which) in a plan, with how many times it ran. */
function transitionScans(node: PlanNode, found: { side: string; loops: number }[] = []) {
  if (node["Node Type"] === "Named Tuplestore Scan")
    found.push({ side: node["Parent Relationship"] ?? "?", loops: node["Actual Loops"] ?? 0 });
  for (const child of node.Plans ?? []) transitionScans(child, found);
  return found;
}

let session: pg.Client;
let plans: { query: string; plan: PlanNode }[];

beforeEach(async () => {
  if (!process.env.TEST_DATABASE_URL) return;
  session = new pg.Client({ connectionString: testDatabaseUrl() });
  await session.connect();
  plans = [];
  session.on("notice", (notice) => {
    const text = notice.message ?? "";
    const start = text.indexOf("{");
    if (!text.includes("duration:") || start < 0) return;
    const parsed = JSON.parse(text.slice(start)) as { "Query Text": string; Plan: PlanNode };
    plans.push({ query: parsed["Query Text"], plan: parsed.Plan });
  });
  for (const setting of [
    "load 'auto_explain'",
    "set auto_explain.log_min_duration = 0",
    "set auto_explain.log_nested_statements = on",
    "set auto_explain.log_analyze = on",
    "set auto_explain.log_timing = off",
    "set auto_explain.log_format = 'json'",
    "set auto_explain.log_level = 'notice'",
    "set client_min_messages = 'notice'",
  ])
    await session.query(setting);
});

afterEach(async () => {
  await session?.end();
});

/** The transition-table scans of the nested statements that joined old_rows and new_rows. */
function joinScans() {
  return plans.filter((p) => /old_rows/.test(p.query) && /new_rows/.test(p.query)).flatMap((p) => transitionScans(p.plan));
}

describe("statement triggers with both transition tables", () => {
  it("join them only in statements planned per call (EXECUTE), in every such trigger the migrations made", async () => {
    const triggers = await rawQuery<{ trigger: string; function: string; old_table: string; new_table: string; source: string }>(
      `select t.tgname as trigger, p.proname as function, t.tgoldtable as old_table, t.tgnewtable as new_table, p.prosrc as source
       from pg_trigger t join pg_proc p on p.oid = t.tgfoid
       where t.tgoldtable is not null and t.tgnewtable is not null and not t.tgisinternal order by 1`,
    );
    expect(triggers.map((t) => t.trigger)).toEqual(expect.arrayContaining(["contacts_ad_lead_from_tags", "messages_analytics_update"]));
    for (const t of triggers) {
      // What the function runs as planned-once statements: its source without its EXECUTE $q$...$q$ texts.
      const planned = t.source.replace(/EXECUTE\s+\$q\$[\s\S]*?\$q\$/gi, "");
      const names = [t.old_table, t.new_table].filter((name) => new RegExp(`\\b${name}\\b`).test(planned));
      expect(names, `${t.function} (${t.trigger}) uses ${names.join(" and ")} outside EXECUTE`).toHaveLength(0);
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("statement triggers joining their transition tables", () => {
  it("read each table once on a bulk status update, after a one-row update planned first in the session", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Baraka Traders" });
    const ids = await rawQuery<{ id: string }>(
      `insert into messages (organization_id, direction, status, body, phone_number_id, recipient_phone, accepted_at, wamid)
       select $1, 'outbound', 'sent', 'Karibu', 'pn-1', '+2547120' || lpad(n::text, 5, '0'), now(), 'wamid.plan-' || n
       from generate_series(1, ${BULK + 1}) n returning id`,
      [organization.id],
    );
    const [first, ...rest] = ids.map((r) => r.id);

    // The session's first firing: one row.
    await session.query(`update messages set status = 'delivered', delivered_at = now() where id = $1`, [first]);
    plans = [];
    // Then a status batch's worth: every message fails.
    const updated = await session.query(`update messages set status = 'failed', failed_at = now() where id = any($1::uuid[])`, [rest]);
    expect(updated.rowCount).toBe(BULK);

    const scans = joinScans();
    expect(scans).toHaveLength(2);
    for (const scan of scans) expect(scan, `a transition table (${scan.side}) read ${scan.loops} times`).toMatchObject({ loops: 1 });
    // And the figures moved for every message (the trigger still did its work).
    const [figures] = await rawQuery<{ failed: number }>(
      `select coalesce(sum(failed), 0)::int as failed from message_stats_pending where organization_id = $1`,
      [organization.id],
    );
    expect(figures!.failed).toBe(BULK);
  });

  it("read each table once on a bulk tag update of contacts, after a one-row update planned first", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Neema Salon" });
    await rawQuery(`insert into ad_conversion_settings (organization_id, enabled, lead_tags) values ($1, true, '{bought}')`, [
      organization.id,
    ]);
    const ids = await rawQuery<{ id: string }>(
      `insert into contacts (organization_id, phone, name) select $1, '+2547220' || lpad(n::text, 5, '0'), 'Mteja ' || n
       from generate_series(1, ${BULK + 1}) n returning id`,
      [organization.id],
    );
    const [first, ...rest] = ids.map((r) => r.id);

    await session.query(`update contacts set tags = array_append(tags, 'bought') where id = $1`, [first]);
    plans = [];
    await session.query(`update contacts set tags = array_append(tags, 'bought') where id = any($1::uuid[])`, [rest]);

    const scans = joinScans();
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans) expect(scan, `a transition table (${scan.side}) read ${scan.loops} times`).toMatchObject({ loops: 1 });
  });
});
