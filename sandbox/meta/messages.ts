import { checkProductMessage, checkProductTemplateButton, isProductMessage } from "./catalogs";
import type { WebhookEvents } from "./events";
import { fail, ok, unsupported, type GraphResult } from "./graph-common";
import { Later } from "./later";
import type { MediaDesk } from "./media";
import { checkSend, invalidParam, missing, notValid, type CheckedSend } from "./message-rules";
import { placeholdersOf } from "./template-rules";
import type { PhoneNumber, SandboxStore, Template } from "./state";
import type { ReengagementMode, ResolvedOptions, SandboxMessage, TemplateCategory } from "./types";
import { digitsOnly, newWamid } from "./util";

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj => !!value && typeof value === "object" && !Array.isArray(value);

/** The customer service window: 24 hours from the customer's last message. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Pair rate (reference §5.3): one message per 6 s to one customer, bursts of up to 45 borrowing ahead. */
export const PAIR_RATE = { burst: 45, intervalMs: 6000 };

/** Inbound wamids kept for look-ups (sent messages: options.keepMessages); the oldest go first. */
const KEEP_INBOUND = 50_000;
/** Pair buckets untouched this long are full again and can be forgotten. */
const PAIR_IDLE_MS = PAIR_RATE.burst * PAIR_RATE.intervalMs;

/**
 * Magic recipients, by the last four digits of `to` (sandbox/README.md, Meta). Synchronous ones answer
 * an error; asynchronous ones are accepted and end as the outcome says.
 */
export const MAGIC_RECIPIENTS = {
  undeliverable: "0000",
  reengagement: "0047",
  ecosystem: "1049",
  deliveredOnly: "0002",
  sentOnly: "0003",
  throughput: "0429",
  pairRate: "1056",
  tokenExpired: "0190",
  serverError: "0500",
} as const;

type Outcome = "read" | "delivered" | "sent" | { failed: number };

function outcomeOf(waId: string): Outcome {
  switch (waId.slice(-4)) {
    case MAGIC_RECIPIENTS.undeliverable:
      return { failed: 131026 };
    case MAGIC_RECIPIENTS.reengagement:
      return { failed: 131047 };
    case MAGIC_RECIPIENTS.ecosystem:
      return { failed: 131049 };
    case MAGIC_RECIPIENTS.deliveredOnly:
      return "delivered";
    case MAGIC_RECIPIENTS.sentOnly:
      return "sent";
    default:
      return "read";
  }
}

/** Meta's words for 131047, in the send's answer and in the failed status alike. */
export const REENGAGEMENT_DETAILS =
  "Message failed to send because more than 24 hours have passed since the customer last replied to this number.";

const whatsappDetails = (details: string) => ({ errorData: { messaging_product: "whatsapp", details } });

const throughputError = () =>
  fail(400, 130429, "(#130429) Rate limit hit", whatsappDetails("Cloud API message throughput has been reached."));

const pairRateError = () =>
  fail(
    400,
    131056,
    "(#131056) (Business Account, Consumer Account) pair rate limit hit",
    whatsappDetails(
      "Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.",
    ),
  );

/** Errors the magic recipients answer at once. */
function syncMagic(waId: string, now: number): GraphResult | undefined {
  switch (waId.slice(-4)) {
    case MAGIC_RECIPIENTS.throughput:
      return throughputError();
    case MAGIC_RECIPIENTS.pairRate:
      return pairRateError();
    case MAGIC_RECIPIENTS.tokenExpired:
      return fail(
        401,
        190,
        `Error validating access token: Session has expired on ${new Date(now - 60_000).toUTCString()}. The current time is ${new Date(now).toUTCString()}.`,
        { subcode: 463 },
      );
    case MAGIC_RECIPIENTS.serverError:
      return fail(500, 131000, "(#131000) Something went wrong", {
        isTransient: true,
        ...whatsappDetails("Message failed to send due to an unknown error. Please try again later."),
      });
    default:
      return undefined;
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token bucket: takes one token if there is one; refills `perMs` tokens a millisecond up to `capacity`. */
function take(buckets: Map<string, Bucket>, key: string, capacity: number, perMs: number, now: number): boolean {
  let bucket = buckets.get(key);
  if (!bucket) {
    bucket = { tokens: capacity, at: now };
    buckets.set(key, bucket);
  } else {
    bucket.tokens = Math.min(capacity, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
    bucket.at = now;
  }
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

interface Sent extends SandboxMessage {
  category: string;
  pricingObject: Obj | null;
  failure?: number;
  /** The sandbox generation it was sent in: a reset drops its pending statuses. */
  generation: number;
}

/**
 * POST /{phone-number-id}/messages: sends (checked as Meta checks them), mark-as-read, the 24-hour
 * window per business number and customer, throughput and pair-rate limits, and the status
 * webhooks of every accepted message (sent → delivered → read, or what a magic recipient says),
 * with Meta's per-message pricing object.
 */
export class MessageDesk {
  private readonly messages = new Map<string, Sent>();
  /** `${phoneNumberId}:${customer}` → the customer's last message (sandbox clock, ms). */
  private readonly windows = new Map<string, number>();
  /**
   * `${phoneNumberId}:${customer}` → the customer's last ad entry (when they wrote from an ad) and the
   * free entry window an answer within 24 hours opened (reference commerce §2.2).
   */
  private readonly adEntries = new Map<string, { at: number; freeUntil?: number }>();
  /** Inbound wamid → the business number it was sent to (mark-as-read checks it). */
  private readonly inbound = new Map<string, string>();
  private readonly throughput = new Map<string, Bucket>();
  private readonly pairs = new Map<string, Bucket>();
  /** Business number → how its 131047 surfaces, where it differs from options.reengagement. */
  private readonly reengagement = new Map<string, ReengagementMode>();
  private readonly later = new Later((error) => console.warn("[meta sandbox] could not queue a status webhook:", error));
  private generation = 0;

  constructor(
    private readonly store: SandboxStore,
    private readonly events: WebhookEvents,
    private readonly media: MediaDesk,
    private readonly options: ResolvedOptions,
  ) {}

  private get now() {
    return this.options.now();
  }

  // ---- the customer's side -------------------------------------------------------------------

  /**
   * A customer message reached the number: the window opens (or starts again) from when they sent it
   * (`sentAt`: a late delivery's message may open none), its wamid can be marked read.
   */
  noteInbound(phoneNumberId: string, customer: string, wamid: string, opensWindow: boolean, sentAt = this.now, fromAd = false) {
    if (fromAd) {
      const key = `${phoneNumberId}:${customer}`;
      const entry = this.adEntries.get(key);
      // A new ad entry after an ended free window may open another; one inside an open window keeps it.
      if (!entry || entry.at <= sentAt)
        this.adEntries.set(key, { at: sentAt, ...(entry?.freeUntil && entry.freeUntil > sentAt ? { freeUntil: entry.freeUntil } : {}) });
      if (this.adEntries.size > KEEP_INBOUND) this.adEntries.delete(this.adEntries.keys().next().value!);
    }
    if (opensWindow) {
      const key = `${phoneNumberId}:${customer}`;
      const last = Math.max(sentAt, this.windows.get(key) ?? -Infinity);
      // Re-inserted so the map stays in order of last message, for pruning.
      this.windows.delete(key);
      this.windows.set(key, last);
      if (this.windows.size > KEEP_INBOUND) this.windows.delete(this.windows.keys().next().value!);
    }
    this.inbound.set(wamid, phoneNumberId);
    if (this.inbound.size > KEEP_INBOUND) this.inbound.delete(this.inbound.keys().next().value!);
  }

  setReengagement(phoneNumberId: string, mode: ReengagementMode | undefined) {
    if (mode === undefined) this.reengagement.delete(phoneNumberId);
    else this.reengagement.set(phoneNumberId, mode);
  }

  reengagementOf(phoneNumberId: string): ReengagementMode {
    return this.reengagement.get(phoneNumberId) ?? this.options.reengagement;
  }

  /** Whether a send now is inside a free entry window, opening it when this is the answer to an ad entry within 24 hours. */
  private freeEntry(phoneNumberId: string, customer: string) {
    const entry = this.adEntries.get(`${phoneNumberId}:${customer}`);
    if (!entry) return false;
    if (entry.freeUntil === undefined && this.now >= entry.at && this.now - entry.at < WINDOW_MS)
      entry.freeUntil = this.now + FREE_ENTRY_MS;
    return entry.freeUntil !== undefined && this.now < entry.freeUntil;
  }

  windowOpen(phoneNumberId: string, customer: string) {
    const last = this.windows.get(`${phoneNumberId}:${customer}`);
    return last !== undefined && this.now - last < WINDOW_MS;
  }

  // ---- the Graph endpoint ----------------------------------------------------------------------

  /** POST /{phone-number-id}/messages: a send, or a mark-as-read (`status: "read"`). */
  post(phone: PhoneNumber, body: unknown): GraphResult {
    if (!isObject(body)) return invalidParam("The parameter messaging_product is required.");
    if (body.status !== undefined) return this.markRead(phone, body);
    if (phone.status !== "CONNECTED")
      return fail(400, 133010, "(#133010) Account not registered", whatsappDetails("Phone number is not registered on the Cloud API."));
    const checked = checkSend(body);
    if ("status" in checked) return checked;
    const magic = syncMagic(checked.waId, this.now);
    if (magic) return magic;
    if (checked.waId === digitsOnly(phone.displayPhoneNumber))
      return fail(400, 131021, "(#131021) Recipient cannot be sender", whatsappDetails("Sender and recipient phone number is the same."));
    const interactive = checked.type === "interactive" && isObject(body.interactive) ? body.interactive : undefined;
    if (interactive && isProductMessage(interactive.type)) {
      const problem = checkProductMessage(this.store, phone, interactive);
      if (problem) return problem;
    }
    if (checked.media) {
      const problem = this.media.checkSend(phone, checked.media);
      if (problem) return problem;
    }
    let template: Template | undefined;
    if (checked.template) {
      const found = this.checkTemplate(phone, checked.template);
      if ("result" in found) return found.result;
      template = found.template;
    }
    const inWindow = this.windowOpen(phone.id, checked.waId);
    // Outside the window a free-form message fails with 131047 (decision 111): by default it is
    // accepted with a wamid and fails in its status webhook, as Cloud API accounts see it; a number
    // set to "sync" answers the error at once.
    const reengagement = !template && !inWindow;
    if (reengagement && this.reengagementOf(phone.id) === "sync")
      return fail(400, 131047, "(#131047) Re-engagement message", whatsappDetails(REENGAGEMENT_DETAILS));
    const limited = this.limit(phone, checked.waId);
    if (limited) return limited;
    const sent = this.accept(phone, checked, body, template, inWindow, reengagement ? { failed: 131047 } : undefined);
    return ok({
      messaging_product: "whatsapp",
      contacts: [{ input: checked.to, wa_id: checked.waId }],
      messages: [{ id: sent.wamid, ...(template ? { message_status: "accepted" } : {}) }],
    });
  }

  /** Mark as read (with a typing indicator): the wamid must be a customer message to this number. No webhook. */
  private markRead(phone: PhoneNumber, body: Obj): GraphResult {
    if (body.messaging_product === undefined) return invalidParam("The parameter messaging_product is required.");
    if (body.messaging_product !== "whatsapp") return invalidParam("Param messaging_product must be 'whatsapp'");
    if (body.status !== "read") return invalidParam(`Param status must be one of {read} - got "${String(body.status).slice(0, 40)}".`);
    const wamid = body.message_id;
    if (typeof wamid !== "string" || !wamid) return missing("message_id");
    if (this.inbound.get(wamid) !== phone.id) return unsupported("POST", wamid);
    const typing = body.typing_indicator;
    if (typing !== undefined && !(isObject(typing) && typing.type === "text"))
      return notValid("typing_indicator['type'] must be \"text\".");
    return ok({ success: true });
  }

  /** The template must exist in the WABA in that language and be APPROVED; its parameters must match. */
  private checkTemplate(
    phone: PhoneNumber,
    request: NonNullable<CheckedSend["template"]>,
  ): { template: Template } | { result: GraphResult } {
    const refuse = (result: GraphResult) => ({ result });
    const template = [...this.store.templates.values()].find(
      (t) => t.wabaId === phone.wabaId && t.name === request.name && t.language === request.language,
    );
    if (template?.status === "PAUSED")
      return refuse(
        fail(400, 132015, "(#132015) Template is Paused", whatsappDetails(`Template ${request.name} is paused because of low quality.`)),
      );
    if (template?.status === "DISABLED")
      return refuse(
        fail(
          400,
          132016,
          "(#132016) Template is disabled",
          whatsappDetails(`Template ${request.name} was disabled because of low quality.`),
        ),
      );
    if (!template || template.status !== "APPROVED")
      return refuse(
        fail(
          404,
          132001,
          "(#132001) Template name does not exist in the translation",
          whatsappDetails(`template name (${request.name.slice(0, 512)}) does not exist in ${request.language.slice(0, 20)}`),
        ),
      );
    const problem = this.checkParameters(phone, template, request.components);
    return problem ? refuse(problem) : { template };
  }

  private checkParameters(phone: PhoneNumber, template: Template, components: Obj[]): GraphResult | undefined {
    const sent = (type: string) => components.find((c) => typeof c.type === "string" && c.type.toLowerCase() === type);
    const paramsOf = (c: Obj | undefined) => (c && Array.isArray(c.parameters) ? (c.parameters as unknown[]) : []);
    const stored = (type: string) => template.components.find((c) => c.type === type);
    const header = stored("HEADER");
    const headerFormat = typeof header?.format === "string" ? header.format : undefined;
    if (headerFormat && headerFormat !== "TEXT") {
      const [param] = paramsOf(sent("header"));
      const kind = isObject(param) && typeof param.type === "string" ? param.type : "UNKNOWN";
      if (kind.toUpperCase() !== headerFormat)
        return fail(
          400,
          132012,
          "(#132012) Parameter format does not match format in the created template",
          whatsappDetails(`header: Format mismatch, expected ${headerFormat}, received ${kind.toUpperCase()}`),
        );
      const media = isObject(param) ? param[kind] : undefined;
      if (isObject(media) && typeof media.id === "string" && kind !== "location") {
        const problem = this.media.checkSend(phone, { kind: kind as "image", id: media.id, where: `header['${kind}']` });
        if (problem) return problem;
      }
    } else {
      const expected = headerFormat === "TEXT" ? new Set(placeholdersOf(String(header?.text ?? ""))).size : 0;
      const mismatch = countMismatch("header", paramsOf(sent("header")).length, expected);
      if (mismatch) return mismatch;
    }
    const body = stored("BODY");
    // Authentication templates have WhatsApp's preset body with one parameter: the code.
    const names = template.category === "AUTHENTICATION" ? ["code"] : [...new Set(placeholdersOf(String(body?.text ?? "")))];
    const given = paramsOf(sent("body"));
    const mismatch = countMismatch("body", given.length, names.length);
    if (mismatch) return mismatch;
    if (template.parameterFormat === "NAMED") {
      const unknown = given.find((p) => !isObject(p) || typeof p.parameter_name !== "string" || !names.includes(p.parameter_name));
      if (unknown !== undefined)
        return fail(
          400,
          132000,
          "(#132000) Number of parameters does not match the expected number of params",
          whatsappDetails(
            `body: parameter_name (${String(isObject(unknown) ? unknown.parameter_name : "")}) is not one of the template's parameters (${names.join(", ")})`,
          ),
        );
    }
    return this.checkUrlButtons(template, components) ?? this.checkButtonParameters(phone, template, components);
  }

  /**
   * A button component names a button of the template by index and its kind by sub_type: a quick
   * reply's parameter is its payload (what the tap sends back), a string; anything else is refused.
   */
  private checkButtonParameters(phone: PhoneNumber, template: Template, components: Obj[]): GraphResult | undefined {
    const stored = template.components.find((c) => c.type === "BUTTONS")?.buttons;
    const buttons = Array.isArray(stored) ? stored : [];
    // A multi-product template shows the products its send names: without them there is nothing to show.
    const mpm = buttons.findIndex((b) => isObject(b) && b.type === "MPM");
    if (mpm >= 0 && !components.some((c) => String(c.type).toLowerCase() === "button" && String(c.index) === String(mpm)))
      return missing("components[button] (sub_type MPM) with its action's sections");
    for (const given of components) {
      if (typeof given.type !== "string" || given.type.toLowerCase() !== "button") continue;
      const index = Number(given.index);
      const button = Number.isInteger(index) ? buttons[index] : undefined;
      const subType = String(given.sub_type ?? "").toLowerCase();
      if (!isObject(button) || String(button.type).toLowerCase() !== subType)
        return notValid(`button at index ${String(given.index).slice(0, 10)}: the template has no ${subType.slice(0, 20)} button there`);
      if (subType === "catalog" || subType === "mpm") {
        const problem = checkProductTemplateButton(this.store, phone, subType, given);
        if (problem) return problem;
        continue;
      }
      if (subType !== "quick_reply") continue;
      const [param] = Array.isArray(given.parameters) ? (given.parameters as unknown[]) : [];
      if (!isObject(param) || param.type !== "payload") return missing(`components[button].parameters[0].payload`);
      if (typeof param.payload !== "string" || !param.payload) return notValid("a quick reply's payload must be a non-empty string");
    }
    return undefined;
  }

  /** A URL button whose url ends in {{1}} needs its suffix as a button parameter at its index. */
  private checkUrlButtons(template: Template, components: Obj[]): GraphResult | undefined {
    const buttons = template.components.find((c) => c.type === "BUTTONS")?.buttons;
    if (!Array.isArray(buttons)) return undefined;
    for (const [index, button] of buttons.entries()) {
      if (!isObject(button) || button.type !== "URL" || placeholdersOf(String(button.url ?? "")).length === 0) continue;
      const given = components.find(
        (c) =>
          typeof c.type === "string" &&
          c.type.toLowerCase() === "button" &&
          String(c.sub_type).toLowerCase() === "url" &&
          String(c.index) === String(index),
      );
      if (!given || !Array.isArray(given.parameters) || given.parameters.length !== 1)
        return fail(
          400,
          132000,
          "(#132000) Number of parameters does not match the expected number of params",
          whatsappDetails(
            `button: number of localizable_params (0) does not match the expected number of params (1) for the button at index ${index}`,
          ),
        );
    }
    return undefined;
  }

  /** Throughput per number, then the pair rate; a refused send uses no quota. */
  private limit(phone: PhoneNumber, waId: string): GraphResult | undefined {
    const now = this.now;
    const rate = this.options.throughputPerSecond;
    if (rate > 0 && !take(this.throughput, phone.id, rate, rate / 1000, now)) return throughputError();
    if (!this.options.pairRateLimit) return undefined;
    if (this.pairs.size > KEEP_INBOUND) for (const [key, bucket] of this.pairs) if (now - bucket.at >= PAIR_IDLE_MS) this.pairs.delete(key);
    if (!take(this.pairs, `${phone.id}:${waId}`, PAIR_RATE.burst, 1 / PAIR_RATE.intervalMs, now)) {
      // The throughput token was spent on a message that did not go: give it back.
      const bucket = this.throughput.get(phone.id);
      if (bucket && rate > 0) bucket.tokens = Math.min(rate, bucket.tokens + 1);
      return pairRateError();
    }
    return undefined;
  }

  // ---- acceptance and the status ladder ---------------------------------------------------------

  private accept(
    phone: PhoneNumber,
    checked: CheckedSend,
    body: Obj,
    template: Template | undefined,
    inWindow: boolean,
    forced?: Outcome,
  ): Sent {
    const outcome = forced ?? outcomeOf(checked.waId);
    const pricing = this.freeEntry(phone.id, checked.waId)
      ? FREE_ENTRY_PRICING(template?.category)
      : pricingOf(template?.category, inWindow);
    const sent: Sent = {
      wamid: newWamid(),
      phoneNumberId: phone.id,
      to: checked.to,
      waId: checked.waId,
      type: checked.type,
      ...(template ? { template: { name: template.name, language: template.language, category: template.category } } : {}),
      body,
      ...(checked.callbackData !== undefined ? { callbackData: checked.callbackData } : {}),
      outcome: typeof outcome === "string" ? outcome : `failed ${outcome.failed}`,
      statuses: [],
      pricing: { type: pricing.type, category: pricing.category },
      acceptedAt: new Date(this.now).toISOString(),
      category: pricing.category,
      pricingObject: pricing,
      ...(typeof outcome === "string" ? {} : { failure: outcome.failed }),
      generation: this.generation,
    };
    this.messages.set(sent.wamid, sent);
    if (this.messages.size > this.options.keepMessages) this.messages.delete(this.messages.keys().next().value!);
    this.schedule(sent, outcome);
    return sent;
  }

  private schedule(sent: Sent, outcome: Outcome) {
    const delays = this.options.statusDelaysMs;
    if (typeof outcome !== "string") return this.later.at(delays.sent, () => this.emit(sent, "failed"));
    this.later.at(delays.sent, () => this.emit(sent, "sent"));
    if (outcome === "sent") return;
    this.later.at(delays.delivered, () => this.emit(sent, "delivered"));
    if (outcome === "read") this.later.at(delays.read, () => this.emit(sent, "read"));
  }

  /** One status webhook: pricing on sent and delivered only; errors on failed; the callback data echoed. */
  private emit(sent: Sent, status: "sent" | "delivered" | "read" | "failed") {
    if (sent.generation !== this.generation || !this.store.phoneNumbers.has(sent.phoneNumberId)) return;
    const callbackData = sent.callbackData;
    this.events.messageStatus(sent.phoneNumberId, {
      id: sent.wamid,
      status,
      timestamp: String(Math.floor(this.now / 1000)),
      recipient_id: sent.waId,
      ...((status === "sent" || status === "delivered") && sent.pricingObject ? { pricing: sent.pricingObject } : {}),
      ...(callbackData !== undefined ? { biz_opaque_callback_data: callbackData } : {}),
      ...(status === "failed" ? { errors: [this.events.failureError(sent.failure ?? 131026)] } : {}),
    });
    sent.statuses.push(status);
  }

  // ---- read-outs -------------------------------------------------------------------------------

  list(filter: { phoneNumberId?: string; to?: string } = {}): SandboxMessage[] {
    const to = filter.to ? digitsOnly(filter.to) : undefined;
    const out: SandboxMessage[] = [];
    for (const m of this.messages.values()) {
      if (filter.phoneNumberId && m.phoneNumberId !== filter.phoneNumberId) continue;
      if (to && m.waId !== to) continue;
      const { category: _c, pricingObject: _p, failure: _f, generation: _g, ...view } = m;
      out.push({ ...view, statuses: [...m.statuses] });
    }
    return out;
  }

  reset() {
    this.generation++;
    this.later.clear();
    this.messages.clear();
    this.windows.clear();
    this.adEntries.clear();
    this.inbound.clear();
    this.throughput.clear();
    this.pairs.clear();
    this.reengagement.clear();
  }

  close() {
    this.reset();
    this.later.close();
  }
}

function countMismatch(where: string, given: number, expected: number): GraphResult | undefined {
  if (given === expected) return undefined;
  return fail(
    400,
    132000,
    "(#132000) Number of parameters does not match the expected number of params",
    whatsappDetails(`${where}: number of localizable_params (${given}) does not match the expected number of params (${expected})`),
  );
}

/** 72 hours: the free entry window an answer to an ad entry opens. */
const FREE_ENTRY_MS = 72 * 3600_000;
/** Inside a free entry window every message is free, templates too (reference commerce §2.2). */
const FREE_ENTRY_PRICING = (category: TemplateCategory | undefined) => ({
  billable: false,
  pricing_model: "PMP",
  type: "free_entry_point",
  category: category ? category.toLowerCase() : "service",
});

/**
 * Per-message pricing (reference §6): service messages and utility templates inside the customer
 * service window are free (free_customer_service); every other template is regular, in its category.
 */
function pricingOf(category: TemplateCategory | undefined, inWindow: boolean) {
  if (!category) return { billable: false, pricing_model: "PMP", type: "free_customer_service", category: "service" };
  if (category === "UTILITY" && inWindow)
    return { billable: false, pricing_model: "PMP", type: "free_customer_service", category: "utility" };
  return { billable: true, pricing_model: "PMP", type: "regular", category: category.toLowerCase() };
}
