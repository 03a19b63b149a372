import { DEMO_GOOGLE_USER, DEMO_IMPORT_SPREADSHEET, DEMO_SPREADSHEET, demoGoogleTokens } from "../demo-grants";
import { Router } from "express";
import { sandboxGate } from "../access";
import { CallLog, type CallRecord } from "../call-log";
import { FaultQueue, SlowAnswers, type Fault } from "../faults";
import { OAuthGrants } from "../oauth-grants";
import { consoleRouter } from "./console";
import type { GoogleContext, ResolvedOptions } from "./context";
import { controlRouter, createByControl, expireTokens } from "./control";
import { oauthRouter } from "./oauth";
import { pickerRouter } from "./picker";
import { readValues, resolveRange, sheetsRouter } from "./sheets";
import { DEMO_OWNER, GoogleState, type CellValue, type Spreadsheet } from "./state";

export { DRIVE_FILE_SCOPE, SPREADSHEETS_SCOPE, KNOWN_SCOPES } from "./oauth";
export { MAGIC_VALUES, type Fault } from "../faults";
export type { CellValue } from "./state";

export interface GoogleSandboxOptions {
  /** The OAuth client's id and secret (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET). */
  clientId: string;
  clientSecret: string;
  /** Where the router is mounted. Default "/sandbox/google". */
  publicPath?: string;
  /** SANDBOX_CONTROL_TOKEN: the console and control API ask for it when set (sandbox/access.ts). */
  controlToken?: string;
  secureCookie?: boolean;
  /** DATA_DIR/sandbox/google.json: spreadsheets and tokens survive a restart. Unset: memory only. */
  statePath?: string;
  /** Access tokens' lifetime. Default an hour, as Google's. */
  accessTokenTtlMs?: number;
  /** How long a `magic-slow` answer waits. Default 30 s. */
  slowMs?: number;
  /** The demo business's install (sandbox/demo-grants.ts): its account and tokens, adopted at start. */
  demo?: boolean;
  now?: () => number;
}

export interface GoogleSandbox {
  router: Router;
  close(): Promise<void>;
  /** A spreadsheet in a test account's Drive, made by a person: the app may not open it unless `appAccess` (chosen with the Picker). */
  createSpreadsheet(input: { title: string; owner?: string; values?: CellValue[][]; appAccess?: boolean }): Spreadsheet;
  /** A range's values as stored (numbers as numbers). */
  values(spreadsheetId: string, range?: string): CellValue[][];
  expireTokens(email: string): number;
  queueFault(fault: Fault, times?: number): void;
  calls(): CallRecord[];
  reset(): void;
}

function resolveOptions(input: GoogleSandboxOptions): ResolvedOptions {
  if (!input?.clientId || !input.clientSecret) throw new Error("createGoogleSandbox: clientId and clientSecret are required.");
  const publicPath = (input.publicPath ?? "/sandbox/google").replace(/\/+$/, "");
  if (!publicPath.startsWith("/")) throw new Error('createGoogleSandbox: publicPath must start with "/".');
  const accessTtlMs = input.accessTokenTtlMs ?? 60 * 60_000;
  if (!(accessTtlMs > 0)) throw new Error("createGoogleSandbox: accessTokenTtlMs must be more than 0.");
  return {
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    publicPath,
    accessTtlMs,
    slowMs: input.slowMs ?? 30_000,
    now: input.now ?? Date.now,
  };
}

/**
 * A local stand-in for Google's OAuth 2 (consent page, token, revoke) and the Sheets API v4
 * (create, values.get, values.update, values.append) with Google's errors, `drive.file`'s per-file
 * access, magic values and queued faults, a JSON control API that reads and writes a sheet's values
 * for tests, and a console that shows the sheets and their cells. State is kept in `statePath`.
 */
export function createGoogleSandbox(input: GoogleSandboxOptions): GoogleSandbox {
  const options = resolveOptions(input);
  const grants = new OAuthGrants({
    prefixes: { code: "4/0Ab-", access: "ya29.sbx-", refresh: "1//0g-sbx-" },
    accessTtlMs: options.accessTtlMs,
    now: options.now,
  });
  const ctx: GoogleContext = {
    options,
    state: new GoogleState(grants, options.now, input.statePath),
    faults: new FaultQueue(),
    slow: new SlowAnswers(options.slowMs),
    calls: new CallLog(options.now),
  };

  if (input.demo) {
    // The demo's Google account, its export and import spreadsheets (both made by the app: drive.file
    // reaches them as it would in production) and its refresh token.
    const { state } = ctx;
    // The demo tenant's own: offered to no other caller on the consent page (issue 74), also in a state file written before.
    if (!state.users.has(DEMO_GOOGLE_USER.email)) state.users.set(DEMO_GOOGLE_USER.email, { ...DEMO_GOOGLE_USER });
    state.users.get(DEMO_GOOGLE_USER.email)!.owner = DEMO_OWNER;
    if (!state.spreadsheets.has(DEMO_SPREADSHEET.id))
      state.addSpreadsheet({
        id: DEMO_SPREADSHEET.id,
        title: DEMO_SPREADSHEET.title,
        owner: DEMO_GOOGLE_USER.email,
        createdBy: options.clientId,
        appAccess: false,
        sheetTitles: ["Contacts", "Messages"],
      });
    if (!state.spreadsheets.has(DEMO_IMPORT_SPREADSHEET.id))
      state.addSpreadsheet({
        id: DEMO_IMPORT_SPREADSHEET.id,
        title: DEMO_IMPORT_SPREADSHEET.title,
        owner: DEMO_GOOGLE_USER.email,
        createdBy: options.clientId,
        appAccess: false,
        sheetTitles: [DEMO_IMPORT_SPREADSHEET.tab],
        rows: DEMO_IMPORT_SPREADSHEET.rows.map((row) => [...row]),
      });
    const { refreshToken } = demoGoogleTokens(options.clientId);
    const scopes = ["https://www.googleapis.com/auth/drive.file", "openid", "email"];
    state.grants.adopt({ account: DEMO_GOOGLE_USER.email, clientId: options.clientId, scopes }, { refreshToken });
    state.noteConsent(DEMO_GOOGLE_USER.email, options.clientId);
  }

  const router = Router({ caseSensitive: true });
  // Google's own token endpoint is /token: the console's token form posts to /sandbox-token instead.
  const gate = sandboxGate({
    token: input.controlToken,
    secureCookie: input.secureCookie,
    loginPath: `${options.publicPath}/sandbox-token`,
    home: options.publicPath,
  });
  // OAuth and the Sheets API are Google's own (the app's credentials, a user's consent): not gated.
  router.use(sheetsRouter(ctx));
  router.use(oauthRouter(ctx));
  // Google's Picker (its stand-in): opened by the app's page with the user's token, as Google's is.
  router.use(pickerRouter(ctx));
  router.post("/sandbox-token", ...gate.login);
  router.use("/control", gate.json, controlRouter(ctx));
  router.use(gate.page, consoleRouter(ctx));

  return {
    router,
    async close() {
      ctx.slow.close();
      ctx.state.close();
    },
    createSpreadsheet(spec) {
      const made = createByControl(ctx, spec);
      if ("error" in made) throw new Error(made.error);
      return made.spreadsheet;
    },
    values(spreadsheetId, range) {
      const spreadsheet = ctx.state.spreadsheets.get(spreadsheetId);
      if (!spreadsheet) throw new Error(`No spreadsheet ${spreadsheetId}.`);
      const bounds = resolveRange(spreadsheet, range ?? spreadsheet.sheets[0]!.title);
      return readValues(bounds.sheet, bounds, true);
    },
    expireTokens: (email) => expireTokens(ctx, email),
    queueFault: (fault, times = 1) => ctx.faults.add(fault, times),
    calls: () => ctx.calls.list(),
    reset() {
      ctx.state.reset();
      ctx.faults.clear();
      ctx.calls.reset();
    },
  };
}
