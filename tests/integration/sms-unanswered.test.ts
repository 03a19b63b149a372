import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { deliverQueuedSms, queueInboxSms, settleUnknownSms } from "~/.server/domains/sms";
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
import { SLOW_ANSWER_NUMBER } from "@jumbe/sandbox/africastalking";

// Issue 77 (decision 150): an SMS whose send ends without AT's answer may have gone out. It stays
// sent with its price held until a delivery report (or the later check) settles it: delivered is
// charged once, failed released; a definite refusal still fails at once.

// The sandbox holds its answer to the slow number far past Jumbe's (shortened) timeout.
// 1.5 s: long enough for the sandbox to have read the request on a loaded machine (it counts it then), far short of its answer.
const at = africastalkingForFile({ sandbox: { slowAnswerMs: 600_000 }, env: { AFRICASTALKING_TIMEOUT_MS: 1500 } });

const messageOf = async (id: string) =>
  (
    await rawQuery<{ status: string; charge_state: string; error_title: string | null }>(
      `select status, charge_state, error_title from messages where id = $1`,
      [id],
    )
  )[0];

const sendsTo = (phone: string) => at.sandbox.sent().filter((s) => s.recipients.some((r) => r.number === phone)).length;

describe("an SMS whose send had no answer", () => {
  it("is sent once under a retried job, kept sent with its price held, and charged once when its report says delivered", async () => {
    const t = await smsTenant("Duka Polepole");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const conversationId = await smsConversationWith(t, token, SLOW_ANSWER_NUMBER, "9001");
    const queued = await queueInboxSms(t.actor, { conversationId, body: "Oda yako imefika" }, DAYTIME);

    expect(await deliverQueuedSms(queued.messageId)).toBe("unknown");
    expect(await deliverQueuedSms(queued.messageId)).toBe("skipped");
    expect(sendsTo(SLOW_ANSWER_NUMBER)).toBe(1);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "sent", charge_state: "held" });
    expect(await walletOf(t)).toEqual({ balance: 1000, held: SMS_PART_PRICE_CENTS });

    // AT's own report (it did send it), posted twice: names the message, charges it once.
    await at.sandbox.flush();
    const report = at.forms().find((f) => f.phoneNumber === SLOW_ANSWER_NUMBER && f.status === "Success")!;
    expect((await reportDelivery(token, new URLSearchParams(report))).status).toBe(200);
    expect((await reportDelivery(token, new URLSearchParams(report))).status).toBe(200);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
    expect(await walletOf(t)).toEqual({ balance: 1000 - SMS_PART_PRICE_CENTS, held: 0 });
    const [sms] = await rawQuery<{ at_message_id: string }>(`select at_message_id from sms_messages where message_id = $1`, [
      queued.messageId,
    ]);
    expect(sms!.at_message_id).toBe(report.id);
    // The later check finds it settled.
    expect(await settleUnknownSms(queued.messageId)).toBe("settled");
    expect(await walletOf(t)).toEqual({ balance: 1000 - SMS_PART_PRICE_CENTS, held: 0 });
  });

  it("is released when its report says failed, or when no report comes; another tenant's report finds nothing", async () => {
    const t = await smsTenant("Duka Hakuna Jibu");
    const token = await connectSms(t);
    const other = await smsTenant("Duka Jirani");
    const otherToken = await connectSms(other);
    await fundPrepaid(t, 1000);
    const conversationId = await smsConversationWith(t, token, SLOW_ANSWER_NUMBER, "9101");
    const first = await queueInboxSms(t.actor, { conversationId, body: "Ya kwanza" }, DAYTIME);
    const second = await queueInboxSms(t.actor, { conversationId, body: "Ya pili" }, DAYTIME);
    expect(await deliverQueuedSms(first.messageId)).toBe("unknown");
    expect(await deliverQueuedSms(second.messageId)).toBe("unknown");
    expect(await walletOf(t)).toEqual({ balance: 1000, held: 2 * SMS_PART_PRICE_CENTS });

    const failed = new URLSearchParams({
      id: "ATXid_made_up_for_the_first",
      status: "Failed",
      phoneNumber: SLOW_ANSWER_NUMBER,
      failureReason: "UserIsInactive",
      networkCode: "63902",
      retryCount: "0",
    });
    expect((await reportDelivery(otherToken, failed)).status).toBe(200);
    expect(await messageOf(first.messageId)).toMatchObject({ status: "sent", charge_state: "held" });
    expect((await reportDelivery(token, failed)).status).toBe(200);
    // The oldest unanswered SMS to that number is the one the report names.
    expect(await messageOf(first.messageId)).toMatchObject({ status: "failed", charge_state: "released", error_title: "Failed" });
    expect(await walletOf(t)).toEqual({ balance: 1000, held: SMS_PART_PRICE_CENTS });

    // No report for the second: the later check fails it and releases its hold, once.
    expect(await settleUnknownSms(second.messageId)).toBe("failed");
    expect(await settleUnknownSms(second.messageId)).toBe("settled");
    expect(await messageOf(second.messageId)).toMatchObject({ status: "failed", charge_state: "released" });
    expect(await walletOf(t)).toEqual({ balance: 1000, held: 0 });
    const [check] = await rawQuery<{ n: string }>(
      `select count(*) as n from jobs where queue = 'sms.settle-unknown' and payload->>'messageId' = $1`,
      [second.messageId],
    );
    expect(Number(check!.n)).toBe(1);
  });

  it("still fails at once, hold released, when AT refuses the recipient", async () => {
    const t = await smsTenant("Duka Kataa");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const conversationId = await smsConversationWith(t, token, "+254700000403", "9201");
    const queued = await queueInboxSms(t.actor, { conversationId, body: "Habari" }, DAYTIME);
    expect(await deliverQueuedSms(queued.messageId)).toBe("failed");
    expect(await messageOf(queued.messageId)).toMatchObject({
      status: "failed",
      charge_state: "released",
      error_title: "InvalidPhoneNumber",
    });
    expect(await walletOf(t)).toEqual({ balance: 1000, held: 0 });
  });
});

describe("a delivery report that comes before the send's answer is written", () => {
  /**
   * Jumbe's client pointed at a forwarder: AT's answer to a send is held back until `beforeAnswer`
   * has run with AT's message id (the report arrives while the send is between its call and its write).
   */
  async function reportsFirst(beforeAnswer: (atId: string, phone: string) => Promise<void>) {
    const proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (c: Buffer) => chunks.push(c));
      request.on("end", () => {
        void (async () => {
          const headers = Object.fromEntries(
            Object.entries(request.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)),
          ) as Record<string, string>;
          const answer = await fetch(`${at.base}${request.url}`, { method: request.method, headers, body: Buffer.concat(chunks) });
          const text = await answer.text();
          const recipient = (JSON.parse(text) as { SMSMessageData?: { Recipients?: { messageId: string; number: string }[] } })
            .SMSMessageData?.Recipients?.[0];
          if (recipient?.messageId && recipient.messageId !== "None") await beforeAnswer(recipient.messageId, recipient.number);
          response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(text);
        })();
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    setEnv({ ...env(), AFRICASTALKING_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
    return () => new Promise<void>((resolve) => proxy.close(() => resolve()));
  }

  it("is kept, then applied once when the send stores AT's id: delivered and charged once", async () => {
    const t = await smsTenant("Duka Ripoti Mapema");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    const phone = "+254711300900";
    const conversationId = await smsConversationWith(t, token, phone, "9301");
    const queued = await queueInboxSms(t.actor, { conversationId, body: "Oda yako iko njiani" }, DAYTIME);
    let early = "";
    const close = await reportsFirst(async (atId, number) => {
      early = atId;
      const report = (status: string) =>
        new URLSearchParams({ id: atId, status, phoneNumber: number, networkCode: "63902", retryCount: "0" });
      // Buffered then Success, Success twice: AT's own order and its repeats.
      for (const status of ["Buffered", "Success", "Success"]) expect((await reportDelivery(token, report(status))).status).toBe(200);
    });
    try {
      expect(await deliverQueuedSms(queued.messageId)).toBe("sent");
    } finally {
      await close();
    }
    expect(early).not.toBe("");
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
    expect(await walletOf(t)).toEqual({ balance: 1000 - SMS_PART_PRICE_CENTS, held: 0 });
    const [sms] = await rawQuery<{ at_message_id: string; report_status: string }>(
      `select at_message_id, report_status from sms_messages where message_id = $1`,
      [queued.messageId],
    );
    expect(sms).toEqual({ at_message_id: early, report_status: "Success" });
    expect(await rawQuery(`select * from sms_early_reports where organization_id = $1`, [t.organizationId])).toEqual([]);
    // A report after the write finds the message by its id and changes nothing more.
    const late = new URLSearchParams({ id: early, status: "Failed", phoneNumber: phone, failureReason: "UserIsInactive" });
    expect((await reportDelivery(token, late)).status).toBe(200);
    expect(await messageOf(queued.messageId)).toMatchObject({ status: "delivered", charge_state: "charged" });
    expect(await walletOf(t)).toEqual({ balance: 1000 - SMS_PART_PRICE_CENTS, held: 0 });
  });

  it("a report for an id no send of Jumbe's stores stays unclaimed, changes no message and is another tenant's never", async () => {
    const t = await smsTenant("Duka Ripoti Ngeni");
    const token = await connectSms(t);
    const other = await smsTenant("Duka Ripoti Jirani");
    const otherToken = await connectSms(other);
    const form = new URLSearchParams({ id: "ATXid_another_tools_message", status: "Success", phoneNumber: "+254711300901" });
    expect((await reportDelivery(otherToken, form)).status).toBe(200);
    expect((await reportDelivery(token, form)).status).toBe(200);
    expect((await reportDelivery(token, form)).status).toBe(200);
    const kept = await rawQuery<{ organization_id: string }>(
      `select organization_id from sms_early_reports where at_message_id = 'ATXid_another_tools_message' order by organization_id`,
    );
    expect(kept.map((k) => k.organization_id).sort()).toEqual([t.organizationId, other.organizationId].sort());
    const [moved] = await rawQuery<{ n: string }>(
      `select count(*) as n from messages where organization_id = $1 and status = 'delivered'`,
      [t.organizationId],
    );
    expect(Number(moved!.n)).toBe(0);
  });
});
