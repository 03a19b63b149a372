import { Router } from "express";
import { sandboxGate } from "../access";
import { apiRouter } from "./api";
import type { CardOutcome } from "./cards";
import { checkoutRouter } from "./checkout";
import { consoleRouter } from "./console";
import type { PaystackContext, ResolvedOptions } from "./context";
import { controlRouter, payByControl, transactionView, type TransactionView } from "./control";
import { PaymentDesk } from "./payments";
import { TransactionStore } from "./state";
import { WebhookSender, type WebhookRecord } from "./webhooks";

export { TEST_CARDS, TEST_OTP, OTP_FAILED_RESPONSE, type CardOutcome, type TestCard } from "./cards";
export { paystackSignature, type WebhookRecord, type WebhookAttempt } from "./webhooks";
export type { TransactionView } from "./control";

export interface PaystackSandboxOptions {
  /** The key Jumbe sends as Bearer and the webhooks are signed with (PAYSTACK_SECRET_KEY). */
  secretKey: string;
  /** Where the router is mounted; checkout links use it. Default "/sandbox/paystack". */
  publicPath?: string;
  /** SANDBOX_CONTROL_TOKEN: the console and control API ask for it when set (sandbox/access.ts). */
  controlToken?: string;
  secureCookie?: boolean;
  /** Where `charge.success` goes; settable later (setWebhookUrl). Without one, webhooks fail. */
  webhookUrl?: string;
  /** Before a webhook's first attempt, doubling between retries. Default 1000; tests 0. */
  webhookDelayMs?: number;
  /** Attempts per webhook until the receiver answers 200. Default 5. */
  webhookAttempts?: number;
  /** The name the checkout shows. Default "Jumbe". */
  merchantName?: string;
  /** The origin of authorization URLs (Jumbe: APP_URL); default the origin initialize was called at. */
  publicOrigin?: () => string;
  now?: () => number;
}

export interface PaystackSandbox {
  router: Router;
  close(): Promise<void>;
  setWebhookUrl(url: string): void;
  /** Newest first. */
  transactions(): TransactionView[];
  transaction(reference: string): TransactionView | undefined;
  /** Pays as the checkout would ("3ds": with the documented OTP unless `otp` says otherwise). */
  pay(reference: string, card: CardOutcome, otp?: string): TransactionView;
  webhooks(): WebhookRecord[];
  /** Resolves once no webhook delivery is pending. */
  flushWebhooks(): Promise<void>;
  resendWebhook(index: number): WebhookRecord | undefined;
  reset(): void;
}

function checkWebhookUrl(url: string | undefined) {
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return url;
  } catch {
    // refused below
  }
  throw new Error(`Paystack sandbox: the webhook URL must be an absolute http(s) URL; got "${url}".`);
}

function resolveOptions(input: PaystackSandboxOptions): ResolvedOptions & { delayMs: number; attempts: number } {
  if (!input?.secretKey) throw new Error("createPaystackSandbox: secretKey is required.");
  const publicPath = (input.publicPath ?? "/sandbox/paystack").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createPaystackSandbox: publicPath must start with "/".');
  const delayMs = input.webhookDelayMs ?? 1000;
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new Error("createPaystackSandbox: webhookDelayMs must be 0 or more.");
  const attempts = input.webhookAttempts ?? 5;
  if (!Number.isInteger(attempts) || attempts < 1) throw new Error("createPaystackSandbox: webhookAttempts must be at least 1.");
  return {
    secretKey: input.secretKey,
    publicPath,
    merchantName: input.merchantName ?? "Jumbe",
    publicOrigin: input.publicOrigin,
    now: input.now ?? Date.now,
    delayMs,
    attempts,
  };
}

/**
 * A local stand-in for Paystack's card payments in KES: initialize and verify with Paystack's
 * envelopes and errors, the hosted checkout (test cards, 3-D Secure), the signed `charge.success`
 * webhook with retries, a JSON control API for tests and a console. State lives in memory.
 */
export function createPaystackSandbox(input: PaystackSandboxOptions): PaystackSandbox {
  const options = resolveOptions(input);
  let webhookUrl = checkWebhookUrl(input.webhookUrl);
  const store = new TransactionStore(options.now);
  const sender = new WebhookSender({
    secretKey: options.secretKey,
    url: () => webhookUrl,
    delayMs: options.delayMs,
    attempts: options.attempts,
    now: options.now,
  });
  const domain = options.secretKey.startsWith("sk_live_") ? "live" : "test";
  const desk = new PaymentDesk(store, sender, domain, options.now);
  const ctx: PaystackContext = { options, store, sender, desk, domain };

  const router = Router({ caseSensitive: true });
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/token`,
    home: options.publicPath,
  });
  // The API is Jumbe's server (its secret key); the checkout is the payer's: neither is gated.
  router.use(apiRouter(ctx));
  router.use(checkoutRouter(ctx));
  router.post("/token", ...gate.login);
  router.use("/control", gate.json, controlRouter(ctx));
  router.use(gate.page, consoleRouter(ctx));

  let closed = false;
  return {
    router,
    async close() {
      if (closed) return;
      closed = true;
      sender.close();
    },
    setWebhookUrl(url) {
      webhookUrl = checkWebhookUrl(url);
    },
    transactions: () => store.list().map((tx) => transactionView(ctx, tx)),
    transaction(reference) {
      const tx = store.get(reference);
      return tx ? transactionView(ctx, tx) : undefined;
    },
    pay(reference, card, otp) {
      const answer = payByControl(ctx, reference, { card, otp });
      if (answer.status !== 200) throw new Error(String(answer.body.message));
      return answer.body.transaction as TransactionView;
    },
    webhooks: () => sender.list(),
    flushWebhooks: () => sender.flush(),
    resendWebhook: (index) => sender.resend(index),
    reset() {
      store.reset();
      sender.reset();
    },
  };
}
