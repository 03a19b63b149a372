import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import type { MessageContent } from "~/lib/inbox";
import { formatSize, MessageBody } from "./message-body";

// Each kind of message as a thread shows it: the words a member reads and the links to its files.

const render = (content: MessageContent) => renderToStaticMarkup(<MessageBody content={content} />);
/** The visible text, tags dropped. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();

const media = (extra: Partial<Extract<MessageContent, { kind: "media" }>>): MessageContent => ({
  kind: "media",
  media: "image",
  caption: null,
  fileName: null,
  mimeType: null,
  size: null,
  url: null,
  unavailable: null,
  voice: false,
  ...extra,
});

describe("MessageBody", () => {
  it("shows text with WhatsApp's formatting and no HTML from the text", () => {
    const html = render({ kind: "text", text: "Habari *Amina*,\n<script>alert(1)</script>" });
    expect(html).toContain("<strong>Amina</strong>");
    expect(html).not.toContain("<script>");
    expect(text(html)).toContain("Habari Amina ,");
  });

  it("shows an image as a lazy thumbnail linking to the full file, with its caption", () => {
    const html = render(media({ url: "/chat/media/m1", caption: "Mzigo" }));
    expect(html).toMatch(
      /<a href="\/chat\/media\/m1"[^>]*><img src="\/chat\/media\/m1" alt="Mzigo" loading="lazy" decoding="async" class="[^"]*max-h-72/,
    );
    expect(text(html)).toContain("Mzigo");
  });

  it("says why an image is not there yet", () => {
    const html = render(media({ unavailable: "Downloading…", caption: "Mzigo" }));
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<a ");
    expect(text(html)).toBe("Photo Downloading… Mzigo");
  });

  it("plays audio and voice notes and video in the browser's players, loading nothing until asked", () => {
    const voice = render(media({ media: "audio", voice: true, url: "/chat/media/v1" }));
    expect(voice).toMatch(/<audio src="\/chat\/media\/v1" controls="" preload="none"/);
    expect(text(voice)).toContain("Voice message");
    const video = render(media({ media: "video", url: "/chat/media/v2", caption: "Duka letu" }));
    expect(video).toMatch(/<video src="\/chat\/media\/v2" controls="" preload="none"/);
    expect(text(video)).toContain("Duka letu");
  });

  it("offers a document for download with its name, size and type", () => {
    const html = render(
      media({ media: "document", url: "/chat/media/d1", fileName: "risiti.pdf", size: 125_440, mimeType: "application/pdf" }),
    );
    expect(html).toMatch(/<a href="\/chat\/media\/d1" download="risiti.pdf"/);
    expect(text(html)).toBe("risiti.pdf 122.5 KB · PDF");
    expect(
      text(render(media({ media: "document", fileName: "bei.xlsx", unavailable: "The document could not be downloaded from WhatsApp." }))),
    ).toBe("bei.xlsx The document could not be downloaded from WhatsApp.");
  });

  it("shows a sticker small", () => {
    expect(render(media({ media: "sticker", url: "/chat/media/s1" }))).toMatch(
      /<img src="\/chat\/media\/s1" alt="Sticker"[^>]*class="size-32/,
    );
  });

  it("shows a location with a map link opening in a new tab", () => {
    const html = render({ kind: "location", latitude: -1.2676, longitude: 36.8108, name: "Westlands", address: "Waiyaki Way" });
    expect(text(html)).toBe("Westlands Waiyaki Way -1.26760, 36.81080 Open in OpenStreetMap");
    expect(html).toContain(
      '<a href="https://www.openstreetmap.org/?mlat=-1.2676&amp;mlon=36.8108#map=16/-1.2676/36.8108" target="_blank" rel="noopener noreferrer"',
    );
  });

  it("shows contacts with numbers to call and addresses to write to", () => {
    const html = render({
      kind: "contacts",
      people: [{ name: "Wanjiru Kamau", phones: ["+254 722 000 111"], emails: ["w@example.co.ke"] }],
    });
    expect(text(html)).toBe("Wanjiru Kamau +254 722 000 111 w@example.co.ke");
    expect(html).toContain('href="tel:+254722000111"');
    expect(html).toContain('href="mailto:w@example.co.ke"');
  });

  it("shows a template as WhatsApp does: header, body, footer and its buttons as labels", () => {
    const html = render({
      kind: "template",
      name: "order_update",
      header: "Order ORD-42",
      headerMedia: null,
      body: "Habari Amina, your order is on its way.",
      footer: "Duka la Mama",
      buttons: ["Asante", "Track it"],
    });
    expect(text(html)).toBe("Order ORD-42 Habari Amina, your order is on its way. Duka la Mama Asante Track it");
    expect(html).toContain('aria-label="Template order_update"');
    expect(html).not.toMatch(/<button|<a /);
  });

  it("shows a template's image header from Jumbe, or a tile of its kind", () => {
    const base = { kind: "template" as const, name: "promo", header: null, body: "Offer", footer: null, buttons: [] };
    expect(render({ ...base, headerMedia: "image", headerUrl: "/chat/media/t1" })).toMatch(
      /<img src="\/chat\/media\/t1" alt="Image header"/,
    );
    expect(text(render({ ...base, headerMedia: "video", headerUrl: null }))).toBe("Video header Offer");
  });

  it("shows an interactive message with its buttons, a choice, a reaction, an order and an unsupported message", () => {
    expect(text(render({ kind: "interactive", header: null, body: "Reschedule?", footer: null, buttons: ["Change", "Cancel"] }))).toBe(
      "Reschedule? Change Cancel",
    );
    expect(text(render({ kind: "choice", title: "Express", description: "Next day" }))).toBe("Tapped: Express Next day");
    expect(text(render({ kind: "reaction", emoji: "👍" }))).toBe("Reacted 👍");
    expect(text(render({ kind: "reaction", emoji: "" }))).toBe("Removed a reaction");
    expect(text(render({ kind: "order", items: 3, text: "Leta kesho" }))).toBe("🛒 Order: 3 items Leta kesho");
    expect(text(render({ kind: "unsupported", text: "The customer sent a poll." }))).toBe("The customer sent a poll.");
  });

  it("writes sizes for people", () => {
    expect([formatSize(900), formatSize(2048), formatSize(5 * 1024 * 1024)]).toEqual(["900 bytes", "2 KB", "5 MB"]);
  });
});
