import { checkoutRequestId, eatStamp, merchantRequestId, receiptNumber } from "./daraja-format";
import type { CallbackPoster } from "./deliveries";
import type { AnswerResult, CallbackRecord, Delivery, DeliveryPlan, Outcome, Prompt, ResolvedOptions } from "./types";
import { DELIVERIES } from "./types";

/** ResultCode and Safaricom's ResultDesc for each way a customer answers. */
export const RESULTS: Record<Outcome, { code: number; desc: string }> = {
  accept: { code: 0, desc: "The service request is processed successfully." },
  insufficient_funds: { code: 1, desc: "The balance is insufficient for the transaction." },
  cancel: { code: 1032, desc: "Request cancelled by user" },
  timeout: { code: 1037, desc: "DS timeout user cannot be reached" },
  wrong_pin: { code: 2001, desc: "The initiator information is invalid." },
  push_failed: { code: 1025, desc: "An error occurred while sending push request" },
  not_permitted: { code: 2028, desc: "The request is not permitted according to product assignment" },
};

/** The phone page's PINs: any 4 digits pay, except these. */
export const WRONG_PIN = "0000";
export const EMPTY_ACCOUNT_PIN = "9999";

export const NORMAL_PLAN: DeliveryPlan = { delivery: "normal", duplicates: 2, delayMs: 0 };

/** Phones that answer by themselves, for unattended runs (sandbox/README.md, "M-Pesa (Daraja)"). */
export const MAGIC_PHONES: Record<string, { label: string; outcome?: Outcome; plan?: Partial<DeliveryPlan> }> = {
  "254708374149": { label: "Safaricom's sandbox test number: pays at once", outcome: "accept" },
  "254711000000": { label: "Pays at once", outcome: "accept" },
  "254711000001": { label: "Insufficient funds at once (ResultCode 1)", outcome: "insufficient_funds" },
  "254711001032": { label: "Cancels at once (1032)", outcome: "cancel" },
  "254711001037": { label: "Never answers: 1037 after the prompt timeout", outcome: undefined },
  "254711002001": { label: "Wrong PIN at once (2001)", outcome: "wrong_pin" },
  "254711000404": { label: "Pays at once; the callback is lost (only STK query tells)", outcome: "accept", plan: { delivery: "lost" } },
  "254711000202": { label: "Pays at once; the callback arrives twice", outcome: "accept", plan: { delivery: "duplicate", duplicates: 2 } },
};

const KEEP_PROMPTS = 2000;

export class PromptError extends Error {
  constructor(
    readonly kind: "unknown" | "answered" | "bad_plan",
    message: string,
  ) {
    super(message);
  }
}

export interface NewPrompt {
  phone: string;
  partyA: string;
  shortcode: string;
  businessShortCode: string;
  payee: string;
  amount: number;
  accountReference: string;
  transactionDesc: string;
  transactionType: string;
  callbackUrl: string;
}

/** The "phones": pending STK prompts, their answers and the callbacks those send. */
export class PromptDesk {
  private byId = new Map<string, Prompt>();
  private timeouts = new Map<string, ReturnType<typeof setTimeout>>();
  private defaultPlan: DeliveryPlan = { ...NORMAL_PLAN };

  constructor(
    private readonly options: ResolvedOptions,
    private readonly poster: CallbackPoster,
  ) {}

  /** The pending prompt on a phone: a second push to it is refused ("Unable to lock subscriber"). */
  pendingOn(phone: string) {
    for (const prompt of this.byId.values()) if (prompt.state === "pending" && prompt.phone === phone) return prompt;
    return undefined;
  }

  create(input: NewPrompt): Prompt {
    const now = this.options.now();
    let at = now;
    let id = checkoutRequestId(at, input.phone);
    while (this.byId.has(id)) id = checkoutRequestId(++at, input.phone);
    const magic = MAGIC_PHONES[input.phone];
    const prompt: Prompt = {
      ...input,
      MerchantRequestID: merchantRequestId(),
      CheckoutRequestID: id,
      createdAt: new Date(now).toISOString(),
      state: "pending",
      plan: magic?.plan ? planFrom(magic.plan, NORMAL_PLAN) : { ...this.defaultPlan },
    };
    this.byId.set(id, prompt);
    this.prune();
    const timer = setTimeout(() => void this.answer(id, "timeout").catch(() => {}), this.options.promptTimeoutMs);
    timer.unref?.();
    this.timeouts.set(id, timer);
    return prompt;
  }

  /** A magic number answers by itself (call once the push's answer is sent: its callback never beats it). */
  answerIfMagic(prompt: Prompt) {
    const outcome = MAGIC_PHONES[prompt.phone]?.outcome;
    if (outcome && prompt.state === "pending") void this.answer(prompt.CheckoutRequestID, outcome).catch(() => {});
  }

  get(id: string) {
    return this.byId.get(id);
  }

  pending(): Prompt[] {
    return [...this.byId.values()].filter((p) => p.state === "pending");
  }

  all(): Prompt[] {
    return [...this.byId.values()].reverse();
  }

  setDefaultPlan(plan: Partial<DeliveryPlan>) {
    this.defaultPlan = planFrom(plan, NORMAL_PLAN);
    return { ...this.defaultPlan };
  }

  getDefaultPlan() {
    return { ...this.defaultPlan };
  }

  /**
   * The customer answers: the prompt is done at once (STK query tells), and the callback goes out
   * after callbackDelayMs (plus the plan's extra delay), once, N times, or never. Resolves with
   * what was sent once it has been.
   */
  async answer(id: string, outcome: Outcome, override?: Partial<DeliveryPlan>): Promise<AnswerResult> {
    const prompt = this.byId.get(id);
    if (!prompt) throw new PromptError("unknown", `No STK prompt ${id}.`);
    if (prompt.state !== "pending") throw new PromptError("answered", `STK prompt ${id} was already answered (${prompt.outcome}).`);
    const plan = override && Object.keys(override).length ? planFrom(override, prompt.plan) : prompt.plan;
    const now = this.options.now();
    const result = RESULTS[outcome];
    Object.assign(prompt, {
      state: "done",
      outcome,
      plan,
      resultCode: result.code,
      resultDesc: result.desc,
      answeredAt: new Date(now).toISOString(),
      ...(outcome === "accept" ? { receipt: receiptNumber(now) } : {}),
    });
    clearTimeout(this.timeouts.get(id));
    this.timeouts.delete(id);
    const callback = callbackBody(prompt, now);
    const deliveries = await this.deliver(prompt, callback);
    return { CheckoutRequestID: id, outcome, ResultCode: result.code, ResultDesc: result.desc, plan, callback, deliveries };
  }

  reset() {
    this.clearTimers();
    this.byId.clear();
    this.defaultPlan = { ...NORMAL_PLAN };
  }

  close() {
    this.clearTimers();
  }

  private async deliver(prompt: Prompt, callback: unknown): Promise<CallbackRecord[]> {
    const { plan } = prompt;
    if (plan.delivery === "lost") return [this.poster.lost("stk", prompt.CheckoutRequestID, prompt.callbackUrl, callback)];
    const copies = plan.delivery === "duplicate" ? plan.duplicates : 1;
    const sent = await this.poster.schedule(this.options.callbackDelayMs + plan.delayMs, async () => {
      const records: CallbackRecord[] = [];
      for (let copy = 1; copy <= copies; copy++)
        records.push((await this.poster.post("stk", prompt.CheckoutRequestID, prompt.callbackUrl, callback, copy)).record);
      return records;
    });
    return sent ?? [];
  }

  private clearTimers() {
    for (const timer of this.timeouts.values()) clearTimeout(timer);
    this.timeouts.clear();
  }

  /** Forgets the oldest answered prompts beyond KEEP_PROMPTS. */
  private prune() {
    if (this.byId.size <= KEEP_PROMPTS) return;
    for (const [id, prompt] of this.byId) {
      if (this.byId.size <= KEEP_PROMPTS) break;
      if (prompt.state === "done") this.byId.delete(id);
    }
  }
}

/** A delivery plan from partial input, checked. */
export function planFrom(input: Partial<DeliveryPlan>, base: DeliveryPlan): DeliveryPlan {
  const delivery: Delivery = input.delivery ?? (input.duplicates ? "duplicate" : input.delayMs ? "delayed" : base.delivery);
  if (!DELIVERIES.includes(delivery)) throw new PromptError("bad_plan", `delivery must be one of ${DELIVERIES.join(", ")}.`);
  const duplicates = input.duplicates ?? base.duplicates;
  if (!Number.isInteger(duplicates) || duplicates < 2 || duplicates > 10)
    throw new PromptError("bad_plan", "duplicates must be a whole number from 2 to 10.");
  const delayMs = input.delayMs ?? (delivery === "delayed" ? base.delayMs || 5000 : base.delayMs);
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > 600_000)
    throw new PromptError("bad_plan", "delayMs must be a whole number of milliseconds from 0 to 600000.");
  return { delivery, duplicates, delayMs: delivery === "lost" ? 0 : delayMs };
}

/** Safaricom's STK callback: ResultCode a number, CallbackMetadata only on success, Balance without a value. */
export function callbackBody(prompt: Prompt, now: number) {
  const stkCallback: Record<string, unknown> = {
    MerchantRequestID: prompt.MerchantRequestID,
    CheckoutRequestID: prompt.CheckoutRequestID,
    ResultCode: prompt.resultCode,
    ResultDesc: prompt.resultDesc,
  };
  if (prompt.resultCode === 0)
    stkCallback.CallbackMetadata = {
      Item: [
        { Name: "Amount", Value: prompt.amount },
        { Name: "MpesaReceiptNumber", Value: prompt.receipt },
        { Name: "Balance" },
        { Name: "TransactionDate", Value: Number(eatStamp(now)) },
        { Name: "PhoneNumber", Value: Number(prompt.phone) },
      ],
    };
  return { Body: { stkCallback } };
}
