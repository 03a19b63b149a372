import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { deliverQueuedSms, queueInboxSms, receiveSmsDeliveryReport } from "~/.server/domains/sms";
import { eraseContact } from "~/.server/domains/contacts/rights";
import { SMS_REPORT_QUEUE } from "~/.server/domains/sms/receivers";
import { SMS_PART_PRICE_CENTS } from "~/lib/sms-price";
import {
  africastalkingForFile,
  applyQueuedReports,
  connectSms,
  DAYTIME,
  fundPrepaid,
  smsTenant,
  walletOf,
  type SmsTenant,
  smsConversationWith,
} from "../support/sms";

// AT's delivery reports are queued by their callback (one insert) and applied by the batch in one
// transaction (receivers.ts applySmsReports): a burst of them after a campaign's fallback never
// holds the database's connections one report at a time. What a batch comes to is what the same
// reports applied one by one come to.

africastalkingForFile();

async function sentSms(t: SmsTenant, token: string, phone: string, id: string, body: string) {
  const conversationId = await smsConversationWith(t, token, phone, id);
  const queued = await queueInboxSms(t.actor, { conversationId, body }, DAYTIME);
  expect(await deliverQueuedSms(queued.messageId)).toBe("sent");
  const [sms] = await rawQuery<{ at_message_id: string }>(`select at_message_id from sms_messages where message_id = $1`, [
    queued.messageId,
  ]);
  return { messageId: queued.messageId, atId: sms!.at_message_id, phone };
}

const report = (sms: { atId: string; phone: string }, status: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({ id: sms.atId, status, phoneNumber: sms.phone, networkCode: "63902", retryCount: "0", ...extra });

const messageOf = async (id: string) =>
  (
    await rawQuery<{ status: string; charge_state: string; error_details: string | null }>(
      `select status, charge_state, error_details from messages where id = $1`,
      [id],
    )
  )[0];

describe("AT's delivery reports by the batch", () => {
  it("queues each report at its callback and applies a burst of them in one batch, as one by one would", async () => {
    const t = await smsTenant("Duka Ripoti Nyingi");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const a = await sentSms(t, token, "+254712000401", "9601", "Oda A");
    const b = await sentSms(t, token, "+254712000402", "9602", "Oda B");
    const c = await sentSms(t, token, "+254712000403", "9603", "Oda C");
    expect(await walletOf(t)).toEqual({ balance: 1000 - 3 * SMS_PART_PRICE_CENTS, held: 0 });
    const eventsBefore = Number(
      (await rawQuery<{ n: string }>(`select count(*) as n from inbox_events where organization_id = $1`, [t.organizationId]))[0]!.n,
    );

    // AT's order of things, final ones arriving before in-flight ones and twice; a report of another tool's id.
    const forms = [
      report(a, "Success"),
      report(a, "Sent"),
      report(a, "Success"),
      report(b, "Failed", { failureReason: "UserInBlacklist" }),
      report(b, "Success"),
      report(c, "Buffered"),
      new URLSearchParams({ id: "ATXid_someone_elses", status: "Success", phoneNumber: "+254712000499" }),
    ];
    for (const form of forms) expect((await receiveSmsDeliveryReport(token, form)).status).toBe(200);
    // Only queued so far: nothing moved.
    expect(await messageOf(a.messageId)).toMatchObject({ status: "sent" });
    const [waiting] = await rawQuery<{ n: string }>(`select count(*) as n from jobs where queue = $1 and finished_at is null`, [
      SMS_REPORT_QUEUE,
    ]);
    // The repeated Success of A is queued once while it waits.
    expect(Number(waiting!.n)).toBe(forms.length - 1);

    expect(await applyQueuedReports()).toBe(forms.length - 1);
    expect(await messageOf(a.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
    // B's first final report stands: failed, with AT's reason; AT accepted it (and charges for it), so it stays charged.
    expect(await messageOf(b.messageId)).toMatchObject({ status: "failed", charge_state: "charged", error_details: "UserInBlacklist" });
    expect(await messageOf(c.messageId)).toMatchObject({ status: "sent", charge_state: "charged" });
    expect(await walletOf(t)).toEqual({ balance: 1000 - 3 * SMS_PART_PRICE_CENTS, held: 0 });
    const reported = await rawQuery<{ message_id: string; report_status: string }>(
      `select message_id, report_status from sms_messages where message_id = any($1::uuid[]) order by message_id`,
      [[a.messageId, b.messageId, c.messageId]],
    );
    expect(Object.fromEntries(reported.map((r) => [r.message_id, r.report_status]))).toEqual({
      [a.messageId]: "Success",
      [b.messageId]: "Failed",
      // An in-flight report of an SMS already sent moves nothing, as one by one.
      [c.messageId]: null,
    });
    // The report of an id no send of Jumbe's stores is kept for a send about to store it, and moves nothing.
    expect(await rawQuery(`select at_message_id, status from sms_early_reports where organization_id = $1`, [t.organizationId])).toEqual([
      { at_message_id: "ATXid_someone_elses", status: "Success" },
    ]);
    // The inbox hears the two status changes, logged together.
    const eventsAfter = Number(
      (await rawQuery<{ n: string }>(`select count(*) as n from inbox_events where organization_id = $1`, [t.organizationId]))[0]!.n,
    );
    expect(eventsAfter - eventsBefore).toBe(2);

    // Applied again (AT repeating them all after the batch): nothing changes, nothing is charged twice.
    for (const form of forms) expect((await receiveSmsDeliveryReport(token, form)).status).toBe(200);
    await applyQueuedReports();
    expect(await messageOf(a.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
    expect(await messageOf(b.messageId)).toMatchObject({ status: "failed", charge_state: "charged" });
    expect(await walletOf(t)).toEqual({ balance: 1000 - 3 * SMS_PART_PRICE_CENTS, held: 0 });
  });

  it("an erased person's number leaves the reports to it, waiting or applied, and a waiting one still settles its SMS", async () => {
    const t = await smsTenant("Duka Sahau Namba");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const gone = await sentSms(t, token, "+254712000411", "9611", "Oda ya kufutwa");
    const kept = await sentSms(t, token, "+254712000412", "9612", "Oda nyingine");
    // Each report's number, by its SMS and status (Sent applied, Success waiting).
    const numbersIn = async () =>
      Object.fromEntries(
        (
          await rawQuery<{ at: string; status: string; phone: string }>(
            `select payload ->> 'atMessageId' as at, payload ->> 'status' as status, payload ->> 'phone' as phone from jobs
             where queue = $1 and payload ->> 'organizationId' = $2`,
            [SMS_REPORT_QUEUE, t.organizationId],
          )
        ).map((r) => [`${r.at === gone.atId ? "gone" : "kept"} ${r.status}`, r.phone]),
      );
    // One report applied, then one waiting for the batch, for each of the two.
    for (const sms of [gone, kept]) await receiveSmsDeliveryReport(token, report(sms, "Sent"));
    await applyQueuedReports();
    for (const sms of [gone, kept]) await receiveSmsDeliveryReport(token, report(sms, "Success"));
    const [contact] = await rawQuery<{ id: string }>(`select id from contacts where organization_id = $1 and phone = $2`, [
      t.organizationId,
      gone.phone,
    ]);
    await eraseContact({ organizationId: t.organizationId, userId: t.actor.user.id }, contact!.id);
    expect(await numbersIn()).toEqual({ "gone Sent": "", "gone Success": "", "kept Sent": kept.phone, "kept Success": kept.phone });
    await applyQueuedReports();
    expect(await messageOf(gone.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
    expect(await messageOf(kept.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
  });
});
