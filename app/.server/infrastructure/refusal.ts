/**
 * Why Jumbe will not do what was asked: the HTTP status to answer, a stable code for programs, the
 * sentence people read (word for word as the product says it), and the form field it is about when
 * there is one. Nothing has changed when one is thrown. Routes catch this one class and answer it
 * through http/refusal-reply.ts (decision 056).
 */
export class Refusal extends Error {
  readonly status: RefusalStatus;
  readonly code: string;
  readonly field?: string;
  /**
   * Which part of Jumbe refused. Routes never look at it; a domain does where it treats another's
   * refusal in its own way (a campaign turns the sending engine's refusal into a left-out recipient).
   */
  readonly domain: RefusalDomain;
  /** What the form held when it was refused before it was read to the end (shown again without JavaScript). */
  values?: Record<string, string>;

  constructor(init: RefusalInit) {
    super(init.message);
    this.name = "Refusal";
    this.status = init.status;
    this.code = init.code ?? CODE_OF_STATUS[init.status];
    this.field = init.field;
    this.domain = init.domain;
  }
}

export type RefusalStatus = 400 | 402 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 502 | 503;

export type RefusalDomain =
  | "admin_billing"
  | "ads"
  | "automation"
  | "admin_whatsapp"
  | "admin_templates"
  | "billing"
  | "campaign"
  | "contact"
  | "import"
  | "inbox"
  | "integration"
  | "media"
  | "notification_rules"
  | "organisation"
  | "partner"
  | "payment"
  | "quick_reply"
  | "send"
  | "shop"
  | "sms"
  | "staff"
  | "start"
  | "team"
  | "tenant"
  | "two_factor";

export interface RefusalInit {
  domain: RefusalDomain;
  status: RefusalStatus;
  /** Without one, the status's own (refusals that programs never read). */
  code?: string;
  message: string;
  field?: string;
}

// Refusals that only people read had no code before this class; they get their status's.
const CODE_OF_STATUS: Record<RefusalStatus, string> = {
  400: "invalid_request",
  402: "payment_required",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "invalid",
  429: "rate_limited",
  502: "bad_gateway",
  503: "unavailable",
};

/** True for a refusal (of one of `domains`, when given). */
export function isRefusal(error: unknown, ...domains: RefusalDomain[]): error is Refusal {
  return error instanceof Refusal && (domains.length === 0 || domains.includes(error.domain));
}
