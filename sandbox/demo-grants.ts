import { createHash } from "node:crypto";

/**
 * The demo business's installs at the integration sandboxes (HubSpot, Shopify, Google): its test
 * account at each, and tokens derived from the app's client id, so the database `npm run demo` seeds
 * and the sandboxes it starts agree without talking (as sandbox/meta/business-demo.ts does for Meta).
 * A sandbox started with `demo` adopts them once: a token it already knows (in use, or revoked by a
 * disconnect and kept in its state file) is left as it is.
 */

export const DEMO_HUBSPOT_PORTAL = {
  hubId: 14500009,
  name: "Nyota Sacco CRM",
  domain: "nyota-sacco.hubspot.test",
  user: "crm@nyotasacco.co.ke",
  userId: 7100009,
} as const;

export const DEMO_SHOPIFY_SHOP = { domain: "nyota-duka.myshopify.com", name: "Nyota Duka", email: "duka@nyotasacco.co.ke" } as const;

export const DEMO_GOOGLE_USER = { email: "data@nyotasacco.co.ke", name: "Nyota Sacco Data" } as const;
/** The demo's export spreadsheet, made by the app (drive.file reaches it), with its two tabs. */
export const DEMO_SPREADSHEET = { id: "1NyotaSaccoWhatsAppExportDemo0000000000000", title: "Nyota Sacco WhatsApp export" } as const;
/**
 * The demo's import sheet, made by the app as "Create a new sheet" makes one (its header row), the
 * members pasted under it: reachable with drive.file as in production, no special access (issue 73).
 */
export const DEMO_IMPORT_SPREADSHEET = {
  id: "1NyotaSaccoMembersToImportDemo000000000000",
  title: "Nyota Sacco members to import",
  tab: "Contacts",
  range: "Contacts!A:E",
  rows: [
    ["Name", "Phone", "Tags", "Language", "Notes"],
    ["Mercy Chebet", "0712 480 215", "members", "sw", "Eldoret branch"],
    ["Daniel Kiprono", "+254722 913 604", "members", "en", ""],
    ["Fatuma Hassan", "0733 615 002", "members, savings", "sw", "Mombasa branch"],
    ["Peter Mwangi", "0712 48", "members", "en", "Number too short: reported, not imported"],
  ],
} as const;

const derive = (provider: string, kind: string, clientId: string) =>
  createHash("sha256").update(`jumbe-demo ${provider} ${kind} ${clientId}`).digest("base64url").slice(0, 32);

/** HubSpot's: a refresh token the sandbox knows; the access token stored beside it has expired (refreshed on first use). */
export function demoHubspotTokens(clientId: string) {
  return {
    accessToken: `hs-at-demo-${derive("hubspot", "access", clientId)}`,
    refreshToken: `hs-rt-demo-${derive("hubspot", "refresh", clientId)}`,
  };
}

/** Shopify's: an offline access token (it does not expire). */
export function demoShopifyToken(clientId: string) {
  return `shpat_demo${derive("shopify", "access", clientId)}`;
}

/** Google's: a refresh token the sandbox knows; the access token stored beside it has expired. */
export function demoGoogleTokens(clientId: string) {
  return {
    accessToken: `ya29.sbx-demo-${derive("google", "access", clientId)}`,
    refreshToken: `1//0g-sbx-demo-${derive("google", "refresh", clientId)}`,
  };
}

/** Google's subject for an account: 21 digits, stable for it (what tokeninfo answers as `sub`). */
export function googleSubject(account: string) {
  return (BigInt(`0x${createHash("sha256").update(account).digest("hex").slice(0, 16)}`) + 10n ** 20n).toString().slice(0, 21);
}
