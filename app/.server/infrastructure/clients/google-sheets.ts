import { env } from "~/.server/infrastructure/config/env";
import {
  callOutside,
  isObject,
  OutsideServiceError,
  retryAfterMs,
  stringOr,
  type OutsideAnswer,
  type OutsideFailure,
} from "./outside-call";

/**
 * Jumbe's client for Google Sheets (issue 45): Google's OAuth 2 for a web server app (consent URL
 * with offline access, code exchange, refresh, revoke) and the Sheets API v4 calls the integration
 * makes (create a spreadsheet, read a range, append rows). Google's three hosts are
 * GOOGLE_AUTH_URL, GOOGLE_OAUTH_URL and GOOGLE_SHEETS_URL; in sandbox mode all three are the local
 * stand-in (sandbox/google).
 */

/** Per-file access, non-sensitive: only spreadsheets Jumbe made or the user opened with it. */
export const GOOGLE_SHEETS_SCOPE = "https://www.googleapis.com/auth/drive.file";
/** Asked beside it so tokeninfo names the account (its e-mail): the connection's label. */
export const GOOGLE_IDENTITY_SCOPES = ["openid", "email"];
export const GOOGLE_REFRESH_MARGIN_MS = 60_000;
/** Sheets quotas are per minute: a 429 without Retry-After waits this long. */
const DEFAULT_RETRY_MS = 60_000;

/** Google's failure, with its `status` (`UNAUTHENTICATED`, `RESOURCE_EXHAUSTED`, …) or OAuth `error`. */
export class GoogleError extends OutsideServiceError {
  readonly status?: string;
  constructor(
    kind: OutsideFailure,
    httpStatus: number,
    message: string,
    extra: { status?: string; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super("Google", kind, httpStatus, message, extra);
    this.name = "GoogleError";
    if (extra.status) this.status = extra.status;
  }
}

export interface GoogleConfig {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  oauthUrl: string;
  sheetsUrl: string;
  timeoutMs: number;
}

export interface GoogleTokens {
  accessToken: string;
  /** Only with offline access on a consent; keep the one you have when a refresh answers none. */
  refreshToken?: string;
  expiresAt: Date;
  scopes: string[];
}

export type CellValue = string | number | boolean;

function configOf(given: Partial<GoogleConfig>): GoogleConfig {
  const settings = env();
  const clientId = given.clientId ?? settings.GOOGLE_CLIENT_ID;
  const clientSecret = given.clientSecret ?? settings.GOOGLE_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new GoogleError("refused", 0, "Google is not configured: set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET");
  const trim = (url: string) => url.replace(/\/+$/, "");
  return {
    clientId,
    clientSecret,
    authUrl: trim(given.authUrl ?? settings.GOOGLE_AUTH_URL),
    oauthUrl: trim(given.oauthUrl ?? settings.GOOGLE_OAUTH_URL),
    sheetsUrl: trim(given.sheetsUrl ?? settings.GOOGLE_SHEETS_URL),
    timeoutMs: given.timeoutMs ?? settings.GOOGLE_TIMEOUT_MS,
  };
}

async function call(
  config: GoogleConfig,
  what: string,
  url: string,
  init: { method: "GET" | "POST" | "PUT"; token?: string; body?: unknown },
) {
  try {
    return await callOutside("Google", url, {
      method: init.method,
      headers: init.token ? { Authorization: `Bearer ${init.token}` } : {},
      body: init.body,
      timeoutMs: config.timeoutMs,
    });
  } catch (error) {
    if (error instanceof OutsideServiceError)
      throw new GoogleError(error.kind, error.httpStatus, `Google ${what}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The Sheets API's `{error: {code, message, status}}` as a GoogleError. */
function apiFailure(answer: OutsideAnswer, what: string) {
  const error = isObject(answer.json) && isObject(answer.json.error) ? answer.json.error : {};
  const status = stringOr(error.status, undefined);
  const message = `Google ${what}: ${stringOr(error.message, `HTTP ${answer.status}`)}`;
  const code = answer.status;
  if (code === 429)
    return new GoogleError("rate_limited", code, message, { status, retryAfterMs: retryAfterMs(answer.headers, DEFAULT_RETRY_MS) });
  const kind: OutsideFailure =
    code === 401 ? "expired_token" : code === 403 ? "forbidden" : code === 404 ? "not_found" : code >= 500 ? "server" : "refused";
  return new GoogleError(kind, code, message, { status });
}

/** The token endpoint's `{error, error_description}`: `invalid_grant` means the grant is gone. */
function tokenFailure(answer: OutsideAnswer, what: string) {
  const body = isObject(answer.json) ? answer.json : {};
  const error = stringOr(body.error, "");
  const message = `Google ${what}: ${error || `HTTP ${answer.status}`}${body.error_description ? ` (${String(body.error_description)})` : ""}`;
  if (error === "invalid_grant") return new GoogleError("revoked", answer.status, message, { status: error });
  if (answer.status >= 500) return new GoogleError("server", answer.status, message);
  if (answer.status === 429)
    return new GoogleError("rate_limited", 429, message, { retryAfterMs: retryAfterMs(answer.headers, DEFAULT_RETRY_MS) });
  return new GoogleError("refused", answer.status, message, { status: error || undefined });
}

function tokensFrom(json: Record<string, unknown>, now: number): GoogleTokens {
  const accessToken = stringOr(json.access_token, "");
  const expiresIn = Number(json.expires_in);
  if (!accessToken || !Number.isFinite(expiresIn))
    throw new GoogleError("malformed", 200, "Google answered a token without access_token or expires_in");
  const refreshToken = stringOr(json.refresh_token, undefined);
  return {
    accessToken,
    ...(refreshToken ? { refreshToken } : {}),
    expiresAt: new Date(now + expiresIn * 1000),
    scopes: stringOr(json.scope, "").split(" ").filter(Boolean),
  };
}

/** A Spreadsheet resource's id, title, link and sheet titles. */
function spreadsheetOf(json: Record<string, unknown>) {
  const spreadsheetId = stringOr(json.spreadsheetId, "");
  if (!spreadsheetId) throw new GoogleError("malformed", 200, "Google answered a spreadsheet without spreadsheetId");
  const sheetList = (Array.isArray(json.sheets) ? json.sheets : [])
    .map((s) => (isObject(s) && isObject(s.properties) ? stringOr(s.properties.title, "") : ""))
    .filter(Boolean);
  const title = isObject(json.properties) ? stringOr(json.properties.title, "") : "";
  return { spreadsheetId, title, url: stringOr(json.spreadsheetUrl, ""), sheets: sheetList };
}

/** The A1 range with its sheet quoted when it needs to be: `'Kenya customers'!A:C`. */
export function a1Range(sheetTitle: string, cells?: string) {
  const sheet = /^[A-Za-z_][A-Za-z0-9_]*$/.test(sheetTitle) ? sheetTitle : `'${sheetTitle.replace(/'/g, "''")}'`;
  return cells ? `${sheet}!${cells}` : sheet;
}

/** Google's consent page for Sheets: offline access and a fresh consent, so a refresh token comes back. */
export function googleConsentUrl(
  input: { redirectUri: string; state: string; loginHint?: string; codeChallenge?: string; sandboxUser?: string },
  given: Partial<GoogleConfig> = {},
) {
  const config = configOf(given);
  const query = new URLSearchParams({
    client_id: config.clientId,
    redirect_uri: input.redirectUri,
    response_type: "code",
    scope: [GOOGLE_SHEETS_SCOPE, ...GOOGLE_IDENTITY_SCOPES].join(" "),
    access_type: "offline",
    prompt: "consent",
    include_granted_scopes: "true",
    state: input.state,
    ...(input.loginHint ? { login_hint: input.loginHint } : {}),
    ...(input.codeChallenge ? { code_challenge: input.codeChallenge, code_challenge_method: "S256" } : {}),
    // Sandbox mode only: whose test accounts the sandbox's consent page offers (Google's own has none).
    ...(input.sandboxUser ? { sandbox_user: input.sandboxUser } : {}),
  });
  return `${config.authUrl}/o/oauth2/v2/auth?${query}`;
}

/** Google's OAuth for the install: the code exchanged, tokens looked into, refreshed, revoked. */
function googleOauth(given: Partial<GoogleConfig>) {
  const token = async (what: string, fields: Record<string, string>) => {
    const config = configOf(given);
    const answer = await call(config, what, `${config.oauthUrl}/token`, {
      method: "POST",
      body: new URLSearchParams({ client_id: config.clientId, client_secret: config.clientSecret, ...fields }),
    });
    if (answer.status !== 200 || !isObject(answer.json)) throw tokenFailure(answer, what);
    return tokensFrom(answer.json, Date.now());
  };
  return {
    /** The callback's code for tokens; with PKCE, the verifier whose challenge the consent URL sent. */
    exchangeCode: (code: string, redirectUri: string, codeVerifier?: string) =>
      token("code exchange", {
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
      }),

    /**
     * Whose access token this is: Google's subject and, with the `email` scope, the account's e-mail.
     * The token is posted in a form, never put in a URL (where proxies and logs keep it).
     */
    async tokenInfo(accessToken: string) {
      const config = configOf(given);
      const answer = await call(config, "token info", `${config.oauthUrl}/tokeninfo`, {
        method: "POST",
        body: new URLSearchParams({ access_token: accessToken }),
      });
      if (answer.status !== 200 || !isObject(answer.json)) throw tokenFailure(answer, "token info");
      const sub = stringOr(answer.json.sub, "");
      if (!sub) throw new GoogleError("malformed", 200, "Google answered token info without sub");
      return { sub, email: stringOr(answer.json.email, undefined) };
    },

    /** A new access token (Google keeps the refresh token: the answer has none). `revoked`: connect again. */
    refresh: (refreshToken: string) => token("token refresh", { grant_type: "refresh_token", refresh_token: refreshToken }),

    /** Revokes a token and the grant it belongs to (on disconnect); one already gone is fine. */
    async revoke(anyToken: string) {
      const config = configOf(given);
      const answer = await call(config, "revoke", `${config.oauthUrl}/revoke`, {
        method: "POST",
        body: new URLSearchParams({ token: anyToken }),
      });
      if (answer.status !== 200 && !(answer.status === 400 && isObject(answer.json) && answer.json.error === "invalid_token"))
        throw tokenFailure(answer, "revoke");
    },
  };
}

/** The Sheets API: a spreadsheet created and read, its values read, written and appended. */
function sheetsCalls(given: Partial<GoogleConfig>) {
  const sheets = async (what: string, accessToken: string, path: string, method: "GET" | "POST" | "PUT", body?: unknown) => {
    const config = configOf(given);
    const answer = await call(config, what, `${config.sheetsUrl}${path}`, { method, token: accessToken, body });
    if (answer.status !== 200 || !isObject(answer.json)) throw apiFailure(answer, what);
    return answer.json;
  };
  const valuesPath = (spreadsheetId: string, range: string) =>
    `/v4/spreadsheets/${encodeURIComponent(spreadsheetId)}/values/${encodeURIComponent(range)}`;

  return {
    /** A new spreadsheet in the user's Drive with these sheets (tabs), in order. */
    async createSpreadsheet(accessToken: string, title: string, sheetTitles: string | string[] = "Sheet1") {
      const titles = Array.isArray(sheetTitles) ? sheetTitles : [sheetTitles];
      const json = await sheets("spreadsheet create", accessToken, "/v4/spreadsheets", "POST", {
        properties: { title },
        sheets: titles.map((sheetTitle) => ({ properties: { title: sheetTitle } })),
      });
      return spreadsheetOf(json);
    },

    /** A spreadsheet's title, link and sheets (tabs), for one the user names by id. */
    async getSpreadsheet(accessToken: string, spreadsheetId: string) {
      const json = await sheets(
        "spreadsheet read",
        accessToken,
        `/v4/spreadsheets/${encodeURIComponent(spreadsheetId)}?fields=${encodeURIComponent("spreadsheetId,properties.title,spreadsheetUrl,sheets.properties")}`,
        "GET",
      );
      return spreadsheetOf(json);
    },

    /** A range's values as the sheet shows them (strings); trailing empty cells and rows left out. */
    async getValues(accessToken: string, spreadsheetId: string, range: string) {
      const json = await sheets("values read", accessToken, valuesPath(spreadsheetId, range), "GET");
      const rows = Array.isArray(json.values) ? json.values : [];
      return {
        range: stringOr(json.range, range),
        values: rows.map((row) => (Array.isArray(row) ? row.map((cell) => (typeof cell === "string" ? cell : String(cell))) : [])),
      };
    },

    /** Writes rows at `range` (its top-left cell), RAW: as given. Answers the range written. */
    async updateValues(accessToken: string, spreadsheetId: string, range: string, rows: CellValue[][]) {
      const json = await sheets("values update", accessToken, `${valuesPath(spreadsheetId, range)}?valueInputOption=RAW`, "PUT", {
        values: rows,
      });
      return { updatedRange: stringOr(json.updatedRange, "") };
    },

    /** Rows after the table at `range`; USER_ENTERED reads them as typed (numbers, dates), RAW stores them as given. */
    async appendValues(
      accessToken: string,
      spreadsheetId: string,
      range: string,
      rows: CellValue[][],
      input: "RAW" | "USER_ENTERED" = "RAW",
    ) {
      const json = await sheets(
        "values append",
        accessToken,
        `${valuesPath(spreadsheetId, range)}:append?valueInputOption=${input}&insertDataOption=INSERT_ROWS`,
        "POST",
        { values: rows },
      );
      const updates = isObject(json.updates) ? json.updates : {};
      return {
        updatedRange: stringOr(updates.updatedRange, ""),
        updatedRows: Number(updates.updatedRows ?? 0) || 0,
        tableRange: stringOr(json.tableRange, undefined),
      };
    },
  };
}

/** Google's OAuth and the Sheets API with Jumbe's OAuth client; configuration from env() unless given. */
export function googleSheetsClient(given: Partial<GoogleConfig> = {}) {
  return { ...googleOauth(given), ...sheetsCalls(given) };
}

export type GoogleSheetsClient = ReturnType<typeof googleSheetsClient>;

/**
 * Calls Google with a live access token: refreshed first when it ends within a minute, and once more
 * after a 401. `save` stores the new tokens (the refresh token kept) before the call goes on.
 */
export async function withGoogleToken<T>(
  client: GoogleSheetsClient,
  tokens: GoogleTokens & { refreshToken: string },
  save: (tokens: GoogleTokens & { refreshToken: string }) => Promise<void>,
  work: (accessToken: string) => Promise<T>,
  now = Date.now(),
): Promise<T> {
  let current = tokens;
  const renew = async () => {
    const fresh = await client.refresh(current.refreshToken);
    current = { ...fresh, refreshToken: fresh.refreshToken ?? current.refreshToken };
    await save(current);
  };
  if (current.expiresAt.getTime() - now < GOOGLE_REFRESH_MARGIN_MS) await renew();
  try {
    return await work(current.accessToken);
  } catch (error) {
    if (!(error instanceof GoogleError) || error.kind !== "expired_token") throw error;
    await renew();
    return work(current.accessToken);
  }
}
