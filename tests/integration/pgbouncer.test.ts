// Jumbe behind PgBouncer in transaction pooling (issue 78, decision 162): the database handle opened
// through Debian's PgBouncer 1.18 (which forwards no prepared statement and keeps nothing of a session
// from one transaction to the next) with DATABASE_POOLER=pgbouncer-transaction, and the work that
// leans on the connection run through it at once: sends under a conversation's advisory lock, the
// wallet, the job queue's claim, ORM queries built once (preparedQuery) over many transactions on
// different server connections, NOTIFY through the pooler heard by the LISTEN on PostgreSQL itself,
// and errors mid-transaction leaving the pooled connections clean.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import { closeDatabase, db, listenChannel, openDatabase, rawQuery } from "~/.server/infrastructure/db/client";
import { preparedQuery } from "~/.server/infrastructure/db/prepared";
import { queryRows } from "~/.server/infrastructure/db/query";
import { organizations } from "~/.server/infrastructure/db/schema";
import { claimJobs, enqueueJob } from "~/.server/infrastructure/jobs/queue";
import { changeWallet } from "~/.server/domains/billing/ledger";
import { queueMessage } from "~/.server/domains/messaging/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";
import { testDatabaseUrl } from "../support/database";
import { findPgBouncer, startPgBouncer, type RunningPgBouncer } from "../support/pgbouncer";

const postgres = process.env.TEST_DATABASE_URL;
const binary = findPgBouncer();
if (postgres && !binary) {
  if (process.env.JUMBE_REQUIRE_POSTGRES === "1")
    throw new Error("PgBouncer is not installed (Debian's pgbouncer), but JUMBE_REQUIRE_POSTGRES=1");
  console.warn("PgBouncer is not installed (Debian's pgbouncer): skipping the tests through PgBouncer");
}

/** Server connections PgBouncer may open to the file's database: fewer than the application's pool. */
const SERVER_CONNECTIONS = 3;
const APPLICATION_POOL = 10;

const meta = metaSandboxForFile();

describe.skipIf(!postgres || !binary)("Jumbe behind PgBouncer in transaction pooling", () => {
  let bouncer: RunningPgBouncer;

  beforeAll(async () => {
    bouncer = await startPgBouncer(binary!, postgres!, { poolSize: SERVER_CONNECTIONS });
    const direct = testDatabaseUrl()!;
    // The file's database, opened again through PgBouncer in place of the direct handle.
    await closeDatabase();
    await openDatabase({
      databaseUrl: bouncer.through(direct),
      pooler: "pgbouncer-transaction",
      directUrl: direct,
      poolSize: APPLICATION_POOL,
    });
  }, 60_000);

  afterAll(async () => {
    await closeDatabase();
    await bouncer?.stop();
  });

  /** The backends of this database PostgreSQL serves, read from PostgreSQL itself (not through the pooler). */
  async function backends() {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number; query: string }>(
        `select pid, query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      );
      return rows;
    } finally {
      await client.end();
    }
  }

  it("runs the ORM's queries built once over many transactions on different server connections", async () => {
    const names = ["Nyota Savings Sacco", "Baraka Hardware", "Mama Oliech Foods"];
    const ids: string[] = [];
    for (const name of names) ids.push((await createVerifiedUser({ businessName: name })).organization.id);
    const byId = preparedQuery((database) =>
      database
        .select({ name: organizations.name, server: sql<number>`pg_backend_pid()` })
        .from(organizations)
        .where(eq(organizations.id, sql.placeholder("id"))),
    );
    // Twenty rounds of sixty at once: the application's ten connections share PgBouncer's three.
    const servers = new Set<number>();
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => byId({ id: ids[i % 3]! })));
      answers.forEach((rows, i) => expect(rows.map((row) => row.name)).toEqual([names[i % 3]]));
      for (const [row] of answers) servers.add(row!.server);
      // The driver's own path (rawQuery): the same text again and again, in and out of transactions.
      const counts = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          i % 2
            ? rawQuery<{ n: number }>("select count(*)::int as n from organizations where id = any($1::uuid[])", [ids])
            : db().transaction((tx) =>
                queryRows<{ n: number }>(tx, sql`select count(*)::int as n from organizations where id = any(${sql.param(ids)}::uuid[])`),
              ),
        ),
      );
      for (const rows of counts) expect(rows).toEqual([{ n: 3 }]);
    }
    expect(servers.size).toBeGreaterThan(1);
    expect(servers.size).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    // Nothing was prepared by name on PostgreSQL's side.
    const prepared = await rawQuery<{ n: number }>("select count(*)::int as n from pg_prepared_statements");
    expect(prepared).toEqual([{ n: 0 }]);
  });

  it("queues to one conversation from many requests at once, each message once, none sent twice", async () => {
    const user = await createVerifiedUser({ businessName: "Tumaini Pharmacy" });
    const connection = await meta.graph.connect(user.organization.id, "Tumaini Pharmacy");
    await meta.customerWrites(connection.phoneNumberId, "254712345678");
    const texts = Array.from({ length: 24 }, (_, i) => `Dawa yako iko tayari (${i + 1})`);
    const queued = await Promise.all(
      texts.map((text) => queueMessage(user.organization.id, { to: "0712 345 678", content: { kind: "text", text }, source: "api" })),
    );
    expect(new Set(queued.map((message) => message.id)).size).toBe(texts.length);
    await drainDispatcher();
    const rows = await rawQuery<{ id: string; body: string; wamid: string | null }>(
      `select id, body, wamid from messages where organization_id = $1 and direction = 'outbound'`,
      [user.organization.id],
    );
    expect(rows.map((row) => row.body).sort()).toEqual([...texts].sort());
    // Meta's pair rate (one customer, a burst) lets a few through and has the rest tried later: each
    // one Meta took is stored with its own wamid, none sent twice.
    const sent = rows.filter((row) => row.wamid !== null);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((row) => row.wamid!.startsWith("wamid."))).toBe(true);
    expect(new Set(sent.map((row) => row.wamid)).size).toBe(sent.length);
    expect(meta.sandbox.messages({ phoneNumberId: connection.phoneNumberId })).toHaveLength(sent.length);
    // All in the one conversation with the customer.
    const contacts = await rawQuery<{ n: number }>(
      `select count(distinct contact_id)::int as n from messages where organization_id = $1 and direction = 'outbound'`,
      [user.organization.id],
    );
    expect(contacts).toEqual([{ n: 1 }]);
  });

  it("keeps the wallet equal to its ledger when holds race for the last shillings", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Wallet Race Ltd" });
    await changeWallet(db(), { organizationId: organization.id, kind: "topup", amountCents: 20 * 150, description: "Top-up" });
    // Forty holds of 150 cents at once for the price of twenty: exactly twenty get through.
    const holds = await Promise.all(
      Array.from({ length: 40 }, () =>
        db().transaction((tx) =>
          changeWallet(tx, {
            organizationId: organization.id,
            kind: "hold",
            amountCents: 0,
            heldCents: 150,
            messageCount: 1,
            description: "Hold",
          }),
        ),
      ),
    );
    expect(holds.filter(Boolean)).toHaveLength(20);
    const [wallet] = await rawQuery<{ balance: number; held: number; ledger_balance: number; ledger_held: number }>(
      `select w.balance_cents::int as balance, w.held_cents::int as held,
              (select sum(amount_cents)::int from wallet_entries e where e.organization_id = w.organization_id) as ledger_balance,
              (select sum(held_cents)::int from wallet_entries e where e.organization_id = w.organization_id) as ledger_held
       from wallets w where w.organization_id = $1`,
      [organization.id],
    );
    expect(wallet).toEqual({ balance: 3000, held: 3000, ledger_balance: 3000, ledger_held: 3000 });
  });

  it("hands each job to one claimer when eight claim at once", async () => {
    const queue = "pgbouncer-claims";
    for (let i = 0; i < 60; i++) await enqueueJob(queue, { n: i });
    const claimed: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (;;) {
          const jobs = await claimJobs<{ n: number }>(queue, 4, 60_000);
          if (!jobs.length) return;
          claimed.push(...jobs.map((job) => job.payload.n));
        }
      }),
    );
    expect(claimed.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it("delivers a NOTIFY sent through PgBouncer to the LISTEN held on PostgreSQL itself, while the pool is busy", async () => {
    const heard: string[] = [];
    const stop = await listenChannel("jumbe_pgbouncer_test", { onMessage: (payload) => heard.push(payload) });
    try {
      // The listening connection is PostgreSQL's own: one backend listens, outside PgBouncer's three.
      const listening = (await backends()).filter((backend) => /^listen /i.test(backend.query));
      expect(listening).toHaveLength(1);
      const busy = Array.from({ length: 40 }, () => rawQuery("select pg_sleep(0.01)"));
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          db().transaction(async (tx) => {
            await tx.execute(sql`select pg_notify('jumbe_pgbouncer_test', ${`payload ${i}`})`);
          }),
        ),
      );
      await Promise.all(busy);
      await vi.waitFor(() => expect([...heard].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `payload ${i}`).sort()), {
        timeout: 30_000,
        interval: 20,
      });
    } finally {
      await stop();
    }
  });

  it("is refused a session setting sent at start-up, which is why none is sent (env.ts refuses one in DATABASE_URL)", async () => {
    const { default: pg } = await import("pg");
    for (const setting of [{ options: "-c statement_timeout=5000" }, { statement_timeout: 5000 }]) {
      const client = new pg.Client({ connectionString: bouncer.through(testDatabaseUrl()!), ...setting });
      await expect(client.connect()).rejects.toThrow(/unsupported startup parameter/);
      await client.end().catch(() => {});
    }
  });

  it("leaves a pooled connection clean after an error, a cancelled statement and settings made in a transaction", async () => {
    // An error mid-transaction, with transaction-scoped settings made before it.
    const failing = Array.from({ length: 12 }, () =>
      db().transaction(async (tx) => {
        await tx.execute(sql`set local statement_timeout = '5s'`);
        await tx.execute(sql`select set_config('application_name', 'jumbe-leak', true)`);
        await tx.execute(sql`select 1 / 0`);
      }),
    );
    for (const outcome of await Promise.allSettled(failing)) expect(outcome.status).toBe("rejected");
    // A statement PostgreSQL cancels at its transaction's own timeout.
    await expect(
      db().transaction(async (tx) => {
        await tx.execute(sql`set local statement_timeout = '20ms'`);
        await tx.execute(sql`select pg_sleep(2)`);
      }),
    ).rejects.toThrow();
    // Every server connection answers afterwards, with none of those settings and no open transaction.
    const after = await Promise.all(
      Array.from({ length: 30 }, () =>
        rawQuery<{ timeout: string; app: string; fresh: boolean }>(
          `select current_setting('statement_timeout') as timeout, current_setting('application_name') as app,
                  now() = statement_timestamp() as fresh`,
        ),
      ),
    );
    for (const [row] of after) expect(row).toEqual({ timeout: "0", app: "", fresh: true });
    // PgBouncer kept to its pool size for this database, and never needed more.
    const pools = await bouncer.admin<{ database: string; sv_active: string; sv_idle: string; sv_used: string }>("SHOW POOLS");
    const ours = pools.find((pool) => pool.database === new URL(testDatabaseUrl()!).pathname.slice(1));
    expect(Number(ours!.sv_active) + Number(ours!.sv_idle) + Number(ours!.sv_used)).toBeLessThanOrEqual(SERVER_CONNECTIONS);
  });
});
