import { createServer, type Server } from "node:http";
import { createHmac } from "node:crypto";
import { db } from "~/.server/infrastructure/db/client";
import { whatsappAccounts, whatsappPhoneNumbers } from "~/.server/infrastructure/db/schema";
import { env } from "~/.server/infrastructure/config/env";
import { encryptSecret } from "~/.server/infrastructure/security/crypto";
import { createWebhookReceiver } from "~/.server/adapters/webhooks-in/receiver";
import { createWebhookIngest } from "~/.server/adapters/webhooks-in/ingest";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { keepIdleConnections } from "@jumbe/sandbox/test-server";

registerJobHandlers();

/** A WABA with one registered number, stored as Embedded Signup would have left it. */
export async function connectedNumber(organizationId: string, ids: { wabaId: string; phoneNumberId: string; display: string }) {
  const [account] = await db()
    .insert(whatsappAccounts)
    .values({ organizationId, wabaId: ids.wabaId, accessTokenEncrypted: encryptSecret("EAA-test-token"), subscribed: true })
    .returning();
  const [phone] = await db()
    .insert(whatsappPhoneNumbers)
    .values({
      organizationId,
      accountId: account!.id,
      phoneNumberId: ids.phoneNumberId,
      displayPhoneNumber: ids.display,
      phoneDigits: ids.display.replace(/\D/g, ""),
      verifiedName: "Test Biashara",
      qualityRating: "GREEN",
      status: "CONNECTED",
      platformType: "CLOUD_API",
    })
    .returning();
  return { account: account!, phone: phone! };
}

/** JSON as Meta sends it: every non-ASCII character escaped as \uXXXX (what the signature covers). */
export function metaJson(body: unknown) {
  return JSON.stringify(body).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function sign(raw: string, secret = env().META_APP_SECRET) {
  return `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
}

/** The production receiver and ingest on a real socket. */
export async function startReceiver() {
  const ingest = createWebhookIngest();
  const receive = createWebhookReceiver({ appSecret: env().META_APP_SECRET, verifyToken: env().META_VERIFY_TOKEN, store: ingest.store });
  const server: Server = keepIdleConnections(createServer((req, res) => receive(req, res)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/webhooks/whatsapp`;
  return {
    url,
    post: (raw: string, signature: string | null = sign(raw)) =>
      fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(signature ? { "X-Hub-Signature-256": signature } : {}) },
        body: raw,
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const envelope = (entries: { id: string; time?: number; changes: { field: string; value: unknown }[] }[]) => ({
  object: "whatsapp_business_account",
  entry: entries,
});

export function statusChange(
  phoneNumberId: string,
  digits: string,
  statuses: {
    id: string;
    status: string;
    timestamp: number;
    recipient_id?: string;
    biz_opaque_callback_data?: string;
    errors?: { code: number; title: string }[];
  }[],
) {
  return {
    field: "messages",
    value: {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: digits, phone_number_id: phoneNumberId },
      statuses: statuses.map((s) => ({ recipient_id: "254712345678", ...s, timestamp: String(s.timestamp) })),
    },
  };
}

export function inboundChange(
  phoneNumberId: string,
  digits: string,
  message: { id: string; from: string; name: string; text: string; timestamp: number },
) {
  return {
    field: "messages",
    value: {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: digits, phone_number_id: phoneNumberId },
      contacts: [{ profile: { name: message.name }, wa_id: message.from }],
      messages: [{ from: message.from, id: message.id, timestamp: String(message.timestamp), type: "text", text: { body: message.text } }],
    },
  };
}
