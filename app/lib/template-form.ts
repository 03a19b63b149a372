import {
  BUTTON_TYPES,
  CATEGORY_VALUES,
  HEADER_FORMATS,
  LANGUAGE_VALUES,
  LIMITS,
  OTP_TYPES,
  isMediaFormat,
  placeholderCount,
  type HeaderSample,
  type TemplateButton,
  type TemplateInput,
} from "./templates";

/** Where the form's fields are read from: the posted FormData, or the object Conform parsed it into. */
export interface FieldSource {
  get(key: string): unknown;
  getAll(key: string): unknown[];
}

/**
 * Conform's parsed payload read like a FormData: `buttons[0].text` is `payload.buttons[0].text`,
 * and a name posted several times (the body's examples) is an array.
 */
export function payloadFields(payload: Record<string, unknown>): FieldSource {
  const get = (key: string) =>
    (key.match(/[^.[\]]+/g) ?? []).reduce<unknown>(
      (value, segment) => (value !== null && typeof value === "object" ? (value as Record<string, unknown>)[segment] : undefined),
      payload,
    );
  return {
    get: (key) => {
      const value = get(key);
      return Array.isArray(value) ? value[0] : value;
    },
    getAll: (key) => {
      const value = get(key);
      return value === undefined ? [] : Array.isArray(value) ? value : [value];
    },
  };
}

/**
 * The create form's fields as a TemplateInput: the same reading in the browser (live preview, the
 * checks before sending) and on the server. Button rows are `buttons[i].type`, `buttons[i].text`...
 * and `buttonCount` says how many rows the form had; unknown values fall back to the first choice.
 */
export function readTemplateForm(form: FieldSource): TemplateInput {
  const text = (key: string, max = 4096) => {
    const value = form.get(key);
    return typeof value === "string" ? value.slice(0, max) : "";
  };
  const pick = <T extends string>(key: string, allowed: readonly T[]) => {
    const value = text(key, 64);
    return (allowed as readonly string[]).includes(value) ? (value as T) : allowed[0]!;
  };
  const rows = Math.max(0, Math.min(LIMITS.buttons + 1, Number.parseInt(text("buttonCount", 4), 10) || 0));
  const buttons: TemplateButton[] = [];
  for (let i = 0; i < rows; i++) {
    const type = text(`buttons[${i}].type`, 32);
    if (!(BUTTON_TYPES as readonly string[]).includes(type)) continue;
    buttons.push({
      type: type as TemplateButton["type"],
      text: text(`buttons[${i}].text`, 200),
      url: text(`buttons[${i}].url`, LIMITS.url + 100) || undefined,
      example: text(`buttons[${i}].example`, 400) || undefined,
      phone: text(`buttons[${i}].phone`, 64) || undefined,
    });
  }
  const body = text("body", LIMITS.body * 2);
  const examples = form.getAll("bodyExamples").map((v) => (typeof v === "string" ? v.slice(0, 400) : ""));
  const minutes = text("codeExpirationMinutes", 8).trim();
  const headerFormat = pick("headerFormat", HEADER_FORMATS);
  return {
    name: text("name", LIMITS.name + 100).trim(),
    category: pick("category", CATEGORY_VALUES),
    language: pick("language", LANGUAGE_VALUES),
    headerFormat,
    headerText: text("headerText", 400) || undefined,
    headerSample: isMediaFormat(headerFormat) ? readHeaderSample(form) : undefined,
    headerExample: text("headerExample", 400) || undefined,
    body: body || undefined,
    bodyExamples: examples.slice(0, Math.max(placeholderCount(body), 0) || examples.length),
    footer: text("footer", 400) || undefined,
    buttons,
    addSecurityRecommendation: form.get("addSecurityRecommendation") === "on",
    codeExpirationMinutes: minutes ? Number(minutes) : undefined,
    otpType: pick("otpType", OTP_TYPES),
    otpButtonText: text("otpButtonText", 200) || undefined,
    packageName: text("packageName", 200) || undefined,
    signatureHash: text("signatureHash", 64) || undefined,
  };
}

/** The file input's name: the sample of an IMAGE, VIDEO or DOCUMENT header. */
export const SAMPLE_FIELD = "headerFile";

/** A chosen file (a browser posts an empty part, no name and no bytes, when none was chosen). */
export function chosenFile(form: FieldSource): File | undefined {
  const value = form.get(SAMPLE_FIELD);
  if (value === null || typeof value !== "object" || !("size" in value) || !("name" in value)) return undefined;
  const file = value as File;
  return file.size > 0 || file.name !== "" ? file : undefined;
}

/**
 * The header's sample: a file chosen now, or the one kept from before (a stored sample the form
 * carries as hidden fields, so a page sent back with a problem, or an edit, needs no new upload).
 * The server looks the kept sample up by its id and trusts nothing else of it.
 */
export function readHeaderSample(form: FieldSource): HeaderSample | undefined {
  const file = chosenFile(form);
  if (file) return { fileName: file.name.slice(0, 200), contentType: file.type, size: file.size };
  const id = form.get("headerSampleId");
  if (typeof id !== "string" || !id) return undefined;
  const field = (key: string) => {
    const value = form.get(key);
    return typeof value === "string" ? value.slice(0, 200) : "";
  };
  return {
    id: id.slice(0, 64),
    fileName: field("headerSampleName"),
    contentType: field("headerSampleType"),
    size: Number(field("headerSampleSize")) || 0,
    url: field("headerSampleUrl") || undefined,
  };
}

/** A blank form's values. */
export function emptyTemplateInput(): TemplateInput {
  return {
    name: "",
    category: "UTILITY",
    language: "en",
    headerFormat: "NONE",
    bodyExamples: [],
    buttons: [],
    otpType: "COPY_CODE",
    otpButtonText: "Copy code",
  };
}

/** The form's button-row intents: add a row of a kind, or remove row i (they work without JavaScript). */
export function applyRowIntent(input: TemplateInput, intent: string): TemplateInput | undefined {
  const add = /^add-button:(QUICK_REPLY|URL|PHONE_NUMBER|COPY_CODE|CATALOG|MPM)$/.exec(intent);
  if (add) {
    if (input.buttons.length >= LIMITS.buttons) return input;
    return { ...input, buttons: [...input.buttons, { type: add[1] as TemplateButton["type"], text: "" }] };
  }
  const remove = /^remove-button:(\d+)$/.exec(intent);
  if (remove) return { ...input, buttons: input.buttons.filter((_, i) => i !== Number(remove[1])) };
  if (intent === "refresh") return input;
  return undefined;
}
