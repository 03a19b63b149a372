import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMetaSandbox, type MetaSandboxOptions } from "./index";
import { APP_ID, APP_SECRET, startHarness, type GraphAnswer, type Harness, type WebhookEnvelope } from "./test-support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ORDER_UPDATE = {
  name: "order_update",
  language: "en_US",
  category: "UTILITY",
  components: [
    { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["#1234"] } },
    { type: "BODY", text: "Hi {{1}}! Your order {{2}} ships today.", example: { body_text: [["Amina", "860198-230332"]] } },
    { type: "FOOTER", text: "Reply STOP to opt out" },
    {
      type: "BUTTONS",
      buttons: [
        { type: "QUICK_REPLY", text: "Stop promotions" },
        { type: "URL", text: "Track", url: "https://shop.example/t/{{1}}", example: ["abc"] },
      ],
    },
  ],
};

const MPM_HEADER = { type: "HEADER", format: "TEXT", text: "New arrivals" };
const QUICK = { type: "QUICK_REPLY", text: "Stop" };
const productButtons = (type: "CATALOG" | "MPM", ...others: object[]) => ({
  type: "BUTTONS",
  buttons: [{ type, text: type === "MPM" ? "View items" : "View catalog" }, ...others],
});
const body = (text: string, example?: string[]) => ({ type: "BODY", text, ...(example ? { example: { body_text: [example] } } : {}) });

/**
 * A started sandbox with the demo WABA's token. The reviewer waits ten minutes unless a test says
 * otherwise, so nothing depends on how fast a busy machine runs the test.
 */
async function setup(overrides: Partial<MetaSandboxOptions> = {}) {
  h = await startHarness({ templateReviewDelayMs: 600_000, ...overrides });
  const state = await h.state();
  const businessId = state.businesses.find((b) => b.demo)!.id as string;
  const wabaId = state.wabas.find((w) => w.businessId === businessId)!.id as string;
  const token = await h.tokenFor(businessId, [wabaId]);
  return { harness: h, wabaId, token };
}

function post(harness: Harness, pathname: string, token: string, payload: unknown) {
  return harness.graph(pathname, {
    token,
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(payload),
  });
}

/** Waits (without a time limit of its own; vitest's test timeout bounds it) until the check passes. */
async function eventually(check: () => boolean) {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The console's notice after a form post (its redirect's query). */
const notice = (response: Response) => new URL(response.headers.get("location")!, "http://x").searchParams.get("notice");

function verify(received: { body: string; headers: Record<string, unknown> }) {
  const expected = `sha256=${createHmac("sha256", APP_SECRET).update(Buffer.from(received.body, "utf8")).digest("hex")}`;
  return received.headers["x-hub-signature-256"] === expected;
}

/** A template webhook's `value`: which fields it has depends on its field (status, category, quality). */
interface TemplateChangeValue {
  event?: string;
  message_template_id?: number;
  reason?: string;
  new_category?: string;
  new_quality_score?: string;
  other_info?: { title: string; description: string };
  disable_info?: { disable_date: string };
}

/** Every change received so far, with its entry id and time; every POST's signature verified. */
function changes(harness: Harness) {
  return harness.receiver.received.flatMap((r) => {
    expect(verify(r)).toBe(true);
    const envelope = JSON.parse(r.body) as WebhookEnvelope;
    expect(envelope.object).toBe("whatsapp_business_account");
    return envelope.entry.flatMap((e) =>
      e.changes.map((c) => ({ entryId: e.id, time: e.time, field: c.field, value: c.value as TemplateChangeValue })),
    );
  });
}

describe("creating templates", () => {
  it("answers id, PENDING and the category, from a JSON or a form-encoded body", async () => {
    const { harness, wabaId, token } = await setup();
    const created = await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, category: "utility" });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({ id: expect.stringMatching(/^[1-9]\d{15}$/), status: "PENDING", category: "UTILITY" });
    expect(Number.isSafeInteger(Number(created.json.id))).toBe(true);

    const form = await harness.graph(`${wabaId}/message_templates`, {
      token,
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        name: "welcome",
        language: "sw",
        category: "MARKETING",
        components: JSON.stringify([body("Karibu {{1}}!", ["Amina"])]),
      }).toString(),
    });
    expect(form.json).toEqual({ id: expect.any(String), status: "PENDING", category: "MARKETING" });

    const auth = await harness.graph(`${wabaId}/message_templates`, {
      token,
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "login_code",
        language: "en",
        category: "AUTHENTICATION",
        components: [
          { type: "BODY", add_security_recommendation: true },
          { type: "FOOTER", code_expiration_minutes: 10 },
          { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy Code" }] },
        ],
      }),
    });
    expect(auth.json.category).toBe("AUTHENTICATION");

    const node = await harness.graph(created.json.id, { token });
    expect(node.json).toEqual({
      name: "order_update",
      parameter_format: "POSITIONAL",
      components: ORDER_UPDATE.components,
      language: "en_US",
      status: "PENDING",
      category: "UTILITY",
      id: created.json.id,
    });
    expect((await harness.graph(`${created.json.id}?fields=status`, { token })).json).toEqual({ status: "PENDING", id: created.json.id });
    expect(harness.sandbox.calls().map((c) => c.step)).toEqual(
      expect.arrayContaining(["template.create", "template.create", "template.get", "template.get"]),
    );
  });

  it("accepts named parameters and media headers with their samples", async () => {
    const { harness, wabaId, token } = await setup();
    const upload = await harness.graph(`${APP_ID}/uploads?file_name=a.jpg&file_length=3&file_type=image/jpeg`, { method: "POST", token });
    const sent = await fetch(`${harness.base}/graph/v23.0/${upload.json.id}`, {
      method: "POST",
      headers: { Authorization: `OAuth ${token}`, file_offset: "0" },
      body: new Uint8Array([0xff, 0xd8, 0xff]),
    });
    const handle = ((await sent.json()) as { h: string }).h;
    const named = await post(harness, `${wabaId}/message_templates`, token, {
      name: "named_params",
      language: "en_GB",
      category: "MARKETING",
      parameter_format: "named",
      components: [
        { type: "HEADER", format: "IMAGE", example: { header_handle: [handle] } },
        {
          type: "BODY",
          text: "Hello {{first_name}}, your code is {{code}} today.",
          example: {
            body_text_named_params: [
              { param_name: "first_name", example: "Amina" },
              { param_name: "code", example: "FALL25" },
            ],
          },
        },
        {
          type: "BUTTONS",
          buttons: [
            { type: "PHONE_NUMBER", text: "Call us", phone_number: "+254711082000" },
            { type: "COPY_CODE", example: "FALL25" },
          ],
        },
      ],
    });
    expect(named.json).toEqual({ id: expect.any(String), status: "PENDING", category: "MARKETING" });
    const node = await harness.graph(`${named.json.id}?fields=parameter_format,components`, { token });
    expect(node.json.parameter_format).toBe("NAMED");
    // Meta keeps the sample at a URL of its own and answers that as the example.
    expect(node.json.components[0]).toEqual({
      type: "HEADER",
      format: "IMAGE",
      example: { header_handle: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/sandbox\/meta\/uploads\/[\w-]+$/)] },
    });
  });

  it("refuses the same name and language in the WABA (2388024), and takes another language", async () => {
    const { harness, wabaId, token } = await setup();
    expect((await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE)).status).toBe(200);
    const again = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    expect(again.status).toBe(400);
    expect(again.json.error).toMatchObject({
      message: "Invalid parameter",
      type: "OAuthException",
      code: 100,
      error_subcode: 2388024,
      is_transient: false,
      error_user_title: "Content in this language already exists",
      error_user_msg: expect.stringContaining("order_update"),
      fbtrace_id: expect.any(String),
    });
    expect((await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, language: "sw" })).status).toBe(200);
    // Another WABA has its own names.
    const other = harness.sandbox.createTestBusiness({ businessName: "Other" });
    const otherToken = await harness.tokenFor(other.businessId, [other.wabaId]);
    expect((await post(harness, `${other.wabaId}/message_templates`, otherToken, ORDER_UPDATE)).status).toBe(200);
    expect(harness.sandbox.templates(wabaId)).toHaveLength(2);
    expect(harness.sandbox.templates()).toHaveLength(3);
  });

  const cases: { title: string; change: (t: typeof ORDER_UPDATE) => unknown; subcode?: number; message?: RegExp; userTitle?: RegExp }[] = [
    { title: "missing name", change: (t) => ({ ...t, name: undefined }), message: /^\(#100\) The parameter name is required$/ },
    { title: "upper-case name", change: (t) => ({ ...t, name: "Order_Update" }), userTitle: /Invalid template name/ },
    { title: "name with a space", change: (t) => ({ ...t, name: "order update" }), userTitle: /Invalid template name/ },
    { title: "name over 512", change: (t) => ({ ...t, name: "a".repeat(513) }), userTitle: /Invalid template name/ },
    { title: "unknown category", change: (t) => ({ ...t, category: "PROMO" }), message: /Param category must be one of/ },
    { title: "unsupported language", change: (t) => ({ ...t, language: "xx_YY" }), userTitle: /Language not supported/ },
    { title: "language with a hyphen", change: (t) => ({ ...t, language: "en-US" }), userTitle: /Language not supported/ },
    { title: "no components", change: (t) => ({ ...t, components: undefined }), message: /The parameter components is required/ },
    {
      title: "missing BODY",
      change: (t) => ({ ...t, components: [{ type: "FOOTER", text: "x" }] }),
      userTitle: /body missing/i,
    },
    {
      title: "body over 1024",
      change: (t) => ({ ...t, components: [body("x".repeat(1025))] }),
      subcode: 2388040,
      userTitle: /Character limit exceeded/,
    },
    {
      title: "header text over 60",
      change: (t) => ({ ...t, components: [{ type: "HEADER", format: "TEXT", text: "h".repeat(61) }, body("Hello")] }),
      subcode: 2388040,
    },
    {
      title: "footer over 60",
      change: (t) => ({ ...t, components: [body("Hello"), { type: "FOOTER", text: "f".repeat(61) }] }),
      subcode: 2388040,
    },
    {
      title: "11 buttons",
      change: (t) => ({
        ...t,
        components: [
          body("Hello"),
          { type: "BUTTONS", buttons: Array.from({ length: 11 }, (_, i) => ({ type: "QUICK_REPLY", text: `B${i}` })) },
        ],
      }),
      userTitle: /Too many buttons/,
    },
    {
      title: "body parameters without samples",
      change: (t) => ({ ...t, components: [body("Hi {{1}}, order {{2}}")] }),
      subcode: 2388072,
      userTitle: /Sample values missing/,
    },
    {
      title: "fewer samples than parameters",
      change: (t) => ({ ...t, components: [body("Hi {{1}}, order {{2}}", ["Amina"])] }),
      subcode: 2388072,
    },
    {
      title: "header parameter without a sample",
      change: (t) => ({ ...t, components: [{ type: "HEADER", format: "TEXT", text: "Order {{1}}" }, body("Hello")] }),
      subcode: 2388047,
    },
    {
      title: "media header without a handle",
      change: (t) => ({ ...t, components: [{ type: "HEADER", format: "VIDEO" }, body("Hello")] }),
      subcode: 2388047,
    },
    {
      title: "URL button parameter without a sample",
      change: (t) => ({
        ...t,
        components: [body("Hello"), { type: "BUTTONS", buttons: [{ type: "URL", text: "Track", url: "https://x.example/{{1}}" }] }],
      }),
      userTitle: /Sample values missing/,
    },
    {
      title: "parameters not numbered from 1",
      change: (t) => ({ ...t, components: [body("Hi {{2}}, order {{3}}", ["a", "b"])] }),
      subcode: 2388072,
      userTitle: /not numbered in order/,
    },
    {
      title: "a gap in the numbering",
      change: (t) => ({ ...t, components: [body("Hi {{1}}, order {{3}}", ["a", "b"])] }),
      subcode: 2388072,
    },
    {
      title: "a named parameter in a positional template",
      change: (t) => ({ ...t, components: [body("Hi {{name}}", ["a"])] }),
      subcode: 2388072,
    },
    {
      title: "an OTP button outside AUTHENTICATION",
      change: (t) => ({ ...t, components: [body("Hello"), { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE" }] }] }),
      userTitle: /Invalid button/,
    },
    {
      title: "a CATALOG button in a UTILITY template",
      change: (t) => ({
        ...t,
        components: [body("Our catalogue"), { type: "BUTTONS", buttons: [{ type: "CATALOG", text: "View catalog" }] }],
      }),
      userTitle: /Invalid button/,
    },
    {
      title: "an MPM button beside another button",
      change: (t) => ({ ...t, category: "MARKETING", components: [MPM_HEADER, body("New in"), productButtons("MPM", QUICK)] }),
      userTitle: /Invalid button/,
    },
    {
      title: "a catalog template with a header",
      change: (t) => ({ ...t, category: "MARKETING", components: [MPM_HEADER, body("Our catalogue"), productButtons("CATALOG")] }),
      subcode: 2388047,
    },
    {
      title: "a multi-product template without a text header",
      change: (t) => ({ ...t, category: "MARKETING", components: [body("New in"), productButtons("MPM")] }),
      subcode: 2388047,
    },
  ];

  it("takes catalog and multi-product MARKETING templates (decision 146)", async () => {
    const { harness, wabaId, token } = await setup();
    const catalog = {
      name: "intro_catalog_offer",
      language: "en",
      category: "MARKETING",
      components: [body("Browse our catalogue"), productButtons("CATALOG")],
    };
    const mpm = {
      name: "abandoned_cart",
      language: "en",
      category: "marketing",
      components: [MPM_HEADER, body("You left these behind"), productButtons("MPM")],
    };
    expect((await post(harness, `${wabaId}/message_templates`, token, catalog)).status).toBe(200);
    expect((await post(harness, `${wabaId}/message_templates`, token, mpm)).status).toBe(200);
    expect(
      harness.sandbox
        .templates(wabaId)
        .map((t) => t.name)
        .sort(),
    ).toEqual(["abandoned_cart", "intro_catalog_offer"]);
  });

  it.each(cases)("answers Meta's error envelope for $title", async ({ change, subcode, message, userTitle }) => {
    const { harness, wabaId, token } = await setup();
    const answer = await post(harness, `${wabaId}/message_templates`, token, change(ORDER_UPDATE));
    expect(answer.status).toBe(400);
    const error = answer.json.error;
    expect(error).toMatchObject({ type: "OAuthException", code: 100, fbtrace_id: answer.headers.get("x-fb-trace-id") });
    expect(error.error_user_title).toEqual(expect.any(String));
    expect(error.error_user_msg).toEqual(expect.any(String));
    if (subcode) expect(error.error_subcode).toBe(subcode);
    else expect(error).not.toHaveProperty("error_subcode");
    if (message) expect(error.message).toMatch(message);
    else expect(error.message).toBe("Invalid parameter");
    if (userTitle) expect(error.error_user_title).toMatch(userTitle);
    expect(harness.sandbox.templates()).toEqual([]);
    expect(harness.sandbox.calls().at(-1)).toMatchObject({ step: "template.create", status: 400, errorCode: 100 });
  });

  it("keeps the WABA's access rules: a token, and one that grants the WABA", async () => {
    const { harness, wabaId, token } = await setup();
    const created = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    const other = harness.sandbox.createTestBusiness({ businessName: "Other" });
    const otherToken = await harness.tokenFor(other.businessId, [other.wabaId]);

    expect((await harness.graph(`${wabaId}/message_templates`)).status).toBe(401);
    expect((await harness.graph(`${wabaId}/message_templates`, { token: "EAAbogus" })).json.error).toMatchObject({
      code: 190,
      error_subcode: 467,
    });
    for (const answer of [
      await harness.graph(`${wabaId}/message_templates`, { token: otherToken }),
      await post(harness, `${wabaId}/message_templates`, otherToken, { ...ORDER_UPDATE, language: "fr" }),
      await harness.graph(created.json.id, { token: otherToken }),
      await post(harness, created.json.id, otherToken, { components: ORDER_UPDATE.components }),
      await harness.graph(`${wabaId}/message_templates?name=order_update`, { token: otherToken, method: "DELETE" }),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 100, error_subcode: 33, type: "GraphMethodException" });
    }
    const unknown = await harness.graph("1234567890123456", { token });
    expect(unknown.json.error.message).toBe(
      "Unsupported get request. Object with ID '1234567890123456' does not exist, cannot be loaded due to missing permissions, or does not support this operation.",
    );
    expect((await harness.graph(created.json.id, { token, method: "DELETE" })).json.error.error_subcode).toBe(33);
    expect(harness.sandbox.templates()).toHaveLength(1);
  });
});

describe("listing templates", () => {
  it("pages with cursors, giving paging.next only while another page follows", async () => {
    const { harness, wabaId, token } = await setup();
    const ids: string[] = [];
    for (const name of ["alpha", "bravo", "charlie", "delta", "echo"]) {
      ids.push((await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name })).json.id);
    }
    const first = await harness.graph(`${wabaId}/message_templates?fields=id,name,status&limit=2`, { token });
    expect(first.json.data).toEqual([
      { id: ids[0], name: "alpha", status: "PENDING" },
      { id: ids[1], name: "bravo", status: "PENDING" },
    ]);
    expect(first.json.paging.cursors).toEqual({ before: expect.any(String), after: expect.any(String) });
    expect(first.json.paging).not.toHaveProperty("previous");
    const next = new URL(first.json.paging.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${harness.base}/graph/v23.0/${wabaId}/message_templates`);
    expect(Object.fromEntries(next.searchParams)).toEqual({ fields: "id,name,status", limit: "2", after: first.json.paging.cursors.after });

    const pages = [first.json];
    let url: string | undefined = first.json.paging.next;
    while (url) {
      const page = await (await fetch(url, { headers: { Authorization: `Bearer ${token}` } })).json();
      pages.push(page);
      url = page.paging.next;
    }
    expect(pages.flatMap((p) => p.data.map((t) => t.name))).toEqual(["alpha", "bravo", "charlie", "delta", "echo"]);
    expect(pages.at(-1)!.paging).not.toHaveProperty("next");
    expect(pages.at(-1)!.paging.previous).toEqual(expect.any(String));

    const exact = await harness.graph(`${wabaId}/message_templates?limit=5`, { token });
    expect(exact.json.data).toHaveLength(5);
    expect(exact.json.paging).not.toHaveProperty("next");
    expect(exact.json.data[0]).toEqual({
      name: "alpha",
      parameter_format: "POSITIONAL",
      components: ORDER_UPDATE.components,
      language: "en_US",
      status: "PENDING",
      category: "UTILITY",
      id: ids[0],
    });
    const back = await harness.graph(`${wabaId}/message_templates?fields=name&limit=2&before=${pages[2]!.paging.cursors.before}`, {
      token,
    });
    expect(back.json.data.map((t) => t.name)).toEqual(["charlie", "delta"]);
  });

  it("filters by name, status, category and language; 25 by default; the access token travels in next when it was a parameter", async () => {
    const { harness, wabaId, token } = await setup();
    for (let i = 0; i < 27; i++) await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: `bulk_${i}` });
    await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, language: "sw" });
    await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "promo", category: "MARKETING" });
    const promo = harness.sandbox.templates().find((t) => t.name === "promo")!;
    await harness.sandbox.setTemplateStatus(promo.id, "APPROVED", { silent: true });

    const all = await harness.graph(`${wabaId}/message_templates?fields=name`, { token });
    expect(all.json.data).toHaveLength(25);
    expect(all.json.paging.next).toEqual(expect.any(String));
    const byName = await harness.graph(`${wabaId}/message_templates?fields=name,language&name=order_update`, { token });
    expect(byName.json.data.map((t) => t.language)).toEqual(["sw"]);
    expect(byName.json.paging).not.toHaveProperty("next");
    const approved = await harness.graph(`${wabaId}/message_templates?fields=name&status=APPROVED`, { token });
    expect(approved.json.data).toEqual([{ name: "promo", id: promo.id }]);
    expect((await harness.graph(`${wabaId}/message_templates?category=MARKETING`, { token })).json.data).toHaveLength(1);
    expect((await harness.graph(`${wabaId}/message_templates?language=sw`, { token })).json.data).toHaveLength(1);
    expect((await harness.graph(`${wabaId}/message_templates?status=WHATEVER`, { token })).json.error).toMatchObject({
      code: 100,
      message: expect.stringContaining("Param status must be one of"),
    });
    expect((await harness.graph(`${wabaId}/message_templates?limit=0`, { token })).json.error.code).toBe(100);
    expect((await harness.graph(`${wabaId}/message_templates?after=bm9wZQ`, { token })).json.error.message).toBe(
      "(#100) Invalid cursor: after",
    );
    expect((await harness.graph(`${wabaId}/message_templates?fields=bogus`, { token })).json.error.code).toBe(100);
    expect((await harness.graph(`${wabaId}/message_templates?name=nothing_here`, { token })).json).toEqual({ data: [] });

    const viaParam = await harness.graph(`${wabaId}/message_templates?status=PENDING&access_token=${token}`);
    const next = new URL(viaParam.json.paging.next);
    expect(next.searchParams.get("status")).toBe("PENDING");
    expect(next.searchParams.get("access_token")).toBe(token);
    expect((await (await fetch(next)).json()).data).toHaveLength(3);
    expect(JSON.stringify(harness.sandbox.calls())).not.toContain(token);
  });
});

describe("the reviewer", () => {
  it("decides right after the answer with delay 0: approved, rejected, approved then re-categorised; signed webhooks", async () => {
    const { harness, wabaId, token } = await setup({ templateReviewDelayMs: 0 });
    const approve = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    const reject = await post(harness, `${wabaId}/message_templates`, token, {
      ...ORDER_UPDATE,
      name: "please_reject_me",
      category: "MARKETING",
    });
    const recategorise = await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "recategorise_alert" });
    expect([approve, reject, recategorise].map((a) => a.json.status)).toEqual(["PENDING", "PENDING", "PENDING"]);
    await eventually(() => harness.sandbox.templates().every((t) => t.status !== "PENDING"));
    await harness.sandbox.flushWebhooks();

    const received = changes(harness);
    expect(received.map((c) => c.field)).toEqual([
      "message_template_status_update",
      "message_template_status_update",
      "message_template_status_update",
      "template_category_update",
    ]);
    for (const c of received) {
      expect(c.entryId).toBe(wabaId);
      expect(c.time).toEqual(expect.any(Number));
    }
    const id = (answer: GraphAnswer) => Number(answer.json.id);
    expect(received[0]!.value).toEqual({
      event: "APPROVED",
      message_template_id: id(approve),
      message_template_name: "order_update",
      message_template_language: "en-US",
      reason: "NONE",
      message_template_category: "UTILITY",
    });
    expect(received[1]!.value).toEqual({
      event: "REJECTED",
      message_template_id: id(reject),
      message_template_name: "please_reject_me",
      message_template_language: "en-US",
      reason: "INVALID_FORMAT",
      message_template_category: "MARKETING",
      rejection_info: { reason: expect.stringContaining("reject"), recommendation: expect.any(String) },
    });
    expect(received[2]!.value).toMatchObject({
      event: "APPROVED",
      message_template_id: id(recategorise),
      message_template_category: "UTILITY",
    });
    expect(received[3]!.value).toEqual({
      message_template_id: id(recategorise),
      message_template_name: "recategorise_alert",
      message_template_language: "en-US",
      previous_category: "UTILITY",
      new_category: "MARKETING",
    });
    // The raw bytes carry the id as a number, not a string.
    expect(harness.receiver.received.some((r) => r.body.includes(`"message_template_id":${approve.json.id},`))).toBe(true);

    const fields = "id,name,status,category,previous_category,rejected_reason,quality_score";
    const listed = await harness.graph(`${wabaId}/message_templates?fields=${fields}`, { token });
    expect(listed.json.data).toEqual([
      {
        id: approve.json.id,
        name: "order_update",
        status: "APPROVED",
        category: "UTILITY",
        rejected_reason: "NONE",
        quality_score: { score: "UNKNOWN" },
      },
      {
        id: reject.json.id,
        name: "please_reject_me",
        status: "REJECTED",
        category: "MARKETING",
        rejected_reason: "INVALID_FORMAT",
        quality_score: { score: "UNKNOWN" },
      },
      {
        id: recategorise.json.id,
        name: "recategorise_alert",
        status: "APPROVED",
        category: "MARKETING",
        previous_category: "UTILITY",
        rejected_reason: "NONE",
        quality_score: { score: "UNKNOWN" },
      },
    ]);
  });

  it("reviews after 3 s by default", async () => {
    h = await startHarness();
    const wabaId = (await h.state()).wabas[0]!.id;
    const pending = h.sandbox.createTemplateAtMeta(wabaId, { name: "by_default", language: "en", category: "UTILITY", status: "PENDING" });
    expect(Date.parse(pending.reviewAt!) - Date.parse(pending.createdAt)).toBe(3000);
    const options = { appId: APP_ID, appSecret: APP_SECRET, webhookUrl: h.receiver.url };
    expect(() => createMetaSandbox({ ...options, templateReviewDelayMs: -1 })).toThrow(/templateReviewDelayMs/);
  });

  it("reviewTemplatesNow decides only one WABA's or one template's pending templates when asked", async () => {
    const { harness, wabaId, token } = await setup();
    await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "reject_this" });
    const [first, second] = harness.sandbox.templates();
    expect(await harness.sandbox.reviewTemplatesNow({ wabaId: "not-this-waba" })).toEqual([]);
    const one = await harness.sandbox.reviewTemplatesNow({ templateId: second!.id });
    expect(one.map((d) => [d.name, d.status])).toEqual([["reject_this", "REJECTED"]]);
    expect(harness.sandbox.templates().map((t) => t.status)).toEqual(["PENDING", "REJECTED"]);
    const rest = await harness.sandbox.reviewTemplatesNow({ wabaId });
    expect(rest.map((d) => [d.templateId, d.status])).toEqual([[first!.id, "APPROVED"]]);
  });

  it("waits the review delay; reviewTemplatesNow decides every pending template at once", async () => {
    const { harness, wabaId, token } = await setup();
    await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "reject_this" });
    await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "recategorise_me" });
    const pending = harness.sandbox.templates();
    expect(pending.map((t) => t.status)).toEqual(["PENDING", "PENDING", "PENDING"]);
    expect(Date.parse(pending[0]!.reviewAt!) - Date.parse(pending[0]!.createdAt)).toBe(600_000);
    await harness.sandbox.flushWebhooks();
    expect(harness.receiver.received).toHaveLength(0);

    const decided = await harness.sandbox.reviewTemplatesNow();
    expect(decided).toEqual([
      {
        templateId: pending[0]!.id,
        wabaId,
        name: "order_update",
        language: "en_US",
        status: "APPROVED",
        reason: "NONE",
        category: "UTILITY",
      },
      {
        templateId: pending[1]!.id,
        wabaId,
        name: "reject_this",
        language: "en_US",
        status: "REJECTED",
        reason: "INVALID_FORMAT",
        category: "UTILITY",
      },
      {
        templateId: pending[2]!.id,
        wabaId,
        name: "recategorise_me",
        language: "en_US",
        status: "APPROVED",
        reason: "NONE",
        category: "MARKETING",
        previousCategory: "UTILITY",
      },
    ]);
    expect(await harness.sandbox.reviewTemplatesNow()).toEqual([]);
    await harness.sandbox.flushWebhooks();
    expect(changes(harness).map((c) => c.value.event ?? c.value.new_category)).toEqual(["APPROVED", "REJECTED", "APPROVED", "MARKETING"]);
    expect(harness.sandbox.templates().map((t) => t.reviewAt)).toEqual([null, null, null]);
  });
});

describe("editing templates", () => {
  it("edits APPROVED, REJECTED or PAUSED templates only; an edit goes back through review", async () => {
    const { harness, wabaId, token } = await setup();
    const created = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    const id = created.json.id as string;
    const newComponents = [body("Hello {{1}}, order {{2}} is on its way.", ["Amina", "A-17"])];

    const pending = await post(harness, id, token, { components: newComponents });
    expect(pending.status).toBe(400);
    expect(pending.json.error).toMatchObject({
      code: 100,
      error_subcode: 2388039,
      error_user_title: "Message template status can't be changed",
      error_user_msg: expect.stringContaining("PENDING"),
    });

    await harness.sandbox.reviewTemplatesNow();
    expect((await post(harness, id, token, { category: "MARKETING" })).json.error.error_user_title).toBe("Category can't be changed");
    expect((await post(harness, id, token, {})).json.error.code).toBe(100);
    expect((await post(harness, id, token, { components: [body("Hi {{1}}")] })).json.error.error_subcode).toBe(2388072);
    const edited = await post(harness, id, token, { components: newComponents });
    expect(edited.json).toEqual({ success: true });
    expect(harness.sandbox.calls().at(-1)).toMatchObject({ method: "POST", step: "template.edit", status: 200 });
    const node = await harness.graph(`${id}?fields=status,components,name,language`, { token });
    expect(node.json).toEqual({ status: "PENDING", components: newComponents, name: "order_update", language: "en_US", id });

    expect((await harness.sandbox.reviewTemplatesNow()).map((d) => d.status)).toEqual(["APPROVED"]);
    await harness.sandbox.setTemplateStatus(id, "PAUSED", { silent: true });
    const form = await harness.graph(id, {
      token,
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ components: JSON.stringify(newComponents) }).toString(),
    });
    expect(form.json).toEqual({ success: true });

    await harness.sandbox.setTemplateStatus(id, "REJECTED", { silent: true });
    expect((await post(harness, id, token, { category: "marketing" })).json).toEqual({ success: true });
    expect(harness.sandbox.templates()[0]).toMatchObject({ status: "PENDING", category: "MARKETING", rejectedReason: "NONE" });

    await harness.sandbox.setTemplateStatus(id, "DISABLED", { silent: true });
    expect((await post(harness, id, token, { components: newComponents })).json.error.error_subcode).toBe(2388039);
  });
});

describe("deleting templates", () => {
  it("deletes every language by name, or one by hsm_id; DELETED webhooks with reason null; unknown is 404", async () => {
    const { harness, wabaId, token } = await setup();
    const english = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    const swahili = await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, language: "sw" });
    const french = await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, language: "fr" });
    await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "keep_me" });

    const one = await harness.graph(`${wabaId}/message_templates?name=order_update&hsm_id=${swahili.json.id}`, { token, method: "DELETE" });
    expect(one.json).toEqual({ success: true });
    expect(harness.sandbox.templates().map((t) => `${t.name}/${t.language}`)).toEqual([
      "order_update/en_US",
      "order_update/fr",
      "keep_me/en_US",
    ]);
    expect((await harness.graph(swahili.json.id, { token })).json.error.error_subcode).toBe(33);

    const all = await harness.graph(`${wabaId}/message_templates?name=order_update`, { token, method: "DELETE" });
    expect(all.json).toEqual({ success: true });
    expect(harness.sandbox.templates().map((t) => t.name)).toEqual(["keep_me"]);

    const unknown = await harness.graph(`${wabaId}/message_templates?name=order_update`, { token, method: "DELETE" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 100, type: "OAuthException", fbtrace_id: expect.any(String) });
    const wrongId = await harness.graph(`${wabaId}/message_templates?name=keep_me&hsm_id=${english.json.id}`, { token, method: "DELETE" });
    expect(wrongId.status).toBe(404);
    expect((await harness.graph(`${wabaId}/message_templates`, { token, method: "DELETE" })).json.error.message).toBe(
      "(#100) The parameter name is required",
    );
    expect(harness.sandbox.calls().filter((c) => c.step === "template.delete")).toHaveLength(5);

    await harness.sandbox.flushWebhooks();
    const deleted = changes(harness).filter((c) => c.value.event === "DELETED");
    expect(deleted.map((c) => c.value.message_template_id)).toEqual([swahili, english, french].map((a) => Number(a.json.id)));
    expect(deleted[0]!.value).toEqual({
      event: "DELETED",
      message_template_id: Number(swahili.json.id),
      message_template_name: "order_update",
      message_template_language: "sw",
      reason: null,
      message_template_category: "UTILITY",
    });
  });

  it("refuses to delete a DISABLED template, and holds an approved template's name for 30 days (2388023)", async () => {
    let now = Date.parse("2026-03-01T08:00:00Z");
    const { harness, wabaId, token } = await setup({ now: () => now });
    const created = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    await harness.sandbox.setTemplateStatus(created.json.id, "DISABLED", { silent: true });
    const disabled = await harness.graph(`${wabaId}/message_templates?name=order_update`, { token, method: "DELETE" });
    expect(disabled.status).toBe(400);
    expect(disabled.json.error).toMatchObject({ code: 100, error_user_title: "Disabled templates can't be deleted" });
    await expect(harness.sandbox.deleteTemplateAtMeta(created.json.id)).rejects.toThrow(/DISABLED/);

    await harness.sandbox.setTemplateStatus(created.json.id, "REINSTATED", { silent: true });
    expect((await harness.graph(`${wabaId}/message_templates?name=order_update`, { token, method: "DELETE" })).status).toBe(200);
    now += 29 * 24 * 3600_000;
    const held = await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, language: "sw" });
    expect(held.status).toBe(400);
    expect(held.json.error).toMatchObject({
      message: "Invalid parameter",
      code: 100,
      error_subcode: 2388023,
      error_user_title: "Message template language is being deleted",
      error_user_msg: expect.stringContaining("2026-03-31"),
    });
    // A rejected template's name is free at once.
    const rejected = await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "rejected_one" });
    await harness.sandbox.setTemplateStatus(rejected.json.id, "REJECTED", { silent: true });
    await harness.graph(`${wabaId}/message_templates?name=rejected_one`, { token, method: "DELETE" });
    expect((await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "rejected_one" })).status).toBe(200);

    now += 2 * 24 * 3600_000;
    expect((await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE)).status).toBe(200);
  });
});

describe("Meta's side: status changes, quality, Business Manager", () => {
  it("sends status webhooks (PAUSED with other_info, DISABLED with disable_info), or none when silent", async () => {
    const now = Date.parse("2026-03-01T08:00:00Z");
    const { harness, wabaId } = await setup({ now: () => now });
    const made = harness.sandbox.createTemplateAtMeta(wabaId, { name: "hello_world", language: "en_US", category: "UTILITY" });
    expect(made).toMatchObject({ status: "APPROVED", qualityScore: "UNKNOWN", reviewAt: null, wabaId });
    expect(made.components).toEqual([{ type: "BODY", text: expect.any(String) }]);

    const silent = await harness.sandbox.setTemplateStatus(made.id, "PAUSED", { silent: true });
    expect(silent.status).toBe("PAUSED");
    await harness.sandbox.flushWebhooks();
    expect(harness.receiver.received).toHaveLength(0);

    await harness.sandbox.setTemplateStatus(made.id, "REINSTATED");
    await harness.sandbox.setTemplateStatus(made.id, "PAUSED");
    await harness.sandbox.setTemplateStatus(made.id, "DISABLED");
    await harness.sandbox.setTemplateStatus(made.id, "FLAGGED");
    await harness.sandbox.setTemplateStatus(made.id, "REJECTED", { reason: "PROMOTIONAL" });
    await harness.sandbox.sendTemplateQualityUpdate(made.id, "YELLOW");
    await harness.sandbox.flushWebhooks();
    const received = changes(harness);
    expect(received.map((c) => c.value.event ?? c.field)).toEqual([
      "REINSTATED",
      "PAUSED",
      "DISABLED",
      "FLAGGED",
      "REJECTED",
      "message_template_quality_update",
    ]);
    expect(received[0]!.value.other_info).toEqual({ title: "UNPAUSE", description: expect.any(String) });
    expect(received[1]!.value).toMatchObject({ reason: "NONE", other_info: { title: "FIRST_PAUSE", description: expect.any(String) } });
    expect(received[2]!.value.disable_info).toEqual({ disable_date: String(Math.floor(now / 1000)) });
    expect(received[3]!.value).toEqual({
      event: "FLAGGED",
      message_template_id: Number(made.id),
      message_template_name: "hello_world",
      message_template_language: "en-US",
      reason: "NONE",
      message_template_category: "UTILITY",
    });
    expect(received[4]!.value).toMatchObject({ reason: "PROMOTIONAL", rejection_info: { reason: expect.stringContaining("PROMOTIONAL") } });
    expect(received[5]!.value).toEqual({
      previous_quality_score: "UNKNOWN",
      new_quality_score: "YELLOW",
      message_template_id: Number(made.id),
      message_template_name: "hello_world",
      message_template_language: "en-US",
    });
    // FLAGGED left the status as it was (DISABLED) before the rejection.
    expect(harness.sandbox.templates()[0]).toMatchObject({ status: "REJECTED", rejectedReason: "PROMOTIONAL", qualityScore: "YELLOW" });

    await harness.sandbox.deleteTemplateAtMeta(made.id, { silent: true });
    await harness.sandbox.flushWebhooks();
    expect(harness.receiver.received).toHaveLength(1);
    expect(harness.sandbox.templates()).toEqual([]);
  });

  it("checks createTemplateAtMeta's input like the Graph API, with readable errors; a PENDING one is reviewed", async () => {
    const { harness, wabaId } = await setup({ templateReviewDelayMs: 0 });
    expect(() => harness.sandbox.createTemplateAtMeta("42", { name: "x", language: "en", category: "UTILITY" })).toThrow(
      "Unknown WABA 42.",
    );
    expect(() => harness.sandbox.createTemplateAtMeta(wabaId, { name: "Bad Name", language: "en", category: "UTILITY" })).toThrow(
      /^Invalid template name: /,
    );
    harness.sandbox.createTemplateAtMeta(wabaId, { name: "twice", language: "en", category: "UTILITY" });
    expect(() => harness.sandbox.createTemplateAtMeta(wabaId, { name: "twice", language: "en", category: "UTILITY" })).toThrow(
      /already exists/,
    );
    await expect(harness.sandbox.setTemplateStatus("999", "APPROVED")).rejects.toThrow("Unknown template 999.");
    const made = harness.sandbox.createTemplateAtMeta(wabaId, {
      name: "from_manager",
      language: "fr",
      category: "marketing",
      status: "PENDING",
    });
    await expect(harness.sandbox.setTemplateStatus(made.id, "NOPE" as "APPROVED")).rejects.toThrow(/event must be one of/);
    await expect(harness.sandbox.sendTemplateQualityUpdate(made.id, "BLUE" as "RED")).rejects.toThrow(/quality score/);
    await eventually(() => harness.sandbox.templates().find((t) => t.id === made.id)!.status === "APPROVED");
  });

  it("goes through the fault table and the call log", async () => {
    const { harness, wabaId, token } = await setup();
    harness.sandbox.injectFault({
      step: "template.create",
      error: { status: 500, code: 131000, message: "Something went wrong", isTransient: true },
    });
    const faulted = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    expect(faulted.status).toBe(500);
    expect(faulted.json.error).toMatchObject({ code: 131000, is_transient: true });
    expect(harness.sandbox.templates()).toEqual([]);
    const created = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    expect(created.status).toBe(200);

    for (const step of ["template.list", "template.get", "template.edit", "template.delete"] as const)
      harness.sandbox.injectFault({ step, error: { code: 80007, message: "(#80007) Rate limit issues" } });
    expect((await harness.graph(`${wabaId}/message_templates`, { token })).json.error.code).toBe(80007);
    expect((await harness.graph(created.json.id, { token })).json.error.code).toBe(80007);
    expect((await post(harness, created.json.id, token, { components: ORDER_UPDATE.components })).json.error.code).toBe(80007);
    expect((await harness.graph(`${wabaId}/message_templates?name=order_update`, { token, method: "DELETE" })).json.error.code).toBe(80007);
    expect(harness.sandbox.templates()).toHaveLength(1);
    expect(
      harness.sandbox
        .calls()
        .filter((c) => c.step?.startsWith("template."))
        .map((c) => `${c.step} ${c.status}`),
    ).toEqual([
      "template.create 500",
      "template.create 200",
      "template.list 400",
      "template.get 400",
      "template.edit 400",
      "template.delete 400",
    ]);
  });
});

describe("persistence", () => {
  it("keeps templates and held names in the state file, and reschedules pending reviews on load", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "meta-sandbox-templates-"));
    const statePath = path.join(dir, "meta.json");
    let now = Date.parse("2026-03-01T08:00:00Z");
    try {
      const first = await setup({ statePath, now: () => now, templateReviewDelayMs: 60_000 });
      const pending = await post(first.harness, `${first.wabaId}/message_templates`, first.token, ORDER_UPDATE);
      const gone = first.harness.sandbox.createTemplateAtMeta(first.wabaId, { name: "old_promo", language: "en", category: "MARKETING" });
      await first.harness.sandbox.deleteTemplateAtMeta(gone.id, { silent: true });
      await first.harness.close();
      h = undefined;
      const saved = JSON.parse(readFileSync(statePath, "utf8"));
      expect(saved.templates.map((t: { name: string; status: string }) => [t.name, t.status])).toEqual([["order_update", "PENDING"]]);
      expect(saved.deletedTemplateNames).toEqual([{ wabaId: first.wabaId, name: "old_promo", language: "en", deletedAt: now }]);

      // Restarted before the review is due: still pending, decided at the original time.
      now += 10_000;
      h = await startHarness({ statePath, now: () => now, templateReviewDelayMs: 60_000 });
      expect(h.sandbox.templates()).toEqual([
        expect.objectContaining({ id: pending.json.id, status: "PENDING", reviewAt: new Date(now - 10_000 + 60_000).toISOString() }),
      ]);
      await h.close();
      h = undefined;

      // Restarted after it was due: decided straight away, and its webhook goes out.
      now += 60_000;
      h = await startHarness({ statePath, now: () => now, templateReviewDelayMs: 60_000 });
      const harness = h;
      await eventually(() => harness.sandbox.templates()[0]!.status === "APPROVED");
      await harness.sandbox.flushWebhooks();
      expect(changes(harness).map((c) => [c.value.event, c.value.message_template_id])).toEqual([["APPROVED", Number(pending.json.id)]]);
      expect(() =>
        harness.sandbox.createTemplateAtMeta(first.wabaId, { name: "old_promo", language: "en", category: "MARKETING" }),
      ).toThrow(/being deleted/);
      // New ids keep clear of the loaded ones and keep the creation order.
      const later = harness.sandbox.createTemplateAtMeta(first.wabaId, { name: "later", language: "en", category: "UTILITY" });
      expect(harness.sandbox.templates().map((t) => t.id)).toEqual([pending.json.id, later.id]);

      harness.sandbox.reset();
      expect(harness.sandbox.templates()).toEqual([]);
    } finally {
      await h?.close();
      h = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("loads a state file from before templates with none", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "meta-sandbox-templates-"));
    const statePath = path.join(dir, "meta.json");
    try {
      h = await startHarness({ statePath });
      await h.close();
      const saved = JSON.parse(readFileSync(statePath, "utf8"));
      delete saved.templates;
      delete saved.deletedTemplateNames;
      writeFileSync(statePath, JSON.stringify(saved));
      h = await startHarness({ statePath });
      expect(h.sandbox.templates()).toEqual([]);
      expect((await h.state()).businesses).toHaveLength(1);
    } finally {
      await h?.close();
      h = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("console and control API", () => {
  it("lists templates on the console, whose buttons post without JavaScript", async () => {
    const { harness, wabaId, token } = await setup();
    const created = await post(harness, `${wabaId}/message_templates`, token, ORDER_UPDATE);
    const html = await (await fetch(harness.base)).text();
    expect(html).toContain("Message templates");
    expect(html).toContain("order_update");
    expect(html).toContain(`action="/sandbox/meta/console/templates/${created.json.id}/status"`);
    expect(html).toContain('name="event" value="APPROVED"');
    expect(html).toContain("Jumbe Demo Business");
    expect(html).not.toMatch(/<script/);

    const form = (event: string) =>
      fetch(`${harness.base}/console/templates/${created.json.id}/status`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ event }).toString(),
        redirect: "manual",
      });
    const approved = await form("APPROVED");
    expect(approved.status).toBe(303);
    expect(notice(approved)).toContain("order_update (en_US) is APPROVED");
    const paused = await form("PAUSED");
    expect(paused.status).toBe(303);
    expect(harness.sandbox.templates()[0]!.status).toBe("PAUSED");
    const bad = await form("BOGUS");
    expect(bad.headers.get("location")).toMatch(/\?error=/);

    await post(harness, `${wabaId}/message_templates`, token, { ...ORDER_UPDATE, name: "second" });
    const review = await fetch(`${harness.base}/console/templates/review`, { method: "POST", redirect: "manual" });
    expect(notice(review)).toContain("second (en_US) APPROVED");
    await harness.sandbox.flushWebhooks();
    expect(changes(harness).map((c) => c.value.event)).toEqual(["APPROVED", "PAUSED", "APPROVED"]);
  });

  it("drives templates over the control API", async () => {
    const { harness, wabaId } = await setup();
    const call = (method: string, pathname: string, payload?: unknown) =>
      fetch(`${harness.base}/control/${pathname}`, {
        method,
        headers: { "Content-Type": "application/json" },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
    const made = await call("POST", "templates", { wabaId, name: "from_control", language: "en", category: "UTILITY", status: "PENDING" });
    expect(made.status).toBe(201);
    const template = await made.json();
    expect(template).toMatchObject({ name: "from_control", status: "PENDING" });
    expect((await call("POST", "templates", { wabaId, name: "Bad", language: "en", category: "UTILITY" })).status).toBe(400);

    const listed = await (await call("GET", "templates")).json();
    expect(listed.map((t: { id: string }) => t.id)).toEqual([template.id]);
    expect(await (await call("GET", `templates?wabaId=${wabaId}`)).json()).toHaveLength(1);
    expect(await (await call("GET", "templates?wabaId=nope")).json()).toEqual([]);

    const review = await (await call("POST", "templates/review")).json();
    expect(review.decided).toEqual([expect.objectContaining({ templateId: template.id, status: "APPROVED" })]);
    const rejected = await call("POST", `templates/${template.id}/status`, { event: "REJECTED", reason: "SCAM" });
    expect(await rejected.json()).toMatchObject({ status: "REJECTED", rejectedReason: "SCAM" });
    const silent = await call("POST", `templates/${template.id}/status`, { event: "APPROVED", silent: true });
    expect((await silent.json()).status).toBe("APPROVED");
    expect((await call("POST", `templates/${template.id}/status`, { event: "WHAT" })).status).toBe(400);
    expect((await call("POST", `templates/${template.id}/status`, { event: "PAUSED", reason: "nope" })).status).toBe(400);
    expect((await call("POST", "templates/123/status", { event: "APPROVED" })).status).toBe(400);
    expect((await call("POST", `templates/${template.id}/quality`, { score: "RED" })).status).toBe(200);
    expect((await call("DELETE", `templates/${template.id}`)).status).toBe(200);
    expect(await (await call("GET", "templates")).json()).toEqual([]);

    await harness.sandbox.flushWebhooks();
    expect(changes(harness).map((c) => c.value.event ?? c.value.new_quality_score)).toEqual(["APPROVED", "REJECTED", "RED", "DELETED"]);
  });
});
