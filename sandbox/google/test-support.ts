import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { createGoogleSandbox, DRIVE_FILE_SCOPE, type GoogleSandboxOptions } from "./index";
import { keepIdleConnections } from "../test-server";

export const CLIENT_ID = "100000000001-sandboxtests.apps.googleusercontent.com";
export const CLIENT_SECRET = "GOCSPX-sandbox-tests-secret";
export const REDIRECT_URI = "http://127.0.0.1:9/integrations/google/callback";
export const OWNER = "owner@dukabora.co.ke";

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  json: T;
}

export interface GoogleTokens {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

/**
 * The sandbox on a throwaway Express app on a free loopback port. `apiAtRoot`: the Sheets API also at
 * the origin's root (`/v4/...`), as `googleapis` needs: its `rootUrl` keeps only an origin.
 */
export async function startGoogle(overrides: Partial<GoogleSandboxOptions> = {}, { apiAtRoot = false } = {}) {
  const sandbox = createGoogleSandbox({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...overrides });
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "test-nonce";
    next();
  });
  app.use("/sandbox/google", sandbox.router);
  if (apiAtRoot) app.use("/v4", (req, res, next) => sandbox.router(Object.assign(req, { url: `/v4${req.url}` }), res, next));
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = `${origin}/sandbox/google`;

  async function answer<T>(response: Response): Promise<Answer<T>> {
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: (text ? JSON.parse(text) : {}) as T };
  }

  const postForm = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });

  /** The consent form as a browser without JavaScript posts it: answers the redirect's URL. */
  async function consent(fields: Record<string, string> = {}) {
    const response = await postForm("/o/oauth2/v2/auth", {
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      response_type: "code",
      scope: DRIVE_FILE_SCOPE,
      access_type: "offline",
      prompt: "consent",
      state: "st-1",
      account: OWNER,
      decision: "allow",
      ...fields,
    });
    if (response.status !== 303) throw new Error(`consent answered ${response.status}`);
    return new URL(response.headers.get("location")!);
  }

  const token = async (fields: Record<string, string>) =>
    answer<GoogleTokens & { error?: string; error_description?: string }>(await postForm("/token", fields));

  async function connect(): Promise<GoogleTokens> {
    const code = (await consent()).searchParams.get("code")!;
    const tokens = await token({
      grant_type: "authorization_code",
      code,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: REDIRECT_URI,
    });
    if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.json)}`);
    return tokens.json;
  }

  async function api<T = Record<string, unknown>>(
    path: string,
    accessToken: string | null,
    init: { method?: string; body?: unknown } = {},
  ) {
    const headers = new Headers();
    if (accessToken !== null) headers.set("Authorization", `Bearer ${accessToken}`);
    if (init.body !== undefined) headers.set("Content-Type", "application/json");
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return answer<T>(await fetch(`${base}${path}`, { method: init.method ?? (body ? "POST" : "GET"), headers, body }));
  }

  async function control<T = Record<string, unknown>>(path: string, init: { method?: string; body?: unknown } = {}) {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return answer<T>(
      await fetch(`${base}/control${path}`, {
        method: init.method ?? (body ? "POST" : "GET"),
        headers: body ? { "Content-Type": "application/json" } : {},
        body,
      }),
    );
  }

  return {
    sandbox,
    origin,
    base,
    postForm,
    consent,
    token,
    connect,
    api,
    control,
    async close() {
      await sandbox.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type GoogleHarness = Awaited<ReturnType<typeof startGoogle>>;
