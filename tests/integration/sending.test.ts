import { describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { queueMessage, type SendRequest } from "~/.server/domains/messaging/queue";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { applyKeptStatuses } from "~/.server/domains/messaging/statuses";
import { getApiMessage } from "~/.server/adapters/api-v1/messages";
import { markInboundRead } from "~/.server/domains/messaging/read-receipts";
import { graphClient } from "~/.server/infrastructure/clients/whatsapp-graph/graph-client";
import { createVerifiedUser } from "../support/accounts";
import { refusalOf, metaSandboxForFile } from "../support/meta-harness";

// The sending engine end to end: rules checked before Meta, the dispatcher's call to the sandbox's
// Graph API, and the sandbox's status webhooks coming back through the real receiver and queue.

const meta = metaSandboxForFile();

async function connectedTenant(name = "Nyota Savings Sacco") {
  const user = await createVerifiedUser({ businessName: name });
  const connection = await meta.graph.connect(user.organization.id, name);
  return { organizationId: user.organization.id, ...connection };
}

async function messageRow(id: string) {
  const [row] = await rawQuery<Record<string, unknown>>(`select * from messages where id = $1`, [id]);
  return row!;
}

describe("the sending engine", () => {
  it("refuses a text outside the service window, sends it once the customer writes, and follows Meta's statuses to read", async () => {
    const t = await connectedTenant();
    const text: SendRequest = { to: "0712 345 678", content: { kind: "text", text: "Karibu! Salio lako ni KES 1,250." }, source: "api" };
    expect(await refusalOf(t.organizationId, text)).toMatchObject({ status: 422, code: "outside_service_window" });
    expect((await rawQuery(`select count(*)::int as n from messages where direction = 'outbound'`))[0]).toEqual({ n: 0 });

    await meta.customerWrites(t.phoneNumberId, "254712345678");
    const queued = await queueMessage(t.organizationId, text);
    expect(queued).toMatchObject({ status: "queued", to: "+254712345678", type: "text", wamid: null });

    await drainDispatcher();
    const accepted = await messageRow(queued.id);
    expect(accepted.wamid).toMatch(/^wamid\./);
    expect(accepted.accepted_at).not.toBeNull();
    // Meta received exactly one request, with the + form of the number and Jumbe's id to echo back.
    const atMeta = meta.sandbox.messages({ phoneNumberId: t.phoneNumberId });
    expect(atMeta).toHaveLength(1);

    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await messageRow(queued.id)).status).toBe("read");
      },
      { timeout: 30_000, interval: 20 },
    );
    const read = await getApiMessage(t.organizationId, queued.id);
    expect(read).toMatchObject({ status: "read", error: null, pricing: { type: "free_customer_service", category: "service" } });
    expect(read.sentAt).not.toBeNull();
    expect(read.deliveredAt).not.toBeNull();
    expect(read.readAt).not.toBeNull();
  });

  it("checks recipients, numbers and templates before Meta, each with its code", async () => {
    const lonely = await createVerifiedUser({ businessName: "Hakuna Namba Ltd" });
    const template = (name: string, parameters: string[] = [], language?: string): SendRequest => ({
      to: "+254712345678",
      content: { kind: "template", template: { name, parameters, language } },
      source: "api",
    });
    expect(await refusalOf(lonely.organization.id, template("order_update"))).toMatchObject({ status: 409, code: "no_whatsapp_number" });

    const t = await connectedTenant();
    expect(await refusalOf(t.organizationId, { ...template("order_update"), to: "12" })).toMatchObject({ code: "invalid_phone_number" });
    expect(await refusalOf(t.organizationId, { ...template("order_update"), from: "+254799999999" })).toMatchObject({
      code: "no_whatsapp_number",
    });
    expect(await refusalOf(t.organizationId, template("order_update"))).toMatchObject({ code: "template_not_found" });

    const base = { organizationId: t.organizationId, wabaId: t.wabaId, category: "UTILITY" as const };
    const body = (text: string) => [{ type: "BODY", text }];
    await db()
      .insert(messageTemplates)
      .values([
        { ...base, name: "order_update", language: "en", status: "approved", components: body("Habari {{1}}, order {{2}} ships today.") },
        { ...base, name: "order_update", language: "sw", status: "approved", components: body("Habari {{1}}, oda {{2}} inatumwa leo.") },
        { ...base, name: "promo_june", language: "en", status: "pending", components: body("Offer for {{1}}") },
      ]);
    expect(await refusalOf(t.organizationId, template("order_update", ["Amina", "KE-1"]))).toMatchObject({
      code: "template_not_found",
      message: "order_update exists in en and sw: say which with language.",
    });
    expect(await refusalOf(t.organizationId, template("order_update", ["Amina", "KE-1"], "fr"))).toMatchObject({
      code: "template_not_found",
    });
    expect(await refusalOf(t.organizationId, template("order_update", ["Amina"], "en"))).toMatchObject({
      status: 422,
      code: "parameter_mismatch",
      message: "order_update's body takes 2 parameters; 1 was given.",
    });
    expect(await refusalOf(t.organizationId, template("promo_june", ["Amina"]))).toMatchObject({ code: "template_not_approved" });

    // A template goes at any time, without a service window.
    const queued = await queueMessage(t.organizationId, template("order_update", ["Amina", "KE-1"], "sw"));
    const row = await messageRow(queued.id);
    expect(row.payload).toMatchObject({
      to: "+254712345678",
      type: "template",
      template: {
        name: "order_update",
        language: { code: "sw" },
        components: [{ type: "body", parameters: [{ text: "Amina" }, { text: "KE-1" }] }],
      },
    });
    expect(row.pricing_category).toBe("utility");
  });

  it("answers a repeated Idempotency-Key with the first message and refuses the key for another request", async () => {
    const t = await connectedTenant();
    await meta.customerWrites(t.phoneNumberId, "254712345678");
    const request: SendRequest = { to: "+254712345678", content: { kind: "text", text: "Asante!" }, source: "api" };
    const key = { key: "order-1042-thanks", requestHash: "hash-a" };
    const first = await queueMessage(t.organizationId, request, key);
    const again = await queueMessage(t.organizationId, request, key);
    expect(again).toEqual(first);
    expect((await rawQuery(`select count(*)::int as n from messages where direction = 'outbound'`))[0]).toEqual({ n: 1 });
    await expect(queueMessage(t.organizationId, request, { ...key, requestHash: "hash-b" })).rejects.toMatchObject({
      code: "idempotency_conflict",
      status: 409,
    });
  });

  it("fails a message with Meta's reason in words, and puts throttled ones back for later", async () => {
    const t = await connectedTenant();
    await meta.customerWrites(t.phoneNumberId, "254712340000");
    await meta.customerWrites(t.phoneNumberId, "254712340429");
    const text = (to: string): SendRequest => ({ to, content: { kind: "text", text: "Habari" }, source: "api" });
    const undeliverable = await queueMessage(t.organizationId, text("+254712340000"));
    const throttled = await queueMessage(t.organizationId, text("+254712340429"));
    await drainDispatcher();

    const later = await messageRow(throttled.id);
    expect(later).toMatchObject({ status: "queued", error_code: 130429, attempts: 1, accepted_at: null });
    expect(new Date(later.next_attempt_at as string).getTime()).toBeGreaterThan(Date.now());

    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await messageRow(undeliverable.id)).status).toBe("failed");
      },
      { timeout: 30_000, interval: 20 },
    );
    const failed = await getApiMessage(t.organizationId, undeliverable.id);
    expect(failed.error?.code).toBe("meta_131026");
    expect(failed.error?.message.length).toBeGreaterThan(10);
    expect(failed.deliveredAt).toBeNull();
  });

  it("never moves a message backwards, whatever order its statuses arrive in", async () => {
    const t = await connectedTenant();
    const [row] = await rawQuery<{ id: string }>(
      `insert into messages (organization_id, direction, status, body, wamid, phone_number_id, message_type, accepted_at)
       values ($1, 'outbound', 'queued', 'Habari', 'wamid.order-test', $2, 'text', now()) returning id`,
      [t.organizationId, t.phoneNumberId],
    );
    const keep = async (status: string, at: string) => {
      await db().execute(sql`insert into message_statuses (organization_id, phone_number_id, wamid, status, occurred_at)
        values (${t.organizationId}, ${t.phoneNumberId}, 'wamid.order-test', ${status}, ${at}::timestamptz) on conflict do nothing`);
      return applyKeptStatuses(db(), [{ organizationId: t.organizationId, wamid: "wamid.order-test" }]);
    };
    expect((await keep("read", "2026-11-23T08:00:05Z")).map((c) => c.status)).toEqual(["read"]);
    expect(await keep("delivered", "2026-11-23T08:00:03Z")).toEqual([]);
    expect(await keep("sent", "2026-11-23T08:00:01Z")).toEqual([]);
    expect(await keep("failed", "2026-11-23T08:00:09Z")).toEqual([]);
    const message = await getApiMessage(t.organizationId, row!.id);
    expect(message).toMatchObject({
      status: "read",
      sentAt: "2026-11-23T08:00:01.000Z",
      deliveredAt: "2026-11-23T08:00:03.000Z",
      readAt: "2026-11-23T08:00:05.000Z",
    });
  });

  it("keeps each tenant's messages to itself", async () => {
    const a = await connectedTenant("Amani Traders");
    const b = await connectedTenant("Baraka Sacco");
    await meta.customerWrites(a.phoneNumberId, "254712345678");
    const mine = await queueMessage(a.organizationId, { to: "+254712345678", content: { kind: "text", text: "Hi" }, source: "api" });
    await expect(getApiMessage(b.organizationId, mine.id)).rejects.toMatchObject({ status: 404, code: "not_found" });
    expect((await getApiMessage(a.organizationId, mine.id)).id).toBe(mine.id);
  });

  it("marks a customer's messages read, with the typing indicator, and only the tenant's own", async () => {
    const t = await connectedTenant("Kilifi Water Services");
    const other = await connectedTenant("Another Tenant");
    await meta.customerWrites(t.phoneNumberId, "254711000222", { text: "Maji hayatoki tangu jana." });
    await meta.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from: "254711000222",
      name: "Wanjiku Kamau",
      text: "Tafadhali mtusaidie.",
    });
    const inbound = await vi.waitFor(
      async () => {
        await drainJobs();
        const rows = await rawQuery<{ id: string; wamid: string }>(
          `select id, wamid from messages where direction = 'inbound' and payload ->> 'from' = '254711000222' order by created_at, id`,
        );
        expect(rows).toHaveLength(2);
        return rows;
      },
      { timeout: 30_000, interval: 20 },
    );
    // What Jumbe asked Meta, while the sandbox checks the call as Meta would (a customer's wamid to that number).
    const asked: { wamid: string; typing: boolean }[] = [];
    const real = graphClient();
    const client = {
      ...real,
      async markRead(phoneNumberId: string, token: string, wamid: string, typing = false) {
        asked.push({ wamid, typing });
        return real.markRead(phoneNumberId, token, wamid, typing);
      },
    };

    await expect(markInboundRead(other.organizationId, inbound[1]!.id, {}, client)).rejects.toMatchObject({
      status: 404,
      code: "message_not_found",
    });
    const read = await markInboundRead(t.organizationId, inbound[1]!.id, { typing: true }, client);
    expect(read.alreadyRead).toBe(false);
    expect(asked).toEqual([{ wamid: inbound[1]!.wamid, typing: true }]);
    // Reading the latest reads the earlier one too, as on the customer's phone.
    const times = await rawQuery<{ read: boolean }>(`select read_at is not null as read from messages where id = any($1::uuid[])`, [
      inbound.map((m) => m.id),
    ]);
    expect(times).toEqual([{ read: true }, { read: true }]);
    // A second read receipt is not sent again; the typing indicator is.
    expect((await markInboundRead(t.organizationId, inbound[0]!.id, {}, client)).alreadyRead).toBe(true);
    expect(asked).toHaveLength(1);
    await markInboundRead(t.organizationId, inbound[1]!.id, { typing: true }, client);
    expect(asked).toHaveLength(2);
  });
});
