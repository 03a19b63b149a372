// Issue 76: what an agent's product message costs Jumbe, beside a text reply in the same run. A
// benchmark, never a test: figures to compare between commits (bench/results.md).
//
//   bash scripts/with-postgres.sh node --import tsx bench/product-messages.ts          (PostgreSQL, as production runs)
//   node --import tsx bench/product-messages.ts [--runs 300] [--catalogue 2000]          (PGlite in memory)
//
// One organisation with a connected number, its catalog and `--catalogue` products Meta holds
// (synced: the most an organisation may have is PRODUCTS_MAX), and one customer whose 24-hour window
// is open. Each run does what the conversation page's post does after the form is read:
//   products  the inbox's "products" intent: the ticked products read by id, the message checked and
//             built (productMessage: a list of 30, one, or the catalogue) and queued (sendProductsReply:
//             the message row, the conversation touched, the dispatch job);
//   baseline  a text reply through the same page (sendReply): the same queueing with no catalogue read;
//   and the whole catalogue read once (sendableProducts), which every send did twice before the
//   picker read only the ticked products (2026-11-30).
// Alternately, `--runs` times each after a warm-up; Jumbe's own time in process, the queued messages
// not sent (the dispatcher's, measured by bench/sending.mjs).
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase, rawQuery } from "../app/.server/infrastructure/db/client";
import { connectedBusiness } from "./lib/connected-business";
import { findConversation } from "../app/.server/domains/inbox/list";
import { sendProductsReply, sendReply } from "../app/.server/domains/inbox/actions";
import { productMessage, sendableProducts } from "../app/.server/domains/shop";

const { values: options } = parseArgs({
  options: { runs: { type: "string", default: "300" }, catalogue: { type: "string", default: "2000" } },
});
const RUNS = Number(options.runs);
const CATALOGUE = Number(options.catalogue);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(2).padStart(7);
  return `n ${String(sorted.length).padStart(4)}  p50 ${f(percentile(sorted, 50))} ms  p95 ${f(percentile(sorted, 95))} ms  p99 ${f(percentile(sorted, 99))} ms`;
};

async function seed() {
  const { organizationId, userId, accountId } = await connectedBusiness("Bench Duka", {
    wabaId: "90011",
    phoneNumberId: "90012",
    digits: "254700900012",
  });
  await rawQuery(`insert into shop_catalogs (organization_id, account_id, catalog_id) values ($1, $2, '770011')`, [
    organizationId,
    accountId,
  ]);
  await rawQuery(
    `insert into products (organization_id, retailer_id, name, price_cents, meta_product_id, sync_state, synced_at)
     select $1, 'SKU-' || lpad(i::text, 5, '0'), 'Bidhaa ' || lpad(i::text, 5, '0'), 10000 + i * 50, 'meta-' || i, 'synced', now()
     from generate_series(1, $2::int) as i`,
    [organizationId, CATALOGUE],
  );
  const [contact] = await rawQuery<{ id: string }>(
    `insert into contacts (organization_id, name, phone) values ($1, 'Wanjiku', '+254722000111') returning id`,
    [organizationId],
  );
  const [conversation] = await rawQuery<{ id: string }>(
    `insert into conversations (organization_id, phone_number_id, contact_id, last_inbound_at, last_message_at)
     values ($1, '90012', $2, now() - interval '5 minutes', now() - interval '5 minutes') returning id`,
    [organizationId, contact!.id],
  );
  return { actor: { organizationId, userId }, conversationId: conversation!.id };
}

async function main() {
  const databaseUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://127.0.0.1:9" }));
  await openDatabase(databaseUrl ? { databaseUrl, poolSize: 4 } : { dataDir: "memory://" });
  const { actor, conversationId } = await seed();
  const conversation = await findConversation(actor.organizationId, conversationId);
  if (!conversation) throw new Error("the bench's conversation was not found");
  // The 30 products an agent ticks: spread over the catalogue, as a real pick is.
  const offered = await sendableProducts(actor.organizationId);
  const chosen = offered
    .filter((_, i) => i % Math.max(1, Math.floor(offered.length / 30)) === 0)
    .slice(0, 30)
    .map((p) => p.id);

  const kinds = {
    "products: a list of 30": { kind: "product_list", header: "Bei za wiki hii", body: "Chagua unachopenda" },
    "products: one product": { kind: "product", header: "", body: "Hii ndiyo" },
    "products: the catalogue": { kind: "catalog_message", header: "", body: "Tazama bidhaa zetu" },
  } as const;
  const samples: Record<string, number[]> = {
    baseline: [],
    ...Object.fromEntries(Object.keys(kinds).map((k) => [k, []])),
    "the whole catalogue read": [],
  };
  const productsRun = async (name: keyof typeof kinds) => {
    const form = kinds[name];
    const t = performance.now();
    // As the inbox's intent does: the ticked boxes' ids from the form, then the message read, built and queued.
    const productIds = form.kind === "product" ? chosen.slice(0, 1) : form.kind === "catalog_message" ? [] : chosen;
    const interactive = await productMessage(actor.organizationId, { ...form, productIds });
    await sendProductsReply(actor, conversation, interactive);
    return performance.now() - t;
  };
  // What each send read twice before (the offered products, then the message's check): the whole catalogue.
  const wholeCatalogueRun = async () => {
    const t = performance.now();
    await sendableProducts(actor.organizationId);
    return performance.now() - t;
  };
  const baselineRun = async (n: number) => {
    const t = performance.now();
    await sendReply(actor, conversation, { text: `Asante, tutakujibu hivi karibuni (${n})` });
    return performance.now() - t;
  };

  for (let i = 0; i < 20; i++) {
    await baselineRun(i);
    for (const name of Object.keys(kinds) as (keyof typeof kinds)[]) await productsRun(name);
  }
  for (let i = 0; i < RUNS; i++) {
    samples.baseline!.push(await baselineRun(i));
    for (const name of Object.keys(kinds) as (keyof typeof kinds)[]) samples[name]!.push(await productsRun(name));
    samples["the whole catalogue read"]!.push(await wholeCatalogueRun());
  }

  const base = percentile(
    [...samples.baseline!].sort((a, b) => a - b),
    50,
  );
  console.log(
    `product messages from the inbox: ${CATALOGUE} products in the catalogue, ${RUNS} runs each, ${databaseUrl ? "PostgreSQL" : "PGlite"}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}`,
  );
  for (const [name, values] of Object.entries(samples)) {
    const p50 = percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
    console.log(`  ${name.padEnd(26)} ${stats(values)}   ${(p50 / base).toFixed(1)}x the baseline's p50`);
  }
  await closeDatabase();
}

await main();
