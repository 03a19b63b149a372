import { startWebhookReceiver } from "../test-receiver";
import { serveSandboxForTest } from "../test-server";
import { createAfricastalkingSandbox, type AfricastalkingSandboxOptions } from "./index";
import type { AccountInput } from "./state";

export const USERNAME = "jumbe-tests";
export const API_KEY = "atsk_sandbox_tests_0123456789abcdef";
export const SENDER_ID = "JUMBE";
export const SHORTCODE = "40404";

export type { ReceivedWebhook } from "../test-receiver";

/** The sandbox on a throwaway Express app on a free port, with one receiver for its three callbacks. */
export async function startAfricastalking(overrides: Partial<AfricastalkingSandboxOptions> & { account?: Partial<AccountInput> } = {}) {
  const receiver = await startWebhookReceiver("/webhooks/africastalking");
  const { account, ...rest } = overrides;
  const sandbox = createAfricastalkingSandbox({
    accounts: [
      {
        username: USERNAME,
        apiKey: API_KEY,
        senderIds: [SENDER_ID],
        shortcodes: [SHORTCODE],
        balanceKes: 100,
        deliveryReportUrl: `${receiver.url}/delivery`,
        incomingUrl: `${receiver.url}/incoming`,
        optOutUrl: `${receiver.url}/opt-out`,
        ...account,
      },
    ],
    callbackDelayMs: 0,
    lateReportDelayMs: 0,
    callbackAttempts: 3,
    ...rest,
  });
  const server = await serveSandboxForTest("/sandbox/africastalking", sandbox.router);
  const { origin, base } = server;

  /** A send as AT's client makes it: form-encoded, `apikey` header, JSON asked for. */
  async function send(fields: Record<string, string>, key: string | null = API_KEY) {
    const headers: Record<string, string> = { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" };
    if (key !== null) headers.apikey = key;
    const response = await fetch(`${base}/version1/messaging`, {
      method: "POST",
      headers,
      body: new URLSearchParams({ username: USERNAME, bulkSMSMode: "1", ...fields }).toString(),
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type") ?? "", text, json: () => JSON.parse(text) as SendAnswer };
  }

  async function get(path: string, key: string | null = API_KEY) {
    const response = await fetch(`${base}${path}`, { headers: key === null ? {} : { apiKey: key, Accept: "application/json" } });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as Record<string, never> };
  }

  /** Every form body the receiver got, parsed, in order (reports have `status`, incoming `text`, opt-outs `senderId`). */
  const forms = () => receiver.received.map((r) => Object.fromEntries(new URLSearchParams(r.body)));

  function postForm(path: string, fields: Record<string, string>) {
    return fetch(`${origin}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
  }

  return {
    sandbox,
    receiver,
    origin,
    base,
    send,
    get,
    forms,
    postForm,
    async close() {
      await sandbox.close();
      await server.close();
      await receiver.close();
    },
  };
}

export interface SendAnswer {
  SMSMessageData: {
    Message: string;
    Recipients: { statusCode: number; number: string; status: string; cost: string; messageId: string }[];
  };
}

export type AfricastalkingHarness = Awaited<ReturnType<typeof startAfricastalking>>;
