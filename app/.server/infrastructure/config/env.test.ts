import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { SANDBOX_CREDENTIAL_PUBLIC_KEY, SANDBOX_INITIATOR_PASSWORD } from "@jumbe/sandbox/mpesa/credential-keys";
import { DEMO_HUBSPOT_CLIENT_ID, DEMO_SHOPIFY_CLIENT_SECRET, ENV_VARIABLES, parseEnv, SAFARICOM_CALLBACK_IPS } from "./env";

const SECRET = "x".repeat(40);
const KEY = "ab".repeat(32);
const TOKEN = "t".repeat(32);
const META = {
  META_APP_ID: "123456789012345",
  META_APP_SECRET: "f".repeat(32),
  META_CONFIG_ID: "987654321098765",
  META_VERIFY_TOKEN: "v".repeat(24),
  // Production payment credentials (the demo ones are refused there).
  MPESA_CONSUMER_KEY: "live-consumer-key",
  MPESA_CONSUMER_SECRET: "live-consumer-secret",
  MPESA_PASSKEY: "p".repeat(64),
  MPESA_SHORTCODE: "4012345",
  MPESA_CALLBACK_BASE_URL: "https://app.jumbe.co.ke",
  PAYSTACK_SECRET_KEY: "sk_live_" + "a".repeat(40),
  INVOICE_SELLER_KRA_PIN: "P051234567Q",
};

describe("configuration", () => {
  it("works out of the box for the embedded demo, with sandbox on", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ PORT: 3000, DATA_DIR: "./data", sandbox: true, production: false, APP_URL: "http://localhost:3000" });
  });

  it("separates React's build mode (NODE_ENV) from the deployment's safety checks (DEPLOYMENT)", () => {
    // npm start: React's production build on a laptop, with the demo secrets and the sandbox.
    expect(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local" })).toMatchObject({
      NODE_ENV: "production",
      DEPLOYMENT: "local",
      production: false,
      sandbox: true,
    });
    // A production deployment is the default for NODE_ENV=production, and refuses the demo secrets.
    expect(() => parseEnv({ NODE_ENV: "production" })).toThrow(
      /SESSION_SECRET: refusing to start in production with the demo SESSION_SECRET/,
    );
    // And it can be asked for with a development build too: the checks follow DEPLOYMENT.
    expect(() => parseEnv({ NODE_ENV: "development", DEPLOYMENT: "production" })).toThrow(
      /refusing to start in production with the demo SESSION_SECRET/,
    );
    expect(parseEnv({}).DEPLOYMENT).toBe("local");
    expect(() => parseEnv({ DEPLOYMENT: "staging" })).toThrow(/DEPLOYMENT/);
  });

  it("refuses PgBouncer's transaction pooling without PostgreSQL's direct address, in any deployment", () => {
    const pooler = "postgres://jumbe@127.0.0.1:6432/jumbe";
    expect(parseEnv({}).DATABASE_POOLER).toBe("none");
    expect(() => parseEnv({ DATABASE_URL: pooler, DATABASE_POOLER: "pgbouncer-transaction" })).toThrow(
      /DATABASE_DIRECT_URL: DATABASE_POOLER=pgbouncer-transaction needs DATABASE_DIRECT_URL.*LISTEN/,
    );
    expect(() => parseEnv({ DATABASE_POOLER: "pgbouncer-transaction", DATABASE_DIRECT_URL: "postgres://jumbe@db/jumbe" })).toThrow(
      /DATABASE_POOLER: DATABASE_POOLER=pgbouncer-transaction needs DATABASE_URL/,
    );
    expect(() => parseEnv({ DATABASE_URL: pooler, DATABASE_POOLER: "pgbouncer-session" })).toThrow(/DATABASE_POOLER/);
    // A session setting in the URL would be a startup parameter PgBouncer refuses.
    expect(() =>
      parseEnv({
        DATABASE_URL: `${pooler}?options=-c%20search_path%3Djumbe&statement_timeout=5000`,
        DATABASE_POOLER: "pgbouncer-transaction",
        DATABASE_DIRECT_URL: "postgres://jumbe@db:5432/jumbe",
      }),
    ).toThrow(/DATABASE_URL: DATABASE_URL sends options, statement_timeout at start-up, which PgBouncer refuses/);
    expect(() => parseEnv({ DATABASE_URL: pooler, DATABASE_POOLER: "pgbouncer-transaction", DATABASE_DIRECT_URL: "db:5432" })).toThrow(
      /DATABASE_DIRECT_URL must be a postgres:\/\/ URL/,
    );
    expect(
      parseEnv({ DATABASE_URL: pooler, DATABASE_POOLER: "pgbouncer-transaction", DATABASE_DIRECT_URL: "postgres://jumbe@db:5432/jumbe" }),
    ).toMatchObject({ DATABASE_POOLER: "pgbouncer-transaction", DATABASE_DIRECT_URL: "postgres://jumbe@db:5432/jumbe" });
  });

  it("takes a read replica only beside PostgreSQL, with its maximum lag", () => {
    const primary = "postgres://jumbe@db:5432/jumbe";
    const replica = "postgres://jumbe@standby:5432/jumbe";
    expect(parseEnv({})).toMatchObject({ DATABASE_REPLICA_MAX_LAG_MS: 5000 });
    expect(parseEnv({}).DATABASE_REPLICA_URL).toBeUndefined();
    expect(() => parseEnv({ DATABASE_REPLICA_URL: replica })).toThrow(/DATABASE_REPLICA_URL: DATABASE_REPLICA_URL needs DATABASE_URL/);
    expect(() => parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: "standby:5432" })).toThrow(/must be a postgres:\/\/ URL/);
    expect(() => parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: `${replica}?statement_timeout=100` })).toThrow(
      /DATABASE_REPLICA_URL sends statement_timeout at start-up/,
    );
    expect(() => parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: replica, DATABASE_REPLICA_MAX_LAG_MS: "10" })).toThrow(
      /DATABASE_REPLICA_MAX_LAG_MS/,
    );
    expect(parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: replica, DATABASE_REPLICA_MAX_LAG_MS: "2000" })).toMatchObject({
      DATABASE_REPLICA_URL: replica,
      DATABASE_REPLICA_MAX_LAG_MS: 2000,
    });
  });

  it("turns the sandbox off in production unless SANDBOX=1 on a declared demo host", () => {
    const base = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://mail.example:587", ...META };
    expect(parseEnv(base).sandbox).toBe(false);
    expect(parseEnv({ ...base, SANDBOX: "1", DEMO_HOST: "1", SANDBOX_CONTROL_TOKEN: TOKEN })).toMatchObject({
      sandbox: true,
      demoHost: true,
      SANDBOX_CONTROL_TOKEN: TOKEN,
    });
    expect(parseEnv({ SANDBOX: "0" }).sandbox).toBe(false);
    // DEMO_HOST alone turns nothing on.
    expect(parseEnv({ ...base, DEMO_HOST: "1" }).sandbox).toBe(false);
  });

  it("refuses the sandbox in production unless DEMO_HOST=1 and a control token say it is a demo host", () => {
    const base = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://mail.example:587", ...META };
    expect(() => parseEnv({ ...base, SANDBOX: "1" })).toThrow(
      /SANDBOX: refusing to start in production with SANDBOX=1: the sandbox forges signed Meta webhooks and shows one-time codes. Set DEMO_HOST=1 only on a public demo host/,
    );
    expect(() => parseEnv({ ...base, SANDBOX: "1", DEMO_HOST: "1" })).toThrow(
      /SANDBOX_CONTROL_TOKEN: SANDBOX_CONTROL_TOKEN is required on a demo host/,
    );
    expect(() => parseEnv({ ...base, SANDBOX: "1", DEMO_HOST: "1", SANDBOX_CONTROL_TOKEN: "short" })).toThrow(
      /SANDBOX_CONTROL_TOKEN must be at least 32 characters/,
    );
    // The demo app secret is public: with it anyone could sign webhooks to /webhooks/whatsapp themselves.
    expect(() => parseEnv({ ...base, META_APP_SECRET: undefined, SANDBOX: "1", DEMO_HOST: "1", SANDBOX_CONTROL_TOKEN: TOKEN })).toThrow(
      /META_APP_SECRET: refusing to start in production with the sandbox META_APP_SECRET/,
    );
    // Outside production the sandbox needs neither (the browser tests and `npm start` use it).
    expect(parseEnv({ NODE_ENV: "test" })).toMatchObject({ sandbox: true, demoHost: false });
    expect(parseEnv({ NODE_ENV: "test" }).SANDBOX_CONTROL_TOKEN).toBeUndefined();
    expect(parseEnv({ SANDBOX_CONTROL_TOKEN: TOKEN }).SANDBOX_CONTROL_TOKEN).toBe(TOKEN);
  });

  it("defaults APP_URL to the address HOST serves: localhost for loopback and every interface, else HOST", () => {
    expect(parseEnv({ PORT: "4000" }).APP_URL).toBe("http://localhost:4000");
    expect(parseEnv({ HOST: "0.0.0.0" }).APP_URL).toBe("http://localhost:3000");
    expect(parseEnv({ HOST: "::1" }).APP_URL).toBe("http://localhost:3000");
    expect(parseEnv({ HOST: "192.168.1.20", PORT: "8080" })).toMatchObject({
      APP_URL: "http://192.168.1.20:8080",
      SITE_URL: "http://192.168.1.20:8080",
    });
    expect(parseEnv({ HOST: "fd00::5" }).APP_URL).toBe("http://[fd00::5]:3000");
    expect(parseEnv({ HOST: "192.168.1.20", APP_URL: "https://jumbe.example.co.ke" }).APP_URL).toBe("https://jumbe.example.co.ke");
  });

  it("refuses to start in production on demo secrets or without SMTP_URL", () => {
    expect(() => parseEnv({ NODE_ENV: "production", ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25", ...META })).toThrow(
      /SESSION_SECRET: refusing to start in production with the demo SESSION_SECRET/,
    );
    expect(() => parseEnv({ NODE_ENV: "production", SESSION_SECRET: SECRET, SMTP_URL: "smtp://m:25", ...META })).toThrow(/ENCRYPTION_KEY/);
    expect(() => parseEnv({ NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, ...META })).toThrow(
      /SMTP_URL is required in production/,
    );
  });

  it("explains malformed values", () => {
    expect(() => parseEnv({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL must be a postgres:\/\/ URL/);
    expect(() => parseEnv({ ENCRYPTION_KEY: "short" })).toThrow(/64 hex characters/);
    expect(() => parseEnv({ PORT: "seventy" })).toThrow(/PORT/);
  });

  it("configures the public site: canonical host, sales address and WhatsApp number", () => {
    const defaults = parseEnv({ APP_URL: "https://app.jumbe.co.ke/" });
    expect(defaults).toMatchObject({
      APP_URL: "https://app.jumbe.co.ke",
      SITE_URL: "https://app.jumbe.co.ke",
      SALES_EMAIL: "sales@jumbe.co.ke",
      WHATSAPP_NUMBER: "+254711082000",
    });
    expect(parseEnv({ APP_URL: "https://app.jumbe.co.ke", SITE_URL: "https://jumbe.co.ke/" }).SITE_URL).toBe("https://jumbe.co.ke");
    expect(() => parseEnv({ WHATSAPP_NUMBER: "call us" })).toThrow(/WHATSAPP_NUMBER must be an international number/);
    expect(() => parseEnv({ SALES_EMAIL: "not-an-address" })).toThrow(/SALES_EMAIL/);
  });

  it("configures Meta: the sandbox by default, graph.facebook.com in production, and no sandbox secrets in production", () => {
    expect(parseEnv({ PORT: "4100" })).toMatchObject({
      GRAPH_API_BASE_URL: "http://127.0.0.1:4100/sandbox/meta/graph",
      GRAPH_API_VERSION: "v25.0",
    });
    const production = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25" };
    expect(parseEnv({ ...production, ...META })).toMatchObject({
      GRAPH_API_BASE_URL: "https://graph.facebook.com",
      META_APP_ID: "123456789012345",
    });
    expect(() => parseEnv(production)).toThrow(/META_APP_SECRET: refusing to start in production with the sandbox META_APP_SECRET/);
    expect(() => parseEnv({ ...production, ...META, META_VERIFY_TOKEN: undefined })).toThrow(/META_VERIFY_TOKEN/);
    // A demo host (SANDBOX=1 in production, as the benchmark runs) may keep the sandbox's app id and configuration.
    const demoHost = { ...production, SANDBOX: "1", DEMO_HOST: "1", SANDBOX_CONTROL_TOKEN: TOKEN, META_APP_SECRET: META.META_APP_SECRET };
    expect(parseEnv(demoHost)).toMatchObject({
      META_APP_ID: "100000000000001",
      GRAPH_API_BASE_URL: expect.stringMatching(/sandbox\/meta\/graph$/),
    });
    expect(() => parseEnv({ GRAPH_API_VERSION: "19" })).toThrow(/GRAPH_API_VERSION must look like v25.0/);
    expect(parseEnv({ GRAPH_API_BASE_URL: "http://127.0.0.1:9999/graph/" }).GRAPH_API_BASE_URL).toBe("http://127.0.0.1:9999/graph");
  });
});

describe("integrations configuration", () => {
  it("points at the sandboxes with their apps by default, at HubSpot, Shopify and Google in production, the apps unset", () => {
    expect(parseEnv({ PORT: "4100" })).toMatchObject({
      HUBSPOT_CLIENT_ID: DEMO_HUBSPOT_CLIENT_ID,
      HUBSPOT_AUTH_URL: "http://localhost:4100/sandbox/hubspot",
      HUBSPOT_API_URL: "http://127.0.0.1:4100/sandbox/hubspot",
      SHOPIFY_AUTH_URL: "http://localhost:4100/sandbox/shopify/shops/{shop}",
      SHOPIFY_API_URL: "http://127.0.0.1:4100/sandbox/shopify/shops/{shop}",
      SHOPIFY_API_VERSION: "2025-10",
      GOOGLE_AUTH_URL: "http://localhost:4100/sandbox/google",
      GOOGLE_OAUTH_URL: "http://127.0.0.1:4100/sandbox/google",
      GOOGLE_SHEETS_URL: "http://127.0.0.1:4100/sandbox/google",
    });
    const production = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25", ...META };
    expect(parseEnv(production)).toMatchObject({
      HUBSPOT_CLIENT_ID: undefined,
      HUBSPOT_AUTH_URL: "https://app.hubspot.com",
      HUBSPOT_API_URL: "https://api.hubapi.com",
      SHOPIFY_CLIENT_SECRET: undefined,
      SHOPIFY_API_URL: "https://{shop}",
      GOOGLE_AUTH_URL: "https://accounts.google.com",
      GOOGLE_OAUTH_URL: "https://oauth2.googleapis.com",
      GOOGLE_SHEETS_URL: "https://sheets.googleapis.com",
    });
    expect(() => parseEnv({ ...production, SHOPIFY_CLIENT_SECRET: DEMO_SHOPIFY_CLIENT_SECRET })).toThrow(
      /refusing to start in production with the sandbox SHOPIFY_CLIENT_SECRET/,
    );
    expect(() => parseEnv({ SHOPIFY_API_URL: "https://shops.example/admin" })).toThrow(
      /SHOPIFY_API_URL must be an http\(s\) URL containing \{shop\}/,
    );
  });
});

describe("payments configuration", () => {
  it("uses the local M-Pesa and Paystack sandboxes by default, Safaricom and Paystack in production", () => {
    expect(parseEnv({ PORT: "4100" })).toMatchObject({
      MPESA_BASE_URL: "http://127.0.0.1:4100/sandbox/mpesa",
      MPESA_ENVIRONMENT: "sandbox",
      MPESA_SHORTCODE: "174379",
      MPESA_CALLBACK_BASE_URL: "http://localhost:4100",
      PAYSTACK_BASE_URL: "http://127.0.0.1:4100/sandbox/paystack",
      AFRICASTALKING_BASE_URL: "http://127.0.0.1:4100/sandbox/africastalking",
      mpesaAllowedIps: [],
      bankTransfer: { bank: "NCBA Bank Kenya", accountNumber: "1002345678" },
    });
    const production = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25", ...META };
    expect(parseEnv(production)).toMatchObject({
      MPESA_BASE_URL: "https://api.safaricom.co.ke",
      MPESA_ENVIRONMENT: "production",
      PAYSTACK_BASE_URL: "https://api.paystack.co",
      AFRICASTALKING_BASE_URL: "https://api.africastalking.com",
    });
    expect(parseEnv({ MPESA_ALLOWED_IPS: " 196.201.214.200, 196.201.214.206 " }).mpesaAllowedIps).toEqual([
      "196.201.214.200",
      "196.201.214.206",
    ]);
  });

  it("reaches the organisations' own shortcodes by their environment (MPESA_SHORTCODE_BASE_URLS)", () => {
    expect(parseEnv({ PORT: "4100" }).mpesaShortcodeBaseUrls).toEqual({
      sandbox: "http://127.0.0.1:4100/sandbox/mpesa",
      production: "https://api.safaricom.co.ke",
    });
    const production = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25", ...META };
    expect(parseEnv(production).mpesaShortcodeBaseUrls).toEqual({
      sandbox: "https://sandbox.safaricom.co.ke",
      production: "https://api.safaricom.co.ke",
    });
    expect(parseEnv({ MPESA_SHORTCODE_BASE_URLS: " sandbox = http://127.0.0.1:9/daraja/ " }).mpesaShortcodeBaseUrls).toEqual({
      sandbox: "http://127.0.0.1:9/daraja",
      production: "https://api.safaricom.co.ke",
    });
    expect(() => parseEnv({ MPESA_SHORTCODE_BASE_URLS: "live=https://api.safaricom.co.ke" })).toThrow(/sandbox=<url>,production=<url>/);
    expect(() => parseEnv({ MPESA_SHORTCODE_BASE_URLS: "production=ftp://x" })).toThrow(/MPESA_SHORTCODE_BASE_URLS/);
  });

  it("trusts Safaricom's published callback addresses with the live paybill, loopback with the sandbox, and what MPESA_TRUSTED_IPS says", () => {
    const production = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25", ...META };
    expect(parseEnv(production).mpesaTrustedIps).toEqual(SAFARICOM_CALLBACK_IPS.split(","));
    expect(parseEnv({}).mpesaTrustedIps).toEqual(["127.0.0.1", "::1"]);
    expect(parseEnv({ MPESA_TRUSTED_IPS: " 196.201.214.200, 196.201.213.0/24 ,2001:db8::/32" }).mpesaTrustedIps).toEqual([
      "196.201.214.200",
      "196.201.213.0/24",
      "2001:db8::/32",
    ]);
    // Empty: nobody is believed on the callback's word; every payment waits for the STK query.
    expect(parseEnv({ MPESA_TRUSTED_IPS: "" }).mpesaTrustedIps).toEqual([]);
    for (const wrong of ["safaricom.co.ke", "196.201.214.300", "196.201.213.0/33", "10.0.0.0/8/8"])
      expect(() => parseEnv({ MPESA_TRUSTED_IPS: wrong }), wrong).toThrow(
        /MPESA_TRUSTED_IPS must be comma-separated IP addresses or subnets/,
      );
    // Behind nginx on the same machine, loopback would be everyone.
    expect(() => parseEnv({ ...production, MPESA_TRUSTED_IPS: "196.201.214.200,127.0.0.1" })).toThrow(
      /MPESA_TRUSTED_IPS must not name loopback with the live paybill/,
    );
  });

  it("refuses demo payment credentials, the test paybill, test card keys and plain-http callbacks in production", () => {
    const production = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25", ...META };
    for (const key of ["MPESA_CONSUMER_KEY", "MPESA_CONSUMER_SECRET", "MPESA_PASSKEY", "PAYSTACK_SECRET_KEY", "INVOICE_SELLER_KRA_PIN"])
      expect(() => parseEnv({ ...production, [key]: undefined })).toThrow(
        new RegExp(`${key}: refusing to start in production with the demo ${key}`),
      );
    expect(() => parseEnv({ ...production, MPESA_SHORTCODE: "174379" })).toThrow(/test paybill 174379/);
    expect(() => parseEnv({ ...production, PAYSTACK_SECRET_KEY: "sk_test_" + "b".repeat(20) })).toThrow(/Paystack test key/);
    expect(() => parseEnv({ ...production, MPESA_CALLBACK_BASE_URL: "http://app.jumbe.co.ke" })).toThrow(/must be https/);
    expect(() => parseEnv({ PAYSTACK_SECRET_KEY: "pk_test_x" })).toThrow(/PAYSTACK_SECRET_KEY must be a Paystack secret key/);
    expect(() => parseEnv({ MPESA_SHORTCODE: "12" })).toThrow(/MPESA_SHORTCODE must be the paybill number/);
    expect(() => parseEnv({ BANK_TRANSFER_DETAILS: "NCBA only" })).toThrow(/bank\|branch\|account name\|account number/);
  });

  it("pays partners by M-Pesa with the sandbox's initiator in sandbox mode, and only with real credentials in production", () => {
    expect(parseEnv({}).mpesaB2c).toEqual({ initiatorPassword: SANDBOX_INITIATOR_PASSWORD, certificate: SANDBOX_CREDENTIAL_PUBLIC_KEY });
    const production = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25", ...META };
    // Unset in production: M-Pesa payouts are off (bank transfers only), the server still starts.
    expect(parseEnv(production).mpesaB2c).toBeNull();
    const live = { MPESA_B2C_INITIATOR_PASSWORD: "Live-initiator-1", MPESA_B2C_CERTIFICATE: "/etc/jumbe/safaricom-production.cer" };
    expect(parseEnv({ ...production, ...live }).mpesaB2c).toEqual({
      initiatorPassword: "Live-initiator-1",
      certificate: "/etc/jumbe/safaricom-production.cer",
    });
    expect(() => parseEnv({ ...production, ...live, MPESA_B2C_INITIATOR_PASSWORD: SANDBOX_INITIATOR_PASSWORD })).toThrow(
      /refusing to start in production with the demo MPESA_B2C_INITIATOR_PASSWORD/,
    );
    expect(() => parseEnv({ ...production, ...live, MPESA_B2C_CERTIFICATE: SANDBOX_CREDENTIAL_PUBLIC_KEY })).toThrow(
      /refusing to start in production with the demo MPESA_B2C_CERTIFICATE/,
    );
  });
});

describe("storage configuration", () => {
  const S3 = { STORAGE: "s3", S3_BUCKET: "jumbe-files", S3_ACCESS_KEY_ID: "AKIAJUMBE", S3_SECRET_ACCESS_KEY: "s".repeat(40) };

  it("keeps files in the local folder by default, streamed", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ STORAGE: "local", STORAGE_DOWNLOADS: "stream", S3_REGION: "us-east-1", S3_PRESIGN_SECONDS: 300 });
  });

  it("keeps the SDK's checksums on AWS and only the required ones on another store, unless told", () => {
    expect(parseEnv(S3).s3Checksums).toBe("when_supported");
    expect(parseEnv({ ...S3, S3_ENDPOINT: "http://minio.internal:9000" }).s3Checksums).toBe("when_required");
    expect(parseEnv({ ...S3, S3_ENDPOINT: "https://acc.r2.cloudflarestorage.com", S3_CHECKSUMS: "when_supported" }).s3Checksums).toBe(
      "when_supported",
    );
  });

  it("refuses settings that do not go together, naming the variable", () => {
    expect(() => parseEnv({ STORAGE: "s3" })).toThrow(/S3_BUCKET: S3_BUCKET is required with STORAGE=s3/);
    expect(() => parseEnv({ ...S3, S3_SECRET_ACCESS_KEY: undefined })).toThrow(
      /S3_SECRET_ACCESS_KEY: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together/,
    );
    expect(() => parseEnv({ STORAGE_DOWNLOADS: "redirect" })).toThrow(/STORAGE_DOWNLOADS=redirect needs STORAGE=s3/);
    expect(() => parseEnv({ S3_BUCKET: "jumbe-files" })).toThrow(/S3_BUCKET is set but STORAGE is local/);
    expect(() => parseEnv({ ...S3, S3_BUCKET: "Jumbe_Files" })).toThrow(/S3_BUCKET must be a bucket name/);
    expect(() => parseEnv({ ...S3, S3_PRESIGN_SECONDS: "604801" })).toThrow(/S3_PRESIGN_SECONDS/);
    expect(() => parseEnv({ ...S3, S3_CHECKSUMS: "always" })).toThrow(/S3_CHECKSUMS/);
    expect(parseEnv({ ...S3, STORAGE_DOWNLOADS: "redirect", S3_PRESIGN_SECONDS: "60" })).toMatchObject({
      STORAGE_DOWNLOADS: "redirect",
      S3_PRESIGN_SECONDS: 60,
    });
  });
});

describe("documentation of the configuration", () => {
  it("lists every variable in .env.example and in docs/configuration.md", () => {
    const example = readFileSync(".env.example", "utf8");
    const doc = readFileSync("docs/configuration.md", "utf8");
    expect(ENV_VARIABLES.length).toBeGreaterThan(30);
    expect(ENV_VARIABLES.filter((name) => !new RegExp(`^#? ?${name}=`, "m").test(example))).toEqual([]);
    expect(ENV_VARIABLES.filter((name) => !doc.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
