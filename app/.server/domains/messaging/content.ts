/**
 * What a sender asks to send, before Jumbe turns it into Meta's request: one kind per message.
 * The API's body, campaigns and the inbox all produce this.
 */
export type MediaKind = "image" | "video" | "audio" | "document" | "sticker";
export const MEDIA_KINDS: readonly MediaKind[] = ["image", "video", "audio", "document", "sticker"];

export interface MediaRef {
  /** A public https address Meta fetches... */
  link?: string;
  /** ...or a file uploaded to Jumbe first (POST /api/v1/media). */
  mediaId?: string;
  caption?: string;
  /** Documents: the name the customer sees. */
  filename?: string;
}

export interface TemplateContent {
  name: string;
  /** Needed only when the template exists in several languages. */
  language?: string;
  /** The body's placeholders in order ({{1}}, {{2}}...). */
  parameters: string[];
  /** A TEXT header's placeholder, or a media header's file. */
  header?: { text?: string } & MediaRef;
  /** Dynamic URL buttons' suffixes, copy-code buttons' codes and quick replies' payloads, by the button's position. */
  buttons?: { index: number; value: string }[];
  /**
   * A catalog or multi-product template's products (decision 146): the action parameter of its
   * CATALOG or MPM button. An MPM needs them; a catalog may name its thumbnail product.
   */
  products?: TemplateProducts;
}

/** The products a catalog (thumbnail) or multi-product (thumbnail and sections) template shows, by retailer id. */
export interface TemplateProducts {
  thumbnailRetailerId: string;
  sections?: { title: string; retailerIds: string[] }[];
}

export interface InteractiveButtons {
  type: "button";
  body: string;
  footer?: string;
  header?: string;
  buttons: { id: string; title: string }[];
}

export interface InteractiveList {
  type: "list";
  body: string;
  footer?: string;
  header?: string;
  button: string;
  sections: { title?: string; rows: { id: string; title: string; description?: string }[] }[];
}

/**
 * The shop's messages (reference commerce §1.5): one product, a list of up to 30 in sections, or the
 * catalogue's "View catalog" button. `summary` is the line Jumbe keeps (the products' names); Meta
 * never sees it.
 */
export type InteractiveProducts = { summary: string; body: string; footer?: string } & (
  | { type: "product"; catalogId: string; retailerId: string }
  | { type: "product_list"; catalogId: string; header: string; sections: { title: string; retailerIds: string[] }[] }
  | { type: "catalog_message"; thumbnailRetailerId?: string }
);

export type OutboundContent =
  | { kind: "text"; text: string; previewUrl?: boolean }
  | { kind: "template"; template: TemplateContent }
  | { kind: MediaKind; media: MediaRef }
  | { kind: "interactive"; interactive: InteractiveButtons | InteractiveList | InteractiveProducts }
  | { kind: "reaction"; messageId: string; emoji: string };

/** Everything but a template is free-form: Meta takes it only inside the customer's service window. */
export const isFreeForm = (content: OutboundContent) => content.kind !== "template";

/** A line of text for lists, the inbox and exports: what the message says, or what it is. */
export function summaryOf(content: OutboundContent): string {
  switch (content.kind) {
    case "text":
      return content.text;
    case "template":
      return `Template ${content.template.name}${content.template.parameters.length ? `: ${content.template.parameters.join(", ")}` : ""}`;
    case "interactive":
      return "summary" in content.interactive ? content.interactive.summary : content.interactive.body;
    case "reaction":
      return content.emoji ? `Reacted ${content.emoji}` : "Removed a reaction";
    default:
      return content.media.caption ?? content.media.filename ?? `(${content.kind})`;
  }
}
