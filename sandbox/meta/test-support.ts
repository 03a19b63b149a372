import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { startWebhookReceiver } from "../test-receiver";
import { createMetaSandbox, type MetaSandboxOptions } from "./index";
import type { SandboxStore } from "./state";

export const APP_ID = "987654321012345";
export const APP_SECRET = "test-app-secret";

import type { ReceivedWebhook } from "../test-receiver";
import { keepIdleConnections } from "../test-server";
export type { ReceivedWebhook };

/** A webhook receiver at /webhooks/whatsapp: records every POST and answers the queued statuses (then 200). */
export const startReceiver = () => startWebhookReceiver("/webhooks/whatsapp");

/** Graph's error envelope, as tests read it. */
export interface GraphErrorBody {
  error: { message: string; type: string; code: number; error_subcode?: number; fbtrace_id: string };
}

/** One node as Graph answers it; tests compare these whole or read a field. */
export type GraphNode = Record<string, unknown>;

/** A list item (a template, a phone number), with the fields the tests read by name. */
export interface GraphItem {
  id: string;
  name: string;
  language: string;
  components: GraphNode[];
  [field: string]: unknown;
}

/**
 * A Graph answer with the fields the tests read: a node (its id, components, a media URL), a list
 * with paging, a send's message, a token, debug_token's data, or the error envelope (with
 * error_data when Graph gives details). Each answer has the ones its call gives.
 */
export interface GraphBody {
  id: string;
  components: GraphNode[];
  url: string;
  access_token: string;
  error: GraphErrorBody["error"] & { error_user_title?: string; error_user_msg?: string; error_data: { details: string } };
  data: GraphItem[] & GraphNode;
  /** `next` and `previous` when there is such a page. */
  paging: { cursors: { before: string; after: string }; next: string; previous: string };
  /** A send answers its one message. */
  messages: [{ id: string; message_status?: string }];
  [field: string]: unknown;
}

export interface GraphAnswer {
  status: number;
  headers: Headers;
  json: GraphBody;
}

/** The sandbox router on a throwaway Express app, plus a webhook receiver. */
export async function startHarness(overrides: Partial<MetaSandboxOptions> = {}) {
  const receiver = await startReceiver();
  const sandbox = createMetaSandbox({
    appId: APP_ID,
    appSecret: APP_SECRET,
    webhookUrl: receiver.url,
    batchWindowMs: 5,
    webhookRetry: { attempts: 3, baseDelayMs: 10 },
    ...overrides,
  });
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "test-nonce";
    next();
  });
  app.use("/sandbox/meta", sandbox.router);
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const base = `${origin}/sandbox/meta`;

  async function graph(path: string, init: RequestInit & { token?: string } = {}): Promise<GraphAnswer> {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
    const response = await fetch(`${base}/graph/v23.0/${path}`, { ...init, headers });
    return { status: response.status, headers: response.headers, json: (await response.json()) as GraphBody };
  }

  async function exchange(code: string) {
    return graph(`oauth/access_token?client_id=${APP_ID}&client_secret=${APP_SECRET}&code=${encodeURIComponent(code)}`);
  }

  /** A business token for the given business and WABAs, through the real code exchange. */
  async function tokenFor(businessId: string, wabaIds: string[]) {
    const answer = await exchange(sandbox.issueCode({ businessId, wabaIds }));
    if (answer.status !== 200) throw new Error(`exchange failed: ${JSON.stringify(answer.json)}`);
    return answer.json.access_token as string;
  }

  /** What /control/state shows: the businesses, WABAs, numbers and subscriptions. */
  async function state() {
    return (await (await fetch(`${base}/control/state`)).json()) as ReturnType<SandboxStore["publicState"]>;
  }

  return {
    sandbox,
    receiver,
    origin,
    base,
    graph,
    exchange,
    tokenFor,
    state,
    async close() {
      await sandbox.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await receiver.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** A status in a `messages` webhook, with the fields the tests read (Meta's spelling). */
export interface StatusValue {
  id: string;
  status: string;
  recipient_id: string;
  pricing?: { billable: boolean; pricing_model: string; category: string; type?: string };
  biz_opaque_callback_data?: string;
  errors?: { code: number; title: string; message?: string; error_data?: { details: string } }[];
}

/** An inbound message in a `messages` webhook: its type decides which of the other fields it has. */
export interface InboundValue {
  from: string;
  id: string;
  timestamp: string;
  type: string;
  [field: string]: unknown;
}

/** The `value` of one `messages` change. */
export interface MessagesValue {
  messaging_product: "whatsapp";
  metadata: { display_phone_number: string; phone_number_id: string };
  contacts?: { profile: { name: string }; wa_id: string }[];
  messages?: InboundValue[];
  statuses?: StatusValue[];
}

/** A webhook POST as Meta sends it, with the fields the tests read. */
export interface WebhookEnvelope {
  object: string;
  entry: { id: string; time?: number; changes: { field: string; value: unknown }[] }[];
}

/** Every `value` of the `messages` changes received so far, oldest first. */
export function messageValues(received: ReceivedWebhook[]): MessagesValue[] {
  return received.flatMap((r) =>
    (JSON.parse(r.body) as WebhookEnvelope).entry.flatMap((e) =>
      e.changes.filter((c) => c.field === "messages").map((c) => c.value as MessagesValue),
    ),
  );
}

/** Every status webhook received so far, oldest first. */
export const statusesOf = (received: ReceivedWebhook[]): StatusValue[] => messageValues(received).flatMap((v) => v.statuses ?? []);

/**
 * A harness for sending: statuses at once (delays 0), a registered test number with a business
 * token, and helpers to send, to have the customer write first, and to read the statuses.
 */
export async function startSending(overrides: Partial<MetaSandboxOptions> = {}) {
  const h = await startHarness({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, ...overrides });
  const business = h.sandbox.createTestBusiness({ businessName: "Duka la Mama Njeri", registered: true });
  const token = await h.tokenFor(business.businessId, [business.wabaId]);

  async function send(body: unknown, options: { phoneNumberId?: string; token?: string } = {}) {
    return h.graph(`${options.phoneNumberId ?? business.phoneNumberId}/messages`, {
      method: "POST",
      token: options.token ?? token,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  /** The customer writes first: the 24-hour window opens. */
  async function customerWrites(from: string, text = "Habari") {
    return h.sandbox.sendInbound({ phoneNumberId: business.phoneNumberId, from, text });
  }

  async function statuses() {
    await h.sandbox.flushWebhooks();
    return statusesOf(h.receiver.received);
  }

  return { ...h, business, token, send, customerWrites, statuses };
}

export type SendingHarness = Awaited<ReturnType<typeof startSending>>;

export const text = (to: string, body = "Karibu!", extra: Record<string, unknown> = {}) => ({
  messaging_product: "whatsapp",
  recipient_type: "individual",
  to,
  type: "text",
  text: { body },
  ...extra,
});
