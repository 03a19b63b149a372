import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerBuild } from "react-router";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import {
  a1Range,
  googleConsentUrl,
  GoogleError,
  googleSheetsClient,
  withGoogleToken,
  type GoogleTokens,
} from "~/.server/infrastructure/clients/google-sheets";
import { createApp } from "../../server";
import { createGoogleSandbox, type GoogleSandbox } from "@jumbe/sandbox/google/index";

// Jumbe's Google Sheets client against the sandbox inside Jumbe's own Express app.
const OWNER = "owner@dukabora.co.ke";
let server: Server;
let sandbox: GoogleSandbox;
let origin: string;
const before = env();

beforeAll(async () => {
  setEnv(parseEnv({ ...process.env, NODE_ENV: "test", SANDBOX: "1" }));
  sandbox = createGoogleSandbox({ clientId: env().GOOGLE_CLIENT_ID!, clientSecret: env().GOOGLE_CLIENT_SECRET!, slowMs: 5_000 });
  const noPages = async (): Promise<ServerBuild> => {
    throw new Error("no React Router pages in this test");
  };
  server = createApp(noPages, { googleSandbox: sandbox }).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const google = `${origin}/sandbox/google`;
  setEnv({ ...env(), APP_URL: origin, GOOGLE_AUTH_URL: google, GOOGLE_OAUTH_URL: google, GOOGLE_SHEETS_URL: google });
});

afterAll(async () => {
  await sandbox?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  setEnv(before);
});

/** The consent as a browser without JavaScript gives it, then the code exchanged. */
async function connect(): Promise<GoogleTokens & { refreshToken: string }> {
  const redirectUri = `${origin}/integrations/google/callback`;
  const page = await fetch(googleConsentUrl({ redirectUri, state: "g-1", loginHint: OWNER }));
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]),
  );
  const posted = await fetch(`${origin}${action}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...hidden, account: OWNER, decision: "allow" }).toString(),
    redirect: "manual",
  });
  const back = new URL(posted.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe("g-1");
  const tokens = await googleSheetsClient().exchangeCode(back.searchParams.get("code")!, redirectUri);
  expect(tokens.refreshToken).toBeTruthy();
  return tokens as GoogleTokens & { refreshToken: string };
}

describe("Jumbe's Google Sheets client against the mounted sandbox", () => {
  it("connects with offline access: an hour's token, a refresh token and the drive.file scope", async () => {
    const before = Date.now();
    const tokens = await connect();
    // expires_in is 3599 s from the answer, which came between these two instants.
    expect(tokens.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 3_599_000);
    expect(tokens.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 3_599_000);
    expect(tokens.scopes).toEqual(["https://www.googleapis.com/auth/drive.file", "openid", "email"]);
    // tokeninfo names the account (the connection's label) by its e-mail; the token is posted in a
    // form, never put in the URL (issue 73).
    const sent = vi.spyOn(globalThis, "fetch");
    const info = await googleSheetsClient().tokenInfo(tokens.accessToken);
    const [url, init] = sent.mock.calls.find(([u]) => String(u).includes("/tokeninfo"))!;
    sent.mockRestore();
    expect(String(url)).toBe(`${origin}/sandbox/google/tokeninfo`);
    expect(init).toMatchObject({ method: "POST", body: `access_token=${encodeURIComponent(tokens.accessToken)}` });
    expect(info.email).toBe(OWNER);
    expect(info.sub).toMatch(/^\d{21}$/);
  });

  it("checks PKCE: the code needs the verifier whose S256 challenge the consent URL carried", async () => {
    const redirectUri = `${origin}/integrations/google/callback`;
    const verifier = "v".repeat(43) + "erifier-for-the-sandbox-test";
    const { createHash } = await import("node:crypto");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const consent = new URL(googleConsentUrl({ redirectUri, state: "p-1", codeChallenge: challenge }));
    expect(consent.searchParams.get("code_challenge_method")).toBe("S256");
    const code = async () => {
      const posted = await fetch(`${origin}/sandbox/google/o/oauth2/v2/auth`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...Object.fromEntries(consent.searchParams), account: OWNER, decision: "allow" }).toString(),
        redirect: "manual",
      });
      return new URL(posted.headers.get("location")!).searchParams.get("code")!;
    };
    await expect(googleSheetsClient().exchangeCode(await code(), redirectUri, "not-the-verifier".padEnd(43, "x"))).rejects.toMatchObject({
      kind: "revoked",
    });
    await expect(googleSheetsClient().exchangeCode(await code(), redirectUri)).rejects.toBeInstanceOf(GoogleError);
    const tokens = await googleSheetsClient().exchangeCode(await code(), redirectUri, verifier);
    expect(tokens.refreshToken).toBeTruthy();
  });

  it("creates a sheet, appends rows and reads them back", async () => {
    const client = googleSheetsClient();
    const { accessToken } = await connect();
    const sheet = await client.createSpreadsheet(accessToken, "Jumbe contacts", "Kenya customers");
    expect(sheet.sheets).toEqual(["Kenya customers"]);
    const range = a1Range("Kenya customers", "A:C");
    await client.appendValues(accessToken, sheet.spreadsheetId, range, [["Name", "Phone", "Opted in"]]);
    const appended = await client.appendValues(accessToken, sheet.spreadsheetId, range, [
      ["Wanjiku", "0712 345 678", true],
      ["Otieno", "+254722000111", false],
    ]);
    expect(appended).toMatchObject({ updatedRange: "'Kenya customers'!A2:C3", updatedRows: 2, tableRange: "'Kenya customers'!A1:C1" });
    const read = await client.getValues(accessToken, sheet.spreadsheetId, range);
    expect(read.values).toEqual([
      ["Name", "Phone", "Opted in"],
      ["Wanjiku", "0712 345 678", "TRUE"],
      ["Otieno", "+254722000111", "FALSE"],
    ]);
  });

  it("reads contacts a test put in a sheet the user opened with the app", async () => {
    const client = googleSheetsClient();
    const { accessToken } = await connect();
    const made = sandbox.createSpreadsheet({
      title: "To import",
      appAccess: true,
      values: [
        ["Name", "Phone"],
        ["Amina", "0712345678"],
      ],
    });
    expect((await client.getValues(accessToken, made.spreadsheetId, "Sheet1!A2:B")).values).toEqual([["Amina", "0712345678"]]);
    const closed = sandbox.createSpreadsheet({ title: "Not shared" });
    expect(await client.getValues(accessToken, closed.spreadsheetId, "A1").catch((e: unknown) => e)).toMatchObject({
      kind: "not_found",
      status: "NOT_FOUND",
    });
  });

  it("refreshes after a 401 and keeps the refresh token; a revoked grant asks to connect again", async () => {
    const client = googleSheetsClient();
    const tokens = await connect();
    sandbox.expireTokens(OWNER);
    const refused = await client.createSpreadsheet(tokens.accessToken, "x").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GoogleError);
    expect(refused).toMatchObject({ kind: "expired_token", httpStatus: 401, status: "UNAUTHENTICATED" });
    const saved: GoogleTokens[] = [];
    const made = await withGoogleToken(
      client,
      tokens,
      async (next) => void saved.push(next),
      (token) => client.createSpreadsheet(token, "After refresh"),
    );
    expect(made.spreadsheetId).toBeTruthy();
    expect(saved[0]).toMatchObject({ refreshToken: tokens.refreshToken });
    await client.revoke(tokens.refreshToken);
    expect(await client.refresh(tokens.refreshToken).catch((e: unknown) => e)).toMatchObject({ kind: "revoked", status: "invalid_grant" });
  });

  it("reads Google's 429, 5xx and a slow answer", async () => {
    const client = googleSheetsClient();
    const { accessToken } = await connect();
    expect(await client.createSpreadsheet(accessToken, "magic-429").catch((e: unknown) => e)).toMatchObject({
      kind: "rate_limited",
      status: "RESOURCE_EXHAUSTED",
      retryAfterMs: 60_000,
    });
    expect(await client.createSpreadsheet(accessToken, "magic-500").catch((e: unknown) => e)).toMatchObject({
      kind: "server",
      status: "INTERNAL",
    });
    expect(
      await googleSheetsClient({ timeoutMs: 200 })
        .createSpreadsheet(accessToken, "magic-slow")
        .catch((e: unknown) => e),
    ).toMatchObject({ kind: "timeout" });
  });
});
