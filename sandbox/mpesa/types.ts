import type { Router } from "express";
import type { SandboxShortcode, SandboxShortcodeInput } from "./shortcodes";

/** How the "customer" answers an STK prompt, and the ResultCode each gives. */
export const OUTCOMES = ["accept", "cancel", "timeout", "wrong_pin", "insufficient_funds"] as const;
/**
 * The customer's answers, and two no customer picks: `push_failed`, the prompt never reached the
 * phone (1025); `not_permitted`, the push did not fit the shortcode's product, a till called as a
 * paybill or the other way round, or a PartyB not its own (2028).
 */
export type Outcome = (typeof OUTCOMES)[number] | "push_failed" | "not_permitted";

/** What happens to the callback of an answered prompt. `delayed` is `normal` with an extra delay. */
export const DELIVERIES = ["normal", "duplicate", "delayed", "lost"] as const;
export type Delivery = (typeof DELIVERIES)[number];

export interface DeliveryPlan {
  delivery: Delivery;
  /** Times the callback is sent with `duplicate` (2 or more; default 2). */
  duplicates: number;
  /** Extra delay before the callback, on top of callbackDelayMs. */
  delayMs: number;
}

export interface MpesaSandboxOptions {
  consumerKey: string;
  consumerSecret: string;
  /** The Lipa na M-Pesa Online shortcode (paybill) whose passkey signs STK requests: the default app's. */
  shortcode: string;
  passkey: string;
  /**
   * More shortcodes beside the default, each with its own Daraja app (consumer key and secret),
   * passkey and kind (paybill, or till with its store number and till number). A token from one
   * app may not use another's shortcode. The control API adds more at run time (POST /control/shortcodes).
   */
  shortcodes?: SandboxShortcodeInput[];
  /** Where the router is mounted (links in its pages). Default "/sandbox/mpesa". */
  publicPath?: string;
  /** SANDBOX_CONTROL_TOKEN: the console, phone page and control API ask for it when set. */
  controlToken?: string;
  secureCookie?: boolean;
  /** Answer to callback POST, in ms (default 1500, so a person sees the prompt page change). */
  callbackDelayMs?: number;
  /** A prompt nobody answers ends as 1037 after this (default 60 000). */
  promptTimeoutMs?: number;
  /** Life of an OAuth token in seconds (default 3599, what Daraja's expires_in says). */
  tokenTtlSeconds?: number;
  /** How long a C2B validation URL has to answer before ResponseType decides (default 8000). */
  validationTimeoutMs?: number;
  /** How long a callback POST may take (default 10 000). */
  callbackTimeoutMs?: number;
  /** B2C's initiator (default SANDBOX_INITIATOR_NAME) and its password (default SANDBOX_INITIATOR_PASSWORD). */
  initiatorName?: string;
  initiatorPassword?: string;
  /**
   * The private half of the key whose public half plays Safaricom's certificate (SecurityCredential
   * is the initiator password encrypted with it). Default: the sandbox's own pair (credential-keys.ts),
   * its public half on `sandbox.credentialCertificate`.
   */
  credentialPrivateKeyPem?: string;
  credentialPublicKeyPem?: string;
  /** Refuse C2B URLs with words Daraja's production refuses (mpesa, safaricom, sql, ...). Default true. */
  c2bUrlKeywordCheck?: boolean;
  /**
   * TransactionDesc's limit: "documented" (default), Safaricom's documented 1 to 13 characters, a
   * longer one refused with 400 `400.002.02`; "observed", what production is observed to do (any
   * length accepted, one over 182 characters then fails with ResultCode 1025). Decision 110.
   */
  transactionDescLimit?: "documented" | "observed";
  /** Callback and C2B POSTs go through this (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** The clock for timestamps and token expiry (default Date.now). Delays run on real timers. */
  now?: () => number;
}

export interface ResolvedOptions {
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  publicPath: string;
  callbackDelayMs: number;
  promptTimeoutMs: number;
  tokenTtlSeconds: number;
  validationTimeoutMs: number;
  callbackTimeoutMs: number;
  c2bUrlKeywordCheck: boolean;
  transactionDescLimit: "documented" | "observed";
  initiatorName: string;
  initiatorPassword: string;
  privateKeyPem: string;
  publicKeyPem: string;
  fetch: typeof fetch;
  now: () => number;
}

export type PromptState = "pending" | "done";

/** One accepted STK push: the prompt on the customer's "phone". */
export interface Prompt {
  MerchantRequestID: string;
  CheckoutRequestID: string;
  phone: string;
  partyA: string;
  /** PartyB: who is paid (the paybill, or a till's till number). */
  shortcode: string;
  /** BusinessShortCode: the paybill, or a till's store number. */
  businessShortCode: string;
  /** Who the prompt is for, in words: the shortcode's label and number. */
  payee: string;
  amount: number;
  accountReference: string;
  transactionDesc: string;
  transactionType: string;
  callbackUrl: string;
  createdAt: string;
  state: PromptState;
  /** The delivery plan this prompt was created with (chaos default or magic number). */
  plan: DeliveryPlan;
  outcome?: Outcome;
  resultCode?: number;
  resultDesc?: string;
  receipt?: string;
  answeredAt?: string;
}

export type CallbackKind = "stk" | "c2b_validation" | "c2b_confirmation" | "b2c_result" | "b2c_timeout" | "b2c_status";

/** One POST the sandbox made (or, for `lost`, would have made). */
export interface CallbackRecord {
  id: number;
  kind: CallbackKind;
  /** CheckoutRequestID for STK, TransID for C2B. */
  ref: string;
  url: string;
  body: unknown;
  /** 1-based copy number (duplicates send the same body more than once). */
  copy: number;
  /** The status code the receiver answered; null when lost, unreachable or not yet sent. */
  status: number | null;
  /** The receiver's answer (first 2 KB), when there was one. */
  answer?: string;
  error?: string;
  lost: boolean;
  at: string;
}

export interface C2bRegistration {
  shortCode: string;
  responseType: "Completed" | "Cancelled";
  confirmationUrl: string;
  validationUrl: string;
  version: "v1" | "v2";
  registeredAt: string;
}

export type MsisdnFormat = "plain" | "hashed" | "masked";

export interface C2bInput {
  msisdn: string;
  amount: number;
  billRefNumber: string;
  transId?: string;
  shortCode?: string;
  firstName?: string;
  commandId?: "CustomerPayBillOnline" | "CustomerBuyGoodsOnline";
  msisdnFormat?: MsisdnFormat;
  /** Times the confirmation is sent (default 1). */
  confirmations?: number;
}

export interface C2bResult {
  transId: string;
  shortCode: string;
  payload: Record<string, string>;
  validation:
    | { called: false; reason: string }
    | {
        called: true;
        url: string;
        status: number | null;
        answer: unknown;
        result: "accepted" | "rejected" | "unreachable";
        resultCode?: string;
      };
  /** completed: confirmation sent; rejected: validation said no; cancelled: unreachable validation with ResponseType Cancelled; unregistered: no URLs. */
  outcome: "completed" | "rejected" | "cancelled" | "unregistered";
  confirmations: { url: string; status: number | null; error?: string }[];
}

export interface AnswerResult {
  CheckoutRequestID: string;
  outcome: Outcome;
  ResultCode: number;
  ResultDesc: string;
  plan: DeliveryPlan;
  /** The callback body (the same for every copy). */
  callback: unknown;
  /** The POSTs made so far for this answer (all of them once the delay has passed). */
  deliveries: CallbackRecord[];
}

export interface MpesaSandbox {
  router: Router;
  /** Pending prompts, oldest first. */
  prompts(): Prompt[];
  /** Every prompt, pending or answered, newest first. */
  allPrompts(): Prompt[];
  prompt(checkoutRequestId: string): Prompt | undefined;
  /**
   * Answers a pending prompt as the customer. Resolves once its callbacks are sent (after their
   * delay), so a test can await it; throws on an unknown or already answered prompt.
   */
  answer(checkoutRequestId: string, outcome: Outcome, plan?: Partial<DeliveryPlan>): Promise<AnswerResult>;
  /** The delivery plan of prompts created from now on (magic numbers still decide their own). */
  setDefaultDelivery(plan: Partial<DeliveryPlan>): DeliveryPlan;
  /** Every POST made (STK callbacks and C2B calls), oldest first. */
  callbacks(): CallbackRecord[];
  registrations(): C2bRegistration[];
  /** A paybill payment: validation (when registered), then confirmation when accepted. */
  simulateC2b(input: C2bInput): Promise<C2bResult>;
  /** Resolves when every scheduled callback has been sent (or lost). */
  flush(): Promise<void>;
  /** B2C payouts accepted, newest first. */
  payouts(): Payout[];
  payout(originatorConversationId: string): Payout | undefined;
  /** The PEM public key that plays Safaricom's certificate: encrypt the initiator password with it. */
  credentialCertificate: string;
  /** The shortcodes the sandbox knows (the default first), with their apps' credentials. */
  shortcodes(): SandboxShortcode[];
  /** Adds a shortcode with its own app; throws ShortcodeInputError on bad or duplicate input. */
  addShortcode(input: SandboxShortcodeInput): SandboxShortcode;
  /** Number of OAuth token requests answered (any result), for client tests. */
  tokenRequests(): number;
  /** Makes every issued token invalid (as if expired). */
  revokeTokens(): void;
  reset(): void;
  close(): Promise<void>;
}

export type PayoutState = "accepted" | "paid" | "failed" | "expired";

/** One B2C request the sandbox accepted. */
export interface Payout {
  OriginatorConversationID: string;
  ConversationID: string;
  commandId: string;
  partyA: string;
  /** The receiver, 2547XXXXXXXX or 2541XXXXXXXX. */
  partyB: string;
  amount: number;
  remarks: string;
  occasion: string;
  resultUrl: string;
  queueTimeoutUrl: string;
  createdAt: string;
  state: PayoutState;
  resultCode?: number;
  resultDesc?: string;
  /** The M-Pesa receipt (TransactionID) of a paid payout. */
  receipt?: string;
  completedAt?: number;
  /** The result callback is never sent (magic 1404): only the status query tells. */
  silent: boolean;
}
