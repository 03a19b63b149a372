import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { deliverQueuedSms, receiveIncomingSms } from "~/.server/domains/sms";
import * as keyApi from "~/routes/api/developer.api-key";
import { SMS_PART_PRICE_CENTS } from "~/lib/sms-price";
import { startApiV1Server } from "../support/api-v1-server";
import { signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import {
  africastalkingForFile,
  connectSms,
  fundPrepaid,
  incomingSms,
  smsTenant,
  walletOf,
  type SmsTenant,
  reportDelivery,
} from "../support/sms";

// Issue 77 (decision 150): SMS in the public API. POST /api/v1/sms with an Idempotency-Key (one SMS,
// one hold, however often it is retried), the parts and price in the answer, GET for its status and
// report, the message.delivered webhook queued; another tenant's id 404s, bad input is a 4xx.

const at = africastalkingForFile();
let api: Awaited<ReturnType<typeof startApiV1Server>>;
beforeAll(async () => {
  api = await startApiV1Server();
});
afterAll(async () => {
  await api.close();
});

async function keyOf(t: SmsTenant) {
  const cookie = await signedInCookie(t.email, t.password);
  return (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }))).data.key as string;
}

/** The customer writes by SMS just now, so quiet hours never apply whenever the suite runs. */
async function customerWrites(token: string, from: string, id: string, text = "Habari") {
  const date = new Date().toISOString().slice(0, 19).replace("T", " ");
  await receiveIncomingSms(token, incomingSms({ from, text, id, date }));
}

describe("/api/v1/sms", () => {
  it("sends once per Idempotency-Key with its parts and price, answers its delivery, and keeps tenants apart", async () => {
    const t = await smsTenant("Duka API SMS");
    const token = await connectSms(t);
    await fundPrepaid(t, 1000);
    await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, 'https://hooks.example.com/jumbe', $2)`, [
      t.organizationId,
      ["message.delivered", "message.received"],
    ]);
    const key = await keyOf(t);
    await customerWrites(token, "+254711300400", "8801");
    const body = { to: "+254711300400", text: "Oda 42 iko tayari 😊" };

    const first = await api.call(key, "POST", "/api/v1/sms", body, { "Idempotency-Key": "sms-1" });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      status: "queued",
      to: "+254711300400",
      encoding: "UCS-2",
      parts: 1,
      priceCents: SMS_PART_PRICE_CENTS,
      currency: "KES",
      source: "api",
      report: null,
    });
    const again = await api.call(key, "POST", "/api/v1/sms", body, { "Idempotency-Key": "sms-1" });
    expect([again.status, again.body.id]).toEqual([202, first.body.id]);
    expect(await walletOf(t)).toEqual({ balance: 1000, held: SMS_PART_PRICE_CENTS });
    const conflict = await api.call(key, "POST", "/api/v1/sms", { ...body, text: "Another" }, { "Idempotency-Key": "sms-1" });
    expect([conflict.status, conflict.body.code]).toEqual([409, "idempotency_conflict"]);

    // In the customer's conversation, beside their SMS.
    const rows = await rawQuery<{ direction: string; channel: string }>(
      `select direction, channel from messages where organization_id = $1 order by seq`,
      [t.organizationId],
    );
    expect(rows).toEqual([
      { direction: "inbound", channel: "sms" },
      { direction: "outbound", channel: "sms" },
    ]);

    expect(await deliverQueuedSms(first.body.id)).toBe("sent");
    await at.sandbox.flush();
    const report = at.forms().find((f) => f.phoneNumber === "+254711300400" && f.status === "Success")!;
    expect((await reportDelivery(token, new URLSearchParams(report))).status).toBe(200);
    const delivered = await api.call(key, "GET", `/api/v1/sms/${first.body.id}`);
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({ status: "delivered", report: { status: "Success" }, error: null });
    expect(await walletOf(t)).toEqual({ balance: 1000 - SMS_PART_PRICE_CENTS, held: 0 });
    // Webhooks out say the channel: the customer's SMS and the report of the one sent.
    const hooks = await rawQuery<{ event_type: string; channel: string; direction: string }>(
      `select event_type, payload->'data'->>'channel' as channel, payload->'data'->>'direction' as direction
       from webhook_deliveries where organization_id = $1 order by event_type`,
      [t.organizationId],
    );
    expect(hooks).toEqual([
      { event_type: "message.delivered", channel: "sms", direction: "outbound" },
      { event_type: "message.received", channel: "sms", direction: "inbound" },
    ]);
    // So do the messages API's answers.
    const listed = await api.call(key, "GET", "/api/v1/messages");
    expect(listed.body.data.map((m: { channel: string; direction: string }) => [m.direction, m.channel])).toEqual([
      ["outbound", "sms"],
      ["inbound", "sms"],
    ]);

    const other = await smsTenant("Duka Jirani SMS");
    const otherKey = await keyOf(other);
    expect((await api.call(otherKey, "GET", `/api/v1/sms/${first.body.id}`)).status).toBe(404);
    expect((await api.call(otherKey, "GET", "/api/v1/sms/not-a-uuid")).status).toBe(404);
    const unconnected = await api.call(otherKey, "POST", "/api/v1/sms", body, { "Idempotency-Key": "sms-x" });
    expect([unconnected.status, unconnected.body.code]).toEqual([409, "sms_not_connected"]);
  });

  it("refuses bad input with 400, an opted-out customer with 409 and a short wallet with 402, sending nothing", async () => {
    const t = await smsTenant("Duka API Kataa");
    const token = await connectSms(t);
    await fundPrepaid(t, 50);
    const key = await keyOf(t);
    for (const bad of [{ to: "0711300500", text: "Hi" }, { to: "+254711300500", text: "" }, { to: "+254711300500" }, { text: "Hi" }]) {
      const answer = await api.call(key, "POST", "/api/v1/sms", bad, { "Idempotency-Key": `bad-${JSON.stringify(bad)}` });
      expect([answer.status, answer.body.code]).toEqual([400, "invalid_request"]);
    }
    expect((await api.call(key, "POST", "/api/v1/sms", { to: "+254711300500", text: "x".repeat(1531) })).status).toBe(400);
    await customerWrites(token, "+254711300500", "8901");
    const short = await api.call(key, "POST", "/api/v1/sms", { to: "+254711300500", text: "Hi" }, { "Idempotency-Key": "short" });
    expect([short.status, short.body.code]).toEqual([402, "insufficient_balance"]);
    await fundPrepaid(t, 1000);
    await customerWrites(token, "+254711300500", "8902", "STOP");
    const stopped = await api.call(key, "POST", "/api/v1/sms", { to: "+254711300500", text: "Hi" }, { "Idempotency-Key": "stopped" });
    expect([stopped.status, stopped.body.code]).toEqual([409, "opted_out"]);
    const [sent] = await rawQuery<{ n: string }>(
      `select count(*) as n from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    expect(Number(sent!.n)).toBe(0);
  });
});
