import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messages } from "~/.server/infrastructure/db/schema";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { createVerifiedUser } from "../support/accounts";
import { connectedNumber, envelope, inboundChange, metaJson, startReceiver, statusChange } from "../support/whatsapp";

// Decision 174: each message's wamid is a key of message_wamids, unique per tenant whatever month the
// message is in, written in the statement that gives the message its wamid. Duplicate deliveries are
// recognised by it and statuses find their message through it.

const A = { wabaId: "102290129340398", phoneNumberId: "106540352242922", display: "+254 711 000 101" };
const digits = (d: string) => d.replace(/\D/g, "");

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

async function tenant(name: string) {
  const { organization } = await createVerifiedUser({ businessName: name });
  await connectedNumber(organization.id, A);
  return organization.id;
}

const keysOf = (org: string) =>
  rawQuery<{ wamid: string; message_id: string; created_at: string }>(
    `select wamid, message_id, created_at::text from message_wamids where organization_id = $1 order by wamid`,
    [org],
  );

describe("message_wamids", () => {
  it("stores a customer's message delivered again in a later month once", async () => {
    const org = await tenant("Kericho Tea Growers");
    const inbound = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [
            inboundChange(A.phoneNumberId, digits(A.display), {
              id: "wamid.MONTHS",
              from: "254700000042",
              name: "Chebet",
              text: "Bei ya majani leo?",
              timestamp: 1750030100,
            }),
          ],
        },
      ]),
    );
    expect((await receiver.post(inbound)).status).toBe(200);
    await drainJobs();
    const [first] = await db().select().from(messages).where(eq(messages.wamid, "wamid.MONTHS"));
    expect(await keysOf(org)).toEqual([{ wamid: "wamid.MONTHS", message_id: first!.id, created_at: expect.any(String) }]);
    // As if it arrived last month: Meta delivers it again now, after the month turned.
    await rawQuery(`update messages set created_at = created_at - interval '40 days' where id = $1`, [first!.id]);
    await rawQuery(`update message_wamids set created_at = created_at - interval '40 days' where message_id = $1`, [first!.id]);
    expect((await receiver.post(inbound)).status).toBe(200);
    await drainJobs();
    const stored = await db().select().from(messages).where(eq(messages.organizationId, org));
    expect(stored.map((m) => [m.id, m.body])).toEqual([[first!.id, "Bei ya majani leo?"]]);
    expect((await keysOf(org)).map((k) => k.message_id)).toEqual([first!.id]);
  });

  it("applies a status to the outbound message its key names, and refuses a wamid another message holds", async () => {
    const org = await tenant("Nyeri Dairy");
    const [sent] = await db()
      .insert(messages)
      .values({
        organizationId: org,
        direction: "outbound",
        status: "accepted",
        body: "Malipo yako yamepokelewa",
        wamid: "wamid.OUTKEY",
        createdAt: new Date(Date.now() - 45 * 86_400_000),
      })
      .returning();
    // The insert wrote its key, with the message's created_at.
    const [key] = await rawQuery<{ message_id: string; same: boolean }>(
      `select k.message_id, k.created_at = m.created_at as same from message_wamids k join messages m on m.id = k.message_id where k.wamid = 'wamid.OUTKEY'`,
    );
    expect(key).toEqual({ message_id: sent!.id, same: true });
    const status = metaJson(
      envelope([
        {
          id: A.wabaId,
          changes: [statusChange(A.phoneNumberId, digits(A.display), [{ id: "wamid.OUTKEY", status: "delivered", timestamp: 1750030180 }])],
        },
      ]),
    );
    expect((await receiver.post(status)).status).toBe(200);
    await drainJobs();
    const [after] = await db().select().from(messages).where(eq(messages.id, sent!.id));
    expect(after!.status).toBe("delivered");
    // A second message of the tenant cannot take the same wamid, in the statement that tries.
    await expect(
      db()
        .insert(messages)
        .values({ organizationId: org, direction: "outbound", status: "accepted", body: "Nakala", wamid: "wamid.OUTKEY" }),
    ).rejects.toThrow();
    expect(await db().select().from(messages).where(eq(messages.organizationId, org))).toHaveLength(1);
  });

  it("keeps the key with the message's wamid: settled, erased, deleted", async () => {
    const org = await tenant("Eldoret Seeds");
    const [queued] = await db()
      .insert(messages)
      .values({ organizationId: org, direction: "outbound", status: "queued", body: "Mbegu zimefika" })
      .returning();
    expect(await keysOf(org)).toEqual([]);
    await rawQuery(`update messages set wamid = 'wamid.SETTLED', status = 'accepted' where id = $1`, [queued!.id]);
    expect((await keysOf(org)).map((k) => [k.wamid, k.message_id])).toEqual([["wamid.SETTLED", queued!.id]]);
    await rawQuery(`update messages set wamid = null where id = $1`, [queued!.id]);
    expect(await keysOf(org)).toEqual([]);
    await rawQuery(`update messages set wamid = 'wamid.AGAIN' where id = $1`, [queued!.id]);
    await rawQuery(`delete from messages where id = $1`, [queued!.id]);
    expect(await keysOf(org)).toEqual([]);
  });
});
