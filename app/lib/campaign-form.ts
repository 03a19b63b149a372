import * as z from "zod/mini";

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

export interface CampaignFormValues {
  name: string;
  from: string;
  template: string;
  body: PlaceholderValues[];
  header: PlaceholderValues;
  headerFile: HeaderFileValues;
  /** By the button's position in the template (from 0). */
  buttons: (PlaceholderValues & { index: number })[];
  segment: string;
  tags: string;
  everyone: boolean;
  phones: string;
  when: "now" | "later";
  date: string;
  time: string;
}

// The form's plain fields: each an optional string (the domain checks their meaning and answers by field).
const TopLevel = z.object({
  name: z.optional(z.string()),
  from: z.optional(z.string()),
  template: z.optional(z.string()),
  segment: z.optional(z.string()),
  tags: z.optional(z.string()),
  everyone: z.optional(z.string()),
  phones: z.optional(z.string()),
  when: z.optional(z.string()),
  date: z.optional(z.string()),
  time: z.optional(z.string()),
});

const placeholder = (form: FormData, prefix: string): PlaceholderValues => ({
  source: String(form.get(`${prefix}_source`) ?? "").slice(0, 100),
  fallback: String(form.get(`${prefix}_fallback`) ?? "").slice(0, 1100),
  value: String(form.get(`${prefix}_value`) ?? "").slice(0, 1100),
});

export const PLACEHOLDERS_MAX = 100;
/** A template has at most 10 buttons. */
export const BUTTONS_MAX = 10;

const headerFile = (form: FormData): HeaderFileValues => ({
  link: String(form.get("hm_link") ?? "").slice(0, 2100),
  mediaId: String(form.get("hm_media") ?? "").slice(0, 100),
  filename: String(form.get("hm_filename") ?? "").slice(0, 300),
});

const buttonValues = (form: FormData) =>
  Array.from({ length: BUTTONS_MAX }, (_, index) => index)
    .filter((index) => form.has(`b${index}_source`))
    .map((index) => ({ index, ...placeholder(form, `b${index}`) }));

/** The posted form's values (strings only: an uploaded file is read by the action). */
export function readCampaignForm(form: FormData): CampaignFormValues {
  const strings = Object.fromEntries([...form].filter(([, v]) => typeof v === "string"));
  const top = TopLevel.parse(strings);
  const cut = (value: string | undefined, max: number) => (value ?? "").slice(0, max);
  const body: PlaceholderValues[] = [];
  for (let i = 1; i <= PLACEHOLDERS_MAX && form.has(`p${i}_source`); i++) body.push(placeholder(form, `p${i}`));
  return {
    name: cut(top.name, 200),
    from: cut(top.from, 100),
    template: cut(top.template, 600),
    body,
    header: placeholder(form, "h"),
    headerFile: headerFile(form),
    buttons: buttonValues(form),
    segment: cut(top.segment, 60),
    tags: cut(top.tags, 2000),
    everyone: top.everyone === "on" || top.everyone === "yes",
    phones: cut(top.phones, 400_000),
    when: top.when === "later" ? "later" : "now",
    date: cut(top.date, 10),
    time: cut(top.time, 5),
  };
}

export const emptyCampaignForm = (): CampaignFormValues => ({
  name: "",
  from: "",
  template: "",
  body: [],
  header: { source: "", fallback: "", value: "" },
  headerFile: { link: "", mediaId: "", filename: "" },
  buttons: [],
  segment: "",
  tags: "",
  everyone: false,
  phones: "",
  when: "now",
  date: "",
  time: "",
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
  if ("value" in source) return `"${source.value}"`;
  const field = labels[source.field] ?? source.field;
  return source.fallback ? `${field}, else "${source.fallback}"` : field;
}
