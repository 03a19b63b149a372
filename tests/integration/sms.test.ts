import { describe, expect, it } from "vitest";
import { africastalkingForFile, reportDelivery } from "../support/sms";
import { rawQuery } from "~/.server/infrastructure/db/client";
import {
  deliverQueuedSms,
  queueInboxSms,
  receiveIncomingSms,
  receiveSmsOptOut,
  saveSmsConnection,
  smsConnectionView,
  testSmsConnection,
} from "~/.server/domains/sms";
import { inSmsQuietHours } from "~/.server/domains/sms/quiet-hours";
import { smsEstimate, SMS_PART_PRICE_CENTS } from "~/lib/sms-price";
import * as smsPage from "~/routes/app/settings/sms";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { API_KEY, SENDER_ID, USERNAME } from "@jumbe/sandbox/africastalking/test-support";

// Issue 77 (decision 148): Settings → SMS, Africa's Talking's callbacks bound to the tenant of their
// token, and an SMS sent from a conversation, priced per part and charged once.

const at = africastalkingForFile();

/** 23:00 in Nairobi, days after anything a test writes. */
const NIGHT_LATER = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 3 * 86_400_000 + 20 * 3_600_000);
/** 10:00 in Nairobi: outside quiet hours. */
const DAYTIME = new Date("2026-11-30T07:00:00Z");

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const [user] = await rawQuery<{ id: string; organization_id: string }>(`select id, organization_id from users where email = $1`, [
    account.email,
  ]);
  const actor = { user: { id: user!.id }, organization: { id: user!.organization_id }, role: "owner" as const };
  return { ...account, actor, organizationId: user!.organization_id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

async function connect(t: Tenant) {
  await saveSmsConnection(t.actor, { username: USERNAME, apiKey: API_KEY, senderId: SENDER_ID });
  const [row] = await rawQuery<{ callback_token: string }>(`select callback_token from sms_connections where organization_id = $1`, [
    t.organizationId,
  ]);
  return row!.callback_token;
}

async function fund(t: Tenant, cents: number) {
  await rawQuery(`update organizations set billing_type = 'prepaid' where id = $1`, [t.organizationId]);
  await rawQuery(
    `insert into wallets (organization_id, balance_cents) values ($1, $2)
     on conflict (organization_id) do update set balance_cents = excluded.balance_cents, held_cents = 0`,
    [t.organizationId, cents],
  );
}

const wallet = async (t: Tenant) =>
  (
    await rawQuery<{ balance_cents: string; held_cents: string }>(
      `select balance_cents, held_cents from wallets where organization_id = $1`,
      [t.organizationId],
    )
  ).map((w) => ({ balance: Number(w.balance_cents), held: Number(w.held_cents) }))[0];

const incoming = (fields: Record<string, string>) =>
  new URLSearchParams({ to: "40404", date: "2026-11-30 07:00:00", linkId: "SampleLinkId1", ...fields });

const messagesOf = (t: Tenant) =>
  rawQuery<{
    id: string;
    direction: string;
    channel: string;
    status: string;
    body: string;
    contact_id: string;
    error_title: string | null;
  }>(`select id, direction, channel, status, body, contact_id, error_title from messages where organization_id = $1 order by seq`, [
    t.organizationId,
  ]);

describe("Settings → SMS", () => {
  it("connects with the key sealed and never shown, tests the balance, logs every change, and refuses agents", async () => {
    const t = await tenant("Duka la SMS");
    const cookie = await signedInCookie(t.email, t.password);
    const saved = await run(
      smsPage.action,
      formRequest("/settings/sms", { intent: "save", username: USERNAME, apiKey: API_KEY, senderId: SENDER_ID }, { cookie }),
    );
    expect(saved.status).toBe(302);
    const page = await run(smsPage.loader, getRequest("/settings/sms", { cookie }));
    expect(page.data.connection).toMatchObject({
      username: USERNAME,
      senderId: SENDER_ID,
      apiKeyHint: API_KEY.slice(-4),
      status: "untested",
    });
    expect(page.data.connection.callbackUrls.delivery).toMatch(/\/webhooks\/sms\/[\w-]{20,}\/delivery$/);
    expect(JSON.stringify(page.data)).not.toContain(API_KEY);
    const [stored] = await rawQuery<{ api_key_sealed: string }>(`select api_key_sealed from sms_connections where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(stored!.api_key_sealed).not.toContain(API_KEY);

    const tested = await testSmsConnection(t.actor);
    expect(tested).toMatchObject({ working: true, balance: expect.stringMatching(/^KES /) });
    // A wrong key: failing, in words.
    await saveSmsConnection(t.actor, { username: USERNAME, apiKey: "atsk_wrong_key_0000", senderId: SENDER_ID });
    const failing = await testSmsConnection(t.actor);
    expect(failing.working).toBe(false);
    expect(failing.reason).toContain("API key");
    expect((await smsConnectionView(t.organizationId))?.status).toBe("failing");

    const log = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and action like 'SMS%' order by created_at, id`,
      [t.organizationId],
    );
    expect(log.map((l) => l.action)).toEqual(["SMS connected", "SMS connection tested", "SMS connection changed", "SMS connection tested"]);
    expect(JSON.stringify(log)).not.toContain(API_KEY);

    // A first connection without a key is refused on its field.
    const other = await tenant("Bila Ufunguo");
    await expect(saveSmsConnection(other.actor, { username: USERNAME, senderId: "" })).rejects.toMatchObject({
      status: 422,
      field: "apiKey",
    });
    await expect(saveSmsConnection({ ...other.actor, role: "agent" }, { username: USERNAME, apiKey: API_KEY })).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe("Africa's Talking's callbacks", () => {
  it("opens the contact's conversation with an incoming SMS once, keeps tenants apart, and 404s a foreign token", async () => {
    const a = await tenant("Duka A");
    const b = await tenant("Duka B");
    const tokenA = await connect(a);
    await connect(b);
    const form = incoming({ from: "+254711000111", text: "Habari, bei gani?", id: "5001" });
    expect((await receiveIncomingSms(tokenA, form)).status).toBe(200);
    expect((await receiveIncomingSms(tokenA, form)).status).toBe(200);
    const rows = await messagesOf(a);
    expect(rows).toMatchObject([{ direction: "inbound", channel: "sms", status: "received", body: "Habari, bei gani?" }]);
    expect(await messagesOf(b)).toEqual([]);
    const [conversation] = await rawQuery<{ unread_count: number }>(`select unread_count from conversations where organization_id = $1`, [
      a.organizationId,
    ]);
    expect(conversation!.unread_count).toBe(1);
    expect((await receiveIncomingSms("unknown-token-000000000000", form)).status).toBe(404);
    expect((await receiveIncomingSms(tokenA, incoming({ from: "0711", text: "x", id: "5002" }))).status).toBe(400);
    expect((await receiveIncomingSms(tokenA, incoming({ from: "+254711000111", text: "x", id: "" }))).status).toBe(400);
  });

  it("STOP and ACHA by SMS, and AT's opt-out, write the consent ledger", async () => {
    const t = await tenant("Duka Consent");
    const token = await connect(t);
    await receiveIncomingSms(token, incoming({ from: "+254711000222", text: "ACHA", id: "6001" }));
    const optIn = async (phone: string) =>
      (
        await rawQuery<{ opt_in: string }>(`select opt_in from contacts where organization_id = $1 and phone = $2`, [
          t.organizationId,
          phone,
        ])
      )[0]?.opt_in;
    expect(await optIn("+254711000222")).toBe("opted_out");
    expect((await receiveSmsOptOut(token, new URLSearchParams({ senderId: SENDER_ID, phoneNumber: "+254711000333" }))).status).toBe(200);
    expect((await receiveSmsOptOut(token, new URLSearchParams({ senderId: SENDER_ID, phoneNumber: "+254711000333" }))).status).toBe(200);
    expect(await optIn("+254711000333")).toBe("opted_out");
    const events = await rawQuery<{ n: string }>(`select count(*) as n from consent_events where organization_id = $1`, [t.organizationId]);
    expect(Number(events[0]!.n)).toBe(2);
  });
});

describe("an SMS from a conversation", () => {
  it("is priced per part, charged once under a retried job, and its delivery report moves its status once", async () => {
    const t = await tenant("Duka Send");
    const token = await connect(t);
    await fund(t, 1000);
    await receiveIncomingSms(token, incoming({ from: "+254711000444", text: "Nataka kuagiza", id: "7001" }));
    const [conversation] = await rawQuery<{ id: string }>(`select id from conversations where organization_id = $1`, [t.organizationId]);
    const body = "Asante! Oda yako iko tayari. ".repeat(7).trim(); // about 200 GSM-7 characters: two parts
    const queued = await queueInboxSms(t.actor, { conversationId: conversation!.id, body }, DAYTIME);
    expect(queued).toMatchObject({ parts: 2, priceCents: 2 * SMS_PART_PRICE_CENTS });
    expect(await wallet(t)).toEqual({ balance: 1000, held: 200 });
    // The job runs twice (a retry after a crash): one send, one charge.
    expect(await deliverQueuedSms(queued.messageId)).toBe("sent");
    expect(await deliverQueuedSms(queued.messageId)).toBe("skipped");
    expect(await wallet(t)).toEqual({ balance: 800, held: 0 });
    const [sms] = await rawQuery<{ at_message_id: string; parts: number }>(
      `select at_message_id, parts from sms_messages where message_id = $1`,
      [queued.messageId],
    );
    expect(sms!.parts).toBe(2);
    expect(at.sandbox.sent().filter((message) => JSON.stringify(message).includes("+254711000444")).length).toBe(1);

    // Reports: Sent, then Success; a duplicate and a late Failed change nothing; another tenant's token finds nothing.
    const report = (status: string, extra: Record<string, string> = {}) =>
      new URLSearchParams({
        id: sms!.at_message_id,
        status,
        phoneNumber: "+254711000444",
        networkCode: "63902",
        retryCount: "0",
        ...extra,
      });
    const other = await tenant("Duka Other");
    const otherToken = await connect(other);
    expect((await reportDelivery(otherToken, report("Failed", { failureReason: "UserInBlacklist" }))).status).toBe(200);
    expect((await reportDelivery(token, report("Sent"))).status).toBe(200);
    expect((await reportDelivery(token, report("Success"))).status).toBe(200);
    expect((await reportDelivery(token, report("Success"))).status).toBe(200);
    expect((await reportDelivery(token, report("Failed", { failureReason: "UserInBlacklist" }))).status).toBe(200);
    expect((await messagesOf(t)).find((m) => m.id === queued.messageId)).toMatchObject({ channel: "sms", status: "delivered" });
    expect((await reportDelivery(token, report("Whatever"))).status).toBe(400);
    expect((await reportDelivery("nope-nope-nope-nope-nope", report("Success"))).status).toBe(404);
  });

  it("refuses with words: a short wallet, an opted-out customer, quiet hours, another tenant's conversation", async () => {
    const t = await tenant("Duka Refusals");
    const token = await connect(t);
    await fund(t, 50);
    await receiveIncomingSms(token, incoming({ from: "+254711000555", text: "Hello", id: "8001" }));
    const [conversation] = await rawQuery<{ id: string }>(`select id from conversations where organization_id = $1`, [t.organizationId]);
    await expect(queueInboxSms(t.actor, { conversationId: conversation!.id, body: "Hi" }, DAYTIME)).rejects.toMatchObject({
      status: 402,
      message: expect.stringContaining("Top up"),
    });
    const stranger = await tenant("Duka Stranger");
    await connect(stranger);
    await expect(queueInboxSms(stranger.actor, { conversationId: conversation!.id, body: "Hi" }, DAYTIME)).rejects.toMatchObject({
      status: 404,
    });
    await fund(t, 1000);
    // 23:00 in Nairobi, more than a day after the customer wrote: quiet hours.
    await expect(queueInboxSms(t.actor, { conversationId: conversation!.id, body: "Hi" }, NIGHT_LATER)).rejects.toMatchObject({
      status: 409,
      code: "quiet_hours",
    });
    await receiveIncomingSms(token, incoming({ from: "+254711000555", text: "STOP", id: "8002" }));
    await expect(queueInboxSms(t.actor, { conversationId: conversation!.id, body: "Hi" }, DAYTIME)).rejects.toMatchObject({
      status: 409,
      code: "opted_out",
    });
    expect(await wallet(t)).toEqual({ balance: 1000, held: 0 });
  });

  it("counts parts as the operators do (GSM-7 160/153, Unicode 70/67) and quiet hours in Nairobi", () => {
    expect(smsEstimate("a".repeat(160))).toMatchObject({ parts: 1, priceCents: SMS_PART_PRICE_CENTS });
    expect(smsEstimate("a".repeat(161))).toMatchObject({ parts: 2, encoding: "GSM-7" });
    expect(smsEstimate("Karibu 😊".padEnd(71, "a"))).toMatchObject({ encoding: "UCS-2", parts: 2 });
    expect(smsEstimate("Ḿ".repeat(70))).toMatchObject({ encoding: "UCS-2", parts: 1 });
    expect(smsEstimate("Ḿ".repeat(135))).toMatchObject({ parts: 3, priceCents: 3 * SMS_PART_PRICE_CENTS });
    expect(inSmsQuietHours(new Date("2026-11-30T18:00:00Z"), null)).toBe(true); // 21:00 Nairobi
    expect(inSmsQuietHours(new Date("2026-11-30T05:00:00Z"), null)).toBe(false); // 08:00
    expect(inSmsQuietHours(new Date("2026-11-30T18:00:00Z"), new Date("2026-11-30T12:00:00Z"))).toBe(false);
  });
});
