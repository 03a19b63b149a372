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
  | "upload.status";

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
}

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
  setWebhookUrl(url: string): void;
  createTestBusiness(input?: { businessName?: string; wabaName?: string; verifiedName?: string; displayPhoneNumber?: string }): {
    businessId: string;
    wabaId: string;
    phoneNumberId: string;
    displayPhoneNumber: string;
  };
  addPhoneNumber(
    wabaId: string,
    input?: { verifiedName?: string; displayPhoneNumber?: string },
  ): { phoneNumberId: string; displayPhoneNumber: string };
  issueCode(input: { businessId: string; wabaIds: string[] }): string;
  injectFault(fault: GraphFault): void;
  clearFaults(): void;
  sendInboundText(input: { phoneNumberId: string; from: string; name?: string; text: string }): Promise<{ wamid: string }>;
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
  codeTtlMs: number;
  tokenTtlSeconds: number;
  webhookRetry: { attempts: number; baseDelayMs: number };
  batchWindowMs: number;
  templateReviewDelayMs: number;
  now: () => number;
}

export const APP_NAME = "Jumbe Sandbox";
