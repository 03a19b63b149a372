import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { GoogleError, googleSheetsClient, type GoogleSheetsClient } from "../../../infrastructure/clients/google-sheets";
import { Refusal } from "../../../infrastructure/refusal";
import { refreshConnection, tokenForUse } from "../tokens";
import { m } from "~/paraglide/messages";

export const GOOGLE_SHEETS_ID = "google-sheets";
/** Far enough ahead that a refresh is always due: forces one after Google answered 401. */
const ALWAYS_DUE_SECONDS = 10 * 365 * 24 * 3600;

let clientOverride: GoogleSheetsClient | null = null;
/** The Sheets client (tests and the bench may give one with their own configuration). */
export function sheetsClient(): GoogleSheetsClient {
  return clientOverride ?? googleSheetsClient();
}
export function setSheetsClient(client: GoogleSheetsClient | null) {
  clientOverride = client;
}

async function connectionId(organizationId: string) {
  const [row] = await queryRows<{ id: string }>(
    db(),
    sql`select id from integration_connections where organization_id = ${organizationId} and provider = ${GOOGLE_SHEETS_ID} and status = 'connected'`,
  );
  return row?.id ?? null;
}

/**
 * Calls Google with the organisation's access token (refreshed ahead of its expiry by tokenForUse).
 * A 401 means Google no longer takes it (expired early, or revoked there): it is refreshed once,
 * across instances by the framework's claim, and the call made again.
 */
export async function withSheetsToken<T>(organizationId: string, work: (accessToken: string, client: GoogleSheetsClient) => Promise<T>) {
  const client = sheetsClient();
  const token = await tokenForUse(organizationId, GOOGLE_SHEETS_ID);
  try {
    return await work(token, client);
  } catch (error) {
    if (!(error instanceof GoogleError) || error.kind !== "expired_token") throw error;
    const id = await connectionId(organizationId);
    if (!id) throw error;
    const refreshed = await refreshConnection(id, ALWAYS_DUE_SECONDS);
    if (refreshed.outcome === "failed")
      throw new Refusal({ domain: "integration", status: 502, code: "integration_unhealthy", message: refreshed.message });
    // Another instance refreshed it meanwhile ("fresh" or "busy"): its token is read anew.
    const again = refreshed.outcome === "refreshed" ? refreshed.accessToken : await tokenForUse(organizationId, GOOGLE_SHEETS_ID);
    return work(again, client);
  }
}

/**
 * Google's refusal of a person's request (a sheet it cannot open, a range it cannot read) in words,
 * 4xx/502. Under drive.file a spreadsheet Jumbe neither made nor was given with the Picker is one
 * Google says does not exist (404 NOT_FOUND): the words say how to give it (decision 109).
 */
export function googleRefusal(error: unknown): Refusal | null {
  if (!(error instanceof GoogleError)) return null;
  if (error.kind === "forbidden")
    return new Refusal({
      domain: "integration",
      status: 400,
      code: "sheet_no_access",
      message: m.sheets_no_access(),
      field: "spreadsheet",
    });
  if (error.kind === "not_found")
    return new Refusal({
      domain: "integration",
      status: 404,
      code: "sheet_not_found",
      message: m.sheets_not_found(),
      field: "spreadsheet",
    });
  if (error.kind === "refused" && error.httpStatus === 400)
    return new Refusal({
      domain: "integration",
      status: 400,
      code: "sheet_bad_request",
      message: m.sheets_google_refused({ reason: error.message }),
    });
  return new Refusal({
    domain: "integration",
    status: 502,
    code: "google_failed",
    message: m.sheets_google_failed({ reason: error.message }),
  });
}

/** A spreadsheet's id from its id or its link (`…/spreadsheets/d/<id>/edit`), or null. */
export function spreadsheetIdOf(input: string): string | null {
  const text = input.trim();
  const fromUrl = /\/spreadsheets\/d\/([A-Za-z0-9_-]{20,100})/.exec(text)?.[1];
  if (fromUrl) return fromUrl;
  return /^[A-Za-z0-9_-]{20,100}$/.test(text) ? text : null;
}
