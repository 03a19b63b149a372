import type { NextFunction, Request, Response } from "express";
import { sendError } from "./error-page";

const KB = 1024;
const MB = 1024 * KB;

/**
 * Request body limits. No form or JSON call of the product comes near them: a sign-up form is
 * under 2 KB. `/webhooks/whatsapp` never reaches Express (its receiver allows 4 MB, Meta's
 * payloads reach 3 MB); the sandboxes' own parsers accept up to 4 MB. nginx stops bodies over
 * 1 MB at the door except on the paths of LARGE_BODY_ROUTES below, which have locations of their own.
 */
export const BODY_LIMITS = {
  auth: 16 * KB,
  default: 64 * KB,
  sandbox: 4 * MB,
  /**
   * The template create and edit pages: a media header's sample (16 MB at most, app/lib/templates.ts
   * MEDIA_SAMPLES) with the rest of the form. Only these two pages (decision 019).
   */
  templateForm: 17 * MB,
  /** POST /api/v1/template-samples: the raw sample, nothing else. */
  templateSample: 16 * MB,
  /**
   * POST /api/v1/media: one file as multipart/form-data, streamed to storage. Meta's largest type
   * (documents, 100 MB) and the form's framing; each type's own limit is checked while it streams.
   */
  media: 100 * MB + 64 * KB,
  /**
   * The contacts CSV import's upload page: the file (50 MB at most, IMPORT_MAX_BYTES in
   * app/.server/domains/contacts/import.ts, checked again while it streams) and the form's framing.
   */
  contactImport: 50 * MB + 64 * KB,
  /**
   * The New Campaign and Quick Broadcast pages and POST /api/v1/campaigns: up to 10,000 numbers
   * (AUDIENCE_PHONES_MAX), pasted or in a small file, and the Review step carrying them again.
   */
  campaignForm: 1 * MB,
  /**
   * A conversation's page (/chat/<id>): the composer's attachment (16 MB, the most WhatsApp takes
   * for video and audio; INBOX_ATTACHMENT_MAX_BYTES), checked again while it streams, and the form.
   */
  chatReply: 16 * MB + 64 * KB,
  /**
   * The assistant's knowledge page: a CSV of questions and answers (1 MB) or a text PDF (5 MB,
   * PDF_MAX_BYTES in app/.server/domains/automations/assistant/pdf-text.ts) and the form's framing.
   */
  knowledgeUpload: 5 * MB + 64 * KB,
  /**
   * The shop's product pages (/shop/products/new, /shop/products/<id>) with an uploaded image (5 MB,
   * PRODUCT_IMAGE_MAX_BYTES in app/lib/schemas/shop.ts, decision 141), and its CSV import (512 KB).
   */
  productForm: 5 * MB + 64 * KB,
  /** The Meta sandbox's upload sessions, which receive the samples Jumbe uploads. */
  sandboxUpload: 17 * MB,
  /** Meta's webhook deliveries, up to 3 MB: the receiver's own limit (app/.server/adapters/webhooks-in/receiver.ts), ahead of Express. */
  whatsappWebhook: 4 * MB,
} as const;

export const BODY_TOO_LARGE = "Request body too large.";

// Sign-in and sign-up forms, posted without JavaScript or as React Router's `/path.data`.
const AUTH_PAGES = new Set(["/login", "/signin", "/signup", "/verify-otp", "/forgot-password", "/reset-password", "/logout"]);

// /templates/new and /templates/<id>/edit (React Router's `.data` forms included, stripped above).
const TEMPLATE_FORM_PAGE = /^\/templates\/(new|[^/]+\/edit)$/;
// /chat/<conversation id>; /chat/quick-replies and the live stream /chat/events are other routes.
const CHAT_THREAD = /^\/chat\/[^/]+$/;
const CHAT_OTHERS = new Set(["/chat/quick-replies", "/chat/events"]);
// /shop/products/new, /shop/products/<id> and /shop/products/import.
const SHOP_PRODUCT_PAGE = /^\/shop\/products\/[^/]+$/;
const SANDBOX_UPLOAD = /^\/sandbox\/meta\/graph\/[^/]+\/upload:[^/]*$/;

/** A request's path lower-cased (`path`), and as a page (`page`): without React Router's `.data` and trailing slashes. */
interface RequestPath {
  path: string;
  page: string;
}

export interface LargeBodyRoute {
  /** What posts there. */
  name: string;
  limit: number;
  /** Whether Express gives a path this limit; absent for a path answered before Express. */
  matches?: (request: RequestPath) => boolean;
  /** Paths clients post to, as they send them: nginx's location for each must carry the limit. */
  examples: readonly string[];
}

const CONVERSATION = "0b4c8a52-6f2e-4f8e-9d1a-2f5b7c9e1a3d";

/**
 * Every path whose body may be larger than nginx's 1 MB for the whole site. Each has a location of
 * its own in deploy/nginx/jumbe.conf whose `client_max_body_size` is its limit in whole megabytes,
 * rounded up; tests/integration/nginx-site.test.ts compares the two lists, so a path added here
 * without nginx (or a location there without a path here) fails it. The sandboxes' larger limits
 * are not here: nginx answers 404 under /sandbox.
 */
export const LARGE_BODY_ROUTES: readonly LargeBodyRoute[] = [
  {
    name: "the template create and edit pages (a media header's sample)",
    limit: BODY_LIMITS.templateForm,
    matches: ({ page }) => TEMPLATE_FORM_PAGE.test(page),
    examples: ["/templates/new", "/templates/new.data", "/Templates/New/", "/templates/1f7c2e9a/edit", "/templates/1f7c2e9a/edit.data"],
  },
  {
    name: "a conversation's page (the composer's attachment)",
    limit: BODY_LIMITS.chatReply,
    matches: ({ page }) => CHAT_THREAD.test(page) && !CHAT_OTHERS.has(page),
    examples: [`/chat/${CONVERSATION}`, `/chat/${CONVERSATION}.data`, `/Chat/${CONVERSATION}/`],
  },
  {
    name: "the contacts CSV import's upload page",
    limit: BODY_LIMITS.contactImport,
    matches: ({ page }) => page === "/messaging/contacts/import",
    examples: ["/messaging/contacts/import", "/messaging/contacts/import.data", "/Messaging/Contacts/Import/"],
  },
  {
    name: "the assistant's knowledge page (a CSV or PDF upload)",
    limit: BODY_LIMITS.knowledgeUpload,
    matches: ({ page }) => page === "/automations/knowledge",
    examples: ["/automations/knowledge", "/automations/knowledge.data", "/Automations/Knowledge/"],
  },
  {
    name: "the shop's product pages (an uploaded image) and its CSV import",
    limit: BODY_LIMITS.productForm,
    matches: ({ page }) => SHOP_PRODUCT_PAGE.test(page),
    examples: ["/shop/products/new", "/shop/products/new.data", "/shop/products/1f7c2e9a", "/Shop/Products/Import/"],
  },
  {
    name: "POST /api/v1/template-samples",
    limit: BODY_LIMITS.templateSample,
    matches: ({ path }) => path === "/api/v1/template-samples",
    examples: ["/api/v1/template-samples"],
  },
  {
    name: "POST /api/v1/media",
    limit: BODY_LIMITS.media,
    matches: ({ path }) => path === "/api/v1/media",
    examples: ["/api/v1/media"],
  },
  {
    name: "Meta's WhatsApp webhooks (Node's receiver, before Express)",
    limit: BODY_LIMITS.whatsappWebhook,
    examples: ["/webhooks/whatsapp"],
  },
];

/** The limit of a path. Paths are matched case-insensitively, as React Router matches them. */
export function bodyLimitFor(path: string) {
  const p = path.toLowerCase();
  if (p.startsWith("/api/auth/")) return BODY_LIMITS.auth;
  const page = p.replace(/(\/_)?\.data$/, "").replace(/\/+$/, "");
  if (AUTH_PAGES.has(page)) return BODY_LIMITS.auth;
  const large = LARGE_BODY_ROUTES.find((route) => route.matches?.({ path: p, page }));
  if (large) return large.limit;
  if (page === "/messaging/campaigns/new" || page === "/messaging/broadcasts/new" || p === "/api/v1/campaigns")
    return BODY_LIMITS.campaignForm;
  if (SANDBOX_UPLOAD.test(p)) return BODY_LIMITS.sandboxUpload;
  if (p.startsWith("/sandbox/")) return BODY_LIMITS.sandbox;
  return BODY_LIMITS.default;
}

/** The error a body read fails with once the limit is passed (React Router's readers see it). */
export class BodyTooLargeError extends Error {
  readonly status = 413;
  readonly expose = true;
  constructor(readonly limit: number) {
    super(BODY_TOO_LARGE);
    this.name = "BodyTooLargeError";
  }
}

/**
 * Refuses a body over the path's limit with 413 before anything reads it. A declared
 * Content-Length is checked up front (nothing is read; Node's parser holds a body to its declared
 * length). A chunked body declares nothing, so its bytes are counted as the parser hands them to
 * the request stream: past the limit, the rest is dropped, 413 is answered, and whoever is reading
 * the body (React Router's request conversion) gets an error instead of a truncated body.
 */
export function limitRequestBodies(limitFor: (path: string) => number = bodyLimitFor) {
  return (req: Request, res: Response, next: NextFunction) => {
    const limit = limitFor(req.path);
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > limit) return watchBody(req, res, limit, true);
    const chunked = req.headers["transfer-encoding"] !== undefined;
    if (chunked) watchBody(req, res, limit, false);
    if (declared !== undefined || chunked) res.once("finish", () => dropUnreadBody(req));
    next();
  };
}

/**
 * Reads and drops what an answered request left of its body (a redirect to sign in, a 404 before
 * the form was read). React Router's request conversion stops reading a body nobody asks for once
 * its buffer is full, and Node then reads nothing more from the connection: the next request on it
 * (nginx keeps its connections to the instances open) waited for Node's keep-alive timeout and was
 * reset, a 502 behind nginx. What is left is at most the path's limit.
 */
function dropUnreadBody(req: Request) {
  if (req.complete || req.destroyed) return;
  req.removeAllListeners("data");
  req.resume();
}

// After a 413, the rest of the body is read and dropped for a moment before the connection closes:
// closing while the client still sends resets the connection, and the client loses the answer.
const LINGER_MS = 1000;

function watchBody(req: Request, res: Response, limit: number, refuseNow: boolean) {
  const push = req.push.bind(req);
  let received = 0;
  let refused: BodyTooLargeError | undefined;
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    // Readers fail instead of seeing the end of a cut body; the socket goes with the request.
    const done = () => req.destroy(refused);
    if (res.writableFinished || !res.headersSent) done();
    else res.once("finish", done);
  };
  const refuse = () => {
    refused = new BodyTooLargeError(limit);
    // Keeps a stream error with no other reader from being thrown.
    req.on("error", () => {});
    if (res.headersSent) return close();
    // Node would close at once after the answer when the client asked for `Connection: close`; the linger below closes it instead.
    res.shouldKeepAlive = true;
    // The public API says which limit it is, as its own check does (app/.server/adapters/api-v1/handle.ts).
    const publicApi = req.path === "/api/v1" || req.path.startsWith("/api/v1/");
    // The import page says what to do with a file over its cap.
    const importPage = limit === BODY_LIMITS.contactImport && !publicApi;
    sendError(
      req,
      res,
      413,
      publicApi
        ? `The request body is over ${Math.round(limit / 1024)} KB.`
        : importPage
          ? `The file is larger than ${Math.floor(limit / MB)} MB. Split it into smaller files and import each.`
          : BODY_TOO_LARGE,
    );
    res.once("finish", () => setTimeout(close, LINGER_MS).unref());
  };
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (refused) {
      if (chunk === null || chunk === undefined) close();
      return true;
    }
    if (chunk !== null && chunk !== undefined && (received += (chunk as Buffer).length) > limit) {
      refuse();
      return true;
    }
    return push(chunk, encoding);
  };
  if (refuseNow) refuse();
}
