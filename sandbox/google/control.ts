import express, { Router, type NextFunction, type Request, type Response } from "express";
import { FAULTS, isFault, MAGIC_VALUES } from "../faults";
import type { GoogleContext } from "./context";
import { readValues, resolveRange, SheetsFailure, writeValues } from "./sheets";
import type { CellValue, Spreadsheet } from "./state";

type Json = Record<string, unknown>;

export function spreadsheetSummary(spreadsheet: Spreadsheet) {
  return {
    spreadsheetId: spreadsheet.spreadsheetId,
    title: spreadsheet.title,
    owner: spreadsheet.owner,
    createdBy: spreadsheet.createdBy,
    appAccess: spreadsheet.appAccess,
    createdAt: new Date(spreadsheet.createdAt).toISOString(),
    sheets: spreadsheet.sheets.map((s) => ({ sheetId: s.sheetId, title: s.title, rows: s.rows.length })),
  };
}

/** Makes an account's live access tokens expired now: the next API call answers 401 UNAUTHENTICATED. */
export function expireTokens(ctx: GoogleContext, email: string) {
  const count = ctx.state.grants.expireAccess(email);
  ctx.state.changed();
  return count;
}

export function queueFault(ctx: GoogleContext, fault: unknown, times: unknown) {
  const count = times === undefined || times === "" ? 1 : Number(times);
  if (!isFault(fault) || !Number.isInteger(count) || count < 1 || count > 100) return false;
  ctx.faults.add(fault, count);
  return true;
}

const isCell = (value: unknown): value is CellValue => ["string", "number", "boolean"].includes(typeof value);

/** Rows of cells from a control body, or undefined when they are not rows of strings, numbers and booleans. */
export function rowsOf(value: unknown): CellValue[][] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((row) => Array.isArray(row) && row.every((cell) => cell === null || isCell(cell))))
    return undefined;
  return (value as (CellValue | null)[][]).map((row) => row.map((cell) => cell ?? ""));
}

/**
 * A spreadsheet in a user's Drive, made outside the app (a person typed it). The app cannot open it
 * (drive.file) until the user chooses it with the Picker; `appAccess: true` makes it as already chosen.
 */
export function createByControl(ctx: GoogleContext, body: Json): { spreadsheet: Spreadsheet } | { error: string } {
  const title = typeof body.title === "string" && body.title.trim() ? body.title.trim() : undefined;
  const owner = typeof body.owner === "string" ? body.owner : [...ctx.state.users.keys()][0]!;
  const rows = rowsOf(body.values);
  const sheets = Array.isArray(body.sheets) ? body.sheets.filter((s): s is string => typeof s === "string" && s.trim() !== "") : undefined;
  if (!title || title.length > 200) return { error: "title is required (at most 200 characters)." };
  if (!ctx.state.users.has(owner)) return { error: `No test account ${owner}.` };
  if (!rows) return { error: "values must be rows (arrays) of strings, numbers and booleans." };
  if (sheets && new Set(sheets).size !== sheets.length) return { error: "Sheet titles must differ." };
  return {
    spreadsheet: ctx.state.addSpreadsheet({
      title,
      owner,
      createdBy: null,
      appAccess: body.appAccess === true,
      sheetTitles: sheets,
      rows,
    }),
  };
}

/**
 * JSON control API for tests (gated by the sandbox token): the test accounts, spreadsheets and
 * their values (read and write, so tests can put contacts in a sheet to import), expiring an
 * account's tokens, queued faults, the API calls received, reset.
 */
export function controlRouter(ctx: GoogleContext): Router {
  const router = Router({ caseSensitive: true });
  router.use(express.json({ limit: "1mb" }));
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (error as { status?: number } | undefined)?.status;
    if (status && status >= 400 && status < 500)
      return void res.status(status === 413 ? 413 : 400).json({ message: "The body must be JSON (at most 1 MB)." });
    next(error);
  });
  router.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  const body = (req: Request) => (req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {}) as Json;
  const spreadsheetOr404 = (req: Request, res: Response) => {
    const found = ctx.state.spreadsheets.get(String(req.params.id));
    if (!found) res.status(404).json({ message: `No spreadsheet ${String(req.params.id)}.` });
    return found;
  };
  const withRange = (res: Response, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      if (!(error instanceof SheetsFailure)) throw error;
      res.status(error.code).json({ message: error.message });
    }
  };

  router.get("/users", (_req, res) => void res.json({ users: [...ctx.state.users.values()] }));

  router.post("/users/:email/expire-tokens", (req, res) => {
    if (!ctx.state.users.has(String(req.params.email))) return void res.status(404).json({ message: "No such test account." });
    res.json({ expired: expireTokens(ctx, String(req.params.email)) });
  });

  router.get("/spreadsheets", (_req, res) => void res.json({ spreadsheets: [...ctx.state.spreadsheets.values()].map(spreadsheetSummary) }));

  router.post("/spreadsheets", (req, res) => {
    const made = createByControl(ctx, body(req));
    if ("error" in made) return void res.status(400).json({ message: made.error });
    res.status(201).json({ spreadsheet: spreadsheetSummary(made.spreadsheet) });
  });

  router.get("/spreadsheets/:id/values", (req, res) => {
    const spreadsheet = spreadsheetOr404(req, res);
    if (!spreadsheet) return;
    withRange(res, () => {
      const bounds = resolveRange(spreadsheet, typeof req.query.range === "string" ? req.query.range : spreadsheet.sheets[0]!.title);
      res.json({ values: readValues(bounds.sheet, bounds, true) });
    });
  });

  for (const [path, append] of [
    ["/spreadsheets/:id/values", false],
    ["/spreadsheets/:id/append", true],
  ] as const) {
    router[append ? "post" : "put"](path, (req, res) => {
      const spreadsheet = spreadsheetOr404(req, res);
      if (!spreadsheet) return;
      const input = body(req);
      const rows = rowsOf(input.values);
      if (!rows) return void res.status(400).json({ message: "values must be rows (arrays) of strings, numbers and booleans." });
      withRange(res, () => {
        const bounds = resolveRange(spreadsheet, typeof input.range === "string" ? input.range : spreadsheet.sheets[0]!.title);
        const start = append ? Math.max(bounds.startRow, bounds.sheet.rows.length) : bounds.startRow;
        const written = writeValues(bounds.sheet, start, bounds.startCol, rows);
        ctx.state.changed();
        res.json(written);
      });
    });
  }

  router.get("/faults", (_req, res) => void res.json({ pending: ctx.faults.pending(), faults: FAULTS, magic: MAGIC_VALUES }));
  router.post("/faults", (req, res) => {
    const { fault, times } = body(req);
    if (!queueFault(ctx, fault, times))
      return void res.status(400).json({ message: `fault must be one of ${FAULTS.join(", ")}; times 1 to 100.` });
    res.json({ pending: ctx.faults.pending() });
  });
  router.get(
    "/magic",
    (_req, res) => void res.json({ magic: MAGIC_VALUES, accessTokenSeconds: Math.round(ctx.options.accessTtlMs / 1000) }),
  );
  router.get("/tokens", (_req, res) => {
    const grants = ctx.state.grants;
    res.json({
      access: grants
        .liveAccess()
        .map((t) => ({ account: t.account, scopes: t.scopes, expiresAt: t.expiresAt && new Date(t.expiresAt).toISOString() })),
      refresh: grants.liveRefresh().map((t) => ({ account: t.account, scopes: t.scopes })),
    });
  });
  router.get("/calls", (_req, res) => void res.json({ calls: ctx.calls.list() }));
  router.post("/reset", (_req, res) => {
    ctx.state.reset();
    ctx.faults.clear();
    ctx.calls.reset();
    res.json({ ok: true });
  });
  router.use((_req, res) => void res.status(404).json({ message: "No such control endpoint." }));
  return router;
}
