import type { IncomingMessage, ServerResponse } from "node:http";
import { Router } from "express";
import { sandboxGate } from "../access";
import type { SandboxContext } from "./context";
import { consoleRouter } from "./console";
import { shopConsoleRouter } from "./shop-console";
import { conversionsConsoleRouter } from "./conversions-console";
import { DatasetDesk } from "./datasets";
import { controlRouter } from "./control";
import { dialogRouter } from "./dialog";
import { WebhookEvents } from "./events";
import { CallLog, FaultTable } from "./faults";
import { DEFAULT_STATUS_DELAYS, sendingFromEnv } from "./env-options";
import { graphRouter, graphSendFastPath, mediaDownload } from "./graph-routes";
import { businessDemoTemplateId } from "./business-demo";
import { buildInbound, png } from "./inbound";
import { MediaDesk } from "./media";
import { MessageDesk } from "./messages";
import { SandboxStore } from "./state";
import { TemplateDesk } from "./templates";
import { UploadDesk } from "./uploads";
import { REENGAGEMENT_MODES, type MetaSandbox, type MetaSandboxOptions, type ReengagementMode, type ResolvedOptions } from "./types";
import { parseHttpUrl } from "./util";
import { WebhookSender } from "./webhooks";

export type {
  CallRecord,
  DeliveryChaos,
  DeliveryRecord,
  GraphFault,
  GraphFaultError,
  GraphStep,
  InboundInput,
  InboundType,
  MetaSandbox,
  MetaSandboxOptions,
  ParameterFormat,
  SandboxMessage,
  SandboxTemplate,
  SandboxUpload,
  StatusDelays,
  TemplateAtMetaInput,
  TemplateCategory,
  TemplateDecision,
  TemplateEvent,
  TemplateQualityScore,
  TemplateReason,
  TemplateStatus,
} from "./types";
export { serializeLikeMeta, signPayload } from "./util";
export { MAGIC_RECIPIENTS, PAIR_RATE, WINDOW_MS } from "./messages";

function resolveOptions(options: MetaSandboxOptions): ResolvedOptions {
  if (!options?.appId) throw new Error("createMetaSandbox: appId is required.");
  if (!options.appSecret) throw new Error("createMetaSandbox: appSecret is required.");
  const retry = options.webhookRetry ?? { attempts: 8, baseDelayMs: 1000 };
  if (!Number.isInteger(retry.attempts) || retry.attempts < 1)
    throw new Error("createMetaSandbox: webhookRetry.attempts must be at least 1.");
  if (!(retry.baseDelayMs >= 0)) throw new Error("createMetaSandbox: webhookRetry.baseDelayMs must not be negative.");
  const reviewDelay = options.templateReviewDelayMs ?? 3000;
  if (!Number.isFinite(reviewDelay) || reviewDelay < 0)
    throw new Error("createMetaSandbox: templateReviewDelayMs must be a number of milliseconds, 0 or more.");
  const publicPath = (options.publicPath ?? "/sandbox/meta").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createMetaSandbox: publicPath must start with "/".');
  const fromEnv = sendingFromEnv(process.env);
  const statusDelaysMs = { ...DEFAULT_STATUS_DELAYS, ...fromEnv.statusDelaysMs, ...options.statusDelaysMs };
  for (const [name, ms] of Object.entries(statusDelaysMs))
    if (!Number.isFinite(ms) || ms < 0)
      throw new Error(`createMetaSandbox: statusDelaysMs.${name} must be a number of milliseconds, 0 or more.`);
  const throughputPerSecond = options.throughputPerSecond ?? fromEnv.throughputPerSecond ?? 80;
  if (!Number.isFinite(throughputPerSecond) || throughputPerSecond < 0)
    throw new Error("createMetaSandbox: throughputPerSecond must be 0 (no limit) or more.");
  return {
    appId: options.appId,
    appSecret: options.appSecret,
    configId: options.configId || undefined,
    statePath: options.statePath || undefined,
    consoleDemo: options.consoleDemo ?? false,
    demoConnection: options.demoConnection,
    publicPath,
    codeTtlMs: options.codeTtlMs ?? 30_000,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 0,
    webhookRetry: { attempts: retry.attempts, baseDelayMs: retry.baseDelayMs },
    batchWindowMs: Math.max(0, options.batchWindowMs ?? 20),
    templateReviewDelayMs: reviewDelay,
    statusDelaysMs,
    throughputPerSecond,
    pairRateLimit: options.pairRateLimit ?? fromEnv.pairRateLimit ?? true,
    reengagement: reengagementMode(options.reengagement ?? fromEnv.reengagement ?? "async"),
    keepMessages: Math.max(1, Math.floor(options.keepMessages ?? 10_000)),
    now: options.now ?? Date.now,
  };
}

function reengagementMode(mode: string): ReengagementMode {
  if (!(REENGAGEMENT_MODES as readonly string[]).includes(mode))
    throw new Error('createMetaSandbox: reengagement must be "async" or "sync".');
  return mode as ReengagementMode;
}

function checkWebhookUrl(url: string) {
  if (!parseHttpUrl(url)) throw new Error(`Meta sandbox: webhook URL must be an absolute http(s) URL; got "${url}".`);
  return url;
}

/**
 * A local stand-in for Meta: the Graph API endpoints Embedded Signup onboarding uses, message
 * templates with a reviewer that decides them, the signup dialog, signed webhook delivery with
 * retries and chaos, a console and a JSON control API.
 */
export function createMetaSandbox(input: MetaSandboxOptions): MetaSandbox {
  const options = resolveOptions(input);
  let webhookUrl = checkWebhookUrl(input.webhookUrl);
  const store = new SandboxStore(options);
  const sender = new WebhookSender({
    appSecret: options.appSecret,
    url: () => webhookUrl,
    attempts: options.webhookRetry.attempts,
    baseDelayMs: options.webhookRetry.baseDelayMs,
    batchWindowMs: options.batchWindowMs,
    now: options.now,
  });
  const events = new WebhookEvents(store, sender, options.now);
  const templates = new TemplateDesk(store, events, { reviewDelayMs: options.templateReviewDelayMs, now: options.now });
  const uploads = new UploadDesk(store, { appId: options.appId, publicPath: options.publicPath, now: options.now });
  const media = new MediaDesk({ publicPath: options.publicPath, now: options.now });
  const messages = new MessageDesk(store, events, media, options);
  const datasets = new DatasetDesk(options.now);
  const faults = new FaultTable();
  const calls = new CallLog();
  let closed = false;

  /** The demo business connected to Jumbe's demo tenant, when asked for: again after a reset. */
  function connectDemo() {
    const demo = options.demoConnection;
    if (!demo) return;
    const ids = store.connectDemo(demo);
    if (!ids) return;
    for (const t of demo.templates)
      try {
        templates.seedApproved(ids.wabaId, businessDemoTemplateId(options.appId, t.name, t.language), t);
      } catch (error) {
        console.warn(`[meta sandbox] could not add the demo template ${t.name}:`, error);
      }
    for (const wrote of demo.customersWrote ?? []) messages.noteInbound(ids.phoneNumberId, wrote.waId, wrote.wamid, true, wrote.at);
  }
  connectDemo();

  // Case-sensitive like the app's own routing: /sandbox/meta/Control is not the control API.
  const router = Router({ caseSensitive: true });

  let sendFastPath: (req: IncomingMessage, res: ServerResponse) => boolean = () => false;
  const sandbox: MetaSandbox = {
    router,
    sendFastPath: (req, res) => sendFastPath(req, res),
    setWebhookUrl(url) {
      webhookUrl = checkWebhookUrl(url);
    },
    createTestBusiness(businessInput) {
      return store.createTestBusiness(businessInput ?? {});
    },
    addPhoneNumber(wabaId, numberInput) {
      return store.addPhoneNumber(wabaId, numberInput ?? {});
    },
    issueCode(codeInput) {
      return store.issueCode(codeInput);
    },
    injectFault(fault) {
      faults.add(fault);
    },
    clearFaults() {
      faults.clear();
    },
    async sendInboundText(message) {
      const { wamid } = await sandbox.sendInbound({ ...message, type: "text" });
      return { wamid };
    },
    async sendInbound(input) {
      const phone = typeof input?.phoneNumberId === "string" ? store.phoneNumbers.get(input.phoneNumberId) : undefined;
      if (!phone) throw new Error(`Unknown phone number id ${String(input?.phoneNumberId)}.`);
      const built = buildInbound(input, phone, media, options.now());
      events.inbound(phone.id, built);
      messages.noteInbound(phone.id, built.customer, built.wamid, built.opensWindow, built.sentAt, built.fromAd);
      return { wamid: built.wamid, ...(built.mediaId ? { mediaId: built.mediaId } : {}) };
    },
    messages(filter) {
      return messages.list(filter ?? {});
    },
    conversionEvents() {
      return datasets.receivedEvents();
    },
    setReengagement(phoneNumberId, mode) {
      if (!store.phoneNumbers.has(phoneNumberId)) throw new Error(`No phone number ${phoneNumberId}.`);
      if (mode !== undefined) reengagementMode(mode);
      messages.setReengagement(phoneNumberId, mode);
    },
    async sendStatus(status) {
      events.status(status);
    },
    async sendQualityUpdate(update) {
      events.quality(update);
    },
    async sendAccountUpdate(update) {
      events.accountUpdate(update);
    },
    sendRaw(body) {
      return sender.sendRaw(body);
    },
    templates(wabaId) {
      return templates.list(wabaId).map((t) => templates.view(t));
    },
    createTemplateAtMeta(wabaId, templateInput) {
      return templates.view(templates.createAtMeta(wabaId, templateInput));
    },
    async setTemplateStatus(templateId, event, statusOptions) {
      return templates.view(templates.setStatus(templateId, event, statusOptions ?? {}));
    },
    async deleteTemplateAtMeta(templateId, deleteOptions) {
      templates.deleteAtMeta(templateId, deleteOptions ?? {});
    },
    async sendTemplateQualityUpdate(templateId, newScore) {
      templates.quality(templateId, newScore);
    },
    async reviewTemplatesNow(only) {
      return templates.reviewNow(only);
    },
    uploads() {
      return uploads.list();
    },
    setDeliveryChaos(chaos) {
      sender.setChaos(chaos ?? {});
    },
    flushWebhooks() {
      return sender.flush();
    },
    calls() {
      return calls.list();
    },
    deliveries() {
      return sender.list();
    },
    reset() {
      faults.clear();
      calls.clear();
      templates.reset();
      uploads.reset();
      messages.reset();
      media.reset();
      datasets.reset();
      sender.reset();
      store.reset();
      connectDemo();
    },
    async close() {
      if (closed) return;
      closed = true;
      templates.close();
      messages.close();
      sender.close();
      store.close();
    },
  };

  const ctx: SandboxContext = {
    options,
    store,
    sender,
    events,
    templates,
    uploads,
    media,
    messages,
    datasets,
    faults,
    calls,
    sandbox,
    webhookUrl: () => webhookUrl,
  };
  // The dialog and the Graph API are the demo's own flow; the rest changes or shows state (decision 012).
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/token`,
    home: options.publicPath,
  });
  router.use(graphRouter(ctx));
  sendFastPath = graphSendFastPath(ctx, options.publicPath);
  // A finished upload's bytes at the URL Meta keeps as a media header's example (Meta's scontent
  // stand-in): open like the Graph API, since a template's example is readable by its business.
  router.get("/uploads/:key", (req, res) => {
    const file = uploads.file(String(req.params.key));
    if (!file) return void res.status(404).type("text/plain").send("No such upload (uploads' bytes are kept in memory only).");
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.type(file.type).send(file.bytes);
  });
  // A made-up ad's picture (Meta's ad CDN stand-in, scontent.*.fbcdn.net): open, like Meta's; any ad id has one.
  router.get("/ad-media/:name", (req, res) => {
    if (!/^\d{6,20}\.png$/.test(String(req.params.name))) return void res.status(404).type("text/plain").send("No such ad picture.");
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.type("image/png").send(png());
  });
  // The media download URL (Meta's lookaside stand-in): the business token as Bearer, like the Graph API.
  router.get("/lookaside/whatsapp_business/attachments", mediaDownload(ctx));
  router.use(dialogRouter(ctx));
  router.post("/token", ...gate.login);
  router.use("/control", gate.json, controlRouter(ctx));
  router.use(gate.page, shopConsoleRouter(ctx));
  router.use(gate.page, conversionsConsoleRouter(ctx));
  router.use(gate.page, consoleRouter(ctx));
  return sandbox;
}
