import express, { Router, type NextFunction, type Request, type Response } from "express";
import { callRecordOf } from "../call-log";
import { magicFaultIn, type Fault } from "../faults";
import type { AccessRecord } from "../oauth-grants";
import { formatA1, parseA1, type CellRange } from "./a1";
import type { GoogleContext } from "./context";
import { applyFieldMask, parseFieldMask } from "./fields";
import { DRIVE_FILE_SCOPE, SPREADSHEETS_SCOPE } from "./oauth";
import { DEFAULT_COLUMNS, type CellValue, type Sheet, type Spreadsheet } from "./state";

export const BODY_LIMIT = "2mb";
const READONLY_SCOPE = "https://www.googleapis.com/auth/spreadsheets.readonly";

type Json = Record<string, unknown>;
type Status = "INVALID_ARGUMENT" | "UNAUTHENTICATED" | "PERMISSION_DENIED" | "NOT_FOUND" | "RESOURCE_EXHAUSTED" | "INTERNAL";

/** Google's error body: `{error: {code, message, status, details?}}`. */
export function googleError(code: number, status: Status, message: string, reason?: string) {
  return {
    error: {
      code,
      message,
      status,
      ...(reason
        ? {
            details: [
              {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                reason,
                domain: "googleapis.com",
                metadata: { service: "sheets.googleapis.com" },
              },
            ],
          }
        : {}),
    },
  };
}

export class SheetsFailure extends Error {
  constructor(
    readonly code: number,
    readonly body: ReturnType<typeof googleError>,
  ) {
    super(body.error.message);
  }
}

const fail = (...args: Parameters<typeof googleError>) => new SheetsFailure(args[0], googleError(...args));

const UNAUTHENTICATED =
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";

function jsonBody(req: Request, res: Response, next: NextFunction) {
  const raw = typeof req.body === "string" ? req.body : "";
  res.locals.rawBody = raw;
  try {
    req.body = raw.trim() ? (JSON.parse(raw) as unknown) : {};
    next();
  } catch {
    res.status(400).json(googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unexpected token."));
  }
}

function authenticate(ctx: GoogleContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const queued = ctx.faults.next();
    const fault = queued ?? magicFaultIn(`${req.originalUrl} ${String(res.locals.rawBody ?? "")}`);
    res.locals.fault = fault;
    const record = callRecordOf(res);
    if (fault && record) record.fault = queued ? `queued ${fault}` : `magic ${fault}`;
    if (fault === "401") return void res.status(401).json(googleError(401, "UNAUTHENTICATED", UNAUTHENTICATED, "ACCESS_TOKEN_EXPIRED"));
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
    const check = bearer ? ctx.state.grants.checkAccess(bearer) : { state: "unknown" as const };
    if (check.state === "expired")
      return void res.status(401).json(googleError(401, "UNAUTHENTICATED", UNAUTHENTICATED, "ACCESS_TOKEN_EXPIRED"));
    if (check.state !== "valid")
      return void res
        .status(401)
        .json(googleError(401, "UNAUTHENTICATED", UNAUTHENTICATED, bearer ? "ACCESS_TOKEN_TYPE_UNSUPPORTED" : "CREDENTIALS_MISSING"));
    res.locals.grant = check.record;
    if (record) record.account = check.record.account;
    if (fault === "429")
      return void res
        .status(429)
        .json(
          googleError(
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:100000000001'.",
            "RATE_LIMIT_EXCEEDED",
          ),
        );
    if (fault === "500") return void res.status(500).json(googleError(500, "INTERNAL", "Internal error encountered."));
    if ((fault as Fault | undefined) === "slow") return ctx.slow.hold(res, () => next());
    next();
  };
}

const grantOf = (res: Response) => res.locals.grant as AccessRecord;

function requireScope(res: Response, write: boolean) {
  const scopes = grantOf(res).scopes;
  const ok = scopes.includes(DRIVE_FILE_SCOPE) || scopes.includes(SPREADSHEETS_SCOPE) || (!write && scopes.includes(READONLY_SCOPE));
  if (!ok) throw fail(403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.", "ACCESS_TOKEN_SCOPE_INSUFFICIENT");
}

/**
 * The spreadsheet, if this token may open it. With a whole-Drive Sheets scope, the user's own (another
 * account's answers 403). With `drive.file` only, the files the app created or the user chose with the
 * Picker: any other is invisible to the app, and Google answers 404 NOT_FOUND as for no file at all.
 */
function spreadsheetFor(ctx: GoogleContext, res: Response, id: string): Spreadsheet {
  const spreadsheet = ctx.state.spreadsheets.get(id);
  if (!spreadsheet) throw fail(404, "NOT_FOUND", "Requested entity was not found.");
  const grant = grantOf(res);
  const whole = grant.scopes.includes(SPREADSHEETS_SCOPE) || grant.scopes.includes(READONLY_SCOPE);
  if (whole) {
    if (spreadsheet.owner !== grant.account) throw fail(403, "PERMISSION_DENIED", "The caller does not have permission");
    return spreadsheet;
  }
  if (spreadsheet.owner !== grant.account || !appMayOpen(spreadsheet, grant.clientId))
    throw fail(404, "NOT_FOUND", "Requested entity was not found.");
  return spreadsheet;
}

/** drive.file: the app made it, or the user chose it with the app's Picker. */
export const appMayOpen = (spreadsheet: Spreadsheet, clientId: string) => spreadsheet.createdBy === clientId || spreadsheet.appAccess;

export function spreadsheetView(ctx: GoogleContext, spreadsheet: Spreadsheet, origin: string) {
  return {
    spreadsheetId: spreadsheet.spreadsheetId,
    properties: { title: spreadsheet.title, locale: "en_US", autoRecalc: "ON_CHANGE", timeZone: "Africa/Nairobi" },
    sheets: spreadsheet.sheets.map((sheet, index) => ({
      properties: {
        sheetId: sheet.sheetId,
        title: sheet.title,
        index,
        sheetType: "GRID",
        gridProperties: { rowCount: sheet.rowCount, columnCount: sheet.columnCount },
      },
    })),
    spreadsheetUrl: `${origin}${ctx.options.publicPath}/spreadsheets/d/${spreadsheet.spreadsheetId}/edit`,
  };
}

/** The sheet and bounds a range names (ends resolved to the grid's), or 400 "Unable to parse range". */
export function resolveRange(spreadsheet: Spreadsheet, text: string) {
  const range: CellRange | null = parseA1(text, (title) => spreadsheet.sheets.some((s) => s.title === title));
  const sheet =
    range && (range.sheetTitle === undefined ? spreadsheet.sheets[0] : spreadsheet.sheets.find((s) => s.title === range.sheetTitle));
  if (!range || !sheet) throw fail(400, "INVALID_ARGUMENT", `Unable to parse range: ${text}`);
  return {
    sheet,
    startRow: range.startRow,
    startCol: range.startCol,
    endRow: range.endRow ?? sheet.rowCount,
    endCol: range.endCol ?? sheet.columnCount,
  };
}

const isEmpty = (value: CellValue | undefined) => value === undefined || value === "";
const formatted = (value: CellValue) => (typeof value === "boolean" ? (value ? "TRUE" : "FALSE") : String(value));

/** The values in a range, trailing empty cells and rows left out, as Google answers them. */
export function readValues(
  sheet: Sheet,
  bounds: { startRow: number; startCol: number; endRow: number; endCol: number },
  unformatted = false,
): CellValue[][] {
  const rows: CellValue[][] = [];
  for (let r = bounds.startRow; r < Math.min(bounds.endRow, sheet.rows.length); r++) {
    const row = (sheet.rows[r] ?? []).slice(bounds.startCol, bounds.endCol).map((v) => (v === undefined ? "" : v));
    while (row.length && isEmpty(row.at(-1))) row.pop();
    rows.push(unformatted ? row : row.map(formatted));
  }
  while (rows.length && rows.at(-1)!.length === 0) rows.pop();
  return rows;
}

/** USER_ENTERED reads numbers and TRUE/FALSE as a person typing them would; a leading ' keeps text. RAW stores as sent. */
function entered(value: unknown, option: string): CellValue {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return value as CellValue;
  if (option !== "USER_ENTERED") return value;
  if (value.startsWith("'")) return value.slice(1);
  if (/^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  if (/^(true|false)$/i.test(value.trim())) return value.trim().toUpperCase() === "TRUE";
  return value;
}

function valuesFrom(body: Json, option: string): CellValue[][] {
  const values = body.values;
  if (!Array.isArray(values) || values.some((row) => !Array.isArray(row)))
    throw fail(
      400,
      "INVALID_ARGUMENT",
      "Invalid value at 'data.values' (type.googleapis.com/google.protobuf.ListValue): rows must be lists.",
    );
  const rows = (values as unknown[][]).map((row, r) =>
    row.map((cell, c) => {
      if (cell !== null && !["string", "number", "boolean"].includes(typeof cell))
        throw fail(400, "INVALID_ARGUMENT", `Invalid value at 'data.values[${r}].values[${c}]': a cell is a string, number or boolean.`);
      return entered(cell, option);
    }),
  );
  return body.majorDimension === "COLUMNS" ? transpose(rows) : rows;
}

function transpose(rows: CellValue[][]): CellValue[][] {
  const width = Math.max(0, ...rows.map((r) => r.length));
  return Array.from({ length: width }, (_, c) => rows.map((row) => row[c] ?? ""));
}

function valueInputOption(req: Request) {
  const option = req.query.valueInputOption;
  if (option !== "RAW" && option !== "USER_ENTERED")
    throw fail(400, "INVALID_ARGUMENT", "'valueInputOption' is required but not specified");
  return option;
}

/** Writes rows at a sheet's cell, growing the grid as Google does; answers the range written. */
export function writeValues(sheet: Sheet, startRow: number, startCol: number, values: CellValue[][]) {
  const width = Math.max(0, ...values.map((r) => r.length));
  values.forEach((row, r) => {
    const target = (sheet.rows[startRow + r] ??= []);
    for (let c = 0; c < row.length; c++) {
      while (target.length < startCol + c) target.push("");
      target[startCol + c] = row[c]!;
    }
  });
  for (let r = 0; r < sheet.rows.length; r++) sheet.rows[r] ??= [];
  sheet.rowCount = Math.max(sheet.rowCount, startRow + values.length);
  sheet.columnCount = Math.max(sheet.columnCount, startCol + width, DEFAULT_COLUMNS);
  return {
    updatedRange: width ? formatA1(sheet.title, startRow, startCol, startRow + values.length, startCol + width) : undefined,
    updatedRows: values.length,
    updatedColumns: width,
    updatedCells: values.reduce((n, r) => n + r.length, 0),
  };
}

/**
 * The table an append extends: the rows from the range's start with a value in its columns, and the
 * columns that table spans. As Google does, the table is found from the range and reaches past its
 * right edge while the cells run on (`Sheet1!A1` on a table at A1:C2 is the table A1:C2): each
 * row's run of cells from the range's first column to its last filled one without a gap.
 */
function tableOf(sheet: Sheet, bounds: { startRow: number; startCol: number; endCol: number }) {
  let first = -1;
  let last = -1;
  let lastCol = bounds.startCol;
  for (let r = bounds.startRow; r < sheet.rows.length; r++) {
    const row = sheet.rows[r] ?? [];
    const used = row.slice(bounds.startCol, bounds.endCol).reduce<number>((n, v, i) => (isEmpty(v) ? n : i + 1), 0);
    if (!used) continue;
    let end = bounds.startCol + used;
    while (end < row.length && !isEmpty(row[end])) end++;
    if (first === -1) first = r;
    last = r;
    lastCol = Math.max(lastCol, end);
  }
  return first === -1 ? undefined : { first, last, lastCol };
}

function handle(fn: (req: Request, res: Response) => void) {
  return (req: Request, res: Response) => {
    try {
      fn(req, res);
    } catch (error) {
      if (!(error instanceof SheetsFailure)) throw error;
      res.status(error.code).json(error.body);
    }
  };
}

const originOf = (req: Request) => `${req.protocol}://${req.get("host")}`;

const renderUnformatted = (option: unknown) => option === "UNFORMATTED_VALUE" || option === "FORMULA";

/** A range's ValueRange as values.get answers it (and batchGet, one per range). */
function valueRange(spreadsheet: Spreadsheet, rangeText: string, query: Request["query"]) {
  const bounds = resolveRange(spreadsheet, rangeText);
  const values = readValues(bounds.sheet, bounds, renderUnformatted(query.valueRenderOption));
  const columns = query.majorDimension === "COLUMNS";
  const rows = columns ? transpose(values) : values;
  return {
    range: formatA1(bounds.sheet.title, bounds.startRow, bounds.startCol, bounds.endRow, bounds.endCol),
    majorDimension: columns ? "COLUMNS" : "ROWS",
    ...(rows.length ? { values: rows } : {}),
  };
}

/** `includeValuesInResponse=true`: the written range's values read back (`responseValueRenderOption`). */
function updatedData(spreadsheet: Spreadsheet, req: Request, updatedRange: string | undefined) {
  if (req.query.includeValuesInResponse !== "true" || !updatedRange) return {};
  return {
    updatedData: valueRange(spreadsheet, updatedRange, {
      valueRenderOption: req.query.responseValueRenderOption ?? "FORMATTED_VALUE",
    }),
  };
}

const queryList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : []);

function valuesRoute(ctx: GoogleContext) {
  return handle((req, res) => {
    const batch = /^\/([^/]+)\/values:batchGet$/.exec(req.path);
    if (batch && req.method === "GET") {
      const spreadsheet = spreadsheetFor(ctx, res, decodeURIComponent(batch[1]!));
      requireScope(res, false);
      const ranges = queryList(req.query.ranges);
      return void res.json({
        spreadsheetId: spreadsheet.spreadsheetId,
        ...(ranges.length ? { valueRanges: ranges.map((range) => valueRange(spreadsheet, range, req.query)) } : {}),
      });
    }
    const match = /^\/([^/]+)\/values\/([^/]+)$/.exec(req.path);
    if (!match) throw fail(404, "NOT_FOUND", "Requested entity was not found.");
    const spreadsheet = spreadsheetFor(ctx, res, decodeURIComponent(match[1]!));
    const rangeText = decodeURIComponent(match[2]!);
    if (rangeText.endsWith(":append") && req.method === "POST")
      return appendValues(ctx, req, res, spreadsheet, rangeText.slice(0, -":append".length));
    if (rangeText.endsWith(":clear") && req.method === "POST") {
      requireScope(res, true);
      const bounds = resolveRange(spreadsheet, rangeText.slice(0, -":clear".length));
      for (let r = bounds.startRow; r < Math.min(bounds.endRow, bounds.sheet.rows.length); r++) {
        const row = bounds.sheet.rows[r]!;
        for (let c = bounds.startCol; c < Math.min(bounds.endCol, row.length); c++) row[c] = "";
      }
      ctx.state.changed();
      return void res.json({
        spreadsheetId: spreadsheet.spreadsheetId,
        clearedRange: formatA1(bounds.sheet.title, bounds.startRow, bounds.startCol, bounds.endRow, bounds.endCol),
      });
    }
    if (req.method === "GET") {
      requireScope(res, false);
      return void res.json(valueRange(spreadsheet, rangeText, req.query));
    }
    if (req.method === "PUT") {
      requireScope(res, true);
      const bounds = resolveRange(spreadsheet, rangeText);
      const written = writeValues(bounds.sheet, bounds.startRow, bounds.startCol, valuesFrom(req.body as Json, valueInputOption(req)));
      ctx.state.changed();
      return void res.json({
        spreadsheetId: spreadsheet.spreadsheetId,
        ...written,
        ...updatedData(spreadsheet, req, written.updatedRange),
      });
    }
    throw fail(404, "NOT_FOUND", "Requested entity was not found.");
  });
}

function appendValues(ctx: GoogleContext, req: Request, res: Response, spreadsheet: Spreadsheet, rangeText: string) {
  requireScope(res, true);
  const option = valueInputOption(req);
  const bounds = resolveRange(spreadsheet, rangeText);
  const values = valuesFrom(req.body as Json, option);
  const table = tableOf(bounds.sheet, bounds);
  const at = table ? table.last + 1 : bounds.startRow;
  const written = writeValues(bounds.sheet, at, bounds.startCol, values);
  ctx.state.changed();
  res.json({
    spreadsheetId: spreadsheet.spreadsheetId,
    ...(table ? { tableRange: formatA1(bounds.sheet.title, table.first, bounds.startCol, table.last + 1, table.lastCol) } : {}),
    updates: { spreadsheetId: spreadsheet.spreadsheetId, ...written, ...updatedData(spreadsheet, req, written.updatedRange) },
  });
}

/**
 * `fields=`: a successful answer keeps only the fields asked for (errors are whole, as Google's);
 * a selector Google could not read is refused before anything is done.
 */
function partialResponse(req: Request, res: Response, next: NextFunction) {
  const selector = req.query.fields;
  if (selector === undefined) return next();
  const mask = typeof selector === "string" ? parseFieldMask(selector) : null;
  if (!mask) return void res.status(400).json(googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."));
  const json = res.json.bind(res);
  res.json = (body: unknown) => json(res.statusCode < 300 ? applyFieldMask(body, mask) : body);
  next();
}

function createSpreadsheet(ctx: GoogleContext) {
  return handle((req, res) => {
    requireScope(res, true);
    const body = req.body as Json;
    const properties = (body.properties ?? {}) as Json;
    const sheets = Array.isArray(body.sheets) ? body.sheets : [];
    const titles = sheets.map((s, i) => String((s as { properties?: { title?: unknown } })?.properties?.title ?? `Sheet${i + 1}`));
    if (new Set(titles).size !== titles.length)
      throw fail(400, "INVALID_ARGUMENT", "Invalid requests: a sheet with that name already exists.");
    const grant = grantOf(res);
    const spreadsheet = ctx.state.addSpreadsheet({
      title: typeof properties.title === "string" && properties.title ? properties.title : "Untitled spreadsheet",
      owner: grant.account,
      createdBy: grant.clientId,
      // Made by the app: reachable with drive.file without the Picker.
      appAccess: false,
      sheetTitles: titles,
    });
    res.json(spreadsheetView(ctx, spreadsheet, originOf(req)));
  });
}

/**
 * The Sheets API v4 as Jumbe uses it: create a spreadsheet, read its metadata, values.get,
 * values.batchGet, values.update, values.append and values.clear, with Google's errors and
 * partial responses (`fields=`). `drive.file` reaches only the files the app
 * created or the user opened with it; every call may meet a fault (magic value or queued).
 */
export function sheetsRouter(ctx: GoogleContext): Router {
  const router = Router({ caseSensitive: true });
  router.use(
    "/v4",
    ctx.calls.recorder(),
    express.text({ type: () => true, limit: BODY_LIMIT }),
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      if ((error as { status?: number })?.status === 413)
        return void res.status(413).json(googleError(413, "INVALID_ARGUMENT", "Request payload size exceeds the limit."));
      next(error);
    },
    jsonBody,
    authenticate(ctx),
    partialResponse,
  );
  router.post("/v4/spreadsheets", createSpreadsheet(ctx));
  router.get(
    "/v4/spreadsheets/:id",
    handle((req, res) => {
      requireScope(res, false);
      res.json(spreadsheetView(ctx, spreadsheetFor(ctx, res, String(req.params.id)), originOf(req)));
    }),
  );
  router.use("/v4/spreadsheets", valuesRoute(ctx));
  router.use("/v4", (_req, res) => void res.status(404).json(googleError(404, "NOT_FOUND", "Requested entity was not found.")));
  return router;
}
