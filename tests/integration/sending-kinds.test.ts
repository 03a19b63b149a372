import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { messageTemplates } from "~/.server/infrastructure/db/schema";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import * as keyApi from "~/routes/api/developer.api-key";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { startGraphSandbox } from "../support/sandbox-waba";
import { startApiV1Server } from "../support/api-v1-server";
import { startReceiver } from "../support/whatsapp";
import { withMessageIds } from "../support/sending-kit";

// Every kind of message a tenant can send, through the public API (POST /api/v1/messages on a real
// socket), the dispatcher and the sandbox's Graph API, which checks each body as Meta does and
// answers with Meta's codes. What the sandbox received is what Meta would have.

let apiServer: Awaited<ReturnType<typeof startApiV1Server>>;
let graph: Awaited<ReturnType<typeof startGraphSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  graph = await startGraphSandbox({ webhookUrl: receiver.url, statusDelaysMs: { sent: 0, delivered: 0, read: 0 } });
  apiServer = await startApiV1Server();
});

afterAll(async () => {
  await apiServer.close();
  await graph.close();
  await receiver.close();
});

beforeEach(() => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: apiServer.base, GRAPH_API_BASE_URL: graph.graphBase, GRAPH_API_TIMEOUT_MS: "5000" }));
  graph.sandbox.reset();
});

async function connectedTenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const read = await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie }));
  const connection = await graph.connect(account.organization.id, name);
  return { organizationId: account.organization.id, key: read.data.key as string, ...connection };
}

async function send(key: string, body: unknown) {
  const response = await fetch(`${apiServer.base}/api/v1/messages`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const CUSTOMER = "254722555001";

describe("every kind of message, through the API to Meta", () => {
  it("sends text, media by link, reply buttons, a list, a reply in context and a reaction, each as Meta's body", async () => {
    const t = await connectedTenant("Mombasa Ferry Tickets");
    const { wamid: customerWamid } = await graph.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from: CUSTOMER,
      name: "Hassan Ali",
      text: "Ferry ya saa ngapi?",
    });
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect(await rawQuery(`select 1 from messages where wamid = $1`, [customerWamid])).toHaveLength(1);
      },
      { timeout: 30_000, interval: 20 },
    );
    const [inbound] = await rawQuery<{ id: string }>(`select id from messages where wamid = $1`, [customerWamid]);

    const to = `+${CUSTOMER}`;
    const requests: [string, Record<string, unknown>][] = [
      ["text", { to, text: "Next ferry: 14:30 from Likoni. Details: https://ferry.example.co.ke/times" }],
      ["image", { to, image: { link: "https://cdn.example.co.ke/ferry.jpg", caption: "Likoni crossing" } }],
      ["document", { to, document: { link: "https://cdn.example.co.ke/timetable.pdf", filename: "timetable.pdf" } }],
      ["audio", { to, audio: { link: "https://cdn.example.co.ke/notice.mp3" } }],
      ["video", { to, video: { link: "https://cdn.example.co.ke/safety.mp4", caption: "Safety briefing" } }],
      ["sticker", { to, sticker: { link: "https://cdn.example.co.ke/karibu.webp" } }],
      [
        "buttons",
        {
          to,
          interactive: {
            type: "button",
            body: "Book the 14:30 ferry?",
            footer: "Mombasa Ferry",
            buttons: [
              { id: "book-1430", title: "Book" },
              { id: "later", title: "Later" },
            ],
          },
        },
      ],
      [
        "list",
        {
          to,
          interactive: {
            type: "list",
            body: "Choose a crossing time.",
            button: "Times",
            sections: [
              {
                title: "Afternoon",
                rows: [
                  { id: "t1430", title: "14:30", description: "Likoni to Ferry" },
                  { id: "t1600", title: "16:00" },
                ],
              },
            ],
          },
        },
      ],
      ["reply", { to, text: "Yes, at 14:30.", replyTo: inbound!.id }],
      ["reaction", { to, reaction: { messageId: customerWamid, emoji: "👍" } }],
    ];
    const ids: Record<string, string> = {};
    for (const [name, body] of requests) {
      const answer = await send(t.key, body);
      expect(answer.status, `${name}: ${JSON.stringify(answer.body)}`).toBe(202);
      expect(answer.body).toMatchObject({ status: "queued", to });
      ids[name] = answer.body.id as string;
    }
    // One message per person per batch (the pair rate): each round sends one and puts the rest back
    // 6 seconds; bringing them forward stands in for the clock.
    for (let round = 0; round < requests.length; round++) {
      await drainDispatcher();
      await rawQuery(`update messages set next_attempt_at = now() where id = any($1::uuid[]) and accepted_at is null`, [
        Object.values(ids),
      ]);
    }

    const atMeta = new Map(withMessageIds(graph.sandbox.messages({ phoneNumberId: t.phoneNumberId })).map((m) => [m.callbackData, m]));
    const bodyOf = (name: string) => atMeta.get(ids[name])?.body as Record<string, unknown> | undefined;
    expect(atMeta.size).toBe(requests.length);
    expect(bodyOf("text")).toMatchObject({
      type: "text",
      text: { body: "Next ferry: 14:30 from Likoni. Details: https://ferry.example.co.ke/times", preview_url: true },
    });
    expect(bodyOf("image")).toMatchObject({
      type: "image",
      image: { link: "https://cdn.example.co.ke/ferry.jpg", caption: "Likoni crossing" },
    });
    expect(bodyOf("document")).toMatchObject({ document: { link: "https://cdn.example.co.ke/timetable.pdf", filename: "timetable.pdf" } });
    expect(bodyOf("audio")).toMatchObject({ type: "audio", audio: { link: "https://cdn.example.co.ke/notice.mp3" } });
    expect(bodyOf("video")).toMatchObject({ type: "video", video: { caption: "Safety briefing" } });
    expect(bodyOf("sticker")).toMatchObject({ type: "sticker", sticker: { link: "https://cdn.example.co.ke/karibu.webp" } });
    expect(bodyOf("buttons")).toMatchObject({
      type: "interactive",
      interactive: {
        type: "button",
        body: { text: "Book the 14:30 ferry?" },
        footer: { text: "Mombasa Ferry" },
        action: {
          buttons: [
            { type: "reply", reply: { id: "book-1430", title: "Book" } },
            { type: "reply", reply: { id: "later", title: "Later" } },
          ],
        },
      },
    });
    expect(bodyOf("list")).toMatchObject({
      type: "interactive",
      interactive: {
        type: "list",
        action: { button: "Times", sections: [{ title: "Afternoon", rows: [{ id: "t1430", title: "14:30" }, { id: "t1600" }] }] },
      },
    });
    // A reply quotes the customer's message by its wamid, given here by Jumbe's id.
    expect(bodyOf("reply")).toMatchObject({ type: "text", context: { message_id: customerWamid } });
    expect(bodyOf("reaction")).toMatchObject({ type: "reaction", reaction: { message_id: customerWamid, emoji: "👍" } });

    // Every one followed Meta's statuses to the end.
    await vi.waitFor(
      async () => {
        await drainJobs();
        const statuses = await rawQuery<{ status: string }>(`select status from messages where id = any($1::uuid[])`, [Object.values(ids)]);
        expect(statuses.map((s) => s.status)).toEqual(Object.values(ids).map(() => "read"));
      },
      { timeout: 30_000, interval: 50 },
    );
  });

  it("sends templates with header, body and button parameters as Meta's components, and refuses a wrong count before Meta", async () => {
    const t = await connectedTenant("Nakuru Dairy Co-op");
    const components = {
      withText: [
        { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["KE-1"] } },
        {
          type: "BODY",
          text: "Habari {{1}}, your milk delivery of {{2}} litres is on the way.",
          example: { body_text: [["Amina", "20"]] },
        },
        {
          type: "BUTTONS",
          buttons: [
            {
              type: "URL",
              text: "Track",
              url: "https://dairy.example.co.ke/track/{{1}}",
              example: ["https://dairy.example.co.ke/track/KE-1"],
            },
          ],
        },
      ],
      withImage: [
        { type: "HEADER", format: "IMAGE", example: { header_handle: ["4::aW1hZ2U="] } },
        { type: "BODY", text: "New price list from {{1}}.", example: { body_text: [["Monday"]] } },
      ],
    };
    for (const [name, parts] of [
      ["delivery_update", components.withText],
      ["price_list", components.withImage],
    ] as const) {
      graph.sandbox.createTemplateAtMeta(t.wabaId, { name, language: "en", category: "UTILITY", components: parts as never });
      await db()
        .insert(messageTemplates)
        .values({
          organizationId: t.organizationId,
          wabaId: t.wabaId,
          name,
          language: "en",
          category: "UTILITY",
          status: "approved",
          components: parts as never,
        });
    }
    const to = "0733 555 002";
    const delivery = await send(t.key, {
      to,
      template: "delivery_update",
      parameters: ["Amina", "20"],
      header: { text: "KE-77" },
      buttons: [{ index: 0, value: "KE-77" }],
    });
    expect(delivery.status, JSON.stringify(delivery.body)).toBe(202);
    const prices = await send(t.key, {
      to: "0733 555 003",
      template: "price_list",
      parameters: ["Monday"],
      header: { link: "https://cdn.example.co.ke/prices.jpg" },
    });
    expect(prices.status, JSON.stringify(prices.body)).toBe(202);
    // A template needs no service window; the wrong counts never reach Meta.
    const mismatches = [
      { to, template: "delivery_update", parameters: ["Amina"], header: { text: "KE-77" }, buttons: [{ index: 0, value: "KE-77" }] },
      { to, template: "delivery_update", parameters: ["Amina", "20"], buttons: [{ index: 0, value: "KE-77" }] },
      { to, template: "delivery_update", parameters: ["Amina", "20"], header: { text: "KE-77" } },
      { to, template: "price_list", parameters: ["Monday"] },
    ];
    for (const body of mismatches) {
      const answer = await send(t.key, body);
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe("parameter_mismatch");
    }
    await drainDispatcher();

    const atMeta = withMessageIds(graph.sandbox.messages({ phoneNumberId: t.phoneNumberId }));
    expect(atMeta).toHaveLength(2);
    const sentDelivery = atMeta.find((m) => m.callbackData === delivery.body.id)!;
    expect(sentDelivery.template).toMatchObject({ name: "delivery_update", language: "en" });
    expect(sentDelivery.body).toMatchObject({
      to: "+254733555002",
      type: "template",
      template: {
        name: "delivery_update",
        language: { code: "en" },
        components: expect.arrayContaining([
          { type: "header", parameters: [{ type: "text", text: "KE-77" }] },
          {
            type: "body",
            parameters: [
              { type: "text", text: "Amina" },
              { type: "text", text: "20" },
            ],
          },
          { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "KE-77" }] },
        ]),
      },
    });
    const sentPrices = atMeta.find((m) => m.callbackData === prices.body.id)!;
    expect(sentPrices.body).toMatchObject({
      template: {
        components: expect.arrayContaining([
          { type: "header", parameters: [{ type: "image", image: { link: "https://cdn.example.co.ke/prices.jpg" } }] },
        ]),
      },
    });
    // Meta accepted both: no 132000 (parameter count) or 132012 (header format) from its checks.
    const accepted = await rawQuery<{ accepted: boolean; error_code: number | null }>(
      `select accepted_at is not null as accepted, error_code from messages where id = any($1::uuid[])`,
      [[delivery.body.id, prices.body.id]],
    );
    expect(accepted).toEqual([
      { accepted: true, error_code: null },
      { accepted: true, error_code: null },
    ]);
  });

  it("answers a bad body with a clear 4xx and stores nothing", async () => {
    const t = await connectedTenant("Eldoret Seeds");
    const before = await rawQuery<{ n: number }>(`select count(*)::int as n from messages where organization_id = $1`, [t.organizationId]);
    const cases: [unknown, number, string][] = [
      [{ to: "+254722555001" }, 400, "give the message"],
      [{ to: "+254722555001", text: "hi", template: "x" }, 400, "not text and template"],
      [
        { to: "+254722555001", image: { link: "https://a.example/x.jpg", mediaId: "0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b" } },
        400,
        "link or mediaId",
      ],
      [{ to: "+254722555001", image: { link: "ftp://a.example/x.jpg" } }, 400, "image"],
      [
        {
          to: "+254722555001",
          interactive: {
            type: "button",
            body: "x",
            buttons: [
              { id: "a", title: "Same" },
              { id: "b", title: "Same" },
            ],
          },
        },
        400,
        "button titles must differ",
      ],
      [{ to: "not a number", text: "hi" }, 422, "invalid_phone_number"],
      [{ to: "+254722555001", text: "x".repeat(4097) }, 400, "text"],
    ];
    for (const [body, status, words] of cases) {
      const answer = await send(t.key, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(JSON.stringify(answer.body)).toContain(words);
    }
    const after = await rawQuery<{ n: number }>(`select count(*)::int as n from messages where organization_id = $1`, [t.organizationId]);
    expect(after).toEqual(before);
  });
});
