import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { serializeLikeMeta, signPayload } from "./index";
import { APP_SECRET, startHarness, type Harness } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SWAHILI = "Habari ya asubuhi — karibu sana! 😀 Ñ é";

function verify(body: string, header: string | string[] | undefined) {
  const expected = `sha256=${createHmac("sha256", APP_SECRET).update(Buffer.from(body, "utf8")).digest("hex")}`;
  return header === expected;
}

async function demoNumber(harness: Harness) {
  const state = await harness.state();
  return state.phoneNumbers[0] as { id: string; wabaId: string; displayPhoneNumber: string };
}

describe("serializeLikeMeta and signPayload", () => {
  it("escapes non-ASCII as lowercase \\uXXXX (surrogate pairs) and / as \\/", () => {
    const bytes = serializeLikeMeta({ text: "😀 Ñ é — a/b" });
    expect(bytes).toBe('{"text":"\\ud83d\\ude00 \\u00d1 \\u00e9 \\u2014 a\\/b"}');
    expect(/^[\x20-\x7e]*$/.test(bytes)).toBe(true);
    expect(JSON.parse(bytes)).toEqual({ text: "😀 Ñ é — a/b" });
    expect(signPayload(bytes, "k")).toBe(`sha256=${createHmac("sha256", "k").update(bytes).digest("hex")}`);
  });
});

describe("webhook delivery", () => {
  it("sends an inbound text whose signature verifies against the exact bytes", async () => {
    let now = 1_750_000_000_000;
    h = await startHarness({ now: () => now });
    const phone = await demoNumber(h);
    const { wamid } = await h.sandbox.sendInboundText({
      phoneNumberId: phone.id,
      from: "254712345678",
      name: "Amina Wanjiku",
      text: SWAHILI,
    });
    expect(wamid).toMatch(/^wamid\.[A-Za-z0-9+/]+=*$/);
    now += 1000;
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
    const { body, headers } = h.receiver.received[0]!;
    expect(body).toContain("\\ud83d\\ude00");
    expect(body).not.toContain("😀");
    expect(verify(body, headers["x-hub-signature-256"])).toBe(true);
    expect(verify(JSON.stringify(JSON.parse(body)), headers["x-hub-signature-256"])).toBe(false);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["user-agent"]).toBe("facebookexternalua");
    expect(JSON.parse(body)).toEqual({
      object: "whatsapp_business_account",
      entry: [
        {
          id: phone.wabaId,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "254711000001", phone_number_id: phone.id },
                contacts: [{ profile: { name: "Amina Wanjiku" }, wa_id: "254712345678" }],
                messages: [{ from: "254712345678", id: wamid, timestamp: "1750000000", type: "text", text: { body: SWAHILI } }],
              },
            },
          ],
        },
      ],
    });
    const [delivery] = h.sandbox.deliveries();
    expect(delivery).toMatchObject({
      state: "delivered",
      attempts: 1,
      lastStatus: 200,
      body,
      signature: headers["x-hub-signature-256"],
      fields: ["messages"],
    });
  });

  it("merges changes queued within the batch window into one POST, grouped by entry", async () => {
    h = await startHarness({ batchWindowMs: 30 });
    const phone = await demoNumber(h);
    const other = h.sandbox.createTestBusiness({ businessName: "Other" });
    await h.sandbox.sendInboundText({ phoneNumberId: phone.id, from: "254712345678", text: "one" });
    await h.sandbox.sendStatus({ phoneNumberId: phone.id, wamid: "wamid.abc", status: "delivered", recipientId: "254712345678" });
    await h.sandbox.sendStatus({
      phoneNumberId: phone.id,
      wamid: "wamid.abc",
      status: "failed",
      recipientId: "254712345678",
      errorCode: 131049,
    });
    await h.sandbox.sendQualityUpdate({ phoneNumberId: other.phoneNumberId, event: "UPGRADE", currentLimit: "TIER_2K" });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(1);
    const body = JSON.parse(h.receiver.received[0]!.body);
    expect(body.entry.map((e: { id: string }) => e.id)).toEqual([phone.wabaId, other.wabaId]);
    expect(body.entry[0].changes.map((c: { field: string }) => c.field)).toEqual(["messages", "messages", "messages"]);
    const delivered = body.entry[0].changes[1].value.statuses[0];
    expect(delivered).toMatchObject({
      id: "wamid.abc",
      status: "delivered",
      recipient_id: "254712345678",
      pricing: { billable: true, pricing_model: "PMP", type: "regular", category: "utility" },
    });
    expect(typeof delivered.timestamp).toBe("string");
    const failed = body.entry[0].changes[2].value.statuses[0];
    expect(failed).not.toHaveProperty("pricing");
    expect(failed.errors[0]).toMatchObject({
      code: 131049,
      title: expect.any(String),
      message: expect.any(String),
      error_data: { details: expect.any(String) },
      href: expect.any(String),
    });
    expect(body.entry[1]).toMatchObject({
      time: expect.any(Number),
      changes: [{ field: "phone_number_quality_update", value: { event: "UPGRADE", current_limit: "TIER_2K" } }],
    });
    expect(body.entry[1].changes[0].value.display_phone_number).toMatch(/^\d+$/);
  });

  it("retries the same bytes after a 500, then succeeds", async () => {
    h = await startHarness();
    h.receiver.answer(500, 503);
    const phone = await demoNumber(h);
    await h.sandbox.sendInboundText({ phoneNumberId: phone.id, from: "254712345678", text: "retry me" });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(3);
    const bodies = new Set(h.receiver.received.map((r) => r.body));
    const signatures = new Set(h.receiver.received.map((r) => r.headers["x-hub-signature-256"]));
    expect(bodies.size).toBe(1);
    expect(signatures.size).toBe(1);
    expect(h.sandbox.deliveries()[0]).toMatchObject({ state: "delivered", attempts: 3, lastStatus: 200 });
  });

  it("gives up after the configured attempts, and counts a network error as a failure", async () => {
    h = await startHarness({ webhookRetry: { attempts: 2, baseDelayMs: 5 } });
    h.receiver.answer(500, 500, 500);
    const phone = await demoNumber(h);
    await h.sandbox.sendInboundText({ phoneNumberId: phone.id, from: "254712345678", text: "lost" });
    await h.sandbox.flushWebhooks();
    expect(h.sandbox.deliveries()[0]).toMatchObject({ state: "failed", attempts: 2, lastStatus: 500 });

    h.sandbox.setWebhookUrl("http://127.0.0.1:9/unreachable");
    await h.sandbox.sendAccountUpdate({ wabaId: phone.wabaId, event: "VERIFIED_ACCOUNT" });
    await h.sandbox.flushWebhooks();
    const last = h.sandbox.deliveries().at(-1)!;
    expect(last).toMatchObject({ state: "failed", attempts: 2, lastStatus: null, fields: ["account_update"] });
    expect(JSON.parse(last.body).entry[0].changes[0].value).toEqual({ phone_number: "254711000001", event: "VERIFIED_ACCOUNT" });
  });

  it("duplicate chaos delivers each POST twice", async () => {
    h = await startHarness();
    h.sandbox.setDeliveryChaos({ duplicate: 1 });
    const phone = await demoNumber(h);
    await h.sandbox.sendInboundText({ phoneNumberId: phone.id, from: "254712345678", text: "twice" });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received).toHaveLength(2);
    expect(h.receiver.received[0]!.body).toBe(h.receiver.received[1]!.body);
    const deliveries = h.sandbox.deliveries();
    expect(deliveries[1]!.copyOf).toBe(deliveries[0]!.id);
  });

  it("reorder chaos sends one change per POST, newest first", async () => {
    h = await startHarness();
    h.sandbox.setDeliveryChaos({ reorder: true });
    const phone = await demoNumber(h);
    for (const status of ["sent", "delivered", "read"] as const) {
      await h.sandbox.sendStatus({ phoneNumberId: phone.id, wamid: "wamid.x", status, recipientId: "254712345678" });
    }
    await h.sandbox.flushWebhooks();
    const order = h.receiver.received.map((r) => JSON.parse(r.body).entry[0].changes[0].value.statuses[0].status);
    expect(order).toEqual(["read", "delivered", "sent"]);
  });

  it("sendRaw delivers one arbitrary envelope, signed like Meta", async () => {
    h = await startHarness();
    h.sandbox.setDeliveryChaos({ duplicate: 2 });
    await h.sandbox.sendRaw({
      object: "whatsapp_business_account",
      entry: [{ id: "1", changes: [{ field: "messages", value: { text: "é" } }] }],
    });
    expect(h.receiver.received).toHaveLength(1);
    expect(h.receiver.received[0]!.body).toContain("\\u00e9");
    expect(verify(h.receiver.received[0]!.body, h.receiver.received[0]!.headers["x-hub-signature-256"])).toBe(true);
  });
});

describe("control API and console", () => {
  it("drives inbound messages over HTTP and validates input", async () => {
    h = await startHarness();
    const phone = await demoNumber(h);
    const post = (path: string, body: unknown) =>
      fetch(`${h!.base}/control/${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const bad = await post("inbound", { phoneNumberId: "nope", from: "254712345678", text: "x" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain("Unknown phone number");
    expect((await post("inbound", { phoneNumberId: phone.id, text: "x" })).status).toBe(400);
    const ok = await post("inbound", { phoneNumberId: phone.id, from: "254712345678", text: "Habari" });
    expect(ok.status).toBe(200);
    expect((await ok.json()).wamid).toMatch(/^wamid\./);
    expect((await post("flush", {})).status).toBe(200);
    const deliveries = await (await fetch(`${h.base}/control/deliveries`)).json();
    expect(deliveries).toHaveLength(1);
    expect((await post("chaos", { duplicate: 99 })).status).toBe(400);
    expect((await post("businesses", { businessName: "Via control" })).status).toBe(201);
    expect((await post("reset", {})).status).toBe(200);
    expect((await h.state()).businesses).toHaveLength(1);
  });

  it("renders the console and runs its forms without JavaScript", async () => {
    h = await startHarness();
    const phone = await demoNumber(h);
    const form = await fetch(`${h.base}/console/inbound`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        phoneNumberId: phone.id,
        from: "254712345678",
        name: "Amina Wanjiku",
        text: "Habari! Ninahitaji msaada na oda yangu 🙏",
      }).toString(),
      redirect: "manual",
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toMatch(/^\/sandbox\/meta\?notice=/);
    await h.sandbox.flushWebhooks();
    const token = await h.tokenFor((await h.state()).businesses[0]!.id, [phone.wabaId]);
    await h.graph(`debug_token?input_token=${token}&access_token=x|y`);
    const html = await (await fetch(`${h.base}?notice=hello`)).text();
    expect(html).toContain("Jumbe Demo Business");
    expect(html).toContain("+254 711 000 001");
    expect(html).toContain('role="status">hello</p>');
    expect(html).toContain("<details><summary>Body");
    expect(html).toContain("\\ud83d\\ude4f");
    expect(html).toContain("input_token=[redacted]");
    expect(html).not.toContain(token);
    expect(html).toContain(">Habari! Ninahitaji msaada na oda yangu 🙏</textarea>");
    expect(html).not.toMatch(/<script/);
    expect(html).not.toMatch(/\son[a-z]+=/);
  });
});
