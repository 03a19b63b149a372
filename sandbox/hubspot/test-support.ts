import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { createHubspotSandbox, type HubspotSandboxOptions } from "./index";
import { keepIdleConnections } from "../test-server";

export const CLIENT_ID = "hubspot-sandbox-tests-client";
export const CLIENT_SECRET = "hubspot-sandbox-tests-secret";
export const REDIRECT_URI = "http://127.0.0.1:9/integrations/hubspot/callback";
export const SCOPES = "oauth crm.objects.contacts.read crm.objects.contacts.write crm.lists.read crm.schemas.contacts.write";
/** The seeded portal with contacts and a list, and the empty one. */
export const DUKA_HUB_ID = 14500001;
export const PWANI_HUB_ID = 14500002;

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  json: T;
}

export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
}

/** The sandbox on a throwaway Express app on a free loopback port. */
export async function startHubspot(overrides: Partial<HubspotSandboxOptions> = {}) {
  const sandbox = createHubspotSandbox({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...overrides });
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "test-nonce";
    next();
  });
  app.use("/sandbox/hubspot", sandbox.router);
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = `${origin}/sandbox/hubspot`;

  async function answer<T>(response: Response): Promise<Answer<T>> {
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: (text ? JSON.parse(text) : {}) as T };
  }

  /** A form post as a browser without JavaScript sends it; redirects are not followed. */
  const postForm = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });

  /** The install page's form for a portal: answers the redirect's URL (code and state, or error). */
  async function authorize(hubId = DUKA_HUB_ID, decision = "allow", state = "state-123", scope = SCOPES) {
    const response = await postForm("/oauth/authorize", {
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope,
      state,
      hub_id: String(hubId),
      decision,
    });
    if (response.status !== 303) throw new Error(`authorize answered ${response.status}`);
    return new URL(response.headers.get("location")!);
  }

  const token = async (fields: Record<string, string>) =>
    answer<TokenAnswer & { status?: string; message?: string }>(await postForm("/oauth/v1/token", fields));

  /** The whole install: the page's form, then the code exchanged for tokens. */
  async function connect(hubId = DUKA_HUB_ID, scope = SCOPES): Promise<TokenAnswer> {
    const code = (await authorize(hubId, "allow", "state-123", scope)).searchParams.get("code")!;
    const tokens = await token({
      grant_type: "authorization_code",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: REDIRECT_URI,
      code,
    });
    if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.json)}`);
    return tokens.json;
  }

  /** A CRM call with an access token; an object body is sent as JSON. */
  async function api<T = Record<string, unknown>>(
    path: string,
    accessToken: string | null,
    init: { method?: string; body?: unknown } = {},
  ) {
    const headers = new Headers();
    if (accessToken !== null) headers.set("Authorization", `Bearer ${accessToken}`);
    if (init.body !== undefined) headers.set("Content-Type", "application/json");
    const body = init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
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
    authorize,
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

export type HubspotHarness = Awaited<ReturnType<typeof startHubspot>>;
