/**
 * Meta's checks on a message template's content, as documented (templates overview, components,
 * error codes). A failed check throws TemplateRuleError: the Graph routes answer it as Meta's
 * error envelope (400, code 100), the programmatic interface as a readable Error.
 */

import type { ParameterFormat, TemplateCategory } from "./types";

export const TEMPLATE_CATEGORIES: readonly TemplateCategory[] = ["MARKETING", "UTILITY", "AUTHENTICATION"];
const PARAMETER_FORMATS: readonly ParameterFormat[] = ["POSITIONAL", "NAMED"];

/** A component as stored and returned: the request's object with `type`, `format` and button types upper-cased. */
export type TemplateComponent = Record<string, unknown>;

/** Meta's supported template languages (codes are case-sensitive and use an underscore). */
// prettier-ignore
export const TEMPLATE_LANGUAGES: ReadonlySet<string> = new Set([
  "af", "sq", "ar", "ar_EG", "az", "bn", "bg", "ca", "zh_CN", "zh_HK", "zh_TW", "hr", "cs", "da", "nl", "nl_BE", "en", "en_GB",
  "en_GH", "en_US", "et", "fil", "fi", "fr", "ka", "de", "el", "gu", "ha", "he", "hi", "hu", "id", "ga", "it", "ja", "kn", "kk",
  "rw_RW", "ko", "ky_KG", "lo", "lv", "lt", "mk", "ms", "ml", "mr", "nb", "fa", "pl", "pt_BR", "pt_PT", "pa", "ro", "ru", "sr",
  "sk", "sl", "es", "es_AR", "es_ES", "es_MX", "sw", "sv", "ta", "te", "th", "tr", "uk", "ur", "uz", "vi", "zu",
]);

/** Subcodes from Meta's error-code reference ("Template creation errors") and the template guides. */
export const SUBCODE = {
  statusCannotChange: 2388039,
  characterLimit: 2388040,
  headerFormat: 2388047,
  bodyFormat: 2388072,
  footerFormat: 2388073,
  nameBeingDeleted: 2388023,
  languageExists: 2388024,
} as const;

export class TemplateRuleError extends Error {
  constructor(
    /** error_user_title */
    readonly title: string,
    /** error_user_msg */
    readonly userMsg: string,
    readonly subcode?: number,
    /** The envelope's `message`. */
    message = "Invalid parameter",
  ) {
    super(message);
  }
}

const invalid = (title: string, userMsg: string, subcode?: number) => new TemplateRuleError(title, userMsg, subcode);

export const requiredParameter = (name: string) =>
  new TemplateRuleError(
    "Missing parameter",
    `The request needs the ${name} parameter.`,
    undefined,
    `(#100) The parameter ${name} is required`,
  );

const LIMITS = { name: 512, header: 60, body: 1024, footer: 60, buttons: 10, buttonText: 25, phone: 20, url: 2000, copyCode: 15 };
const BUTTON_CAPS: Record<string, number> = { URL: 2, PHONE_NUMBER: 1, COPY_CODE: 1, OTP: 1 };
const BUTTON_TYPES = ["QUICK_REPLY", "URL", "PHONE_NUMBER", "COPY_CODE", "OTP", "FLOW", "MPM", "CATALOG", "VOICE_CALL"];
const HEADER_FORMATS = ["TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION"];
const OTP_TYPES = ["COPY_CODE", "ONE_TAP", "ZERO_TAP"];
const LABELLED = ["QUICK_REPLY", "URL", "PHONE_NUMBER", "FLOW", "VOICE_CALL"];

export function checkName(name: string | undefined): string {
  if (name === undefined || name === "") throw requiredParameter("name");
  if (name.length > LIMITS.name || !/^[a-z0-9_]+$/.test(name))
    throw invalid(
      "Invalid template name",
      `"${name.slice(0, 80)}" is not a valid template name: use lowercase letters, numbers and underscores, at most ${LIMITS.name} characters.`,
    );
  return name;
}

export function checkLanguage(language: string | undefined): string {
  if (language === undefined || language === "") throw requiredParameter("language");
  if (!TEMPLATE_LANGUAGES.has(language))
    throw invalid(
      "Language not supported",
      `"${language.slice(0, 40)}" is not a template language code (for example en, en_US, en_GB, sw, fr; codes are case-sensitive and use an underscore).`,
    );
  return language;
}

/** The category, upper-cased (Meta's own examples sometimes send "utility"). */
export function checkCategory(category: string | undefined): TemplateCategory {
  if (category === undefined || category === "") throw requiredParameter("category");
  const upper = category.toUpperCase();
  if (!(TEMPLATE_CATEGORIES as readonly string[]).includes(upper))
    throw new TemplateRuleError(
      "Invalid category",
      `A template's category is MARKETING, UTILITY or AUTHENTICATION; got "${category.slice(0, 40)}".`,
      undefined,
      `(#100) Param category must be one of {${TEMPLATE_CATEGORIES.join(", ")}} - got "${category.slice(0, 40)}".`,
    );
  return upper as TemplateCategory;
}

export function checkParameterFormat(format: string | undefined): ParameterFormat {
  if (format === undefined || format === "") return "POSITIONAL";
  const upper = format.toUpperCase();
  if (!(PARAMETER_FORMATS as readonly string[]).includes(upper))
    throw new TemplateRuleError(
      "Invalid parameter format",
      `parameter_format is positional or named; got "${format.slice(0, 40)}".`,
      undefined,
      `(#100) Param parameter_format must be one of {POSITIONAL, NAMED} - got "${format.slice(0, 40)}".`,
    );
  return upper as ParameterFormat;
}

// ---- components -------------------------------------------------------------------------------

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === "object" && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" ? value : undefined);
const upper = (value: unknown) => (typeof value === "string" ? value.toUpperCase() : value);

/** The insides of every {{…}} in the text, in order. */
export function placeholdersOf(value: string): string[] {
  return [...value.matchAll(/\{\{([^{}]*)\}\}/g)].map((m) => m[1]!);
}

/**
 * The distinct parameters of a text, checked against the format: positional ones must be {{1}}…{{n}}
 * with none missing, named ones lowercase letters, digits and underscores.
 */
function parametersOf(value: string, format: ParameterFormat, where: string, subcode: number): string[] {
  const found = [...new Set(placeholdersOf(value))];
  if (format === "NAMED") {
    const bad = found.find((p) => !/^[a-z][a-z0-9_]*$/.test(p));
    if (bad !== undefined)
      throw invalid(
        "Invalid parameter name",
        `The ${where} has the parameter {{${bad}}}: named parameters are lowercase letters, numbers and underscores, starting with a letter.`,
        subcode,
      );
    return found;
  }
  const numbers = found.map((p) => (/^[1-9]\d*$/.test(p) ? Number(p) : NaN));
  const sorted = [...numbers].sort((a, b) => a - b);
  if (sorted.some((n, i) => n !== i + 1))
    throw invalid(
      "Parameters are not numbered in order",
      `The ${where}'s parameters must be numbered {{1}}, {{2}} and so on without gaps; it has ${found.map((p) => `{{${p}}}`).join(", ")}.`,
      subcode,
    );
  return sorted.map(String);
}

const missingExamples = (where: string, field: string, subcode?: number) =>
  invalid(
    "Sample values missing",
    `The ${where} has parameters, so it needs a sample value for each of them in example.${field}.`,
    subcode,
  );

const nonEmptyStrings = (value: unknown, count: number) =>
  Array.isArray(value) && value.length === count && value.every((v) => typeof v === "string" && v.trim() !== "");

/** Named parameters' samples: `[{param_name, example}]` naming exactly the parameters, each once. */
function checkNamedExamples(value: unknown, names: string[], where: string, field: string, subcode: number) {
  const given = Array.isArray(value) ? value : [];
  const ok =
    given.length === names.length &&
    given.every((e) => isObject(e) && typeof e.example === "string" && e.example.trim() !== "") &&
    names.every((n) => given.some((e) => isObject(e) && e.param_name === n));
  if (!ok) throw missingExamples(where, field, subcode);
}

function tooLong(where: string, length: number, limit: number) {
  return invalid("Character limit exceeded", `The ${where} is ${length} characters long; the limit is ${limit}.`, SUBCODE.characterLimit);
}

/**
 * A media header's sample handle → the example URL Meta stores in its place, or undefined for a
 * handle the Resumable Upload API never issued. Absent: any handle goes (Business Manager).
 */
export type HandleResolver = (handle: string) => string | undefined;

function checkHeader(c: TemplateComponent, format: ParameterFormat, handles?: HandleResolver) {
  const kind = upper(c.format);
  if (typeof kind !== "string" || !HEADER_FORMATS.includes(kind))
    throw invalid("Message header format is incorrect", `A HEADER's format is one of ${HEADER_FORMATS.join(", ")}.`, SUBCODE.headerFormat);
  c.format = kind;
  const example = isObject(c.example) ? c.example : {};
  if (kind === "LOCATION") return;
  if (kind !== "TEXT") {
    const given = example.header_handle;
    if (!Array.isArray(given) || !nonEmptyStrings(given, Math.max(1, given.length)))
      throw invalid(
        "Sample media missing",
        `A ${kind} header needs a sample in example.header_handle: one handle from the Resumable Upload API.`,
        SUBCODE.headerFormat,
      );
    if (!handles) return;
    if (given.length !== 1)
      throw invalid("Invalid sample media", `A ${kind} header takes one handle in example.header_handle.`, SUBCODE.headerFormat);
    const url = handles(given[0] as string);
    if (!url)
      throw invalid(
        "Invalid sample media",
        `The handle in example.header_handle was not issued by the Resumable Upload API for this app. Upload the sample with POST /{app-id}/uploads and use the "h" it answers.`,
        SUBCODE.headerFormat,
      );
    c.example = { ...example, header_handle: [url] };
    return;
  }
  const value = text(c.text);
  if (!value) throw invalid("Message header format is incorrect", "A TEXT header needs its text.", SUBCODE.headerFormat);
  if (value.length > LIMITS.header) throw tooLong("header text", value.length, LIMITS.header);
  const params = parametersOf(value, format, "header", SUBCODE.headerFormat);
  if (params.length > 1)
    throw invalid("Message header format is incorrect", "A header text can have one parameter at most.", SUBCODE.headerFormat);
  if (params.length === 0) return;
  if (format === "NAMED")
    checkNamedExamples(example.header_text_named_params, params, "header", "header_text_named_params", SUBCODE.headerFormat);
  else if (!nonEmptyStrings(example.header_text, 1)) throw missingExamples("header", "header_text", SUBCODE.headerFormat);
}

function checkBody(c: TemplateComponent, format: ParameterFormat, category: string) {
  if (category === "AUTHENTICATION") {
    if (c.text !== undefined)
      throw invalid(
        "Message body format is incorrect",
        "Authentication templates have WhatsApp's preset body text: send add_security_recommendation, not text.",
        SUBCODE.bodyFormat,
      );
    if (c.add_security_recommendation !== undefined && typeof c.add_security_recommendation !== "boolean")
      throw invalid("Message body format is incorrect", "add_security_recommendation is true or false.", SUBCODE.bodyFormat);
    return;
  }
  const value = text(c.text);
  if (!value || !value.trim()) throw invalid("Message body format is incorrect", "The BODY needs its text.", SUBCODE.bodyFormat);
  if (value.length > LIMITS.body) throw tooLong("body text", value.length, LIMITS.body);
  const params = parametersOf(value, format, "body", SUBCODE.bodyFormat);
  if (params.length === 0) return;
  const example = isObject(c.example) ? c.example : {};
  if (format === "NAMED") {
    checkNamedExamples(example.body_text_named_params, params, "body", "body_text_named_params", SUBCODE.bodyFormat);
    return;
  }
  const rows = example.body_text;
  if (!Array.isArray(rows) || !nonEmptyStrings(rows[0], params.length))
    throw missingExamples("body", `body_text (one list of ${params.length} sample${params.length === 1 ? "" : "s"})`, SUBCODE.bodyFormat);
}

function checkFooter(c: TemplateComponent, category: string) {
  if (category === "AUTHENTICATION") {
    const minutes = c.code_expiration_minutes;
    if (c.text !== undefined)
      throw invalid(
        "Message footer format is incorrect",
        "Authentication templates have WhatsApp's preset footer: send code_expiration_minutes, not text.",
        SUBCODE.footerFormat,
      );
    if (minutes !== undefined && !(Number.isInteger(minutes) && (minutes as number) >= 1 && (minutes as number) <= 90))
      throw invalid("Message footer format is incorrect", "code_expiration_minutes is a whole number from 1 to 90.", SUBCODE.footerFormat);
    return;
  }
  const value = text(c.text);
  if (!value || !value.trim()) throw invalid("Message footer format is incorrect", "A FOOTER needs its text.", SUBCODE.footerFormat);
  if (value.length > LIMITS.footer) throw tooLong("footer text", value.length, LIMITS.footer);
  if (placeholdersOf(value).length > 0)
    throw invalid("Message footer format is incorrect", "A footer can't have parameters.", SUBCODE.footerFormat);
}

function checkButton(b: Record<string, unknown>, index: number, category: string) {
  const kind = upper(b.type);
  const where = `button ${index + 1}`;
  if (typeof kind !== "string" || !BUTTON_TYPES.includes(kind))
    throw invalid("Invalid button", `The ${where}'s type is one of ${BUTTON_TYPES.join(", ")}.`);
  b.type = kind;
  if ((kind === "OTP") !== (category === "AUTHENTICATION"))
    throw invalid(
      "Invalid button",
      kind === "OTP"
        ? "OTP buttons belong to AUTHENTICATION templates only."
        : `AUTHENTICATION templates take one OTP button, not ${kind}.`,
    );
  const label = text(b.text);
  // COPY_CODE, OTP, MPM and CATALOG buttons may leave their label to WhatsApp.
  if (LABELLED.includes(kind) && !label) throw invalid("Invalid button", `The ${where} needs its text.`);
  if (label && label.length > LIMITS.buttonText) throw tooLong(`${where}'s text`, label.length, LIMITS.buttonText);
  if (kind === "URL") checkUrlButton(b, where);
  if (kind === "PHONE_NUMBER") {
    const phone = text(b.phone_number);
    if (!phone) throw invalid("Invalid button", `The ${where} needs its phone_number.`);
    if (phone.length > LIMITS.phone) throw tooLong(`${where}'s phone number`, phone.length, LIMITS.phone);
  }
  if (kind === "COPY_CODE") {
    const sample = text(b.example);
    if (!sample) throw invalid("Sample values missing", `The ${where} (COPY_CODE) needs a sample code in example.`);
    if (sample.length > LIMITS.copyCode) throw tooLong(`${where}'s sample code`, sample.length, LIMITS.copyCode);
  }
  if (kind === "OTP") checkOtpButton(b, where);
}

function checkUrlButton(b: Record<string, unknown>, where: string) {
  const url = text(b.url);
  if (!url || !/^https?:\/\/\S+$/i.test(url)) throw invalid("Invalid button", `The ${where} needs an http(s) url.`);
  if (url.length > LIMITS.url) throw tooLong(`${where}'s url`, url.length, LIMITS.url);
  const params = placeholdersOf(url);
  if (params.length === 0) return;
  if (params.length > 1 || params[0] !== "1" || !url.endsWith("{{1}}"))
    throw invalid("Invalid button", `A URL button can have one parameter, {{1}}, at the end of its url.`);
  if (!nonEmptyStrings(b.example, 1)) throw missingExamples(where, "example (a list with one sample)");
}

function checkOtpButton(b: Record<string, unknown>, where: string) {
  const kind = upper(b.otp_type);
  if (typeof kind !== "string" || !OTP_TYPES.includes(kind))
    throw invalid("Invalid button", `The ${where}'s otp_type is one of ${OTP_TYPES.join(", ")}.`);
  b.otp_type = kind;
  if (kind === "COPY_CODE") return;
  const apps = Array.isArray(b.supported_apps) && b.supported_apps.length > 0;
  if (!apps && !(text(b.package_name) && text(b.signature_hash)))
    throw invalid("Invalid button", `A ${kind} button needs the app's package_name and signature_hash (or supported_apps).`);
}

function checkButtons(c: TemplateComponent, category: string) {
  const buttons = c.buttons;
  if (!Array.isArray(buttons) || buttons.length === 0) throw invalid("Invalid button", "A BUTTONS component needs a list of buttons.");
  if (buttons.length > LIMITS.buttons)
    throw invalid("Too many buttons", `A template can have ${LIMITS.buttons} buttons at most; this one has ${buttons.length}.`);
  buttons.forEach((b, i) => {
    if (!isObject(b)) throw invalid("Invalid button", `Button ${i + 1} is not an object.`);
    checkButton(b, i, category);
  });
  const kinds = buttons.map((b) => (b as Record<string, unknown>).type as string);
  for (const [kind, cap] of Object.entries(BUTTON_CAPS)) {
    const count = kinds.filter((k) => k === kind).length;
    if (count > cap) throw invalid("Too many buttons", `A template can have ${cap} ${kind} button${cap === 1 ? "" : "s"} at most.`);
  }
  const first = kinds.indexOf("QUICK_REPLY");
  const last = kinds.lastIndexOf("QUICK_REPLY");
  if (first >= 0 && kinds.slice(first, last + 1).some((k) => k !== "QUICK_REPLY"))
    throw invalid("Buttons are not grouped", "Quick reply buttons must come together, before or after the other buttons.");
}

/**
 * Catalog and multi-product (MPM) templates, as Meta's guides describe them: MARKETING only, the
 * CATALOG or MPM button alone in BUTTONS; a catalog has no HEADER (WhatsApp shows the thumbnail
 * product's picture), an MPM needs a TEXT header.
 */
function checkProductTemplate(components: TemplateComponent[], category: string) {
  const buttons = components.find((c) => c.type === "BUTTONS")?.buttons;
  const kinds = Array.isArray(buttons) ? buttons.map((b) => (isObject(b) ? upper(b.type) : undefined)) : [];
  const kind = kinds.find((k) => k === "CATALOG" || k === "MPM");
  if (kind === undefined) return;
  const what = kind === "CATALOG" ? "Catalog templates" : "Multi-product templates";
  if (category !== "MARKETING") throw invalid("Invalid button", `${what} are MARKETING templates; this one is ${category}.`);
  if (kinds.length > 1) throw invalid("Invalid button", `${what} have one button, the ${kind} button, and no other.`);
  const header = components.find((c) => c.type === "HEADER");
  if (kind === "CATALOG" && header)
    throw invalid(
      "Message header format is incorrect",
      "Catalog templates have no HEADER: WhatsApp shows the thumbnail product's image.",
      SUBCODE.headerFormat,
    );
  if (kind === "MPM" && (!header || upper(header.format) !== "TEXT"))
    throw invalid("Message header format is incorrect", "Multi-product templates need a TEXT header.", SUBCODE.headerFormat);
}

/**
 * Checks the components for the category and format and returns a normalised copy (component,
 * header format, button and OTP types upper-cased; everything else as sent).
 */
export function checkComponents(
  input: unknown,
  category: TemplateCategory,
  format: ParameterFormat,
  handles?: HandleResolver,
): TemplateComponent[] {
  if (input === undefined || input === null || input === "") throw requiredParameter("components");
  if (!Array.isArray(input) || input.length === 0 || !input.every(isObject))
    throw new TemplateRuleError(
      "Invalid components",
      "components is a list of objects: HEADER, BODY, FOOTER and BUTTONS.",
      undefined,
      "(#100) Param components must be an array of objects",
    );
  const components = structuredClone(input) as TemplateComponent[];
  const seen = new Set<string>();
  for (const c of components) {
    const kind = upper(c.type);
    if (typeof kind !== "string" || !["HEADER", "BODY", "FOOTER", "BUTTONS"].includes(kind))
      throw invalid("Invalid component", `A component's type is HEADER, BODY, FOOTER or BUTTONS; got "${String(c.type).slice(0, 40)}".`);
    if (seen.has(kind)) throw invalid("Invalid component", `A template has one ${kind} at most.`);
    seen.add(kind);
    c.type = kind;
  }
  if (!seen.has("BODY")) throw invalid("Message template body missing", "Every message template needs a BODY component.");
  if (category === "AUTHENTICATION" && seen.has("HEADER")) throw invalid("Invalid component", "Authentication templates have no HEADER.");
  if (category === "AUTHENTICATION" && !seen.has("BUTTONS"))
    throw invalid("Invalid button", "Authentication templates need a BUTTONS component with one OTP button.");
  checkProductTemplate(components, category);
  for (const c of components) {
    if (c.type === "HEADER") checkHeader(c, format, handles);
    else if (c.type === "BODY") checkBody(c, format, category);
    else if (c.type === "FOOTER") checkFooter(c, category);
    else checkButtons(c, category);
  }
  return components;
}
