import { Router } from "express";
import { sandboxGate } from "../access";
import { darajaRouter } from "./api";
import { C2bDesk } from "./c2b";
import { consoleRouter } from "./console";
import type { MpesaContext } from "./context";
import { controlRouter } from "./control";
import { CallbackPoster } from "./deliveries";
import { PromptDesk } from "./prompts";
import {
  SANDBOX_CREDENTIAL_PRIVATE_KEY,
  SANDBOX_CREDENTIAL_PUBLIC_KEY,
  SANDBOX_INITIATOR_NAME,
  SANDBOX_INITIATOR_PASSWORD,
} from "./credential-keys";
import { PayoutDesk } from "./payouts";
import { ShortcodeBook, shortcodeFrom, ShortcodeInputError } from "./shortcodes";
import { TokenDesk } from "./tokens";
import type { MpesaSandbox, MpesaSandboxOptions, ResolvedOptions } from "./types";

export type {
  AnswerResult,
  C2bInput,
  C2bRegistration,
  C2bResult,
  CallbackKind,
  CallbackRecord,
  Delivery,
  DeliveryPlan,
  MpesaSandbox,
  MpesaSandboxOptions,
  MsisdnFormat,
  Outcome,
  Payout,
  Prompt,
} from "./types";
export { DELIVERIES, OUTCOMES } from "./types";
export { EMPTY_ACCOUNT_PIN, MAGIC_PHONES, RESULTS, WRONG_PIN } from "./prompts";
export { B2C_RESULTS, MAGIC_AMOUNTS, SANDBOX_INITIATOR_NAME, SANDBOX_INITIATOR_PASSWORD, sandboxCredentialKeys } from "./payouts";
export { SANDBOX_CREDENTIAL_PUBLIC_KEY } from "./credential-keys";
export { eatStamp, stkPasswordOf } from "./daraja-format";
export type { SandboxShortcode, SandboxShortcodeInput, SandboxShortcodeKind } from "./shortcodes";
export { ShortcodeInputError } from "./shortcodes";

/** The default shortcode (the options' own paybill) and the options' others, checked. */
function initialShortcodes(options: MpesaSandboxOptions) {
  const primary = { label: "Jumbe billing", consumerKey: options.consumerKey, consumerSecret: options.consumerSecret };
  const book = new ShortcodeBook([shortcodeFrom({ ...primary, passkey: options.passkey, shortcode: options.shortcode, kind: "paybill" })]);
  try {
    for (const extra of options.shortcodes ?? []) book.add(extra);
  } catch (error) {
    if (error instanceof ShortcodeInputError) throw new Error(`createMpesaSandbox: shortcodes: ${error.message}`);
    throw error;
  }
  return new ShortcodeBook(book.all());
}

function milliseconds(name: string, value: number | undefined, fallback: number) {
  const ms = value ?? fallback;
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`createMpesaSandbox: ${name} must be a number of milliseconds, 0 or more.`);
  return ms;
}

/** The credential's key pair: both halves given, or the sandbox's own (credential-keys.ts). */
function credentialKeys(options: MpesaSandboxOptions) {
  if (options.credentialPrivateKeyPem && options.credentialPublicKeyPem)
    return { privateKeyPem: options.credentialPrivateKeyPem, publicKeyPem: options.credentialPublicKeyPem };
  if (options.credentialPrivateKeyPem || options.credentialPublicKeyPem)
    throw new Error("createMpesaSandbox: credentialPrivateKeyPem and credentialPublicKeyPem go together.");
  return { privateKeyPem: SANDBOX_CREDENTIAL_PRIVATE_KEY, publicKeyPem: SANDBOX_CREDENTIAL_PUBLIC_KEY };
}

function resolveOptions(options: MpesaSandboxOptions): ResolvedOptions {
  for (const key of ["consumerKey", "consumerSecret", "shortcode", "passkey"] as const)
    if (!options?.[key]) throw new Error(`createMpesaSandbox: ${key} is required.`);
  if (!/^\d{5,7}$/.test(options.shortcode)) throw new Error("createMpesaSandbox: shortcode must be 5 to 7 digits.");
  const publicPath = (options.publicPath ?? "/sandbox/mpesa").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createMpesaSandbox: publicPath must start with "/".');
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3599;
  if (!Number.isInteger(tokenTtlSeconds) || tokenTtlSeconds < 1)
    throw new Error("createMpesaSandbox: tokenTtlSeconds must be a whole number of seconds, 1 or more.");
  return {
    consumerKey: options.consumerKey,
    consumerSecret: options.consumerSecret,
    shortcode: options.shortcode,
    passkey: options.passkey,
    publicPath,
    callbackDelayMs: milliseconds("callbackDelayMs", options.callbackDelayMs, 1500),
    promptTimeoutMs: milliseconds("promptTimeoutMs", options.promptTimeoutMs, 60_000),
    tokenTtlSeconds,
    validationTimeoutMs: milliseconds("validationTimeoutMs", options.validationTimeoutMs, 8000),
    callbackTimeoutMs: milliseconds("callbackTimeoutMs", options.callbackTimeoutMs, 10_000),
    c2bUrlKeywordCheck: options.c2bUrlKeywordCheck ?? true,
    transactionDescLimit: options.transactionDescLimit ?? "documented",
    initiatorName: options.initiatorName ?? SANDBOX_INITIATOR_NAME,
    initiatorPassword: options.initiatorPassword ?? SANDBOX_INITIATOR_PASSWORD,
    ...credentialKeys(options),
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    now: options.now ?? Date.now,
  };
}

/**
 * A local stand-in for Safaricom's Daraja API: OAuth, M-Pesa Express (STK push and query) with a
 * "phone" page where a person answers the prompt, callbacks with delivery chaos, C2B URL
 * registration and paybill payments, B2C payouts and the transaction status query, a console and a JSON control API. State is in memory.
 */
export function createMpesaSandbox(input: MpesaSandboxOptions): MpesaSandbox {
  const options = resolveOptions(input);
  const poster = new CallbackPoster({ fetch: options.fetch, timeoutMs: options.callbackTimeoutMs, now: options.now });
  const tokens = new TokenDesk({ ttlSeconds: options.tokenTtlSeconds, now: options.now });
  const shortcodes = initialShortcodes(input);
  const prompts = new PromptDesk(options, poster);
  const c2b = new C2bDesk(options, poster);
  const payouts = new PayoutDesk(options, poster);
  let closed = false;

  // Case-sensitive like the app's routing: /sandbox/mpesa/Control is not the control API.
  const router = Router({ caseSensitive: true });
  const sandbox: MpesaSandbox = {
    router,
    prompts: () => prompts.pending(),
    allPrompts: () => prompts.all(),
    prompt: (id) => prompts.get(id),
    answer: (id, outcome, plan) => prompts.answer(id, outcome, plan),
    setDefaultDelivery: (plan) => prompts.setDefaultPlan(plan),
    callbacks: () => poster.list(),
    registrations: () => c2b.list(),
    simulateC2b: (payment) => c2b.pay(payment),
    flush: () => poster.flush(),
    payouts: () => payouts.all(),
    payout: (id) => payouts.get(id),
    credentialCertificate: options.publicKeyPem,
    shortcodes: () => shortcodes.all(),
    addShortcode: (shortcode) => shortcodes.add(shortcode),
    tokenRequests: () => tokens.requestCount,
    revokeTokens: () => tokens.revokeAll(),
    reset() {
      prompts.reset();
      poster.reset();
      c2b.reset();
      payouts.reset();
      tokens.reset();
      shortcodes.reset();
    },
    async close() {
      if (closed) return;
      closed = true;
      prompts.close();
      poster.close();
    },
  };

  const ctx: MpesaContext = { options, tokens, shortcodes, prompts, c2b, payouts, poster, sandbox };
  // Daraja's own API is open (it has its OAuth); the phone, console and control API are gated (decision 012).
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/token`,
    home: options.publicPath,
  });
  router.use(darajaRouter(ctx));
  router.post("/token", ...gate.login);
  router.use("/control", gate.json, controlRouter(ctx));
  router.use(gate.page, consoleRouter(ctx));
  return sandbox;
}
