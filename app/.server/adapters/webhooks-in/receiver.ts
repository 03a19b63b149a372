import type { IncomingMessage, ServerResponse } from "node:http";
import { readBoundedBody, replyJson } from "../../infrastructure/http/raw-body";
import { constantTimeEqual } from "../../infrastructure/security/crypto";
import { log } from "../../infrastructure/log";
import { noteDatabaseError, RETRY_AFTER_SECONDS } from "../../infrastructure/db/availability";
import { isValidSignature } from "./signature";

export const WEBHOOK_PATH = "/webhooks/whatsapp";

// Meta's payloads can be up to 3 MB.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface WebhookReceiverOptions {
  appSecret: string;
  verifyToken: string;
  store(body: string, signature: string): Promise<void>;
}

/**
 * `/webhooks/whatsapp` on Node's own http server, ahead of Express and React Router: Meta wants a
 * median answer under 250 ms at three times the outbound message rate, and this path needs no
 * cookies, sessions, pages or CSP. GET is the verification handshake; POST is checked against
 * X-Hub-Signature-256 before anything is stored, stored durably, then acknowledged.
 */
export function createWebhookReceiver(options: WebhookReceiverOptions) {
  return function receive(req: IncomingMessage, res: ServerResponse) {
    if (req.method === "GET") return verifyHandshake(req, res, options.verifyToken);
    if (req.method === "POST") return void receiveDelivery(req, res, options);
    res.writeHead(405, { Allow: "GET, POST", "Content-Type": "application/json" }).end(JSON.stringify({ message: "Method not allowed." }));
  };
}

function verifyHandshake(req: IncomingMessage, res: ServerResponse, verifyToken: string) {
  const url = new URL(req.url ?? "/", "http://local");
  const mode = url.searchParams.get("hub.mode");
  const token = url.searchParams.get("hub.verify_token") ?? "";
  const challenge = url.searchParams.get("hub.challenge") ?? "";
  if (mode === "subscribe" && constantTimeEqual(token, verifyToken) && /^[\w.-]{1,256}$/.test(challenge)) {
    res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" }).end(challenge);
    return;
  }
  res.writeHead(403, { "Content-Type": "application/json" }).end(JSON.stringify({ message: "Verification failed." }));
}

async function receiveDelivery(req: IncomingMessage, res: ServerResponse, options: WebhookReceiverOptions) {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) return replyJson(res, 413, "Payload too large.");
  let body: Buffer;
  try {
    body = await readBoundedBody(req, MAX_BODY_BYTES);
  } catch {
    return replyJson(res, 413, "Payload too large.");
  }
  const signature = req.headers["x-hub-signature-256"];
  const header = Array.isArray(signature) ? signature[0] : signature;
  if (!isValidSignature(body, header, options.appSecret)) {
    log().warn({ path: WEBHOOK_PATH, ip: req.socket.remoteAddress, signed: !!header }, "webhook refused: bad signature");
    return replyJson(res, 401, "Invalid signature.");
  }
  const text = storableText(body);
  if (text === null) {
    log().warn({ path: WEBHOOK_PATH, bytes: body.length }, "webhook refused: signed body is not UTF-8 text without NUL");
    return replyJson(res, 400, "The body is not UTF-8 JSON text.");
  }
  try {
    await options.store(text, header!);
  } catch (error) {
    // Not stored: a non-200 makes Meta deliver it again; 503 while the database cannot be reached (decision 011).
    if (noteDatabaseError(error))
      return replyJson(res, 503, "Service temporarily unavailable.", { "Retry-After": String(RETRY_AFTER_SECONDS) });
    log().error({ err: error }, "webhook could not be stored");
    return replyJson(res, 500, "Could not store the event.");
  }
  res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "2" }).end("OK");
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The body as text a PostgreSQL text column takes, or null. JSON is UTF-8 and carries U+0000 only
 * escaped, so a raw NUL byte or a byte sequence that is not UTF-8 is no delivery of Meta's; stored,
 * a NUL would fail the group commit of every delivery that arrived with it.
 */
function storableText(body: Buffer): string | null {
  if (body.includes(0)) return null;
  try {
    return UTF8.decode(body);
  } catch {
    return null;
  }
}
