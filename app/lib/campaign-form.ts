import { FALLBACK_AFTER_DEFAULT, FALLBACK_MODES, type FallbackMode } from "~/lib/sms-fallback";
import { m } from "~/paraglide/messages";

/**
 * The New Campaign and Quick Broadcast form as flat fields (it works without JavaScript, so every
 * step posts the whole form): read once into values the page shows again, and turned into the
 * domain's input. Placeholder `i` is `p{i}_source` (a contact field's key, or FIXED for a fixed
 * value), `p{i}_fallback` and `p{i}_value`; a text header's one is `h_source`, `h_fallback`, `h_value`;
 * the button at position `n` (from 0) that takes a value, `b{n}_source`, `b{n}_fallback`, `b{n}_value`.
 * A media header's file is `hm_link` (an https address) or `hm_media` (an uploaded file's id), and
 * `hm_filename` for a document.
 */
export const FIXED = "=";
/** The phone numbers a pasted or uploaded list may hold (the domain's AUDIENCE_PHONES_MAX). */
export const LIST_MAX = 10_000;
export const UPLOAD_MAX_BYTES = 1_000_000;

export interface PlaceholderValues {
  source: string;
  fallback: string;
  value: string;
}

export interface HeaderFileValues {
  link: string;
  mediaId: string;
  filename: string;
}

/**
 * A catalog or multi-product template's products (decision 146): `pr_thumb` (the thumbnail product's
 * id) and, for a multi-product template, section `i` as `s{i}_title` and `s{i}_products` (checkboxes).
 */
export interface ProductValues {
  thumbnail: string;
  sections: { title: string; productIds: string[] }[];
}
/** A multi-product message has at most 10 sections. */
export const SECTIONS_MAX = 10;

export interface CampaignFormValues {
  name: string;
  from: string;
  template: string;
  body: PlaceholderValues[];
  header: PlaceholderValues;
  headerFile: HeaderFileValues;
  /** By the button's position in the template (from 0). */
  buttons: (PlaceholderValues & { index: number })[];
  products: ProductValues;
  segment: string;
  tags: string;
  everyone: boolean;
  phones: string;
  when: "now" | "later";
  date: string;
  time: string;
  /** The SMS fallback (decision 152): off, its own text, or the message's text; after how many minutes undelivered. */
  smsFallback: FallbackMode;
  smsText: string;
  smsAfter: string;
}

export const PLACEHOLDERS_MAX = 100;
/** A template has at most 10 buttons. */
export const BUTTONS_MAX = 10;

/** A posted field as text: Conform leaves out empty ones, and a name posted twice counts once. */
const textOf = (fields: Record<string, unknown>, name: string, max: number) => {
  const value = fields[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first.slice(0, max) : "";
};

const hasAny = (fields: Record<string, unknown>, prefix: string) =>
  ["source", "fallback", "value"].some((part) => textOf(fields, `${prefix}_${part}`, 1) !== "");

const placeholder = (fields: Record<string, unknown>, prefix: string): PlaceholderValues => ({
  source: textOf(fields, `${prefix}_source`, 100),
  fallback: textOf(fields, `${prefix}_fallback`, 1100),
  value: textOf(fields, `${prefix}_value`, 1100),
});

const headerFile = (fields: Record<string, unknown>): HeaderFileValues => ({
  link: textOf(fields, "hm_link", 2100),
  mediaId: textOf(fields, "hm_media", 100),
  filename: textOf(fields, "hm_filename", 300),
});

/** The body's placeholders up to the last one given (an empty one in between stays, empty). */
function bodyValues(fields: Record<string, unknown>) {
  let count = 0;
  for (let i = 1; i <= PLACEHOLDERS_MAX; i++) if (hasAny(fields, `p${i}`)) count = i;
  return Array.from({ length: count }, (_, i) => placeholder(fields, `p${i + 1}`));
}

const allTexts = (fields: Record<string, unknown>, name: string) => {
  const value = fields[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string" && v !== "").map((v) => v.slice(0, 100));
};

/** The products chosen: the thumbnail, and the sections up to the last one given. */
function productValues(fields: Record<string, unknown>): ProductValues {
  const sections = Array.from({ length: SECTIONS_MAX }, (_, i) => ({
    title: textOf(fields, `s${i}_title`, 100),
    productIds: allTexts(fields, `s${i}_products`).slice(0, 100),
  }));
  let count = 0;
  sections.forEach((s, i) => {
    if (s.title || s.productIds.length) count = i + 1;
  });
  return { thumbnail: textOf(fields, "pr_thumb", 100), sections: sections.slice(0, count) };
}

const buttonValues = (fields: Record<string, unknown>) =>
  Array.from({ length: BUTTONS_MAX }, (_, index) => index)
    .filter((index) => hasAny(fields, `b${index}`))
    .map((index) => ({ index, ...placeholder(fields, `b${index}`) }));

/**
 * The form's values from its posted fields (strings only: an uploaded file is read by the action),
 * or from Conform's reply to them: the schema's output, and what the page shows again.
 */
export function campaignValuesOf(fields: Record<string, unknown>): CampaignFormValues {
  const everyone = textOf(fields, "everyone", 10);
  return {
    name: textOf(fields, "name", 200),
    from: textOf(fields, "from", 100),
    template: textOf(fields, "template", 600),
    body: bodyValues(fields),
    header: placeholder(fields, "h"),
    headerFile: headerFile(fields),
    buttons: buttonValues(fields),
    products: productValues(fields),
    segment: textOf(fields, "segment", 60),
    tags: textOf(fields, "tags", 2000),
    everyone: everyone === "on" || everyone === "yes",
    phones: textOf(fields, "phones", 400_000),
    when: textOf(fields, "when", 10) === "later" ? "later" : "now",
    date: textOf(fields, "date", 10),
    time: textOf(fields, "time", 5),
    smsFallback: fallbackModeOf(textOf(fields, "sms_fallback", 10)),
    smsText: textOf(fields, "sms_text", 2000),
    smsAfter: textOf(fields, "sms_after", 6),
  };
}

const fallbackModeOf = (value: string): FallbackMode => FALLBACK_MODES.find((mode) => mode === value) ?? "off";

export const emptyCampaignForm = (): CampaignFormValues => ({
  name: "",
  from: "",
  template: "",
  body: [],
  header: { source: "", fallback: "", value: "" },
  headerFile: { link: "", mediaId: "", filename: "" },
  buttons: [],
  products: { thumbnail: "", sections: [] },
  segment: "",
  tags: "",
  everyone: false,
  phones: "",
  when: "now",
  date: "",
  time: "",
  smsFallback: "off",
  smsText: "",
  smsAfter: String(FALLBACK_AFTER_DEFAULT),
});

/**
 * The numbers of a pasted list ("0712 345 678, +254 723 456 789\n..."): every entry, so the review
 * says which are not valid. From an uploaded file (`file`), only the cells that look like numbers:
 * a CSV's header and its names are not numbers.
 */
export function numbersIn(textValue: string, { file = false } = {}): string[] {
  const cells = textValue
    .split(/[\r\n,;\t]+/)
    .map((cell) => cell.replace(/^["'\s]+|["'\s]+$/g, ""))
    .filter(Boolean);
  return file ? cells.filter((cell) => /\d/.test(cell) && /^[+\d\s().-]+$/.test(cell)) : cells;
}

export const splitTagList = (value: string) =>
  value
    .split(/[,;\n]+/)
    .map((t) => t.trim())
    .filter(Boolean);

type Source = { field: string; fallback?: string } | { value: string };

export function sourceOf(values: PlaceholderValues): Source {
  if (values.source === FIXED) return { value: values.value };
  return values.fallback.trim() ? { field: values.source, fallback: values.fallback } : { field: values.source };
}

/** The template's `name|language` key, split. */
export function templateOfKey(key: string) {
  const at = key.lastIndexOf("|");
  return at > 0 ? { name: key.slice(0, at), language: key.slice(at + 1) } : { name: key };
}

/** A media header's file as the domain takes it: the link or the uploaded file (both, and it says so). */
export function headerFileOf(values: HeaderFileValues) {
  const link = values.link.trim();
  const filename = values.filename.trim();
  if (!link && !values.mediaId) return undefined;
  return { ...(link ? { link } : {}), ...(values.mediaId ? { mediaId: values.mediaId } : {}), ...(filename ? { filename } : {}) };
}

/** A placeholder's or button's source in words, for a campaign's page: `member_no, else "search"` or `"NYOTA"`. */
export function sourceInWords(source: Source, labels: Record<string, string> = {}) {
  if ("value" in source) return m.messaging_source_fixed({ value: source.value });
  const field = labels[source.field] ?? source.field;
  return source.fallback ? m.messaging_source_with_fallback({ field, fallback: source.fallback }) : field;
}

/** A page address's fields as a form's posted fields: a name given more than once (ticked boxes) as a list. */
export function fieldsOfAddress(params: URLSearchParams): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    const all = params.getAll(name);
    fields[name] = all.length > 1 ? all : all[0];
  }
  return fields;
}

/**
 * What a catalog or multi-product template's product picker asks the shop for (decision 146, at
 * 2,000 products as the inbox's and the automations' pickers): the words of "Find a product" (`pq`)
 * and the products the values name (the thumbnail, every section's), listed first.
 */
export function productPickerAsk(fields: Record<string, unknown>) {
  const { products } = campaignValuesOf(fields);
  const chosenIds = [...new Set([products.thumbnail, ...products.sections.flatMap((s) => s.productIds)].filter(Boolean))];
  return { query: textOf(fields, "pq", 100), chosenIds };
}
