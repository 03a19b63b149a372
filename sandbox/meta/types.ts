import type { ReceivedConversion } from "./datasets";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Router } from "express";

export type GraphStep =
  | "oauth"
  | "debug_token"
  | "subscribed_apps"
  | "phone_numbers"
  | "phone_number"
  | "register"
  | "deregister"
  | "waba"
  | "template.create"
  | "template.list"
  | "template.get"
  | "template.edit"
  | "template.delete"
  | "upload.create"
  | "upload.send"
  | "upload.status"
  | "messages.send"
  | "media.upload"
  | "media.get"
  | "media.download"
  | "media.delete"
  | "catalog.create"
  | "catalog.connect"
  | "catalog.get"
  | "catalog.product"
  | "catalog.batch"
  | "commerce_settings"
  | "dataset"
  | "dataset.events";

export const GRAPH_STEPS: readonly GraphStep[] = [
  "oauth",
  "debug_token",
  "subscribed_apps",
  "phone_numbers",
  "phone_number",
  "register",
  "deregister",
  "waba",
  "template.create",
  "template.list",
  "template.get",
  "template.edit",
  "template.delete",
  "upload.create",
  "upload.send",
  "upload.status",
  "messages.send",
  "media.upload",
  "media.get",
  "media.download",
  "media.delete",
  "catalog.create",
  "catalog.connect",
  "catalog.get",
  "catalog.product",
  "catalog.batch",
  "commerce_settings",
  "dataset",
  "dataset.events",
];

export type TemplateCategory = "MARKETING" | "UTILITY" | "AUTHENTICATION";
export type ParameterFormat = "POSITIONAL" | "NAMED";

/** Statuses a template has in the Graph API. */
export const TEMPLATE_STATUSES = [
  "APPROVED",
  "PENDING",
  "REJECTED",
  "PAUSED",
  "DISABLED",
  "IN_APPEAL",
  "PENDING_DELETION",
  "DELETED",
  "LIMIT_EXCEEDED",
  "ARCHIVED",
] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/**
 * message_template_status_update events setTemplateStatus sends. FLAGGED changes no status (the
 * template stays usable, at risk); REINSTATED makes it APPROVED again; DELETED deletes it.
 */
export const TEMPLATE_EVENTS = [
  "APPROVED",
  "REJECTED",
  "PENDING",
  "PAUSED",
  "DISABLED",
  "FLAGGED",
  "REINSTATED",
  "IN_APPEAL",
  "LIMIT_EXCEEDED",
  "ARCHIVED",
  "PENDING_DELETION",
  "DELETED",
] as const;
export type TemplateEvent = (typeof TEMPLATE_EVENTS)[number];

/** Rejection reasons Meta names in the status webhook ("NONE" when not rejected). */
export const TEMPLATE_REASONS = [
  "NONE",
  "ABUSIVE_CONTENT",
  "INCORRECT_CATEGORY",
  "INVALID_FORMAT",
  "PROMOTIONAL",
  "SCAM",
  "TAG_CONTENT_MISMATCH",
] as const;
export type TemplateReason = (typeof TEMPLATE_REASONS)[number];

export const QUALITY_SCORES = ["GREEN", "YELLOW", "RED", "UNKNOWN"] as const;
export type TemplateQualityScore = (typeof QUALITY_SCORES)[number];

/** A template as the sandbox holds it (templates(), GET control/templates). */
export interface SandboxTemplate {
  /** Numeric string, below 2^53 (webhooks carry it as a JSON number). */
  id: string;
  wabaId: string;
  name: string;
  language: string;
  category: TemplateCategory;
  /** Set when Meta re-categorised the template. */
  previousCategory: TemplateCategory | null;
  parameterFormat: ParameterFormat;
  components: Record<string, unknown>[];
  status: TemplateStatus;
  rejectedReason: string;
  rejectionInfo: { reason: string; recommendation: string } | null;
  qualityScore: TemplateQualityScore;
  /** ISO times (sandbox clock). */
  createdAt: string;
  updatedAt: string;
  /** When the reviewer decides this PENDING template (ISO, sandbox clock); null when not pending. */
  reviewAt: string | null;
}

/** A Resumable Upload API session (uploads(), GET control/uploads). */
export interface SandboxUpload {
  /** "upload:<key>" (without its signature). */
  id: string;
  fileName: string;
  fileType: string;
  fileLength: number;
  /** Bytes received so far. */
  fileOffset: number;
  /** The handle ("4::…") once the last byte arrived; template creation accepts it in example.header_handle. */
  handle: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** What the reviewer decided for one template. */
export interface TemplateDecision {
  templateId: string;
  wabaId: string;
  name: string;
  language: string;
  status: "APPROVED" | "REJECTED";
  reason: "NONE" | "INVALID_FORMAT";
  /** The category after the decision (MARKETING when re-categorised). */
  category: TemplateCategory;
  /** Set when the decision re-categorised the template (UTILITY). */
  previousCategory?: TemplateCategory;
}

/** createTemplateAtMeta: a template made in Meta's Business Manager. */
export interface TemplateAtMetaInput {
  name: string;
  language: string;
  category: TemplateCategory | Lowercase<TemplateCategory>;
  /** Checked like the Graph API; default one BODY without parameters. */
  components?: Record<string, unknown>[];
  parameterFormat?: ParameterFormat | Lowercase<ParameterFormat>;
  /** Default APPROVED; PENDING goes through the reviewer. */
  status?: TemplateStatus;
  /** Default UNKNOWN. */
  qualityScore?: TemplateQualityScore;
}

export interface MetaSandboxOptions {
  appId: string;
  appSecret: string;
  /** If set, the dialog refuses other config_id values. */
  configId?: string;
  /** Where signed webhooks are POSTed (the app's /webhooks/whatsapp); see setWebhookUrl. */
  webhookUrl: string;
  /** JSON file for persistence across restarts (written atomically, debounced); omit = memory only. */
  statePath?: string;
  /** Where the router is mounted, for links in HTML; default "/sandbox/meta". */
  publicPath?: string;
  /**
   * Also know the admin console's demo WhatsApp accounts (console-demo.ts), with their derived ids
   * and tokens: on beside Jumbe's demo seed (sandbox mode); default off.
   */
  consoleDemo?: boolean;
  /**
   * The demo business connected to Jumbe's demo tenant (business-demo.ts): its number registered,
   * WABA subscribed, token accepted, these templates approved and these customers' windows open.
   * Sandbox mode passes it beside the demo seed; default none (the demo number waits for a signup).
   */
  demoConnection?: DemoConnection;
  /** Default 30_000. */
  codeTtlMs?: number;
  /** 0 = never expires (debug_token expires_at: 0); default 0. */
  tokenTtlSeconds?: number;
  /** Default { attempts: 8, baseDelayMs: 1000 }; the delay doubles each time. */
  webhookRetry?: { attempts: number; baseDelayMs: number };
  /** Default 20: changes queued within this window go out in one POST. */
  batchWindowMs?: number;
  /** Clock (ms) for tests. */
  now?: () => number;
  /**
   * Set on a demo host (SANDBOX_CONTROL_TOKEN): the control API, the console and its forms ask for
   * it. Unset: open, as in development. The dialog and the Graph API stay open either way.
   */
  controlToken?: string;
  /** Mark the console's token cookie Secure (an https site). */
  secureCookie?: boolean;
  /**
   * The reviewer decides a submitted (created or edited) template this long after submission;
   * default 3000; 0 = right after the Graph answer went out.
   */
  templateReviewDelayMs?: number;
  /**
   * When each status webhook of an accepted message goes out, in ms after the send was accepted;
   * default { sent: 200, delivered: 800, read: 3000 } (env META_SANDBOX_STATUS_DELAYS_MS="200,800,3000").
   * 0 queues the status with the send's answer.
   */
  statusDelaysMs?: Partial<StatusDelays>;
  /**
   * Messages per second one business number may send (Meta's default 80; more answers 130429);
   * 0 switches the limit off. Default 80 (env META_SANDBOX_THROUGHPUT).
   */
  throughputPerSecond?: number;
  /**
   * Meta's pair rate limit: one message per 6 s to the same customer, with bursts of up to 45
   * (more answers 131056). Default on (env META_SANDBOX_PAIR_RATE=0 switches it off).
   */
  pairRateLimit?: boolean;
  /** Sent messages kept for look-ups and the control API, the oldest dropped first. Default 10,000. */
  keepMessages?: number;
  /**
   * How a free-form send outside the 24-hour window fails (131047, decision 111): "async" (the
   * default, what Cloud API accounts see today) accepts it with a wamid and then sends a `failed`
   * status webhook with the error; "sync" answers 400 with the error at once. Per number:
   * setReengagement / POST control/phone-numbers/{id}/reengagement. Env META_SANDBOX_REENGAGEMENT.
   */
  reengagement?: ReengagementMode;
}

/** Where 131047 (re-engagement) surfaces: in a failed status webhook, or in the send's own answer. */
export type ReengagementMode = "async" | "sync";
export const REENGAGEMENT_MODES: readonly ReengagementMode[] = ["async", "sync"];

export interface StatusDelays {
  sent: number;
  delivered: number;
  read: number;
}

/** A message Jumbe sent that the sandbox accepted (messages(), GET control/messages). */
export interface SandboxMessage {
  wamid: string;
  phoneNumberId: string;
  /** `to` as sent, and the wa_id the sandbox answered. */
  to: string;
  waId: string;
  type: string;
  /** Template sends: the template's name, language and category. */
  template?: { name: string; language: string; category: TemplateCategory };
  /** The request body as received. */
  body: Record<string, unknown>;
  /** biz_opaque_callback_data, echoed on every status webhook. */
  callbackData?: string;
  /** What the status ladder does: "read" (sent → delivered → read), "delivered", "sent", or "failed <code>". */
  outcome: string;
  /** Statuses whose webhooks were queued so far, in order. */
  statuses: string[];
  pricing: { type: string; category: string } | null;
  /** ISO time accepted (sandbox clock). */
  acceptedAt: string;
}

/** A simulated customer message (sendInbound, POST control/inbound). */
export interface InboundInput {
  phoneNumberId: string;
  /** The customer's number in digits; may be left out for a username-only customer (then userId is needed). */
  from?: string;
  name?: string;
  /** 2026 business-scoped user id (BSUID), e.g. "KE.1234567890". */
  userId?: string;
  /** A username-only customer's username (a guess at Meta's field: contacts[].profile.username). */
  username?: string;
  /** Default "text". */
  type?: InboundType;
  text?: string;
  caption?: string;
  /** document: the file's name. */
  filename?: string;
  /** audio: a voice note. */
  voice?: boolean;
  /** sticker: animated. */
  animated?: boolean;
  /** location. */
  latitude?: number;
  longitude?: number;
  locationName?: string;
  address?: string;
  /** contacts: the shared contact's name and number. */
  contactName?: string;
  contactPhone?: string;
  /** button (template quick reply): payload and text. */
  payload?: string;
  /** interactive replies: the reply's id, title and (list) description. */
  replyId?: string;
  title?: string;
  description?: string;
  /** button / interactive: the wamid replied to (a message the business sent). */
  contextId?: string;
  /** reaction: the wamid reacted to and the emoji ("" removes it). */
  messageId?: string;
  emoji?: string;
  /** order: the cart the customer sends from a product message (prices in major units, as Meta sends them). */
  order?: {
    catalogId: string;
    text?: string;
    items: { retailerId: string; quantity: number; itemPrice: number; currency: string }[];
  };
  /** system user_changed_number: the customer's new number. */
  newWaId?: string;
  /**
   * How long ago the customer sent it, in whole seconds (0 to 30 days; default 0): its `timestamp` is
   * that far in the past, as when Meta delivers a webhook late. The 24-hour window runs from then.
   */
  ageSeconds?: number;
  /**
   * A Click-to-WhatsApp ad the customer tapped before writing (reference commerce §2.1): the message
   * carries its `referral`, and an answer within 24 hours opens a 72-hour free entry window.
   */
  ad?: InboundAd;
}

/** A made-up ad: its id, words and picture; the click id is generated when left out. */
export interface InboundAd {
  sourceId: string;
  headline: string;
  body: string;
  sourceType?: "ad" | "post";
  sourceUrl?: string;
  imageUrl?: string;
  ctwaClid?: string;
  welcomeMessage?: string;
}

export const INBOUND_TYPES = [
  "text",
  "image",
  "video",
  "audio",
  "document",
  "sticker",
  "location",
  "contacts",
  "button",
  "button_reply",
  "list_reply",
  "reaction",
  "order",
  "unsupported",
  "user_changed_number",
] as const;
export type InboundType = (typeof INBOUND_TYPES)[number];

export interface GraphFaultError {
  status?: number;
  code: number;
  subcode?: number;
  message?: string;
  type?: string;
  isTransient?: boolean;
}

export interface GraphFault {
  step: GraphStep;
  error: GraphFaultError;
  /** Default 1; Infinity allowed. */
  times?: number;
}

export interface CallRecord {
  /** ISO time (sandbox clock). */
  at: string;
  method: string;
  /** Path under the Graph root with its query, secrets redacted: "/v23.0/debug_token?input_token=[redacted]&…". */
  path: string;
  status: number;
  step?: GraphStep;
  errorCode?: number;
}

export interface DeliveryRecord {
  id: string;
  /** ISO time the delivery was created (sandbox clock). */
  at: string;
  /** The URL of the last attempt. */
  url: string;
  /** The change fields in the body, e.g. ["messages", "account_update"]. */
  fields: string[];
  /** The exact string sent (and signed). */
  body: string;
  signature: string;
  attempts: number;
  /** HTTP status of the last attempt; null before the first attempt or after a network error. */
  lastStatus: number | null;
  lastError?: string;
  state: "pending" | "delivered" | "failed";
  /** For duplicate-chaos copies: the id of the delivery this one copies. */
  copyOf?: string;
}

export interface DeliveryChaos {
  /** Extra copies of each delivery (0–10). */
  duplicate?: number;
  /** One change per POST, held briefly and sent in reverse order. */
  reorder?: boolean;
  /** Wait before the first attempt of each delivery (ms). */
  delayMs?: number;
}

export interface MetaSandbox {
  router: Router;
  /**
   * For a server of its own (the standalone sandbox): answers Graph's send endpoint without Express
   * when it can, before the router; true when it took the request.
   */
  sendFastPath(req: IncomingMessage, res: ServerResponse): boolean;
  setWebhookUrl(url: string): void;
  /**
   * `registered`: the number starts registered on the Cloud API (CONNECTED), as if Jumbe had registered it.
   * `owner`: the signup dialog's `sandbox_user` it belongs to (the dialog offers it to that user only).
   */
  createTestBusiness(input?: {
    businessName?: string;
    wabaName?: string;
    verifiedName?: string;
    displayPhoneNumber?: string;
    registered?: boolean;
    owner?: string;
  }): {
    businessId: string;
    wabaId: string;
    phoneNumberId: string;
    displayPhoneNumber: string;
  };
  addPhoneNumber(
    wabaId: string,
    input?: { verifiedName?: string; displayPhoneNumber?: string; registered?: boolean },
  ): { phoneNumberId: string; displayPhoneNumber: string };
  issueCode(input: { businessId: string; wabaIds: string[] }): string;
  injectFault(fault: GraphFault): void;
  clearFaults(): void;
  sendInboundText(input: { phoneNumberId: string; from: string; name?: string; text: string }): Promise<{ wamid: string }>;
  /** Any inbound message type; opens (or extends) the customer service window. Media types answer their media id. */
  sendInbound(input: InboundInput): Promise<{ wamid: string; mediaId?: string }>;
  /** Messages the sandbox accepted, oldest first (the last 10,000); of one number and/or one recipient when given. */
  messages(filter?: { phoneNumberId?: string; to?: string }): SandboxMessage[];
  /** The conversion events the Conversions API accepted (datasets.ts), oldest first, each once. */
  conversionEvents(): ReceivedConversion[];
  /**
   * How this number's free-form sends outside the 24-hour window fail (131047): "async" (accepted,
   * then a failed status), "sync" (400 at once); undefined goes back to the sandbox's default. A
   * reset forgets it.
   */
  setReengagement(phoneNumberId: string, mode: ReengagementMode | undefined): void;
  sendStatus(input: {
    phoneNumberId: string;
    wamid: string;
    status: "sent" | "delivered" | "read" | "failed";
    recipientId: string;
    errorCode?: number;
  }): Promise<void>;
  sendQualityUpdate(input: {
    phoneNumberId: string;
    event: "FLAGGED" | "UNFLAGGED" | "UPGRADE" | "DOWNGRADE" | "THROUGHPUT_UPGRADE";
    currentLimit?: string;
  }): Promise<void>;
  sendAccountUpdate(input: { wabaId: string; event: string }): Promise<void>;
  sendRaw(body: unknown): Promise<void>;
  /** Templates, oldest first; of one WABA when given. */
  templates(wabaId?: string): SandboxTemplate[];
  /** A template made in Meta's Business Manager: stored, no webhook; status given or APPROVED. */
  createTemplateAtMeta(wabaId: string, input: TemplateAtMetaInput): SandboxTemplate;
  /**
   * Changes the template's status as Meta would and sends message_template_status_update;
   * `silent` changes the state without the webhook (a missed webhook). Reason: "NONE", or
   * INVALID_FORMAT for REJECTED, unless given.
   */
  setTemplateStatus(
    templateId: string,
    event: TemplateEvent,
    options?: { reason?: TemplateReason; silent?: boolean },
  ): Promise<SandboxTemplate>;
  /** Deletes one template as in Business Manager: the DELETED webhook (reason null) unless silent. */
  deleteTemplateAtMeta(templateId: string, options?: { silent?: boolean }): Promise<void>;
  /** Sets the template's quality score and sends message_template_quality_update. */
  sendTemplateQualityUpdate(templateId: string, newScore: TemplateQualityScore): Promise<void>;
  /**
   * Decides every PENDING template now (the reviewer's rules) and returns the decisions; `only`
   * narrows it to one WABA's templates or one template.
   */
  reviewTemplatesNow(only?: { wabaId?: string; templateId?: string }): Promise<TemplateDecision[]>;
  /** Resumable Upload API sessions, oldest first. */
  uploads(): SandboxUpload[];
  setDeliveryChaos(chaos: DeliveryChaos): void;
  flushWebhooks(): Promise<void>;
  calls(): CallRecord[];
  deliveries(): DeliveryRecord[];
  reset(): void;
  close(): Promise<void>;
}

/** Options with every default filled in. */
export interface ResolvedOptions {
  appId: string;
  appSecret: string;
  configId?: string;
  statePath?: string;
  publicPath: string;
  consoleDemo: boolean;
  demoConnection?: DemoConnection;
  codeTtlMs: number;
  tokenTtlSeconds: number;
  webhookRetry: { attempts: number; baseDelayMs: number };
  batchWindowMs: number;
  templateReviewDelayMs: number;
  statusDelaysMs: StatusDelays;
  /** 0 = off. */
  throughputPerSecond: number;
  pairRateLimit: boolean;
  keepMessages: number;
  reengagement: ReengagementMode;
  now: () => number;
}

export const APP_NAME = "Jumbe Sandbox";

/** The demo business a Jumbe demo tenant is connected to (business-demo.ts makes its ids). */
export interface DemoConnection {
  /** The tenant's name: the demo business and its WABA take it. */
  businessName: string;
  /** The number's display name (verified name). */
  verifiedName: string;
  /** The tenant's approved templates, in Meta's shape. */
  templates: { name: string; language: string; category: TemplateCategory; components: Record<string, unknown>[] }[];
  /**
   * The customers who wrote to the demo number in the last 24 hours, as Jumbe stored their messages,
   * so the sandbox's service windows are open where Jumbe's are (and their wamids can be marked read).
   */
  customersWrote?: { waId: string; wamid: string; at: number }[];
}
