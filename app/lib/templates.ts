/**
 * Message templates: the spec's words for them, Meta's rules for their content, and the conversion
 * between the create form and the `components` Meta stores. Shared by the browser (checks as you
 * type, the live preview) and the server (the same checks before any call to Meta, the public API).
 *
 * Its words are the request's language (issue 43), read when a function runs, never at load. A
 * preview's own text (what Meta writes in an authentication template, the copy-code button) is in
 * the template's language, as the customer gets it. The compiled messages are imported by a relative
 * path: the database schema imports this module, and drizzle-kit resolves no alias to them.
 */
import { m } from "../paraglide/messages";
import type { Locale } from "../paraglide/runtime";
import { intlLocale } from "./intl";

/** Spec section 3's types with the categories Meta names them by. */
export const TEMPLATE_CATEGORIES = [
  {
    value: "AUTHENTICATION",
    get type() {
      return m.templates_category_authentication_type();
    },
    get label() {
      return m.templates_category_authentication();
    },
  },
  {
    value: "UTILITY",
    get type() {
      return m.templates_category_utility_type();
    },
    get label() {
      return m.templates_category_utility();
    },
  },
  {
    value: "MARKETING",
    get type() {
      return m.templates_category_marketing_type();
    },
    get label() {
      return m.templates_category_marketing();
    },
  },
] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number]["value"];
export const CATEGORY_VALUES = TEMPLATE_CATEGORIES.map((c) => c.value) as [TemplateCategory, ...TemplateCategory[]];

/** The spec's three languages, stored as Meta's language codes. */
export const TEMPLATE_LANGUAGES = [
  {
    value: "en",
    get label() {
      return m.templates_language_en();
    },
  },
  {
    value: "sw",
    get label() {
      return m.templates_language_sw();
    },
  },
  {
    value: "fr",
    get label() {
      return m.templates_language_fr();
    },
  },
] as const;
export type TemplateLanguage = (typeof TEMPLATE_LANGUAGES)[number]["value"];
export const LANGUAGE_VALUES = TEMPLATE_LANGUAGES.map((l) => l.value) as [TemplateLanguage, ...TemplateLanguage[]];

/**
 * A template's status as Jumbe shows and the API returns it (Meta's, lowercase, plus draft, and held:
 * waiting for a platform administrator's review before it goes to Meta).
 */
export const TEMPLATE_STATUSES = ["draft", "held", "pending", "approved", "rejected", "paused", "disabled"] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

export const HEADER_FORMATS = ["NONE", "TEXT", "IMAGE", "VIDEO", "DOCUMENT"] as const;
export type HeaderFormat = (typeof HEADER_FORMATS)[number];
export const MEDIA_FORMATS = ["IMAGE", "VIDEO", "DOCUMENT"] as const;
export type MediaFormat = (typeof MEDIA_FORMATS)[number];
export const isMediaFormat = (format: string | undefined): format is MediaFormat =>
  (MEDIA_FORMATS as readonly string[]).includes(format ?? "");

const MB = 1024 * 1024;

/**
 * Jumbe's rules for a media header's sample (decision 019): Meta's types and sizes for images and
 * videos; documents are PDFs up to 16 MB (Meta takes 100 MB, but the sample travels through a form
 * post and is kept in the database, so Jumbe bounds it like a video).
 */
export const MEDIA_SAMPLES: Record<
  MediaFormat,
  { types: readonly string[]; maxBytes: number; noun: string; kinds: string; accept: string }
> = {
  IMAGE: { types: ["image/jpeg", "image/png"], maxBytes: 5 * MB, noun: "image", kinds: "JPEG or PNG", accept: "image/jpeg,image/png" },
  VIDEO: { types: ["video/mp4"], maxBytes: 16 * MB, noun: "video", kinds: "MP4", accept: "video/mp4" },
  DOCUMENT: { types: ["application/pdf"], maxBytes: 16 * MB, noun: "document", kinds: "PDF", accept: "application/pdf" },
};
/** Every type a sample may have, and the largest sample of any kind. */
export const SAMPLE_TYPES = [...new Set(Object.values(MEDIA_SAMPLES).flatMap((s) => s.types))];
export const SAMPLE_MAX_BYTES = Math.max(...Object.values(MEDIA_SAMPLES).map((s) => s.maxBytes));

/** "5 MB", "12.3 KB": a size for people. */
export function formatBytes(bytes: number) {
  if (bytes >= MB) return `${Math.round((bytes / MB) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} bytes`;
}

/** The media format whose samples have this content type. */
export function formatOfType(contentType: string): MediaFormat | undefined {
  return MEDIA_FORMATS.find((f) => MEDIA_SAMPLES[f].types.includes(contentType));
}

/** The kinds of file a sample may be, in words: "JPEG or PNG". */
export function sampleKinds(format: MediaFormat) {
  return format === "IMAGE" ? m.templates_sample_kinds_image() : MEDIA_SAMPLES[format].kinds;
}

/** What a sample file must be, for the form's hint: "JPEG or PNG, up to 5 MB". */
export function sampleHint(format: MediaFormat) {
  return m.templates_sample_hint({ kinds: sampleKinds(format), size: formatBytes(MEDIA_SAMPLES[format].maxBytes) });
}

/** The sample field's label: "Sample image". */
export function sampleLabel(format: MediaFormat) {
  if (format === "IMAGE") return m.templates_sample_label_image();
  return format === "VIDEO" ? m.templates_sample_label_video() : m.templates_sample_label_document();
}

/** A media header's sample file as the rules see it (its bytes stay on the server). */
export interface HeaderSample {
  /** Jumbe's id of a stored sample (template_media). */
  id?: string;
  fileName: string;
  contentType: string;
  size: number;
  /** Where the preview shows it from: the sample route, or an object URL in the browser. */
  url?: string;
}

/**
 * Whether a file's first bytes are those of its declared type (PNG and JPEG signatures, "%PDF",
 * an MP4's "ftyp" box): a renamed file is refused before Meta sees it. Server side, with the bytes.
 */
export function contentMatchesType(contentType: string, bytes: Uint8Array) {
  const starts = (offset: number, signature: number[]) => signature.every((b, i) => bytes[offset + i] === b);
  switch (contentType) {
    case "image/png":
      return starts(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case "image/jpeg":
      return starts(0, [0xff, 0xd8, 0xff]);
    case "application/pdf":
      return starts(0, [0x25, 0x50, 0x44, 0x46]);
    case "video/mp4":
      return starts(4, [0x66, 0x74, 0x79, 0x70]);
    default:
      return false;
  }
}

/** The message for a file whose contents are not its declared type. */
export const sampleContentProblem = (contentType: string) =>
  contentType === "application/pdf"
    ? m.templates_sample_contents_pdf()
    : contentType === "video/mp4"
      ? m.templates_sample_contents_mp4()
      : contentType === "image/png"
        ? m.templates_sample_contents_png()
        : m.templates_sample_contents_jpeg();

/** The problem with a sample for a media header, or undefined when it is fine. */
export function sampleProblem(format: MediaFormat, sample: HeaderSample | undefined): string | undefined {
  const rule = MEDIA_SAMPLES[format];
  if (!sample) {
    const hint = sampleHint(format);
    if (format === "IMAGE") return m.templates_sample_missing_image({ hint });
    return format === "VIDEO" ? m.templates_sample_missing_video({ hint }) : m.templates_sample_missing_document({ hint });
  }
  if (!rule.types.includes(sample.contentType)) {
    const kinds = sampleKinds(format);
    const type = sample.contentType;
    if (format === "IMAGE") return type ? m.templates_sample_type_image_named({ kinds, type }) : m.templates_sample_type_image({ kinds });
    if (format === "VIDEO") return type ? m.templates_sample_type_video_named({ kinds, type }) : m.templates_sample_type_video({ kinds });
    return type ? m.templates_sample_type_document_named({ kinds, type }) : m.templates_sample_type_document({ kinds });
  }
  if (sample.size <= 0) return m.templates_sample_empty();
  if (sample.size > rule.maxBytes) {
    const sizes = { size: formatBytes(sample.size), max: formatBytes(rule.maxBytes) };
    if (format === "IMAGE") return m.templates_sample_too_big_image(sizes);
    return format === "VIDEO" ? m.templates_sample_too_big_video(sizes) : m.templates_sample_too_big_document(sizes);
  }
  return undefined;
}
export const BUTTON_TYPES = ["QUICK_REPLY", "URL", "PHONE_NUMBER", "COPY_CODE", "CATALOG", "MPM"] as const;
export type ButtonType = (typeof BUTTON_TYPES)[number];
export const BUTTON_LABELS: Record<ButtonType, string> = {
  get QUICK_REPLY() {
    return m.templates_button_quick_reply();
  },
  get URL() {
    return m.templates_button_url();
  },
  get PHONE_NUMBER() {
    return m.templates_button_phone();
  },
  get COPY_CODE() {
    return m.templates_button_copy_code();
  },
  get CATALOG() {
    return m.templates_button_catalog();
  },
  get MPM() {
    return m.templates_button_mpm();
  },
};
/**
 * The buttons that show products (decision 146): CATALOG opens the catalogue, MPM a list of up to 30
 * products in sections. WhatsApp writes their labels; the products are chosen at send time.
 */
export const PRODUCT_BUTTONS = ["CATALOG", "MPM"] as const;
export type ProductButtonType = (typeof PRODUCT_BUTTONS)[number];
export const isProductButton = (type: string): type is ProductButtonType => (PRODUCT_BUTTONS as readonly string[]).includes(type);
/** The label Meta's examples give each product button (sent with the template; WhatsApp shows its own). */
export const PRODUCT_BUTTON_TEXT: Record<ProductButtonType, string> = { CATALOG: "View catalog", MPM: "View items" };
/** The products a template's product button shows. */
export type ProductButtonKind = ProductButtonType | null;
export function productButtonOf(components: unknown): ProductButtonKind {
  const list = Array.isArray(components) ? (components as Record<string, unknown>[]) : [];
  const part = list.find((c) => c && String(c.type).toUpperCase() === "BUTTONS");
  const buttons = Array.isArray(part?.buttons) ? (part.buttons as Record<string, unknown>[]) : [];
  const found = buttons.map((b) => String(b?.type).toUpperCase()).find(isProductButton);
  return found ?? null;
}
export const OTP_TYPES = ["COPY_CODE", "ONE_TAP"] as const;
export type OtpType = (typeof OTP_TYPES)[number];

/** Meta's limits (characters, counts). */
export const LIMITS = {
  name: 512,
  headerText: 60,
  body: 1024,
  footer: 60,
  buttons: 10,
  quickReplies: 10,
  urlButtons: 2,
  phoneButtons: 1,
  copyCodeButtons: 1,
  buttonText: 25,
  phone: 20,
  url: 2000,
  copyCode: 15,
  example: 200,
  expiryMinutes: { min: 1, max: 90 },
} as const;

export interface TemplateButton {
  type: ButtonType;
  text: string;
  /** URL buttons: the address, optionally ending in {{1}}. */
  url?: string;
  /** URL with {{1}}: the example value; COPY_CODE: the example code. */
  example?: string;
  /** PHONE_NUMBER: international, with +. */
  phone?: string;
}

/** The create form's values: what a person types, before it becomes Meta's components. */
export interface TemplateInput {
  name: string;
  category: TemplateCategory;
  language: TemplateLanguage;
  headerFormat: HeaderFormat;
  headerText?: string;
  headerExample?: string;
  /** IMAGE, VIDEO and DOCUMENT headers: the sample Meta reviews the template with. */
  headerSample?: HeaderSample;
  /** A media header as Meta returns it: the example's URL at Meta (templates imported by sync). */
  headerExampleUrl?: string;
  body?: string;
  /** bodyExamples[i] is the example of {{i+1}}. */
  bodyExamples: string[];
  footer?: string;
  buttons: TemplateButton[];
  /** Authentication templates: Meta writes the body ("<code> is your verification code."). */
  addSecurityRecommendation?: boolean;
  codeExpirationMinutes?: number;
  otpType?: OtpType;
  otpButtonText?: string;
  /** One-tap autofill: the Android app that receives the code. */
  packageName?: string;
  signatureHash?: string;
}

export const NAME_PATTERN = /^[a-z0-9_]+$/;
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The numbers of the `{{n}}` placeholders in order of appearance; a `{{name}}` gives NaN. */
export function placeholders(text: string | undefined): number[] {
  if (!text) return [];
  return [...text.matchAll(PLACEHOLDER)].map((match) => (/^\d+$/.test(match[1]!) ? Number(match[1]) : Number.NaN));
}

/** How many example values the text needs: its highest placeholder number. */
export function placeholderCount(text: string | undefined) {
  const numbers = placeholders(text).filter((n) => Number.isInteger(n));
  return numbers.length ? Math.max(...numbers) : 0;
}

export type Problems = Record<string, string>;

/** A variable as a template writes it: `{{1}}` (braces are never part of a message's words). */
const variable = (n: number) => `{{${n}}}`;

function checkPlaceholders(text: string, field: string, problems: Problems, options: { max?: number; edges: boolean }) {
  const found = placeholders(text);
  if (!found.length) return;
  if (found.some((n) => !Number.isInteger(n) || n < 1)) {
    problems[field] = m.templates_problem_variable_form({ first: variable(1), second: variable(2) });
    return;
  }
  if (options.max !== undefined && found.length > options.max) {
    problems[field] =
      options.max === 1
        ? m.templates_problem_header_one_variable({ variable: variable(1) })
        : m.templates_problem_variables_max({ count: options.max });
    return;
  }
  const distinct = [...new Set(found)].sort((a, b) => a - b);
  if (distinct.some((n, i) => n !== i + 1)) {
    problems[field] = m.templates_problem_variables_order({ first: variable(1), found: distinct.map(variable).join(", ") });
    return;
  }
  if (options.edges) {
    const trimmed = text.trim();
    if (/^\{\{[^{}]*\}\}/.test(trimmed)) {
      problems[field] = m.templates_problem_starts_with_variable({ variable: variable(1) });
      return;
    }
    if (/\{\{[^{}]*\}\}[.!?]?$/.test(trimmed)) {
      problems[field] = m.templates_problem_ends_with_variable();
      return;
    }
    if (/\}\}\s*\{\{/.test(text)) {
      problems[field] = m.templates_problem_adjacent_variables();
    }
  }
}

function checkExample(value: string | undefined, field: string, problems: Problems, label: string) {
  const text = (value ?? "").trim();
  if (!text) problems[field] = m.templates_problem_example_missing({ label });
  else if (text.length > LIMITS.example) problems[field] = m.templates_problem_example_long({ count: LIMITS.example });
  else if (/[\n\t]|\s{4,}/.test(value ?? "")) problems[field] = m.templates_problem_example_spacing();
}

function isHttpUrl(value: string) {
  try {
    const url = new URL(value.replace(/\{\{1\}\}$/, "x"));
    return (url.protocol === "https:" || url.protocol === "http:") && !!url.hostname.includes(".");
  } catch {
    return false;
  }
}

/**
 * Every rule Meta applies to a template's content that Jumbe can check itself, as field-named
 * messages (Conform's field names: `body`, `bodyExamples[0]`, `buttons[1].text`). Empty when fine.
 */
export function templateProblems(input: TemplateInput): Problems {
  const problems: Problems = {};
  const name = input.name ?? "";
  if (!name) problems.name = m.templates_problem_name_missing();
  else if (name.length > LIMITS.name) problems.name = m.templates_problem_name_long({ count: LIMITS.name });
  else if (!NAME_PATTERN.test(name)) problems.name = m.templates_problem_name_pattern();

  if (input.category === "AUTHENTICATION") {
    if (isMediaFormat(input.headerFormat)) problems.form = m.templates_problem_authentication_media();
    checkAuthentication(input, problems);
    return problems;
  }

  if (isMediaFormat(input.headerFormat)) {
    const problem = sampleProblem(input.headerFormat, input.headerSample);
    if (problem) problems.headerSample = problem;
  }

  if (input.headerFormat === "TEXT") {
    const header = input.headerText ?? "";
    if (!header.trim()) problems.headerText = m.templates_problem_header_missing();
    else if (header.length > LIMITS.headerText) problems.headerText = m.templates_problem_header_long({ count: LIMITS.headerText });
    else if (/[\n*_~]/.test(header)) problems.headerText = m.templates_problem_header_formatting();
    else {
      checkPlaceholders(header, "headerText", problems, { max: 1, edges: false });
      if (!problems.headerText && placeholderCount(header) === 1)
        checkExample(input.headerExample, "headerExample", problems, m.templates_example_of_header({ variable: variable(1) }));
    }
  }

  const body = input.body ?? "";
  if (!body.trim()) problems.body = m.templates_problem_body_missing();
  else if (body.length > LIMITS.body) problems.body = m.templates_problem_body_long({ count: LIMITS.body.toLocaleString(intlLocale()) });
  else {
    checkPlaceholders(body, "body", problems, { edges: true });
    if (!problems.body) {
      const count = placeholderCount(body);
      for (let i = 0; i < count; i++) checkExample(input.bodyExamples[i], `bodyExamples[${i}]`, problems, variable(i + 1));
    }
  }

  const footer = input.footer ?? "";
  if (footer.length > LIMITS.footer) problems.footer = m.templates_problem_footer_long({ count: LIMITS.footer });
  else if (placeholders(footer).length) problems.footer = m.templates_problem_footer_variables();

  checkButtons(input, problems);
  return problems;
}

function checkButtons(input: TemplateInput, problems: Problems) {
  const buttons = input.buttons ?? [];
  if (buttons.length > LIMITS.buttons) {
    problems.buttons = m.templates_problem_buttons_max({ count: LIMITS.buttons });
    return;
  }
  const count = (type: ButtonType) => buttons.filter((b) => b.type === type).length;
  if (count("QUICK_REPLY") > LIMITS.quickReplies) problems.buttons = m.templates_problem_quick_replies_max({ count: LIMITS.quickReplies });
  else if (count("URL") > LIMITS.urlButtons) problems.buttons = m.templates_problem_url_buttons_max({ count: LIMITS.urlButtons });
  else if (count("PHONE_NUMBER") > LIMITS.phoneButtons) problems.buttons = m.templates_problem_phone_buttons_max();
  else if (count("COPY_CODE") > LIMITS.copyCodeButtons) problems.buttons = m.templates_problem_copy_code_buttons_max();
  else if (count("COPY_CODE") && input.category !== "MARKETING") problems.buttons = m.templates_problem_copy_code_marketing();
  else if (buttons.some((b) => isProductButton(b.type))) checkProductButton(input, problems);
  else {
    // Quick replies sit together: QR, QR, URL is fine; QR, URL, QR is not.
    const kinds = buttons.map((b) => (b.type === "QUICK_REPLY" ? "Q" : "C")).join("");
    if (/Q+C+Q/.test(kinds) || /C+Q+C/.test(kinds)) problems.buttons = m.templates_problem_quick_replies_together();
  }
  const seen = new Set<string>();
  buttons.forEach((button, i) => {
    const at = (key: string) => `buttons[${i}].${key}`;
    const text = (button.text ?? "").trim();
    if (button.type !== "COPY_CODE" && !isProductButton(button.type)) {
      if (!text) problems[at("text")] = m.templates_problem_button_text_missing();
      else if (text.length > LIMITS.buttonText) problems[at("text")] = m.templates_problem_button_text_long({ count: LIMITS.buttonText });
      else if (placeholders(text).length) problems[at("text")] = m.templates_problem_button_text_variables();
      else if (seen.has(text.toLowerCase())) problems[at("text")] = m.templates_problem_button_text_twice();
      seen.add(text.toLowerCase());
    }
    if (button.type === "URL") {
      const url = (button.url ?? "").trim();
      if (!url) problems[at("url")] = m.templates_problem_url_missing();
      else if (url.length > LIMITS.url) problems[at("url")] = m.templates_problem_url_long({ count: LIMITS.url });
      else if (!isHttpUrl(url)) problems[at("url")] = m.templates_problem_url_invalid();
      else {
        const vars = placeholders(url);
        if (vars.length > 1 || (vars.length === 1 && (vars[0] !== 1 || !/\{\{1\}\}$/.test(url))))
          problems[at("url")] = m.templates_problem_url_variable({ variable: variable(1) });
        else if (vars.length === 1)
          checkExample(button.example, at("example"), problems, m.templates_example_of_url({ variable: variable(1) }));
      }
    }
    if (button.type === "PHONE_NUMBER") {
      const phone = (button.phone ?? "").replace(/[\s-]/g, "");
      if (!phone) problems[at("phone")] = m.templates_problem_phone_missing();
      else if (!/^\+[1-9]\d{6,18}$/.test(phone) || phone.length > LIMITS.phone) problems[at("phone")] = m.templates_problem_phone_invalid();
    }
    if (button.type === "COPY_CODE") {
      const code = (button.example ?? "").trim();
      if (!code) problems[at("example")] = m.templates_problem_offer_code_missing();
      else if (code.length > LIMITS.copyCode) problems[at("example")] = m.templates_problem_offer_code_long({ count: LIMITS.copyCode });
      else if (/\s/.test(code)) problems[at("example")] = m.templates_problem_offer_code_spaces();
    }
  });
}

/**
 * Meta's rules for catalog and multi-product templates: Marketing, the product button alone, and the
 * header WhatsApp draws itself for a catalog (the thumbnail product) or the text header an MPM needs.
 */
function checkProductButton(input: TemplateInput, problems: Problems) {
  if (input.category !== "MARKETING") problems.buttons = m.templates_problem_product_button_marketing();
  else if (input.buttons.length > 1) problems.buttons = m.templates_problem_product_button_alone();
  else if (input.buttons[0]!.type === "CATALOG" && input.headerFormat !== "NONE")
    problems.headerFormat = m.templates_problem_catalog_header();
  else if (input.buttons[0]!.type === "MPM" && input.headerFormat !== "TEXT") problems.headerFormat = m.templates_problem_mpm_header();
}

function checkAuthentication(input: TemplateInput, problems: Problems) {
  const minutes = input.codeExpirationMinutes;
  if (minutes !== undefined && (!Number.isInteger(minutes) || minutes < LIMITS.expiryMinutes.min || minutes > LIMITS.expiryMinutes.max))
    problems.codeExpirationMinutes = m.templates_problem_expiry_range({ min: LIMITS.expiryMinutes.min, max: LIMITS.expiryMinutes.max });
  const text = (input.otpButtonText ?? "").trim();
  if (!text) problems.otpButtonText = m.templates_problem_otp_button_missing();
  else if (text.length > LIMITS.buttonText) problems.otpButtonText = m.templates_problem_button_text_long({ count: LIMITS.buttonText });
  if (input.otpType === "ONE_TAP") {
    if (!/^[a-zA-Z][\w]*(\.[a-zA-Z][\w]*)+$/.test(input.packageName ?? "")) problems.packageName = m.templates_problem_package_name();
    if (!/^[A-Za-z0-9+/]{11}$/.test(input.signatureHash ?? "")) problems.signatureHash = m.templates_problem_signature_hash();
  }
}

/**
 * Meta's `components` for a checked template (Meta's create request and what its API returns). A
 * media header carries its sample's upload handle when given (at submission); a draft's has none.
 */
export function toMetaComponents(input: TemplateInput, headerHandle?: string): Record<string, unknown>[] {
  if (input.category === "AUTHENTICATION") {
    const button: Record<string, unknown> = {
      type: "OTP",
      otp_type: input.otpType ?? "COPY_CODE",
      text: input.otpButtonText?.trim() || "Copy code",
    };
    if (input.otpType === "ONE_TAP") button.supported_apps = [{ package_name: input.packageName, signature_hash: input.signatureHash }];
    const components: Record<string, unknown>[] = [{ type: "BODY", add_security_recommendation: !!input.addSecurityRecommendation }];
    if (input.codeExpirationMinutes) components.push({ type: "FOOTER", code_expiration_minutes: input.codeExpirationMinutes });
    components.push({ type: "BUTTONS", buttons: [button] });
    return components;
  }
  const components: Record<string, unknown>[] = [];
  if (input.headerFormat === "TEXT" && input.headerText) {
    const header: Record<string, unknown> = { type: "HEADER", format: "TEXT", text: input.headerText };
    if (placeholderCount(input.headerText)) header.example = { header_text: [input.headerExample?.trim() ?? ""] };
    components.push(header);
  }
  if (isMediaFormat(input.headerFormat))
    components.push(
      headerHandle
        ? { type: "HEADER", format: input.headerFormat, example: { header_handle: [headerHandle] } }
        : { type: "HEADER", format: input.headerFormat },
    );
  const body: Record<string, unknown> = { type: "BODY", text: input.body ?? "" };
  const count = placeholderCount(input.body);
  if (count) body.example = { body_text: [input.bodyExamples.slice(0, count).map((v) => v.trim())] };
  components.push(body);
  if (input.footer?.trim()) components.push({ type: "FOOTER", text: input.footer.trim() });
  if (input.buttons.length)
    components.push({
      type: "BUTTONS",
      buttons: input.buttons.map((b) => {
        if (b.type === "URL") {
          const url = (b.url ?? "").trim();
          return placeholderCount(url)
            ? { type: "URL", text: b.text.trim(), url, example: [b.example?.trim() ?? ""] }
            : { type: "URL", text: b.text.trim(), url };
        }
        if (b.type === "PHONE_NUMBER")
          return { type: "PHONE_NUMBER", text: b.text.trim(), phone_number: (b.phone ?? "").replace(/[\s-]/g, "") };
        if (b.type === "COPY_CODE") return { type: "COPY_CODE", example: (b.example ?? "").trim() };
        if (isProductButton(b.type)) return { type: b.type, text: PRODUCT_BUTTON_TEXT[b.type] };
        return { type: "QUICK_REPLY", text: b.text.trim() };
      }),
    });
  return components;
}

type Component = Record<string, unknown>;
const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/** The form's values from Meta's components: to copy, edit or preview a template made anywhere. */
export function inputFromMeta(meta: { name: string; category: string; language: string; components: unknown }): TemplateInput {
  const components = Array.isArray(meta.components) ? (meta.components.filter((c) => c && typeof c === "object") as Component[]) : [];
  const find = (type: string) => components.find((c) => String(c.type).toUpperCase() === type);
  const header = find("HEADER");
  const body = find("BODY");
  const footer = find("FOOTER");
  const buttonsPart = find("BUTTONS");
  const rawButtons = Array.isArray(buttonsPart?.buttons) ? (buttonsPart.buttons as Component[]) : [];
  const category = (CATEGORY_VALUES as readonly string[]).includes(meta.category) ? (meta.category as TemplateCategory) : "UTILITY";
  const language = (LANGUAGE_VALUES as readonly string[]).includes(meta.language) ? (meta.language as TemplateLanguage) : "en";
  const bodyExample = (body?.example as { body_text?: unknown } | undefined)?.body_text;
  const otp = rawButtons.find((b) => String(b.type).toUpperCase() === "OTP");
  const apps = Array.isArray(otp?.supported_apps) ? (otp.supported_apps as Component[]) : [];
  const headerFormat = String(header?.format ?? "").toUpperCase();
  const handle = ((header?.example as { header_handle?: unknown[] } | undefined)?.header_handle ?? [])[0];
  return {
    name: meta.name,
    category,
    language,
    headerFormat: header && (headerFormat === "TEXT" || isMediaFormat(headerFormat)) ? (headerFormat as HeaderFormat) : "NONE",
    headerExampleUrl: typeof handle === "string" && /^https?:\/\//.test(handle) ? handle : undefined,
    headerText: str(header?.text),
    headerExample: str(((header?.example as { header_text?: unknown[] } | undefined)?.header_text ?? [])[0]),
    body: str(body?.text),
    bodyExamples: Array.isArray(bodyExample) && Array.isArray(bodyExample[0]) ? (bodyExample[0] as unknown[]).map((v) => String(v)) : [],
    footer: str(footer?.text),
    buttons: rawButtons
      .filter((b) => (BUTTON_TYPES as readonly string[]).includes(String(b.type).toUpperCase()))
      .map((b) => ({
        type: String(b.type).toUpperCase() as ButtonType,
        text: str(b.text) ?? "",
        url: str(b.url),
        phone: str(b.phone_number),
        example: Array.isArray(b.example) ? String(b.example[0] ?? "") : str(b.example),
      })),
    addSecurityRecommendation: body?.add_security_recommendation === true,
    codeExpirationMinutes: typeof footer?.code_expiration_minutes === "number" ? footer.code_expiration_minutes : undefined,
    otpType: str(otp?.otp_type) === "ONE_TAP" ? "ONE_TAP" : "COPY_CODE",
    otpButtonText: str(otp?.text),
    packageName: str(apps[0]?.package_name),
    signatureHash: str(apps[0]?.signature_hash),
  };
}

/** What a template looks like in WhatsApp, with `values` put into its variables (examples otherwise). */
export interface RenderedTemplate {
  header?: string;
  /** A media header: the sample to show (src), or a placeholder of its kind. */
  media?: { format: MediaFormat; src?: string; fileName?: string };
  body: string;
  footer?: string;
  buttons: { type: string; text: string; detail?: string }[];
}

/** The variables a preview asks for: `header.1`, `body.1`... and `button.<i>` for a URL's {{1}}. */
export function templateVariables(input: TemplateInput): { key: string; label: string; example: string }[] {
  const list: { key: string; label: string; example: string }[] = [];
  if (input.category === "AUTHENTICATION") return [{ key: "body.1", label: m.templates_variable_code(), example: "482913" }];
  if (input.headerFormat === "TEXT" && placeholderCount(input.headerText))
    list.push({ key: "header.1", label: m.templates_variable_header({ variable: variable(1) }), example: input.headerExample ?? "" });
  for (let i = 0; i < placeholderCount(input.body); i++)
    list.push({
      key: `body.${i + 1}`,
      label: m.templates_variable_body({ variable: variable(i + 1) }),
      example: input.bodyExamples[i] ?? "",
    });
  input.buttons.forEach((b, i) => {
    if (b.type === "URL" && placeholderCount(b.url))
      list.push({ key: `button.${i}`, label: `${b.text || m.templates_variable_website()} ${variable(1)}`, example: b.example ?? "" });
  });
  return list;
}

function fill(text: string, prefix: string, values: Record<string, string>, input: TemplateInput) {
  return text.replace(PLACEHOLDER, (whole, inner: string) => {
    const value = values[`${prefix}.${inner}`];
    if (value) return value;
    const example = templateVariables(input).find((v) => v.key === `${prefix}.${inner}`)?.example;
    return example || whole;
  });
}

export function renderTemplate(input: TemplateInput, values: Record<string, string> = {}): RenderedTemplate {
  // What Meta writes, as the customer reads it: in the template's language.
  const locale = { locale: (LANGUAGE_VALUES as readonly string[]).includes(input.language) ? input.language : "en" } as const;
  if (input.category === "AUTHENTICATION") {
    const code = values["body.1"] || "482913";
    const body = m.templates_preview_code_body({ code }, locale);
    return {
      body: input.addSecurityRecommendation ? `${body} ${m.templates_preview_code_security({}, locale)}` : body,
      footer: input.codeExpirationMinutes ? m.templates_preview_code_expiry({ minutes: input.codeExpirationMinutes }, locale) : undefined,
      buttons: [{ type: "OTP", text: input.otpButtonText || "Copy code" }],
    };
  }
  return {
    header: input.headerFormat === "TEXT" && input.headerText ? fill(input.headerText, "header", values, input) : undefined,
    media: isMediaFormat(input.headerFormat)
      ? { format: input.headerFormat, src: input.headerSample?.url, fileName: input.headerSample?.fileName }
      : undefined,
    body: fill(input.body ?? "", "body", values, input),
    footer: input.footer?.trim() || undefined,
    buttons: input.buttons.map((b, i) => ({
      type: b.type,
      text: previewButtonText(b, locale),
      detail:
        b.type === "URL"
          ? (b.url ?? "").replace("{{1}}", values[`button.${i}`] || b.example || "{{1}}")
          : b.type === "PHONE_NUMBER"
            ? b.phone
            : b.type === "COPY_CODE"
              ? b.example
              : undefined,
    })),
  };
}

function previewButtonText(b: TemplateButton, locale: { locale: Locale }) {
  if (b.type === "COPY_CODE") return m.templates_preview_copy_offer_code({}, locale);
  if (b.type === "CATALOG") return m.templates_preview_view_catalog({}, locale);
  return b.type === "MPM" ? m.templates_preview_view_items({}, locale) : b.text;
}

export function categoryLabel(category: string) {
  return TEMPLATE_CATEGORIES.find((c) => c.value === category)?.label ?? category;
}
/** A template's language in words, in the request's language or the one asked for (the activity log keeps English). */
export function languageLabel(language: string, locale?: Locale) {
  const options = locale ? { locale } : {};
  if (language === "en") return m.templates_language_en({}, options);
  if (language === "sw") return m.templates_language_sw({}, options);
  return language === "fr" ? m.templates_language_fr({}, options) : language;
}

/** A status in words: "Held for review" for held (Jumbe reviews it before Meta does), else the status capitalised. */
export const TEMPLATE_STATUS_LABELS: Record<TemplateStatus, string> = {
  get draft() {
    return m.templates_status_draft();
  },
  get held() {
    return m.templates_status_held();
  },
  get pending() {
    return m.templates_status_pending();
  },
  get approved() {
    return m.templates_status_approved();
  },
  get rejected() {
    return m.templates_status_rejected();
  },
  get paused() {
    return m.templates_status_paused();
  },
  get disabled() {
    return m.templates_status_disabled();
  },
};

export function templateStatusLabel(status: string) {
  return TEMPLATE_STATUS_LABELS[status as TemplateStatus] ?? status;
}

/** The badge tone of a status: held is "info" (waiting on Jumbe, not a problem), the others as the kit picks them. */
export function templateStatusTone(status: string): "success" | "warning" | "danger" | "neutral" | "info" {
  switch (status) {
    case "approved":
      return "success";
    case "pending":
    case "paused":
      return "warning";
    case "rejected":
    case "disabled":
      return "danger";
    case "held":
      return "info";
    default:
      return "neutral";
  }
}

/** What the tenant is told about a held template. */
export const heldExplanation = () => m.templates_held_explanation();

/** A status as the tenant's pages write it in a badge: lowercase, like Meta's ("approved", "held for review"). */
export function templateStatusWord(status: string) {
  return templateStatusLabel(status).toLowerCase();
}
