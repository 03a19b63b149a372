import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { chargeAccepted, settleFailed } from "~/.server/domains/billing/charging";
import { messagesUsedThisMonth } from "~/.server/domains/billing/month-usage";
import { foldUsage } from "~/.server/domains/billing/usage-fold";
import { createVerifiedUser } from "../support/accounts";

// Decision 173: a charge adds its usage as a pending row (an insert that waits for nobody) and the
// usage fold adds pending rows into billing_usage_daily. Readers add what is pending, so "messages this
// month" never lags a charge; folding moves each row once.

async function postpaidTenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const organizationId = user.organization.id;
  await rawQuery(`update organizations set billing_type = 'postpaid', plan_type = 'Growth' where id = $1`, [organizationId]);
  return organizationId;
}

/** `n` template messages Meta accepted just now, not yet counted. */
async function acceptedMessages(organizationId: string, n: number) {
  return rawQuery<{ id: string; createdAt: string }>(
    `insert into messages (organization_id, direction, status, body, phone_number_id, pricing_category, charge_state, accepted_at, recipient_phone)
     select $1, 'outbound', 'sent', 'Habari', '1099', 'UTILITY', 'unbilled', now(), '+2547120000' || lpad(g::text, 2, '0')
     from generate_series(1, $2::int) g returning id, created_at::text as "createdAt"`,
    [organizationId, n],
  );
}

const daily = async (organizationId: string) =>
  (
    await rawQuery<{ messages: number }>(
      `select coalesce(sum(messages), 0)::int as messages from billing_usage_daily where organization_id = $1`,
      [organizationId],
    )
  )[0]!.messages;
const pending = async (organizationId: string) =>
  (await rawQuery<{ n: number }>(`select count(*)::int as n from billing_usage_pending where organization_id = $1`, [organizationId]))[0]!
    .n;

describe("the usage fold", () => {
  it("counts a charge at once, before the fold, and folds each pending row once", async () => {
    const org = await postpaidTenant("Usage Pending Ltd");
    const ids = await acceptedMessages(org, 3);
    await db().transaction((tx) => chargeAccepted(tx, ids));
    expect(await pending(org)).toBe(1);
    expect(await daily(org)).toBe(0);
    expect(await messagesUsedThisMonth(org)).toBe(3);

    // Two folds at once (two instances): each pending row is added once.
    await Promise.all([foldUsage(), foldUsage()]);
    expect(await pending(org)).toBe(0);
    expect(await daily(org)).toBe(3);
    expect(await messagesUsedThisMonth(org)).toBe(3);

    // A refund takes it back at once, and the fold makes the rollup agree.
    await db().transaction((tx) => settleFailed(tx, [ids[0]!]));
    expect(await messagesUsedThisMonth(org)).toBe(2);
    await foldUsage();
    expect(await daily(org)).toBe(2);
    expect(await messagesUsedThisMonth(org)).toBe(2);
  });

  // Two connections are needed to hold one charge open while another runs: PostgreSQL only.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "a charge does not wait for another charge of the same organisation, day and number to commit",
    async () => {
      const org = await postpaidTenant("Usage Concurrent Ltd");
      const first = await acceptedMessages(org, 1);
      const second = await acceptedMessages(org, 1);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let charged!: () => void;
      const firstCharged = new Promise<void>((resolve) => (charged = resolve));
      const open = db().transaction(async (tx) => {
        await chargeAccepted(tx, first);
        charged();
        await held;
      });
      await firstCharged;
      // With the day's row updated in place, this charge waited for the first one's commit: its lock
      // timeout made it fail. It now commits while the first is still open.
      const outcome = await db()
        .transaction(async (tx) => {
          await tx.execute(`set local lock_timeout = '2s'`);
          await chargeAccepted(tx, second);
        })
        .then(
          () => "committed",
          (error: unknown) => String((error as { cause?: { message?: string } }).cause?.message ?? error),
        );
      release();
      await open;
      expect(outcome).toBe("committed");
      expect(await messagesUsedThisMonth(org)).toBe(2);
    },
  );
});
