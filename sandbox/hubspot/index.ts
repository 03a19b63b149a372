import { Router } from "express";
import { sandboxGate } from "../access";
import { CallLog, type CallRecord } from "../call-log";
import { FaultQueue, SlowAnswers, type Fault } from "../faults";
import { OAuthGrants } from "../oauth-grants";
import { apiRouter } from "./api";
import { consoleRouter } from "./console";
import type { HubspotContext, ResolvedOptions } from "./context";
import { controlRouter, expireTokens } from "./control";
import { oauthRouter } from "./oauth";
import { RollingLimiter, type RateLimit } from "./rate-limit";
import { DEMO_OWNER, HubspotState, type Contact } from "./state";
import { DEMO_HUBSPOT_PORTAL, demoHubspotTokens } from "../demo-grants";

export { KNOWN_SCOPES } from "./oauth";
export { SEARCH_LIMITS, OPERATORS } from "./search";
export { MAGIC_VALUES, type Fault } from "../faults";

export interface HubspotSandboxOptions {
  /** The app's client id and secret (HUBSPOT_CLIENT_ID, HUBSPOT_CLIENT_SECRET). */
  clientId: string;
  clientSecret: string;
  /** Where the router is mounted. Default "/sandbox/hubspot". */
  publicPath?: string;
  /** SANDBOX_CONTROL_TOKEN: the console and control API ask for it when set (sandbox/access.ts). */
  controlToken?: string;
  secureCookie?: boolean;
  /** DATA_DIR/sandbox/hubspot.json: portals, contacts and tokens survive a restart. Unset: memory only. */
  statePath?: string;
  /** Access tokens' lifetime. Default 30 minutes, as HubSpot's. */
  accessTokenTtlMs?: number;
  /** Default 100 calls per 10 000 ms per app and portal. */
  rateLimit?: RateLimit;
  /** How long a `magic-slow` answer waits. Default 30 s. */
  slowMs?: number;
  /** The demo business's install (sandbox/demo-grants.ts): its account and tokens, adopted at start. */
  demo?: boolean;
  now?: () => number;
}

export interface HubspotSandbox {
  router: Router;
  close(): Promise<void>;
  /** The access tokens of a portal expire now; answers how many. */
  expireTokens(hubId: number): number;
  /** The next API calls answer this fault. */
  queueFault(fault: Fault, times?: number): void;
  contacts(hubId: number): Contact[];
  calls(): CallRecord[];
  reset(): void;
}

function resolveOptions(input: HubspotSandboxOptions): ResolvedOptions {
  if (!input?.clientId || !input.clientSecret) throw new Error("createHubspotSandbox: clientId and clientSecret are required.");
  const publicPath = (input.publicPath ?? "/sandbox/hubspot").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createHubspotSandbox: publicPath must start with "/".');
  const accessTtlMs = input.accessTokenTtlMs ?? 30 * 60_000;
  const rateLimit = input.rateLimit ?? { max: 100, intervalMs: 10_000 };
  if (!(accessTtlMs > 0)) throw new Error("createHubspotSandbox: accessTokenTtlMs must be more than 0.");
  if (!(rateLimit.max >= 1 && rateLimit.intervalMs >= 1))
    throw new Error("createHubspotSandbox: rateLimit needs max and intervalMs of 1 or more.");
  const appId = 2_000_000 + Array.from(input.clientId).reduce((n, c) => (n * 31 + c.charCodeAt(0)) % 1_000_000, 7);
  return {
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    appId,
    publicPath,
    accessTtlMs,
    rateLimit,
    slowMs: input.slowMs ?? 30_000,
    now: input.now ?? Date.now,
  };
}

/**
 * A local stand-in for HubSpot as a CRM integration sees it: the OAuth install (test portals, codes,
 * 30-minute access tokens, refresh tokens), CRM v3 contacts, search, lists and WhatsApp
 * communications, the burst rate limit with HubSpot's headers and 429 body, magic values and queued
 * faults, a JSON control API for tests and a console. State is kept in `statePath` when given.
 */
export function createHubspotSandbox(input: HubspotSandboxOptions): HubspotSandbox {
  const options = resolveOptions(input);
  const grants = new OAuthGrants({
    prefixes: { code: "hs-code-", access: "hs-at-", refresh: "hs-rt-" },
    accessTtlMs: options.accessTtlMs,
    now: options.now,
  });
  const ctx: HubspotContext = {
    options,
    state: new HubspotState(grants, options.now, input.statePath),
    faults: new FaultQueue(),
    slow: new SlowAnswers(options.slowMs),
    limiter: new RollingLimiter(options.rateLimit, options.now),
    calls: new CallLog(options.now),
  };

  if (input.demo) {
    // The demo's portal (empty: the demo's contacts fill it on the first sync) and its refresh token.
    // The demo tenant's own: offered to no other caller on the install page (issue 74), also in a state file written before.
    if (!ctx.state.portal(DEMO_HUBSPOT_PORTAL.hubId)) ctx.state.portals.set(DEMO_HUBSPOT_PORTAL.hubId, { ...DEMO_HUBSPOT_PORTAL });
    ctx.state.portal(DEMO_HUBSPOT_PORTAL.hubId)!.owner = DEMO_OWNER;
    const { refreshToken } = demoHubspotTokens(options.clientId);
    // The scopes Jumbe asks for (its HUBSPOT_SCOPES); the portal starts with HubSpot's own properties
    // only: Jumbe's are made by Jumbe's first sync, as on a real portal (decision 107).
    const scopes = ["oauth", "crm.objects.contacts.read", "crm.objects.contacts.write", "crm.lists.read", "crm.schemas.contacts.write"];
    ctx.state.grants.adopt({ account: String(DEMO_HUBSPOT_PORTAL.hubId), clientId: options.clientId, scopes }, { refreshToken });
    ctx.state.changed();
  }

  const router = Router({ caseSensitive: true });
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/token`,
    home: options.publicPath,
  });
  // OAuth and the CRM API are HubSpot's own (the app's credentials, a user's consent): not gated.
  router.use(apiRouter(ctx));
  router.use(oauthRouter(ctx));
  router.post("/token", ...gate.login);
  router.use("/control", gate.json, controlRouter(ctx));
  router.use(gate.page, consoleRouter(ctx));

  return {
    router,
    async close() {
      ctx.slow.close();
      ctx.state.close();
    },
    expireTokens: (hubId) => expireTokens(ctx, hubId),
    queueFault: (fault, times = 1) => ctx.faults.add(fault, times),
    contacts: (hubId) => ctx.state.contactsOf(hubId),
    calls: () => ctx.calls.list(),
    reset() {
      ctx.state.reset();
      ctx.faults.clear();
      ctx.calls.reset();
      ctx.limiter.reset();
    },
  };
}
