import { isIP } from "node:net";
import { z } from "zod";
import { processState } from "../process-state";
import { DEMO_META_APP_ID, DEMO_META_APP_SECRET } from "@jumbe/sandbox/meta/demo-app";
import { SANDBOX_CREDENTIAL_PUBLIC_KEY, SANDBOX_INITIATOR_NAME, SANDBOX_INITIATOR_PASSWORD } from "@jumbe/sandbox/mpesa/credential-keys";

// Demo secrets let `npm start` work on a fresh clone; production refuses them.
export const DEMO_SESSION_SECRET = "jumbe-demo-session-secret-change-me-0000000000";
// Meta app settings for the sandbox; production without the sandbox refuses them.
export { DEMO_META_APP_ID, DEMO_META_APP_SECRET };
export const DEMO_META_CONFIG_ID = "200000000000002";
export const DEMO_META_VERIFY_TOKEN = "jumbe-sandbox-verify-token";

// Safaricom's public Daraja sandbox values (the test paybill and its passkey), and the local Paystack sandbox's key.
export const DEMO_MPESA_CONSUMER_KEY = "jumbe-sandbox-daraja-consumer-key";
export const DEMO_MPESA_CONSUMER_SECRET = "jumbe-sandbox-daraja-consumer-secret";
export const DEMO_MPESA_SHORTCODE = "174379";
export const DEMO_MPESA_PASSKEY = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919";
/** The B2C (payouts) shortcode of Safaricom's sandbox samples. */
export const DEMO_MPESA_B2C_SHORTCODE = "600996";
export const DEMO_PAYSTACK_SECRET_KEY = "sk_test_jumbe_sandbox_0000000000000000";
export const DEMO_SELLER_KRA_PIN = "P000000000A";
// The integration sandboxes' apps (issue 45): their client ids and secrets, refused in production.
export const DEMO_HUBSPOT_CLIENT_ID = "jumbe-sandbox-hubspot-client";
export const DEMO_HUBSPOT_CLIENT_SECRET = "jumbe-sandbox-hubspot-secret";
export const DEMO_SHOPIFY_CLIENT_ID = "jumbe-sandbox-shopify-client";
export const DEMO_SHOPIFY_CLIENT_SECRET = "shpss_jumbe_sandbox_0000000000000000";
export const DEMO_GOOGLE_CLIENT_ID = "100000000000-jumbesandbox.apps.googleusercontent.com";
export const DEMO_GOOGLE_CLIENT_SECRET = "GOCSPX-jumbe-sandbox-secret";

// The addresses widely published as Safaricom's Daraja callback sources (shared/reference/kenya-payments.md
// §1.7): MPESA_TRUSTED_IPS's default with the live paybill. Confirm them with Safaricom at go-live.
export const SAFARICOM_CALLBACK_IPS =
  "196.201.214.200,196.201.214.206,196.201.213.114,196.201.214.207,196.201.214.208,196.201.213.44," +
  "196.201.212.127,196.201.212.138,196.201.212.129,196.201.212.136,196.201.212.74,196.201.212.69";

export const DEMO_ENCRYPTION_KEY = "0000000000000000000000000000000000000000000000000000000000000000";

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((v) => (v === undefined || v === "" ? undefined : v === "1" || v === "true"));

// Each variable's .describe() is its line in docs/configuration.md (`npm run docs:config` writes it).
export const EnvVariables = z.object({
  NODE_ENV: z
    .enum(["development", "production", "test"])
    .default("development")
    .describe(
      "React's and Node's build mode: `production` serves React's production build (`npm start` sets it). `test` is for the test suites.",
    ),
  DEPLOYMENT: z
    .enum(["local", "production"])
    .optional()
    .describe(
      "Which safety checks apply: `production` is production mode (below); `local` is a laptop, CI or a benchmark running the production build with the demo secrets and the sandbox (`npm start` sets it). Unset: `production` when `NODE_ENV=production`, else `local`. See decision 014.",
    ),
  LOG_FORMAT: z
    .enum(["json", "pretty"])
    .optional()
    .describe(
      "`json`: one JSON object per line, with a `request` line per request (method, path, status, ms, `db` statements) and a `job` line per job (queue, id, attempt, outcome, ms). `pretty`: the same as short lines. Unset: `pretty` in development on a terminal, else `json`.",
    ),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe("Port to listen on."),
  HOST: z
    .string()
    .default("127.0.0.1")
    .describe("Address to bind. Use `0.0.0.0` to listen on every interface (and set `APP_URL` to the address others open)."),
  HTTP_KEEP_ALIVE_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(120)
    .default(65)
    .describe(
      "How long an idle kept-alive connection stays open (Node's `server.keepAliveTimeout`; `headersTimeout` is a second more), announced in each answer's `Keep-Alive: timeout=`. Keep it above the idle reuse of every client and proxy in front (nginx's `keepalive_timeout 4s` in deploy/nginx/jumbe.conf, 60 s on common load balancers): a request written on a connection as the server closes it is reset before any answer (decision 130). Node's own default is 5 s.",
    ),
  DATA_DIR: z
    .string()
    .default("./data")
    .describe(
      "Where the embedded database lives (`DATA_DIR/pglite`; unused when `DATABASE_URL` is set) and, with `STORAGE=local`, files are kept (`DATA_DIR/media`, with any database: share it between instances).",
    ),
  // Files (media, customers' files, contact imports, product images): the local folder or an S3-compatible bucket (decision 161).
  STORAGE: z
    .enum(["local", "s3"])
    .default("local")
    .describe(
      "Where files are kept: `local` (`DATA_DIR/media`; several instances need it shared) or `s3`, any S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Ceph RGW) named by the `S3_` variables. `npm run storage:migrate` copies the local folder into the bucket.",
    ),
  S3_ENDPOINT: z
    .url()
    .regex(/^https?:\/\//, "S3_ENDPOINT must be an http:// or https:// URL")
    .optional()
    .describe(
      "The S3-compatible store's address (`http://minio.internal:9000`, `https://<account>.r2.cloudflarestorage.com`). Unset: AWS S3 in `S3_REGION`.",
    ),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "S3_BUCKET must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens")
    .optional()
    .describe(
      "The bucket Jumbe's files go to (required with `STORAGE=s3`). Keep it private: downloads go through Jumbe's permission check.",
    ),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{2,40}$/, "S3_REGION must be a region name such as us-east-1 or auto")
    .default("us-east-1")
    .describe("The bucket's region (`auto` on R2; MinIO's default is `us-east-1`). Requests are signed for it."),
  S3_ACCESS_KEY_ID: z
    .string()
    .min(3)
    .optional()
    .describe("Access key of the bucket's credentials. Unset (with the secret): the AWS SDK's own chain (environment, instance role)."),
  S3_SECRET_ACCESS_KEY: z.string().min(8).optional().describe("Secret of `S3_ACCESS_KEY_ID`; set both or neither."),
  S3_FORCE_PATH_STYLE: flag.describe(
    "`1`: address objects as `endpoint/bucket/key` (MinIO, Ceph and most self-hosted stores); unset: `bucket.endpoint/key`, which needs wildcard DNS and TLS for the bucket's name.",
  ),
  S3_CHECKSUMS: z
    .enum(["when_supported", "when_required"])
    .optional()
    .describe(
      "The AWS SDK's CRC checksums: `when_supported` on every upload and download (AWS's default), `when_required` only where S3 requires one. Many S3-compatible stores refuse the former (R2 `NotImplemented`, MinIO and others `XAmzContentSHA256Mismatch`). Unset: `when_supported` on AWS (no `S3_ENDPOINT`), else `when_required`.",
    ),
  S3_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .describe(
      "How long a connection to the store, or a silence in its answer, may last before the try fails; the SDK tries three times, then files answer 503.",
    ),
  STORAGE_DOWNLOADS: z
    .enum(["stream", "redirect"])
    .default("stream")
    .describe(
      "How a file reaches the browser after Jumbe's permission check: `stream` through Jumbe, or `redirect` (with `STORAGE=s3`) to a presigned URL of the bucket that dies after `S3_PRESIGN_SECONDS`, which takes the bytes off Jumbe's instances.",
    ),
  S3_PRESIGN_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(604_800)
    .default(300)
    .describe("How long a presigned download URL works (`STORAGE_DOWNLOADS=redirect`); S3's limit is 7 days."),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// URL")
    .optional()
    .describe("`postgres://` or `postgresql://` URL. When set, Jumbe uses that PostgreSQL server instead of PGlite."),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10).describe("PostgreSQL connections per process."),
  DATABASE_POOLER: z
    .enum(["none", "pgbouncer-transaction"])
    .default("none")
    .describe(
      "What `DATABASE_URL` reaches: `none`, PostgreSQL itself; `pgbouncer-transaction`, PgBouncer in transaction pooling (`pool_mode = transaction`): statements are then never prepared by name on a connection (decision 062 off) nor sent together in one turn (decision 185 off), and what needs a session goes to `DATABASE_DIRECT_URL` (decision 162).",
    ),
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_DIRECT_URL must be a postgres:// URL")
    .optional()
    .describe(
      "PostgreSQL itself, not the pooler: the dedicated LISTEN connection (live updates across instances) and the migrations at start-up use it. Required with `DATABASE_POOLER=pgbouncer-transaction`.",
    ),
  DATABASE_REPLICA_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_REPLICA_URL must be a postgres:// URL")
    .optional()
    .describe(
      "A streaming replica of the PostgreSQL at `DATABASE_URL` (a hot standby, or a PgBouncer before one: its statements are never prepared by name). Analytics, exports and the console's figures read it while it answers and lags no more than `DATABASE_REPLICA_MAX_LAG_MS`, otherwise the primary; a person's own writes are read back from the primary (decision 163). Unset: every read goes to `DATABASE_URL`.",
    ),
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(5000)
    .describe(
      "How far behind the primary the replica may be, in milliseconds, for heavy reads to go to it; past it they go to the primary until it catches up. Lag is on /metrics (`jumbe_replica_lag_seconds`) and the System tab.",
    ),
  SESSION_CACHE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5_000)
    .describe(
      "How long an instance may answer a signed-in request from its own copy of the session's lookup (session, user, organisation, the organisation's month's usage, and the member's shell counts: the bell's and the inbox's unread), in milliseconds; `0` turns the cache off. A copy is dropped the moment PostgreSQL's NOTIFY says its session, user or organisation changed on any instance (the shell counts: a notification of the member added or read, a change of the organisation's inbox), and no copy is used while the instance's LISTEN connection is down (decisions 166 and 182). The month's usage on `/api/auth/me` may be up to this long behind a charge (decision 170).",
    ),
  SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(120_000)
    .default(10_000)
    .describe(
      "On SIGTERM, how long requests in flight may take before the database closes; 5 s later the process ends whatever still waits (a database that does not answer), with exit code 1.",
    ),
  APP_URL: z
    .url()
    .optional()
    .describe(
      "Public origin of the site, and the one address to open it at: the start-up banner prints it, links in e-mails and Embedded Signup use it, the CSRF origin check accepts it and no other origin (never one built from the request's `Host`), and an `https://` value makes the session cookie `Secure`. A page requested at another host answers `421` with a link to the same page at `APP_URL` (health probes, assets, webhooks and the API excepted). Unset: `http://localhost:$PORT` (`http://$HOST:$PORT` when `HOST` is neither loopback nor `0.0.0.0`/`::`).",
    ),
  SITE_URL: z.url().optional().describe("Public site origin for canonical URLs, the sitemap and share cards. Unset: `APP_URL`."),
  SALES_EMAIL: z.email().default("sales@jumbe.co.ke").describe('The landing page\'s "Talk To Us" mailto address.'),
  // The number the landing page's WhatsApp button opens a chat with (wa.me takes digits only).
  WHATSAPP_NUMBER: z
    .string()
    .regex(/^\+?\d{9,15}$/, "WHATSAPP_NUMBER must be an international number such as +254711082000")
    .default("+254711082000")
    .describe("The number the landing page's floating WhatsApp button opens a `https://wa.me/...` chat with."),
  SUPPORT_EMAIL: z.email().default("support@jumbe.co.ke").describe("Contact address shown in the site footer."),
  SUPPORT_PHONE: z.string().default("+254 711 082 000").describe("Contact phone shown in the site footer."),
  SESSION_SECRET: z
    .string()
    .min(32, "SESSION_SECRET must be at least 32 characters")
    .default(DEMO_SESSION_SECRET)
    .describe(
      "At least 32 characters. Signs the short-lived cookies (`otp_email`, `reset_email`, toasts) and keys the hashes of one-time codes. Production refuses the demo value.",
    ),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "ENCRYPTION_KEY must be 32 bytes as 64 hex characters")
    .default(DEMO_ENCRYPTION_KEY)
    .describe(
      "32 bytes as **64 hex characters**. AES-256-GCM key for secrets stored encrypted. Production refuses the demo value (64 zeros).",
    ),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "SMTP_URL must be an smtp:// or smtps:// URL")
    .optional()
    .describe("`smtp://` or `smtps://` URL for nodemailer. Unset: mail goes to the sandbox outbox. Required in production."),
  MAIL_FROM: z.string().default("Jumbe <no-reply@jumbe.co.ke>").describe("Sender of outgoing mail."),
  SANDBOX: flag.describe(
    "Mounts `/sandbox/...` and seeds the demo data into an empty database. In production only together with `DEMO_HOST=1`. Unset: on, except in production.",
  ),
  DEMO_HOST: flag.describe(
    "`1` declares a public demo host: the only way production starts with `SANDBOX=1` (the sandbox's control API signs Meta webhooks for any tenant, its outbox shows one-time codes). Requires `SANDBOX_CONTROL_TOKEN` and a real `META_APP_SECRET`. Unset: off. See decision 012.",
  ),
  SANDBOX_CONTROL_TOKEN: z
    .string()
    .min(32, "SANDBOX_CONTROL_TOKEN must be at least 32 characters")
    .optional()
    .describe(
      "At least 32 characters (`openssl rand -base64 32`). When set, the sandbox's control APIs (`/sandbox/meta/control/...`, `/sandbox/mpesa/control/...`, `/sandbox/paystack/control/...`, `/sandbox/llm/control/...`, `/sandbox/hubspot/control/...`, `/sandbox/shopify/control/...`, `/sandbox/google/control/...`), consoles (`/sandbox/meta`, `/sandbox/mpesa` and its phone page, `/sandbox/paystack`, `/sandbox/llm`, `/sandbox/hubspot`, `/sandbox/shopify`, `/sandbox/google`) and mail outbox (`/sandbox/mail`, `/sandbox/mail.json`) ask for it: scripts send `X-Sandbox-Token: <token>` (or `Authorization: Bearer <token>`); in a browser a token form sets an HttpOnly cookie for `/sandbox`. The Embedded Signup dialog, the Graph stand-in, Daraja's API, Paystack's API and checkout, the model's API (`/sandbox/llm/v1`) and the integrations' OAuth pages and APIs (HubSpot's, Shopify's, Google's) stay open. Required on a demo host; unset in development, where the sandbox is open.",
    ),
  TRUST_PROXY: z
    .string()
    .default("loopback")
    .describe(
      "Express `trust proxy`: which proxies may set `X-Forwarded-For`/`-Proto` (addresses, subnets, or `loopback`, `linklocal`, `uniquelocal`). The rate limits count per client IP, so trust only your nginx.",
    ),
  RATE_LIMIT_MULTIPLIER: z.coerce
    .number()
    .positive()
    .default(1)
    .describe(
      "Multiplies every abuse limit (sign-in, sign-up, codes, resets), for benchmarks. The 30 s resend window is a product rule and is not scaled.",
    ),
  GRAPH_API_BASE_URL: z
    .url()
    .optional()
    .describe("Where the Graph API client sends its calls. Unset: the sandbox, or `https://graph.facebook.com` in production."),
  GRAPH_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, "GRAPH_API_VERSION must look like v25.0")
    .default("v25.0")
    .describe("Graph version in every URL and in the Facebook SDK (the spec's v19.0 expired in May 2026)."),
  GRAPH_API_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .describe("Timeout of one Graph call. Throttling and transient errors are retried with backoff."),
  META_APP_ID: z
    .string()
    .regex(/^\d+$/, "META_APP_ID must be the numeric app id")
    .default(DEMO_META_APP_ID)
    .describe("The Meta app's id (App Dashboard). Required in production (the default is the sandbox's)."),
  META_APP_SECRET: z
    .string()
    .min(16, "META_APP_SECRET must be the app secret from the App Dashboard")
    .default(DEMO_META_APP_SECRET)
    .describe(
      "The app secret: signs webhooks (`X-Hub-Signature-256`) and authenticates the code exchange. Required in production (the default is the sandbox's).",
    ),
  META_CONFIG_ID: z
    .string()
    .regex(/^\d+$/, "META_CONFIG_ID must be the numeric Embedded Signup configuration id")
    .default(DEMO_META_CONFIG_ID)
    .describe(
      "The Embedded Signup configuration id (Facebook Login for Business > Configurations). Required in production (the default is the sandbox's).",
    ),
  META_VERIFY_TOKEN: z
    .string()
    .min(16, "META_VERIFY_TOKEN must be at least 16 characters")
    .default(DEMO_META_VERIFY_TOKEN)
    .describe(
      "At least 16 characters: the Verify token of the webhook subscription (`GET /webhooks/whatsapp` handshake). Required in production (the default is the sandbox's).",
    ),
  META_SANDBOX_TEMPLATE_REVIEW_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(3000)
    .describe(
      "Sandbox mode only: how long the Meta sandbox's reviewer waits before deciding a submitted template (0 to 600000; 0: at once).",
    ),
  WEBHOOK_ALLOW_LOOPBACK: flag.describe(
    "Tests and local trials only: `1` lets webhooks out go to loopback (`127.0.0.0/8`, `::1`), where a local receiver listens (every other private range stays refused). Production refuses to start with it. Unset: off. See decision 021.",
  ),
  // The price table campaigns estimate with (and billing will charge): Meta's per-message rate for
  // Kenya (+254, "Rest of Africa") by template category in US dollars, the dollar's rate in shillings,
  // and Jumbe's own fee per message in shillings. Meta bills in USD; rates change only each quarter.
  META_RATES_USD: z
    .string()
    .regex(
      /^\s*marketing=\d+(\.\d+)?\s*,\s*utility=\d+(\.\d+)?\s*,\s*authentication=\d+(\.\d+)?\s*$/,
      "META_RATES_USD must look like marketing=0.0225,utility=0.004,authentication=0.004",
    )
    .default("marketing=0.0225,utility=0.004,authentication=0.004")
    .describe(
      "Meta's US-dollar rate per delivered template message for Kenya (+254, \"Rest of Africa\"), by category: what Meta charges Jumbe (customers pay the plan's prices, `billing_plans`). Meta changes rates only on 1 January, April, July and October.",
    ),
  USD_KES_RATE: z.coerce.number().positive().max(10_000).default(129.2).describe("Shillings to the dollar, for the estimates in KES."),
  JUMBE_FEE_KES: z.coerce.number().min(0).max(100).default(0.15).describe("Jumbe's own fee per message sent, in shillings."),
  JOB_WORKERS: z.coerce
    .number()
    .int()
    .min(0)
    .max(32)
    .default(2)
    .describe(
      "Job batches each queue may run at once in this process (webhooks, mail, Graph refreshes, housekeeping; decision 015). `0`: this instance only serves requests.",
    ),
  DISPATCHER_LOOPS: z.coerce
    .number()
    .int()
    .min(1)
    .max(8)
    .default(2)
    .describe(
      "Loops of the outbound message dispatcher in this process when `JOB_WORKERS` is above 0; each claims, sends and settles a batch in turn, so two keep calls to Meta going while one uses the database (decision 026).",
    ),
  METRICS_TOKEN: z
    .string()
    .min(24, "METRICS_TOKEN must be at least 24 characters")
    .optional()
    .describe(
      "At least 24 characters (`openssl rand -base64 32`). Prometheus scrapes `/metrics` with `Authorization: Bearer <token>` (this instance's process and request metrics, the time automations add to each inbound message's webhook transaction, `jumbe_automations_arrival_seconds`, and the platform's queue, webhook and alert gauges). Unset: `/metrics` answers 401 to everyone.",
    ),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino's level. Tests are silent unless it is set."),
  // M-Pesa through Safaricom's Daraja API (wallet top-ups by STK push, and paybill payments).
  // Without MPESA_BASE_URL: the local sandbox (sandbox mode) or Safaricom's production API.
  MPESA_BASE_URL: z
    .url()
    .optional()
    .describe(
      "Where the Daraja client sends its calls (OAuth, STK push and query, C2B URL registration). Unset: the sandbox (`/sandbox/mpesa`), or `https://api.safaricom.co.ke` in production.",
    ),
  MPESA_SHORTCODE_BASE_URLS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return undefined;
      const urls: { sandbox?: string; production?: string } = {};
      for (const part of value.split(",")) {
        const [name, url] = part.split(/=(.*)/s).map((piece) => piece.trim());
        if ((name !== "sandbox" && name !== "production") || !url || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
          ctx.addIssue({ code: "custom", message: "MPESA_SHORTCODE_BASE_URLS must be sandbox=<url>,production=<url> (either or both)" });
          return z.NEVER;
        }
        urls[name] = url.replace(/\/+$/, "");
      }
      return urls;
    })
    .describe(
      "Where the organisations' own M-Pesa shortcodes (Settings → Payments, issue 76) are reached, by the shortcode's environment: `sandbox=<url>,production=<url>` (either or both). Unset: production shortcodes at `https://api.safaricom.co.ke`; sandbox shortcodes at the local sandbox (`/sandbox/mpesa`) in sandbox mode, else at Safaricom's `https://sandbox.safaricom.co.ke`.",
    ),
  MPESA_ENVIRONMENT: z
    .enum(["sandbox", "production"])
    .optional()
    .describe(
      "Daraja's environment; production refuses Safaricom's test paybill 174379. Unset: `production` in production without the sandbox, else `sandbox`.",
    ),
  MPESA_CONSUMER_KEY: z
    .string()
    .min(8, "MPESA_CONSUMER_KEY must be the Daraja app's consumer key")
    .default(DEMO_MPESA_CONSUMER_KEY)
    .describe("The Daraja app's consumer key; production refuses the demo value."),
  MPESA_CONSUMER_SECRET: z
    .string()
    .min(8, "MPESA_CONSUMER_SECRET must be the Daraja app's consumer secret")
    .default(DEMO_MPESA_CONSUMER_SECRET)
    .describe("The Daraja app's consumer secret; production refuses the demo value."),
  MPESA_SHORTCODE: z
    .string()
    .regex(/^\d{5,7}$/, "MPESA_SHORTCODE must be the paybill number (5 to 7 digits)")
    .default(DEMO_MPESA_SHORTCODE)
    .describe("The paybill that receives top-ups (STK push and C2B)."),
  MPESA_PASSKEY: z
    .string()
    .min(16, "MPESA_PASSKEY must be the Lipa na M-Pesa Online passkey")
    .default(DEMO_MPESA_PASSKEY)
    .describe(
      "The Lipa na M-Pesa Online passkey (the STK password is base64 of shortcode, passkey and timestamp); production refuses the default, Safaricom's public sandbox passkey.",
    ),
  MPESA_B2C_SHORTCODE: z
    .string()
    .regex(/^\d{5,7}$/, "MPESA_B2C_SHORTCODE must be the B2C shortcode partners are paid from (5 to 7 digits)")
    .default(DEMO_MPESA_B2C_SHORTCODE)
    .describe("The B2C shortcode (PartyA) partners' settlements are paid from by M-Pesa (issue 46)."),
  MPESA_B2C_INITIATOR_NAME: z
    .string()
    .min(1)
    .max(64)
    .default(SANDBOX_INITIATOR_NAME)
    .describe("The API operator (initiator) Safaricom set up for B2C on that shortcode."),
  MPESA_B2C_INITIATOR_PASSWORD: z
    .string()
    .min(4)
    .optional()
    .describe(
      "The initiator's password, sent only encrypted (SecurityCredential). Unset: the local sandbox's in sandbox mode; in production M-Pesa payouts are off (settlements are paid by bank). Production refuses the sandbox's.",
    ),
  MPESA_B2C_CERTIFICATE: z
    .string()
    .refine(
      (value) => value.includes("-----BEGIN ") || !value.includes("\n"),
      "MPESA_B2C_CERTIFICATE must be a PEM certificate or the path of one",
    )
    .optional()
    .describe(
      "Safaricom's public certificate the initiator password is encrypted with (PEM, or the path of its file). Unset: the local sandbox's key in sandbox mode; in production M-Pesa payouts are off. Production refuses the sandbox's.",
    ),
  // The partner programme (issue 46, decision 087): withholding tax on settlements, and the payout size that needs a second administrator.
  PARTNER_WITHHOLDING_RESIDENT_BPS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(500)
    .describe(
      "Withholding tax on a Kenyan-resident partner's settlement, in basis points (500 = 5%, KRA's rate for agency and consultancy fees).",
    ),
  PARTNER_WITHHOLDING_NON_RESIDENT_BPS: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(2000)
    .describe("Withholding tax on a non-resident partner's settlement, in basis points (2000 = 20%)."),
  PARTNER_WITHHOLDING_THRESHOLD_CENTS: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe("A partner's month at or below this share (KES cents) is paid without withholding; 0: always withheld."),
  PARTNER_PAYOUT_APPROVAL_THRESHOLD_CENTS: z.coerce
    .number()
    .int()
    .min(0)
    .default(100_000_00)
    .describe("An M-Pesa payout above this (KES cents) waits for a second administrator's approval (maker-checker)."),
  MPESA_CALLBACK_BASE_URL: z
    .url()
    .optional()
    .describe("The public address Safaricom posts callbacks to; `https://` in production. Unset: `APP_URL`."),
  MPESA_ALLOWED_IPS: z
    .string()
    .default("")
    .describe(
      "Safaricom's callback IPs, comma-separated: a callback from elsewhere is refused. A second line of defence after the secret path and the STK query. Empty: any.",
    ),
  MPESA_TRUSTED_IPS: z
    .string()
    .refine((list) => list.split(",").every((entry) => !entry.trim() || ipOrSubnet(entry.trim())), {
      message: "MPESA_TRUSTED_IPS must be comma-separated IP addresses or subnets, such as 196.201.214.200,196.201.213.0/24",
    })
    .optional()
    .describe(
      "Where Safaricom's callbacks come from: addresses or subnets (`196.201.213.0/24`), comma-separated; empty believes none. A callback from one of them is believed at once; from any other address an M-Pesa Express payment waits for Jumbe's own STK query, and a paybill confirmation is kept in suspense. The client address is the one Express resolves behind `TRUST_PROXY`; production refuses loopback here with the live paybill. Confirm the list with Safaricom at go-live. Unset: Safaricom's published callback addresses (`196.201.214.200`, ... twelve) with the live paybill (`MPESA_ENVIRONMENT=production`); `127.0.0.1,::1` otherwise.",
    ),
  MPESA_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000).describe("How long a Daraja call may take."),
  // Card payments through Paystack's hosted checkout. Without PAYSTACK_BASE_URL: the local sandbox or api.paystack.co.
  PAYSTACK_BASE_URL: z
    .url()
    .optional()
    .describe(
      "Where the Paystack client sends its calls (card top-ups). Unset: the sandbox (`/sandbox/paystack`), or `https://api.paystack.co` in production.",
    ),
  PAYSTACK_SECRET_KEY: z
    .string()
    .regex(/^sk_(test|live)_\w{8,}$/, "PAYSTACK_SECRET_KEY must be a Paystack secret key (sk_test_... or sk_live_...)")
    .default(DEMO_PAYSTACK_SECRET_KEY)
    .describe(
      "Paystack's secret key (`sk_test_...`, `sk_live_...`): calls and the webhook's HMAC-SHA512 signature. Production refuses test keys.",
    ),
  PAYSTACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000).describe("How long a Paystack call may take."),
  // SMS through Africa's Talking (issue 77): each organisation's own username and API key, per call.
  AFRICASTALKING_BASE_URL: z
    .url()
    .optional()
    .describe(
      "Where the Africa's Talking client sends its SMS calls (`/version1/messaging`, `/version1/user`). Unset: the sandbox (`/sandbox/africastalking`), or `https://api.africastalking.com` in production.",
    ),
  AFRICASTALKING_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(15_000)
    .describe("How long an Africa's Talking call may take."),
  // The integrations (issue 45): HubSpot, Shopify, Google Sheets. Without the URLs: the sandboxes, or the real services in production.
  HUBSPOT_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The HubSpot app's client ID (its Auth settings). Unset: the sandbox's app; in production HubSpot stays off until it is set.",
    ),
  HUBSPOT_CLIENT_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe("The HubSpot app's client secret (token exchange and refresh). Unset: the sandbox's; production refuses the sandbox's."),
  HUBSPOT_AUTH_URL: z
    .url()
    .optional()
    .describe(
      "Where the browser is sent to install the HubSpot app (`/oauth/authorize` is added). Unset: `APP_URL/sandbox/hubspot` in sandbox mode, else `https://app.hubspot.com`.",
    ),
  HUBSPOT_API_URL: z
    .url()
    .optional()
    .describe(
      "Where the HubSpot client sends its calls (OAuth tokens, CRM v3). Unset: the sandbox (`/sandbox/hubspot`), or `https://api.hubapi.com` in production.",
    ),
  HUBSPOT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000).describe("How long a HubSpot call may take."),
  SHOPIFY_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe("The Shopify app's client ID (API key). Unset: the sandbox's app; in production Shopify stays off until it is set."),
  SHOPIFY_CLIENT_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The Shopify app's client secret: the token exchange, and the key of the install's `hmac` and the webhooks' `X-Shopify-Hmac-Sha256`. Unset: the sandbox's; production refuses the sandbox's.",
    ),
  SHOPIFY_AUTH_URL: z
    .string()
    .regex(/^https?:\/\/\S*\{shop\}\S*$/, "SHOPIFY_AUTH_URL must be an http(s) URL containing {shop}")
    .optional()
    .describe(
      "Where the browser is sent to install the app on a shop, `{shop}` standing for its `<name>.myshopify.com` (`/admin/oauth/authorize` is added). Unset: `APP_URL/sandbox/shopify/shops/{shop}` in sandbox mode, else `https://{shop}`.",
    ),
  SHOPIFY_API_URL: z
    .string()
    .regex(/^https?:\/\/\S*\{shop\}\S*$/, "SHOPIFY_API_URL must be an http(s) URL containing {shop}")
    .optional()
    .describe(
      "Where the Shopify client sends a shop's calls (the token exchange, the Admin API), `{shop}` standing for its domain. Unset: the sandbox (`/sandbox/shopify/shops/{shop}`), or `https://{shop}` in production.",
    ),
  SHOPIFY_API_VERSION: z
    .string()
    .regex(/^\d{4}-(01|04|07|10)$/, "SHOPIFY_API_VERSION must be a quarterly version such as 2025-10")
    .default("2025-10")
    .describe("The Admin API version in every Shopify URL and in the webhooks Jumbe subscribes to."),
  SHOPIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000).describe("How long a Shopify call may take."),
  GOOGLE_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The Google OAuth client's ID (a web application in Google Cloud). Unset: the sandbox's; in production Google Sheets stays off until it is set.",
    ),
  GOOGLE_CLIENT_SECRET: z
    .string()
    .min(1)
    .optional()
    .describe("The Google OAuth client's secret. Unset: the sandbox's; production refuses the sandbox's."),
  GOOGLE_AUTH_URL: z
    .url()
    .optional()
    .describe(
      "Where the browser is sent for Google's consent (`/o/oauth2/v2/auth` is added). Unset: `APP_URL/sandbox/google` in sandbox mode, else `https://accounts.google.com`.",
    ),
  GOOGLE_OAUTH_URL: z
    .url()
    .optional()
    .describe(
      "Where the Google client exchanges, refreshes and revokes tokens (`/token`, `/revoke`). Unset: the sandbox (`/sandbox/google`), or `https://oauth2.googleapis.com` in production.",
    ),
  GOOGLE_SHEETS_URL: z
    .url()
    .optional()
    .describe(
      "Where the Sheets client sends its calls (`/v4/spreadsheets/...`). Unset: the sandbox (`/sandbox/google`), or `https://sheets.googleapis.com` in production.",
    ),
  GOOGLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000).describe("How long a Google call may take."),
  GOOGLE_PICKER_API_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{20,100}$/, "GOOGLE_PICKER_API_KEY must be a Google API key (letters, digits, _ and -)")
    .optional()
    .describe(
      "The Google Picker's developer key (an API key of the OAuth client's Cloud project, restricted to the Picker API and APP_URL). Unset in production: no Picker, so only spreadsheets Jumbe creates can be used; sandbox mode uses the sandbox's stand-in Picker.",
    ),
  GOOGLE_PICKER_SCRIPT_URL: z
    .url()
    .regex(/^https:\/\//, "GOOGLE_PICKER_SCRIPT_URL must be https://")
    .default("https://apis.google.com/js/api.js")
    .describe("Google's API loader the Google Sheets page loads (only on a click) to open the Picker, in production."),
  // Who issues Jumbe's invoices (KRA PIN: a letter, 9 digits, a letter), and the bank account for transfers.
  INVOICE_SELLER_NAME: z.string().min(2).default("Jumbe Technologies Limited").describe("The seller on invoices and receipts."),
  INVOICE_SELLER_KRA_PIN: z
    .string()
    .regex(/^[A-Z]\d{9}[A-Z]$/, "INVOICE_SELLER_KRA_PIN must be a KRA PIN such as P051234567Q")
    .default(DEMO_SELLER_KRA_PIN)
    .describe("The seller's KRA PIN on invoices; production refuses the demo value."),
  INVOICE_SELLER_ADDRESS: z
    .string()
    .min(2)
    .default("Ngong Lane Plaza, 4th Floor, P.O. Box 10120-00100, Nairobi")
    .describe("The seller's address on invoices."),
  BANK_TRANSFER_DETAILS: z
    .string()
    .regex(/^[^|]+\|[^|]+\|[^|]+\|[^|]+$/, "BANK_TRANSFER_DETAILS must be bank|branch|account name|account number")
    .default("NCBA Bank Kenya|Upper Hill|Jumbe Technologies Limited|1002345678")
    .describe("`bank|branch|account name|account number` shown for bank transfers."),
});

/** Every variable Jumbe reads from the environment (docs/configuration.md, .env.example). */
export const ENV_VARIABLES = Object.keys(EnvVariables.shape);

const EnvSchema = EnvVariables.transform((env) => {
  const deployment = env.DEPLOYMENT ?? (env.NODE_ENV === "production" ? "production" : "local");
  const production = deployment === "production";
  // Sandbox is on by default outside production; in production only when asked for explicitly.
  const sandbox = production ? env.SANDBOX === true : env.SANDBOX !== false;
  const selfUrl = `http://${env.HOST === "0.0.0.0" || env.HOST === "::" ? "127.0.0.1" : env.HOST}:${env.PORT}`;
  const appUrl = (env.APP_URL ?? defaultAppUrl(env.HOST, env.PORT)).replace(/\/$/, "");
  const mpesaEnvironment = env.MPESA_ENVIRONMENT ?? (production && !sandbox ? "production" : "sandbox");
  return {
    ...env,
    DEPLOYMENT: deployment,
    production,
    sandbox,
    demoHost: production && sandbox && env.DEMO_HOST === true,
    GRAPH_API_BASE_URL: (env.GRAPH_API_BASE_URL ?? (sandbox ? `${selfUrl}/sandbox/meta/graph` : "https://graph.facebook.com")).replace(
      /\/$/,
      "",
    ),
    APP_URL: appUrl,
    SITE_URL: (env.SITE_URL ?? appUrl).replace(/\/$/, ""),
    MPESA_BASE_URL: (env.MPESA_BASE_URL ?? (sandbox ? `${selfUrl}/sandbox/mpesa` : "https://api.safaricom.co.ke")).replace(/\/$/, ""),
    MPESA_ENVIRONMENT: mpesaEnvironment,
    /** Where a tenant's shortcode of each environment is reached (MPESA_SHORTCODE_BASE_URLS). */
    mpesaShortcodeBaseUrls: {
      production: env.MPESA_SHORTCODE_BASE_URLS?.production ?? "https://api.safaricom.co.ke",
      sandbox: env.MPESA_SHORTCODE_BASE_URLS?.sandbox ?? (sandbox ? `${selfUrl}/sandbox/mpesa` : "https://sandbox.safaricom.co.ke"),
    },
    MPESA_CALLBACK_BASE_URL: (env.MPESA_CALLBACK_BASE_URL ?? appUrl).replace(/\/$/, ""),
    // B2C payouts (issue 46): the sandbox's initiator and key unless set; off in production until both are.
    mpesaB2c:
      env.MPESA_B2C_INITIATOR_PASSWORD && env.MPESA_B2C_CERTIFICATE
        ? { initiatorPassword: env.MPESA_B2C_INITIATOR_PASSWORD, certificate: env.MPESA_B2C_CERTIFICATE }
        : sandbox
          ? { initiatorPassword: SANDBOX_INITIATOR_PASSWORD, certificate: SANDBOX_CREDENTIAL_PUBLIC_KEY }
          : null,
    mpesaAllowedIps: env.MPESA_ALLOWED_IPS.split(",")
      .map((ip) => ip.trim())
      .filter(Boolean),
    mpesaTrustedIps: (env.MPESA_TRUSTED_IPS ?? (mpesaEnvironment === "production" ? SAFARICOM_CALLBACK_IPS : "127.0.0.1,::1"))
      .split(",")
      .map((ip) => ip.trim())
      .filter(Boolean),
    PAYSTACK_BASE_URL: (env.PAYSTACK_BASE_URL ?? (sandbox ? `${selfUrl}/sandbox/paystack` : "https://api.paystack.co")).replace(/\/$/, ""),
    AFRICASTALKING_BASE_URL: (
      env.AFRICASTALKING_BASE_URL ?? (sandbox ? `${selfUrl}/sandbox/africastalking` : "https://api.africastalking.com")
    ).replace(/\/$/, ""),
    ...integrationSettings(env, { sandbox, selfUrl, appUrl }),
    /** The SDK's checksum setting: AWS takes its default, other stores only what S3 requires (decision 161). */
    s3Checksums: env.S3_CHECKSUMS ?? (env.S3_ENDPOINT ? "when_required" : "when_supported"),
    bankTransfer: (([bank, branch, accountName, accountNumber]) => ({ bank, branch, accountName, accountNumber }))(
      env.BANK_TRANSFER_DETAILS.split("|").map((part) => part.trim()) as [string, string, string, string],
    ),
  };
}).superRefine((env, ctx) => {
  storageIssues(env, ctx);
  poolerSettings(env, ctx);
  replicaSettings(env, ctx);
  if (!env.production) return;
  if (env.SESSION_SECRET === DEMO_SESSION_SECRET)
    ctx.addIssue({ code: "custom", path: ["SESSION_SECRET"], message: "refusing to start in production with the demo SESSION_SECRET" });
  if (env.ENCRYPTION_KEY === DEMO_ENCRYPTION_KEY)
    ctx.addIssue({ code: "custom", path: ["ENCRYPTION_KEY"], message: "refusing to start in production with the demo ENCRYPTION_KEY" });
  // The sandbox forges signed webhooks for any tenant and its outbox shows one-time codes.
  if (env.sandbox && env.DEMO_HOST !== true)
    ctx.addIssue({
      code: "custom",
      path: ["SANDBOX"],
      message:
        "refusing to start in production with SANDBOX=1: the sandbox forges signed Meta webhooks and shows one-time codes. Set DEMO_HOST=1 only on a public demo host (with SANDBOX_CONTROL_TOKEN), or SANDBOX=0",
    });
  if (env.sandbox && env.DEMO_HOST === true && !env.SANDBOX_CONTROL_TOKEN)
    ctx.addIssue({
      code: "custom",
      path: ["SANDBOX_CONTROL_TOKEN"],
      message: "SANDBOX_CONTROL_TOKEN is required on a demo host (DEMO_HOST=1): the sandbox's control API asks for it",
    });
  // With the sandbox, its app id and configuration may stay; the app secret never does: it is public,
  // and anyone holding it signs webhooks to /webhooks/whatsapp.
  const demo = env.sandbox
    ? { META_APP_SECRET: DEMO_META_APP_SECRET }
    : {
        META_APP_ID: DEMO_META_APP_ID,
        META_APP_SECRET: DEMO_META_APP_SECRET,
        META_CONFIG_ID: DEMO_META_CONFIG_ID,
        META_VERIFY_TOKEN: DEMO_META_VERIFY_TOKEN,
      };
  for (const [key, value] of Object.entries(demo))
    if (env[key as keyof typeof demo] === value)
      ctx.addIssue({ code: "custom", path: [key], message: `refusing to start in production with the sandbox ${key}` });
  if (env.WEBHOOK_ALLOW_LOOPBACK)
    ctx.addIssue({
      code: "custom",
      path: ["WEBHOOK_ALLOW_LOOPBACK"],
      message: "refusing to start in production with WEBHOOK_ALLOW_LOOPBACK=1: tenants' webhooks could call into this machine",
    });
  if (!env.SMTP_URL) ctx.addIssue({ code: "custom", path: ["SMTP_URL"], message: "SMTP_URL is required in production" });
  // Payments: the public sandbox credentials would take real customers' money nowhere.
  const paymentDemos = env.sandbox
    ? {}
    : {
        MPESA_CONSUMER_KEY: DEMO_MPESA_CONSUMER_KEY,
        MPESA_CONSUMER_SECRET: DEMO_MPESA_CONSUMER_SECRET,
        MPESA_PASSKEY: DEMO_MPESA_PASSKEY,
        MPESA_B2C_INITIATOR_PASSWORD: SANDBOX_INITIATOR_PASSWORD,
        MPESA_B2C_CERTIFICATE: SANDBOX_CREDENTIAL_PUBLIC_KEY,
        PAYSTACK_SECRET_KEY: DEMO_PAYSTACK_SECRET_KEY,
        INVOICE_SELLER_KRA_PIN: DEMO_SELLER_KRA_PIN,
      };
  for (const [key, value] of Object.entries(paymentDemos))
    if (env[key as keyof typeof paymentDemos] === value)
      ctx.addIssue({ code: "custom", path: [key], message: `refusing to start in production with the demo ${key}` });
  if (!env.sandbox && env.MPESA_ENVIRONMENT === "production" && env.MPESA_SHORTCODE === DEMO_MPESA_SHORTCODE)
    ctx.addIssue({
      code: "custom",
      path: ["MPESA_SHORTCODE"],
      message: "refusing to start in production with Safaricom's test paybill 174379",
    });
  if (!env.sandbox && !env.MPESA_CALLBACK_BASE_URL.startsWith("https://"))
    ctx.addIssue({
      code: "custom",
      path: ["MPESA_CALLBACK_BASE_URL"],
      message: "MPESA_CALLBACK_BASE_URL must be https:// in production: Safaricom refuses other callbacks",
    });
  // Behind nginx on the same machine, loopback is every request's address if TRUST_PROXY is wrong.
  if (env.MPESA_ENVIRONMENT === "production" && env.mpesaTrustedIps.some((entry) => /^(127\.|::1(\/|$)|::ffff:127\.)/.test(entry)))
    ctx.addIssue({
      code: "custom",
      path: ["MPESA_TRUSTED_IPS"],
      message: "MPESA_TRUSTED_IPS must not name loopback with the live paybill: behind nginx it would trust every request",
    });
  // The integrations' sandbox apps would send every merchant's consent to a client that is public.
  const integrationDemos = {
    HUBSPOT_CLIENT_SECRET: DEMO_HUBSPOT_CLIENT_SECRET,
    SHOPIFY_CLIENT_SECRET: DEMO_SHOPIFY_CLIENT_SECRET,
    GOOGLE_CLIENT_SECRET: DEMO_GOOGLE_CLIENT_SECRET,
  };
  if (!env.sandbox)
    for (const [key, value] of Object.entries(integrationDemos))
      if (env[key as keyof typeof integrationDemos] === value)
        ctx.addIssue({ code: "custom", path: [key], message: `refusing to start in production with the sandbox ${key}` });
  if (!env.sandbox && env.PAYSTACK_SECRET_KEY.startsWith("sk_test_"))
    ctx.addIssue({
      code: "custom",
      path: ["PAYSTACK_SECRET_KEY"],
      message: "refusing to start in production with a Paystack test key (sk_test_...)",
    });
});

/** Storage settings that do not go together, refused at start-up in any deployment (decision 161). */
function storageIssues(env: z.output<typeof EnvVariables>, ctx: z.RefinementCtx) {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (env.STORAGE === "s3" && !env.S3_BUCKET) issue("S3_BUCKET", "S3_BUCKET is required with STORAGE=s3");
  if (!env.S3_ACCESS_KEY_ID !== !env.S3_SECRET_ACCESS_KEY)
    issue(
      env.S3_ACCESS_KEY_ID ? "S3_SECRET_ACCESS_KEY" : "S3_ACCESS_KEY_ID",
      "set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together, or neither",
    );
  if (env.STORAGE !== "s3" && env.STORAGE_DOWNLOADS === "redirect")
    issue("STORAGE_DOWNLOADS", "STORAGE_DOWNLOADS=redirect needs STORAGE=s3: the local folder has no presigned URLs");
  if (env.STORAGE !== "s3" && env.S3_BUCKET)
    issue("STORAGE", "S3_BUCKET is set but STORAGE is local: set STORAGE=s3 to use the bucket, or unset S3_BUCKET");
}

/**
 * In any deployment (decision 162): behind a transaction pooler, LISTEN and the migrations need
 * PostgreSQL's own address, since the pooler keeps no session.
 */
function poolerSettings(
  env: Pick<z.output<typeof EnvVariables>, "DATABASE_POOLER" | "DATABASE_URL" | "DATABASE_DIRECT_URL">,
  ctx: { addIssue: (issue: { code: "custom"; path: string[]; message: string }) => void },
) {
  if (env.DATABASE_POOLER === "none") return;
  if (!env.DATABASE_URL)
    ctx.addIssue({
      code: "custom",
      path: ["DATABASE_POOLER"],
      message: `DATABASE_POOLER=${env.DATABASE_POOLER} needs DATABASE_URL (the pooler's address)`,
    });
  else if (startupParameters(env.DATABASE_URL).length)
    ctx.addIssue({
      code: "custom",
      path: ["DATABASE_URL"],
      message: `DATABASE_URL sends ${startupParameters(env.DATABASE_URL).join(", ")} at start-up, which PgBouncer refuses: set them on the role (ALTER ROLE ... SET), or SET LOCAL in the transaction`,
    });
  else if (!env.DATABASE_DIRECT_URL)
    ctx.addIssue({
      code: "custom",
      path: ["DATABASE_DIRECT_URL"],
      message: `DATABASE_POOLER=${env.DATABASE_POOLER} needs DATABASE_DIRECT_URL, PostgreSQL's own address: LISTEN (live updates across instances) and the migrations need a session, which transaction pooling does not keep`,
    });
}

/** In any deployment (decision 163): a replica is PostgreSQL's, and a URL PgBouncer would refuse is refused here too. */
function replicaSettings(
  env: Pick<z.output<typeof EnvVariables>, "DATABASE_URL" | "DATABASE_REPLICA_URL">,
  ctx: { addIssue: (issue: { code: "custom"; path: string[]; message: string }) => void },
) {
  if (!env.DATABASE_REPLICA_URL) return;
  if (!env.DATABASE_URL)
    ctx.addIssue({
      code: "custom",
      path: ["DATABASE_REPLICA_URL"],
      message: "DATABASE_REPLICA_URL needs DATABASE_URL: the replica follows a PostgreSQL primary, and the embedded database has none",
    });
  else if (startupParameters(env.DATABASE_REPLICA_URL).length)
    ctx.addIssue({
      code: "custom",
      path: ["DATABASE_REPLICA_URL"],
      message: `DATABASE_REPLICA_URL sends ${startupParameters(env.DATABASE_REPLICA_URL).join(", ")} at start-up, which PgBouncer refuses: set them on the role (ALTER ROLE ... SET)`,
    });
}

/** Session settings a postgres:// URL would have node-postgres send at start-up (`?options=`, `?statement_timeout=`...). */
function startupParameters(url: string) {
  const sent = ["options", "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"];
  try {
    return sent.filter((name) => new URL(url).searchParams.has(name));
  } catch {
    return [];
  }
}

/**
 * The integrations' apps and addresses (issue 45). In sandbox mode each defaults to its sandbox on
 * this server (the pages a browser opens at APP_URL, the calls at the server's own address) with the
 * sandbox's app; otherwise to the real service, its app unset (the integration off) until configured.
 */
function integrationSettings(
  env: z.output<typeof EnvVariables>,
  { sandbox, selfUrl, appUrl }: { sandbox: boolean; selfUrl: string; appUrl: string },
) {
  const pick = (given: string | undefined, sandboxed: string, real: string) => (given ?? (sandbox ? sandboxed : real)).replace(/\/+$/, "");
  const demo = (given: string | undefined, sandboxed: string) => given ?? (sandbox ? sandboxed : undefined);
  return {
    HUBSPOT_CLIENT_ID: demo(env.HUBSPOT_CLIENT_ID, DEMO_HUBSPOT_CLIENT_ID),
    HUBSPOT_CLIENT_SECRET: demo(env.HUBSPOT_CLIENT_SECRET, DEMO_HUBSPOT_CLIENT_SECRET),
    HUBSPOT_AUTH_URL: pick(env.HUBSPOT_AUTH_URL, `${appUrl}/sandbox/hubspot`, "https://app.hubspot.com"),
    HUBSPOT_API_URL: pick(env.HUBSPOT_API_URL, `${selfUrl}/sandbox/hubspot`, "https://api.hubapi.com"),
    SHOPIFY_CLIENT_ID: demo(env.SHOPIFY_CLIENT_ID, DEMO_SHOPIFY_CLIENT_ID),
    SHOPIFY_CLIENT_SECRET: demo(env.SHOPIFY_CLIENT_SECRET, DEMO_SHOPIFY_CLIENT_SECRET),
    SHOPIFY_AUTH_URL: pick(env.SHOPIFY_AUTH_URL, `${appUrl}/sandbox/shopify/shops/{shop}`, "https://{shop}"),
    SHOPIFY_API_URL: pick(env.SHOPIFY_API_URL, `${selfUrl}/sandbox/shopify/shops/{shop}`, "https://{shop}"),
    GOOGLE_CLIENT_ID: demo(env.GOOGLE_CLIENT_ID, DEMO_GOOGLE_CLIENT_ID),
    GOOGLE_CLIENT_SECRET: demo(env.GOOGLE_CLIENT_SECRET, DEMO_GOOGLE_CLIENT_SECRET),
    GOOGLE_AUTH_URL: pick(env.GOOGLE_AUTH_URL, `${appUrl}/sandbox/google`, "https://accounts.google.com"),
    GOOGLE_OAUTH_URL: pick(env.GOOGLE_OAUTH_URL, `${selfUrl}/sandbox/google`, "https://oauth2.googleapis.com"),
    GOOGLE_SHEETS_URL: pick(env.GOOGLE_SHEETS_URL, `${selfUrl}/sandbox/google`, "https://sheets.googleapis.com"),
  };
}

/** An IP address, or a subnet as address/prefix length (196.201.213.0/24). */
function ipOrSubnet(entry: string) {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * The address HOST serves, as a browser opens it: `localhost` for loopback and for every
 * interface (the banner prints it, and links and the CSRF check use it), else HOST itself.
 */
function defaultAppUrl(host: string, port: number) {
  const local = ["127.0.0.1", "::1", "localhost", "0.0.0.0", "::", ""].includes(host);
  const name = local ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

export type Env = z.output<typeof EnvSchema>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "env"}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

const state = processState<{ current?: Env }>("env", () => ({}));

/** The validated configuration, read from process.env once. */
export function env(): Env {
  state.current ??= parseEnv(process.env);
  return state.current;
}

/** Tests (and start-up, once the port is known) replace the configuration explicitly. */
export function setEnv(next: Env) {
  state.current = next;
}
