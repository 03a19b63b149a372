import { startWebhookReceiver } from "../test-receiver";
import { createPaystackSandbox, type PaystackSandboxOptions } from "./index";
import { serveSandboxForTest } from "../test-server";

export const SECRET_KEY = "sk_test_sandbox_tests_0123456789";

export type { ReceivedWebhook } from "../test-receiver";

/** A webhook receiver at /webhooks/paystack: records every POST and answers the queued statuses (then 200). */
export const startReceiver = () => startWebhookReceiver("/webhooks/paystack");

export interface Answer<T> {
  status: number;
  headers: Headers;
  json: T;
}

/** Paystack's envelope, with the transaction fields the tests read. */
export interface PaystackBody {
  status: boolean;
  message: string;
  data: {
    reference: string;
    access_code: string;
    authorization_url: string;
    status: string;
    paid_at: string | null;
    [field: string]: unknown;
  };
}

/** The control API's answers: lists, one transaction or webhook, or why a request was refused. */
export interface ControlBody {
  transactions: { reference: string; [field: string]: unknown }[];
  webhooks: { reference: string; state: string; [field: string]: unknown }[];
  transaction?: unknown;
  webhook?: unknown;
  message?: string;
}

/** The sandbox on a throwaway Express app on a free port, with a webhook receiver. */
export async function startPaystack(overrides: Partial<PaystackSandboxOptions> = {}) {
  const receiver = await startReceiver();
  const sandbox = createPaystackSandbox({
    secretKey: SECRET_KEY,
    webhookUrl: receiver.url,
    webhookDelayMs: 0,
    webhookAttempts: 3,
    ...overrides,
  });
  const server = await serveSandboxForTest("/sandbox/paystack", sandbox.router);
  const { origin, base } = server;

  async function call(path: string, init: RequestInit & { key?: string | null } = {}): Promise<Answer<PaystackBody>> {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? SECRET_KEY : init.key;
    if (key !== null) headers.set("Authorization", `Bearer ${key}`);
    if (init.body && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
    const response = await fetch(`${base}${path}`, { ...init, headers });
    return { status: response.status, headers: response.headers, json: await response.json() };
  }

  const initialize = (body: Record<string, unknown>, key?: string | null) =>
    call("/transaction/initialize", { method: "POST", body: JSON.stringify(body), key });

  const verify = (reference: string, key?: string | null) => call(`/transaction/verify/${encodeURIComponent(reference)}`, { key });

  /** A control API call (no token: tests run without one unless they set it). */
  async function control(path: string, init: RequestInit = {}): Promise<Answer<ControlBody>> {
    const headers = new Headers(init.headers);
    if (init.body && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
    const response = await fetch(`${base}/control${path}`, { ...init, headers });
    return { status: response.status, headers: response.headers, json: await response.json() };
  }

  /** A form post as a browser without JavaScript sends it; redirects are not followed. */
  function postForm(path: string, fields: Record<string, string>) {
    return fetch(`${origin}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
  }

  /** Initialize a KES transaction, answering its data (authorization_url, access_code, reference). */
  async function newTransaction(extra: Record<string, unknown> = {}) {
    const answer = await initialize({
      email: "owner@duka.co.ke",
      amount: 250_000,
      currency: "KES",
      callback_url: "http://localhost:3000/billing/card/return",
      ...extra,
    });
    if (answer.status !== 200) throw new Error(`initialize failed: ${JSON.stringify(answer.json)}`);
    return answer.json.data;
  }

  return {
    sandbox,
    receiver,
    origin,
    base,
    call,
    initialize,
    verify,
    control,
    postForm,
    newTransaction,
    async close() {
      await sandbox.close();
      await server.close();
      await receiver.close();
    },
  };
}

export type PaystackHarness = Awaited<ReturnType<typeof startPaystack>>;
