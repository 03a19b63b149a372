import { z } from "zod";
import { can, type Permission } from "../../domains/auth/permissions";
import type { Role } from "~/lib/permissions";
import type { ApiCaller } from "./caller";
import { ERROR_CATALOGUE, type ErrorCode } from "./errors";
import { accountSummary, accountSummarySql, toAccountSummary, type AccountSummaryRow } from "./account";
import { getApiPartner, NOT_A_PARTNER, PartnerQuery, PartnerView } from "./revenue-share";
import {
  PAYMENT_REQUEST_CREATE_EXAMPLE,
  PaymentRequest,
  PaymentRequestCreate,
  PaymentRequestIdParams,
  PaymentRequestList,
  PaymentRequestsQuery,
} from "./payment-request-schemas";
import {
  cancelApiPaymentRequest,
  createApiPaymentRequest,
  getApiPaymentRequest,
  listApiPaymentRequests,
  PAYMENT_REQUEST_NOT_FOUND,
} from "./payment-requests";
import { Sms, SMS_SEND_EXAMPLE, SmsIdParams, SmsSend } from "./sms-schemas";
import { getApiSms, sendApiSms, SMS_NOT_FOUND } from "./sms";
import { Analytics, AnalyticsQuery, apiAnalytics } from "./analytics";
import { listConnections } from "../../domains/whatsapp/connections";
import {
  Account,
  NoQuery,
  PhoneNumberList,
  PhoneNumbersQuery,
  Template,
  TEMPLATE_CREATE_EXAMPLE,
  TemplateCreate,
  TemplateIdParams,
  TemplateList,
  TemplateSample,
  TemplateSampleQuery,
  TemplatesQuery,
} from "./schemas";
import { createApiTemplate, createApiTemplateSample, deleteApiTemplate, getApiTemplate, listApiTemplates } from "./templates";
import { BODY_LIMITS } from "../../infrastructure/http/body-limit";
import { Message, MessageIdParams, MessageList, MessagesQuery, SEND_MESSAGE_EXAMPLE, SendMessage } from "./message-schemas";
import { getApiMessage, listApiMessages, sendApiMessage } from "./messages";
import { getApiOrder, listApiOrders, Order, ORDER_NOT_FOUND, OrderIdParams, OrderList, OrdersQuery } from "./orders";
import { MEDIA_SAMPLES, SAMPLE_TYPES } from "../../../lib/templates";
import { deleteApiMedia, FILE_FIELD, getApiMedia, MediaFile, MediaIdParams, uploadApiMedia } from "./media";
import { formatLimit, MEDIA_TYPES, STATIC_STICKER_MAX_BYTES } from "../../domains/messaging/media-types";
import {
  CONSENT_EXAMPLE,
  ConsentInput,
  Contact,
  CONTACT_CREATE_EXAMPLE,
  CONTACT_UPDATE_EXAMPLE,
  ContactCreate,
  ContactIdParams,
  ContactList,
  ContactsQuery,
  ContactUpdate,
} from "./contact-schemas";
import { deleteApiContact, getApiContact, listApiContacts, saveApiContact, setApiConsent, updateApiContact } from "./contacts";
import {
  Campaign,
  campaignCreateExample,
  CampaignCreate,
  CampaignIdParams,
  CampaignList,
  CampaignsQuery,
  CreatedCampaign,
} from "./campaign-schemas";
import { changeApiCampaign, createApiCampaign, getApiCampaign, listApiCampaigns } from "./campaigns";
import {
  AUTOMATION_RULE_CREATE_EXAMPLE,
  AUTOMATION_RULE_UPDATE_EXAMPLE,
  AUTOMATION_SETTINGS_EXAMPLE,
  AutomationRule,
  AutomationRuleCreate,
  AutomationRuleList,
  AutomationRuleUpdate,
  AutomationSettings,
  AutomationSettingsUpdate,
  RuleIdParams,
} from "./automation-schemas";
import {
  createApiRule,
  deleteApiRule,
  getApiRule,
  getApiSettings,
  listApiRules,
  RULE_NOT_FOUND,
  updateApiRule,
  updateApiSettings,
} from "./automations";
import { RULES_MAX } from "~/lib/schemas/automations-rules";
import { ARTICLE_BODY_MAX, ARTICLES_MAX } from "~/lib/schemas/assistant";
import {
  ASSISTANT_SETTINGS_EXAMPLE,
  AssistantSettings,
  AssistantSettingsUpdate,
  KNOWLEDGE_CREATE_EXAMPLE,
  KNOWLEDGE_UPDATE_EXAMPLE,
  KnowledgeArticle,
  KnowledgeArticleCreate,
  KnowledgeArticleList,
  KnowledgeArticleUpdate,
  KnowledgeIdParams,
  KnowledgeQuery,
} from "./assistant-schemas";
import {
  ARTICLE_NOT_FOUND,
  createApiKnowledge,
  deleteApiKnowledge,
  getApiAssistant,
  getApiKnowledge,
  listApiKnowledge,
  updateApiAssistant,
  updateApiKnowledge,
} from "./assistant";
import { FLOW_STEPS_MAX, FLOWS_MAX } from "~/lib/schemas/flows";
import {
  createApiFlow,
  deleteApiFlow,
  Flow,
  FLOW_CREATE_EXAMPLE,
  FLOW_NOT_FOUND,
  FLOW_UPDATE_EXAMPLE,
  FlowCreate,
  FlowIdParams,
  FlowList,
  FlowUpdate,
  getApiFlow,
  listApiFlows,
  publishApiFlow,
  updateApiFlow,
} from "./flows";
import { MAX_RANGES_PER_DAY } from "../../domains/automations/hours";
import {
  HOOK_CREATE_EXAMPLE,
  HOOK_NOT_FOUND,
  HookCreate,
  HookIdParams,
  HookList,
  listApiHooks,
  subscribeApiHook,
  SubscribedHook,
  unsubscribeApiHook,
} from "./hooks";
import { REST_HOOKS_MAX } from "../../domains/integrations/rest-hooks";

export type HttpMethod = "get" | "post" | "patch" | "delete";

/** The statuses whose errors an endpoint explains in its own words (besides the catalogue's meanings). */
export type DocumentedError = 402 | 404 | 409 | 413 | 415 | 422 | 502 | 503;

export interface EndpointInput<Q extends z.ZodType, P extends z.ZodType, B extends z.ZodType> {
  organizationId: string;
  /** The API key the request was made with (a campaign records it: decision 045). */
  apiKeyId: string;
  /**
   * Who called, for the activity log (decision 155): the key's prefix (never its secret) and the
   * caller's address and user agent.
   */
  caller: ApiCaller;
  query: z.output<Q>;
  params: z.output<P>;
  body: z.output<B>;
  /** A raw body's bytes and type (endpoints with `rawBody`). */
  file?: { contentType: string; bytes: Buffer };
  /** A multipart/form-data body, unread: the endpoint streams it (endpoints with `multipart`). */
  upload?: { body: ReadableStream<Uint8Array> | null; boundary: string; maxBytes: number };
  /** The role the API key acts with (decision 052): an answer may leave out what it may not read. */
  role: Role;
  /** The Idempotency-Key header, checked (every POST: idempotencyOf). */
  idempotencyKey?: string;
  /**
   * An "own" endpoint calls this when it answers with the first request's result (a repeat of its
   * Idempotency-Key): the answer then says Idempotency-Replayed: true.
   */
  noteReplayed: () => void;
  /** What the endpoint's `prefetch` read in the API key's statement (null without one). */
  prefetched?: unknown;
}

export interface Endpoint<
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** OpenAPI's form: `/api/v1/templates/{id}`; each `{name}` matches one path segment and is a key of `params`. */
  path: `/api/v1/${string}`;
  operationId: string;
  summary: string;
  description: string;
  query: Q;
  /** The path's parameters (NoParams when it has none). */
  params: P;
  /** A JSON request body: its schema, and the example the documentation and the code examples send. */
  body?: { schema: B; example: z.input<B> };
  /**
   * A raw body instead of JSON: a file of one of these types, up to `maxBytes` (its declared
   * length is refused above it before anything is read). `example` names the file the code
   * examples send.
   */
  rawBody?: { contentTypes: readonly string[]; maxBytes: number; description: string; example: { file: string; contentType: string } };
  /**
   * A multipart/form-data body with a file in the part `field`, handed to run() unread so it
   * streams; up to `maxBytes` in all. `example` names the file the code examples send.
   */
  multipart?: { field: string; maxBytes: number; description: string; example: { file: string; contentType: string } };
  /** The success status; 204 answers no body (`response` is then NoContent). */
  status: 200 | 201 | 202 | 204;
  /**
   * Takes an Idempotency-Key header: a repeat within 24 hours answers the first result (decision
   * 043). "own": run() gets the key and keeps it itself (in its own transaction, or after reading a
   * streamed body); "replay": the handler claims the key and answers a repeat with the first answer.
   * Every POST takes the key: without "own" it is "replay" (idempotencyOf), so no POST can forget it.
   */
  idempotent?: "own" | "replay";
  /**
   * The answer carries a secret shown once (a hook's signing secret): the first answer a repeat of
   * its Idempotency-Key replays is kept encrypted, as the secret itself is.
   */
  secretInAnswer?: true;
  response: R;
  /**
   * The permission the API key's role needs (decision 052): without it the answer is 403
   * permission_denied naming it.
   */
  permission: Permission;
  /**
   * The catalogue's codes particular to this endpoint (errors.ts); errorCodesOf adds those every
   * endpoint, every body and every Idempotency-Key can answer. The OpenAPI document lists them all.
   */
  codes?: readonly ErrorCode[];
  /** The path names one thing by its id: the not_found answer's message when none of yours has it (malformed ids too). */
  notFound?: string;
  /** Errors particular to this endpoint in its own words, by status, for the OpenAPI document. */
  errors?: Partial<Record<DocumentedError, string>>;
  /**
   * A read the answer needs, made in the API key's own statement to save a round trip: a SQL
   * expression of the organisation's id (`organizationExpr`), handed to run() as `prefetched`.
   */
  prefetch?: (organizationExpr: string) => string;
  /** The answer's body; an ApiProblem thrown is answered as `{ code, message }` with its status. */
  run(input: EndpointInput<Q, P, B>): Promise<z.input<R>>;
}

/**
 * How an endpoint takes an Idempotency-Key (decision 043, 101): every POST does, "replay" unless it
 * keeps the key itself ("own"); PATCH, DELETE and GET do not need one (a repeat changes nothing more).
 */
export function idempotencyOf(endpoint: Endpoint): "own" | "replay" | undefined {
  return endpoint.idempotent ?? (endpoint.method === "post" ? "replay" : undefined);
}

/** Whether the endpoint takes a body (JSON, a raw file or a multipart form): the others ignore one. */
export const takesBody = (endpoint: Endpoint) => !!(endpoint.body || endpoint.rawBody || endpoint.multipart);

const define = <Q extends z.ZodType, P extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(endpoint: Endpoint<Q, P, B, R>) =>
  endpoint as Endpoint;

/**
 * A list's answer with hasMore (decision 101): every list says whether another page follows, the
 * paged ones (nextCursor) and those answered whole (always false); the handler fills it in.
 */
function listed<T extends z.ZodObject>(list: T) {
  const id = (list.meta() as { id?: string } | undefined)?.id;
  const extended = list.extend({
    hasMore: z.boolean().describe("Whether another page follows: true with a nextCursor to pass as cursor, false on the last page."),
  });
  return id ? extended.meta({ id }) : extended;
}

export const NoParams = z.object({});
/** The "body" of a 204. */
export const NoContent = z.undefined();

const CONTACT_NOT_FOUND = "No contact with this id in your organisation: unknown, malformed, deleted or another's.";
const MEDIA_NOT_FOUND = "No file with this id in your organisation: unknown, malformed, deleted or another's.";
const MESSAGE_NOT_FOUND = "No message with this id in your organisation: unknown, malformed or another's.";

/** "image/jpeg or image/png up to 5 MB, ...": Meta's media types and limits in words. */
const MEDIA_LIMITS_TEXT = (() => {
  const groups = new Map<string, string[]>();
  for (const [type, rule] of Object.entries(MEDIA_TYPES)) {
    const limit =
      rule.kind === "sticker"
        ? `${formatLimit(STATIC_STICKER_MAX_BYTES)} (${formatLimit(rule.maxBytes)} animated)`
        : formatLimit(rule.maxBytes);
    const key = `${rule.kind} up to ${limit}`;
    groups.set(key, [...(groups.get(key) ?? []), type]);
  }
  return [...groups].map(([key, types]) => `${key.replace(/ up to/, ` (${types.join(", ")}) up to`)}`).join("; ");
})();

const CAMPAIGN_NOT_FOUND = "No campaign with this id in your organisation: unknown, malformed or another's.";

/** Pause, resume and cancel: the same shape, each answering the campaign as it is after. */
const campaignChange = (
  change: "pause" | "resume" | "cancel",
  summary: string,
  description: string,
  stateError: string,
  extraErrors: Partial<Record<DocumentedError, string>> = {},
  extraCodes: readonly ErrorCode[] = [],
) =>
  define({
    method: "post",
    path: `/api/v1/campaigns/{id}/${change}`,
    operationId: `${change}Campaign`,
    permission: "campaigns:manage",
    codes: ["campaign_state", ...extraCodes],
    notFound: CAMPAIGN_NOT_FOUND,
    summary,
    description,
    query: NoQuery,
    params: CampaignIdParams,
    status: 200,
    response: Campaign,
    errors: { 404: CAMPAIGN_NOT_FOUND, 409: stateError, ...extraErrors },
    run: ({ organizationId, params }) => changeApiCampaign(organizationId, params.id, change),
  });

const TEMPLATE_NOT_FOUND = "No template with this id in your organisation: unknown, malformed, deleted or another's.";

/** Every endpoint of /api/v1: the router, the OpenAPI document and the Developers page read this list. */
export const ENDPOINTS: Endpoint[] = [
  define({
    method: "get",
    path: "/api/v1/account",
    operationId: "getAccount",
    permission: "overview:view",
    summary: "Your organisation, plan and usage",
    description:
      "The organisation the API key belongs to, its plan, and the messages sent this month against the plan's limit; and its prepaid wallet, only for a key whose role may see billing (billing:view: an owner's or admin's).",
    query: NoQuery,
    params: NoParams,
    status: 200,
    response: Account,
    prefetch: accountSummarySql,
    async run({ organizationId, prefetched, role }) {
      const account = prefetched ? toAccountSummary(prefetched as AccountSummaryRow) : await accountSummary(organizationId);
      if (!account) throw new Error("organisation of a live API key is missing");
      // The wallet is the Billing page's: a key whose role may not see billing (a viewer's, an agent's) is not told it.
      if (!can(role, "billing:view")) {
        const { wallet: _wallet, ...rest } = account;
        return rest;
      }
      return account;
    },
  }),
  define({
    method: "get",
    path: "/api/v1/partner",
    operationId: "getPartner",
    permission: "billing:view",
    notFound: NOT_A_PARTNER,
    summary: "Your revenue share programme",
    description:
      "For partners in Jumbe's revenue share programme: your share, referral code and link and status; the organisations you brought (each with what it paid this Nairobi month, net of VAT); your transactions, newest first, a page at a time (pass transactions.nextCursor as cursor; month filters by Nairobi month); and your monthly settlements with withholding tax, net and payout reference. Amounts in KES cents.",
    query: PartnerQuery,
    params: NoParams,
    status: 200,
    response: PartnerView,
    errors: { 404: NOT_A_PARTNER },
    run: ({ organizationId, query }) => getApiPartner(organizationId, query),
  }),
  define({
    method: "get",
    path: "/api/v1/analytics",
    operationId: "getAnalytics",
    permission: "campaigns:view",
    summary: "Your messaging figures",
    description:
      "The Analytics page's figures for a period (24 hours, 7, 30 or 90 Nairobi days, or a custom range), each beside the period of the same length before it, and one row per day (per hour for 24 hours). Figures count each event in the hour it happened and are up to a few seconds behind.",
    query: AnalyticsQuery,
    params: NoParams,
    status: 200,
    response: Analytics,
    run: ({ organizationId, query }) => apiAnalytics(organizationId, query),
  }),
  define({
    method: "get",
    path: "/api/v1/phone-numbers",
    operationId: "listPhoneNumbers",
    permission: "whatsapp:view",
    summary: "Your WhatsApp numbers",
    description: "The WhatsApp Business numbers connected through Embedded Signup, with quality and messaging limit.",
    query: PhoneNumbersQuery,
    params: NoParams,
    status: 200,
    response: listed(PhoneNumberList),
    async run({ organizationId, query }) {
      const connections = await listConnections(organizationId);
      return {
        data: connections
          .filter((c) => query.connection === "all" || c.status === query.connection)
          .flatMap((c) =>
            c.numbers.map((n) => ({
              id: n.phoneNumberId,
              number: n.number,
              verifiedName: n.verifiedName,
              wabaId: c.wabaId,
              connection: c.status,
              quality: n.quality as "high" | "medium" | "low" | "unknown",
              messagingLimit: n.messagingLimit,
              registered: n.registered,
            })),
          ),
      };
    },
  }),
  define({
    method: "get",
    path: "/api/v1/templates",
    operationId: "listTemplates",
    permission: "templates:view",
    summary: "Your message templates",
    description:
      "The organisation's message templates, newest first, a page at a time: pass nextCursor as cursor for the next page. Filter by status, language or part of the name.",
    query: TemplatesQuery,
    params: NoParams,
    status: 200,
    response: listed(TemplateList),
    run: ({ organizationId, query }) => listApiTemplates(organizationId, query),
  }),
  define({
    method: "post",
    path: "/api/v1/templates",
    operationId: "createTemplate",
    permission: "templates:manage",
    codes: ["no_whatsapp_account", "template_exists", "meta_error"],
    summary: "Create a template and submit it to Meta",
    description:
      "Checks the template against Meta's rules (the same checks as the Templates page), saves it and submits it to Meta for review. The answer is the template, usually pending (held when Jumbe reviews the organisation's templates before Meta: it goes on to Meta once approved); Meta's decision arrives later (see its status). Components are Meta's; a media header (IMAGE, VIDEO, DOCUMENT) gives the sampleId of a sample uploaded first with POST /api/v1/template-samples, which Jumbe uploads to Meta.",
    query: NoQuery,
    params: NoParams,
    body: { schema: TemplateCreate, example: TEMPLATE_CREATE_EXAMPLE },
    idempotent: "replay",
    status: 201,
    response: Template,
    errors: {
      409: "No WhatsApp Business account is connected (code no_whatsapp_account), or a template with this name and language exists for the account (code template_exists).",
      413: "The body is over 64 KB (code payload_too_large).",
      502: "Meta did not accept the template or its sample (code meta_error, with Meta's words). It is kept in Jumbe as a draft, whose id the message gives.",
    },
    run: ({ organizationId, body }) => createApiTemplate(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/templates/{id}",
    operationId: "getTemplate",
    permission: "templates:view",
    notFound: TEMPLATE_NOT_FOUND,
    summary: "One message template",
    description: "A template of the organisation, with its content and Meta's status.",
    query: NoQuery,
    params: TemplateIdParams,
    status: 200,
    response: Template,
    errors: { 404: TEMPLATE_NOT_FOUND },
    run: ({ organizationId, params }) => getApiTemplate(organizationId, params.id),
  }),
  define({
    method: "delete",
    path: "/api/v1/templates/{id}",
    operationId: "deleteTemplate",
    permission: "templates:manage",
    codes: ["meta_error"],
    notFound: TEMPLATE_NOT_FOUND,
    summary: "Delete a message template",
    description: "Deletes the template here and at Meta. Answers 204 with no body.",
    query: NoQuery,
    params: TemplateIdParams,
    status: 204,
    response: NoContent,
    errors: {
      404: TEMPLATE_NOT_FOUND,
      502: "Meta did not delete the template (code meta_error, with Meta's words); it is kept.",
    },
    run: ({ organizationId, params }) => deleteApiTemplate(organizationId, params.id),
  }),
  define({
    method: "post",
    path: "/api/v1/template-samples",
    operationId: "uploadTemplateSample",
    permission: "templates:manage",
    summary: "Upload a media header's sample",
    description: `The sample file of an IMAGE, VIDEO or DOCUMENT header, as the raw body with its Content-Type: ${Object.values(
      MEDIA_SAMPLES,
    )
      .map((r) => `${r.types.join(" or ")} up to ${r.maxBytes / 1024 / 1024} MB`)
      .join(
        ", ",
      )}. Answers its id, for the header's sampleId in POST /api/v1/templates (the template's JSON stays under 64 KB). A sample no template uses is deleted after 24 hours.`,
    query: TemplateSampleQuery,
    params: NoParams,
    rawBody: {
      contentTypes: SAMPLE_TYPES,
      maxBytes: BODY_LIMITS.templateSample,
      description: "The file's bytes, nothing else (no form encoding).",
      example: { file: "sample.png", contentType: "image/png" },
    },
    idempotent: "replay",
    status: 201,
    response: TemplateSample,
    errors: {
      413: "The file is over its type's limit, or over 16 MB (code payload_too_large).",
      415: "The Content-Type is not image/jpeg, image/png, video/mp4 or application/pdf, or the bytes are not a file of the type it declares (code unsupported_media_type).",
    },
    run: ({ organizationId, query, file }) => createApiTemplateSample(organizationId, file!, query.fileName),
  }),
  define({
    method: "post",
    path: "/api/v1/messages",
    operationId: "sendMessage",
    permission: "inbox:reply",
    codes: [
      "insufficient_balance",
      "not_found",
      "no_whatsapp_number",
      "number_not_registered",
      "whatsapp_reconnect_needed",
      "organization_closing",
      "invalid_phone_number",
      "template_not_found",
      "template_not_approved",
      "parameter_mismatch",
      "outside_service_window",
      "not_opted_in",
      "media_type_mismatch",
    ],
    summary: "Send a WhatsApp message",
    description:
      "Checks the message (the number, the customer's 24-hour service window for anything but a template, the template's approval and parameters) and queues it; Jumbe sends it to Meta at once, within each number's rate. The answer is the message, queued: follow its status with GET /api/v1/messages/{id} or your webhook. The example sends the template order_update with its two parameters. Send an Idempotency-Key header to make retries safe: a repeat with the same key within 24 hours answers the first message and sends nothing.",
    query: NoQuery,
    params: NoParams,
    body: { schema: SendMessage, example: SEND_MESSAGE_EXAMPLE },
    status: 202,
    idempotent: "own",
    response: Message,
    errors: {
      402: "A prepaid wallet cannot pay for this template message (code insufficient_balance): top up on the Billing page or with POST /api/billing/topups.",
      404: "The mediaId, or the message a reply or reaction names, is not one of your organisation's: unknown, deleted or another's (code not_found).",
      409: "No WhatsApp number is connected or registered (codes no_whatsapp_number, number_not_registered), its account needs reconnecting after Meta refused its access (whatsapp_reconnect_needed), your organisation is closing and sends nothing (organization_closing), or the Idempotency-Key was used for another request (idempotency_conflict).",
      422: "The message breaks a rule: invalid_phone_number, template_not_found, template_not_approved, parameter_mismatch, outside_service_window, not_opted_in (a marketing template to someone not opted in) or media_type_mismatch (the file does not fit the kind), with a sentence saying what to change.",
    },
    run: ({ organizationId, body, idempotencyKey, noteReplayed }) => sendApiMessage(organizationId, body, idempotencyKey, noteReplayed),
  }),
  define({
    method: "get",
    path: "/api/v1/messages",
    operationId: "listMessages",
    permission: "inbox:view",
    summary: "Your messages",
    description: "Messages sent and received, newest first, a page at a time: pass nextCursor as cursor for the next page.",
    query: MessagesQuery,
    params: NoParams,
    status: 200,
    response: listed(MessageList),
    run: ({ organizationId, query }) => listApiMessages(organizationId, query),
  }),
  define({
    method: "get",
    path: "/api/v1/messages/{id}",
    operationId: "getMessage",
    permission: "inbox:view",
    notFound: MESSAGE_NOT_FOUND,
    summary: "One message and its status",
    description:
      "The message's status (queued, sent, delivered, read, failed), Meta's error in words when it failed, its wamid and the time of each status.",
    query: NoQuery,
    params: MessageIdParams,
    status: 200,
    response: Message,
    errors: { 404: MESSAGE_NOT_FOUND },
    run: ({ organizationId, params }) => getApiMessage(organizationId, params.id),
  }),
  define({
    method: "post",
    path: "/api/v1/media",
    operationId: "uploadMedia",
    permission: "inbox:reply",
    codes: ["media_too_large", "storage_unavailable"],
    summary: "Upload a file to send",
    description: `A file for messages sent by mediaId, as the multipart/form-data part named file. WhatsApp's types and limits: ${MEDIA_LIMITS_TEXT}. The type is read from the file's first bytes: a declared Content-Type they contradict is refused. Jumbe uploads the file to Meta when a message first sends it from a number, and again after 29 days (Meta keeps media 30 days).`,
    query: NoQuery,
    params: NoParams,
    multipart: {
      field: FILE_FIELD,
      maxBytes: BODY_LIMITS.media,
      description: "The file as the part named file, with its filename and Content-Type.",
      example: { file: "photo.jpg", contentType: "image/jpeg" },
    },
    idempotent: "own",
    status: 201,
    response: MediaFile,
    errors: {
      413: "The file is over its type's limit (code media_too_large), or the body is over 100 MB (code payload_too_large).",
      415: "The file is not a type WhatsApp takes, or the body is not multipart/form-data (code unsupported_media_type); or its bytes contradict its declared type (also unsupported_media_type, the message says which).",
      503: "The file store cannot be reached for now (code storage_unavailable): nothing was stored; try again after Retry-After.",
    },
    run: ({ organizationId, upload, idempotencyKey, noteReplayed }) =>
      uploadApiMedia(organizationId, upload!, idempotencyKey, noteReplayed),
  }),
  define({
    method: "get",
    path: "/api/v1/media/{id}",
    operationId: "getMedia",
    permission: "inbox:view",
    notFound: MEDIA_NOT_FOUND,
    summary: "One uploaded file",
    description: "A file of the organisation: its type, size, SHA-256 and name.",
    query: NoQuery,
    params: MediaIdParams,
    status: 200,
    response: MediaFile,
    errors: { 404: MEDIA_NOT_FOUND },
    run: ({ organizationId, params }) => getApiMedia(organizationId, params.id),
  }),
  define({
    method: "delete",
    path: "/api/v1/media/{id}",
    operationId: "deleteMedia",
    permission: "inbox:reply",
    notFound: MEDIA_NOT_FOUND,
    summary: "Delete an uploaded file",
    description:
      "Deletes the file and its bytes. Answers 204 with no body. A queued message that still sends it fails (its error code media_not_found); Meta's copies expire on their own after 30 days.",
    query: NoQuery,
    params: MediaIdParams,
    status: 204,
    response: NoContent,
    errors: { 404: MEDIA_NOT_FOUND },
    run: ({ organizationId, params }) => deleteApiMedia(organizationId, params.id),
  }),
  define({
    method: "get",
    path: "/api/v1/contacts",
    operationId: "listContacts",
    permission: "contacts:view",
    summary: "List contacts",
    description:
      "The organisation's contacts, newest first, 25 a page (up to 100 with limit). Search by part of a name, a number in any form or a custom field's value; filter by tag and opt-in state; follow nextCursor for the next page.",
    query: ContactsQuery,
    params: NoParams,
    status: 200,
    response: listed(ContactList),
    run: ({ organizationId, query }) => listApiContacts(organizationId, query),
  }),
  define({
    method: "post",
    path: "/api/v1/contacts",
    operationId: "saveContact",
    permission: "contacts:manage",
    codes: [
      "erased_contact",
      "invalid_consent",
      "invalid_phone_number",
      "unknown_attribute",
      "invalid_attribute",
      "invalid_name",
      "invalid_tag",
    ],
    summary: "Add or update a contact",
    description:
      "One contact per number: a new number adds a contact, a known one (in any form) updates it. The answer carries the number as stored (E.164). With consent, the person's opt-in or opt-out is recorded in their consent ledger. A number erased at the person's request comes back only with consent opted_in.",
    query: NoQuery,
    params: NoParams,
    body: { schema: ContactCreate, example: CONTACT_CREATE_EXAMPLE },
    idempotent: "replay",
    status: 200,
    response: Contact,
    errors: {
      409: "The number was erased at the person's request; send consent opted_in with evidence to add them again (code erased_contact).",
      422: "The phone is not a real number (code invalid_phone_number), a custom field is unknown (unknown_attribute) or its value not of its type (invalid_attribute), or a name or tag is not valid (invalid_name, invalid_tag).",
    },
    run: ({ organizationId, body }) => saveApiContact(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/contacts/{id}",
    operationId: "getContact",
    permission: "contacts:view",
    notFound: CONTACT_NOT_FOUND,
    summary: "One contact",
    description: "A contact of the organisation, with its tags, custom fields and consent state.",
    query: NoQuery,
    params: ContactIdParams,
    status: 200,
    response: Contact,
    errors: { 404: CONTACT_NOT_FOUND },
    run: ({ organizationId, params }) => getApiContact(organizationId, params.id),
  }),
  define({
    method: "patch",
    path: "/api/v1/contacts/{id}",
    operationId: "updateContact",
    permission: "contacts:manage",
    codes: ["duplicate_phone", "invalid_phone_number", "unknown_attribute", "invalid_attribute", "invalid_name", "invalid_tag"],
    notFound: CONTACT_NOT_FOUND,
    summary: "Change a contact",
    description:
      "Changes the fields given and leaves the others. tags replaces the list; attributes sets the fields given (null removes one).",
    query: NoQuery,
    params: ContactIdParams,
    body: { schema: ContactUpdate, example: CONTACT_UPDATE_EXAMPLE },
    status: 200,
    response: Contact,
    errors: {
      404: CONTACT_NOT_FOUND,
      409: "Another contact has this number: merge the two instead (code duplicate_phone).",
      422: "A field is not valid (codes invalid_phone_number, unknown_attribute, invalid_attribute, invalid_name, invalid_tag).",
    },
    run: ({ organizationId, params, body }) => updateApiContact(organizationId, params.id, body),
  }),
  define({
    method: "delete",
    path: "/api/v1/contacts/{id}",
    operationId: "deleteContact",
    permission: "contacts:manage",
    notFound: CONTACT_NOT_FOUND,
    summary: "Delete a contact",
    description: "Deletes the contact; messages exchanged with them stay, no longer linked. Answers 204 with no body.",
    query: NoQuery,
    params: ContactIdParams,
    status: 204,
    response: NoContent,
    errors: { 404: CONTACT_NOT_FOUND },
    run: ({ organizationId, params }) => deleteApiContact(organizationId, params.id),
  }),
  define({
    method: "post",
    path: "/api/v1/contacts/{id}/consent",
    operationId: "recordConsent",
    permission: "contacts:manage",
    codes: ["invalid_consent"],
    notFound: CONTACT_NOT_FOUND,
    summary: "Record a contact's consent",
    description:
      "Adds an opt-in or opt-out to the contact's consent ledger, with where it came from and the evidence; the contact's optIn is the latest. Marketing messages go only to contacts opted in.",
    query: NoQuery,
    params: ContactIdParams,
    body: { schema: ConsentInput, example: CONSENT_EXAMPLE },
    status: 200,
    response: Contact,
    errors: { 404: CONTACT_NOT_FOUND, 422: "The source is not one of the list or the evidence is too long (code invalid_consent)." },
    run: ({ organizationId, params, body }) => setApiConsent(organizationId, params.id, body),
  }),
  define({
    method: "post",
    path: "/api/v1/campaigns",
    operationId: "createCampaign",
    permission: "campaigns:manage",
    codes: [
      "not_found",
      "no_whatsapp_number",
      "number_not_registered",
      "whatsapp_reconnect_needed",
      "organization_closing",
      "invalid_campaign",
      "template_not_found",
      "template_not_approved",
      "parameter_mismatch",
      "invalid_parameters",
      "media_type_mismatch",
      "invalid_audience",
      "empty_audience",
      "invalid_schedule",
    ],
    summary: "Create a campaign",
    description:
      "One approved template to an audience (a segment, tags, contacts, numbers, or everyone opted in), each placeholder from a contact field (with a fallback) or a fixed value. A template with an image, video or document header takes its file in header, one for everyone: { link } (https) or { mediaId } (POST /api/v1/media), with filename for a document. A URL button whose link ends in {{1}} and a copy-code button take a value per person in buttons, by the button's position: { index, field, fallback } or { index, value }. It starts now, at scheduledFor, or is saved as a draft. Each person gets it once; people who cannot receive it are left out and counted by reason (a marketing template only goes to people opted in). The answer is the campaign with its estimate: how many receive it, who is left out and why, and the cost in KES. The example schedules the approved UTILITY template agm_reminder (body: Dear {{1}}, our AGM is on {{2}}.) a week ahead. Send an Idempotency-Key header to make retries safe: a repeat with the same key within 24 hours answers the first campaign and creates nothing. When the organisation's owner has turned on broadcast approval, a campaign to more recipients than its threshold answers status awaiting_approval: nothing is sent until an owner or admin who has never seen the API key it was made with approves it in Jumbe (whoever holds the key could have made it, so neither the member who created or regenerated the key nor anyone who revealed it may approve or decline it), and once approved it starts, or waits for its scheduledFor. Declined, it is cancelled with the reason in approval.declineReason.",
    query: NoQuery,
    params: NoParams,
    body: {
      schema: CampaignCreate,
      // A date a week ahead whenever the document is built (openapi.ts builds it again each day).
      get example() {
        return campaignCreateExample();
      },
    },
    status: 201,
    idempotent: "own",
    response: CreatedCampaign,
    errors: {
      404: "The audience's segment is not one of yours, or header.mediaId is not a media file of yours (code not_found, the message says which).",
      409: "No WhatsApp number is connected or registered (codes no_whatsapp_number, number_not_registered), its account needs reconnecting (whatsapp_reconnect_needed), your organisation is closing and sends nothing (organization_closing), or the Idempotency-Key was used for another request (idempotency_conflict).",
      413: "The body is over 64 KB (code payload_too_large): name the audience by tags or a segment rather than thousands of numbers.",
      422: "The campaign breaks a rule, with a sentence saying what to change: invalid_campaign (its name), template_not_found, template_not_approved or parameter_mismatch (the template), invalid_parameters (a placeholder or button without a value or mapped to an unknown field; a media header's file missing, not https, or given for a template without one), media_type_mismatch (the uploaded file does not fit the header: a PDF for an image), invalid_audience, empty_audience (nobody in it can receive it; a draft may be empty), invalid_schedule (a time past or more than a year ahead).",
    },
    run: ({ organizationId, apiKeyId, body, idempotencyKey, noteReplayed }) =>
      createApiCampaign(organizationId, body, idempotencyKey, apiKeyId, noteReplayed),
  }),
  define({
    method: "get",
    path: "/api/v1/campaigns",
    operationId: "listCampaigns",
    permission: "campaigns:view",
    summary: "List campaigns",
    description:
      "The organisation's campaigns and broadcasts, newest first, 25 a page (up to 100 with limit), with their figures. Search by part of the campaign's or the template's name, filter by status; follow nextCursor for the next page.",
    query: CampaignsQuery,
    params: NoParams,
    status: 200,
    response: listed(CampaignList),
    run: ({ organizationId, query }) => listApiCampaigns(organizationId, query),
  }),
  define({
    method: "get",
    path: "/api/v1/campaigns/{id}",
    operationId: "getCampaign",
    permission: "campaigns:view",
    notFound: CAMPAIGN_NOT_FOUND,
    summary: "One campaign and its progress",
    description:
      "A campaign's status (draft, awaiting_approval, scheduled, sending, paused, completed, cancelled, failed) and its figures, at most a second old: queued, sent, delivered, read, replied (within 72 hours of delivery) and failed; who was left out and why; why it is paused.",
    query: NoQuery,
    params: CampaignIdParams,
    status: 200,
    response: Campaign,
    errors: { 404: CAMPAIGN_NOT_FOUND },
    run: ({ organizationId, params }) => getApiCampaign(organizationId, params.id),
  }),
  campaignChange(
    "pause",
    "Pause a campaign",
    "Pauses a sending or scheduled campaign: nothing more leaves after the messages already with Meta, on every instance within a second. Answers the campaign, paused.",
    "The campaign is not sending or scheduled (code campaign_state).",
  ),
  campaignChange(
    "resume",
    "Resume a campaign",
    "Resumes a paused campaign where it stopped (a scheduled one that has not started waits for its time again; one whose time has passed starts now, checked again). Answers the campaign.",
    "The campaign is not paused (code campaign_state), or your organisation is closing and sends nothing (code organization_closing).",
    {
      422: "A campaign starting now no longer passes its checks: its template, number or audience changed (codes as for creating one).",
    },
    [
      "organization_closing",
      "no_whatsapp_number",
      "number_not_registered",
      "whatsapp_reconnect_needed",
      "insufficient_balance",
      "template_not_found",
      "template_not_approved",
      "parameter_mismatch",
      "invalid_parameters",
      "media_type_mismatch",
      "invalid_audience",
      "empty_audience",
      "invalid_schedule",
    ],
  ),
  campaignChange(
    "cancel",
    "Cancel a campaign",
    "Cancels a campaign that has not ended: the people not sent to yet are left out (cancelled); messages already with Meta keep their statuses. Answers the campaign, cancelled.",
    "The campaign has already ended: completed, cancelled or failed (code campaign_state).",
  ),
  define({
    method: "get",
    path: "/api/v1/automations/rules",
    operationId: "listAutomationRules",
    permission: "automations:view",
    summary: "List keyword rules",
    description:
      "The organisation's keyword rules in the order they are tried: the first, turned on, whose keywords a customer's message matches answers it. Each has its place in the order (position, 1 first), how many messages it has answered and when it last did. All of them in one answer.",
    query: NoQuery,
    params: NoParams,
    status: 200,
    response: listed(AutomationRuleList),
    run: ({ organizationId }) => listApiRules(organizationId),
  }),
  define({
    method: "post",
    path: "/api/v1/automations/rules",
    operationId: "createAutomationRule",
    permission: "automations:manage",
    codes: ["invalid_automation", "rule_limit"],
    summary: "Add a keyword rule",
    description:
      "Adds a rule, turned on and last in the order: its keywords, how they match (exact, contains, starts_with, fuzzy with a threshold, or regex) and what it does, in actions: reply sends a text, addTags and removeTags change the contact's tags, assignTo hands the conversation to a member who answers chats (their user id), sendProducts sends products from the catalog after the reply. It needs at least one action. The Automations page's checks apply: a regular expression that could take too long on some messages is refused. The answer is the rule.",
    query: NoQuery,
    params: NoParams,
    body: { schema: AutomationRuleCreate, example: AUTOMATION_RULE_CREATE_EXAMPLE },
    status: 201,
    response: AutomationRule,
    errors: {
      409: `The organisation has ${RULES_MAX} rules, the most it may (code rule_limit).`,
      422: "A field fails the Automations page's checks (code invalid_automation): the answer's field names it (keywords[2], threshold, actions.assignTo) and the message says what to change. Nothing is saved.",
    },
    run: ({ organizationId, body }) => createApiRule(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/automations/rules/{id}",
    operationId: "getAutomationRule",
    permission: "automations:view",
    notFound: RULE_NOT_FOUND,
    summary: "One keyword rule",
    description: "A rule of the organisation, with its place in the order, whether it is on and its figures.",
    query: NoQuery,
    params: RuleIdParams,
    status: 200,
    response: AutomationRule,
    errors: { 404: RULE_NOT_FOUND },
    run: ({ organizationId, params }) => getApiRule(organizationId, params.id),
  }),
  define({
    method: "patch",
    path: "/api/v1/automations/rules/{id}",
    operationId: "updateAutomationRule",
    permission: "automations:manage",
    codes: ["invalid_automation"],
    notFound: RULE_NOT_FOUND,
    summary: "Change a keyword rule",
    description:
      "Changes the fields given and leaves the others, then checks the whole rule as adding one does. keywords replaces the list; in actions, each action given replaces the rule's (null or an empty list removes it) and the others stay. enabled turns the rule on or off. position moves it to that place in the order (1 is tried first; a place past the end puts it last), the others keeping their order. The answer is the rule as it is after.",
    query: NoQuery,
    params: RuleIdParams,
    body: { schema: AutomationRuleUpdate, example: AUTOMATION_RULE_UPDATE_EXAMPLE },
    status: 200,
    response: AutomationRule,
    errors: {
      404: RULE_NOT_FOUND,
      422: "The rule as changed fails the Automations page's checks (code invalid_automation): the answer's field names where. Nothing is changed.",
    },
    run: ({ organizationId, params, body }) => updateApiRule(organizationId, params.id, body),
  }),
  define({
    method: "delete",
    path: "/api/v1/automations/rules/{id}",
    operationId: "deleteAutomationRule",
    permission: "automations:manage",
    notFound: RULE_NOT_FOUND,
    summary: "Delete a keyword rule",
    description: "Deletes the rule; the replies it sent stay in the conversations. Answers 204 with no body.",
    query: NoQuery,
    params: RuleIdParams,
    status: 204,
    response: NoContent,
    errors: { 404: RULE_NOT_FOUND },
    run: ({ organizationId, params }) => deleteApiRule(organizationId, params.id),
  }),
  define({
    method: "get",
    path: "/api/v1/automations/settings",
    operationId: "getAutomationSettings",
    permission: "automations:view",
    summary: "Welcome and away messages and business hours",
    description:
      "The welcome message (sent on a customer's first message ever) and the away message (sent outside business hours, once a conversation a day), each only when no keyword rule answered; the opening hours of each weekday, holidays and holiday mode, all in the organisation's time zone (Account Settings); and whether the organisation is open now, and when it next opens.",
    query: NoQuery,
    params: NoParams,
    status: 200,
    response: AutomationSettings,
    run: ({ organizationId }) => getApiSettings(organizationId),
  }),
  define({
    method: "patch",
    path: "/api/v1/automations/settings",
    operationId: "updateAutomationSettings",
    permission: "automations:manage",
    codes: ["invalid_automation"],
    summary: "Change the welcome and away messages or business hours",
    description:
      "Changes the fields given and leaves the others: in welcome and away, enabled and text each; in hours, the weekdays given replace those days' opening times (an empty list closes the day) and the others stay; holidays replaces the list. A range runs from its from (included) to its to (excluded), HH:MM, 24:00 for midnight; one whose to is not after its from runs past midnight. Everything is checked before anything is saved. The answer is the settings as they are after.",
    query: NoQuery,
    params: NoParams,
    body: { schema: AutomationSettingsUpdate, example: AUTOMATION_SETTINGS_EXAMPLE },
    status: 200,
    response: AutomationSettings,
    errors: {
      422: `A message is enabled without a text or too long, or the hours are not valid: a time not HH:MM, more than ${MAX_RANGES_PER_DAY} ranges a day, ranges that overlap, a holiday not a date (code invalid_automation). The answer's field names where (welcome.text, hours.monday[0].from, holidays[1]). Nothing is changed.`,
    },
    run: ({ organizationId, body }) => updateApiSettings(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/automations/assistant",
    operationId: "getAssistantSettings",
    permission: "automations:view",
    summary: "The AI assistant's settings and this month's use",
    description:
      "Whether the AI assistant answers and on which numbers, its instructions, the OpenAI-compatible endpoint and model it calls (whether a key is saved and its last four characters, never the key), when it hands a conversation to a person, its monthly cost cap and prices; and this month's replies, handovers, tokens and cost. It answers a customer's message when no keyword rule did, from the knowledge base only.",
    query: NoQuery,
    params: NoParams,
    status: 200,
    response: AssistantSettings,
    run: ({ organizationId }) => getApiAssistant(organizationId),
  }),
  define({
    method: "patch",
    path: "/api/v1/automations/assistant",
    operationId: "updateAssistantSettings",
    permission: "automations:manage",
    codes: ["invalid_automation"],
    summary: "Change the AI assistant's settings",
    description:
      "Changes the fields given and leaves the others, then checks the whole as the Assistant page does: the base URL must be https on a public address (outside production, a model on Jumbe's own machine too), and while enabled it needs a model and a handover message. apiKey is write-only: a string replaces the saved key (stored encrypted), null forgets it, absent keeps it. The answer is the settings as they are after, without the key.",
    query: NoQuery,
    params: NoParams,
    body: { schema: AssistantSettingsUpdate, example: ASSISTANT_SETTINGS_EXAMPLE },
    status: 200,
    response: AssistantSettings,
    errors: {
      422: "A field fails the Assistant page's checks (code invalid_automation): the answer's field names it (baseUrl, handoverText, maxTurns, phoneNumberIds) and the message says what to change. Nothing is changed.",
    },
    run: ({ organizationId, body }) => updateApiAssistant(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/automations/knowledge",
    operationId: "listKnowledgeArticles",
    permission: "automations:view",
    summary: "List knowledge articles",
    description:
      "The organisation's knowledge base, which the AI assistant answers from: every article, newest change first, or those whose title or text contains q. CSV and PDF uploads are made on the Knowledge page; their articles are listed here with their source.",
    query: KnowledgeQuery,
    params: NoParams,
    status: 200,
    response: listed(KnowledgeArticleList),
    run: ({ organizationId, query }) => listApiKnowledge(organizationId, query.q),
  }),
  define({
    method: "post",
    path: "/api/v1/automations/knowledge",
    operationId: "createKnowledgeArticle",
    permission: "automations:manage",
    codes: ["invalid_automation", "knowledge_limit"],
    summary: "Add a knowledge article",
    description: `Adds an article the assistant may answer from: a title and its text (up to ${ARTICLE_BODY_MAX.toLocaleString("en")} characters). The answer is the article.`,
    query: NoQuery,
    params: NoParams,
    body: { schema: KnowledgeArticleCreate, example: KNOWLEDGE_CREATE_EXAMPLE },
    status: 201,
    response: KnowledgeArticle,
    errors: {
      409: `The knowledge base has ${ARTICLES_MAX} articles, the most it may (code knowledge_limit).`,
      422: "The title or text is empty or too long (code invalid_automation, field title or body). Nothing is saved.",
    },
    run: ({ organizationId, body }) => createApiKnowledge(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/automations/knowledge/{id}",
    operationId: "getKnowledgeArticle",
    permission: "automations:view",
    notFound: ARTICLE_NOT_FOUND,
    summary: "One knowledge article",
    description: "An article of the organisation's knowledge base, with its whole text.",
    query: NoQuery,
    params: KnowledgeIdParams,
    status: 200,
    response: KnowledgeArticle,
    errors: { 404: ARTICLE_NOT_FOUND },
    run: ({ organizationId, params }) => getApiKnowledge(organizationId, params.id),
  }),
  define({
    method: "patch",
    path: "/api/v1/automations/knowledge/{id}",
    operationId: "updateKnowledgeArticle",
    permission: "automations:manage",
    codes: ["invalid_automation"],
    notFound: ARTICLE_NOT_FOUND,
    summary: "Change a knowledge article",
    description: "Changes the title or text given and leaves the other; the assistant answers from the new text at once.",
    query: NoQuery,
    params: KnowledgeIdParams,
    body: { schema: KnowledgeArticleUpdate, example: KNOWLEDGE_UPDATE_EXAMPLE },
    status: 200,
    response: KnowledgeArticle,
    errors: {
      404: ARTICLE_NOT_FOUND,
      422: "The title or text is empty or too long (code invalid_automation, field title or body). Nothing is changed.",
    },
    run: ({ organizationId, params, body }) => updateApiKnowledge(organizationId, params.id, body),
  }),
  define({
    method: "delete",
    path: "/api/v1/automations/knowledge/{id}",
    operationId: "deleteKnowledgeArticle",
    permission: "automations:manage",
    notFound: ARTICLE_NOT_FOUND,
    summary: "Delete a knowledge article",
    description: "Deletes the article; the assistant no longer answers from it. Answers 204 with no body.",
    query: NoQuery,
    params: KnowledgeIdParams,
    status: 204,
    response: NoContent,
    errors: { 404: ARTICLE_NOT_FOUND },
    run: ({ organizationId, params }) => deleteApiKnowledge(organizationId, params.id),
  }),
  define({
    method: "get",
    path: "/api/v1/automations/flows",
    operationId: "listFlows",
    permission: "automations:view",
    summary: "List chatbot flows",
    description:
      "The organisation's chatbot flows, oldest first: each with its status, its live version, its draft's steps and how many conversations are in it now (and on older versions) or completed it.",
    query: NoQuery,
    params: NoParams,
    status: 200,
    response: listed(FlowList),
    run: ({ organizationId }) => listApiFlows(organizationId),
  }),
  define({
    method: "post",
    path: "/api/v1/automations/flows",
    operationId: "createFlow",
    permission: "automations:manage",
    codes: ["invalid_automation", "flow_limit"],
    summary: "Add a chatbot flow",
    description:
      "Adds a flow as a draft (status draft): its name, idle time and text, and its steps. Nothing starts it until it is published and a keyword rule starts it. The answer is the flow.",
    query: NoQuery,
    params: NoParams,
    body: { schema: FlowCreate, example: FLOW_CREATE_EXAMPLE },
    status: 201,
    response: Flow,
    errors: {
      409: `The organisation has ${FLOWS_MAX} flows, the most it may (code flow_limit).`,
      422: `A field fails the Automations page's checks, or more than ${FLOW_STEPS_MAX} steps (code invalid_automation): the answer's field names it (name, steps[2].choices). Nothing is saved.`,
    },
    run: ({ organizationId, body }) => createApiFlow(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/automations/flows/{id}",
    operationId: "getFlow",
    permission: "automations:view",
    notFound: FLOW_NOT_FOUND,
    summary: "One chatbot flow",
    description: "A flow of the organisation: its draft's steps, its live version and its figures.",
    query: NoQuery,
    params: FlowIdParams,
    status: 200,
    response: Flow,
    errors: { 404: FLOW_NOT_FOUND },
    run: ({ organizationId, params }) => getApiFlow(organizationId, params.id),
  }),
  define({
    method: "patch",
    path: "/api/v1/automations/flows/{id}",
    operationId: "updateFlow",
    permission: "automations:manage",
    codes: ["invalid_automation"],
    notFound: FLOW_NOT_FOUND,
    summary: "Change a chatbot flow",
    description:
      "Changes the fields given of the flow's draft and leaves the others (steps replaces the whole list), checked as adding one is; the live version stays until published. enabled turns a published flow on or off. The answer is the flow as it is after.",
    query: NoQuery,
    params: FlowIdParams,
    body: { schema: FlowUpdate, example: FLOW_UPDATE_EXAMPLE },
    status: 200,
    response: Flow,
    errors: {
      404: FLOW_NOT_FOUND,
      422: "The flow as changed fails the checks, or it is turned on before it was ever published (code invalid_automation). Nothing is changed.",
    },
    run: ({ organizationId, params, body }) => updateApiFlow(organizationId, params.id, body),
  }),
  define({
    method: "delete",
    path: "/api/v1/automations/flows/{id}",
    operationId: "deleteFlow",
    permission: "automations:manage",
    notFound: FLOW_NOT_FOUND,
    summary: "Delete a chatbot flow",
    description: "Deletes the flow and its versions; conversations in it leave it and hear nothing more from it. Answers 204 with no body.",
    query: NoQuery,
    params: FlowIdParams,
    status: 204,
    response: NoContent,
    errors: { 404: FLOW_NOT_FOUND },
    run: ({ organizationId, params }) => deleteApiFlow(organizationId, params.id),
  }),
  define({
    method: "post",
    path: "/api/v1/automations/flows/{id}/publish",
    operationId: "publishFlow",
    permission: "automations:manage",
    codes: ["invalid_automation"],
    notFound: FLOW_NOT_FOUND,
    summary: "Publish a chatbot flow",
    description:
      "Makes the draft a new version and the flow live: new conversations start on it, while those already in the flow finish on the version they started. Answers the flow.",
    query: NoQuery,
    params: FlowIdParams,
    status: 200,
    response: Flow,
    errors: { 404: FLOW_NOT_FOUND, 422: "The draft has no steps (code invalid_automation)." },
    run: ({ organizationId, params }) => publishApiFlow(organizationId, params.id),
  }),
  define({
    method: "post",
    path: "/api/v1/payment-requests",
    operationId: "createPaymentRequest",
    permission: "inbox:reply",
    codes: [
      "unknown_shortcode",
      "no_phone",
      "outside_service_window",
      "insufficient_balance",
      "no_whatsapp_number",
      "organization_closing",
    ],
    summary: "Ask a customer to pay by M-Pesa",
    description:
      "Sends the conversation's customer a message asking them to pay the amount to your M-Pesa shortcode, with two buttons: Pay with M-Pesa (a prompt on their phone, where they enter their PIN) and Use another number; it also says your paybill or till and the reference, to pay by hand. Inside the 24-hour window (the customer wrote in the last 24 hours) the buttons are a message of their own; outside it the request goes as your approved payment template (Settings → Payments), charged as a template message. The payment is recorded once, however M-Pesa reports it; follow it with GET /api/v1/payment-requests/{id} or the payment_request.paid, payment_request.failed, payment_request.expired and payment_request.cancelled webhooks; take it back with POST /api/v1/payment-requests/{id}/cancel.",
    query: NoQuery,
    params: NoParams,
    body: { schema: PaymentRequestCreate, example: PAYMENT_REQUEST_CREATE_EXAMPLE },
    idempotent: "replay",
    status: 201,
    response: PaymentRequest,
    notFound: "No conversation of yours has this conversationId.",
    errors: {
      402: "Outside the 24-hour window the request is a template message, and a prepaid wallet cannot pay for it (code insufficient_balance).",
      422: "Outside the customer's 24-hour window while your payment template is not approved (code outside_service_window), no such shortcode of yours (code unknown_shortcode), or a customer with no number (code no_phone).",
    },
    run: ({ organizationId, apiKeyId, body, idempotencyKey }) => createApiPaymentRequest(organizationId, body, idempotencyKey, apiKeyId),
  }),
  define({
    method: "get",
    path: "/api/v1/payment-requests",
    operationId: "listPaymentRequests",
    permission: "inbox:view",
    summary: "List payment requests",
    description: "The organisation's payment requests, newest first (up to 100 with limit), a conversation's or of a status when asked.",
    query: PaymentRequestsQuery,
    params: NoParams,
    status: 200,
    response: listed(PaymentRequestList),
    run: ({ organizationId, query }) => listApiPaymentRequests(organizationId, query),
  }),
  define({
    method: "get",
    path: "/api/v1/payment-requests/{id}",
    operationId: "getPaymentRequest",
    permission: "inbox:view",
    notFound: PAYMENT_REQUEST_NOT_FOUND,
    summary: "One payment request",
    description:
      "A payment request with its state: open, paid (with the M-Pesa receipt, amount, phone and time; amountMismatch when M-Pesa took another amount), expired or cancelled, and its latest prompt.",
    query: NoQuery,
    params: PaymentRequestIdParams,
    status: 200,
    response: PaymentRequest,
    errors: { 404: PAYMENT_REQUEST_NOT_FOUND },
    run: ({ organizationId, params }) => getApiPaymentRequest(organizationId, params.id),
  }),
  define({
    method: "post",
    path: "/api/v1/payment-requests/{id}/cancel",
    operationId: "cancelPaymentRequest",
    permission: "inbox:reply",
    codes: ["payment_request_closed", "prompt_on_phone"],
    notFound: PAYMENT_REQUEST_NOT_FOUND,
    summary: "Cancel a payment request",
    description:
      "Takes back an open request, as Cancel request in the inbox does: it closes as cancelled, the customer is told in their language not to pay it, a cart's order may be asked again, and the payment_request.cancelled webhook goes out once. A tap on the old message then says it has closed; money paid by hand with its reference afterwards is still kept (Settings → Payments, Received without a request). Answers the request, cancelled. A second cancel is refused with 409 payment_request_closed (a repeat with the same Idempotency-Key answers the first result instead).",
    query: NoQuery,
    params: PaymentRequestIdParams,
    status: 200,
    response: PaymentRequest,
    errors: {
      404: PAYMENT_REQUEST_NOT_FOUND,
      409: "The request is no longer open: paid, expired or already cancelled (code payment_request_closed), or an M-Pesa prompt is on the customer's phone and their PIN may be going in (code prompt_on_phone): wait for M-Pesa's answer.",
    },
    run: ({ organizationId, params, caller }) => cancelApiPaymentRequest(organizationId, params.id, caller),
  }),
  define({
    method: "post",
    path: "/api/v1/sms",
    operationId: "sendSms",
    permission: "inbox:reply",
    codes: ["sms_not_connected", "opted_out", "quiet_hours", "insufficient_balance"],
    summary: "Send an SMS",
    description:
      "Sends an SMS to a number through your Africa's Talking account (Settings → SMS), stored in the customer's conversation (their contact and conversation are made when new). The answer is the SMS, queued, with its encoding, parts and price (KES 1.00 a part, held on a prepaid wallet and charged when Africa's Talking takes it). Refused for a customer who opted out and from 20:00 to 08:00 Nairobi time unless they wrote in the last 24 hours. Follow it with GET /api/v1/sms/{id} or the message.delivered and message.failed webhooks. Send an Idempotency-Key header to make retries safe: a repeat with the same key answers the first SMS and sends nothing.",
    query: NoQuery,
    params: NoParams,
    body: { schema: SmsSend, example: SMS_SEND_EXAMPLE },
    idempotent: "replay",
    status: 202,
    response: Sms,
    errors: {
      402: "A prepaid wallet cannot pay for the SMS's parts (code insufficient_balance).",
      409: "No Africa's Talking account is connected (code sms_not_connected), the customer opted out (opted_out), or it is quiet hours in Nairobi (quiet_hours).",
    },
    run: ({ organizationId, body }) => sendApiSms(organizationId, body),
  }),
  define({
    method: "get",
    path: "/api/v1/sms/{id}",
    operationId: "getSms",
    permission: "inbox:view",
    notFound: SMS_NOT_FOUND,
    summary: "One SMS",
    description:
      "An SMS you sent (by the API or the inbox): its status (queued, sent, delivered, failed), parts, price and Africa's Talking's latest delivery report.",
    query: NoQuery,
    params: SmsIdParams,
    status: 200,
    response: Sms,
    errors: { 404: SMS_NOT_FOUND },
    run: ({ organizationId, params }) => getApiSms(organizationId, params.id),
  }),
  define({
    method: "get",
    path: "/api/v1/hooks",
    operationId: "listHooks",
    permission: "developer:view",
    summary: "List REST hooks",
    description:
      "The organisation's REST hooks (Zapier, Make), oldest first: each target URL, its event and its last delivery. Their secrets are never shown again.",
    query: NoQuery,
    params: NoParams,
    status: 200,
    response: listed(HookList),
    run: ({ organizationId }) => listApiHooks(organizationId),
  }),
  define({
    method: "post",
    path: "/api/v1/hooks",
    operationId: "subscribeHook",
    permission: "developer:manage",
    codes: ["invalid_hook", "hook_exists", "hook_limit"],
    secretInAnswer: true,
    summary: "Subscribe a REST hook",
    description:
      "Subscribes a target URL to one event (an automation platform's REST hook subscribe). Each event is POSTed to it as webhooks out send theirs: the Standard Webhooks body with type, timestamp and data, signed with the secret this answer shows once, its addresses checked again at each delivery, retried for three days. A 410 Gone from the target removes the hook. To act on an event, call POST /api/v1/messages (send a message).",
    query: NoQuery,
    params: NoParams,
    body: { schema: HookCreate, example: HOOK_CREATE_EXAMPLE },
    status: 201,
    response: SubscribedHook,
    errors: {
      409: `The URL is already subscribed to the event (code hook_exists), or the organisation has ${REST_HOOKS_MAX} hooks, the most it may (code hook_limit).`,
      422: "The target URL is not acceptable: not https, with a user name or password, or a private, loopback or link-local address (code invalid_hook, field targetUrl). Nothing is saved.",
    },
    run: ({ organizationId, apiKeyId, body }) => subscribeApiHook(organizationId, apiKeyId, body),
  }),
  define({
    method: "delete",
    path: "/api/v1/hooks/{id}",
    operationId: "unsubscribeHook",
    permission: "developer:manage",
    notFound: HOOK_NOT_FOUND,
    summary: "Unsubscribe a REST hook",
    description: "Removes the hook: nothing more is sent to it, deliveries still waiting included. Answers 204 with no body.",
    query: NoQuery,
    params: HookIdParams,
    status: 204,
    response: NoContent,
    errors: { 404: HOOK_NOT_FOUND },
    run: ({ organizationId, params }) => unsubscribeApiHook(organizationId, params.id),
  }),
  define({
    method: "get",
    path: "/api/v1/orders",
    operationId: "listOrders",
    permission: "shop:view",
    summary: "Orders from WhatsApp carts",
    description:
      "The carts customers sent from a product message, as orders with their items, newest first, a page at a time: pass nextCursor as cursor for the next page. Filter by status. Totals are in cents, from your own product prices.",
    query: OrdersQuery,
    params: NoParams,
    status: 200,
    response: listed(OrderList),
    run: ({ organizationId, query }) => listApiOrders(organizationId, query),
  }),
  define({
    method: "get",
    path: "/api/v1/orders/{id}",
    operationId: "getOrder",
    permission: "shop:view",
    notFound: ORDER_NOT_FOUND,
    summary: "One order",
    description: "An order of the organisation: its customer, items, total and status.",
    query: NoQuery,
    params: OrderIdParams,
    status: 200,
    response: Order,
    errors: { 404: ORDER_NOT_FOUND },
    run: ({ organizationId, params }) => getApiOrder(organizationId, params.id),
  }),
];

/**
 * Every code an endpoint can answer, by the catalogue: those every call can get (the key, its
 * organisation and role, the rate limit, a bad query, a fault of ours, the database out of reach),
 * those of its path's id, its body and its Idempotency-Key, then its own. The OpenAPI document lists these per status, and the
 * tests hold each real answer to them.
 */
export function errorCodesOf(endpoint: Endpoint): ErrorCode[] {
  const codes = new Set<ErrorCode>(["invalid_request", "missing_api_key", "invalid_api_key", "account_suspended", "permission_denied"]);
  if (endpoint.notFound) codes.add("not_found");
  if (takesBody(endpoint)) {
    codes.add("payload_too_large");
    codes.add("unsupported_media_type");
  }
  if (idempotencyOf(endpoint)) {
    codes.add("idempotency_conflict");
    codes.add("idempotency_in_progress");
  }
  for (const code of endpoint.codes ?? []) codes.add(code);
  codes.add("rate_limited");
  codes.add("internal_error");
  codes.add("service_unavailable");
  return [...codes].sort((a, b) => ERROR_CATALOGUE[a].status - ERROR_CATALOGUE[b].status || a.localeCompare(b));
}
