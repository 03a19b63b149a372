import { db } from "../infrastructure/db/client";
import { googleSheetsExports, integrationConnections, shopifyEvents, shopifyMappings } from "../infrastructure/db/schema";
import { encryptSecret } from "../infrastructure/security/crypto";
import { env } from "../infrastructure/config/env";
import { HUBSPOT_SCOPES } from "../infrastructure/clients/hubspot";
import { SHOPIFY_SCOPES } from "../infrastructure/clients/shopify";
import { GOOGLE_IDENTITY_SCOPES, GOOGLE_SHEETS_SCOPE } from "../infrastructure/clients/google-sheets";
import { enqueueSheetsExport } from "../domains/integrations/google-sheets/settings";
import {
  DEMO_GOOGLE_USER,
  DEMO_HUBSPOT_PORTAL,
  DEMO_SHOPIFY_SHOP,
  DEMO_SPREADSHEET,
  DEMO_IMPORT_SPREADSHEET,
  demoGoogleTokens,
  demoHubspotTokens,
  demoShopifyToken,
  googleSubject,
} from "@jumbe/sandbox/demo-grants";

/**
 * The demo business's integrations (issue 45): HubSpot, Shopify and Google Sheets connected to the
 * sandboxes `npm run demo` starts, which adopt the same tokens (sandbox/demo-grants.ts), so each page
 * is filled and works: HubSpot's sync carries on every half minute, an order placed in the Shopify
 * sandbox's demo shop reaches Jumbe, an export appends to the demo spreadsheet. Tokens are sealed as
 * every token is; HubSpot's and Google's access tokens have expired, so the first call refreshes them.
 * Nothing is seeded without the apps' client ids (a deployment without sandbox mode).
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export async function seedIntegrations(organizationId: string, userId: string, orderTemplateId: string, now: number) {
  const config = env();
  const at = (msAgo: number) => new Date(now - msAgo);
  if (config.HUBSPOT_CLIENT_ID) await seedHubspot(organizationId, userId, config.HUBSPOT_CLIENT_ID, at);
  if (config.SHOPIFY_CLIENT_ID) await seedShopify(organizationId, userId, config.SHOPIFY_CLIENT_ID, orderTemplateId, at);
  if (config.GOOGLE_CLIENT_ID) await seedGoogleSheets(organizationId, userId, config.GOOGLE_CLIENT_ID, now, at);
}

async function seedHubspot(organizationId: string, userId: string, clientId: string, at: (msAgo: number) => Date) {
  const tokens = demoHubspotTokens(clientId);
  await db()
    .insert(integrationConnections)
    .values({
      organizationId,
      provider: "hubspot",
      accountLabel: `${DEMO_HUBSPOT_PORTAL.domain} (Hub ID ${DEMO_HUBSPOT_PORTAL.hubId})`,
      externalAccountId: String(DEMO_HUBSPOT_PORTAL.hubId),
      scopes: [...HUBSPOT_SCOPES],
      accessTokenSealed: encryptSecret(tokens.accessToken),
      refreshTokenSealed: encryptSecret(tokens.refreshToken),
      tokenExpiresAt: at(5 * MINUTE),
      health: "healthy",
      lastSyncAt: at(3 * MINUTE),
      // The sync's figures as the last one counted them; the next sync (within a minute) counts them again.
      syncState: { counts: { contacts: 5, messages: 10, segmentMembers: 0 } },
      createdBy: userId,
      connectedAt: at(21 * DAY),
      createdAt: at(21 * DAY),
      updatedAt: at(3 * MINUTE),
    });
}

/** An order as Shopify's orders/create webhook carries it (the fields Jumbe reads, and a few more). */
function order(number: number, customer: { first: string; last: string; phone: string | null }, total: string, at: Date) {
  return {
    id: 5_400_000_000 + number,
    name: `#${number}`,
    order_number: number,
    currency: "KES",
    total_price: total,
    created_at: at.toISOString(),
    phone: customer.phone,
    customer: { id: 7_100_000 + number, first_name: customer.first, last_name: customer.last, phone: customer.phone },
    shipping_address: { first_name: customer.first, last_name: customer.last, city: "Nakuru", country_code: "KE", phone: customer.phone },
    line_items: [{ title: "Solar lamp (Nyota Mwanga 3)", quantity: 1, price: total }],
  };
}

// long: demo data: a Shopify connection with its orders, checkouts and events, rows that refer to one another, written in order
async function seedShopify(organizationId: string, userId: string, clientId: string, templateId: string, at: (msAgo: number) => Date) {
  const shop = DEMO_SHOPIFY_SHOP.domain;
  await db()
    .insert(integrationConnections)
    .values({
      organizationId,
      provider: "shopify",
      accountLabel: shop,
      externalAccountId: shop,
      scopes: [...SHOPIFY_SCOPES],
      accessTokenSealed: encryptSecret(demoShopifyToken(clientId)),
      health: "healthy",
      context: { shop },
      createdBy: userId,
      connectedAt: at(14 * DAY),
      createdAt: at(14 * DAY),
      updatedAt: at(14 * DAY),
    });
  // Orders answered with the order confirmation (name, order number, total); abandoned carts off for now.
  await db()
    .insert(shopifyMappings)
    .values([
      {
        organizationId,
        eventType: "order_created",
        enabled: true,
        templateId,
        variables: ["customer_name", "order_number", "order_total"],
        createdAt: at(14 * DAY),
        updatedAt: at(14 * DAY),
      },
      {
        organizationId,
        eventType: "checkout_abandoned",
        enabled: false,
        delayMinutes: 120,
        createdAt: at(13 * DAY),
        updatedAt: at(13 * DAY),
      },
    ]);
  const events = [
    {
      n: 1042,
      who: { first: "Amina", last: "Hassan", phone: "+254712345678" },
      total: "3450.00",
      ago: 26 * MINUTE,
      status: "sent" as const,
    },
    {
      n: 1041,
      who: { first: "Brian", last: "Mwangi", phone: "+254723456789" },
      total: "1250.00",
      ago: 3 * 60 * MINUTE,
      status: "sent" as const,
    },
    {
      n: 1040,
      who: { first: "Kiprono", last: "Langat", phone: null },
      total: "5800.00",
      ago: 20 * 60 * MINUTE,
      status: "skipped" as const,
      reason: "no_phone",
    },
    {
      n: 1039,
      who: { first: "Chebet", last: "Koech", phone: "+254734567890" },
      total: "2100.00",
      ago: DAY + 4 * 60 * MINUTE,
      status: "sent" as const,
    },
    {
      n: 1038,
      who: { first: "Halima", last: "Abdi", phone: "+254701987654" },
      total: "950.00",
      ago: 2 * DAY,
      status: "skipped" as const,
      reason: "opted_out",
    },
  ];
  await db()
    .insert(shopifyEvents)
    .values([
      ...events.map((e) => ({
        organizationId,
        shop,
        eventId: `demo-orders-create-${e.n}`,
        topic: "orders/create",
        eventType: "order_created" as const,
        payload: order(e.n, e.who, e.total, at(e.ago)),
        status: e.status,
        reason: e.reason ?? null,
        reference: `#${e.n}`,
        phone: e.who.phone,
        receivedAt: at(e.ago),
        processedAt: at(e.ago - 2_000),
      })),
      // A fulfilment: nothing mapped for it yet, so no message.
      {
        organizationId,
        shop,
        eventId: "demo-fulfillments-create-1039",
        topic: "fulfillments/create",
        eventType: "order_fulfilled" as const,
        payload: {
          id: 4_800_001_039,
          order_id: 5_400_001_039,
          name: "#1039.1",
          tracking_company: "G4S Kenya",
          tracking_number: "G4S-NKR-77120",
        },
        status: "skipped" as const,
        reason: "no_mapping",
        reference: "#1039",
        phone: "+254734567890",
        receivedAt: at(DAY),
        processedAt: at(DAY - 2_000),
      },
    ]);
}

async function seedGoogleSheets(organizationId: string, userId: string, clientId: string, now: number, at: (msAgo: number) => Date) {
  const tokens = demoGoogleTokens(clientId);
  await db()
    .insert(integrationConnections)
    .values({
      organizationId,
      provider: "google-sheets",
      accountLabel: DEMO_GOOGLE_USER.email,
      externalAccountId: googleSubject(DEMO_GOOGLE_USER.email),
      scopes: [GOOGLE_SHEETS_SCOPE, ...GOOGLE_IDENTITY_SCOPES],
      accessTokenSealed: encryptSecret(tokens.accessToken),
      refreshTokenSealed: encryptSecret(tokens.refreshToken),
      tokenExpiresAt: at(10 * MINUTE),
      health: "healthy",
      createdBy: userId,
      connectedAt: at(10 * DAY),
      createdAt: at(10 * DAY),
      updatedAt: at(9 * 60 * MINUTE),
    });
  // Daily at 06:00 Nairobi (03:00 UTC). The sandbox's spreadsheet starts empty, so nothing is counted
  // as exported (issue 74: the page said 1,284 rows beside an empty sheet): the cursors start at the
  // beginning and a first export is queued, so the demo's first start writes the headers and every
  // row, and the figure on the page is the rows Google took.
  const next = new Date(now);
  next.setUTCHours(3, 0, 0, 0);
  if (next.getTime() <= now) next.setUTCDate(next.getUTCDate() + 1);
  await db()
    .insert(googleSheetsExports)
    .values({
      organizationId,
      spreadsheetId: DEMO_SPREADSHEET.id,
      spreadsheetTitle: DEMO_SPREADSHEET.title,
      // Where the Google sandbox shows it (as its create answer names it).
      spreadsheetUrl: `${env().APP_URL}/sandbox/google/spreadsheets/d/${DEMO_SPREADSHEET.id}/edit`,
      exportContacts: true,
      exportMessages: true,
      schedule: "daily",
      nextRunAt: next,
      // The import's sheet, made by the app ("Create a new sheet") with the members pasted in.
      importSpreadsheetId: DEMO_IMPORT_SPREADSHEET.id,
      importSpreadsheetTitle: DEMO_IMPORT_SPREADSHEET.title,
      importSpreadsheetUrl: `${env().APP_URL}/sandbox/google/spreadsheets/d/${DEMO_IMPORT_SPREADSHEET.id}/edit`,
      importRange: DEMO_IMPORT_SPREADSHEET.range,
      updatedAt: at(9 * 60 * MINUTE),
    });
  await enqueueSheetsExport(organizationId);
}
