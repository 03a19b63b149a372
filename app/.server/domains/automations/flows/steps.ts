import { randomBytes } from "node:crypto";
import { z } from "zod";
import { Refusal } from "../../../infrastructure/refusal";
import {
  checkOutboundShape,
  resolveOutboundTarget,
  systemResolver,
  type OutboundRefusal,
  type Resolver,
} from "../../../infrastructure/security/outbound-url";
import {
  END,
  FLOW_BRANCH_OPERATORS,
  FLOW_BRANCH_SOURCES,
  FLOW_BUTTON_TITLE_MAX,
  FLOW_BUTTONS_MAX,
  FLOW_MEDIA_KINDS,
  FLOW_MESSAGES,
  FLOW_PRODUCT_HEADER_MAX,
  FLOW_PRODUCT_KINDS,
  FLOW_PRODUCTS_MAX,
  FLOW_QUESTION_INPUTS,
  FLOW_ROW_TITLE_MAX,
  FLOW_ROWS_MAX,
  FLOW_SET_ACTIONS,
  FLOW_STEPS_MAX,
  FLOW_TEXT_MAX,
  FLOW_TRIES_MAX,
  FLOW_VALIDATIONS,
  FLOW_VARIABLE_PATTERN,
  FLOW_WAIT_MAX,
  NEXT,
} from "~/lib/schemas/flows";
import {
  isWholeKes,
  PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES,
  PAYMENT_REQUEST_MAX_EXPIRY_MINUTES,
  PAYMENT_REQUEST_MIN_EXPIRY_MINUTES,
  PAYMENT_REQUEST_REFERENCE,
} from "~/lib/schemas/payment-requests";

/**
 * A flow's steps (issue 44): a discriminated union on `type`, each with a stable id that other steps
 * lead to (`next`, `end` or a step's id). The shape is checked here; that the steps a step leads to
 * exist is checked on the whole list (checkSteps).
 */

const id = z.string().regex(/^[a-z0-9]{1,16}$/);
const target = z.string().min(1).max(16);
const text = z.string().trim().min(1).max(FLOW_TEXT_MAX);
const optionalText = z.string().trim().max(FLOW_TEXT_MAX).default("");
const variable = z.string().regex(FLOW_VARIABLE_PATTERN);
const buttonTitle = z.string().trim().min(1).max(FLOW_BUTTON_TITLE_MAX);
const rowTitle = z.string().trim().min(1).max(FLOW_ROW_TITLE_MAX);

const MessageStep = z.object({
  id,
  type: z.literal("message"),
  text,
  buttons: z.array(buttonTitle).max(FLOW_BUTTONS_MAX).default([]),
  rows: z.array(rowTitle).max(FLOW_ROWS_MAX).default([]),
  /** A list's button (what the customer taps to open it). */
  listButton: z.string().trim().max(FLOW_BUTTON_TITLE_MAX).default(""),
  mediaUrl: z.string().trim().max(2048).default(""),
  mediaKind: z.enum(FLOW_MEDIA_KINDS).default("image"),
});

const QuestionStep = z.object({
  id,
  type: z.literal("question"),
  text,
  input: z.enum(FLOW_QUESTION_INPUTS),
  choices: z.array(rowTitle).max(FLOW_ROWS_MAX).default([]),
  listButton: z.string().trim().max(FLOW_BUTTON_TITLE_MAX).default(""),
  validate: z.enum(FLOW_VALIDATIONS).default("any"),
  variable,
  retryText: optionalText,
  maxTries: z.int().min(1).max(FLOW_TRIES_MAX).default(3),
  giveUpTo: target.default(END),
});

const BranchStep = z.object({
  id,
  type: z.literal("branch"),
  source: z.enum(FLOW_BRANCH_SOURCES),
  /** The variable's name, the contact field's key or the tag; unused for `answer`. */
  key: z.string().trim().max(60).default(""),
  operator: z.enum(FLOW_BRANCH_OPERATORS),
  /** `one_of`: values separated by commas. */
  value: z.string().trim().max(200).default(""),
  then: target,
  else: target.default(NEXT),
});

const SetStep = z.object({
  id,
  type: z.literal("set"),
  action: z.enum(FLOW_SET_ACTIONS),
  key: z.string().trim().min(1).max(60),
  value: z.string().trim().max(200).default(""),
});

const HttpStep = z.object({
  id,
  type: z.literal("http"),
  method: z.enum(["GET", "POST"]),
  url: z.string().trim().min(1).max(2048),
  body: z.string().max(FLOW_TEXT_MAX).default(""),
  saveAs: variable.default("http"),
});

const WaitStep = z.object({ id, type: z.literal("wait"), minutes: z.int().min(1).max(FLOW_WAIT_MAX) });

const HandoverStep = z.object({
  id,
  type: z.literal("handover"),
  /** A member's user id, or empty: the least-busy member who answers chats. */
  userId: z.string().trim().max(40).default(""),
});

/**
 * Asks the customer to pay (issue 76, decision 139): a payment request in the conversation, and the
 * session waits for it; on to `paid` when it is paid, to `else` when it expires or is refused.
 * Amount, description and reference may hold variables, checked again when the step runs.
 */
const PaymentStep = z.object({
  id,
  type: z.literal("payment"),
  /** Whole shillings, or a `{{variable}}` the flow collected. */
  amount: z.string().trim().min(1).max(60),
  description: z.string().trim().min(1).max(FLOW_TEXT_MAX),
  reference: z.string().trim().max(60).default(""),
  expiresInMinutes: z
    .int()
    .min(PAYMENT_REQUEST_MIN_EXPIRY_MINUTES)
    .max(PAYMENT_REQUEST_MAX_EXPIRY_MINUTES)
    .default(PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES),
  /** One of the organisation's shortcodes, or empty: its default. */
  shortcodeId: z.string().trim().max(40).default(""),
  paid: target.default(NEXT),
  else: target.default(END),
});

/**
 * Sends products from the shop (issue 76, decision 143): a list, one product or the catalogue's
 * button, with a heading (lists) and a text that may hold variables. The products are checked when
 * the step is saved (flows/products.ts) and read from the catalog again when it runs: those it no
 * longer holds are left out, and a message with nothing left is not sent (the flow goes on).
 */
const ProductsStep = z.object({
  id,
  type: z.literal("products"),
  kind: z.enum(FLOW_PRODUCT_KINDS),
  productIds: z
    .array(z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i))
    .max(FLOW_PRODUCTS_MAX)
    .default([]),
  header: z.string().trim().max(FLOW_PRODUCT_HEADER_MAX).default(""),
  text: optionalText,
});

/** An end; `conversion`: reaching it is a lead sent to Meta when the customer came from an ad (decision 158). */
const EndStep = z.object({ id, type: z.literal("end"), conversion: z.boolean().optional() });

export const FlowStepSchema = z.discriminatedUnion("type", [
  MessageStep,
  QuestionStep,
  BranchStep,
  SetStep,
  HttpStep,
  WaitStep,
  HandoverStep,
  PaymentStep,
  ProductsStep,
  EndStep,
]);
export type FlowStep = z.infer<typeof FlowStepSchema>;
export type QuestionStep = z.infer<typeof QuestionStep>;
export type PaymentStep = z.infer<typeof PaymentStep>;
export type ProductsStep = z.infer<typeof ProductsStep>;
export type StepInput = z.input<typeof FlowStepSchema>;

export const refuseFlow = (status: 400 | 404 | 409 | 422, message: string, field?: string) =>
  new Refusal({ domain: "automation", status, message, field, code: status === 409 ? "flow_limit" : undefined });

/** The field a zod issue is about, and its words. */
function issueWords(path: readonly PropertyKey[]): { field: string; message: string } {
  const field = String(path[0] ?? "type");
  switch (field) {
    case "text":
    case "retryText":
      return { field, message: FLOW_MESSAGES.text };
    case "buttons":
      return { field, message: FLOW_MESSAGES.buttons };
    case "rows":
    case "choices":
    case "listButton":
      return { field, message: FLOW_MESSAGES.rows };
    case "mediaUrl":
    case "mediaKind":
      return { field, message: FLOW_MESSAGES.media };
    case "variable":
    case "saveAs":
      return { field, message: FLOW_MESSAGES.variable };
    case "maxTries":
      return { field, message: FLOW_MESSAGES.tries };
    case "amount":
      return { field, message: FLOW_MESSAGES.amount };
    case "description":
      return { field, message: FLOW_MESSAGES.paymentText };
    case "reference":
      return { field, message: FLOW_MESSAGES.reference };
    case "expiresInMinutes":
      return { field, message: FLOW_MESSAGES.expiry };
    case "shortcodeId":
      return { field, message: FLOW_MESSAGES.shortcode };
    case "kind":
    case "productIds":
    case "header":
      return { field, message: FLOW_MESSAGES.products };
    case "giveUpTo":
    case "then":
    case "else":
    case "paid":
      return { field, message: FLOW_MESSAGES.target };
    case "url":
    case "method":
    case "body":
      return { field, message: FLOW_MESSAGES.url };
    case "minutes":
      return { field, message: FLOW_MESSAGES.wait };
    case "conversion":
      return { field, message: FLOW_MESSAGES.conversion };
    case "key":
    case "value":
    case "source":
    case "operator":
    case "action":
      return { field, message: FLOW_MESSAGES.key };
    default:
      return { field: "type", message: FLOW_MESSAGES.step };
  }
}

/**
 * An HTTP step's URL with each `{{variable}}` as a plain word, for the checks that can be made before
 * the call (decision 099); null when a variable would form the scheme or the host (or port, user
 * name): those are written out, so what is checked now is what is called.
 */
export function flowUrlSample(raw: string): string | null {
  const authority = /^[^:/?#{}]*:\/\/[^/?#]*/.exec(raw)?.[0];
  const variable = raw.indexOf("{{");
  if (variable >= 0 && (authority === undefined || authority.includes("{{"))) return null;
  return raw.replace(/\{\{[^{}]*\}\}/g, "x");
}

/** The words of the shared check's refusal of a step's URL. */
function flowUrlMessage(reason: OutboundRefusal) {
  switch (reason) {
    case "private":
      return FLOW_MESSAGES.urlPrivate;
    case "credentials":
      return FLOW_MESSAGES.urlCredentials;
    default:
      return FLOW_MESSAGES.url;
  }
}

/** What can be told of a step's URL without DNS: scheme, no user name, a host that is no variable and no private address. */
function checkFlowUrl(raw: string, production: boolean) {
  const sample = flowUrlSample(raw);
  if (sample === null) throw refuseFlow(400, FLOW_MESSAGES.urlHost, "url");
  const shape = checkOutboundShape(sample, { production });
  if (!shape.ok) throw refuseFlow(400, flowUrlMessage(shape.reason), "url");
}

/**
 * The HTTP steps' hosts looked up, as a webhook's is when saved: every address public (loopback only
 * under WEBHOOK_ALLOW_LOOPBACK). A name not found (yet) is let be: a step may be written before its
 * API is online, and the call checks again (http.ts) in any case, since a name's answer can change.
 */
export async function checkStepAddresses(steps: readonly FlowStep[], resolve: Resolver = systemResolver): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if (step.type !== "http") continue;
    const sample = flowUrlSample(step.url);
    if (sample === null) throw refuseFlow(400, FLOW_MESSAGES.urlHost, `steps[${i}].url`);
    const target = await resolveOutboundTarget(sample, {}, resolve);
    if (!target.ok && target.reason !== "unresolved") throw refuseFlow(400, flowUrlMessage(target.reason), `steps[${i}].url`);
  }
}

/** One step as stored, or a refusal (400) at its first wrong field. */
export function checkStep(input: unknown, production: boolean): FlowStep {
  const parsed = FlowStepSchema.safeParse(input);
  if (!parsed.success) {
    const { field, message } = issueWords(parsed.error.issues[0]?.path ?? []);
    throw refuseFlow(400, message, field);
  }
  const step = parsed.data;
  if (step.type === "message") {
    if (step.buttons.length && step.rows.length) throw refuseFlow(400, FLOW_MESSAGES.buttons, "buttons");
    if (step.rows.length && !step.listButton) throw refuseFlow(400, FLOW_MESSAGES.rows, "listButton");
    if (step.mediaUrl && !/^https:\/\//i.test(step.mediaUrl)) throw refuseFlow(400, FLOW_MESSAGES.media, "mediaUrl");
    if (step.mediaUrl && (step.buttons.length || step.rows.length)) throw refuseFlow(400, FLOW_MESSAGES.media, "mediaUrl");
  }
  if (step.type === "question") {
    if (
      step.input === "buttons" &&
      (step.choices.length < 1 || step.choices.length > FLOW_BUTTONS_MAX || step.choices.some((c) => c.length > FLOW_BUTTON_TITLE_MAX))
    )
      throw refuseFlow(400, FLOW_MESSAGES.buttons, "choices");
    if (step.input === "list" && (step.choices.length < 1 || !step.listButton)) throw refuseFlow(400, FLOW_MESSAGES.rows, "choices");
    if (step.validate === "choice" && !step.choices.length) throw refuseFlow(400, FLOW_MESSAGES.rows, "choices");
  }
  if (step.type === "branch" && step.source !== "answer" && !step.key) throw refuseFlow(400, FLOW_MESSAGES.key, "key");
  if (step.type === "set" && step.action === "field" && !/^[a-z][a-z0-9_]{0,59}$/i.test(step.key))
    throw refuseFlow(400, FLOW_MESSAGES.key, "key");
  if (step.type === "http") checkFlowUrl(step.url, production);
  if (step.type === "payment") checkPaymentStep(step);
  return step;
}

const hasVariable = (value: string) => /\{\{[^{}]+\}\}/.test(value);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a payment step's fields can be told to be before it runs: without variables, as the composer checks them. */
function checkPaymentStep(step: PaymentStep) {
  if (!hasVariable(step.amount) && !isWholeKes(step.amount.replace(/,/g, ""))) throw refuseFlow(400, FLOW_MESSAGES.amount, "amount");
  if (!hasVariable(step.description) && step.description.length > 100) throw refuseFlow(400, FLOW_MESSAGES.paymentText, "description");
  if (step.reference && !hasVariable(step.reference) && !PAYMENT_REQUEST_REFERENCE.test(step.reference))
    throw refuseFlow(400, FLOW_MESSAGES.reference, "reference");
  if (step.shortcodeId && !UUID.test(step.shortcodeId)) throw refuseFlow(400, FLOW_MESSAGES.shortcode, "shortcodeId");
}

/** The steps a step leads to, by field. */
export function targetsOf(step: FlowStep): { field: string; to: string }[] {
  if (step.type === "question") return [{ field: "giveUpTo", to: step.giveUpTo }];
  if (step.type === "branch")
    return [
      { field: "then", to: step.then },
      { field: "else", to: step.else },
    ];
  if (step.type === "payment")
    return [
      { field: "paid", to: step.paid },
      { field: "else", to: step.else },
    ];
  return [];
}

/** A whole list: at most FLOW_STEPS_MAX, ids unique, every step led to exists. */
export function checkSteps(input: unknown[], production: boolean): FlowStep[] {
  if (input.length > FLOW_STEPS_MAX) throw refuseFlow(400, FLOW_MESSAGES.stepsLimit, "steps");
  // A step given without an id (the API) gets one; steps that others lead to need theirs.
  const given: { id: string }[] = input.flatMap((s) =>
    s && typeof s === "object" && typeof (s as { id?: unknown }).id === "string" ? [s as { id: string }] : [],
  );
  const withIds = input.map((s) =>
    s && typeof s === "object" && (s as { id?: unknown }).id === undefined ? { ...s, id: newStepId(given) } : s,
  );
  const steps = withIds.map((s, i) => {
    try {
      return checkStep(s, production);
    } catch (error) {
      if (error instanceof Refusal && error.field) throw refuseFlow(400, error.message, `steps[${i}].${error.field}`);
      throw error;
    }
  });
  const ids = new Set(steps.map((s) => s.id));
  if (ids.size !== steps.length) throw refuseFlow(400, FLOW_MESSAGES.step, "steps");
  steps.forEach((step, i) => {
    for (const { field, to } of targetsOf(step))
      if (to !== NEXT && to !== END && (!ids.has(to) || to === step.id))
        throw refuseFlow(400, FLOW_MESSAGES.target, `steps[${i}].${field}`);
  });
  return steps;
}

/** A new step's id: short, random, never reused within a flow. */
export function newStepId(taken: readonly { id: string }[]): string {
  for (;;) {
    const candidate = randomBytes(4).toString("hex");
    if (!taken.some((s) => s.id === candidate)) return candidate;
  }
}
