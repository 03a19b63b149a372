import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

const SECRET = "x".repeat(40);
const KEY = "ab".repeat(32);

describe("configuration", () => {
  it("works out of the box for the embedded demo, with sandbox on", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ PORT: 3000, DATA_DIR: "./data", sandbox: true, production: false, APP_URL: "http://localhost:3000" });
  });

  it("turns the sandbox off in production unless SANDBOX=1", () => {
    const base = { NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://mail.example:587" };
    expect(parseEnv(base).sandbox).toBe(false);
    expect(parseEnv({ ...base, SANDBOX: "1" }).sandbox).toBe(true);
    expect(parseEnv({ SANDBOX: "0" }).sandbox).toBe(false);
  });

  it("refuses to start in production on demo secrets or without SMTP_URL", () => {
    expect(() => parseEnv({ NODE_ENV: "production", ENCRYPTION_KEY: KEY, SMTP_URL: "smtp://m:25" })).toThrow(/SESSION_SECRET: refusing to start in production with the demo SESSION_SECRET/);
    expect(() => parseEnv({ NODE_ENV: "production", SESSION_SECRET: SECRET, SMTP_URL: "smtp://m:25" })).toThrow(/ENCRYPTION_KEY/);
    expect(() => parseEnv({ NODE_ENV: "production", SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY })).toThrow(/SMTP_URL is required in production/);
  });

  it("explains malformed values", () => {
    expect(() => parseEnv({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL must be a postgres:\/\/ URL/);
    expect(() => parseEnv({ ENCRYPTION_KEY: "short" })).toThrow(/64 hex characters/);
    expect(() => parseEnv({ PORT: "seventy" })).toThrow(/PORT/);
  });

  it("configures the public site: canonical host, sales address and WhatsApp number", () => {
    const defaults = parseEnv({ APP_URL: "https://app.jumbe.co.ke/" });
    expect(defaults).toMatchObject({ APP_URL: "https://app.jumbe.co.ke", SITE_URL: "https://app.jumbe.co.ke", SALES_EMAIL: "sales@jumbe.co.ke", WHATSAPP_NUMBER: "+254711082000" });
    expect(parseEnv({ APP_URL: "https://app.jumbe.co.ke", SITE_URL: "https://jumbe.co.ke/" }).SITE_URL).toBe("https://jumbe.co.ke");
    expect(() => parseEnv({ WHATSAPP_NUMBER: "call us" })).toThrow(/WHATSAPP_NUMBER must be an international number/);
    expect(() => parseEnv({ SALES_EMAIL: "not-an-address" })).toThrow(/SALES_EMAIL/);
  });
});
