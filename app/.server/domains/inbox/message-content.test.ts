import { describe, expect, it } from "vitest";
import { buildInbound } from "@jumbe/sandbox/meta/inbound";
import { MediaDesk } from "@jumbe/sandbox/meta/media";
import type { PhoneNumber } from "@jumbe/sandbox/meta/state";
import type { InboundInput } from "@jumbe/sandbox/meta/types";
import { mediaObject } from "../messaging/compose";
import { toMetaComponents, type TemplateInput } from "~/lib/templates";
import { contentLine, messageContent, type ContentSource } from "./message-content";

// What each message of a thread shows. Inbound payloads come from the Meta sandbox's own builder,
// so their shapes are the webhook's; outbound ones are Jumbe's Graph requests.

const ID = "5f0c7c1e-8d1e-4d43-9a55-2f1f7b1d0a11";
const PHONE: PhoneNumber = {
  id: "106540352242922",
  wabaId: "102290129340398",
  displayPhoneNumber: "+254 711 000 001",
  verifiedName: "Duka la Mama",
  qualityRating: "GREEN",
  status: "CONNECTED",
  platformType: "CLOUD_API",
  throughput: "STANDARD",
  messagingLimit: "TIER_1K",
  pin: null,
  registrationCalls: [],
  registeredAt: null,
  createdAt: 0,
} as PhoneNumber;
const desk = new MediaDesk({ publicPath: "/sandbox/meta", now: () => Date.now() });

/** Meta's message object for a simulated customer message. */
function metaMessage(input: Omit<InboundInput, "phoneNumberId" | "from">) {
  return buildInbound({ phoneNumberId: PHONE.id, from: "254712345678", name: "Amina", ...input }, PHONE, desk, Date.now()).message;
}

function inbound(payload: unknown, extra: Partial<ContentSource> = {}): ContentSource {
  return {
    id: ID,
    direction: "inbound",
    messageType: String((payload as { type?: unknown })?.type ?? "text"),
    body: "",
    payload,
    template: null,
    mediaFile: null,
    errorTitle: null,
    errorDetails: null,
    ...extra,
  };
}

function outbound(graph: Record<string, unknown>, extra: Partial<ContentSource> = {}): ContentSource {
  return {
    ...inbound(null),
    direction: "outbound",
    messageType: String(graph.type),
    payload: { messaging_product: "whatsapp", recipient_type: "individual", to: "+254712345678", ...graph },
    ...extra,
  };
}

const FILE = { mimeType: "image/png", size: 2048, fileName: null };

describe("inbound messages", () => {
  it("text", () => {
    const content = messageContent(inbound(metaMessage({ type: "text", text: "Habari, mna unga?" })));
    expect(content).toEqual({ kind: "text", text: "Habari, mna unga?" });
    expect(contentLine(content)).toBe("Habari, mna unga?");
  });

  it("an image: Jumbe's copy once downloaded, 'Downloading…' before, the reason after a failure", () => {
    const message = metaMessage({ type: "image", caption: "Mzigo umefika" });
    expect(messageContent(inbound(message, { mediaFile: FILE }))).toEqual({
      kind: "media",
      media: "image",
      caption: "Mzigo umefika",
      fileName: null,
      mimeType: "image/png",
      size: 2048,
      url: `/chat/media/${ID}`,
      unavailable: null,
      voice: false,
    });
    expect(messageContent(inbound(message))).toMatchObject({ url: null, unavailable: "Downloading…", mimeType: "image/png", size: null });
    const failed = messageContent(
      inbound(message, {
        errorTitle: "media_download_failed",
        errorDetails: "The image could not be downloaded from WhatsApp: the media no longer exists.",
      }),
    );
    expect(failed).toMatchObject({
      url: null,
      unavailable: "The image could not be downloaded from WhatsApp: the media no longer exists.",
    });
    expect(messageContent(inbound(message, { errorTitle: "media_download_failed" }))).toMatchObject({
      unavailable: "The image could not be downloaded from WhatsApp.",
    });
    expect(contentLine(failed)).toBe("📷 Photo: Mzigo umefika");
  });

  it("a video", () => {
    const content = messageContent(inbound(metaMessage({ type: "video" }), { mediaFile: { ...FILE, mimeType: "video/mp4" } }));
    expect(content).toMatchObject({ kind: "media", media: "video", url: `/chat/media/${ID}`, mimeType: "video/mp4", voice: false });
    expect(contentLine(content)).toBe("🎥 Video");
  });

  it("a voice note and a song", () => {
    const voice = messageContent(inbound(metaMessage({ type: "audio", voice: true }), { mediaFile: { ...FILE, mimeType: "audio/ogg" } }));
    expect(voice).toMatchObject({ kind: "media", media: "audio", voice: true, url: `/chat/media/${ID}` });
    expect(contentLine(voice)).toBe("🎤 Voice message");
    const song = messageContent(inbound(metaMessage({ type: "audio" })));
    expect(song).toMatchObject({ kind: "media", media: "audio", voice: false, unavailable: "Downloading…" });
    expect(contentLine(song)).toBe("🎵 Audio");
  });

  it("a document with its name (the stored file's, else the webhook's)", () => {
    const message = metaMessage({ type: "document", filename: "risiti-machi.pdf", caption: "Risiti" });
    const waiting = messageContent(inbound(message));
    expect(waiting).toMatchObject({ kind: "media", media: "document", fileName: "risiti-machi.pdf", caption: "Risiti", url: null });
    const held = messageContent(
      inbound(message, { mediaFile: { mimeType: "application/pdf", size: 120_000, fileName: "risiti-machi.pdf" } }),
    );
    expect(held).toMatchObject({ fileName: "risiti-machi.pdf", size: 120_000, url: `/chat/media/${ID}` });
    expect(contentLine(held)).toBe("📄 risiti-machi.pdf: Risiti");
  });

  it("a sticker", () => {
    const content = messageContent(
      inbound(metaMessage({ type: "sticker", animated: true }), { mediaFile: { ...FILE, mimeType: "image/webp" } }),
    );
    expect(content).toMatchObject({ kind: "media", media: "sticker", url: `/chat/media/${ID}` });
    expect(contentLine(content)).toBe("💟 Sticker");
  });

  it("a location", () => {
    const content = messageContent(
      inbound(metaMessage({ type: "location", latitude: -1.2676, longitude: 36.8108, locationName: "Westlands", address: "Waiyaki Way" })),
    );
    expect(content).toEqual({ kind: "location", latitude: -1.2676, longitude: 36.8108, name: "Westlands", address: "Waiyaki Way" });
    expect(contentLine(content)).toBe("📍 Location: Westlands");
    const bare = messageContent(inbound(metaMessage({ type: "location", latitude: -1.28, longitude: 36.82 })));
    expect(contentLine(bare)).toBe("📍 Location: -1.28000, 36.82000");
  });

  it("contacts", () => {
    const content = messageContent(inbound(metaMessage({ type: "contacts", contactName: "Baraka Otieno", contactPhone: "254733000111" })));
    expect(content).toEqual({ kind: "contacts", people: [{ name: "Baraka Otieno", phones: ["+254733000111"], emails: [] }] });
    expect(contentLine(content)).toBe("👤 Contact: Baraka Otieno");
    const withMail = messageContent(
      inbound({
        type: "contacts",
        contacts: [
          {
            name: { first_name: "Wanjiru", last_name: "Kamau" },
            phones: [{ wa_id: "254722000111" }],
            emails: [{ email: "w@example.co.ke" }],
          },
          { name: { formatted_name: "Otieno" } },
        ],
      }),
    );
    expect(withMail).toEqual({
      kind: "contacts",
      people: [
        { name: "Wanjiru Kamau", phones: ["+254722000111"], emails: ["w@example.co.ke"] },
        { name: "Otieno", phones: [], emails: [] },
      ],
    });
    expect(contentLine(withMail)).toBe("👤 2 contacts: Wanjiru Kamau, Otieno");
  });

  it("a reply button and a list row are choices", () => {
    const button = messageContent(inbound(metaMessage({ type: "button_reply", contextId: "wamid.X", replyId: "yes", title: "Ndiyo" })));
    expect(button).toEqual({ kind: "choice", title: "Ndiyo", description: null });
    const row = messageContent(
      inbound(metaMessage({ type: "list_reply", contextId: "wamid.X", replyId: "express", title: "Express", description: "Next day" })),
    );
    expect(row).toEqual({ kind: "choice", title: "Express", description: "Next day" });
    expect(contentLine(row)).toBe("Express");
  });

  it("a template's quick reply (button) is a choice", () => {
    const content = messageContent(inbound(metaMessage({ type: "button", contextId: "wamid.T", payload: "STOP", text: "Acha" })));
    expect(content).toEqual({ kind: "choice", title: "Acha", description: null });
  });

  it("a reaction, and one removed", () => {
    const content = messageContent(inbound(metaMessage({ type: "reaction", messageId: "wamid.Y", emoji: "👍" })));
    expect(content).toEqual({ kind: "reaction", emoji: "👍" });
    expect(contentLine(content)).toBe("Reacted 👍");
    expect(contentLine(messageContent(inbound(metaMessage({ type: "reaction", messageId: "wamid.Y", emoji: "" }))))).toBe(
      "Removed a reaction",
    );
  });

  it("an order", () => {
    const content = messageContent(
      inbound({
        type: "order",
        order: {
          catalog_id: "123",
          text: "Leta kesho",
          product_items: [
            { product_retailer_id: "unga", quantity: 2, item_price: 210, currency: "KES" },
            { product_retailer_id: "sukari", quantity: 1, item_price: 180, currency: "KES" },
          ],
        },
      }),
    );
    expect(content).toEqual({ kind: "order", items: 3, text: "Leta kesho" });
    expect(contentLine(content)).toBe("🛒 Order: 3 items: Leta kesho");
  });

  it("a changed number (system)", () => {
    const content = messageContent(inbound(metaMessage({ type: "user_changed_number", newWaId: "254799000111" })));
    expect(content).toEqual({ kind: "unsupported", text: "The customer changed their WhatsApp number to +254799000111." });
  });

  it("an unsupported message, and a type Jumbe does not know, in plain words", () => {
    const content = messageContent(inbound(metaMessage({ type: "unsupported" })));
    expect(content).toEqual({
      kind: "unsupported",
      text: "The customer sent a kind of message WhatsApp does not pass on to businesses (Message type is currently not supported). Ask them to send it another way.",
    });
    expect(messageContent(inbound({ type: "ephemeral", ephemeral: {} }))).toEqual({
      kind: "unsupported",
      text: "The customer sent an ephemeral message, which the inbox cannot show.",
    });
  });
});

describe("outbound messages", () => {
  it("text", () => {
    expect(messageContent(outbound({ type: "text", text: { body: "Karibu!", preview_url: false } }))).toEqual({
      kind: "text",
      text: "Karibu!",
    });
  });

  it("media: Jumbe's upload is served from Jumbe, a link is not", () => {
    const uploaded = messageContent(
      outbound(
        { type: "document", document: mediaObject("document", { mediaId: "0b7c5a40-3f2b-4b8e-9a55-2f1f7b1d0a22", filename: "bei.pdf" }) },
        { mediaFile: { mimeType: "application/pdf", size: 5000, fileName: "prices.pdf" } },
      ),
    );
    expect(uploaded).toEqual({
      kind: "media",
      media: "document",
      caption: null,
      fileName: "bei.pdf",
      mimeType: "application/pdf",
      size: 5000,
      url: `/chat/media/${ID}`,
      unavailable: null,
      voice: false,
    });
    const linked = messageContent(
      outbound({ type: "image", image: mediaObject("image", { link: "https://example.com/a.jpg", caption: "Bei" }) }),
    );
    expect(linked).toMatchObject({
      kind: "media",
      media: "image",
      caption: "Bei",
      url: null,
      unavailable: "Sent as a link: Jumbe keeps no copy.",
    });
  });

  const template = (input: Partial<TemplateInput>) => ({
    components: toMetaComponents({
      name: "order_update",
      category: "UTILITY",
      language: "en",
      headerFormat: "NONE",
      bodyExamples: [],
      buttons: [],
      ...input,
    } as TemplateInput),
  });

  it("a template as the customer saw it: header, body and footer filled in, buttons' labels", () => {
    const content = messageContent(
      outbound(
        {
          type: "template",
          template: {
            name: "order_update",
            language: { code: "en" },
            components: [
              { type: "header", parameters: [{ type: "text", text: "ORD-42" }] },
              {
                type: "body",
                parameters: [
                  { type: "text", text: "Amina" },
                  { type: "currency", currency: { fallback_value: "KES 1,250", code: "KES", amount_1000: 1250000 } },
                ],
              },
              { type: "button", sub_type: "url", index: "1", parameters: [{ type: "text", text: "ORD-42" }] },
            ],
          },
        },
        {
          template: template({
            headerFormat: "TEXT",
            headerText: "Order {{1}}",
            headerExample: "ORD-1",
            body: "Habari {{1}}, your order of {{2}} is on its way.",
            bodyExamples: ["Wanjiru", "KES 100"],
            footer: "Duka la Mama",
            buttons: [
              { type: "QUICK_REPLY", text: "Asante" },
              { type: "URL", text: "Track it", url: "https://duka.example/t/{{1}}", example: "ORD-1" },
            ],
          }),
        },
      ),
    );
    expect(content).toEqual({
      kind: "template",
      name: "order_update",
      header: "Order ORD-42",
      headerMedia: null,
      headerUrl: null,
      body: "Habari Amina, your order of KES 1,250 is on its way.",
      footer: "Duka la Mama",
      buttons: ["Asante", "Track it"],
    });
    expect(contentLine(content)).toBe("Order ORD-42: Habari Amina, your order of KES 1,250 is on its way.");
  });

  it("a template with named placeholders and an image header", () => {
    const content = messageContent(
      outbound(
        {
          type: "template",
          template: {
            name: "promo",
            language: { code: "en" },
            components: [
              { type: "header", parameters: [{ type: "image", image: { id: "jumbe-media:0b7c5a40-3f2b-4b8e-9a55-2f1f7b1d0a22" } }] },
              {
                type: "body",
                parameters: [
                  { type: "text", text: "20%", parameter_name: "discount" },
                  { type: "text", text: "Amina", parameter_name: "first_name" },
                ],
              },
            ],
          },
        },
        {
          template: {
            components: [
              { type: "HEADER", format: "IMAGE" },
              { type: "BODY", text: "Hi {{first_name}}, take {{discount}} off today. {{missing}} stays." },
            ],
          },
        },
      ),
    );
    expect(content).toMatchObject({
      kind: "template",
      header: null,
      headerMedia: "image",
      headerUrl: `/chat/media/${ID}`,
      body: "Hi Amina, take 20% off today. {{missing}} stays.",
      buttons: [],
    });
  });

  it("an authentication template: WhatsApp's own words around the code", () => {
    const content = messageContent(
      outbound(
        {
          type: "template",
          template: { name: "login_code", components: [{ type: "body", parameters: [{ type: "text", text: "482913" }] }] },
        },
        {
          template: template({
            category: "AUTHENTICATION",
            addSecurityRecommendation: true,
            codeExpirationMinutes: 10,
            otpType: "COPY_CODE",
          }),
        },
      ),
    );
    expect(content).toEqual({
      kind: "template",
      name: "login_code",
      header: null,
      headerMedia: null,
      headerUrl: null,
      body: "482913 is your verification code. For your security, do not share this code.",
      footer: "This code expires in 10 minutes.",
      buttons: ["Copy code"],
    });
  });

  it("a template whose definition is gone shows what was sent", () => {
    const content = messageContent(
      outbound(
        { type: "template", template: { name: "old_one", components: [{ type: "body", parameters: [{ type: "text", text: "Amina" }] }] } },
        { body: "Template old_one: Amina" },
      ),
    );
    expect(content).toMatchObject({ kind: "template", name: "old_one", body: "Amina", buttons: [] });
  });

  it("interactive buttons and a list", () => {
    const buttons = messageContent(
      outbound({
        type: "interactive",
        interactive: {
          type: "button",
          header: { type: "text", text: "Delivery" },
          body: { text: "Reschedule?" },
          footer: { text: "Duka la Mama" },
          action: {
            buttons: [
              { type: "reply", reply: { id: "change", title: "Change" } },
              { type: "reply", reply: { id: "cancel", title: "Cancel" } },
            ],
          },
        },
      }),
    );
    expect(buttons).toEqual({
      kind: "interactive",
      header: "Delivery",
      body: "Reschedule?",
      footer: "Duka la Mama",
      buttons: ["Change", "Cancel"],
    });
    const list = messageContent(
      outbound({
        type: "interactive",
        interactive: {
          type: "list",
          body: { text: "Pick a delivery" },
          action: { button: "Options", sections: [{ rows: [{ id: "a", title: "Express" }] }] },
        },
      }),
    );
    expect(list).toEqual({ kind: "interactive", header: null, body: "Pick a delivery", footer: null, buttons: ["Options"] });
  });

  it("a reaction", () => {
    expect(messageContent(outbound({ type: "reaction", reaction: { message_id: "wamid.Z", emoji: "❤️" } }))).toEqual({
      kind: "reaction",
      emoji: "❤️",
    });
  });
});

describe("malformed payloads", () => {
  it("fall back to the stored body, never throwing", () => {
    const body = "Habari";
    const cases: unknown[] = [
      null,
      "not an object",
      [],
      { type: "text" },
      { type: "text", text: { body: 42 } },
      { type: "image", image: "nope" },
      { type: "location", location: { latitude: "north", longitude: 36 } },
      { type: "location", location: { latitude: 200, longitude: 36 } },
      { type: "contacts", contacts: "x" },
      { type: "button", button: {} },
      { type: "interactive", interactive: { type: "button_reply", button_reply: null } },
      { type: "reaction", reaction: { emoji: 5 } },
    ];
    for (const payload of cases) {
      const source = inbound(payload, { body, messageType: "text" });
      expect(messageContent(source), JSON.stringify(payload)).toEqual({ kind: "text", text: body });
      expect(messageContent({ ...source, direction: "outbound" }), JSON.stringify(payload)).toEqual({ kind: "text", text: body });
    }
    // A getter that throws, and no body at all.
    const hostile = {
      get type(): string {
        throw new Error("boom");
      },
    };
    expect(messageContent({ ...inbound(null, { body: "", messageType: "text" }), payload: hostile })).toEqual({
      kind: "unsupported",
      text: "This message could not be shown.",
    });
    expect(messageContent(outbound({ type: "interactive", interactive: { body: {} } }, { body: "Chagua" }))).toEqual({
      kind: "text",
      text: "Chagua",
    });
    expect(
      messageContent(outbound({ type: "template", template: { components: "x" } }, { template: { components: "x" as never } })),
    ).toMatchObject({
      kind: "template",
      name: "template",
      buttons: [],
    });
  });

  it("a media message without its part still shows the file Jumbe holds", () => {
    expect(messageContent(inbound({ type: "image" }, { mediaFile: FILE }))).toMatchObject({ kind: "media", url: `/chat/media/${ID}` });
  });
});
