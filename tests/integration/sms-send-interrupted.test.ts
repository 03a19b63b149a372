import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { deliverQueuedSms, queueInboxSms } from "~/.server/domains/sms";
import { recoverUnansweredSms } from "~/.server/domains/sms/send";
import { SMS_PART_PRICE_CENTS } from "~/lib/sms-price";
import {
  africastalkingForFile,
  connectSms,
  DAYTIME,
  fundPrepaid,
  smsTenant,
  walletOf,
  reportDelivery,
  smsConversationWith,
} from "../support/sms";

// An SMS send interrupted between its claim (written before AT is called, so it is never sent twice)
// and the commit of AT's answer: a fault of the moment in the answers' transaction is tried again,
// and a claim whose answers never got written (the process died) is taken as sent without an
// answer once its time is up (decision 150): kept with its price held, never sent again, settled
// by a delivery report to its number.

const at = africastalkingForFile();

const messageOf = async (id: string) =>
  (
    await rawQuery<{ status: string; charge_state: string; attempts: number }>(
      `select status, charge_state, attempts from messages where id = $1`,
      [id],
    )
  )[0];

const smsRowsOf = (id: string) =>
  rawQuery<{ at_message_id: string | null }>(`select at_message_id from sms_messages where message_id = $1`, [id]);

const sendsTo = (phone: string) => at.sandbox.sent().filter((s) => s.recipients.some((r) => r.number === phone)).length;

/**
 * The next `times` inserts into sms_messages of SMS AT accepted (an AT id) fail as a deadlock would
 * (40P01), in whichever transaction makes them.
 */
async function deadlockNextSmsInserts(times: number) {
  await rawQuery(`create table if not exists test_sms_faults (left_to_fail int not null)`);
  await rawQuery(`delete from test_sms_faults`);
  await rawQuery(`insert into test_sms_faults values ($1)`, [times]);
  await rawQuery(`
    create or replace function test_sms_fault() returns trigger language plpgsql as $$
    begin
      if (select left_to_fail from test_sms_faults) > 0 then
        -- Counted outside the failing transaction's reach: a sequence's nextval is never rolled back.
        if nextval('test_sms_fault_seq') <= (select left_to_fail from test_sms_faults) then
          raise exception 'deadlock detected (made by the test)' using errcode = '40P01';
        end if;
      end if;
      return new;
    end $$`);
  await rawQuery(`drop sequence if exists test_sms_fault_seq`);
  await rawQuery(`create sequence test_sms_fault_seq`);
  await rawQuery(`drop trigger if exists test_sms_fault on sms_messages`);
  await rawQuery(
    `create trigger test_sms_fault before insert on sms_messages for each row when (new.at_message_id is not null) execute function test_sms_fault()`,
  );
}

async function noMoreFaults() {
  await rawQuery(`drop trigger if exists test_sms_fault on sms_messages`);
}

describe("an SMS send interrupted after its claim", () => {
  it("writes AT's answer after a deadlock in its transaction: sent once, stored with AT's id, charged once", async () => {
    const t = await smsTenant("Duka Kizuizi");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const phone = "+254712000301";
    const conversationId = await smsConversationWith(t, token, phone, "9301");
    const queued = await queueInboxSms(t.actor, { conversationId, body: "Oda yako iko njiani" }, DAYTIME);
    await deadlockNextSmsInserts(2);
    try {
      expect(await deliverQueuedSms(queued.messageId)).toBe("sent");
    } finally {
      await noMoreFaults();
    }
    expect(sendsTo(phone)).toBe(1);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "sent", charge_state: "charged" });
    const rows = await smsRowsOf(queued.messageId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.at_message_id).toMatch(/^ATXid_/);
    expect(await walletOf(t)).toEqual({ balance: 1000 - SMS_PART_PRICE_CENTS, held: 0 });
    // Its job run again sends nothing.
    expect(await deliverQueuedSms(queued.messageId)).toBe("skipped");
    expect(sendsTo(phone)).toBe(1);
  });

  it("takes a claim whose answers were never written as sent without an answer once its time is up, never sending it again", async () => {
    const t = await smsTenant("Duka Imekatika");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const phone = "+254712000302";
    const conversationId = await smsConversationWith(t, token, phone, "9401");
    const queued = await queueInboxSms(t.actor, { conversationId, body: "Karibu tena" }, DAYTIME);
    // The process died after the claim: attempts written, nothing else.
    await rawQuery(`update messages set attempts = 1, locked_until = now() + interval '10 minutes' where id = $1`, [queued.messageId]);

    // Within the claim's time it is left to its batch.
    expect(await recoverUnansweredSms()).toBe(0);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "queued", attempts: 1 });

    await rawQuery(`update messages set locked_until = now() - interval '1 second' where id = $1`, [queued.messageId]);
    expect(await recoverUnansweredSms()).toBe(1);
    expect(await recoverUnansweredSms()).toBe(0);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "sent", charge_state: "held" });
    expect(await smsRowsOf(queued.messageId)).toEqual([{ at_message_id: null }]);
    expect(await walletOf(t)).toEqual({ balance: 1000, held: SMS_PART_PRICE_CENTS });
    const [check] = await rawQuery<{ n: string }>(
      `select count(*) as n from jobs where queue = 'sms.settle-unknown' and payload->>'messageId' = $1`,
      [queued.messageId],
    );
    expect(Number(check!.n)).toBe(1);
    // Never handed to AT again.
    expect(await deliverQueuedSms(queued.messageId)).toBe("skipped");
    expect(sendsTo(phone)).toBe(0);

    // A delivery report to the number (AT had sent it after all) settles it: charged once.
    const report = new URLSearchParams({ id: "ATXid_sent_before_the_crash", status: "Success", phoneNumber: phone, networkCode: "63902" });
    expect((await reportDelivery(token, report)).status).toBe(200);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
    expect(await walletOf(t)).toEqual({ balance: 1000 - SMS_PART_PRICE_CENTS, held: 0 });
  });

  it("writes nothing more when a batch still trying to write its answer finds its claim already taken as unanswered", async () => {
    const t = await smsTenant("Duka Kuchelewa");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const phone = "+254712000303";
    const conversationId = await smsConversationWith(t, token, phone, "9501");
    const queued = await queueInboxSms(t.actor, { conversationId, body: "Asante" }, DAYTIME);
    // The batch's answer fails to commit four times (about 3 s of its retries)...
    await deadlockNextSmsInserts(4);
    try {
      const sending = deliverQueuedSms(queued.messageId);
      // ...and meanwhile its claim is taken as unanswered (as if its time were up).
      await vi.waitFor(async () => expect(sendsTo(phone)).toBe(1), { timeout: 30_000, interval: 20 });
      await rawQuery(`update messages set locked_until = now() - interval '1 second' where id = $1`, [queued.messageId]);
      expect(await recoverUnansweredSms()).toBe(1);
      expect(await sending).toBe("skipped");
    } finally {
      await noMoreFaults();
    }
    // One row, the recovery's; the hold kept for the report to settle; nothing charged twice.
    expect(await smsRowsOf(queued.messageId)).toEqual([{ at_message_id: null }]);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "sent", charge_state: "held" });
    expect(await walletOf(t)).toEqual({ balance: 1000, held: SMS_PART_PRICE_CENTS });
    expect(sendsTo(phone)).toBe(1);
  });
});
