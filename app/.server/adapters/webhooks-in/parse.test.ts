import { describe, expect, it } from "vitest";
import { messageText, parseEnvelope } from "./parse";

describe("parseEnvelope", () => {
  it("reads entry × changes and skips the elements without the envelope's shape", () => {
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "102290129340398",
          time: 1750030000,
          changes: [{ field: "messages", value: { messaging_product: "whatsapp" } }, { field: "messages", value: [] }, { value: {} }],
        },
        { id: "no-changes" },
        "not an entry",
        { id: 7, changes: [{ field: "account_update", value: { event: "VERIFIED_ACCOUNT" } }] },
      ],
    });
    expect(parseEnvelope(42, body)).toEqual([
      { eventId: 42, entryId: "102290129340398", entryTime: 1750030000, field: "messages", value: { messaging_product: "whatsapp" } },
      { eventId: 42, entryId: "7", entryTime: undefined, field: "account_update", value: { event: "VERIFIED_ACCOUNT" } },
    ]);
  });

  it("refuses what is not a WhatsApp Business envelope, and cleans what PostgreSQL cannot store", () => {
    expect(parseEnvelope(1, "not json")).toBeNull();
    expect(parseEnvelope(1, JSON.stringify({ object: "page", entry: [] }))).toBeNull();
    expect(parseEnvelope(1, JSON.stringify({ object: "whatsapp_business_account", entry: {} }))).toBeNull();
    const [change] = parseEnvelope(
      1,
      '{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"t":"a\\u0000b\\ud800"}}]}]}',
    )!;
    expect(change!.value).toEqual({ t: "ab\ufffd" });
    // Escapes in upper case and in keys; a well-formed pair and an escaped backslash stay as they are.
    const [other] = parseEnvelope(
      1,
      '{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"k\\uDC00":"\\uD83D\\uDE00 \\\\u0000"}}]}]}',
    )!;
    expect(other!.value).toEqual({ "k\ufffd": "\u{1F600} \\u0000" });
  });

  it("gives an inbound message's words for lists and search", () => {
    expect(messageText({ type: "text", text: { body: "Habari, nataka kulipa bili" } })).toBe("Habari, nataka kulipa bili");
    expect(messageText({ type: "interactive", interactive: { button_reply: { title: "Ndio" } } })).toBe("Ndio");
    expect(messageText({ type: "sticker", sticker: {} })).toBe("[sticker]");
  });
});
