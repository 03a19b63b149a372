import { rawQuery } from "../../infrastructure/db/client";
import type {
  InteractiveButtons,
  InteractiveList,
  InteractiveProducts,
  MediaKind,
  MediaRef,
  OutboundContent,
  TemplateContent,
  TemplateProducts,
} from "./content";
import { isUuid } from "./media-files";
import { MEDIA_TYPES, mediaKindOf } from "./media-types";
import { refuse } from "./refusals";
import { checkTemplateProducts, productButtonComponent, productButtonOf } from "./template-products";
import type { SenderNumber } from "./sender";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

/** Meta's request for one message, ready for POST /{phone-number-id}/messages. */
export type GraphMessage = Record<string, unknown>;

export interface Composed {
  graph: GraphMessage;
  templateId: string | null;
  /** The template's category (lower case) for templates, else null: billing and analytics read it. */
  templateCategory: string | null;
  contextWamid: string | null;
}

interface TemplateRow {
  id: string;
  language: string;
  status: string;
  category: string;
  components: Record<string, unknown>[];
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const placeholderNames = (text: unknown) => (typeof text === "string" ? [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!) : []);
/** Positional ({{1}}...) templates need as many values as the highest number; named ones one per distinct name. */
function needed(names: string[]) {
  if (!names.length) return { count: 0, named: [] as string[] };
  if (names.every((n) => /^\d+$/.test(n))) return { count: Math.max(...names.map(Number)), named: [] as string[] };
  const named = [...new Set(names)];
  return { count: named.length, named };
}

/** A message kind as a sentence names it, with its article: "an image", "a video". */
export const kindWithArticle = (kind: MediaKind) =>
  ({
    image: m.validation_send_kind_a_image,
    video: m.validation_send_kind_a_video,
    audio: m.validation_send_kind_a_audio,
    document: m.validation_send_kind_a_document,
    sticker: m.validation_send_kind_a_sticker,
  })[kind]();

/** A media header's format as a word ("image"); a format without one is said as stored. */
const headerWord = (format: string) => {
  const word = {
    IMAGE: m.validation_send_header_image,
    VIDEO: m.validation_send_header_video,
    DOCUMENT: m.validation_send_header_document,
  }[format];
  return word ? word() : format.toLowerCase();
};

/** Languages as a sentence lists them: "en and sw". */
const both = (languages: string[]) => languages.reduce((before, after) => m.validation_send_and({ before, after }));

/** Checks `content` against Jumbe's rules and the tenant's templates, and writes Meta's request. */
export async function composeMessage(
  organizationId: string,
  sender: SenderNumber,
  to: string,
  content: OutboundContent,
  /** The message this one quotes: a Jumbe message id or a wamid, or `{ wamid }` already looked up. */
  replyTo?: string | { wamid: string },
): Promise<Composed> {
  const graph: GraphMessage = { messaging_product: "whatsapp", recipient_type: "individual", to };
  let templateId: string | null = null;
  let templateCategory: string | null = null;
  switch (content.kind) {
    case "text":
      graph.type = "text";
      graph.text = { body: content.text, preview_url: content.previewUrl ?? /https?:\/\//.test(content.text) };
      break;
    case "template": {
      const template = await approvedTemplate(organizationId, sender, content.template);
      const headerFormat = String(componentOf(template, "HEADER")?.format ?? "").toUpperCase();
      let wanted = content.template;
      if (wanted.header?.mediaId && ["IMAGE", "VIDEO", "DOCUMENT"].includes(headerFormat)) {
        const kind = headerFormat.toLowerCase() as MediaKind;
        const file = await checkMediaFile(organizationId, kind, wanted.header.mediaId, "header.mediaId");
        wanted = { ...wanted, header: withFileName(kind, wanted.header, file) };
      }
      templateId = template.id;
      templateCategory = template.category.toLowerCase();
      graph.type = "template";
      graph.template = {
        name: content.template.name,
        language: { code: template.language },
        components: templateComponents(wanted, template),
      };
      break;
    }
    case "interactive":
      graph.type = "interactive";
      graph.interactive = interactiveObject(content.interactive);
      break;
    case "reaction":
      graph.type = "reaction";
      graph.reaction = { message_id: await wamidOf(organizationId, sender, content.messageId), emoji: content.emoji };
      break;
    default: {
      let media = content.media;
      if (media.mediaId)
        media = withFileName(
          content.kind,
          media,
          await checkMediaFile(organizationId, content.kind, media.mediaId, `${content.kind}.mediaId`),
        );
      graph.type = content.kind;
      graph[content.kind] = mediaObject(content.kind, media);
    }
  }
  const contextWamid = typeof replyTo === "object" ? replyTo.wamid : replyTo ? await wamidOf(organizationId, sender, replyTo) : null;
  if (contextWamid) graph.context = { message_id: contextWamid };
  return { graph, templateId, templateCategory, contextWamid };
}

/**
 * A file sent by mediaId must be the tenant's own (uploaded with POST /api/v1/media) and of a type
 * the message kind takes: a PNG cannot go as a document, nor a PDF as an image.
 */
async function checkMediaFile(organizationId: string, kind: MediaKind, mediaId: string, field: string) {
  const [file] = isUuid(mediaId)
    ? await rawQuery<{ mime_type: string; file_name: string | null }>(
        `select mime_type, file_name from media_files where organization_id = $1 and id = $2`,
        [organizationId, mediaId],
      )
    : [];
  if (!file) throw refuse(404, "media_not_found", m.validation_send_media_not_found_field({ field, id: mediaId.slice(0, 80) }));
  const fileKind = mediaKindOf(file.mime_type);
  if (fileKind !== kind) {
    const takes = Object.entries(MEDIA_TYPES)
      .filter(([, rule]) => rule.kind === kind)
      .map(([type]) => type);
    const words = { field, mime: file.mime_type, kind: kindWithArticle(kind), types: takes.join(", ") };
    throw refuse(
      422,
      "media_type_mismatch",
      fileKind
        ? m.validation_send_media_type_mismatch_sent_as({ ...words, sentAs: kindWithArticle(fileKind) })
        : m.validation_send_media_type_mismatch(words),
    );
  }
  return file;
}

/** A document shows the customer a name: the upload's own when the message gives none. */
const withFileName = <T extends MediaRef>(kind: MediaKind, media: T, file: { file_name: string | null }): T =>
  kind === "document" && !media.filename && file.file_name ? { ...media, filename: file.file_name } : media;

/** A media reference as Meta takes it: `link`, or Jumbe's upload (sent as Meta's id once uploaded). */
export function mediaObject(kind: string, media: MediaRef): Record<string, unknown> {
  const object: Record<string, unknown> = media.mediaId ? { id: `jumbe-media:${media.mediaId}` } : { link: media.link };
  if (media.caption && kind !== "audio" && kind !== "sticker") object.caption = media.caption;
  if (media.filename && kind === "document") object.filename = media.filename;
  return object;
}

function interactiveObject(interactive: InteractiveButtons | InteractiveList | InteractiveProducts): Record<string, unknown> {
  if ("summary" in interactive) return productsObject(interactive);
  const object: Record<string, unknown> = { type: interactive.type, body: { text: interactive.body } };
  if (interactive.header) object.header = { type: "text", text: interactive.header };
  if (interactive.footer) object.footer = { text: interactive.footer };
  object.action =
    interactive.type === "button"
      ? { buttons: interactive.buttons.map((b) => ({ type: "reply", reply: { id: b.id, title: b.title } })) }
      : {
          button: interactive.button,
          sections: interactive.sections.map((s) => ({ ...(s.title ? { title: s.title } : {}), rows: s.rows })),
        };
  return object;
}

/** A product, product_list or catalog_message as Meta takes it (a single product's body may be left out). */
function productsObject(interactive: InteractiveProducts): Record<string, unknown> {
  const object: Record<string, unknown> = { type: interactive.type };
  if (interactive.type === "product_list") object.header = { type: "text", text: interactive.header };
  if (interactive.body) object.body = { text: interactive.body };
  if (interactive.footer) object.footer = { text: interactive.footer };
  switch (interactive.type) {
    case "product":
      object.action = { catalog_id: interactive.catalogId, product_retailer_id: interactive.retailerId };
      break;
    case "product_list":
      object.action = {
        catalog_id: interactive.catalogId,
        sections: interactive.sections.map((s) => ({
          title: s.title,
          product_items: s.retailerIds.map((id) => ({ product_retailer_id: id })),
        })),
      };
      break;
    default:
      object.action = {
        name: "catalog_message",
        ...(interactive.thumbnailRetailerId ? { parameters: { thumbnail_product_retailer_id: interactive.thumbnailRetailerId } } : {}),
      };
  }
  return object;
}

/** The message a reaction or reply points at: a Jumbe message id or a wamid, of this number's conversation. */
async function wamidOf(organizationId: string, sender: SenderNumber, id: string) {
  const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
  const [row] = await rawQuery<{ wamid: string | null }>(
    byId
      ? `select wamid from messages where organization_id = $1 and phone_number_id = $2 and id = $3::uuid limit 1`
      : // By wamid: through its key (decision 174), then the message in its month.
        `select m.wamid from message_wamids w join messages m on m.id = w.message_id and m.created_at = w.created_at
         where w.organization_id = $1 and w.wamid = $3 and m.organization_id = $1 and m.phone_number_id = $2 limit 1`,
    [organizationId, sender.phoneNumberId, id],
  );
  if (!row?.wamid)
    throw refuse(422, "message_not_found", m.validation_send_message_not_found({ id: id.slice(0, 80), number: sender.number }));
  return row.wamid;
}

/**
 * The template named, in the sender's WhatsApp account: in the language asked for, or its only
 * language; approved; and with a value for every placeholder.
 */
async function approvedTemplate(organizationId: string, sender: SenderNumber, wanted: TemplateContent): Promise<TemplateRow> {
  const template = await findApprovedTemplate(organizationId, sender, wanted);
  checkParameters(wanted, template);
  return template;
}

async function findApprovedTemplate(
  organizationId: string,
  sender: SenderNumber,
  wanted: { name: string; language?: string },
): Promise<TemplateRow> {
  const rows = await rawQuery<TemplateRow>(
    `select id, language, status, category, components from message_templates
     where organization_id = $1 and waba_id = $2 and name = $3 and deleting_at is null order by language`,
    [organizationId, sender.wabaId, wanted.name],
  );
  if (!rows.length)
    throw refuse(422, "template_not_found", m.validation_send_template_not_found({ name: wanted.name, number: sender.number }));
  const languages = rows.map((r) => r.language);
  const template = wanted.language ? rows.find((r) => r.language === wanted.language) : rows.length === 1 ? rows[0] : undefined;
  if (!template)
    throw refuse(
      422,
      "template_not_found",
      wanted.language
        ? m.validation_send_template_no_language({ name: wanted.name, language: wanted.language, languages: languages.join(", ") })
        : m.validation_send_template_which_language({ name: wanted.name, languages: both(languages) }),
    );
  if (template.status !== "approved")
    throw refuse(
      422,
      "template_not_approved",
      m.validation_send_template_not_approved({ name: wanted.name, language: template.language, status: template.status }),
    );
  return template;
}

const componentOf = (template: TemplateRow, type: string) =>
  template.components.find((c) => String(c.type).toUpperCase() === type) as Record<string, unknown> | undefined;

function checkParameters(wanted: TemplateContent, template: TemplateRow) {
  const body = needed(placeholderNames(componentOf(template, "BODY")?.text));
  if (wanted.parameters.length !== body.count) {
    const count = body.count;
    const given = wanted.parameters.length;
    const parameters = byCount(
      count,
      () => m.validation_send_parameters_one({ count }),
      () => m.validation_send_parameters_other({ count }),
    );
    const gave = byCount(
      given,
      () => m.validation_send_given_one({ count: given }),
      () => m.validation_send_given_other({ count: given }),
    );
    throw refuse(422, "parameter_mismatch", m.validation_send_parameter_count({ name: wanted.name, parameters, given: gave }));
  }
  const header = componentOf(template, "HEADER");
  const format = String(header?.format ?? "").toUpperCase();
  if (format === "TEXT" && needed(placeholderNames(header?.text)).count > 0 && !wanted.header?.text)
    throw refuse(422, "parameter_mismatch", m.validation_send_header_text_needed({ name: wanted.name }));
  if (["IMAGE", "VIDEO", "DOCUMENT"].includes(format) && !wanted.header?.link && !wanted.header?.mediaId)
    throw refuse(422, "parameter_mismatch", m.validation_send_header_file_needed({ name: wanted.name, format: headerWord(format) }));
  const buttons = (componentOf(template, "BUTTONS")?.buttons as Record<string, unknown>[] | undefined) ?? [];
  buttons.forEach((button, index) => {
    const dynamic = String(button.type).toUpperCase() === "URL" && placeholderNames(button.url).length > 0;
    if (dynamic && !wanted.buttons?.some((b) => b.index === index))
      throw refuse(
        422,
        "parameter_mismatch",
        m.validation_send_button_value_needed({
          name: wanted.name,
          number: index + 1,
          text: String(button.text),
          example: `{ index: ${index}, value }`,
        }),
      );
  });
  checkTemplateProducts(wanted.name, productButtonOf(template.components)?.kind, wanted.products);
  for (const given of wanted.buttons ?? []) {
    const button = buttons[given.index];
    const type = String(button?.type ?? "").toUpperCase();
    if (!button || (type !== "URL" && type !== "COPY_CODE" && type !== "QUICK_REPLY"))
      throw refuse(422, "parameter_mismatch", m.validation_send_button_takes_no_value({ name: wanted.name, number: given.index + 1 }));
  }
}

function templateComponents(wanted: TemplateContent, template: TemplateRow): Record<string, unknown>[] {
  const components: Record<string, unknown>[] = [];
  const header = componentOf(template, "HEADER");
  const format = String(header?.format ?? "").toUpperCase();
  if (format === "TEXT" && wanted.header?.text)
    components.push({ type: "header", parameters: [{ type: "text", text: wanted.header.text }] });
  if (["IMAGE", "VIDEO", "DOCUMENT"].includes(format) && wanted.header) {
    const kind = format.toLowerCase();
    components.push({ type: "header", parameters: [{ type: kind, [kind]: mediaObject(kind, wanted.header) }] });
  }
  const body = needed(placeholderNames(componentOf(template, "BODY")?.text));
  if (wanted.parameters.length)
    components.push({
      type: "body",
      parameters: wanted.parameters.map((text, i) => ({
        type: "text",
        text,
        ...(body.named.length ? { parameter_name: body.named[i] } : {}),
      })),
    });
  const buttons = (componentOf(template, "BUTTONS")?.buttons as Record<string, unknown>[] | undefined) ?? [];
  for (const given of [...(wanted.buttons ?? [])].sort((a, b) => a.index - b.index)) {
    const type = String(buttons[given.index]?.type).toUpperCase();
    // A quick reply's payload is what the tap sends back (a payment request's button id).
    if (type === "QUICK_REPLY") {
      components.push({
        type: "button",
        sub_type: "quick_reply",
        index: String(given.index),
        parameters: [{ type: "payload", payload: given.value }],
      });
      continue;
    }
    const copy = type === "COPY_CODE";
    components.push({
      type: "button",
      sub_type: copy ? "copy_code" : "url",
      index: String(given.index),
      parameters: [copy ? { type: "coupon_code", coupon_code: given.value } : { type: "text", text: given.value }],
    });
  }
  const product = productButtonOf(template.components);
  if (product && wanted.products) components.push(productButtonComponent(product.index, product.kind, wanted.products));
  return components;
}

const MEDIA_HEADERS = ["IMAGE", "VIDEO", "DOCUMENT"];

/** A button that takes a value per message: a URL ending in a placeholder, or a copy code. */
export interface ValueButton {
  index: number;
  kind: "url" | "copy_code";
  /** The button's label, and a URL button's address ("https://.../{{1}}"). */
  text: string;
  url: string | null;
}

/** A template's buttons that take a value per message (its components as Meta stores them). */
export function valueButtons(components: Record<string, unknown>[]): ValueButton[] {
  const part = components.find((c) => String(c.type).toUpperCase() === "BUTTONS");
  const buttons = (part?.buttons as Record<string, unknown>[] | undefined) ?? [];
  return buttons.flatMap((button, index): ValueButton[] => {
    const type = String(button.type).toUpperCase();
    if (type === "URL" && placeholderNames(button.url).length > 0)
      return [{ index, kind: "url", text: String(button.text ?? ""), url: String(button.url) }];
    if (type === "COPY_CODE") return [{ index, kind: "copy_code", text: String(button.text ?? m.validation_send_copy_code()), url: null }];
    return [];
  });
}

/** A media header needs its file: one for every recipient, given when the campaign is made. */
function checkHeaderFile(name: string, format: string, header: MediaRef | undefined) {
  if (!MEDIA_HEADERS.includes(format) || header?.link || header?.mediaId) return;
  const kind = format.toLowerCase() as MediaKind;
  throw refuse(422, "parameter_mismatch", m.validation_send_header_file_missing({ name, kind: kindWithArticle(kind) }));
}

/**
 * One template for many recipients (a campaign): found and checked once (approved; a media header's
 * file given and, when uploaded, the tenant's own and of the header's kind), then each recipient's
 * message is written without another query, from their body values, header value and button values.
 */
export async function prepareTemplate(
  organizationId: string,
  sender: SenderNumber,
  wanted: { name: string; language?: string; header?: MediaRef },
) {
  const template = await findApprovedTemplate(organizationId, sender, wanted);
  const header = componentOf(template, "HEADER");
  const headerFormat = String(header?.format ?? "").toUpperCase();
  const body = needed(placeholderNames(componentOf(template, "BODY")?.text));
  const headerCount = headerFormat === "TEXT" ? needed(placeholderNames(header?.text)).count : 0;
  const buttons = valueButtons(template.components);
  const productButton = productButtonOf(template.components);
  checkHeaderFile(wanted.name, headerFormat, wanted.header);
  const media = MEDIA_HEADERS.includes(headerFormat) ? wanted.header : undefined;
  let sample: TemplateContent = {
    name: wanted.name,
    language: template.language,
    parameters: Array.from({ length: body.count }, () => "x"),
    ...(headerCount ? { header: { text: "x" } } : media ? { header: media } : {}),
    buttons: buttons.map((b) => ({ index: b.index, value: "x" })),
    ...(productButton?.kind === "MPM" ? { products: { thumbnailRetailerId: "x", sections: [{ title: "", retailerIds: ["x"] }] } } : {}),
  };
  checkParameters(sample, template);
  let uploadedName: string | null = null;
  if (media && sample.header?.mediaId) {
    const kind = headerFormat.toLowerCase() as MediaKind;
    const file = await checkMediaFile(organizationId, kind, sample.header.mediaId, "header.mediaId");
    uploadedName = file.file_name;
    sample = { ...sample, header: withFileName(kind, sample.header, file) };
  }
  const category = template.category.toLowerCase();
  return {
    templateId: template.id,
    name: wanted.name,
    language: template.language,
    category,
    /** How many values the body takes (and their names, for named placeholders), and whether the header takes one. */
    body,
    headerTakesText: headerCount > 0,
    /** IMAGE, VIDEO, DOCUMENT, TEXT, LOCATION; null without a header. */
    headerFormat: headerFormat || null,
    /** A media header's file as it is sent (an upload's own name for a document). */
    headerMedia: media ? { ...(sample.header as MediaRef), ...(uploadedName ? { uploadedName } : {}) } : null,
    /** The buttons that take a value per message, in order. */
    buttons,
    /** A catalog or multi-product template's button (decision 146): it shows the products each message names. */
    productButton: productButton?.kind ?? null,
    /** The template's texts, for a preview. */
    texts: {
      header: headerFormat === "TEXT" ? String(header?.text ?? "") : null,
      body: String(componentOf(template, "BODY")?.text ?? ""),
      footer: componentOf(template, "FOOTER") ? String(componentOf(template, "FOOTER")?.text ?? "") : null,
    },
    /** Meta's request for one recipient; `buttons` gives each value button's value by its index. */
    compose(
      to: string,
      values: { parameters: string[]; headerText?: string; buttons?: { index: number; value: string }[]; products?: TemplateProducts },
    ): Composed {
      const content: TemplateContent = {
        ...sample,
        parameters: values.parameters,
        ...(headerCount ? { header: { text: values.headerText ?? "" } } : {}),
        buttons: values.buttons ?? [],
        products: values.products,
      };
      return {
        graph: {
          messaging_product: "whatsapp",
          recipient_type: "individual",
          to,
          type: "template",
          template: { name: wanted.name, language: { code: template.language }, components: templateComponents(content, template) },
        },
        templateId: template.id,
        templateCategory: category,
        contextWamid: null,
      };
    },
  };
}

export type PreparedTemplate = Awaited<ReturnType<typeof prepareTemplate>>;
