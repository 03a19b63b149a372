import type { Router } from "express";

export type GraphStep = "oauth" | "debug_token" | "subscribed_apps" | "phone_numbers" | "phone_number" | "register" | "deregister" | "waba";

export const GRAPH_STEPS: readonly GraphStep[] = [
  "oauth",
  "debug_token",
  "subscribed_apps",
  "phone_numbers",
  "phone_number",
  "register",
  "deregister",
  "waba",
];

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
  now: () => number;
}

export const APP_NAME = "Jumbe Sandbox";
