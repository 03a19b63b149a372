import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import routes from "~/routes";
import { can, PERMISSIONS, ROLE_PERMISSIONS, ROLES, type Role } from "~/.server/domains/auth/permissions";
import { declaredRoutes, routeAccess } from "~/.server/domains/auth/route-permissions";
import { safeRedirectTarget } from "~/.server/domains/auth/guards";
import * as importUpload from "~/routes/app/messaging/import/upload";
import * as importRun from "~/routes/app/messaging/import/run";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { ADMIN, buildExists, DEMO, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";
import { appBuild, appFetch } from "../support/in-process-app";
import { formRequest, getRequest, run } from "../support/http";
import { rawRequest } from "../support/raw-http";

/** Gives a member `role`, as the team page or the console would: in the database, read at each request. */
async function giveRole(userId: string, role: Role) {
  const staff = { platform_admin: "owner", platform_finance: "finance", platform_support: "support" } as const;
  const values =
    role === "platform_admin" || role === "platform_finance" || role === "platform_support"
      ? { usertype: "admin" as const, orgRole: "owner" as const, platformRole: staff[role] }
      : { usertype: "individual" as const, orgRole: role, platformRole: null };
  await db().update(users).set(values).where(eq(users.id, userId));
}

/**
 * Issue 10: permissions come from one table, and every route checks them on the server. This is
 * the table of what each kind of visitor gets at every route of app/routes.ts: a visitor with no
 * session, an organisation owner (the demo business) and a platform administrator. A route added
 * to app/routes.ts without a row here fails the first test.
 *
 *   ok         2xx
 *   login      302 to /login?from=<the path>
 *   denied     302 to /unauthorized
 *   401 / 403  JSON with spec section 8's message
 *   →/x        302 to /x
 */
type Outcome = "ok" | "login" | "denied" | "400" | "401" | "403" | "404" | "405" | "406" | `→${string}`;
interface Row {
  /** The path requested for the route's pattern (params filled in). */
  path: string;
  anonymous: Outcome;
  owner: Outcome;
  admin: Outcome;
}

const ROWS: Record<string, Row> = {
  "/": { path: "/", anonymous: "ok", owner: "ok", admin: "ok" },
  "/privacy-policy": { path: "/privacy-policy", anonymous: "ok", owner: "ok", admin: "ok" },
  "/privacy": { path: "/privacy", anonymous: "ok", owner: "ok", admin: "ok" },
  "/terms-of-service": { path: "/terms-of-service", anonymous: "ok", owner: "ok", admin: "ok" },
  "/terms": { path: "/terms", anonymous: "ok", owner: "ok", admin: "ok" },
  "/robots.txt": { path: "/robots.txt", anonymous: "ok", owner: "ok", admin: "ok" },
  // A product's uploaded picture, public for Meta's catalog (decision 141): an unknown name is 404 to everyone.
  "/catalog-images/:file": { path: `/catalog-images/${"A".repeat(43)}.jpg`, anonymous: "404", owner: "404", admin: "404" },
  "/sitemap.xml": { path: "/sitemap.xml", anonymous: "ok", owner: "ok", admin: "ok" },
  "/manifest.webmanifest": { path: "/manifest.webmanifest", anonymous: "ok", owner: "ok", admin: "ok" },
  // The UI kit's gallery exists in development only; the built server is a production build.
  "/dev/ui": { path: "/dev/ui", anonymous: "404", owner: "404", admin: "404" },
  "/login": { path: "/login", anonymous: "ok", owner: "→/dashboard", admin: "→/admin" },
  "/signin": { path: "/signin", anonymous: "ok", owner: "→/dashboard", admin: "→/admin" },
  // Sign-in, step two: only a browser with an open challenge (the right password moments ago) stays.
  "/login/two-factor": { path: "/login/two-factor", anonymous: "→/login", owner: "→/dashboard", admin: "→/admin" },
  // Sign-in with an e-mailed code: only a browser that gave the right password moments ago stays.
  "/login/email-code": { path: "/login/email-code", anonymous: "→/login", owner: "→/dashboard", admin: "→/admin" },
  "/signup": { path: "/signup", anonymous: "ok", owner: "→/dashboard", admin: "→/admin" },
  "/verify-otp": { path: "/verify-otp", anonymous: "ok", owner: "ok", admin: "ok" },
  "/forgot-password": { path: "/forgot-password", anonymous: "ok", owner: "ok", admin: "ok" },
  // Without an e-mail to reset, the page starts at the request form.
  "/reset-password": { path: "/reset-password", anonymous: "→/forgot-password", owner: "→/forgot-password", admin: "→/forgot-password" },
  "/logout": { path: "/logout", anonymous: "→/signin", owner: "→/signin", admin: "→/signin" },
  // The language switcher's form target: a GET goes home, whoever asks (decision 071).
  "/language": { path: "/language", anonymous: "→/", owner: "→/", admin: "→/" },
  // Where a refused member lands: it answers 403 and says so (tests/integration/role-matrix.test.ts has every role).
  "/unauthorized": { path: "/unauthorized", anonymous: "403", owner: "403", admin: "403" },
  // Spec section 6: /dashboard for individuals only, /admin and admin/profile for admins only,
  // every other private page for any signed-in user.
  "/dashboard": { path: "/dashboard", anonymous: "login", owner: "ok", admin: "denied" },
  "/get-started": { path: "/get-started", anonymous: "login", owner: "ok", admin: "ok" },
  "/profile": { path: "/profile", anonymous: "login", owner: "ok", admin: "ok" },
  "/change-password": { path: "/change-password", anonymous: "login", owner: "ok", admin: "ok" },
  "/preferences/sidebar": { path: "/preferences/sidebar", anonymous: "login", owner: "→/dashboard", admin: "→/admin" },
  "/whatsapp": { path: "/whatsapp", anonymous: "login", owner: "ok", admin: "ok" },
  // Without Meta's code the callback says what is missing.
  "/embedded-callback": {
    path: "/embedded-callback",
    anonymous: "login",
    owner: "→/embedded-callback?outcome=missing",
    admin: "→/embedded-callback?outcome=missing",
  },
  "/activity": { path: "/activity", anonymous: "login", owner: "ok", admin: "ok" },
  "/developers": { path: "/developers", anonymous: "login", owner: "ok", admin: "ok" },
  "/developers/errors": { path: "/developers/errors", anonymous: "login", owner: "ok", admin: "ok" },
  // An endpoint's page (api-error-catalogue.test.ts: an id the API does not have is 404).
  "/developers/api/:operation": { path: "/developers/api/sendMessage", anonymous: "login", owner: "ok", admin: "ok" },
  // A template's media sample: another organisation's (or no) template is 404.
  "/templates/:id/sample": {
    path: "/templates/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/sample",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  // The contacts CSV import and export (issue 13): another tenant's import id and an unknown one look the same.
  "/messaging/contacts/import": { path: "/messaging/contacts/import", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging/contacts/import/:id": {
    path: "/messaging/contacts/import/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  "/messaging/contacts/import/:id/rejected.csv": {
    path: "/messaging/contacts/import/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/rejected.csv",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  "/messaging/contacts/export.csv": {
    path: "/messaging/contacts/export.csv",
    anonymous: "→/login?from=%2Fmessaging%2Fcontacts",
    owner: "ok",
    admin: "ok",
  },
  // A contact's data as a file (the right of access): nobody's contact is not found; signed out, sign in to its page.
  "/messaging/contacts/:id/data.json": {
    path: "/messaging/contacts/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/data.json",
    anonymous: "→/login?from=%2Fmessaging%2Fcontacts%2F6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    owner: "404",
    admin: "404",
  },
  // A Shopify customer's data request as a file (decision 108): nobody's request is not found; signed out, sign in to the Shopify page.
  "/integrations/shopify/requests/:id/data.json": {
    path: "/integrations/shopify/requests/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/data.json",
    anonymous: "→/login?from=%2Fintegrations%2Fshopify",
    owner: "404",
    admin: "404",
  },
  "/whatsapp-setup": { path: "/whatsapp-setup", anonymous: "→/whatsapp", owner: "→/whatsapp", admin: "→/whatsapp" },
  // Spec pages not built yet answer "coming soon" to any signed-in user.
  "/search": { path: "/search?q=whatsapp", anonymous: "login", owner: "ok", admin: "ok" },
  // What the search boxes list as one types (issue 74): JSON, each member's own.
  "/search/suggest": { path: "/search/suggest?q=whatsapp", anonymous: "login", owner: "ok", admin: "ok" },
  "/templates": { path: "/templates", anonymous: "login", owner: "ok", admin: "ok" },
  "/templates/new": { path: "/templates/new", anonymous: "login", owner: "ok", admin: "ok" },
  // Nobody's template: another tenant's id and an unknown one look the same.
  "/templates/:id/edit": { path: "/templates/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/edit", anonymous: "login", owner: "404", admin: "404" },
  "/preview": { path: "/preview", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging": { path: "/messaging", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging/broadcasts": { path: "/messaging/broadcasts", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging/contacts": { path: "/messaging/contacts", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging/contacts/segments": { path: "/messaging/contacts/segments", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging/contacts/fields": { path: "/messaging/contacts/fields", anonymous: "login", owner: "ok", admin: "ok" },
  // Nobody's contact: another tenant's id and an unknown one look the same.
  "/messaging/contacts/:id": {
    path: "/messaging/contacts/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  // Campaigns and quick broadcasts (issue 14): nobody's campaign is not found; its downloads and events ask to sign in to its page.
  "/messaging/campaigns/new": { path: "/messaging/campaigns/new", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging/broadcasts/new": { path: "/messaging/broadcasts/new", anonymous: "login", owner: "ok", admin: "ok" },
  "/messaging/campaigns/:id": {
    path: "/messaging/campaigns/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  "/messaging/campaigns/:id/results.csv": {
    path: "/messaging/campaigns/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/results.csv",
    anonymous: "→/login?from=%2Fmessaging%2Fcampaigns%2F6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    owner: "404",
    admin: "404",
  },
  "/messaging/campaigns/:id/events": {
    path: "/messaging/campaigns/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/events",
    anonymous: "→/login?from=%2Fmessaging%2Fcampaigns%2F6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    owner: "404",
    admin: "404",
  },
  "/messaging/events": {
    path: "/messaging/events?ids=6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "→/login?from=%2Fmessaging",
    owner: "ok",
    admin: "ok",
  },
  // The inbox: every role reads it (the platform administrator their own organisation's); nobody's conversation is not found.
  "/chat": { path: "/chat", anonymous: "login", owner: "ok", admin: "ok" },
  "/chat/:id": { path: "/chat/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "login", owner: "404", admin: "404" },
  "/chat/:id/sms": { path: "/chat/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/sms", anonymous: "login", owner: "404", admin: "404" },
  "/chat/:id/conversion": { path: "/chat/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/conversion", anonymous: "login", owner: "404", admin: "404" },
  "/chat/events": { path: "/chat/events", anonymous: "→/login?from=%2Fchat", owner: "406", admin: "406" },
  "/chat/media/:id": { path: "/chat/media/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "login", owner: "404", admin: "404" },
  "/chat/ads/:id/picture": {
    path: "/chat/ads/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/picture",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  // The saved answers: owners and admins (and a platform administrator in their own organisation).
  "/chat/quick-replies": { path: "/chat/quick-replies", anonymous: "login", owner: "ok", admin: "ok" },
  // Writing to one customer first: those who answer customers.
  "/chat/new": { path: "/chat/new", anonymous: "login", owner: "ok", admin: "ok" },
  // The shop (decision 138): every member sees products and orders; nobody's product or order is not found.
  "/shop/products": { path: "/shop/products", anonymous: "login", owner: "ok", admin: "ok" },
  "/shop/products/new": { path: "/shop/products/new", anonymous: "login", owner: "ok", admin: "ok" },
  "/shop/products/import": { path: "/shop/products/import", anonymous: "login", owner: "ok", admin: "ok" },
  "/shop/products/:id": { path: "/shop/products/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "login", owner: "404", admin: "404" },
  "/shop/orders": { path: "/shop/orders", anonymous: "login", owner: "ok", admin: "ok" },
  "/shop/orders/:id": { path: "/shop/orders/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "login", owner: "404", admin: "404" },
  "/shop/orders.csv": { path: "/shop/orders.csv", anonymous: "→/login?from=%2Fshop%2Forders", owner: "ok", admin: "ok" },
  // Automations (issue 44): every member reads the rules and the welcome and away messages; a rule's
  // form is for owners and admins (a platform administrator in their own organisation); nobody's rule is not found.
  "/automations": { path: "/automations", anonymous: "login", owner: "ok", admin: "ok" },
  "/automations/new": { path: "/automations/new", anonymous: "login", owner: "ok", admin: "ok" },
  "/automations/hours": { path: "/automations/hours", anonymous: "login", owner: "ok", admin: "ok" },
  "/automations/assistant": { path: "/automations/assistant", anonymous: "login", owner: "ok", admin: "ok" },
  "/automations/knowledge": { path: "/automations/knowledge", anonymous: "login", owner: "ok", admin: "ok" },
  "/automations/:id": { path: "/automations/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "login", owner: "404", admin: "404" },
  // Chatbot flows: every member reads them; a new flow is for owners and admins; nobody's flow is not found.
  "/automations/flows": { path: "/automations/flows", anonymous: "login", owner: "ok", admin: "ok" },
  "/automations/flows/new": { path: "/automations/flows/new", anonymous: "login", owner: "ok", admin: "ok" },
  "/automations/flows/:id": {
    path: "/automations/flows/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  // Advanced Analytics and its daily CSV (issue 18).
  "/analytics": { path: "/analytics", anonymous: "login", owner: "ok", admin: "ok" },
  "/analytics/daily.csv": { path: "/analytics/daily.csv", anonymous: "login", owner: "ok", admin: "ok" },
  // The Payments section's CSV (issue 76).
  "/analytics/payments.csv": { path: "/analytics/payments.csv", anonymous: "login", owner: "ok", admin: "ok" },
  "/analytics/ads": { path: "/analytics/ads", anonymous: "login", owner: "ok", admin: "ok" },
  "/analytics/ads.csv": { path: "/analytics/ads.csv", anonymous: "login", owner: "ok", admin: "ok" },
  "/billing": { path: "/billing", anonymous: "login", owner: "ok", admin: "ok" },
  // A payment's page, an invoice and its PDF: nobody's id is not found. Paystack's return without a reference neither.
  "/billing/payments/:id": {
    path: "/billing/payments/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  "/billing/invoices/:id": {
    path: "/billing/invoices/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  "/billing/invoices/:id/pdf": {
    path: "/billing/invoices/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/pdf",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  "/billing/card-return": { path: "/billing/card-return", anonymous: "login", owner: "404", admin: "404" },
  // Nobody's settlement: 404 to everyone (the partner's own and the console's: revenue-share-statement.test.ts).
  "/revenue-share/settlements/:id/statement": {
    path: "/revenue-share/settlements/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/statement",
    anonymous: "login",
    owner: "404",
    admin: "404",
  },
  // Payments in: POST only (each checks its secret address or signature; tested with the billing flows).
  "/webhooks/mpesa/stk/:paymentId/:secret": {
    path: "/webhooks/mpesa/stk/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/x",
    anonymous: "405",
    owner: "405",
    admin: "405",
  },
  "/webhooks/paybill/:secret/:step": { path: "/webhooks/paybill/x/validation", anonymous: "405", owner: "405", admin: "405" },
  // Payment requests' Daraja calls (decision 137): the shortcode's token in the path.
  "/webhooks/pay/:token/stk": { path: "/webhooks/pay/x/stk", anonymous: "405", owner: "405", admin: "405" },
  "/webhooks/pay/:token/c2b/:step": { path: "/webhooks/pay/x/c2b/confirmation", anonymous: "405", owner: "405", admin: "405" },
  "/webhooks/mpesa/b2c/:payoutId/:secret/:kind": {
    path: "/webhooks/mpesa/b2c/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/x/result",
    anonymous: "405",
    owner: "405",
    admin: "405",
  },
  "/webhooks/paystack": { path: "/webhooks/paystack", anonymous: "405", owner: "405", admin: "405" },
  // Africa's Talking's callbacks (decision 148): POST only, the organisation's token in the path.
  "/webhooks/sms/:token/:kind": { path: "/webhooks/sms/x/delivery", anonymous: "405", owner: "405", admin: "405" },
  // Account Settings opens at the organisation for its owners and admins, at the team for everyone else.
  "/settings": { path: "/settings", anonymous: "login", owner: "→/settings/organisation", admin: "→/settings/team" },
  // The organisation's details (owners and admins) and closing it (the owner): not a platform administrator's.
  "/settings/organisation": { path: "/settings/organisation", anonymous: "login", owner: "ok", admin: "denied" },
  "/settings/team": { path: "/settings/team", anonymous: "login", owner: "ok", admin: "ok" },
  // The organisation's own M-Pesa (issue 76): owners, admins and agents see it; a platform administrator has none.
  "/settings/payments": { path: "/settings/payments", anonymous: "login", owner: "ok", admin: "denied" },
  // The organisation's Africa's Talking connection (decision 148): those who manage WhatsApp.
  "/settings/sms": { path: "/settings/sms", anonymous: "login", owner: "ok", admin: "ok" },
  "/settings/ads": { path: "/settings/ads", anonymous: "login", owner: "ok", admin: "ok" },
  // How long the organisation keeps its data (issue 78): its owners and admins, not a platform administrator.
  "/settings/retention": { path: "/settings/retention", anonymous: "login", owner: "ok", admin: "denied" },
  "/settings/security": { path: "/settings/security", anonymous: "login", owner: "ok", admin: "ok" },
  // Who each event e-mails: owners and admins of an organisation; the platform administrator has none to set.
  "/settings/notifications": { path: "/settings/notifications", anonymous: "login", owner: "ok", admin: "denied" },
  // Your own notifications: every role. Nobody's id is not found.
  "/notifications": { path: "/notifications", anonymous: "login", owner: "ok", admin: "ok" },
  "/notifications/:id": { path: "/notifications/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "login", owner: "404", admin: "404" },
  // The bell's live stream answers only an EventSource (Accept: text/event-stream); this table asks for HTML.
  "/notifications/events": { path: "/notifications/events", anonymous: "→/login?from=%2Fnotifications", owner: "406", admin: "406" },
  "/settings/account": { path: "/settings/account", anonymous: "login", owner: "ok", admin: "denied" },
  // A link that was never sent: the page says so, with 404.
  "/invitations/:token": { path: "/invitations/no-such-token", anonymous: "404", owner: "404", admin: "404" },
  "/integrations": { path: "/integrations", anonymous: "login", owner: "ok", admin: "ok" },
  // A provider's OAuth return: owners and admins (developer:manage); without the state it started with, 400 in words.
  "/integrations/:provider/callback": { path: "/integrations/hubspot/callback", anonymous: "login", owner: "400", admin: "400" },
  // Google Sheets' settings: once it is connected (the demo business is), else 404 in words.
  "/integrations/google-sheets": { path: "/integrations/google-sheets", anonymous: "login", owner: "ok", admin: "404" },
  // The Google Picker's token (issue 73): posted by the page's script; a GET is 405.
  "/integrations/google-sheets/picker-token": {
    path: "/integrations/google-sheets/picker-token",
    anonymous: "login",
    owner: "405",
    admin: "405",
  },
  // The Shopify connector's settings: developer:view to read, developer:manage to save; 404 without a
  // connected shop (the platform administrator has none; the demo business has one).
  "/integrations/shopify": { path: "/integrations/shopify", anonymous: "login", owner: "ok", admin: "404" },
  // HubSpot's settings page (decision 083): members with developer:view; 404 in words until HubSpot is connected.
  "/integrations/hubspot": { path: "/integrations/hubspot", anonymous: "login", owner: "ok", admin: "404" },
  // The partner programme (issue 46): the page for owners, admins and platform administrators; its
  // three other tabs and the CSV declare platform:console (issue 72): an organisation's owner is refused.
  "/revenue-share": { path: "/revenue-share", anonymous: "login", owner: "ok", admin: "ok" },
  "/revenue-share/partners": { path: "/revenue-share/partners", anonymous: "login", owner: "denied", admin: "ok" },
  "/revenue-share/transactions": { path: "/revenue-share/transactions", anonymous: "login", owner: "denied", admin: "ok" },
  "/revenue-share/settlements": { path: "/revenue-share/settlements", anonymous: "login", owner: "denied", admin: "ok" },
  "/revenue-share/transactions.csv": { path: "/revenue-share/transactions.csv", anonymous: "login", owner: "denied", admin: "ok" },
  // The admin console: 404 to anyone but a platform administrator, signed in or not (decision 037); a foreign or unknown id is 404 too.
  "/admin": { path: "/admin", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/export.csv": { path: "/admin/export.csv", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/users": { path: "/admin/users", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/users/export.csv": { path: "/admin/users/export.csv", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/users/:id": { path: "/admin/users/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "404", owner: "404", admin: "404" },
  "/admin/billing": { path: "/admin/billing", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/billing/export.csv": { path: "/admin/billing/export.csv", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/billing/invoices/:id": {
    path: "/admin/billing/invoices/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "404",
    owner: "404",
    admin: "404",
  },
  "/admin/billing/invoices/:id/pdf": {
    path: "/admin/billing/invoices/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/pdf",
    anonymous: "404",
    owner: "404",
    admin: "404",
  },
  "/admin/billing/disputes/:id": {
    path: "/admin/billing/disputes/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "404",
    owner: "404",
    admin: "404",
  },
  "/admin/billing/wallets/:id": {
    path: "/admin/billing/wallets/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "404",
    owner: "404",
    admin: "404",
  },
  "/admin/whatsapp": { path: "/admin/whatsapp", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/whatsapp/export.csv": { path: "/admin/whatsapp/export.csv", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/whatsapp/:id": { path: "/admin/whatsapp/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "404", owner: "404", admin: "404" },
  "/admin/system": { path: "/admin/system", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/system/export.csv": { path: "/admin/system/export.csv", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/templates": { path: "/admin/templates", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/templates/export.csv": { path: "/admin/templates/export.csv", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/templates/:id": { path: "/admin/templates/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", anonymous: "404", owner: "404", admin: "404" },
  "/admin/templates/:id/header-sample": {
    path: "/admin/templates/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/header-sample",
    anonymous: "404",
    owner: "404",
    admin: "404",
  },
  "/admin/audit": { path: "/admin/audit", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/audit/export.csv": { path: "/admin/audit/export.csv", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/search": { path: "/admin/search?q=sacco", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/notifications": { path: "/admin/notifications", anonymous: "404", owner: "404", admin: "ok" },
  // The console's staff (issue 74): its owners' (finance and support staff: admin-staff.test.ts).
  "/admin/staff": { path: "/admin/staff", anonymous: "404", owner: "404", admin: "ok" },
  "/admin/profile": { path: "/admin/profile", anonymous: "404", owner: "404", admin: "ok" },
  // Any other console address: not found to everyone, so none says whether it exists.
  "/admin/*": { path: "/admin/no-such-page", anonymous: "404", owner: "404", admin: "404" },
  // Prometheus's scrape: a bearer token (METRICS_TOKEN), never a session; none given is 401.
  "/metrics": { path: "/metrics", anonymous: "401", owner: "401", admin: "401" },
  "/api/auth/me": { path: "/api/auth/me", anonymous: "401", owner: "ok", admin: "ok" },
  "/api/auth/signin": { path: "/api/auth/signin", anonymous: "405", owner: "405", admin: "405" },
  "/api/auth/two-factor": { path: "/api/auth/two-factor", anonymous: "405", owner: "405", admin: "405" },
  "/api/auth/email-code": { path: "/api/auth/email-code", anonymous: "405", owner: "405", admin: "405" },
  "/api/auth/signup": { path: "/api/auth/signup", anonymous: "405", owner: "405", admin: "405" },
  "/api/auth/verify-otp": { path: "/api/auth/verify-otp", anonymous: "405", owner: "405", admin: "405" },
  "/api/auth/resend-otp": { path: "/api/auth/resend-otp", anonymous: "405", owner: "405", admin: "405" },
  "/api/auth/logout": { path: "/api/auth/logout", anonymous: "405", owner: "405", admin: "405" },
  "/api/embedded-signup/status": { path: "/api/embedded-signup/status", anonymous: "401", owner: "ok", admin: "ok" },
  // Missing code and WABA: the spec's 400 once the caller may connect at all.
  "/api/meta/embedded-callback": {
    path: "/api/meta/embedded-callback",
    anonymous: "401",
    owner: "400" as Outcome,
    admin: "400" as Outcome,
  },
  "/api/whatsapp/accounts": { path: "/api/whatsapp/accounts", anonymous: "401", owner: "ok", admin: "ok" },
  "/api/whatsapp/accounts/:id/:change": {
    path: "/api/whatsapp/accounts/00000000-0000-4000-8000-000000000000/disconnect",
    anonymous: "405",
    owner: "405",
    admin: "405",
  },
  "/api/admin/queue": { path: "/api/admin/queue", anonymous: "404", owner: "404", admin: "ok" },
  "/api/activity-logs": { path: "/api/activity-logs", anonymous: "401", owner: "ok", admin: "ok" },
  // A browser opening the export link signed out is sent to sign in and back to the Activity page.
  "/api/activity-logs/export": { path: "/api/activity-logs/export", anonymous: "→/login?from=%2Factivity", owner: "ok", admin: "ok" },
  "/api/developer/api-key": { path: "/api/developer/api-key", anonymous: "401", owner: "ok", admin: "ok" },
  "/api/developer/api-key/regenerate": { path: "/api/developer/api-key/regenerate", anonymous: "405", owner: "405", admin: "405" },
  // The public API takes API keys, never the session cookie.
  "/api/billing/wallet": { path: "/api/billing/wallet", anonymous: "401", owner: "ok", admin: "ok" },
  "/api/billing/topups": { path: "/api/billing/topups", anonymous: "405", owner: "405", admin: "405" },
  "/api/billing/topups/:id": {
    path: "/api/billing/topups/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    anonymous: "401",
    owner: "404",
    admin: "404",
  },
  "/api/billing/invoices": { path: "/api/billing/invoices", anonymous: "401", owner: "ok", admin: "ok" },
  "/api/v1/*": { path: "/api/v1/account", anonymous: "401", owner: "401", admin: "401" },
  "/api/*": { path: "/api/no-such-route", anonymous: "404", owner: "404", admin: "404" },
  "/*": { path: "/no/such/page", anonymous: "→/", owner: "→/", admin: "→/" },
};

/** POSTs that change state: nobody without the permission gets past the guard. */
const POSTS: { path: string; form?: Record<string, string>; anonymous: Outcome; owner?: Outcome }[] = [
  { path: "/developers", form: { intent: "regenerate" }, anonymous: "login" },
  { path: "/integrations", form: { intent: "connect", integration: "hubspot" }, anonymous: "login" },
  { path: "/integrations/google-sheets", form: { intent: "export" }, anonymous: "login" },
  { path: "/integrations/hubspot", form: { intent: "sync" }, anonymous: "login" },
  { path: "/revenue-share/partners", form: { intent: "enrol" }, anonymous: "login", owner: "denied" as Outcome },
  { path: "/whatsapp", form: { intent: "disconnect", accountId: "00000000-0000-4000-8000-000000000000" }, anonymous: "login" },
  { path: "/profile", form: { intent: "profile" }, anonymous: "login" },
  { path: "/change-password", form: {}, anonymous: "login" },
  { path: "/preferences/sidebar", form: { collapsed: "1" }, anonymous: "login" },
  { path: "/settings/team", form: { intent: "invite", email: "someone@example.co.ke", role: "agent" }, anonymous: "login" },
  // A shortcode the organisation does not have: not found.
  {
    path: "/settings/payments",
    form: { intent: "test", shortcode: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" },
    anonymous: "login",
    owner: "404" as Outcome,
  },
  { path: "/settings/security", form: { intent: "others" }, anonymous: "login" },
  { path: "/settings/security", form: { intent: "2fa-start" }, anonymous: "login" },
  { path: "/settings/notifications", form: { intent: "save" }, anonymous: "login" },
  { path: "/notifications", form: { intent: "read-all" }, anonymous: "login" },
  { path: "/chat/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", form: { intent: "note", note: "x" }, anonymous: "login", owner: "404" as Outcome },
  // A saved answer with a bad shortcut: refused at the field, signed in or not.
  { path: "/chat/quick-replies", form: { intent: "add", shortcut: "two words", body: "x" }, anonymous: "login", owner: "400" as Outcome },
  // Automations: nobody's rule is not found; a time that does not exist is refused at its field.
  {
    path: "/automations",
    form: { intent: "disable", id: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" },
    anonymous: "login",
    owner: "404" as Outcome,
  },
  { path: "/automations/hours", form: { "from-1-0": "25:00", "to-1-0": "17:00" }, anonymous: "login", owner: "400" as Outcome },
  // Broadcast approval: the owner's setting, and approving a campaign (nobody's campaign is not found).
  { path: "/settings/team", form: { intent: "approval", enabled: "on", threshold: "abc" }, anonymous: "login", owner: "400" as Outcome },
  {
    path: "/messaging/campaigns/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    form: { intent: "approve" },
    anonymous: "login",
    owner: "404" as Outcome,
  },
  { path: "/settings/organisation", form: { name: "Someone Else Ltd", timeZone: "Africa/Nairobi" }, anonymous: "login" },
  {
    path: "/settings/account",
    form: { intent: "close", password: "JumbeDemo#2026", confirmName: "Nyota Savings Sacco" },
    anonymous: "login",
  },
  { path: "/api/developer/api-key/regenerate", anonymous: "401" },
  // Billing: a top-up below KES 10 is refused at its field (422), a dispute of nobody's invoice is not found.
  { path: "/billing", form: { intent: "topup", amount: "5", method: "bank" }, anonymous: "login", owner: "422" as Outcome },
  { path: "/billing", form: { intent: "alerts", lowBalance: "abc" }, anonymous: "login", owner: "422" as Outcome },
  {
    path: "/billing/invoices/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
    form: { intent: "dispute", reason: "The amount is not what we agreed." },
    anonymous: "login",
    owner: "404" as Outcome,
  },
  { path: "/api/whatsapp/accounts/00000000-0000-4000-8000-000000000000/disconnect", anonymous: "401", owner: "404" },
  // The console's platform setting: 404 to anyone but an administrator.
  { path: "/admin/templates", form: { intent: "new-organisations", hold: "on" }, anonymous: "404", owner: "404" },
];

function routePaths(entries: RouteConfigEntry[], parent = ""): string[] {
  return entries.flatMap((entry) => {
    const own = entry.index ? parent : entry.path === undefined ? parent : `${parent}/${entry.path}`;
    const here = entry.path === undefined && !entry.index ? [] : [own || "/"];
    return [...here, ...routePaths(entry.children ?? [], own)];
  });
}

/** What the routes along a path declare: every permission needed (none: any member), or undefined for a public path. */
const needs = (path: string) => routeAccess(path)?.permissions;

/** The layouts whose routes are signed in: each route below them declares its permission. */
const SIGNED_IN_LAYOUTS = ["routes/app/layout", "routes/app/resources"];

let server: BuiltServer;
const cookies: Record<"anonymous" | "owner" | "admin", string> = { anonymous: "", owner: "", admin: "" };

beforeAll(async () => {
  // The routes' declared permissions, read from the application's routes as the server reads its build's.
  await appBuild();
  if (!buildExists()) return;
  server = await startBuiltServer();
  cookies.owner = await signInCookie(server, DEMO);
  cookies.admin = await signInCookie(server, ADMIN);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

function outcomeOf(path: string, response: { status: number; headers: Record<string, unknown>; body: string }): string {
  const location = String(response.headers.location ?? "");
  if (response.status === 302 || response.status === 303) {
    if (location === `/login?from=${encodeURIComponent(path)}`) return "login";
    if (location === "/unauthorized") return "denied";
    return `→${location}`;
  }
  if (response.status >= 200 && response.status < 300) return "ok";
  return String(response.status);
}

describe("the permissions table", () => {
  it("lists every route of app/routes.ts", () => {
    const paths = [...new Set(routePaths(routes))];
    expect(paths.filter((path) => !ROWS[path])).toEqual([]);
    expect(Object.keys(ROWS).filter((path) => !paths.includes(path))).toEqual([]);
  });

  it("has every signed-in route of app/routes.ts, page or download, declare a permission that exists", () => {
    const all = declaredRoutes();
    const signedIn = all.filter((route) => route.under.some((id) => SIGNED_IN_LAYOUTS.includes(id)));
    expect(signedIn.length).toBeGreaterThan(50);
    expect(signedIn.filter((route) => !route.permission).map((route) => route.pattern)).toEqual([]);
    for (const route of all)
      if (route.permission && route.permission !== "signed-in") expect(PERMISSIONS, route.pattern).toContain(route.permission);
    // The console's layout declares it for every page, export and detail below it (decision 037).
    expect(all.find((route) => route.id === "routes/admin/layout")?.permission).toBe("platform:console");
    expect(needs("/admin/users/export.csv")).toEqual(["platform:console"]);
    expect(needs("/admin/profile")).toEqual(["platform:console", "account:manage"]);
    // The downloads and live streams sit under a layout too, at their own addresses.
    for (const path of ["/chat/events", "/notifications/events", "/messaging/contacts/export.csv", "/analytics/daily.csv"])
      expect(
        signedIn.map((route) => route.pattern),
        path,
      ).toContain(path);
    // Public addresses declare nothing.
    for (const path of ["/", "/login", "/whatsapp-setup", "/no/such/page", "/webhooks/paystack"]) expect(needs(path), path).toBeUndefined();
  });

  it("has no route outside the signed-in layouts check a session by hand (the JSON API has its own guards)", async () => {
    const guarded = (id: string) => SIGNED_IN_LAYOUTS.includes(id) || id === "routes/admin/layout";
    const outside = declaredRoutes().filter(
      (route) => !guarded(route.id) && !route.under.some(guarded) && !route.id.startsWith("routes/api/"),
    );
    const build = await appBuild();
    const byHand = outside.filter((route) => {
      const loader = (build.routes[route.id]?.module as { loader?: unknown }).loader;
      return typeof loader === "function" && /require(UserWith|Resource)Permission\)?\(/.test(loader.toString());
    });
    expect(byHand.map((route) => route.pattern)).toEqual([]);
  });

  it("gives each role only permissions that exist, and keeps the console to platform administrators", () => {
    for (const role of ROLES) for (const permission of ROLE_PERMISSIONS[role]) expect(PERMISSIONS).toContain(permission);
    // The console's staff (issue 74): owners, finance and support; money and the staff are some of theirs only.
    expect(ROLES.filter((role) => can(role, "platform:console"))).toEqual(["platform_admin", "platform_finance", "platform_support"]);
    expect(ROLES.filter((role) => can(role, "platform:money"))).toEqual(["platform_admin", "platform_finance"]);
    expect(ROLES.filter((role) => can(role, "platform:staff"))).toEqual(["platform_admin"]);
    expect(ROLES.filter((role) => can(role, "overview:view"))).toEqual(["owner", "admin", "agent", "viewer"]);
    // Agents and viewers see the setup and the log but change neither the connection nor the keys.
    for (const role of ["agent", "viewer"] as const) {
      expect(can(role, "whatsapp:manage"), role).toBe(false);
      expect(can(role, "developer:view"), role).toBe(false);
      expect(can(role, "developer:manage"), role).toBe(false);
    }
  });

  it("lets every member see the team and only owners and admins change it; only the owner hands over the ownership", () => {
    expect(ROLES.filter((role) => can(role, "team:view"))).toEqual([
      "platform_admin",
      "platform_finance",
      "platform_support",
      "owner",
      "admin",
      "agent",
      "viewer",
    ]);
    expect(ROLES.filter((role) => can(role, "team:manage"))).toEqual(["owner", "admin"]);
    expect(ROLES.filter((role) => can(role, "ownership:transfer"))).toEqual(["owner"]);
    // Maker-checker: owners and admins approve; only the owner turns the check on or off.
    expect(ROLES.filter((role) => can(role, "campaigns:approve"))).toEqual(["owner", "admin"]);
    expect(ROLES.filter((role) => can(role, "approvals:configure"))).toEqual(["owner"]);
    expect(needs("/settings/team")).toEqual(["team:view"]);
  });

  it("lets every member read the automations, and only owners and admins (and a platform administrator at home) change them", () => {
    expect(ROLES.filter((role) => can(role, "automations:view"))).toEqual([...ROLES]);
    expect(ROLES.filter((role) => can(role, "automations:manage"))).toEqual([
      "platform_admin",
      "platform_finance",
      "platform_support",
      "owner",
      "admin",
    ]);
    for (const path of ["/automations", "/automations/hours"]) expect(needs(path), path).toEqual(["automations:view"]);
    for (const path of ["/automations/new", "/automations/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f"])
      expect(needs(path), path).toEqual(["automations:manage"]);
  });

  it("keeps the organisation's details to owners and admins, and closing it to the owner", () => {
    expect(ROLES.filter((role) => can(role, "organization:manage"))).toEqual(["owner", "admin"]);
    expect(ROLES.filter((role) => can(role, "organization:close"))).toEqual(["owner"]);
    expect(needs("/settings/organisation")).toEqual(["organization:manage"]);
    expect(needs("/settings/account")).toEqual(["organization:close"]);
    expect(safeRedirectTarget("/settings/organisation", "agent")).toBe("/dashboard");
    expect(safeRedirectTarget("/settings/account", "admin")).toBe("/dashboard");
  });

  it("shows campaigns to everyone who sees the Message Center and lets only those who manage contacts make or change them", () => {
    expect(ROLES.filter((role) => can(role, "campaigns:view"))).toEqual(ROLES.filter((role) => can(role, "messaging:view")));
    expect(ROLES.filter((role) => can(role, "campaigns:manage"))).toEqual(ROLES.filter((role) => can(role, "contacts:manage")));
    expect(can("viewer", "campaigns:manage")).toBe(false);
    const id = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
    expect(needs("/messaging/campaigns/new")).toEqual(["campaigns:manage"]);
    expect(needs("/messaging/broadcasts/new")).toEqual(["campaigns:manage"]);
    for (const path of [`/messaging/campaigns/${id}`, `/messaging/campaigns/${id}/results.csv`, `/messaging/campaigns/${id}/events`])
      expect(needs(path), path).toEqual(["campaigns:view"]);
  });

  it("keeps the contact import to those who manage contacts: a viewer is refused its pages, its post and its rejected rows", async () => {
    const id = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";
    const upload = "/messaging/contacts/import";
    const report = `/messaging/contacts/import/${id}`;
    const rejected = `/messaging/contacts/import/${id}/rejected.csv`;
    for (const path of [upload, `${upload}/`, report, rejected]) expect(needs(path), path).toEqual(["contacts:manage"]);
    expect(needs(`/messaging/contacts/import/${id}/other`)).toBeUndefined();
    expect(ROLES.filter((role) => can(role, "contacts:manage"))).toEqual([
      "platform_admin",
      "platform_finance",
      "platform_support",
      "owner",
      "admin",
      "agent",
    ]);

    const member = await createVerifiedUser();
    const cookie = await signedInCookie(member.email, member.password);
    await giveRole(member.user.id, "viewer");
    try {
      // The layouts' middleware, before any loader or action: the pages' and the download's.
      const browser = { cookie, headers: { accept: "text/html" } };
      for (const request of [
        getRequest(upload, browser),
        getRequest(report, browser),
        formRequest(report, {}, browser),
        getRequest(rejected, browser),
      ]) {
        const response = await appFetch(request);
        expect([response.status, response.headers.get("location")], `${request.method} ${request.url}`).toEqual([302, "/unauthorized"]);
      }
      // The pages' own guards answer the same.
      expect((await run(importUpload.loader, getRequest(upload, { cookie }))).location).toBe("/unauthorized");
      expect((await run(importUpload.action, formRequest(upload, {}, { cookie }))).location).toBe("/unauthorized");
      expect((await run(importRun.loader, getRequest(report, { cookie }))).location).toBe("/unauthorized");
      // Sign-in does not send a viewer there either; the contact book itself stays open to them.
      expect(safeRedirectTarget(upload, "viewer")).toBe("/dashboard");
      expect((await appFetch(getRequest("/messaging/contacts", browser))).status).toBe(200);
    } finally {
      await giveRole(member.user.id, "owner");
    }
    expect((await run(importUpload.loader, getRequest(upload, { cookie }))).status).toBe(200);
  });
});

describe("the layouts' middleware answers each role as the routes declare", () => {
  const id = "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f";

  async function answer(path: string, role: Role | "anonymous", accept = "text/html") {
    const member = await createVerifiedUser();
    const cookie = role === "anonymous" ? undefined : await signedInCookie(member.email, member.password);
    if (role !== "anonymous") await giveRole(member.user.id, role);
    const response = await appFetch(getRequest(path, { cookie, headers: { accept } }));
    await response.body?.cancel();
    return `${response.status} ${response.headers.get("location") ?? ""}`.trim();
  }

  it("refuses pages and downloads to the roles without their permission, and asks a visitor to sign in", async () => {
    expect(await answer("/billing", "agent")).toBe("302 /unauthorized");
    expect(await answer("/settings/organisation", "viewer")).toBe("302 /unauthorized");
    expect(await answer("/settings/account", "admin")).toBe("302 /unauthorized");
    expect(await answer("/chat/quick-replies", "agent")).toBe("302 /unauthorized");
    expect(await answer("/automations/new", "agent")).toBe("302 /unauthorized");
    expect(await answer("/automations", "viewer")).toBe("200");
    expect(await answer("/dashboard", "platform_admin")).toBe("302 /unauthorized");
    expect(await answer("/integrations", "viewer")).toBe("302 /unauthorized");
    expect(await answer("/integrations/hubspot/callback", "agent")).toBe("302 /unauthorized");
    expect(await answer("/revenue-share", "agent")).toBe("302 /unauthorized");
    expect(await answer("/developers", "anonymous")).toBe(`302 /login?from=${encodeURIComponent("/developers")}`);
    // Downloads: a browser is sent to /unauthorized, a script told 403; a visitor signs in to the page the route names.
    expect(await answer("/messaging/contacts/export.csv", "viewer")).toBe("302 /unauthorized");
    expect(await answer("/messaging/contacts/export.csv", "viewer", "*/*")).toBe("403");
    expect(await answer(`/billing/invoices/${id}/pdf`, "agent")).toBe("302 /unauthorized");
    expect(await answer("/billing/card-return?reference=abcdefgh", "viewer")).toBe("302 /unauthorized");
    expect(await answer(`/messaging/campaigns/${id}/results.csv`, "anonymous")).toBe(
      `302 /login?from=${encodeURIComponent(`/messaging/campaigns/${id}`)}`,
    );
    expect(await answer("/chat/events", "anonymous", "text/event-stream")).toBe("401");
  });
});

describe.skipIf(!buildExists())("every route checks permissions on the server (built server)", () => {
  it("answers each route as the table says for a visitor, an owner and a platform administrator", async () => {
    const wrong: string[] = [];
    for (const row of Object.values(ROWS)) {
      for (const who of ["anonymous", "owner", "admin"] as const) {
        const response = await rawRequest(server.base, {
          method: "GET",
          path: row.path,
          headers: { accept: "text/html", ...(cookies[who] ? { cookie: cookies[who] } : {}) },
        });
        const got = outcomeOf(row.path, response);
        if (got !== row[who]) wrong.push(`${who} GET ${row.path}: ${got}, expected ${row[who]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("answers a data request (client navigation) like its page", async () => {
    for (const [path, who, expected] of [
      ["/dashboard", "admin", "denied"],
      ["/admin", "owner", "404"],
      ["/admin/users", "anonymous", "404"],
      ["/developers", "anonymous", "login"],
    ] as const) {
      const response = await rawRequest(server.base, {
        method: "GET",
        path: `${path}.data`,
        headers: cookies[who] ? { cookie: cookies[who] } : {},
      });
      // The console does not exist for anyone but an administrator (decision 037), on a client navigation too.
      if (expected === "404") {
        expect(response.status, `${who} ${path}.data`).toBe(404);
        continue;
      }
      // Single fetch answers a redirect as 202 with the target in its body.
      const target = /"redirect","([^"]+)"/.exec(response.body)?.[1];
      expect(target, `${who} ${path}.data`).toBe(expected === "denied" ? "/unauthorized" : `/login?from=${encodeURIComponent(path)}`);
    }
  });

  it("refuses state-changing posts from anyone without the permission", async () => {
    const wrong: string[] = [];
    for (const post of POSTS) {
      for (const who of ["anonymous", "owner"] as const) {
        const expected = who === "anonymous" ? post.anonymous : post.owner;
        if (!expected) continue;
        const form = post.form ? new URLSearchParams(post.form).toString() : "";
        const response = await rawRequest(server.base, {
          method: "POST",
          path: post.path,
          headers: {
            origin: server.base,
            "content-type": post.form ? "application/x-www-form-urlencoded" : "application/json",
            ...(cookies[who] ? { cookie: cookies[who] } : {}),
          },
          body: post.form ? form : "{}",
        });
        const got = outcomeOf(post.path, response);
        if (got !== expected) wrong.push(`${who} POST ${post.path}: ${got}, expected ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
