import { afterEach, describe, expect, it } from "vitest";
import { startSending, text, type SendingHarness } from "./test-support";
import type { SandboxMessage } from "./types";

// POST /{phone-number-id}/messages in the sandbox: Meta's shapes, checks, window, limits,
// magic recipients and the status webhooks that follow.

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CUSTOMER = "254712345678";
const DAY = 24 * 60 * 60 * 1000;

const ORDER_BODY = {
  type: "BODY",
  text: "Habari {{1}}, oda yako {{2}} itafika {{3}}.",
  example: { body_text: [["Amina", "A-100", "kesho"]] },
};

function template(name: string, language: string, bodyParams: string[], extra: Record<string, unknown>[] = []) {
  return {
    messaging_product: "whatsapp",
    to: `+${CUSTOMER}`,
    type: "template",
    template: {
      name,
      language: { code: language },
      components: [...extra, { type: "body", parameters: bodyParams.map((t) => ({ type: "text", text: t })) }],
    },
  };
}

describe("sending text", () => {
  it("answers Meta's shape and sends sent, delivered and read with free service pricing on sent and delivered only", async () => {
    h = await startSending();
    await h.customerWrites(CUSTOMER);
    const answer = await h.send(text("+254 (712) 345-678", "Karibu!", { biz_opaque_callback_data: "job-42" }));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      messaging_product: "whatsapp",
      contacts: [{ input: "+254 (712) 345-678", wa_id: CUSTOMER }],
      messages: [{ id: expect.stringMatching(/^wamid\./) }],
    });
    const wamid = answer.json.messages[0].id;
    const statuses = (await h.statuses()).filter((s) => s.id === wamid);
    expect(statuses.map((s) => s.status)).toEqual(["sent", "delivered", "read"]);
    const pricing = { billable: false, pricing_model: "PMP", type: "free_customer_service", category: "service" };
    expect(statuses[0]).toEqual({
      id: wamid,
      status: "sent",
      timestamp: expect.stringMatching(/^\d{10}$/),
      recipient_id: CUSTOMER,
      pricing,
      biz_opaque_callback_data: "job-42",
    });
    expect(statuses[1]!.pricing).toEqual(pricing);
    expect(statuses[2]).not.toHaveProperty("pricing");
    expect(statuses[2]!.biz_opaque_callback_data).toBe("job-42");
    expect(statuses.some((s) => "conversation" in s)).toBe(false);
    const [listed] = h.sandbox.messages({ to: CUSTOMER });
    expect(listed).toMatchObject({ wamid, type: "text", waId: CUSTOMER, outcome: "read", statuses: ["sent", "delivered", "read"] });
  });

  it("sends the statuses each after its own delay (here sent at once, the others not within the test)", async () => {
    h = await startSending({ statusDelaysMs: { sent: 0, delivered: 600_000, read: 600_000 } });
    await h.customerWrites(CUSTOMER);
    const answer = await h.send(text(CUSTOMER));
    const statuses = await h.statuses();
    expect(statuses.map((s) => s.status)).toEqual(["sent"]);
    expect(h.sandbox.messages()[0]).toMatchObject({ wamid: answer.json.messages[0].id, statuses: ["sent"] });
  });

  it("duplicates status deliveries when the chaos switch says so", async () => {
    h = await startSending();
    await h.customerWrites(CUSTOMER);
    await h.sandbox.flushWebhooks();
    h.sandbox.setDeliveryChaos({ duplicate: 1 });
    await h.send(text(CUSTOMER));
    const statuses = (await h.statuses()).map((s) => s.status);
    expect(statuses.filter((s) => s === "read")).toHaveLength(2);
    expect(h.sandbox.deliveries().some((d) => d.copyOf && d.body.includes('"statuses"'))).toBe(true);
  });
});

describe("the customer service window", () => {
  it("accepts free-form messages before the customer writes and 24 hours after, then fails them with 131047; always takes templates", async () => {
    let now = Date.UTC(2026, 0, 5, 8);
    h = await startSending({ now: () => now });
    h.sandbox.createTemplateAtMeta(h.business.wabaId, {
      name: "order_update",
      language: "sw",
      category: "MARKETING",
      components: [ORDER_BODY],
    });

    // As Cloud API accounts see it (decision 111): a wamid, then a failed status with the error.
    const before = await h.send(text(CUSTOMER));
    expect(before.status).toBe(200);
    const refusedId = before.json.messages[0].id;
    expect(refusedId).toMatch(/^wamid\./);
    expect(before.json.messages[0]).not.toHaveProperty("message_status");

    const templated = await h.send(template("order_update", "sw", ["Amina", "A-100", "kesho"]));
    expect(templated.status).toBe(200);
    expect(templated.json.messages[0].message_status).toBe("accepted");

    await h.customerWrites(CUSTOMER);
    now += DAY - 1000;
    const inside = await h.send(text(CUSTOMER));
    now += 1000;
    const after = await h.send(text(CUSTOMER));
    expect(after.status).toBe(200);

    const statuses = await h.statuses();
    const of = (wamid: string) => statuses.filter((s) => s.id === wamid);
    for (const wamid of [refusedId, after.json.messages[0].id]) {
      expect(of(wamid)).toEqual([
        {
          id: wamid,
          status: "failed",
          timestamp: expect.any(String),
          recipient_id: CUSTOMER,
          errors: [
            {
              code: 131047,
              title: "Re-engagement message",
              message: "Re-engagement message",
              error_data: { details: expect.stringContaining("more than 24 hours have passed") },
              href: expect.any(String),
            },
          ],
        },
      ]);
    }
    expect(of(inside.json.messages[0].id).map((s) => s.status)).toEqual(["sent", "delivered", "read"]);
    const sent = statuses.find((s) => s.id === templated.json.messages[0].id && s.status === "sent")!;
    expect(sent.pricing).toEqual({ billable: true, pricing_model: "PMP", type: "regular", category: "marketing" });
    expect(h.sandbox.messages({ to: CUSTOMER }).find((m) => m.wamid === refusedId)).toMatchObject({ outcome: "failed 131047" });
  });

  it("answers 131047 at once when set to sync: by option, per number in code or through the control API", async () => {
    h = await startSending({ reengagement: "sync" });
    const refused = await h.send(text(CUSTOMER));
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({
      code: 131047,
      type: "OAuthException",
      message: "(#131047) Re-engagement message",
      error_data: { messaging_product: "whatsapp", details: expect.stringContaining("24 hours") },
      fbtrace_id: expect.any(String),
    });
    expect(h.sandbox.messages()).toEqual([]);
    await h.close();

    h = await startSending();
    const control = (mode: unknown) =>
      fetch(`${h!.base}/control/phone-numbers/${h!.business.phoneNumberId}/reengagement`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ mode }),
      });
    const set = await control("sync");
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ phoneNumberId: h.business.phoneNumberId, reengagement: "sync" });
    expect((await h.send(text(CUSTOMER))).json.error.code).toBe(131047);
    const bad = await control("later");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^mode must be "async"/);
    expect(await (await control(null)).json()).toMatchObject({ reengagement: "async" });
    expect((await h.send(text(CUSTOMER))).status).toBe(200);

    h.sandbox.setReengagement(h.business.phoneNumberId, "sync");
    expect((await h.send(text(CUSTOMER))).status).toBe(400);
    h.sandbox.setReengagement(h.business.phoneNumberId, undefined);
    expect((await h.send(text(CUSTOMER))).status).toBe(200);
    expect(() => h!.sandbox.setReengagement("no-such-number", "sync")).toThrow(/No phone number/);
    expect((await control("sync")).status).toBe(200);
    h.sandbox.reset();
    expect((await control("sync")).status).toBe(400);
  });

  it("prices a utility template free inside the window and regular outside it", async () => {
    h = await startSending();
    h.sandbox.createTemplateAtMeta(h.business.wabaId, { name: "risiti", language: "en", category: "UTILITY" });
    const outside = await h.send(template("risiti", "en", []));
    await h.customerWrites(CUSTOMER);
    const inside = await h.send(template("risiti", "en", []));
    const statuses = await h.statuses();
    const pricingOf = (wamid: string) => statuses.find((s) => s.id === wamid && s.status === "delivered")!.pricing;
    expect(pricingOf(outside.json.messages[0].id)).toEqual({ billable: true, pricing_model: "PMP", type: "regular", category: "utility" });
    expect(pricingOf(inside.json.messages[0].id)).toEqual({
      billable: false,
      pricing_model: "PMP",
      type: "free_customer_service",
      category: "utility",
    });
  });
});

describe("templates", () => {
  it("refuses a template that does not exist in that WABA, in that language, or is not approved (132001)", async () => {
    h = await startSending();
    const wabaId = h.business.wabaId;
    h.sandbox.createTemplateAtMeta(wabaId, { name: "order_update", language: "sw", category: "MARKETING", components: [ORDER_BODY] });
    h.sandbox.createTemplateAtMeta(wabaId, { name: "pending_one", language: "en", category: "UTILITY", status: "REJECTED" });
    const other = h.sandbox.createTestBusiness({ registered: true });
    h.sandbox.createTemplateAtMeta(other.wabaId, { name: "elsewhere", language: "en", category: "UTILITY" });

    const unknown = await h.send(template("hakuna", "sw", []));
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({
      code: 132001,
      message: "(#132001) Template name does not exist in the translation",
      error_data: { details: "template name (hakuna) does not exist in sw" },
    });
    expect((await h.send(template("order_update", "en", ["a", "b", "c"]))).json.error.code).toBe(132001);
    expect((await h.send(template("pending_one", "en", []))).json.error.code).toBe(132001);
    expect((await h.send(template("elsewhere", "en", []))).json.error.code).toBe(132001);
  });

  it("answers 132000 with Meta's details when the body's parameter count is wrong, and checks named parameters", async () => {
    h = await startSending();
    h.sandbox.createTemplateAtMeta(h.business.wabaId, {
      name: "order_update",
      language: "sw",
      category: "MARKETING",
      components: [ORDER_BODY],
    });
    const answer = await h.send(template("order_update", "sw", ["Amina"]));
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({
      code: 132000,
      message: "(#132000) Number of parameters does not match the expected number of params",
      error_data: {
        messaging_product: "whatsapp",
        details: "body: number of localizable_params (1) does not match the expected number of params (3)",
      },
    });

    h.sandbox.createTemplateAtMeta(h.business.wabaId, {
      name: "named_hello",
      language: "en",
      category: "UTILITY",
      parameterFormat: "NAMED",
      components: [
        {
          type: "BODY",
          text: "Hello {{first_name}}",
          example: { body_text_named_params: [{ param_name: "first_name", example: "Amina" }] },
        },
      ],
    });
    const named = (parameter_name: string) => ({
      ...template("named_hello", "en", []),
      template: {
        name: "named_hello",
        language: { code: "en" },
        components: [{ type: "body", parameters: [{ type: "text", parameter_name, text: "Amina" }] }],
      },
    });
    expect((await h.send(named("first_name"))).status).toBe(200);
    expect((await h.send(named("jina"))).json.error.code).toBe(132000);
  });

  it("takes a quick reply's payload at its index, and refuses a payload without a quick reply there or without a string", async () => {
    h = await startSending();
    h.sandbox.createTemplateAtMeta(h.business.wabaId, {
      name: "pay_request",
      language: "en",
      category: "UTILITY",
      components: [
        { type: "BODY", text: "Pay KES {{1}} please.", example: { body_text: [["100"]] } },
        { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Pay" }] },
      ],
    });
    const withButton = (button: Record<string, unknown>) => template("pay_request", "en", ["100"], [{ type: "button", ...button }]);
    const quickReply = (index: string, parameters: unknown[]) => withButton({ sub_type: "quick_reply", index, parameters });
    expect((await h.send(quickReply("0", [{ type: "payload", payload: "payreq:x:pay" }]))).status).toBe(200);
    expect((await h.send(quickReply("1", [{ type: "payload", payload: "x" }]))).json.error.code).toBe(131009);
    expect((await h.send(withButton({ sub_type: "url", index: "0", parameters: [{ type: "text", text: "x" }] }))).json.error.code).toBe(
      131009,
    );
    expect((await h.send(quickReply("0", [{ type: "text", text: "x" }]))).json.error.code).toBe(131008);
    expect((await h.send(quickReply("0", [{ type: "payload", payload: 7 }]))).json.error.code).toBe(131009);
  });

  it("answers 132012 when a media header gets no media, 132015 when paused and 132016 when disabled", async () => {
    h = await startSending();
    const wabaId = h.business.wabaId;
    const created = h.sandbox.createTemplateAtMeta(wabaId, {
      name: "promo_picha",
      language: "en",
      category: "MARKETING",
      components: [
        { type: "HEADER", format: "IMAGE", example: { header_handle: ["4::aW1hZ2UvanBlZw==:x"] } },
        { type: "BODY", text: "Ofa!" },
      ],
    });
    const missing = await h.send(template("promo_picha", "en", []));
    expect(missing.json.error).toMatchObject({
      code: 132012,
      error_data: { details: "header: Format mismatch, expected IMAGE, received UNKNOWN" },
    });
    const header = { type: "header", parameters: [{ type: "image", image: { link: "https://example.com/a.jpg" } }] };
    expect((await h.send(template("promo_picha", "en", [], [header]))).status).toBe(200);

    await h.sandbox.setTemplateStatus(created.id, "PAUSED", { silent: true });
    expect((await h.send(template("promo_picha", "en", [], [header]))).json.error).toMatchObject({ code: 132015 });
    await h.sandbox.setTemplateStatus(created.id, "DISABLED", { silent: true });
    expect((await h.send(template("promo_picha", "en", [], [header]))).json.error).toMatchObject({ code: 132016 });
  });
});

describe("message types", () => {
  const to = CUSTOMER;
  const bodies: Record<string, unknown>[] = [
    { type: "text", text: { body: "Habari", preview_url: true } },
    { type: "image", image: { link: "https://example.com/a.jpg", caption: "Picha" } },
    { type: "video", video: { link: "https://example.com/a.mp4" } },
    { type: "audio", audio: { link: "https://example.com/a.ogg" } },
    { type: "document", document: { link: "https://example.com/a.pdf", filename: "risiti.pdf", caption: "Risiti" } },
    { type: "sticker", sticker: { link: "https://example.com/a.webp" } },
    { type: "location", location: { latitude: -1.29, longitude: 36.82, name: "Nairobi" } },
    { type: "contacts", contacts: [{ name: { formatted_name: "Baraka" }, phones: [{ phone: "+254700000000" }] }] },
    {
      type: "interactive",
      interactive: {
        type: "button",
        header: { type: "text", text: "Oda" },
        body: { text: "Badilisha?" },
        footer: { text: "Duka" },
        action: {
          buttons: [
            { type: "reply", reply: { id: "change", title: "Badilisha" } },
            { type: "reply", reply: { id: "cancel", title: "Ghairi" } },
          ],
        },
      },
    },
    {
      type: "interactive",
      interactive: {
        type: "list",
        header: { type: "text", text: "Usafirishaji" },
        body: { text: "Chagua" },
        action: {
          button: "Chaguo",
          sections: [
            { title: "Haraka", rows: [{ id: "express", title: "Express", description: "Kesho" }] },
            { title: "Kawaida", rows: [{ id: "normal", title: "Kawaida" }] },
          ],
        },
      },
    },
    { type: "reaction", reaction: { message_id: "wamid.abc", emoji: "👍" } },
    { type: "reaction", reaction: { message_id: "wamid.abc", emoji: "" } },
    { type: "text", text: { body: "Jibu" }, context: { message_id: "wamid.abc" } },
  ];

  it("accepts every type", async () => {
    h = await startSending({ pairRateLimit: false });
    await h.customerWrites(to);
    for (const body of bodies) {
      const answer = await h.send({ messaging_product: "whatsapp", recipient_type: "individual", to, ...body });
      expect({ type: body.type, status: answer.status, error: answer.json.error }).toEqual({
        type: body.type,
        status: 200,
        error: undefined,
      });
    }
    expect(h.sandbox.messages()).toHaveLength(bodies.length);
  });

  const interactive = (extra: Record<string, unknown>) => ({
    type: "interactive",
    interactive: { type: "button", body: { text: "Chagua" }, ...extra },
  });
  const buttons = (...titles: string[]) => ({ buttons: titles.map((title, i) => ({ type: "reply", reply: { id: `b${i}`, title } })) });
  const rows = (count: number, row: Record<string, unknown> = {}) => ({
    button: "Chaguo",
    sections: [{ title: "A", rows: Array.from({ length: count }, (_, i) => ({ id: `r${i}`, title: `Row ${i}`, ...row })) }],
  });
  const list = (action: unknown, extra: Record<string, unknown> = {}) => ({
    type: "interactive",
    interactive: { type: "list", body: { text: "Chagua" }, action, ...extra },
  });

  const cases: [string, Record<string, unknown>, number, RegExp?][] = [
    ["no messaging_product", { messaging_product: undefined, type: "text", text: { body: "x" } }, 100],
    ["another product", { messaging_product: "sms", type: "text", text: { body: "x" } }, 100],
    ["unknown type", { type: "fax", fax: {} }, 100],
    ["no to", { to: undefined, type: "text", text: { body: "x" } }, 131008],
    ["letters in to", { to: "07abc", type: "text", text: { body: "x" } }, 100],
    ["no text body", { type: "text", text: {} }, 131008, /text\['body'\]/],
    ["text over 4096", { type: "text", text: { body: "x".repeat(4097) } }, 100],
    ["callback data over 512", { type: "text", text: { body: "x" }, biz_opaque_callback_data: "x".repeat(513) }, 100],
    ["no media id or link", { type: "image", image: {} }, 131008],
    ["a link that is not http", { type: "image", image: { link: "ftp://example.com/a.jpg" } }, 131009],
    ["a caption on audio", { type: "audio", audio: { link: "https://example.com/a.ogg", caption: "x" } }, 131009],
    ["four buttons", interactive({ action: buttons("a", "b", "c", "d") }), 131009, /Max allowed buttons: 3/],
    ["same titles", interactive({ action: buttons("Ndiyo", "Ndiyo") }), 131009, /Duplicate button title/],
    ["a title over 20", interactive({ action: buttons("x".repeat(21)) }), 131009, /Max length: 20/],
    ["a body over 1024", interactive({ body: { text: "x".repeat(1025) }, action: buttons("a") }), 131009],
    ["a footer over 60", interactive({ footer: { text: "x".repeat(61) }, action: buttons("a") }), 131009],
    ["no buttons", interactive({ action: {} }), 131009],
    ["eleven rows", list(rows(11)), 131009, /Total row count exceed max allowed count: 10/],
    ["a row title over 24", list(rows(1, { title: "x".repeat(25) })), 131009],
    ["a row description over 72", list(rows(1, { description: "x".repeat(73) })), 131009],
    ["a row id over 200", list(rows(1, { id: "x".repeat(201) })), 131009],
    ["a list button over 20", list({ ...rows(1), button: "x".repeat(21) }), 131009],
    ["an image header on a list", list(rows(1), { header: { type: "image", image: { link: "https://example.com/a.jpg" } } }), 131009],
    ["a list header over 60", list(rows(1), { header: { type: "text", text: "x".repeat(61) } }), 131009],
    ["a reaction without message_id", { type: "reaction", reaction: { emoji: "👍" } }, 131008],
    ["a template without language", { type: "template", template: { name: "x" } }, 131008],
  ];

  it.each(cases)("refuses %s", async (_name, body, code, details) => {
    h = await startSending();
    await h.customerWrites(to);
    const answer = await h.send({ messaging_product: "whatsapp", to, ...body });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe(code);
    expect(answer.json.error.type).toBe("OAuthException");
    if (details) expect(answer.json.error.error_data.details).toMatch(details);
    expect(h.sandbox.messages()).toHaveLength(0);
  });

  it("answers Meta's envelope for a body that is not JSON", async () => {
    h = await startSending();
    const answer = await h.graph(`${h.business.phoneNumberId}/messages`, {
      method: "POST",
      token: h.token,
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 100, fbtrace_id: expect.any(String) });
  });
});

describe("mark as read", () => {
  it("marks a customer's message read (with a typing indicator) and sends no webhook", async () => {
    h = await startSending();
    const { wamid } = await h.customerWrites(CUSTOMER);
    await h.sandbox.flushWebhooks();
    const before = h.receiver.received.length;
    const answer = await h.send({ messaging_product: "whatsapp", status: "read", message_id: wamid, typing_indicator: { type: "text" } });
    expect(answer).toMatchObject({ status: 200, json: { success: true } });
    await h.sandbox.flushWebhooks();
    expect(h.receiver.received.length).toBe(before);
    expect(h.sandbox.messages()).toHaveLength(0);
  });

  it("refuses a wamid the customer did not send to this number (100/33)", async () => {
    h = await startSending();
    const other = h.sandbox.createTestBusiness({ registered: true });
    const { wamid } = await h.sandbox.sendInbound({ phoneNumberId: other.phoneNumberId, from: CUSTOMER, text: "x" });
    for (const id of ["wamid.unknown", wamid]) {
      const answer = await h.send({ messaging_product: "whatsapp", status: "read", message_id: id });
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 100, error_subcode: 33 });
    }
    const typing = await h.send({ messaging_product: "whatsapp", status: "read", message_id: "x", typing_indicator: { type: "audio" } });
    expect(typing.json.error.code).toBe(100);
  });
});

describe("who may send", () => {
  it("needs a valid token that grants the number, a registered number, and a recipient that is not the sender", async () => {
    h = await startSending();
    await h.customerWrites(CUSTOMER);
    const none = await h.send(text(CUSTOMER), { token: "" });
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe(190);
    const bad = await h.send(text(CUSTOMER), { token: "EAAnot-a-token" });
    expect(bad.json.error).toMatchObject({ code: 190, error_subcode: 467 });

    const other = h.sandbox.createTestBusiness({ registered: true });
    const otherNumber = await h.send(text(CUSTOMER), { phoneNumberId: other.phoneNumberId });
    expect(otherNumber.json.error).toMatchObject({ code: 100, error_subcode: 33 });

    const unregistered = h.sandbox.addPhoneNumber(h.business.wabaId);
    const pending = await h.send(text(CUSTOMER), { phoneNumberId: unregistered.phoneNumberId });
    expect(pending.json.error).toMatchObject({ code: 133010 });

    const self = await h.send(text(`+${h.business.displayPhoneNumber.replace(/\D/g, "")}`));
    expect(self.json.error).toMatchObject({ code: 131021, message: "(#131021) Recipient cannot be sender" });
  });

  it("takes injected faults on messages.send", async () => {
    h = await startSending();
    await h.customerWrites(CUSTOMER);
    h.sandbox.injectFault({ step: "messages.send", error: { status: 503, code: 131016, isTransient: true } });
    const faulted = await h.send(text(CUSTOMER));
    expect(faulted.status).toBe(503);
    expect(faulted.json.error).toMatchObject({ code: 131016, is_transient: true });
    expect((await h.send(text(CUSTOMER))).status).toBe(200);
  });
});

describe("magic recipients", () => {
  const to = (last4: string) => `2547000${last4}`;

  it("fails 0000, 0047 and 1049 asynchronously, stops 0002 at delivered and 0003 at sent", async () => {
    h = await startSending();
    h.sandbox.createTemplateAtMeta(h.business.wabaId, { name: "salamu", language: "en", category: "MARKETING" });
    const outcomes: Record<string, string> = {};
    for (const last4 of ["0000", "0047", "1049", "0002", "0003", "1234"]) {
      const answer = await h.send({ ...template("salamu", "en", []), to: to(last4) });
      expect(answer.status).toBe(200);
      outcomes[answer.json.messages[0].id] = last4;
    }
    const statuses = await h.statuses();
    const ladder = (last4: string) =>
      statuses.filter((s) => outcomes[s.id] === last4).map((s) => (s.status === "failed" ? `failed ${s.errors![0]!.code}` : s.status));
    expect(ladder("0000")).toEqual(["failed 131026"]);
    expect(ladder("0047")).toEqual(["failed 131047"]);
    expect(ladder("1049")).toEqual(["failed 131049"]);
    expect(ladder("0002")).toEqual(["sent", "delivered"]);
    expect(ladder("0003")).toEqual(["sent"]);
    expect(ladder("1234")).toEqual(["sent", "delivered", "read"]);
    const failed = statuses.find((s) => outcomes[s.id] === "1049")!;
    expect(failed).not.toHaveProperty("pricing");
    expect(failed.errors![0]).toEqual({
      code: 131049,
      title: "This message was not delivered to maintain healthy ecosystem engagement.",
      message: "This message was not delivered to maintain healthy ecosystem engagement.",
      error_data: { details: "In order to maintain a healthy ecosystem engagement, the message failed to be delivered." },
      href: expect.stringContaining("error-codes"),
    });
  });

  it("answers 0429, 1056, 0190 and 0500 at once", async () => {
    h = await startSending();
    await h.customerWrites(to("0429"));
    const expectError = async (last4: string, status: number, error: Record<string, unknown>) => {
      const answer = await h!.send(text(to(last4)));
      expect(answer.status).toBe(status);
      expect(answer.json.error).toMatchObject(error);
    };
    await expectError("0429", 400, { code: 130429, message: "(#130429) Rate limit hit" });
    await expectError("1056", 400, { code: 131056, message: "(#131056) (Business Account, Consumer Account) pair rate limit hit" });
    await expectError("0190", 401, { code: 190, error_subcode: 463 });
    await expectError("0500", 500, { code: 131000, is_transient: true });
    expect(h.sandbox.messages()).toHaveLength(0);
  });
});

describe("limits", () => {
  it("refuses more than the number's throughput in a second (130429) and more than the pair rate's burst (131056)", async () => {
    const now = Date.UTC(2026, 0, 5, 8);
    h = await startSending({ now: () => now, throughputPerSecond: 3 });
    for (const n of [1, 2, 3]) await h.customerWrites(`25471111000${n}`);
    for (const n of [1, 2, 3]) expect((await h.send(text(`25471111000${n}`))).status).toBe(200);
    const over = await h.send(text("254711110001"));
    expect(over.json.error).toMatchObject({ code: 130429, error_data: { details: "Cloud API message throughput has been reached." } });
  });

  it("allows a burst of 45 to one customer, then answers 131056; other customers are not affected", async () => {
    const now = Date.UTC(2026, 0, 5, 8);
    h = await startSending({
      now: () => now,
      throughputPerSecond: 0,
      statusDelaysMs: { sent: 600_000, delivered: 600_000, read: 600_000 },
    });
    await h.customerWrites(CUSTOMER);
    await h.customerWrites("254722000001");
    for (let i = 0; i < 45; i++) expect((await h.send(text(CUSTOMER))).status).toBe(200);
    expect((await h.send(text(CUSTOMER))).json.error.code).toBe(131056);
    expect((await h.send(text("254722000001"))).status).toBe(200);
  });

  it("switches both limits off", async () => {
    const now = Date.UTC(2026, 0, 5, 8);
    h = await startSending({
      now: () => now,
      throughputPerSecond: 0,
      pairRateLimit: false,
      statusDelaysMs: { sent: 600_000, delivered: 600_000, read: 600_000 },
    });
    await h.customerWrites(CUSTOMER);
    for (let i = 0; i < 100; i++) expect((await h.send(text(CUSTOMER))).status).toBe(200);
  });
});

describe("control/messages", () => {
  it("lists the accepted messages, by number and recipient", async () => {
    h = await startSending();
    await h.customerWrites(CUSTOMER);
    await h.customerWrites("254722000001");
    await h.send(text(CUSTOMER, "one"));
    await h.send(text("+254 722 000 001", "two"));
    const all = (await (await fetch(`${h.base}/control/messages?phoneNumberId=${h.business.phoneNumberId}`)).json()) as {
      messages: SandboxMessage[];
    };
    expect(all.messages.map((m) => (m.body.text as { body: string }).body)).toEqual(["one", "two"]);
    const one = (await (await fetch(`${h.base}/control/messages?to=%2B254722000001`)).json()) as { messages: SandboxMessage[] };
    expect(one.messages).toHaveLength(1);
    expect(one.messages[0]).toMatchObject({ to: "+254 722 000 001", waId: "254722000001", pricing: { type: "free_customer_service" } });
  });
});
