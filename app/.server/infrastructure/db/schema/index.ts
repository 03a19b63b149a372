/**
 * The database schema, one file per domain. Migrations in drizzle/ are generated from it
 * (`npm run db:generate`); tests empty every table exported here between tests.
 */
export * from "./auth";
export * from "./security";
export * from "./activity";
export * from "./mail";
export * from "./messaging";
export * from "./whatsapp";
export * from "./webhooks";
export * from "./jobs";
export * from "./developer";
export * from "./templates";
export * from "./contacts";
export * from "./campaigns";
export * from "./team";
export * from "./settings";
export * from "./inbox";
export * from "./billing";
export * from "./analytics";
export * from "./admin";
export * from "./automations";
export * from "./assistant";
export * from "./flows";
export * from "./integrations";
export * from "./revenue-share";
export * from "./google-sheets";
export * from "./shopify";
export * from "./hubspot";
export * from "./payments";
export * from "./payment-requests";
export * from "./shop";
export * from "./sms";
export * from "./ads";
export * from "./sms-fallback";
export * from "./ad-conversions";
