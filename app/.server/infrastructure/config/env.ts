import { isIP } from "node:net";
import { z } from "zod";
import { processState } from "../process-state";
import { DEMO_META_APP_ID, DEMO_META_APP_SECRET } from "../../../../sandbox/meta/demo-app";

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
export const DEMO_PAYSTACK_SECRET_KEY = "sk_test_jumbe_sandbox_0000000000000000";
export const DEMO_SELLER_KRA_PIN = "P000000000A";

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

const EnvVariables = z.object({
  // React's and Node's build mode: production serves React's production build (npm start does).
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  // Where Jumbe runs, which decides the safety checks (decision 014): `production` refuses demo
  // secrets and a sandbox, sends HSTS and Secure cookies; `local` (a laptop, CI, a benchmark) does
  // not. Defaults to production when NODE_ENV is production, else local.
  DEPLOYMENT: z.enum(["local", "production"]).optional(),
  // json: one JSON object per line (for log collectors); pretty: short readable lines. Default:
  // pretty in development on a terminal, else json.
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// URL")
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  // On SIGTERM: how long requests in flight may take to finish before the database closes. Five
  // seconds after that the process ends whatever still waits (a database that does not answer).
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  APP_URL: z.url().optional(),
  // The public site (canonical URLs, sitemap); defaults to APP_URL, the same server.
  SITE_URL: z.url().optional(),
  SALES_EMAIL: z.email().default("sales@jumbe.co.ke"),
  // The number the landing page's WhatsApp button opens a chat with (wa.me takes digits only).
  WHATSAPP_NUMBER: z
    .string()
    .regex(/^\+?\d{9,15}$/, "WHATSAPP_NUMBER must be an international number such as +254711082000")
    .default("+254711082000"),
  SUPPORT_EMAIL: z.email().default("support@jumbe.co.ke"),
  SUPPORT_PHONE: z.string().default("+254 711 082 000"),
  SESSION_SECRET: z.string().min(32, "SESSION_SECRET must be at least 32 characters").default(DEMO_SESSION_SECRET),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "ENCRYPTION_KEY must be 32 bytes as 64 hex characters")
    .default(DEMO_ENCRYPTION_KEY),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "SMTP_URL must be an smtp:// or smtps:// URL")
    .optional(),
  MAIL_FROM: z.string().default("Jumbe <no-reply@jumbe.co.ke>"),
  SANDBOX: flag,
  // Production with the sandbox on is allowed only on a host declared a public demo (decision 012).
  DEMO_HOST: flag,
  // Required on a demo host: the sandbox's control API, console and mail outbox ask for it.
  SANDBOX_CONTROL_TOKEN: z.string().min(32, "SANDBOX_CONTROL_TOKEN must be at least 32 characters").optional(),
  TRUST_PROXY: z.string().default("loopback"),
  // Benchmarks raise every abuse limit; product rules (the 30 s resend window) are not scaled.
  RATE_LIMIT_MULTIPLIER: z.coerce.number().positive().default(1),
  // Meta's Graph API. Without GRAPH_API_BASE_URL the sandbox (sandbox mode) or graph.facebook.com is used.
  GRAPH_API_BASE_URL: z.url().optional(),
  GRAPH_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, "GRAPH_API_VERSION must look like v25.0")
    .default("v25.0"),
  GRAPH_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  META_APP_ID: z.string().regex(/^\d+$/, "META_APP_ID must be the numeric app id").default(DEMO_META_APP_ID),
  META_APP_SECRET: z.string().min(16, "META_APP_SECRET must be the app secret from the App Dashboard").default(DEMO_META_APP_SECRET),
  META_CONFIG_ID: z
    .string()
    .regex(/^\d+$/, "META_CONFIG_ID must be the numeric Embedded Signup configuration id")
    .default(DEMO_META_CONFIG_ID),
  META_VERIFY_TOKEN: z.string().min(16, "META_VERIFY_TOKEN must be at least 16 characters").default(DEMO_META_VERIFY_TOKEN),
  // The Meta sandbox's template reviewer decides a submitted template this long after (0: at once).
  META_SANDBOX_TEMPLATE_REVIEW_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
  // Tests and local trials only: webhooks out may go to loopback (127.0.0.0/8, ::1), where a local
  // receiver listens. Every other private range stays refused; production refuses the switch.
  WEBHOOK_ALLOW_LOOPBACK: flag,
  // The price table campaigns estimate with (and billing will charge): Meta's per-message rate for
  // Kenya (+254, "Rest of Africa") by template category in US dollars, the dollar's rate in shillings,
  // and Jumbe's own fee per message in shillings. Meta bills in USD; rates change only each quarter.
  META_RATES_USD: z
    .string()
    .regex(
      /^\s*marketing=\d+(\.\d+)?\s*,\s*utility=\d+(\.\d+)?\s*,\s*authentication=\d+(\.\d+)?\s*$/,
      "META_RATES_USD must look like marketing=0.0225,utility=0.004,authentication=0.004",
    )
    .default("marketing=0.0225,utility=0.004,authentication=0.004"),
  USD_KES_RATE: z.coerce.number().positive().max(10_000).default(129.2),
  JUMBE_FEE_KES: z.coerce.number().min(0).max(100).default(0.15),
  // Background job workers in this process (0: this instance only serves requests).
  JOB_WORKERS: z.coerce.number().int().min(0).max(32).default(2),
  // Loops of the outbound message dispatcher in this process (when JOB_WORKERS is above 0): each
  // claims, sends and settles a batch in turn, so a second one keeps calls to Meta going while the
  // first reads and writes the database (decision 026).
  DISPATCHER_LOOPS: z.coerce.number().int().min(1).max(8).default(2),
  // Prometheus's scrape of /metrics sends it as `Authorization: Bearer <token>`. Unset: /metrics answers 401 to everyone.
  METRICS_TOKEN: z.string().min(24, "METRICS_TOKEN must be at least 24 characters").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // M-Pesa through Safaricom's Daraja API (wallet top-ups by STK push, and paybill payments).
  // Without MPESA_BASE_URL: the local sandbox (sandbox mode) or Safaricom's production API.
  MPESA_BASE_URL: z.url().optional(),
  // sandbox: Safaricom's sandbox rules (test shortcode and passkey allowed); production: the live paybill.
  MPESA_ENVIRONMENT: z.enum(["sandbox", "production"]).optional(),
  MPESA_CONSUMER_KEY: z.string().min(8, "MPESA_CONSUMER_KEY must be the Daraja app's consumer key").default(DEMO_MPESA_CONSUMER_KEY),
  MPESA_CONSUMER_SECRET: z
    .string()
    .min(8, "MPESA_CONSUMER_SECRET must be the Daraja app's consumer secret")
    .default(DEMO_MPESA_CONSUMER_SECRET),
  MPESA_SHORTCODE: z
    .string()
    .regex(/^\d{5,7}$/, "MPESA_SHORTCODE must be the paybill number (5 to 7 digits)")
    .default(DEMO_MPESA_SHORTCODE),
  MPESA_PASSKEY: z.string().min(16, "MPESA_PASSKEY must be the Lipa na M-Pesa Online passkey").default(DEMO_MPESA_PASSKEY),
  // Where Safaricom posts STK callbacks and paybill validations (a public https address; APP_URL by default).
  MPESA_CALLBACK_BASE_URL: z.url().optional(),
  // Safaricom's callback addresses (comma-separated IPs): callbacks from elsewhere are refused. Empty: any.
  MPESA_ALLOWED_IPS: z.string().default(""),
  // Where Safaricom's callbacks come from (comma-separated addresses or subnets): a callback from one
  // of them is believed; from anywhere else a payment waits for Jumbe's own STK query (decision 035).
  // Unset: Safaricom's published list with the live paybill, loopback (the local sandbox) otherwise.
  MPESA_TRUSTED_IPS: z
    .string()
    .refine((list) => list.split(",").every((entry) => !entry.trim() || ipOrSubnet(entry.trim())), {
      message: "MPESA_TRUSTED_IPS must be comma-separated IP addresses or subnets, such as 196.201.214.200,196.201.213.0/24",
    })
    .optional(),
  MPESA_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  // Card payments through Paystack's hosted checkout. Without PAYSTACK_BASE_URL: the local sandbox or api.paystack.co.
  PAYSTACK_BASE_URL: z.url().optional(),
  PAYSTACK_SECRET_KEY: z
    .string()
    .regex(/^sk_(test|live)_\w{8,}$/, "PAYSTACK_SECRET_KEY must be a Paystack secret key (sk_test_... or sk_live_...)")
    .default(DEMO_PAYSTACK_SECRET_KEY),
  PAYSTACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  // Who issues Jumbe's invoices (KRA PIN: a letter, 9 digits, a letter), and the bank account for transfers.
  INVOICE_SELLER_NAME: z.string().min(2).default("Jumbe Technologies Limited"),
  INVOICE_SELLER_KRA_PIN: z
    .string()
    .regex(/^[A-Z]\d{9}[A-Z]$/, "INVOICE_SELLER_KRA_PIN must be a KRA PIN such as P051234567Q")
    .default(DEMO_SELLER_KRA_PIN),
  INVOICE_SELLER_ADDRESS: z.string().min(2).default("Ngong Lane Plaza, 4th Floor, P.O. Box 10120-00100, Nairobi"),
  BANK_TRANSFER_DETAILS: z
    .string()
    .regex(/^[^|]+\|[^|]+\|[^|]+\|[^|]+$/, "BANK_TRANSFER_DETAILS must be bank|branch|account name|account number")
    .default("NCBA Bank Kenya|Upper Hill|Jumbe Technologies Limited|1002345678"),
});

/** Every variable Jumbe reads from the environment (README "Configuration", .env.example). */
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
    MPESA_CALLBACK_BASE_URL: (env.MPESA_CALLBACK_BASE_URL ?? appUrl).replace(/\/$/, ""),
    mpesaAllowedIps: env.MPESA_ALLOWED_IPS.split(",")
      .map((ip) => ip.trim())
      .filter(Boolean),
    mpesaTrustedIps: (env.MPESA_TRUSTED_IPS ?? (mpesaEnvironment === "production" ? SAFARICOM_CALLBACK_IPS : "127.0.0.1,::1"))
      .split(",")
      .map((ip) => ip.trim())
      .filter(Boolean),
    PAYSTACK_BASE_URL: (env.PAYSTACK_BASE_URL ?? (sandbox ? `${selfUrl}/sandbox/paystack` : "https://api.paystack.co")).replace(/\/$/, ""),
    bankTransfer: (([bank, branch, accountName, accountNumber]) => ({ bank, branch, accountName, accountNumber }))(
      env.BANK_TRANSFER_DETAILS.split("|").map((part) => part.trim()) as [string, string, string, string],
    ),
  };
}).superRefine((env, ctx) => {
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
  if (!env.sandbox && env.PAYSTACK_SECRET_KEY.startsWith("sk_test_"))
    ctx.addIssue({
      code: "custom",
      path: ["PAYSTACK_SECRET_KEY"],
      message: "refusing to start in production with a Paystack test key (sk_test_...)",
    });
});

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
