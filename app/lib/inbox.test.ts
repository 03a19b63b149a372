import { describe, expect, it } from "vitest";
import { LIST_PREVIEW_MAX, listRowOf, type ConversationRow } from "./inbox";

const row = (text: string | null): ConversationRow => ({
  id: "c1",
  contactId: "k1",
  name: "Wanjiku Kamau",
  phone: "+254722418093",
  phoneNumberId: "4629285875148926",
  businessNumber: "+254711000001",
  lastMessage: text === null ? null : { text, direction: "inbound", status: "received" },
  lastMessageAt: "2026-11-26T08:00:00.000Z",
  lastInboundAt: "2026-11-26T08:00:00.000Z",
  unread: 2,
  status: "open",
  assignee: null,
  window: { open: true, closesAt: "2026-11-27T08:00:00.000Z" },
  ad: { headline: "Maji safi nyumbani", body: null, sourceUrl: "https://fb.me/abc", picture: null },
  freeEntryUntil: "2026-11-29T08:00:00.000Z",
});

describe("a conversation as the list's line", () => {
  it("drops what only the thread's header shows and keeps what the line shows and filters on", () => {
    const line = listRowOf(row("Habari, maji haijafika Kondele."));
    expect(Object.keys(line).sort()).toEqual(
      ["assignee", "id", "lastMessage", "lastMessageAt", "name", "phoneNumberId", "status", "unread", "window"].sort(),
    );
    expect(line.lastMessage?.text).toBe("Habari, maji haijafika Kondele.");
  });

  it("keeps the start of a long last message, with an ellipsis, and no last message as none", () => {
    const long = `${"Nimelipa KES 4,500 ya mwezi huu. ".repeat(5)}Asanteni!`;
    const text = listRowOf(row(long)).lastMessage!.text;
    expect(text.length).toBeLessThanOrEqual(LIST_PREVIEW_MAX);
    expect(text.endsWith("…")).toBe(true);
    expect(long.startsWith(text.slice(0, -1))).toBe(true);
    expect(listRowOf(row("x".repeat(LIST_PREVIEW_MAX))).lastMessage!.text).toBe("x".repeat(LIST_PREVIEW_MAX));
    expect(listRowOf(row(null)).lastMessage).toBeNull();
  });
});
