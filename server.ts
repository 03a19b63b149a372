import path from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type Server } from "node:http";
import { mkdirSync, readdirSync } from "node:fs";
import express from "express";
import compression from "compression";
import { serveAssets } from "~/.server/infrastructure/http/static-assets";
import { createRequestHandler } from "@react-router/express";
import type { ServerBuild } from "react-router";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { databaseKind, openDatabase, closeDatabase, db } from "~/.server/infrastructure/db/client";
import { sql } from "drizzle-orm";
import { log } from "~/.server/infrastructure/log";
import { securityHeaders } from "~/.server/infrastructure/http/security-headers";
import { requireSameOrigin } from "~/.server/infrastructure/http/same-origin";
import { limitRequestBodies } from "~/.server/infrastructure/http/body-limit";
import { allowedMethods, requireValidHost, routeLookup } from "~/.server/infrastructure/http/methods";
import { readRoutes } from "~/.server/domains/auth/route-permissions";
import { browserWordsFiles, readBrowserWords } from "~/.server/infrastructure/http/browser-words";
import { requireFormEncoding } from "~/.server/infrastructure/http/forms";
import { finalErrorHandler } from "~/.server/infrastructure/http/error-page";
import { databaseGate, databaseUnavailableErrors } from "~/.server/infrastructure/http/database-unavailable";
import { databaseIsDown, noteDatabaseError, RETRY_AFTER_SECONDS } from "~/.server/infrastructure/db/availability";
import { exactReservedPrefixes, notFound } from "~/.server/infrastructure/http/reserved-prefixes";
import { appHostOnly } from "~/.server/infrastructure/http/app-host";
import { statementCountHeader } from "~/.server/infrastructure/db/statement-count";
import { createRequestContext, type RequestInfo } from "~/.server/infrastructure/http/context";
import { endLiveStreams } from "~/.server/infrastructure/http/live-streams";
import { renderOnce } from "~/.server/infrastructure/http/render-once";
import { requestLog } from "~/.server/infrastructure/http/request-log";
import { requestId } from "~/.server/infrastructure/http/request-id";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { baseLocale, localeOfPath } from "~/.server/infrastructure/http/locale";
import { seedDemoData, DEMO_ACCOUNTS, DEMO_TEMPLATES } from "~/.server/demo/seed";
import { demoConnectionForSandbox } from "~/.server/demo/seed-demo-connection";
import { sandboxMailRouter } from "@jumbe/sandbox/mail/router";
import { listOutbox } from "~/.server/infrastructure/mail/transport";
import { sandboxSystemRouter } from "~/.server/adapters/sandbox-controls/missing-instance";
import { createMetaSandbox, type MetaSandbox } from "@jumbe/sandbox/meta/index";
import { createPaystackSandbox, type PaystackSandbox } from "@jumbe/sandbox/paystack/index";
import { createMpesaSandbox, type MpesaSandbox } from "@jumbe/sandbox/mpesa/index";
import { createAfricastalkingSandbox, type AfricastalkingSandbox } from "@jumbe/sandbox/africastalking/index";
import { demoSmsAccount } from "@jumbe/sandbox/africastalking/demo-account";
import { demoTillShortcodes } from "@jumbe/sandbox/mpesa/demo-tills";
import { createLlmSandbox, type LlmSandbox } from "@jumbe/sandbox/llm/index";
import { createHubspotSandbox, type HubspotSandbox } from "@jumbe/sandbox/hubspot/index";
import { createShopifySandbox, type ShopifySandbox } from "@jumbe/sandbox/shopify/index";
import { createGoogleSandbox, type GoogleSandbox } from "@jumbe/sandbox/google/index";
import { createWebhookReceiver, WEBHOOK_PATH } from "~/.server/adapters/webhooks-in/receiver";
import { registerPaybillUrls } from "~/.server/domains/billing/mpesa";
import { createWebhookIngest } from "~/.server/adapters/webhooks-in/ingest";
import { serveApiV1 } from "~/.server/adapters/api-v1/serve";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { handleShopifyWebhook, SHOPIFY_WEBHOOK_PATH, shopifyWebhookAddress } from "~/.server/adapters/webhooks-in/shopify";
import { wireDomainEvents } from "~/.server/composition/domain-events";
import { startJobWorkers } from "~/.server/infrastructure/jobs/worker";
import { startDispatcher } from "~/.server/domains/messaging/dispatcher";
import { startCampaignFeeder } from "~/.server/domains/campaigns/feeder";
import { startInstanceMonitor } from "~/.server/domains/admin/system/monitor";

/** Where the Paystack sandbox sends `charge.success` (the lead's route). */
const PAYSTACK_WEBHOOK_PATH = "/webhooks/paystack";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Public pages with nothing per visitor in them (app/.server/infrastructure/http/render-once.ts). */
const ONCE_RENDERED_PAGES = ["/", "/privacy-policy", "/privacy", "/terms-of-service", "/terms"];

/** The Express app: security headers, CSRF origin checks, health probes, static files, sandboxes, React Router. */
export interface AppOptions {
  metaSandbox?: MetaSandbox;
  paystackSandbox?: PaystackSandbox;
  mpesaSandbox?: MpesaSandbox;
  africastalkingSandbox?: AfricastalkingSandbox;
  /** The OpenAI-compatible model stand-in (the assistant's answers, issue 44). */
  llmSandbox?: LlmSandbox;
  /** The integrations' stand-ins (issue 45): HubSpot's CRM, a Shopify store, Google Sheets. */
  hubspotSandbox?: HubspotSandbox;
  shopifySandbox?: ShopifySandbox;
  googleSandbox?: GoogleSandbox;
  /** `npm run dev`: Vite's dev server (modules, hot updates) in place of the built client files. */
  vite?: express.RequestHandler;
}

export function createApp(given: ServerBuild | (() => Promise<ServerBuild>), options: AppOptions = {}) {
  const config = env();
  // The routes' declared permissions (decision 055) come from the build React Router serves; in
  // development from each build Vite hands over, so an edited route's permission holds at once.
  const build = withRoutePermissions(given);
  const app = express();
  // Before the first app.use: Express reads it when it creates the app's router. /Sandbox is not
  // /sandbox (nginx blocks the prefix; the sandbox's routers are case-sensitive too). Decision 012.
  app.set("case sensitive routing", true);
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY);
  // Server-sent events (the bell, a campaign's figures) go out uncompressed: each event must leave as
  // it is written, and compressed it would wait in zlib's buffer (res.flush is a no-op below).
  app.use(
    compression({
      filter: (req, res) => !String(res.getHeader("Content-Type") ?? "").startsWith("text/event-stream") && compression.filter(req, res),
    }),
  );
  // React Router calls res.flush() after every streamed chunk, and zlib's flush() is a full flush that
  // discards the compression history: the landing page's HTML came out twice as large. Documents
  // render completely before they are sent (onAllReady), so flushing early gains nothing.
  app.use((_req, res, next) => {
    (res as unknown as { flush: () => void }).flush = () => {};
    next();
  });
  // Its id first: the answer, the log line and an API error's body all carry it (decision 101).
  app.use(requestId());
  app.use(requestLog());
  app.use(statementCountHeader());
  app.use(
    securityHeaders({
      production: config.production,
      viteDev: !!options.vite,
      facebookSdkPaths: config.sandbox ? [] : ["/whatsapp"],
      googlePickerPaths: config.GOOGLE_PICKER_API_KEY ? ["/integrations/google-sheets"] : [],
    }),
  );
  // Bodies over a path's limit answer 413 before anything reads them (16 KB sign-in forms, 64 KB the rest).
  app.use(limitRequestBodies());
  app.use(requireValidHost());
  app.use(exactReservedPrefixes());
  // A page opened at another host than APP_URL's says where Jumbe is set up (421).
  app.use(appHostOnly({ appUrl: () => env().APP_URL }));

  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  // Not ready while the database is known to be down (decision 011); otherwise asks it.
  app.get("/readyz", async (_req, res) => {
    res.set("Cache-Control", "no-store");
    try {
      if (databaseIsDown()) throw new Error("database unavailable");
      await db().execute(sql`select 1`);
      res.json({ status: "ready", database: databaseKind() });
    } catch (error) {
      noteDatabaseError(error);
      res.status(503).set("Retry-After", String(RETRY_AFTER_SECONDS)).json({ status: "unavailable" });
    }
  });

  if (options.vite) {
    app.use(options.vite);
  } else {
    const client = path.resolve(here, "../client");
    app.use("/assets", serveAssets(path.join(client, "assets"), browserWordsFiles));
    // The few files of public/ (icons, the social image) are known when the build is: a page's path
    // goes straight on instead of costing a file-system stat first (about 10% of a page's time).
    const publicFiles = publicFilesOf(client);
    const servePublic = express.static(client, { maxAge: "1h", index: false });
    app.use((req, res, next) => (publicFiles.has(req.path) ? servePublic(req, res, next) : next()));
  }

  if (config.sandbox) {
    if (options.metaSandbox) app.use("/sandbox/meta", options.metaSandbox.router);
    if (options.paystackSandbox) app.use("/sandbox/paystack", options.paystackSandbox.router);
    if (options.mpesaSandbox) app.use("/sandbox/mpesa", options.mpesaSandbox.router);
    if (options.africastalkingSandbox) app.use("/sandbox/africastalking", options.africastalkingSandbox.router);
    if (options.llmSandbox) app.use("/sandbox/llm", options.llmSandbox.router);
    if (options.hubspotSandbox) app.use("/sandbox/hubspot", options.hubspotSandbox.router);
    if (options.shopifySandbox) app.use("/sandbox/shopify", options.shopifySandbox.router);
    if (options.googleSandbox) app.use("/sandbox/google", options.googleSandbox.router);
    app.use(
      "/sandbox/system",
      sandboxSystemRouter({ controlToken: config.SANDBOX_CONTROL_TOKEN, secureCookie: sandboxCookieSecure(config) }),
    );
    app.use(
      "/sandbox",
      sandboxMailRouter(listOutbox, { controlToken: config.SANDBOX_CONTROL_TOKEN, secureCookie: sandboxCookieSecure(config) }),
    );
  }
  // Whether or not the sandbox is on, nothing under /sandbox is a React Router page.
  app.use("/sandbox", notFound());
  app.use(
    requireSameOrigin({
      // APP_URL's origin, read per request (PORT=0 learns its port after listening); never the Host header.
      appUrl: () => env().APP_URL,
      exempt: (p) => p.startsWith("/webhooks/") || p.startsWith("/sandbox/") || p.startsWith("/api/v1/"),
    }),
  );

  // Pages and the cookie API take GET, HEAD and POST only, and a page post is a form.
  app.use(
    allowedMethods({
      // /webhooks/whatsapp never reaches Express; the payment callbacks are routes like any other (POST).
      exempt: (p) => p.startsWith("/sandbox/"),
      routes: typeof build === "function" ? undefined : routeLookup(build),
    }),
  );
  app.use(requireFormEncoding({ exempt: (p) => p.startsWith("/webhooks/") || p.startsWith("/sandbox/") || p.startsWith("/api/") }));

  if (typeof build !== "function") {
    // The public pages, the same for every visitor: rendered once, each request gets its own nonce.
    const toastCookie = `${signedCookies().toast.name}=`;
    app.use(
      renderOnce({
        paths: ONCE_RENDERED_PAGES,
        build,
        origin: () => env().APP_URL,
        // A toast to show, or a visitor reading another language than the one rendered (decision 071).
        skip: (req) =>
          (req.get("cookie") ?? "").includes(toastCookie) ||
          localeOfPath(req.originalUrl, req.get("cookie"), req.get("accept-language")) !== baseLocale,
      }),
    );
  }
  // The public API (decision 187): its own router behind the API key, without React Router's request
  // pipeline. Development leaves it to React Router's route (routes/api/v1.ts), so edits to it reload.
  if (!options.vite) app.use(serveApiV1());
  app.all(
    "/{*splat}",
    // 503 while PostgreSQL cannot be reached, not React Router's 500 (decision 011).
    databaseGate(),
    createRequestHandler({
      build: build as ServerBuild,
      getLoadContext: (req, res) =>
        createRequestContext({
          clientIp: req.ip,
          cspNonce: res.locals.cspNonce as string,
          consoleRefusal: res.locals.consoleRefusal as RequestInfo["consoleRefusal"],
        }),
    }),
  );
  app.use(databaseUnavailableErrors());
  // Last: Express's own error page prints stack traces in development.
  app.use(finalErrorHandler());
  return app;
}

function withRoutePermissions(build: ServerBuild | (() => Promise<ServerBuild>)) {
  if (typeof build !== "function") {
    readRoutes(build.routes);
    readBrowserWords(build);
    return build;
  }
  return async () => {
    const current = await build();
    readRoutes(current.routes);
    return current;
  };
}

/** URL paths of the files at the top of the client build, the assets folder aside. */
function publicFilesOf(client: string) {
  try {
    return new Set(
      readdirSync(client, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => `/${entry.name}`),
    );
  } catch {
    return new Set<string>();
  }
}

/**
 * Node's http server: `/webhooks/whatsapp` is answered here directly (signature check, durable
 * store, 200) and everything else goes to Express. See decision 008.
 */
export function createHttpServer(app: express.Express) {
  const config = env();
  const ingest = createWebhookIngest({ maxInFlight: config.DATABASE_URL ? 4 : 1 });
  const receiveWebhook = createWebhookReceiver({
    appSecret: config.META_APP_SECRET,
    verifyToken: config.META_VERIFY_TOKEN,
    store: ingest.store,
  });
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === WEBHOOK_PATH || url.startsWith(`${WEBHOOK_PATH}?`)) return receiveWebhook(req, res);
    if (url === SHOPIFY_WEBHOOK_PATH) return void handleShopifyWebhook(req, res);
    app(req, res);
  });
  // An idle connection outlives every client's and proxy's reuse of it (HTTP_KEEP_ALIVE_SECONDS):
  // with Node's 5 s a request written as the server closed the connection was reset (decision 130).
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_SECONDS * 1000;
  server.headersTimeout = server.keepAliveTimeout + 1000;
  return server;
}

/** The sandbox's token cookie is Secure where the session cookie is. */
function sandboxCookieSecure(config: ReturnType<typeof env>) {
  return config.production || config.APP_URL.startsWith("https://");
}

/** The Meta stand-in of sandbox mode, persisted under DATA_DIR so a connected demo survives restarts. */
function startMetaSandbox(port: number, demoConnection: Awaited<ReturnType<typeof demoConnectionForSandbox>>) {
  const config = env();
  const dir = path.join(config.DATA_DIR, "sandbox");
  mkdirSync(dir, { recursive: true });
  return createMetaSandbox({
    appId: config.META_APP_ID,
    appSecret: config.META_APP_SECRET,
    configId: config.META_CONFIG_ID,
    webhookUrl: `http://127.0.0.1:${port}${WEBHOOK_PATH}`,
    statePath: path.join(dir, "meta.json"),
    // The admin console's demo WhatsApp accounts (seeded beside the demo) answer Test Connection.
    consoleDemo: true,
    // The demo business, connected to the demo tenant as the seed stored it: templates approved, open windows open.
    demoConnection,
    templateReviewDelayMs: config.META_SANDBOX_TEMPLATE_REVIEW_MS,
    // On a demo host the control API, console and its forms ask for SANDBOX_CONTROL_TOKEN.
    controlToken: config.SANDBOX_CONTROL_TOKEN,
    secureCookie: sandboxCookieSecure(config),
  });
}

/** The Paystack stand-in of sandbox mode: card payments in KES, in memory; webhooks to /webhooks/paystack. */
function startPaystackSandbox(port: number) {
  const config = env();
  return createPaystackSandbox({
    secretKey: config.PAYSTACK_SECRET_KEY,
    webhookUrl: `http://127.0.0.1:${port}${PAYSTACK_WEBHOOK_PATH}`,
    merchantName: config.INVOICE_SELLER_NAME,
    // Checkout links open at APP_URL: pages at another host answer 421 (app-host.ts).
    publicOrigin: () => env().APP_URL,
    controlToken: config.SANDBOX_CONTROL_TOKEN,
    secureCookie: sandboxCookieSecure(config),
  });
}

/** Safaricom's Daraja stand-in of sandbox mode (state in memory), with the configured M-Pesa credentials. */
function startMpesaSandbox() {
  const config = env();
  return createMpesaSandbox({
    consumerKey: config.MPESA_CONSUMER_KEY,
    consumerSecret: config.MPESA_CONSUMER_SECRET,
    shortcode: config.MPESA_SHORTCODE,
    passkey: config.MPESA_PASSKEY,
    // The demo tenants' own tills (issue 76), whose credentials the demo seed stores.
    shortcodes: demoTillShortcodes(),
    controlToken: config.SANDBOX_CONTROL_TOKEN,
    secureCookie: sandboxCookieSecure(config),
  });
}

/**
 * Africa's Talking's SMS stand-in of sandbox mode (state in memory), with the demo application (demo-account.ts). Its
 * callback URLs are unset until Jumbe has SMS receivers (a later brick of issue 77 sets them with
 * `setAccount`); until then its delivery reports are recorded as failed with "No ... URL is set".
 */
function startAfricastalkingSandbox() {
  const config = env();
  return createAfricastalkingSandbox({
    accounts: [demoSmsAccount()],
    controlToken: config.SANDBOX_CONTROL_TOKEN,
    secureCookie: sandboxCookieSecure(config),
  });
}

/** The OpenAI-compatible model stand-in of sandbox mode: deterministic answers from the prompt's knowledge, in memory. */
function startLlmSandbox() {
  const config = env();
  return createLlmSandbox({ controlToken: config.SANDBOX_CONTROL_TOKEN, secureCookie: sandboxCookieSecure(config) });
}

/** Port 0 (tests): the integrations' sandbox addresses not set explicitly, at the real port and APP_URL. */
function integrationUrlsAt(port: number) {
  const self = `http://127.0.0.1:${port}/sandbox`;
  const appUrl = env().APP_URL;
  const unset = (name: string) => !process.env[name];
  return {
    ...(unset("HUBSPOT_AUTH_URL") ? { HUBSPOT_AUTH_URL: `${appUrl}/sandbox/hubspot` } : {}),
    ...(unset("HUBSPOT_API_URL") ? { HUBSPOT_API_URL: `${self}/hubspot` } : {}),
    ...(unset("SHOPIFY_AUTH_URL") ? { SHOPIFY_AUTH_URL: `${appUrl}/sandbox/shopify/shops/{shop}` } : {}),
    ...(unset("SHOPIFY_API_URL") ? { SHOPIFY_API_URL: `${self}/shopify/shops/{shop}` } : {}),
    ...(unset("GOOGLE_AUTH_URL") ? { GOOGLE_AUTH_URL: `${appUrl}/sandbox/google` } : {}),
    ...(unset("GOOGLE_OAUTH_URL") ? { GOOGLE_OAUTH_URL: `${self}/google` } : {}),
    ...(unset("GOOGLE_SHEETS_URL") ? { GOOGLE_SHEETS_URL: `${self}/google` } : {}),
  };
}

/** Where a sandbox keeps its state: DATA_DIR/sandbox/<name>.json, as the Meta sandbox does. */
function sandboxStatePath(name: string) {
  const dir = path.join(env().DATA_DIR, "sandbox");
  mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.json`);
}

/**
 * The integrations' stand-ins of sandbox mode (issue 45), with the configured apps' ids and secrets
 * (the sandbox's own unless set), persisted under DATA_DIR so a connected integration survives a restart.
 */
function startIntegrationSandboxes() {
  const config = env();
  const access = { controlToken: config.SANDBOX_CONTROL_TOKEN, secureCookie: sandboxCookieSecure(config) };
  const app = (id: string | undefined, secret: string | undefined, name: string) => {
    if (!id || !secret) throw new Error(`sandbox mode needs ${name}'s client id and secret`);
    return { clientId: id, clientSecret: secret };
  };
  return {
    hubspotSandbox: createHubspotSandbox({
      ...app(config.HUBSPOT_CLIENT_ID, config.HUBSPOT_CLIENT_SECRET, "HubSpot"),
      statePath: sandboxStatePath("hubspot"),
      // The demo business's connections (app/.server/demo/seed-integrations.ts) work against these.
      demo: true,
      ...access,
    }),
    shopifySandbox: createShopifySandbox({
      ...app(config.SHOPIFY_CLIENT_ID, config.SHOPIFY_CLIENT_SECRET, "Shopify"),
      apiVersion: config.SHOPIFY_API_VERSION,
      statePath: sandboxStatePath("shopify"),
      demo: { webhookAddress: shopifyWebhookAddress() },
      // The app configuration's compliance_topics address: Shopify's privacy requests (decision 108).
      complianceWebhookAddress: shopifyWebhookAddress(),
      ...access,
    }),
    googleSandbox: createGoogleSandbox({
      ...app(config.GOOGLE_CLIENT_ID, config.GOOGLE_CLIENT_SECRET, "Google"),
      statePath: sandboxStatePath("google"),
      demo: true,
      ...access,
    }),
  };
}

/** Opens the database, seeds the demo in sandbox mode, starts the job workers, and listens. */
export async function startServer(
  build: ServerBuild | (() => Promise<ServerBuild>),
  overrides: { port?: number; vite?: express.RequestHandler } = {},
) {
  const config = env();
  await openDatabase(
    config.DATABASE_URL
      ? {
          databaseUrl: config.DATABASE_URL,
          poolSize: config.DATABASE_POOL_SIZE,
          pooler: config.DATABASE_POOLER,
          directUrl: config.DATABASE_DIRECT_URL,
          ...(config.DATABASE_REPLICA_URL
            ? { replica: { url: config.DATABASE_REPLICA_URL, maxLagMs: config.DATABASE_REPLICA_MAX_LAG_MS } }
            : {}),
        }
      : { dataDir: path.join(config.DATA_DIR, "pglite") },
  );
  wireDomainEvents();
  if (config.sandbox) await seedDemoData();
  registerJobHandlers();
  registerConnectors();
  const stopWorkers = startJobWorkers(config.JOB_WORKERS);
  // Outbound WhatsApp messages: their own loop, so a long queue of sends never waits behind other jobs.
  const stopDispatcher = startDispatcher(config.JOB_WORKERS > 0 ? config.DISPATCHER_LOOPS : 0);
  // Campaigns: scheduled ones start on time, sending ones are fed to the dispatcher a little ahead.
  const stopFeeder = config.JOB_WORKERS > 0 ? startCampaignFeeder() : async () => {};
  // The System tab: this instance's heartbeat (every 15 s) and its resources sampled every minute.
  const stopMonitor = startInstanceMonitor();
  const port = overrides.port ?? config.PORT;
  const metaSandbox = config.sandbox ? startMetaSandbox(port, await demoConnectionForSandbox(DEMO_TEMPLATES)) : undefined;
  const paystackSandbox = config.sandbox ? startPaystackSandbox(port) : undefined;
  const mpesaSandbox = config.sandbox ? startMpesaSandbox() : undefined;
  const africastalkingSandbox = config.sandbox ? startAfricastalkingSandbox() : undefined;
  const llmSandbox = config.sandbox ? startLlmSandbox() : undefined;
  const integrations: Partial<ReturnType<typeof startIntegrationSandboxes>> = config.sandbox ? startIntegrationSandboxes() : {};
  const app = createApp(build, {
    metaSandbox,
    paystackSandbox,
    mpesaSandbox,
    africastalkingSandbox,
    llmSandbox,
    ...integrations,
    vite: overrides.vite,
  });
  const server: Server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(port, config.HOST, () => resolve()));
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  if (actualPort !== port && !process.env.APP_URL) {
    // Port 0: the default APP_URL (and SITE_URL with it) names the real port.
    const appUrl = new URL(config.APP_URL);
    appUrl.port = String(actualPort);
    setEnv({
      ...env(),
      APP_URL: appUrl.origin,
      ...(process.env.SITE_URL ? {} : { SITE_URL: appUrl.origin }),
      ...(process.env.MPESA_CALLBACK_BASE_URL ? {} : { MPESA_CALLBACK_BASE_URL: appUrl.origin }),
    });
  }
  if (actualPort !== port && config.sandbox) {
    // Port 0 (tests): the sandbox and the Graph client learn the real port now.
    metaSandbox?.setWebhookUrl(`http://127.0.0.1:${actualPort}${WEBHOOK_PATH}`);
    paystackSandbox?.setWebhookUrl(`http://127.0.0.1:${actualPort}${PAYSTACK_WEBHOOK_PATH}`);
    if (!process.env.GRAPH_API_BASE_URL) setEnv({ ...env(), GRAPH_API_BASE_URL: `http://127.0.0.1:${actualPort}/sandbox/meta/graph` });
    if (!process.env.MPESA_BASE_URL) setEnv({ ...env(), MPESA_BASE_URL: `http://127.0.0.1:${actualPort}/sandbox/mpesa` });
    if (!env().MPESA_SHORTCODE_BASE_URLS?.sandbox)
      setEnv({
        ...env(),
        mpesaShortcodeBaseUrls: { ...env().mpesaShortcodeBaseUrls, sandbox: `http://127.0.0.1:${actualPort}/sandbox/mpesa` },
      });
    if (!process.env.PAYSTACK_BASE_URL) setEnv({ ...env(), PAYSTACK_BASE_URL: `http://127.0.0.1:${actualPort}/sandbox/paystack` });
    if (!process.env.AFRICASTALKING_BASE_URL)
      setEnv({ ...env(), AFRICASTALKING_BASE_URL: `http://127.0.0.1:${actualPort}/sandbox/africastalking` });
    setEnv({ ...env(), ...integrationUrlsAt(actualPort) });
  }
  announce(actualPort);
  // The paybill learns where to send payments (Daraja keeps the last registration; one refused because
  // the addresses are already registered is only logged). A local run without the sandbox calls nobody.
  if (config.sandbox || config.production)
    registerPaybillUrls().catch((error: unknown) => log().warn({ err: error }, "could not register the paybill's addresses with Daraja"));

  // Finish requests in flight before the database closes (rolling restarts behind nginx). Live
  // streams never finish by themselves: they end first, cleanly, so browsers reconnect elsewhere.
  const shutdown = async () => {
    // Whatever does not answer (a database that hangs, a call that never returns), the process ends.
    const deadlineMs = config.SHUTDOWN_GRACE_MS + SHUTDOWN_CLOSE_MS;
    setTimeout(() => {
      log().error({ deadlineMs }, "shutdown did not finish in time (the database or a call did not answer): exiting now");
      process.exit(1);
    }, deadlineMs);
    endLiveStreams();
    await stopFeeder();
    await stopDispatcher();
    await stopWorkers();
    await stopMonitor();
    await metaSandbox?.close();
    await paystackSandbox?.close();
    await mpesaSandbox?.close();
    await africastalkingSandbox?.close();
    await llmSandbox?.close();
    await integrations.hubspotSandbox?.close();
    await integrations.shopifySandbox?.close();
    await integrations.googleSandbox?.close();
    // A connection whose request is in flight is kept alive after its answer: closed once idle, not
    // HTTP_KEEP_ALIVE_SECONDS later (close() itself ends only the connections idle now).
    server.keepAliveTimeout = 1;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_MS).unref())]);
    await closeDatabase();
    process.exit(0);
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return { server, port: actualPort };
}

/** After the grace for requests in flight, how long closing the database and the rest may take. */
const SHUTDOWN_CLOSE_MS = 5_000;

/**
 * The banner prints APP_URL, the one address every link, redirect and origin check uses (pages at
 * another host answer 421). Where the port was 0 (tests), APP_URL's default port is the real one.
 */
function announce(port: number) {
  const config = env();
  const url = config.APP_URL;
  const listening = `${config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST}:${port}`;
  const lines = [
    `Jumbe is running at ${url} (listening on ${listening}; database: ${databaseKind()}${config.DATABASE_URL ? "" : `, ${path.resolve(config.DATA_DIR)}`})`,
  ];
  if (config.demoHost)
    lines.push("Demo host: the sandbox is on in production; its console, control API and mail outbox ask for SANDBOX_CONTROL_TOKEN.");
  if (config.sandbox) {
    lines.push("Sandbox mode: outside systems are local stand-ins.");
    for (const account of DEMO_ACCOUNTS) lines.push(`  ${account.label}: ${account.email} / ${account.password}`);
    lines.push(config.SMTP_URL ? `  Mail goes out over ${new URL(config.SMTP_URL).host}` : `  Mail outbox: ${url}/sandbox/mail`);
    lines.push(`  Meta (Graph API, Embedded Signup, webhooks): ${url}/sandbox/meta`);
    lines.push(`  Paystack (card checkout, test card 4084 0840 8408 4081): ${url}/sandbox/paystack`);
    lines.push(`  M-Pesa (Daraja: STK push, paybill): ${url}/sandbox/mpesa (the customer's phone: ${url}/sandbox/mpesa/phone)`);
    lines.push(`  Model (OpenAI-compatible, base URL ${url}/sandbox/llm/v1, model jumbe-sandbox-1): ${url}/sandbox/llm`);
    lines.push(`  HubSpot (CRM: test portals, contacts, lists): ${url}/sandbox/hubspot`);
    lines.push(`  Shopify (test shops' orders, fulfilments, checkouts as webhooks): ${url}/sandbox/shopify`);
    lines.push(`  Google Sheets (test accounts' spreadsheets): ${url}/sandbox/google`);
  }
  console.log(lines.join("\n"));
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const build = (await import("virtual:react-router/server-build")) as unknown as ServerBuild;
  startServer(build).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
