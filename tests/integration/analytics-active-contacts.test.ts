import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { foldAnalytics } from "~/.server/domains/analytics/fold";
import { createVerifiedUser } from "../support/accounts";
import { foldAll, HOUR, random } from "../support/analytics-history";

// The fold's active contacts (decision 036, set-based since decision 175): contact_first_counts counts
// each period of a contact's series (contact, number, grain) under the period just before it. Periods
// arrive late and out of order, several between the same two known ones in one batch, across several
// folds: after each fold the counts are what the periods themselves say, on PGlite and on PostgreSQL.

const NUMBER = "419000000000001";

/** The counts as the recorded periods define them (the keys whose count is not zero). */
async function expectedCounts(organizationId: string) {
  return rawQuery<{ key: string; contacts: number }>(
    `select concat_ws('|', phone_number_id, grain, at, previous_at) as key, count(*)::int as contacts
     from (select phone_number_id, grain, at,
                  coalesce(lag(at) over (partition by contact_id, phone_number_id, grain order by at), '-infinity') as previous_at
           from contact_active_periods where organization_id = $1) p
     group by 1 order by 1`,
    [organizationId],
  );
}

async function storedCounts(organizationId: string) {
  return rawQuery<{ key: string; contacts: number }>(
    `select concat_ws('|', phone_number_id, grain, at, previous_at) as key, contacts::int as contacts
     from contact_first_counts where organization_id = $1 and contacts <> 0 order by 1`,
    [organizationId],
  );
}

async function queueContactEvents(organizationId: string, events: { contactId: string; number: string; at: number }[]) {
  await rawQuery(
    `insert into analytics_events_pending (kind, organization_id, contact_id, phone_number_id, message_id, at)
     select 'contact', $1, c, n, gen_random_uuid(), a from unnest($2::uuid[], $3::text[], $4::timestamptz[]) as t(c, n, a)`,
    [organizationId, events.map((e) => e.contactId), events.map((e) => e.number), events.map((e) => new Date(e.at).toISOString())],
  );
}

describe("active contacts folded batch by batch", () => {
  it("counts each period under the one before it, whatever the order and the batches the periods arrive in", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Kilimo Bora Cooperative" });
    const o = organization.id;
    const next = random(175);
    const now = Date.now();
    const contacts = Array.from({ length: 4 }, () => randomUUID());
    // Few slots, so batches land between periods already known, and several between the same two:
    // ten hours in the last two days (inside the hour grain's 60 hours) and spread days of the month.
    const slots = Array.from({ length: 10 }, (_, i) => now - (2 + i * 4.5) * HOUR - 60_000).concat(
      Array.from({ length: 6 }, (_, i) => now - (3 + i * 5) * 24 * HOUR),
    );
    for (let fold = 0; fold < 8; fold++) {
      const events = Array.from({ length: 4 + Math.floor(next() * 10) }, () => ({
        contactId: contacts[Math.floor(next() * contacts.length)]!,
        number: next() < 0.7 ? NUMBER : "419000000000002",
        at: slots[Math.floor(next() * slots.length)]! + Math.floor(next() * 600_000),
      }));
      // The same contact again at the same time in the same batch: counted once.
      events.push({ ...events[0]! });
      await queueContactEvents(o, events);
      await foldAll();
      expect(await storedCounts(o), `after fold ${fold}`).toEqual(await expectedCounts(o));
    }
    // Counts moved (a period learnt of an earlier one, so its count left the key it had): the late path ran.
    const [moved] = await rawQuery<{ n: number }>(
      `select count(*)::int as n from contact_first_counts where organization_id = $1 and contacts = 0`,
      [o],
    );
    expect(moved!.n).toBeGreaterThan(0);
    const [periods] = await rawQuery<{ n: number }>(`select count(*)::int as n from contact_active_periods where organization_id = $1`, [
      o,
    ]);
    expect(periods!.n).toBeGreaterThan(40);
  });

  it("answers nothing left to fold once the events are folded, and a second fold changes nothing", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Maji Safi Water Services" });
    const o = organization.id;
    const contact = randomUUID();
    await queueContactEvents(o, [
      { contactId: contact, number: NUMBER, at: Date.now() - 5 * HOUR },
      { contactId: contact, number: NUMBER, at: Date.now() - 30 * HOUR },
    ]);
    await foldAll();
    const before = await storedCounts(o);
    expect(before.length).toBeGreaterThan(0);
    expect(await foldAnalytics()).toEqual({ deltas: 0, events: 0 });
    // The same periods again: already known, nothing moves.
    await queueContactEvents(o, [{ contactId: contact, number: NUMBER, at: Date.now() - 5 * HOUR }]);
    await foldAll();
    expect(await storedCounts(o)).toEqual(before);
  });
});
