import { describe, expect, it } from "vitest";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { db, rawQuery, type Executor } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { applyFiredRules, foldKeptContactChanges, type FiredRule } from "~/.server/domains/automations/batch-effects";
import { createRule } from "~/.server/domains/automations/rules";
import { createVerifiedUser } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";
// Registers every job handler, the fold's among them.
import "../support/whatsapp";

// A keyword rule's tags and fields land on the contact in the reply's own transaction, unless the
// contact's row is busy (a webhook batch storing the person's next message holds it): then the change
// is kept in automation_contact_changes and a job folds it in moments later, in the order the rules
// fired. The reply's transaction never waits on the customer's row (decision 092).

async function setUp(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const organizationId = user.organization.id;
  const contact = async (phone: string, tags: string[] = []) => {
    const [row] = await rawQuery<{ id: string }>(
      `insert into contacts (organization_id, phone, wa_id, name, tags) values ($1, $2, $3, 'Wanjiku Kamau', $4) returning id`,
      [organizationId, phone, phone.slice(1), tags],
    );
    return row!.id;
  };
  const rule = await createRule(
    { organizationId, userId: user.user.id },
    { name: "Loans", matchType: "contains", keywords: ["mkopo"], reply: "Tuma LOAN kwa maelezo.", addTags: ["loan-lead"] },
  );
  const fired = (contactId: string, actions: FiredRule["actions"]): FiredRule => ({
    ruleId: rule.id,
    contactId,
    organizationId,
    runId: crypto.randomUUID(),
    actions,
  });
  return { organizationId, contact, rule, fired };
}

const contactOf = async (id: string) =>
  (await rawQuery<{ tags: string[]; attributes: Record<string, unknown> }>(`select tags, attributes from contacts where id = $1`, [id]))[0];
const kept = (id: string) =>
  rawQuery<{ add: string[]; remove: string[] }>(`select add, remove from automation_contact_changes where contact_id = $1 order by id`, [
    id,
  ]);
const firedCount = async (ruleId: string) =>
  (await rawQuery<{ n: number }>(`select fired_count as n from automation_rules where id = $1`, [ruleId]))[0]!.n;

describe("a rule's contact changes", () => {
  it("apply at once when nothing is kept for the contact, and queue behind changes already kept", async () => {
    const { contact, rule, fired } = await setUp("Tumaini Sacco");
    const free = await contact("+254712300001", ["member"]);
    const queued = await contact("+254712300002");
    // A change kept earlier for `queued` (its row was busy then).
    await rawQuery(
      `insert into automation_contact_changes (organization_id, contact_id, add, remove, fields)
       select organization_id, id, '{vip}', '{}', '{"county":"Nakuru"}' from contacts where id = $1`,
      [queued],
    );
    await db().transaction((tx) =>
      applyFiredRules(tx, [
        fired(free, [{ type: "tags", add: ["loan-lead"], remove: [] }]),
        fired(queued, [
          { type: "tags", add: ["loan-lead"], remove: ["vip"] },
          { type: "field", key: "county", value: "Kisumu" },
        ]),
      ]),
    );
    expect(await contactOf(free)).toEqual({ tags: ["loan-lead", "member"], attributes: {} });
    // Not applied ahead of the earlier change: behind it.
    expect(await contactOf(queued)).toEqual({ tags: [], attributes: {} });
    expect(await kept(queued)).toEqual([
      { add: ["vip"], remove: [] },
      { add: ["loan-lead"], remove: ["vip"] },
    ]);
    expect(await firedCount(rule.id)).toBe(2);
    // The job the transaction queued folds them in order: vip added, then removed; the later county wins.
    await drainJobs();
    expect(await contactOf(queued)).toEqual({ tags: ["loan-lead"], attributes: { county: "Kisumu" } });
    expect(await kept(queued)).toEqual([]);
  });

  it("of an erased contact are dropped with it", async () => {
    const { contact, fired } = await setUp("Baraka Traders");
    const gone = await contact("+254712300003");
    await rawQuery(
      `insert into automation_contact_changes (organization_id, contact_id, add, remove, fields)
       select organization_id, id, '{vip}', '{}', '{}' from contacts where id = $1`,
      [gone],
    );
    await db().transaction((tx) => applyFiredRules(tx, [fired(gone, [{ type: "tags", add: ["x"], remove: [] }])]));
    await rawQuery(`delete from contacts where id = $1`, [gone]);
    expect(await kept(gone)).toEqual([]);
    await drainJobs();
    expect(await db().transaction((tx) => foldKeptContactChanges(tx))).toBe(0);
  });

  // PostgreSQL only: PGlite has one connection, so no other transaction can hold a row.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "do not wait for a contact another transaction holds: kept, then folded once it is free",
    async () => {
      const { contact, rule, fired } = await setUp("Jamii Bora Shop");
      const busy = await contact("+254712300004", ["member"]);
      const free = await contact("+254712300005");
      const intake = new pg.Client({ connectionString: testDatabaseUrl() });
      await intake.connect();
      try {
        // As a webhook batch storing the customer's next message holds their row until it commits.
        await intake.query("begin");
        await intake.query(`update contacts set last_seen_at = now() where id = $1`, [busy]);
        // Resolves while the row is still held: had it waited, the test could not reach the commit below.
        await db().transaction((tx) =>
          applyFiredRules(tx, [
            fired(busy, [{ type: "tags", add: ["loan-lead"], remove: [] }]),
            fired(free, [{ type: "field", key: "branch", value: "Nyeri" }]),
          ]),
        );
        expect(await contactOf(free)).toEqual({ tags: [], attributes: { branch: "Nyeri" } });
        expect(await kept(busy)).toEqual([{ add: ["loan-lead"], remove: [] }]);
        // The fold skips a contact still held, and says what is left.
        expect(await db().transaction((tx) => foldKeptContactChanges(tx))).toBe(1);
        await intake.query("commit");
      } finally {
        await intake.end();
      }
      await drainJobs();
      expect(await contactOf(busy)).toEqual({ tags: ["loan-lead", "member"], attributes: {} });
      expect(await kept(busy)).toEqual([]);
      expect(await firedCount(rule.id)).toBe(2);
    },
  );

  it.skipIf(!process.env.TEST_DATABASE_URL)("a fold and a reply side by side never fold a change twice nor out of order", async () => {
    const { contact, fired } = await setUp("Upendo Pharmacy");
    const person = await contact("+254712300006");
    const other = new pg.Client({ connectionString: testDatabaseUrl() });
    await other.connect();
    try {
      await rawQuery(
        `insert into automation_contact_changes (organization_id, contact_id, add, remove, fields)
         select organization_id, id, '{a}', '{}', '{}' from contacts where id = $1`,
        [person],
      );
      // A fold holds the person's row (in `other`) while a reply for them is queued in this process.
      await other.query("begin");
      const folding = drizzle(other) as unknown as Executor;
      expect(await foldKeptContactChanges(folding)).toBe(0);
      await db().transaction((tx) => applyFiredRules(tx, [fired(person, [{ type: "tags", add: ["b"], remove: ["a"] }])]));
      await other.query("commit");
    } finally {
      await other.end();
    }
    // The fold's change ("a") first, then the reply's (add b, remove a): b alone.
    await drainJobs();
    expect(await contactOf(person)).toEqual({ tags: ["b"], attributes: {} });
    expect(await kept(person)).toEqual([]);
  });
});
