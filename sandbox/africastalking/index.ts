import { Router } from "express";
import { sandboxGate } from "../access";
import { incomingAction, optOutAction, type Outcome } from "./actions";
import { apiRouter } from "./api";
import { CallbackSender, type CallbackChaos, type CallbackRecord } from "./callbacks";
import { consoleRouter } from "./console";
import type { AfricastalkingContext, ResolvedOptions } from "./context";
import { accountView, controlRouter } from "./control";
import { SmsState, toKes4, type AccountInput, type IncomingMessage, type SentMessage } from "./state";

export { SEND_REFUSALS, FAILURE_REASONS, SLOW_ANSWER_NUMBER, reportSteps } from "./magic";
export { countParts } from "./parts";
export type { AccountInput, SentMessage, IncomingMessage } from "./state";
export type { CallbackRecord, CallbackChaos } from "./callbacks";

export interface AfricastalkingSandboxOptions {
  /** The AT applications the sandbox knows: username, API key, senders, shortcodes, balance, callback URLs. */
  accounts: AccountInput[];
  /** Where the router is mounted. Default "/sandbox/africastalking". */
  publicPath?: string;
  /** SANDBOX_CONTROL_TOKEN: the console and control API ask for it when set (sandbox/access.ts). */
  controlToken?: string;
  secureCookie?: boolean;
  /** KES a part. Default 0.80 (AT's sample answers). */
  pricePerPartKes?: number;
  /** Before a callback's first attempt, doubling between retries. Default 1000; tests 0. */
  callbackDelayMs?: number;
  /** Before the magic late number's report. Default 600000 (10 minutes); flush() sends it at once. */
  lateReportDelayMs?: number;
  /** How long a send to the magic slow number (+254700001500) holds its answer. Default 60000, past Jumbe's timeout. */
  slowAnswerMs?: number;
  /** Attempts per callback until the receiver answers 200. Default 6. */
  callbackAttempts?: number;
  /** "sandbox" (default): reports carry networkCode 99999 as AT's sandbox; "kenya": the number's network. */
  networkCodes?: "sandbox" | "kenya";
  now?: () => number;
}

export interface AfricastalkingSandbox {
  router: Router;
  close(): Promise<void>;
  setAccount(input: AccountInput): void;
  setBalance(username: string, balanceKes: number): void;
  accounts(): ReturnType<typeof accountView>[];
  /** Newest first. */
  sent(): SentMessage[];
  inbox(): IncomingMessage[];
  callbacks(): CallbackRecord[];
  /** A subscriber texts a shortcode (as the console's phone does). */
  receive(input: { from: string; to: string; text: string; username?: string }): Outcome;
  optOut(input: { senderId: string; phoneNumber: string; username?: string }): Outcome;
  setChaos(chaos: Partial<CallbackChaos>): void;
  /** Sends every pending callback now (late reports too); resolves once none is pending. */
  flush(): Promise<void>;
  reset(): void;
}

function nonNegative(value: number | undefined, fallback: number, name: string) {
  const n = value ?? fallback;
  if (!Number.isFinite(n) || n < 0) throw new Error(`createAfricastalkingSandbox: ${name} must be 0 or more.`);
  return n;
}

function resolveOptions(input: AfricastalkingSandboxOptions): ResolvedOptions & { delayMs: number; lateMs: number; attempts: number } {
  if (!Array.isArray(input?.accounts)) throw new Error("createAfricastalkingSandbox: accounts is required (an array).");
  const publicPath = (input.publicPath ?? "/sandbox/africastalking").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createAfricastalkingSandbox: publicPath must start with "/".');
  const attempts = input.callbackAttempts ?? 6;
  if (!Number.isInteger(attempts) || attempts < 1) throw new Error("createAfricastalkingSandbox: callbackAttempts must be at least 1.");
  return {
    publicPath,
    pricePerPart: toKes4(nonNegative(input.pricePerPartKes, 0.8, "pricePerPartKes")),
    networkCodes: input.networkCodes ?? "sandbox",
    now: input.now ?? Date.now,
    slowAnswerMs: nonNegative(input.slowAnswerMs, 60_000, "slowAnswerMs"),
    delayMs: nonNegative(input.callbackDelayMs, 1000, "callbackDelayMs"),
    lateMs: nonNegative(input.lateReportDelayMs, 600_000, "lateReportDelayMs"),
    attempts,
  };
}

/**
 * A local stand-in for Africa's Talking's bulk SMS API in Kenya: sends with per-recipient status
 * codes and costs, the account's balance, magic numbers for every failure, delivery reports, incoming
 * SMS to shortcodes and opt-outs as form POSTs with retries, the inbox fetch, the balance, a JSON
 * control API for tests and a phone console. State lives in memory.
 */
export function createAfricastalkingSandbox(input: AfricastalkingSandboxOptions): AfricastalkingSandbox {
  const options = resolveOptions(input);
  const state = new SmsState(input.accounts);
  const sender = new CallbackSender({
    delayMs: options.delayMs,
    lateDelayMs: options.lateMs,
    attempts: options.attempts,
    now: options.now,
    onDelivered(record) {
      if (record.kind !== "delivery" || !record.messageId) return;
      const found = state.findRecipient(record.messageId);
      if (found) found.recipient.reported = record.status;
    },
  });
  const ctx: AfricastalkingContext = { options, state, sender };

  const router = Router({ caseSensitive: true });
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/token`,
    home: options.publicPath,
  });
  // The API is Jumbe's server (the account's API key); the console and control API are the tester's.
  router.use(apiRouter(ctx));
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
    setAccount: (account) => void state.upsert(account),
    setBalance(username, balanceKes) {
      const account = state.account(username);
      if (!account) throw new Error(`Africa's Talking sandbox: no account ${username}.`);
      account.balance = toKes4(balanceKes);
    },
    accounts: () => [...state.accounts.values()].map(accountView),
    sent: () => structuredClone(state.sent.slice().reverse()),
    inbox: () => structuredClone(state.inbox.slice().reverse()),
    callbacks: () => sender.list(),
    receive: (message) => incomingAction(ctx, message),
    optOut: (request) => optOutAction(ctx, request),
    setChaos(chaos) {
      sender.chaos = { duplicate: chaos.duplicate ?? 0, reorder: chaos.reorder ?? false };
    },
    flush: () => sender.flush(),
    reset() {
      state.reset();
      sender.reset();
    },
  };
}
