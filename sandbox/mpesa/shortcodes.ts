/**
 * The shortcodes the sandbox knows, each with the Daraja app (consumer key and secret) that may use
 * it, its Lipa na M-Pesa Online passkey and its kind: a paybill, or a till (the store number that
 * signs, and the till number that receives). The first is the default from the sandbox's options
 * (Jumbe's own billing paybill); more come from `options.shortcodes` or the control API.
 */
export const SHORTCODE_KINDS = ["paybill", "till"] as const;
export type SandboxShortcodeKind = (typeof SHORTCODE_KINDS)[number];

export interface SandboxShortcodeInput {
  /** Shown on the console and the phone page ("Duka la Mama till"). */
  label?: string;
  consumerKey: string;
  consumerSecret: string;
  passkey: string;
  kind?: SandboxShortcodeKind;
  /** BusinessShortCode: the paybill, or a till's store (head office) number. 5 to 7 digits. */
  shortcode: string;
  /** A till's till number (PartyB); none for a paybill. */
  tillNumber?: string;
}

export interface SandboxShortcode {
  label: string;
  consumerKey: string;
  consumerSecret: string;
  passkey: string;
  kind: SandboxShortcodeKind;
  shortcode: string;
  tillNumber: string;
}

export class ShortcodeInputError extends Error {}

const MAX_SHORTCODES = 500;

/** A shortcode from input, checked; throws ShortcodeInputError with what is wrong. */
export function shortcodeFrom(input: SandboxShortcodeInput): SandboxShortcode {
  const str = (value: unknown) => (typeof value === "string" ? value.trim() : "");
  const kind = input.kind ?? "paybill";
  if (!(SHORTCODE_KINDS as readonly string[]).includes(kind)) throw new ShortcodeInputError('kind must be "paybill" or "till".');
  for (const key of ["consumerKey", "consumerSecret", "passkey"] as const)
    if (!str(input[key]) || str(input[key]).length > 200) throw new ShortcodeInputError(`${key} is required (at most 200 characters).`);
  const shortcode = str(input.shortcode);
  if (!/^\d{5,7}$/.test(shortcode)) throw new ShortcodeInputError("shortcode must be 5 to 7 digits.");
  const tillNumber = str(input.tillNumber);
  if (kind === "till" && !/^\d{5,7}$/.test(tillNumber)) throw new ShortcodeInputError("A till needs its tillNumber (5 to 7 digits).");
  if (kind === "paybill" && tillNumber) throw new ShortcodeInputError("A paybill has no tillNumber.");
  const label = str(input.label).slice(0, 80) || (kind === "till" ? `Till ${tillNumber}` : `Paybill ${shortcode}`);
  return {
    label,
    consumerKey: str(input.consumerKey),
    consumerSecret: str(input.consumerSecret),
    passkey: str(input.passkey),
    kind,
    shortcode,
    tillNumber,
  };
}

export class ShortcodeBook {
  private list: SandboxShortcode[] = [];
  private readonly initial: SandboxShortcode[];

  constructor(initial: SandboxShortcode[]) {
    this.initial = initial;
    this.reset();
  }

  /** Adds a shortcode; a consumer key or a shortcode another already has is refused (one app, one shortcode). */
  add(input: SandboxShortcodeInput): SandboxShortcode {
    const shortcode = shortcodeFrom(input);
    if (this.list.some((s) => s.consumerKey === shortcode.consumerKey))
      throw new ShortcodeInputError("Another shortcode's app already has this consumerKey.");
    if (this.list.some((s) => s.shortcode === shortcode.shortcode || (shortcode.tillNumber && s.tillNumber === shortcode.tillNumber)))
      throw new ShortcodeInputError("The sandbox already has this shortcode or till number.");
    if (this.list.length >= MAX_SHORTCODES) throw new ShortcodeInputError(`The sandbox holds at most ${MAX_SHORTCODES} shortcodes.`);
    this.list.push(shortcode);
    return shortcode;
  }

  all(): SandboxShortcode[] {
    return [...this.list];
  }

  /** The default (Jumbe's own paybill from the options). */
  get primary(): SandboxShortcode {
    return this.list[0]!;
  }

  byConsumerKey(key: string) {
    return this.list.find((s) => s.consumerKey === key);
  }

  byShortcode(shortcode: string) {
    return this.list.find((s) => s.shortcode === shortcode);
  }

  /** The shortcode a prompt went to (its store number or paybill), for the console and the phone. */
  describe(businessShortCode: string) {
    const s = this.byShortcode(businessShortCode);
    if (!s) return businessShortCode;
    return s.kind === "till" ? `${s.label}: till ${s.tillNumber}, store ${s.shortcode}` : `${s.label}: paybill ${s.shortcode}`;
  }

  /** Back to the shortcodes the sandbox was created with. */
  reset() {
    this.list = this.initial.map((s) => ({ ...s }));
  }
}
