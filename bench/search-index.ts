// Which trigram index serves one organisation's searches best (decision 177), on the generated database of
// bench/scale-db.ts (SCALE_DB_DIR): the inbox search (its three cases in bench/lib/scale-measure.ts) and
// the contacts list's search, each on the largest organisation and on a small one, first with the
// indexes as migrated, then with each replaced by one that starts with the organisation (btree_gin),
// then put back. Median of five warm calls each.
//
//   SCALE_DB_DIR=/work/wt/scale-data node --import tsx bench/search-index.ts
import { performance } from "node:perf_hooks";
import path from "node:path";
import pg from "pg";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase } from "../app/.server/infrastructure/db/client";
import { openScaleCluster } from "./lib/scale-cluster";

const INBOX = `where contact_id is not null and (direction = 'inbound' or source = 'inbox')`;
const VARIANTS = {
  "as migrated (trigrams of every organisation)": [
    `drop index if exists messages_inbox_search_trgm_idx`,
    `create index messages_inbox_search_trgm_idx on messages using gin (lower(body) gin_trgm_ops) ${INBOX}`,
    `drop index if exists contacts_search_trgm_idx`,
    `create index contacts_search_trgm_idx on contacts using gin (search_text gin_trgm_ops)`,
  ],
  "the organisation first (btree_gin)": [
    `create extension if not exists btree_gin`,
    `drop index if exists messages_inbox_search_trgm_idx`,
    `create index messages_inbox_search_trgm_idx on messages using gin (organization_id, lower(body) gin_trgm_ops) ${INBOX}`,
    `drop index if exists contacts_search_trgm_idx`,
    `create index contacts_search_trgm_idx on contacts using gin (organization_id, search_text gin_trgm_ops)`,
  ],
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const cluster = await openScaleCluster();
const admin = new pg.Client({ connectionString: cluster.url });
await admin.connect();
const one = async (text: string) => (await admin.query(text)).rows[0];
const large = await one(`select o.id, o.agent from scale_orgs o where o.g = 1`);
const small = await one(`select o.id, o.agent from scale_orgs o order by o.g desc limit 1`);
setEnv(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local", LOG_LEVEL: "warn", DATA_DIR: path.join(cluster.dir, "files") }));
const { listConversations } = await import("../app/.server/domains/inbox/list");
const { listContacts } = await import("../app/.server/domains/contacts/manage");
const cases = (org: { id: string; agent: string }) => [
  { name: "inbox search, common word (order)", run: () => listConversations(org.id, { viewerId: org.agent, q: "order" }) },
  { name: "inbox search, rarer word (mkopo)", run: () => listConversations(org.id, { viewerId: org.agent, q: "mkopo" }) },
  { name: "inbox search, a name (Wanjiru)", run: () => listConversations(org.id, { viewerId: org.agent, q: "Wanjiru" }) },
  { name: "contacts, a name (wanjiru)", run: () => listContacts(org.id, { search: "wanjiru" }, { limit: 50 }) },
  { name: "contacts, digits (7123)", run: () => listContacts(org.id, { search: "7123" }, { limit: 50 }) },
];
const results: Record<string, Record<string, string>> = {};
for (const [variant, statements] of Object.entries(VARIANTS)) {
  await closeDatabase();
  const built = performance.now();
  for (const statement of statements) await admin.query(statement);
  await admin.query(`analyze messages; analyze contacts`);
  const size = await one(
    `select pg_size_pretty(pg_relation_size('messages_inbox_search_trgm_idx')) as messages, pg_size_pretty(pg_relation_size('contacts_search_trgm_idx')) as contacts`,
  );
  process.stderr.write(`${variant}: built in ${((performance.now() - built) / 1000).toFixed(1)} s, sizes ${JSON.stringify(size)}\n`);
  await openDatabase({ databaseUrl: cluster.url, poolSize: 2, migrate: false });
  for (const [label, org] of [
    ["largest", large],
    ["small", small],
  ] as const) {
    for (const c of cases(org)) {
      const times: number[] = [];
      for (let i = 0; i < 6; i++) {
        const started = performance.now();
        await c.run();
        if (i > 0) times.push(performance.now() - started);
      }
      const key = `${c.name}, ${label}`;
      results[key] ??= {};
      results[key][variant] = `${median(times).toFixed(1)} ms`;
    }
  }
}
console.table(results);
await closeDatabase();
// Back as migrated.
for (const statement of VARIANTS["as migrated (trigrams of every organisation)"]) await admin.query(statement);
await admin.end();
cluster.stop();
