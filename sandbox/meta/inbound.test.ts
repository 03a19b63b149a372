import { afterEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { messageValues, startSending, text, type InboundValue, type MessagesValue, type SendingHarness } from "./test-support";

// Simulated customer messages: each type's webhook shape, BSUIDs, the window they open, and the
// two-hop download of inbound media.

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FROM = "254712345678";
/** The window is read from the send's own answer here: 131047 at once (decision 111; the default fails it in a status). */
const REFUSED_AT_ONCE = { reengagement: "sync" } as const;

/** control/inbound's answer: the message's wamid (and media id), or why the input was refused. */
interface InboundAnswer {
  wamid?: string;
  mediaId?: string;
  message?: string;
}

async function inbound(harness: SendingHarness, body: Record<string, unknown>) {
  const response = await fetch(`${harness.base}/control/inbound`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ phoneNumberId: harness.business.phoneNumberId, from: FROM, name: "Amina", ...body }),
  });
  return { status: response.status, json: (await response.json()) as InboundAnswer };
}

/** The latest inbound message webhook's value; the test fails if none arrived. */
async function lastValue(harness: SendingHarness) {
  await harness.sandbox.flushWebhooks();
  const value = messageValues(harness.receiver.received).at(-1);
  if (!value?.messages?.length) throw new Error("No inbound message webhook arrived");
  return value as MessagesValue & { messages: [InboundValue, ...InboundValue[]] };
}

describe("inbound messages", () => {
  it("keeps the text body working, with metadata and contacts", async () => {
    h = await startSending();
    const answer = await inbound(h, { text: "Habari" });
    expect(answer).toMatchObject({ status: 200, json: { wamid: expect.stringMatching(/^wamid\./) } });
    const value = await lastValue(h);
    expect(value).toEqual({
      messaging_product: "whatsapp",
      metadata: { display_phone_number: h.business.displayPhoneNumber.replace(/\D/g, ""), phone_number_id: h.business.phoneNumberId },
      contacts: [{ profile: { name: "Amina" }, wa_id: FROM }],
      messages: [{ from: FROM, id: answer.json.wamid, timestamp: expect.stringMatching(/^\d+$/), type: "text", text: { body: "Habari" } }],
    });
  });

  const shapes: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      "location",
      { type: "location", latitude: -1.28, longitude: 36.82, locationName: "Kenyatta Avenue" },
      {
        type: "location",
        location: { latitude: -1.28, longitude: 36.82, name: "Kenyatta Avenue" },
      },
    ],
    [
      "contacts",
      { type: "contacts", contactName: "Baraka Otieno", contactPhone: "254733000111" },
      {
        type: "contacts",
        contacts: [
          {
            name: { formatted_name: "Baraka Otieno", first_name: "Baraka" },
            phones: [{ phone: "+254733000111", wa_id: "254733000111", type: "CELL" }],
          },
        ],
      },
    ],
    [
      "button",
      { type: "button", payload: "STOP", text: "Acha", contextId: "wamid.tpl" },
      {
        type: "button",
        button: { payload: "STOP", text: "Acha" },
        context: { from: expect.any(String), id: "wamid.tpl" },
      },
    ],
    [
      "button_reply",
      { type: "button_reply", replyId: "cancel", title: "Ghairi", contextId: "wamid.int" },
      {
        type: "interactive",
        interactive: { type: "button_reply", button_reply: { id: "cancel", title: "Ghairi" } },
        context: { from: expect.any(String), id: "wamid.int" },
      },
    ],
    [
      "list_reply",
      { type: "list_reply", replyId: "express", title: "Express", description: "Kesho", contextId: "wamid.list" },
      {
        type: "interactive",
        interactive: { type: "list_reply", list_reply: { id: "express", title: "Express", description: "Kesho" } },
        context: { from: expect.any(String), id: "wamid.list" },
      },
    ],
    [
      "reaction",
      { type: "reaction", messageId: "wamid.out", emoji: "👍" },
      { type: "reaction", reaction: { message_id: "wamid.out", emoji: "👍" } },
    ],
    [
      "removed reaction",
      { type: "reaction", messageId: "wamid.out", emoji: "" },
      { type: "reaction", reaction: { message_id: "wamid.out", emoji: "" } },
    ],
    [
      "unsupported",
      { type: "unsupported" },
      {
        type: "unsupported",
        errors: [
          { code: 131051, title: "Message type unknown", message: "Message type unknown", error_data: { details: expect.any(String) } },
        ],
      },
    ],
  ];

  it.each(shapes)("sends %s in Meta's shape", async (_name, body, expected) => {
    h = await startSending();
    const answer = await inbound(h, body);
    expect(answer.status).toBe(200);
    const value = await lastValue(h);
    expect(value.contacts).toEqual([{ profile: { name: "Amina" }, wa_id: FROM }]);
    expect(value.messages[0]).toEqual({ from: FROM, id: answer.json.wamid, timestamp: expect.any(String), ...expected });
  });

  it.each([
    ["image", {}, { mime_type: "image/png" }],
    ["video", {}, { mime_type: "video/mp4" }],
    ["audio", { voice: true }, { mime_type: "audio/ogg; codecs=opus", voice: true }],
    ["audio", {}, { mime_type: "audio/mpeg", voice: false }],
    [
      "document",
      { filename: "risiti.pdf", caption: "Risiti" },
      { mime_type: "application/pdf", filename: "risiti.pdf", caption: "Risiti" },
    ],
    ["sticker", { animated: true }, { mime_type: "image/webp", animated: true }],
  ] as const)("sends %s with a sample the business can download in two hops", async (type, extra, expected) => {
    h = await startSending();
    const answer = await inbound(h, { type, ...extra });
    const message = (await lastValue(h)).messages[0];
    const object = message[type] as { id: string; sha256: string };
    expect(message.type).toBe(type);
    expect(object).toEqual({ id: answer.json.mediaId, sha256: expect.any(String), ...expected });
    const node = await h.graph(`${object.id}?phone_number_id=${h.business.phoneNumberId}`, { token: h.token });
    expect(node.json.mime_type).toBe(expected.mime_type);
    const bytes = Buffer.from(await (await fetch(node.json.url, { headers: { Authorization: `Bearer ${h.token}` } })).arrayBuffer());
    expect(String(bytes.length)).toBe(node.json.file_size);
    expect(createHash("sha256").update(bytes).digest("base64")).toBe(object.sha256);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(node.json.sha256);
  });

  it("carries the BSUID beside the number, and only the BSUID for a username-only customer", async () => {
    h = await startSending();
    await inbound(h, { text: "Habari", userId: "KE.1234567890" });
    const both = await lastValue(h);
    expect(both.contacts).toEqual([{ profile: { name: "Amina" }, wa_id: FROM, user_id: "KE.1234567890" }]);
    expect(both.messages[0]).toMatchObject({ from: FROM, from_user_id: "KE.1234567890" });

    await inbound(h, { from: undefined, text: "Habari", userId: "KE.9876543210", username: "amina.duka" });
    const only = await lastValue(h);
    expect(only.contacts).toEqual([{ profile: { name: "Amina", username: "amina.duka" }, user_id: "KE.9876543210" }]);
    expect(only.messages[0]).not.toHaveProperty("from");
    expect(only.messages[0].from_user_id).toBe("KE.9876543210");

    expect((await inbound(h, { from: undefined, text: "x" })).status).toBe(400);
    expect((await inbound(h, { text: "x", userId: "not-a-bsuid" })).status).toBe(400);
  });

  it("sends user_changed_number without contacts, and opens no window with it", async () => {
    h = await startSending(REFUSED_AT_ONCE);
    const answer = await inbound(h, { type: "user_changed_number", newWaId: "254799000111" });
    const value = await lastValue(h);
    expect(value).not.toHaveProperty("contacts");
    expect(value.messages[0]).toEqual({
      from: FROM,
      id: answer.json.wamid,
      timestamp: expect.any(String),
      type: "system",
      system: { body: `User ${FROM} changed from ${FROM} to 254799000111`, wa_id: "254799000111", type: "user_changed_number" },
    });
    expect((await h.send(text(FROM))).json.error.code).toBe(131047);
  });

  it("opens the window for each customer message, and refuses bad input with a readable 400", async () => {
    h = await startSending(REFUSED_AT_ONCE);
    expect((await h.send(text(FROM))).json.error.code).toBe(131047);
    await inbound(h, { type: "reaction", messageId: "wamid.x", emoji: "❤️" });
    expect((await h.send(text(FROM))).status).toBe(200);
    for (const bad of [
      { type: "fax" },
      { type: "text" },
      { type: "button", payload: "x" },
      { type: "location", latitude: 91 },
      { from: "07abc", text: "x" },
    ]) {
      const answer = await inbound(h, bad);
      expect(answer.status).toBe(400);
      expect(answer.json.message).toEqual(expect.any(String));
    }
  });

  it("dates a late message ageSeconds back, and the window runs from then", async () => {
    const NOW = Date.parse("2026-11-24T10:00:00Z");
    h = await startSending({ ...REFUSED_AT_ONCE, now: () => NOW });
    // 23 hours late: the timestamp is that far back, the window is still open.
    await inbound(h, { text: "Habari", ageSeconds: 23 * 3600 });
    expect((await lastValue(h)).messages[0].timestamp).toBe(String(NOW / 1000 - 23 * 3600));
    expect((await h.send(text(FROM))).status).toBe(200);

    // 25 hours late from another customer: the message arrives, but their window closed an hour ago.
    const late = "254711000222";
    const answer = await inbound(h, { from: late, text: "Bado?", ageSeconds: 25 * 3600 });
    expect(answer.status).toBe(200);
    expect((await lastValue(h)).messages[0]).toMatchObject({ from: late, timestamp: String(NOW / 1000 - 25 * 3600) });
    expect((await h.send(text(late))).json.error.code).toBe(131047);
    // A late message never shortens a window a newer one opened.
    await inbound(h, { from: late, text: "Sasa" });
    await inbound(h, { from: late, text: "Jana", ageSeconds: 25 * 3600 });
    expect((await h.send(text(late))).status).toBe(200);

    // 0 is now; as text too (the console's form sends it so).
    await inbound(h, { text: "Sasa hivi", ageSeconds: "0" });
    expect((await lastValue(h)).messages[0].timestamp).toBe(String(NOW / 1000));
  });

  it.each([-1, 1.5, 30 * 24 * 3600 + 1, "a day", true])("refuses ageSeconds %j with a readable 400 and sends nothing", async (age) => {
    h = await startSending();
    const answer = await inbound(h, { text: "Habari", ageSeconds: age });
    expect(answer.status).toBe(400);
    expect(answer.json.message).toMatch(/^ageSeconds must be a/);
    await h.sandbox.flushWebhooks();
    expect(messageValues(h.receiver.received)).toEqual([]);
  });

  it("takes ageSeconds from the console's form, and answers a bad one in words", async () => {
    const NOW = Date.parse("2026-11-24T10:00:00Z");
    h = await startSending({ ...REFUSED_AT_ONCE, now: () => NOW });
    const post = (ageSeconds: string) =>
      fetch(`${h!.base}/console/inbound`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ phoneNumberId: h!.business.phoneNumberId, from: FROM, name: "Amina", text: "Habari", ageSeconds }),
        redirect: "manual",
      });
    const late = await post("90000");
    expect(late.headers.get("location")).toMatch(/\?notice=Queued/);
    expect((await lastValue(h)).messages[0].timestamp).toBe(String(NOW / 1000 - 90000));
    expect((await h.send(text(FROM))).json.error.code).toBe(131047);
    const bad = await post("-5");
    expect(decodeURIComponent(bad.headers.get("location")!.replace(/\+/g, " "))).toContain("error=ageSeconds must be a whole number");
    expect(await (await fetch(`${h.base}/`)).text()).toContain('name="ageSeconds"');
  });

  it("carries a made-up ad's referral, and an answer within 24 hours opens a 72-hour free entry window", async () => {
    let now = Date.parse("2026-11-24T10:00:00Z");
    h = await startSending({ now: () => now });
    const ad = { sourceId: "120226305854810726", headline: "Maji safi", body: "Bei ya leo", imageUrl: "http://127.0.0.1/ad.png" };
    expect((await inbound(h, { text: "Bei?", ad })).status).toBe(200);
    const referral = (await lastValue(h)).messages[0].referral as Record<string, unknown>;
    expect(referral).toEqual({
      source_url: `https://fb.me/${ad.sourceId.slice(-8)}`,
      source_id: ad.sourceId,
      source_type: "ad",
      body: "Bei ya leo",
      headline: "Maji safi",
      media_type: "image",
      image_url: ad.imageUrl,
      ctwa_clid: expect.stringMatching(/^ARA[\w-]{20,}$/),
    });
    const pricingOf = async (wamid: string) => {
      const found = (await h!.statuses()).find((s) => s.id === wamid && s.status === "sent") as { pricing?: Record<string, unknown> };
      return found?.pricing;
    };
    // The answer an hour later opens the window: free, with Meta's type.
    now += 3600_000;
    const first = await h.send(text(FROM));
    expect(await pricingOf(first.json.messages[0].id)).toMatchObject({ billable: false, type: "free_entry_point" });
    // 71 hours later (the customer wrote again: free-form needs the 24-hour window) still free; 73 hours
    // later the customer service window's rules again.
    now += 71 * 3600_000;
    await h.customerWrites(FROM, "Bado nipo");
    const inside = await h.send(text(FROM));
    expect(await pricingOf(inside.json.messages[0].id)).toMatchObject({ type: "free_entry_point" });
    now += 2 * 3600_000;
    const after = await h.send(text(FROM));
    expect(await pricingOf(after.json.messages[0].id)).toMatchObject({ type: "free_customer_service" });

    // From an ad, answered 25 hours later: no free window.
    const late = "254711000333";
    await inbound(h, { from: late, text: "Habari", ad, ageSeconds: 25 * 3600 - 60 });
    now += 120_000;
    await inbound(h, { from: late, text: "Bado?" });
    const answer = await h.send(text(late));
    expect(await pricingOf(answer.json.messages[0].id)).toMatchObject({ type: "free_customer_service" });
  });

  it.each([
    [{ headline: "x", body: "y" }, /^ad.sourceId is required/],
    [{ sourceId: "abc", headline: "x", body: "y" }, /^ad.sourceId must be the ad's numeric id/],
    [{ sourceId: "1234567", body: "y" }, /^ad.headline is required/],
    [{ sourceId: "1234567", headline: "x", body: "y", sourceType: "reel" }, /^ad.sourceType must be/],
  ])("refuses a bad ad %j with a readable 400 and sends nothing", async (ad, words) => {
    h = await startSending();
    const answer = await inbound(h, { text: "Habari", ad });
    expect(answer.status).toBe(400);
    expect(answer.json.message).toMatch(words);
    await h.sandbox.flushWebhooks();
    expect(messageValues(h.receiver.received)).toEqual([]);
  });
});
