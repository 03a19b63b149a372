import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import {
  campaigns,
  contactAttributes,
  contactImports,
  contacts,
  invitations,
  messageTemplates,
  orderItems,
  orders,
  organizations,
  products,
  quickReplies,
  segments,
  users,
} from "~/.server/infrastructure/db/schema";
import { createSession } from "~/.server/domains/auth/sessions";
import { sha256 } from "~/.server/infrastructure/security/crypto";
import { can, ROLES, type Permission, type Role } from "~/lib/permissions";
import { routeAccess } from "~/.server/domains/auth/route-permissions";
import { safeRedirectTarget } from "~/.server/domains/auth/guards";
import { appBuild, appFetch, flatRoutes } from "../support/in-process-app";
import { META } from "../support/accounts";
import { APP, cookieHeader } from "../support/http";
import { connectedNumber } from "../support/whatsapp";
import { tableDigests } from "../support/database";
import { demoData } from "../support/demo-snapshot";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { createRule } from "~/.server/domains/automations/rules";
import { createFlow, publishFlow } from "~/.server/domains/automations/flows/store";
import { addArticle } from "~/.server/domains/automations/assistant/knowledge";

/**
 * Issue 15: every role against every page, action and API. The expectations come from the one
 * permission table (app/lib/permissions.ts: ROLE_PERMISSIONS) and the permission each route declares
 * in its module's `handle` (decision 055), plus the short
 * lists below of routes it does not describe (public pages, the JSON API's own guards) and of each
 * action's intents. A route added to app/routes.ts, or an intent added to a route's action, without
 * its row here fails the first tests. The requests go to the application's own React Router in this
 * process (tests/support/in-process-app.ts), so the file runs on PGlite and PostgreSQL alike;
 * route-permissions.test.ts covers what Express adds on the built server.
 *
 * A refused member is sent to /unauthorized (spec section 6), which answers 403 and says plainly
 * that their role does not open the page; the JSON API answers 403 with spec section 8's message.
 */
type Who = Role | "anonymous";
const WHO: readonly Who[] = ["anonymous", ...ROLES];

/** What a route needs when its route declares nothing: public, any session, or (JSON API) a permission. */
type Need = "public" | "session" | Permission | readonly Permission[];
const NOT_IN_PAGE_TABLE: Record<string, { need: Need; why: string; api?: true }> = {
  "/": { need: "public", why: "the landing page" },
  "/privacy-policy": { need: "public", why: "legal" },
  "/privacy": { need: "public", why: "legal" },
  "/terms-of-service": { need: "public", why: "legal" },
  "/terms": { need: "public", why: "legal" },
  "/robots.txt": { need: "public", why: "for crawlers" },
  "/catalog-images/:file": {
    need: "public",
    why: "a product's uploaded picture, fetched by Meta's catalog at an unguessable name (decision 141)",
  },
  "/sitemap.xml": { need: "public", why: "for crawlers" },
  "/manifest.webmanifest": { need: "public", why: "the web app manifest" },
  "/dev/ui": { need: "public", why: "development only (404 in production)" },
  "/login": { need: "public", why: "signing in (a member goes home)" },
  "/signin": { need: "public", why: "signing in (a member goes home)" },
  "/login/two-factor": { need: "public", why: "signing in, step two (a member goes home)" },
  "/login/email-code": { need: "public", why: "signing in with an e-mailed code (a member goes home)" },
  "/signup": { need: "public", why: "signing up (a member goes home)" },
  "/verify-otp": { need: "public", why: "verifying an e-mail" },
  "/forgot-password": { need: "public", why: "resetting a password" },
  "/reset-password": { need: "public", why: "resetting a password" },
  "/logout": { need: "public", why: "signing out" },
  "/language": { need: "public", why: "choosing a language (a cookie), signed in or not" },
  "/unauthorized": { need: "public", why: "the page a refused member lands on" },
  "/invitations/:token": { need: "public", why: "an invitation's link, opened before signing in" },
  "/*": { need: "public", why: "any other path goes home" },
  "/metrics": { need: "public", why: "Prometheus's scrape: its own bearer token (METRICS_TOKEN)" },
  // Sends a member to /whatsapp, whose own permission applies.
  "/whatsapp-setup": { need: "public", why: "a redirect to /whatsapp, whose own permission applies" },
  // The cookie-authenticated JSON API (spec section 7): each route's guard, by its permission.
  "/api/auth/me": { need: "session", why: "who is signed in", api: true },
  "/api/auth/signin": { need: "public", why: "POST only", api: true },
  "/api/auth/two-factor": { need: "public", why: "POST only", api: true },
  "/api/auth/email-code": { need: "public", why: "POST only", api: true },
  "/api/auth/signup": { need: "public", why: "POST only", api: true },
  "/api/auth/verify-otp": { need: "public", why: "POST only", api: true },
  "/api/auth/resend-otp": { need: "public", why: "POST only", api: true },
  "/api/auth/logout": { need: "public", why: "POST only", api: true },
  "/api/embedded-signup/status": { need: "whatsapp:view", why: "the connection's state", api: true },
  "/api/meta/embedded-callback": { need: "whatsapp:manage", why: "connecting a number", api: true },
  "/api/whatsapp/accounts": { need: "whatsapp:view", why: "the connected accounts", api: true },
  "/api/billing/wallet": { need: "billing:view", why: "the wallet", api: true },
  "/api/billing/topups": { need: "billing:manage", why: "POST only: a top-up", api: true },
  "/api/billing/topups/:id": { need: "billing:view", why: "a top-up's state", api: true },
  "/api/billing/invoices": { need: "billing:view", why: "the invoices", api: true },
  // Payments in: Safaricom and Paystack post; each checks its own secret address or signature.
  "/webhooks/mpesa/stk/:paymentId/:secret": { need: "public", why: "M-Pesa's callback, on a secret per-payment address" },
  "/webhooks/paybill/:secret/:step": { need: "public", why: "the paybill's validation and confirmation, on a secret address" },
  "/webhooks/mpesa/b2c/:payoutId/:secret/:kind": { need: "public", why: "M-Pesa's B2C results for a payout, on a secret address" },
  "/webhooks/paystack": { need: "public", why: "Paystack's webhook, signed" },
  // An organisation's own shortcode (decision 137): Daraja posts to its callback token's address.
  "/webhooks/pay/:token/stk": { need: "public", why: "an own shortcode's STK callback, on its token's address" },
  "/webhooks/pay/:token/c2b/:step": { need: "public", why: "an own shortcode's C2B validation and confirmation, on its token's address" },
  // An organisation's own Africa's Talking (decision 148): AT posts to its callback token's address.
  "/webhooks/sms/:token/:kind": { need: "public", why: "Africa's Talking's callbacks, on the organisation's token's address" },
  "/api/whatsapp/accounts/:id/:change": { need: "whatsapp:manage", why: "POST only; tested with the actions", api: true },
  "/api/admin/queue": { need: "platform:queue", why: "the job queue's health", api: true },
  "/api/activity-logs": { need: "activity:view", why: "the activity log", api: true },
  "/api/developer/api-key": { need: "developer:view", why: "the API key in full", api: true },
  "/api/developer/api-key/regenerate": { need: "developer:manage", why: "POST only; tested with the actions", api: true },
  // The public API takes the organisation's API key, never a session: tested on its own below.
  "/api/v1/*": { need: "public", why: "API key, not cookie", api: true },
  "/api/*": { need: "public", why: "unknown API paths answer 404", api: true },
};

/** A route's pattern with its parameters filled from the world (real rows, so allowed roles see the real page). */
const SAMPLE: Record<string, (w: World) => string> = {
  // The console's detail pages: the demo Sacco and its template (an administrator opens any tenant's).
  "/admin/users/:id": (w) => `/admin/users/${w.organizationId}`,
  "/admin/templates/:id": (w) => `/admin/templates/${w.template}`,
  "/admin/templates/:id/header-sample": (w) => `/admin/templates/${w.template}/header-sample`,
  "/admin/billing/invoices/:id": () => "/admin/billing/invoices/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
  "/admin/billing/invoices/:id/pdf": () => "/admin/billing/invoices/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/pdf",
  "/admin/billing/disputes/:id": () => "/admin/billing/disputes/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
  "/admin/billing/wallets/:id": (w) => `/admin/billing/wallets/${w.organizationId}`,
  "/admin/whatsapp/:id": () => "/admin/whatsapp/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
  "/admin/*": () => "/admin/no-such-page",
  "/templates/:id/sample": (w) => `/templates/${w.template}/sample`,
  "/templates/:id/edit": (w) => `/templates/${w.template}/edit`,
  "/messaging/contacts/:id": (w) => `/messaging/contacts/${w.contacts[0]}`,
  "/developers/api/:operation": () => "/developers/api/sendMessage",
  "/integrations/:provider/callback": () => "/integrations/hubspot/callback",
  "/messaging/contacts/:id/data.json": (w) => `/messaging/contacts/${w.contacts[0]}/data.json`,
  "/integrations/shopify/requests/:id/data.json": () => "/integrations/shopify/requests/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/data.json",
  "/messaging/contacts/import/:id": (w) => `/messaging/contacts/import/${w.contactImport}`,
  "/messaging/contacts/import/:id/rejected.csv": (w) => `/messaging/contacts/import/${w.contactImport}/rejected.csv`,
  "/messaging/campaigns/:id": (w) => `/messaging/campaigns/${w.campaign}`,
  "/messaging/campaigns/:id/results.csv": (w) => `/messaging/campaigns/${w.campaign}/results.csv`,
  "/messaging/campaigns/:id/events": (w) => `/messaging/campaigns/${w.campaign}/events`,
  // Nobody's notification: each member's own open only to them (tests/integration/notifications.test.ts).
  "/notifications/:id": () => "/notifications/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f",
  "/chat/:id": (w) => `/chat/${w.conversation}`,
  "/chat/:id/sms": (w) => `/chat/${w.conversation}/sms`,
  "/chat/:id/conversion": (w) => `/chat/${w.conversation}/conversion`,
  "/shop/products/:id": (w) => `/shop/products/${w.product}`,
  "/shop/orders/:id": (w) => `/shop/orders/${w.order}`,
  "/automations/:id": (w) => `/automations/${w.rules[0]}`,
  "/automations/flows/:id": (w) => `/automations/flows/${w.flows[0]}`,
  "/billing/payments/:id": (w) => `/billing/payments/${w.payment}`,
  "/billing/invoices/:id": (w) => `/billing/invoices/${w.invoices[1]}`,
  "/billing/invoices/:id/pdf": (w) => `/billing/invoices/${w.invoices[1]}/pdf`,
  "/revenue-share/settlements/:id/statement": () => "/revenue-share/settlements/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/statement",
  "/api/billing/topups/:id": (w) => `/api/billing/topups/${w.payment}`,
  "/webhooks/mpesa/stk/:paymentId/:secret": (w) => `/webhooks/mpesa/stk/${w.payment}/not-the-secret`,
  "/webhooks/paybill/:secret/:step": () => "/webhooks/paybill/not-the-secret/validation",
  "/webhooks/pay/:token/stk": () => "/webhooks/pay/not-a-token-of-anyones/stk",
  "/webhooks/pay/:token/c2b/:step": () => "/webhooks/pay/not-a-token-of-anyones/c2b/validation",
  "/webhooks/sms/:token/:kind": () => "/webhooks/sms/not-a-token-of-anyones/delivery",
  "/webhooks/mpesa/b2c/:payoutId/:secret/:kind": () => "/webhooks/mpesa/b2c/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/not-the-secret/result",
  "/chat/media/:id": (w) => `/chat/media/${w.conversationMessage}`,
  "/chat/ads/:id/picture": () => "/chat/ads/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f/picture",
  "/catalog-images/:file": () => `/catalog-images/${"A".repeat(43)}.jpg`,
  "/invitations/:token": () => "/invitations/no-such-token",
  "/api/whatsapp/accounts/:id/:change": (w) => `/api/whatsapp/accounts/${w.account}/disconnect`,
  "/api/v1/*": () => "/api/v1/account",
  "/api/*": () => "/api/no-such-route",
  "/*": () => "/no/such/page",
};

/** Allowed answers other than 2xx or a redirect that ends on a page: the route's own, with the reason. */
const ALLOWED_ALSO: Record<string, { status: number; why: string }> = {
  "/metrics": { status: 401, why: "Prometheus's scrape takes a bearer token, never a session (tested in admin-system.test.ts)" },
  "/unauthorized": { status: 403, why: "the refusal page itself" },
  // A provider's return without a state from a connect started here (the flow: integrations.test.ts).
  "/integrations/:provider/callback": { status: 400, why: "no OAuth state" },
  // Google Sheets' settings exist once it is connected (the page: integrations-google-sheets.test.ts).
  "/integrations/google-sheets": { status: 404, why: "Google Sheets is not connected" },
  // The Shopify connector's settings: only while a shop is connected (the flow: integrations-shopify.test.ts).
  "/integrations/shopify": { status: 404, why: "no shop connected" },
  "/integrations/shopify/requests/:id/data.json": {
    status: 404,
    why: "no shop, so no data request (a request's own file: shopify-privacy.test.ts)",
  },
  // HubSpot's settings page: the demo has no HubSpot connection (decision 083; the page: hubspot.test.ts).
  "/integrations/hubspot": { status: 404, why: "HubSpot not connected" },
  // The demo import has no rejected rows stored: its file is not found.
  "/messaging/contacts/import/:id/rejected.csv": { status: 404, why: "no rejected rows" },
  // Drafts have no media sample.
  "/templates/:id/sample": { status: 404, why: "a draft without a media sample" },
  "/admin/templates/:id/header-sample": { status: 404, why: "a draft without a media sample (a sample: admin-templates.test.ts)" },
  "/notifications/:id": { status: 404, why: "nobody's notification (one's own is tested in notifications.test.ts)" },
  "/admin/*": { status: 404, why: "no such console page, to an administrator too" },
  "/notifications/events": { status: 406, why: "the live stream answers only an EventSource (Accept: text/event-stream)" },
  "/chat/events": { status: 406, why: "the live stream answers only an EventSource (Accept: text/event-stream)" },
  "/chat/media/:id": { status: 404, why: "a text message has no file (files are tested in inbox-media.test.ts)" },
  "/chat/ads/:id/picture": { status: 404, why: "nobody's ad (an ad's picture is tested in ads-picture.test.ts)" },
  "/revenue-share/settlements/:id/statement": { status: 404, why: "nobody's settlement (one's own: revenue-share-statement.test.ts)" },
  // Paystack's return without a reference of the organisation's (the card flow is tested in billing.spec.ts).
  "/billing/card-return": { status: 404, why: "no card payment's reference" },
  "/webhooks/mpesa/stk/:paymentId/:secret": { status: 405, why: "POST only" },
  "/webhooks/paybill/:secret/:step": { status: 405, why: "POST only" },
  "/webhooks/mpesa/b2c/:payoutId/:secret/:kind": { status: 405, why: "POST only" },
  "/webhooks/paystack": { status: 405, why: "POST only" },
  "/catalog-images/:file": { status: 404, why: "no product's picture has that name (a picture served: shop-images.test.ts)" },
  "/webhooks/pay/:token/stk": { status: 405, why: "POST only" },
  "/webhooks/pay/:token/c2b/:step": { status: 405, why: "POST only" },
  "/webhooks/sms/:token/:kind": { status: 405, why: "POST only" },
  "/integrations/google-sheets/picker-token": { status: 405, why: "POST only (the Picker's token: integrations-google-sheets.test.ts)" },
};

/**
 * Every intent of every action, with the permission it needs (besides the page's) and a form that a
 * member holding it would get through with (`proof`: the owner's post changes the database). `proof:
 * false` says why a change cannot be shown here (a call to Meta, a multipart upload); the refusals
 * are checked all the same. One object literal: add a route's row, or an intent, here.
 */
interface Intent {
  needs: Permission;
  form: (w: World) => Record<string, string>;
  proof?: false | { by: Role };
  why?: string;
}
const PROFILE: Record<string, Intent> = {
  save: { needs: "account:manage", form: () => ({ intent: "save", firstName: "Otieno", lastName: "Achieng" }), proof: false, why: "own" },
  "confirm-email": { needs: "account:manage", form: () => ({ intent: "confirm-email", otp: "000000" }), proof: false, why: "own" },
};
const ACTIONS: Record<string, Record<string, Intent>> = {
  "/profile": PROFILE,
  "/admin/profile": PROFILE,
  // The Billing tab's forms (each tested with its effects and step-up in admin-billing.test.ts): the
  // samples are an unknown invoice and dispute, and the Sacco's wallet, which the matrix leaves as it is.
  "/admin/billing/invoices/:id": {
    reminder: { needs: "platform:money", form: () => ({ intent: "reminder" }), proof: false, why: "no such invoice" },
    reconcile: {
      needs: "platform:money",
      form: () => ({ intent: "reconcile", bankReference: "FT26328KX9", paymentDate: "2026-11-20", notes: "Matrix" }),
      proof: false,
      why: "no such invoice",
    },
  },
  "/admin/billing/disputes/:id": {
    credit: {
      needs: "platform:money",
      form: () => ({ intent: "credit", amount: "100", note: "Matrix" }),
      proof: false,
      why: "no such dispute",
    },
    reject: { needs: "platform:money", form: () => ({ intent: "reject", note: "Matrix" }), proof: false, why: "no such dispute" },
  },
  "/admin/billing/wallets/:id": {
    adjust: {
      needs: "platform:money",
      form: () => ({ intent: "adjust", direction: "credit", amount: "100", reason: "Matrix" }),
      proof: false,
      why: "the matrix keeps the Sacco's wallet as seeded",
    },
  },
  // The console's staff (issue 74): its owners' forms, each refused to anyone else (staff: admin-staff.test.ts).
  "/admin/staff": {
    invite: {
      needs: "platform:staff",
      form: () => ({ intent: "invite", email: "not an address", role: "support" }),
      proof: false,
      why: "an address refused (the forms: admin-staff.test.ts)",
    },
    role: {
      needs: "platform:staff",
      form: () => ({ intent: "role", staff: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", role: "support" }),
      proof: false,
      why: "nobody's id",
    },
    suspend: {
      needs: "platform:staff",
      form: () => ({ intent: "suspend", staff: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "nobody's id",
    },
    reactivate: {
      needs: "platform:staff",
      form: () => ({ intent: "reactivate", staff: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "nobody's id",
    },
    revoke: {
      needs: "platform:staff",
      form: () => ({ intent: "revoke", invitation: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "nobody's invitation",
    },
  },
  "/admin/system": {
    resolve: {
      needs: "platform:console",
      form: () => ({ intent: "resolve", alertId: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", note: "Checked the workers" }),
      proof: false,
      why: "no open alert in this world (resolving one is tested in admin-system.test.ts)",
    },
  },
  // The bell's "Mark all as read": the administrator's own read mark (users.admin_bell_seen_at).
  "/admin/notifications": {
    "mark-read": { needs: "platform:console", form: () => ({ intent: "mark-read" }), proof: { by: "platform_admin" } },
  },
  "/admin/users/:id": {
    edit: {
      needs: "platform:console",
      form: () => ({
        intent: "edit",
        plan: "Growth",
        messageLimit: "12000",
        status: "active",
        firstName: "Amina",
        lastName: "Otieno",
        email: "demo@jumbe.demo",
      }),
      proof: { by: "platform_admin" },
    },
    suspend: {
      needs: "platform:console",
      form: () => ({ intent: "suspend", reason: "Matrix" }),
      proof: false,
      why: "it would sign out the Sacco's members every later row needs (admin-users.test.ts)",
    },
    reactivate: {
      needs: "platform:console",
      form: () => ({ intent: "reactivate", reason: "Matrix" }),
      proof: false,
      why: "after a suspend",
    },
  },
  "/change-password": {
    "": { needs: "account:manage", form: () => ({ currentPassword: "wrong", newPassword: "x", confirmPassword: "x" }), proof: false },
  },
  "/preferences/sidebar": { "": { needs: "account:manage", form: () => ({ collapsed: "1" }), proof: false, why: "a cookie" } },
  "/settings/security": {
    one: { needs: "account:manage", form: (w) => ({ intent: "one", session: w.ownerOtherSession }) },
    others: { needs: "account:manage", form: () => ({ intent: "others" }), proof: false, why: "after `one`, nothing else to end" },
    "2fa-start": { needs: "account:manage", form: () => ({ intent: "2fa-start" }) },
    "2fa-cancel": { needs: "account:manage", form: () => ({ intent: "2fa-cancel" }), proof: false, why: "after a start" },
    "2fa-confirm": {
      needs: "account:manage",
      form: () => ({ intent: "2fa-confirm", code: "000000" }),
      proof: false,
      why: "the app's code",
    },
    "2fa-codes": { needs: "account:manage", form: () => ({ intent: "2fa-codes", password: "x" }), proof: false, why: "two-factor is off" },
    "2fa-off": { needs: "account:manage", form: () => ({ intent: "2fa-off", password: "x", code: "000000" }), proof: false, why: "a code" },
    "2fa-require": {
      needs: "security:enforce",
      form: () => ({ intent: "2fa-require", required: "on" }),
      proof: false,
      why: "the owner turns it on for themself first",
    },
  },
  // The Templates tab's review (admin-templates.test.ts shows each change; here only the refusals).
  "/admin/templates": {
    hold: {
      needs: "platform:console",
      form: (w) => ({ intent: "hold", organisation: w.organizationId }),
      proof: false,
      why: "shown in admin-templates.test.ts",
    },
    release: {
      needs: "platform:console",
      form: (w) => ({ intent: "release", organisation: w.organizationId }),
      proof: false,
      why: "nothing held",
    },
    // The platform setting "hold new organisations' template submissions" (turned on here; nothing signs up after).
    "new-organisations": {
      needs: "platform:console",
      form: () => ({ intent: "new-organisations", hold: "on" }),
      proof: { by: "platform_admin" },
    },
  },
  "/admin/templates/:id": {
    approve: { needs: "platform:console", form: () => ({ intent: "approve" }), proof: false, why: "a call to Meta" },
    reject: {
      needs: "platform:console",
      form: () => ({ intent: "reject", reason: "Change it" }),
      proof: false,
      why: "a draft is not held",
    },
    hold: { needs: "platform:console", form: () => ({ intent: "hold" }), proof: false, why: "shown in admin-templates.test.ts" },
    release: { needs: "platform:console", form: () => ({ intent: "release" }), proof: false, why: "nothing held" },
  },
  // Settings → SMS (issue 77): owners and admins connect Africa's Talking (sms.test.ts shows each change).
  "/settings/sms": {
    save: { needs: "whatsapp:manage", form: () => ({ intent: "save", username: "matrix-at", apiKey: "atsk_matrix_0001", senderId: "" }) },
    fallback: {
      needs: "whatsapp:manage",
      form: () => ({ intent: "fallback", automation: "payment_request", sms_fallback: "off" }),
      proof: false,
      why: "off changes nothing; sms-fallback-automations.test.ts shows each setting",
    },
    test: {
      needs: "whatsapp:manage",
      form: () => ({ intent: "test" }),
      proof: false,
      why: "the matrix's AT is not reachable; sms.test.ts tests it",
    },
    remove: {
      needs: "whatsapp:manage",
      form: () => ({ intent: "remove", confirm: "yes" }),
      proof: false,
      why: "after save, in its own order",
    },
  },
  // Settings → Ads (issue 77): owners and admins consent to sending conversions to Meta (ad-conversions.test.ts shows it).
  "/settings/ads": {
    "conversions-on": {
      needs: "whatsapp:manage",
      form: () => ({ intent: "conversions-on" }),
      proof: false,
      why: "a call to Meta for the dataset; ad-conversions.test.ts turns it on",
    },
    "conversions-off": { needs: "whatsapp:manage", form: () => ({ intent: "conversions-off" }), proof: false, why: "already off" },
    "lead-tags": {
      needs: "whatsapp:manage",
      form: () => ({ intent: "lead-tags", leadTags: "" }),
      proof: false,
      why: "no tags chosen yet: nothing changes (ad-conversion-triggers.test.ts saves some)",
    },
  },
  // Mark as converted (issue 77): who answers; the matrix's conversation came from no ad (ad-conversions.test.ts marks one).
  "/chat/:id/conversion": {
    mark: { needs: "inbox:reply", form: () => ({ intent: "mark" }), proof: false, why: "no consent and no ad: refused with a toast" },
  },
  // Send as SMS (issue 77): who answers; the matrix's organisation has SMS connected only by the row above.
  "/chat/:id/sms": {
    estimate: { needs: "inbox:reply", form: () => ({ intent: "estimate", body: "Karibu" }), proof: false, why: "changes nothing" },
    send: {
      needs: "inbox:reply",
      form: () => ({ intent: "send", body: "Karibu" }),
      proof: false,
      why: "quiet hours or the wallet may refuse; sms.test.ts sends",
    },
  },
  // Settings → Payments (issue 76): owners and admins change the shortcodes (payments-settings.test.ts shows each change).
  "/settings/payments": {
    template: {
      needs: "payments:manage",
      form: () => ({ intent: "template" }),
      proof: false,
      why: "the matrix's organisation has no WhatsApp account: nothing is submitted, a toast says so",
    },
    add: {
      needs: "payments:manage",
      form: () => ({
        intent: "add",
        label: "Matrix till",
        kind: "till",
        businessShortCode: "7199001",
        tillNumber: "5199001",
        consumerKey: "matrix-consumer-key-0001",
        consumerSecret: "matrix-consumer-secret-0001",
        passkey: "matrix-passkey-0000000001",
        environment: "sandbox",
      }),
    },
    edit: {
      needs: "payments:manage",
      form: () => ({ intent: "edit", shortcode: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", label: "Renamed" }),
      proof: false,
      why: "nobody's shortcode: 404",
    },
    test: {
      needs: "payments:manage",
      form: () => ({ intent: "test", shortcode: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "nobody's shortcode: 404",
    },
    match: {
      needs: "payments:manage",
      form: () => ({ intent: "match", receipt: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reference: "JR123456" }),
      proof: false,
      why: "nobody's payment: 404 (tests/integration/payment-c2b-receipts.test.ts matches one)",
    },
    default: {
      needs: "payments:manage",
      form: () => ({ intent: "default", shortcode: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "nobody's shortcode: 404",
    },
    remove: {
      needs: "payments:manage",
      form: () => ({ intent: "remove", shortcode: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", confirm: "yes" }),
      proof: false,
      why: "nobody's shortcode: 404",
    },
  },
  "/settings/team": {
    invite: { needs: "team:manage", form: () => ({ intent: "invite", email: "mercy.wambui@nyota-sacco.demo", role: "agent" }) },
    resend: { needs: "team:manage", form: (w) => ({ intent: "resend", invitation: w.invitation }) },
    revoke: { needs: "team:manage", form: (w) => ({ intent: "revoke", invitation: w.invitation }) },
    role: { needs: "team:manage", form: (w) => ({ intent: "role", member: w.extraAgent, role: "viewer" }) },
    remove: { needs: "team:manage", form: (w) => ({ intent: "remove", member: w.extraAgent, confirm: "yes" }) },
    // Last of all: the owner becomes an admin.
    approval: { needs: "approvals:configure", form: () => ({ intent: "approval", enabled: "on", threshold: "100" }) },
    handover: { needs: "ownership:transfer", form: (w) => ({ intent: "handover", member: w.users.admin, password: DEMO_PASSWORD }) },
  },
  "/whatsapp": {
    reconnect: { needs: "whatsapp:manage", form: (w) => ({ intent: "reconnect", accountId: w.account }), proof: false, why: "Meta" },
    disconnect: {
      needs: "whatsapp:manage",
      form: (w) => ({ intent: "disconnect", accountId: w.account, confirm: "yes" }),
      proof: false,
      why: "Meta",
    },
  },
  "/integrations/shopify": {
    // The mapping forms post no intent: the page reads such a post as "mapping".
    mapping: {
      needs: "developer:manage",
      form: () => ({ intent: "mapping", eventType: "order_created", templateId: "" }),
      proof: false,
      why: "no shop connected in the demo: 404",
    },
    "ask-payment": {
      needs: "payments:manage",
      form: () => ({ intent: "ask-payment", askPayment: "on" }),
      proof: false,
      why: "no shop connected in the demo: 404 (shopify-order-payments.test.ts)",
    },
    "import-products": {
      needs: "shop:manage",
      form: () => ({ intent: "import-products" }),
      proof: false,
      why: "no shop connected in the demo: 404 (shopify-products.test.ts)",
    },
  },
  "/integrations": {
    connect: {
      needs: "developer:manage",
      form: () => ({ intent: "connect", integration: "salesforce" }),
      proof: false,
      why: "a coming-soon one is refused; a live one goes to its provider",
    },
    disconnect: {
      needs: "developer:manage",
      form: () => ({ intent: "disconnect", integration: "rest-hooks", confirm: "yes" }),
      proof: false,
      why: "nothing connected",
    },
  },
  "/integrations/google-sheets": {
    create: { needs: "developer:manage", form: () => ({ intent: "create", title: "Export" }), proof: false, why: "nothing connected" },
    existing: { needs: "developer:manage", form: () => ({ intent: "existing", spreadsheet: "x" }), proof: false, why: "nothing connected" },
    settings: {
      needs: "developer:manage",
      form: () => ({ intent: "settings", contacts: "on", schedule: "off" }),
      proof: false,
      why: "nothing connected",
    },
    export: { needs: "developer:manage", form: () => ({ intent: "export" }), proof: false, why: "nothing connected" },
    import: {
      needs: "developer:manage",
      form: () => ({ intent: "import", spreadsheet: "x", range: "A:B", duplicates: "skip" }),
      proof: false,
      why: "nothing connected",
    },
    "import-sheet": { needs: "developer:manage", form: () => ({ intent: "import-sheet" }), proof: false, why: "nothing connected" },
  },
  // The Picker's token (decision 109): POST only; Google Sheets is not connected here.
  "/integrations/google-sheets/picker-token": {
    "": { needs: "developer:manage", form: () => ({}), proof: false, why: "nothing connected" },
  },
  // The partner programme (issue 46): an organisation's owner or admin applies; the rest is a platform administrator's.
  "/revenue-share": {
    apply: {
      needs: "billing:manage",
      form: () => ({
        intent: "apply",
        name: "Nyota Partners",
        category: "Agency",
        payoutMethod: "mpesa",
        mpesaPhone: "0712345678",
        kraPin: "A123456789Z",
        resident: "on",
      }),
    },
    // A referral held for review (decision 104): a platform administrator's decision.
    "approve-referral": {
      needs: "platform:money",
      form: () => ({ intent: "approve-referral", review: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "no referral under review (the decisions: revenue-share-referral.test.ts)",
    },
    "reject-referral": {
      needs: "platform:money",
      form: () => ({ intent: "reject-referral", review: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "no referral under review (the decisions: revenue-share-referral.test.ts)",
    },
  },
  "/revenue-share/partners": {
    enrol: {
      needs: "platform:money",
      form: () => ({ intent: "enrol", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    edit: {
      needs: "platform:money",
      form: () => ({ intent: "edit", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    approve: {
      needs: "platform:money",
      form: () => ({ intent: "approve", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    reject: {
      needs: "platform:money",
      form: () => ({ intent: "reject", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    suspend: {
      needs: "platform:money",
      form: () => ({ intent: "suspend", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    reactivate: {
      needs: "platform:money",
      form: () => ({ intent: "reactivate", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    assign: {
      needs: "platform:money",
      form: () => ({ intent: "assign", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    unassign: {
      needs: "platform:money",
      form: () => ({ intent: "unassign", partner: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", reason: "Matrix" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
  },
  "/revenue-share/settlements": {
    "": { needs: "platform:money", form: () => ({}), proof: false, why: "no intent" },
    settle: {
      needs: "platform:money",
      form: () => ({ intent: "settle", settlement: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
    "approve-payout": {
      needs: "platform:money",
      form: () => ({ intent: "approve-payout", settlement: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "an unknown partner (the forms: revenue-share-pages.test.ts)",
    },
  },
  // HubSpot's settings page (decision 083): the demo has no HubSpot connection, so each is refused (404) after the guard.
  "/integrations/hubspot": {
    sync: { needs: "developer:manage", form: () => ({ intent: "sync" }), proof: false, why: "HubSpot not connected" },
    "follow-list": {
      needs: "developer:manage",
      form: () => ({ intent: "follow-list", listId: "1" }),
      proof: false,
      why: "HubSpot not connected",
    },
    "follow-search": {
      needs: "developer:manage",
      form: () => ({ intent: "follow-search", name: "VIP", property: "firstname", operator: "HAS_PROPERTY", value: "" }),
      proof: false,
      why: "HubSpot not connected",
    },
    unfollow: { needs: "developer:manage", form: () => ({ intent: "unfollow", source: "none" }), proof: false, why: "nothing followed" },
  },
  "/developers": {
    regenerate: { needs: "developer:manage", form: () => ({ intent: "regenerate", confirm: "yes" }) },
    webhook: {
      needs: "developer:manage",
      form: () => ({ intent: "webhook", url: "https://hooks.nyota.co.ke/jumbe", events: "message.status" }),
      proof: false,
      why: "the URL is resolved",
    },
    "webhook-secret-rotate": { needs: "developer:manage", form: () => ({ intent: "webhook-secret-rotate", confirm: "yes" }), proof: false },
    "webhook-test": { needs: "developer:manage", form: () => ({ intent: "webhook-test" }), proof: false, why: "no endpoint" },
    "webhook-redeliver": { needs: "developer:manage", form: () => ({ intent: "webhook-redeliver", delivery: "1" }), proof: false },
    "webhook-enable": { needs: "developer:manage", form: () => ({ intent: "webhook-enable" }), proof: false, why: "no endpoint" },
  },
  "/templates": {
    copy: { needs: "templates:manage", form: (w) => ({ intent: "copy", template: w.template }) },
    sync: { needs: "templates:manage", form: () => ({ intent: "sync" }), proof: false, why: "Meta" },
    delete: { needs: "templates:manage", form: (w) => ({ intent: "delete", template: w.template, confirm: "yes" }) },
  },
  "/templates/new": {
    refresh: {
      needs: "templates:manage",
      form: () => ({ intent: "refresh", name: "agm_notice" }),
      proof: false,
      why: "redraws the example fields",
    },
    draft: { needs: "templates:manage", form: () => ({ intent: "draft", name: "agm_notice" }), proof: false, why: "a full form" },
    submit: { needs: "templates:manage", form: () => ({ intent: "submit", name: "agm_notice" }), proof: false, why: "Meta" },
  },
  "/templates/:id/edit": {
    refresh: {
      needs: "templates:manage",
      form: () => ({ intent: "refresh", name: "agm_notice" }),
      proof: false,
      why: "redraws the example fields",
    },
    draft: { needs: "templates:manage", form: () => ({ intent: "draft", name: "agm_notice" }), proof: false, why: "a full form" },
    submit: { needs: "templates:manage", form: () => ({ intent: "submit", name: "agm_notice" }), proof: false, why: "Meta" },
  },
  "/messaging/contacts": {
    add: { needs: "contacts:manage", form: () => ({ intent: "add", name: "Wairimu Njoroge", phone: "+254 722 111 222" }) },
    tag: { needs: "contacts:manage", form: (w) => ({ intent: "tag", scope: "selected", id: w.contacts[1]!, tags: "agm-2026" }) },
    untag: { needs: "contacts:manage", form: (w) => ({ intent: "untag", scope: "selected", id: w.contacts[1]!, tags: "agm-2026" }) },
    delete: { needs: "contacts:manage", form: (w) => ({ intent: "delete", scope: "selected", id: w.contacts[2]!, confirm: "yes" }) },
  },
  "/messaging/contacts/:id": {
    save: { needs: "contacts:manage", form: () => ({ intent: "save", name: "Amina H." }), proof: false, why: "a full form" },
    consent: { needs: "contacts:manage", form: () => ({ intent: "consent", optIn: "opted_in" }), proof: false, why: "a full form" },
    payment: {
      needs: "contacts:manage",
      form: () => ({ intent: "payment", amount: "100", description: "AGM fee" }),
      proof: false,
      why: "no shortcode (tests/integration/payment-requests-contact.test.ts asks)",
    },
    merge: { needs: "contacts:manage", form: (w) => ({ intent: "merge", other: w.contacts[3]!, confirm: "yes" }), proof: false },
    erase: { needs: "contacts:manage", form: () => ({ intent: "erase", confirm: "yes" }), proof: false, why: "after delete" },
    delete: { needs: "contacts:manage", form: () => ({ intent: "delete", confirm: "yes" }) },
  },
  "/messaging/contacts/fields": {
    add: { needs: "contacts:manage", form: () => ({ intent: "add", key: "county", label: "County", type: "text" }) },
    remove: { needs: "contacts:manage", form: () => ({ intent: "remove", key: "branch" }) },
  },
  "/messaging/contacts/segments": {
    save: { needs: "contacts:manage", form: () => ({ intent: "save", name: "AGM invitees", tag: "nakuru" }) },
    delete: { needs: "contacts:manage", form: (w) => ({ intent: "delete", segment: w.segment }) },
  },
  "/messaging/contacts/import": {
    "": { needs: "contacts:manage", form: () => ({}), proof: false, why: "a multipart upload" },
  },
  "/messaging/contacts/import/:id": {
    "": { needs: "contacts:manage", form: () => ({ duplicates: "skip" }), proof: false, why: "a finished import" },
  },
  "/messaging/campaigns/new": {
    choose: { needs: "campaigns:manage", form: () => ({ intent: "choose" }), proof: false, why: "reads" },
    back: { needs: "campaigns:manage", form: () => ({ intent: "back" }), proof: false, why: "reads" },
    review: { needs: "campaigns:manage", form: () => ({ intent: "review" }), proof: false, why: "reads" },
    draft: { needs: "campaigns:manage", form: () => ({ intent: "draft", name: "AGM" }), proof: false, why: "a full form" },
    confirm: { needs: "campaigns:manage", form: () => ({ intent: "confirm", name: "AGM" }), proof: false, why: "a full form" },
  },
  "/messaging/broadcasts/new": {
    choose: { needs: "campaigns:manage", form: () => ({ intent: "choose" }), proof: false, why: "reads" },
    back: { needs: "campaigns:manage", form: () => ({ intent: "back" }), proof: false, why: "reads" },
    review: { needs: "campaigns:manage", form: () => ({ intent: "review" }), proof: false, why: "reads" },
    draft: { needs: "campaigns:manage", form: () => ({ intent: "draft", name: "AGM" }), proof: false, why: "a full form" },
    confirm: { needs: "campaigns:manage", form: () => ({ intent: "confirm", name: "AGM" }), proof: false, why: "a full form" },
  },
  "/messaging/campaigns/:id": {
    pause: { needs: "campaigns:manage", form: () => ({ intent: "pause" }), proof: false, why: "a scheduled campaign" },
    resume: { needs: "campaigns:manage", form: () => ({ intent: "resume" }), proof: false, why: "a scheduled campaign" },
    cancel: { needs: "campaigns:manage", form: () => ({ intent: "cancel", confirm: "yes" }) },
    approve: { needs: "campaigns:approve", form: () => ({ intent: "approve" }), proof: false, why: "the sample is not waiting" },
    decline: {
      needs: "campaigns:approve",
      form: () => ({ intent: "decline", reason: "Wrong list" }),
      proof: false,
      why: "the sample is not waiting",
    },
  },
  "/settings/organisation": {
    "": {
      needs: "organization:manage",
      form: () => ({ name: "Nyota Savings Sacco", timeZone: "Africa/Nairobi", postalAddress: "P.O. Box 77-20100, Nakuru" }),
    },
  },
  // Settings → Data retention (issue 78): owners and admins (retention.test.ts shows the limits and the job).
  "/settings/retention": {
    "": { needs: "organization:manage", form: () => ({ messageDays: "700", mediaDays: "80", logDays: "60" }) },
  },
  "/settings/account": {
    close: {
      needs: "organization:close",
      form: () => ({ intent: "close", password: DEMO_PASSWORD, confirmName: "Nyota Savings Sacco" }),
      proof: false,
      why: "would stop the world's sending; closing is tested in organisation.test.ts",
    },
    reopen: { needs: "organization:close", form: () => ({ intent: "reopen", password: DEMO_PASSWORD }), proof: false, why: "not closing" },
  },
  "/settings/notifications": {
    save: {
      needs: "notifications:manage",
      form: () => ({ intent: "save", "email:campaign_finished": "agent" }),
      proof: false,
      why: "a full form",
    },
  },
  "/notifications": {
    "read-all": { needs: "notifications:view", form: () => ({ intent: "read-all" }) },
    read: {
      needs: "notifications:view",
      form: () => ({ intent: "read", notification: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "one's own",
    },
  },
  // The inbox: answering needs inbox:reply (not viewers); assigning to others inbox:assign (not agents).
  "/chat/:id": {
    send: { needs: "inbox:reply", form: () => ({ intent: "send", body: "Karibu, tunakusaidia aje?" }) },
    note: { needs: "inbox:reply", form: () => ({ intent: "note", note: "Called back on Monday" }) },
    assign: { needs: "inbox:assign", form: (w) => ({ intent: "assign", assignee: w.users.admin }) },
    take: { needs: "inbox:reply", form: () => ({ intent: "take" }), proof: false, why: "after assign, the owner takes it in its own test" },
    unassign: { needs: "inbox:reply", form: () => ({ intent: "unassign" }), proof: false, why: "an agent lets go of their own only" },
    resolve: { needs: "inbox:reply", form: () => ({ intent: "resolve" }) },
    reopen: { needs: "inbox:reply", form: () => ({ intent: "reopen" }) },
    retry: {
      needs: "inbox:reply",
      form: (w) => ({ intent: "retry", message: w.conversationMessage }),
      proof: false,
      why: "nothing failed",
    },
    template: { needs: "inbox:reply", form: () => ({ intent: "template", template: "x" }), proof: false, why: "a template of Meta's" },
    read: { needs: "inbox:reply", form: () => ({ intent: "read" }), proof: false, why: "opening the page read it" },
    typing: { needs: "inbox:reply", form: () => ({ intent: "typing" }) },
    payment: {
      needs: "inbox:reply",
      form: () => ({ intent: "payment", amount: "100", description: "Matrix", expiresInMinutes: "1440" }),
      proof: false,
      why: "a request asks the customer on a shortcode (tests/integration/payment-requests.test.ts asks from the page)",
    },
    "order-payment": {
      needs: "inbox:reply",
      form: () => ({ intent: "order-payment", orderId: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "nobody's order (tests/integration/shop-order-payment.test.ts asks for one)",
    },
    "payment-cancel": {
      needs: "inbox:reply",
      form: () => ({ intent: "payment-cancel", requestId: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f" }),
      proof: false,
      why: "nobody's request (tests/integration/payment-requests-cancel.test.ts cancels one)",
    },
    products: {
      needs: "inbox:reply",
      form: () => ({ intent: "products", productKind: "catalog_message", productBody: "Angalia bidhaa zetu" }),
      proof: false,
      why: "the world's products are in no catalog at Meta (tests/integration/shop.test.ts sends them)",
    },
  },
  // The shop (decision 138): products kept by owners and admins. A product's form before the list's
  // removal of it (the proofs run in this order).
  "/shop/products/:id": {
    "": {
      needs: "shop:manage",
      form: () => ({
        name: "Sacco umbrella (large)",
        price: "1,300",
        retailerId: "MATRIX-1",
        imageUrl: "https://nyota-sacco.example.co.ke/umbrella.jpg",
        availability: "in stock",
      }),
    },
  },
  "/shop/products/new": {
    "": {
      needs: "shop:manage",
      form: () => ({
        name: "Sacco T-shirt",
        price: "800",
        retailerId: "TSHIRT-1",
        imageUrl: "https://nyota-sacco.example.co.ke/tshirt.jpg",
        availability: "in stock",
      }),
    },
  },
  "/shop/products/import": {
    "": { needs: "shop:manage", form: () => ({}), proof: false, why: "a multipart upload" },
  },
  "/shop/products": {
    sync: { needs: "shop:manage", form: () => ({ intent: "sync" }) },
    remove: { needs: "shop:manage", form: (w) => ({ intent: "remove", id: w.product, confirm: "yes" }) },
  },
  // Writing to one customer first: a typed number becomes a contact and a conversation.
  "/chat/new": {
    // The Sacco writes from two numbers (the demo's and the world's): the form names one.
    "": { needs: "inbox:reply", form: () => ({ phone: "+254 733 444 555", number: "105000222" }) },
  },
  // The organisation's saved answers (owners and admins): add, change and delete the demo's /hours.
  "/chat/quick-replies": {
    add: {
      needs: "inbox:quick-replies",
      form: () => ({ intent: "add", shortcut: "agm", body: "Our AGM is on Saturday 14 March, 10 am, at the Nakuru ASK showground." }),
    },
    update: {
      needs: "inbox:quick-replies",
      form: (w) => ({ intent: "update", id: w.quickReply, shortcut: "hours", body: "We are open Monday to Saturday, 8 am to 6 pm." }),
    },
    delete: { needs: "inbox:quick-replies", form: (w) => ({ intent: "delete", id: w.quickReply, confirm: "yes" }) },
  },
  // Automations (owners and admins): the world's two rules moved, turned off and on, one deleted; a new
  // rule, a change, and the welcome message. Trying a rule reads only.
  "/automations": {
    move: { needs: "automations:manage", form: (w) => ({ intent: "move", id: w.rules[0]!, direction: "down" }) },
    disable: { needs: "automations:manage", form: (w) => ({ intent: "disable", id: w.rules[0]! }) },
    enable: { needs: "automations:manage", form: (w) => ({ intent: "enable", id: w.rules[0]! }) },
    delete: { needs: "automations:manage", form: (w) => ({ intent: "delete", id: w.rules[1]!, confirm: "yes" }) },
    "order-payment": { needs: "automations:manage", form: () => ({ intent: "order-payment", enabled: "on" }) },
  },
  "/automations/new": {
    save: {
      needs: "automations:manage",
      form: () => ({
        intent: "save",
        name: "AGM",
        matchType: "contains",
        keywords: "agm\nmkutano",
        reply: "Our AGM is on Saturday 14 March.",
      }),
    },
    try: { needs: "automations:manage", form: () => ({ intent: "try", sample: "agm" }), proof: false, why: "a saved rule's only" },
  },
  "/automations/:id": {
    save: {
      needs: "automations:manage",
      form: () => ({ intent: "save", name: "Prices", matchType: "contains", keywords: "bei", reply: "Bei zetu zimebadilika." }),
    },
    try: { needs: "automations:manage", form: () => ({ intent: "try", sample: "bei gani?" }), proof: false, why: "reads only" },
  },
  "/automations/hours": {
    "": { needs: "automations:manage", form: () => ({ welcomeEnabled: "on", welcomeText: "Karibu Nyota Sacco!" }) },
  },
  // Chatbot flows (owners and admins): the world's live flow's draft changed step by step, published,
  // turned off and on; the second flow turned off and on from the list, then deleted; a new flow.
  // The AI assistant and its knowledge base (owners and admins): saved settings (off: nothing is
  // called), articles added, changed and deleted; an upload is a file (assistant-pages.test.ts).
  "/automations/assistant": {
    save: {
      needs: "automations:manage",
      form: () => ({
        intent: "save",
        instructions: "Jibu kwa upole.",
        baseUrl: "",
        model: "",
        apiKey: "",
        handoverText: "Mtu wa timu yetu atakujibu.",
        maxTurns: "6",
        monthlyCap: "0",
        inputPrice: "0",
        outputPrice: "0",
      }),
    },
    try: { needs: "automations:manage", form: () => ({ intent: "try", sample: "Paybill ni ipi?" }), proof: false, why: "reads only" },
  },
  "/automations/knowledge": {
    add: {
      needs: "automations:manage",
      form: () => ({ intent: "add", title: "Mkutano wa AGM", body: "AGM ni Jumamosi ya mwisho wa Machi." }),
    },
    update: {
      needs: "automations:manage",
      form: (w) => ({ intent: "update", id: w.articles[0]!, title: "Saa za ofisi", body: "Tunafungua saa mbili asubuhi." }),
    },
    delete: { needs: "automations:manage", form: (w) => ({ intent: "delete", id: w.articles[1]!, confirm: "yes" }) },
    upload: { needs: "automations:manage", form: () => ({ intent: "upload" }), proof: false, why: "a file (assistant-pages.test.ts)" },
  },
  "/automations/flows/new": {
    create: { needs: "automations:manage", form: () => ({ intent: "create", name: "AGM questions" }) },
  },
  "/automations/flows/:id": {
    settings: {
      needs: "automations:manage",
      form: () => ({ intent: "settings", name: "Loan balance", idleMinutes: "45", idleText: "Baadaye!" }),
    },
    "save-step": {
      needs: "automations:manage",
      form: () => ({
        intent: "save-step",
        type: "message",
        stepId: "",
        text: "Asante kwa kusubiri.",
        buttons: "",
        rows: "",
        listButton: "",
        mediaUrl: "",
        mediaKind: "image",
      }),
    },
    "move-step": { needs: "automations:manage", form: () => ({ intent: "move-step", stepId: "first", direction: "down" }) },
    "delete-step": { needs: "automations:manage", form: () => ({ intent: "delete-step", stepId: "second" }) },
    publish: { needs: "automations:manage", form: () => ({ intent: "publish" }) },
    disable: { needs: "automations:manage", form: () => ({ intent: "disable" }) },
    enable: { needs: "automations:manage", form: () => ({ intent: "enable" }) },
  },
  "/automations/flows": {
    disable: { needs: "automations:manage", form: (w) => ({ intent: "disable", id: w.flows[1]! }) },
    enable: { needs: "automations:manage", form: (w) => ({ intent: "enable", id: w.flows[1]! }) },
    delete: { needs: "automations:manage", form: (w) => ({ intent: "delete", id: w.flows[1]!, confirm: "yes" }) },
  },
  "/api/developer/api-key/regenerate": { "": { needs: "developer:manage", form: () => ({}) } },
  // GET only: a POST (any body) is the GET's 404 to anyone but an administrator, 405 to one.
  "/api/admin/queue": { "": { needs: "platform:queue", form: () => ({ anything: "at all" }), proof: false, why: "GET only" } },
  // Billing (owners and admins): a bank transfer (no outside system), a plan from the next period,
  // the wallet's alerts, and a dispute of each of the world's two pending invoices.
  "/billing": {
    topup: { needs: "billing:manage", form: () => ({ intent: "topup", amount: "2500", method: "bank" }) },
    plan: { needs: "billing:manage", form: () => ({ intent: "plan", choice: "enterprise/postpaid" }) },
    alerts: { needs: "billing:manage", form: () => ({ intent: "alerts", lowBalance: "500" }) },
    dispute: {
      needs: "billing:manage",
      form: (w) => ({ intent: "dispute", invoice: w.invoices[0]!, reason: "We were billed twice for the same transfer." }),
    },
  },
  "/billing/invoices/:id": {
    dispute: { needs: "billing:manage", form: () => ({ intent: "dispute", reason: "The amount is not what we agreed on." }) },
  },
  "/api/billing/topups": { "": { needs: "billing:manage", form: () => ({ amount: "1000" }), proof: false, why: "JSON" } },
  "/api/whatsapp/accounts/:id/:change": { "": { needs: "whatsapp:manage", form: () => ({}), proof: false, why: "Meta" } },
  // The admin console's WhatsApp account (tests/integration/admin-whatsapp.test.ts acts on a real one).
  "/admin/whatsapp/:id": {
    test: { needs: "platform:console", form: () => ({ intent: "test" }), proof: false, why: "Meta" },
    resubscribe: { needs: "platform:console", form: () => ({ intent: "resubscribe" }), proof: false, why: "Meta" },
    reconnect: {
      needs: "platform:console",
      form: () => ({ intent: "reconnect", reason: "Verify the business again" }),
      proof: false,
      why: "admin test",
    },
    disconnect: { needs: "platform:console", form: () => ({ intent: "disconnect", reason: "Fraud reported" }), proof: false, why: "Meta" },
  },
};
/** Actions open to visitors (signing in and up, invitations): no role to check. */
const PUBLIC_ACTIONS = new Set([
  "/login",
  "/signin",
  "/login/two-factor",
  "/login/email-code",
  "/signup",
  "/verify-otp",
  "/forgot-password",
  "/reset-password",
  "/logout",
  "/language",
  "/invitations/:token",
  "/api/auth/signin",
  "/api/auth/two-factor",
  "/api/auth/email-code",
  "/api/auth/signup",
  "/api/auth/verify-otp",
  "/api/auth/resend-otp",
  "/api/auth/logout",
  "/api/v1/*",
  "/dev/ui",
  "/webhooks/mpesa/stk/:paymentId/:secret",
  "/webhooks/paybill/:secret/:step",
  "/webhooks/mpesa/b2c/:payoutId/:secret/:kind",
  "/webhooks/paystack",
  "/webhooks/pay/:token/stk",
  "/webhooks/pay/:token/c2b/:step",
  "/webhooks/sms/:token/:kind",
  "/catalog-images/:file",
]);

const DEMO_PASSWORD = "JumbeDemo#2026";
const ROUTES = flatRoutes().filter((r) => r.path !== undefined || r.index);
const APP_DIR = path.resolve(import.meta.dirname, "../../app");
const MODULES = new Map(
  await Promise.all(
    ROUTES.map(async (r) => [r.pattern, (await import(/* @vite-ignore */ path.join(APP_DIR, r.file))) as Record<string, unknown>] as const),
  ),
);

/** A real action reads its arguments; `action() { return methodNotAllowed(...) }` only answers 405. */
function takesPosts(module: Record<string, unknown>) {
  return typeof module.action === "function" && module.action.length > 0;
}

/** The demo Sacco (its owner, admin, agents and viewer) and the platform administrator, with a session each. */
interface World {
  organizationId: string;
  users: Record<Role, string>;
  cookies: Record<Who, string>;
  extraAgent: string;
  ownerOtherSession: string;
  template: string;
  contacts: string[];
  contactImport: string;
  campaign: string;
  segment: string;
  invitation: string;
  account: string;
  /**
   * A conversation of the world's number with one customer message, already read: opening the page
   * marks a conversation read, and the page shown after a refused post must change nothing.
   */
  conversation: string;
  conversationMessage: string;
  /** The demo's saved answer /hours. */
  quickReply: string;
  /** Two keyword rules of the Sacco's, in their order. */
  rules: string[];
  /** Two live chatbot flows of the Sacco's, each with the steps "first" and "second". */
  flows: string[];
  /** Two knowledge articles of the Sacco's. */
  articles: string[];
  /** A bank transfer of the Sacco's (pending), and two pending invoices of such transfers. */
  payment: string;
  invoices: string[];
  /** A product of the Sacco's shop (SKU MATRIX-1) and an order of one of its customers. */
  product: string;
  order: string;
}

async function buildWorld(): Promise<World> {
  await demoData();
  const member = async (email: string) => (await db().select().from(users).where(eq(users.email, email)))[0]!;
  const owner = await member("demo@jumbe.demo");
  const organizationId = owner.organizationId;
  const staffMember = async (platformRole: "finance" | "support") => {
    const administrator = await member("admin@jumbe.demo");
    const [row] = await db()
      .insert(users)
      .values({
        organizationId: administrator.organizationId,
        email: `${platformRole}@jumbe.demo`,
        firstName: "Staff",
        lastName: platformRole,
        usertype: "admin",
        orgRole: "admin",
        platformRole,
        passwordHash: administrator.passwordHash,
        isVerified: true,
      })
      .returning();
    return row!.id;
  };
  const ids: Record<Role, string> = {
    platform_admin: (await member("admin@jumbe.demo")).id,
    // The console's finance and support staff (issue 74), in the platform's organisation with the demo's administrator.
    platform_finance: await staffMember("finance"),
    platform_support: await staffMember("support"),
    owner: owner.id,
    admin: (await member("grace.wanjiru@nyota-sacco.demo")).id,
    agent: (await member("brian.otieno@nyota-sacco.demo")).id,
    viewer: (await member("peter.kiprono@nyota-sacco.demo")).id,
  };
  const cookies = { anonymous: "" } as Record<Who, string>;
  for (const role of ROLES) cookies[role] = cookieHeader([(await createSession(ids[role], false, META)).setCookie]);
  const other = await createSession(owner.id, false, { ...META, userAgent: "a phone" });
  const { account } = await connectedNumber(organizationId, {
    wabaId: "104000111",
    phoneNumberId: "105000222",
    display: "+254 700 100 200",
  });
  const [segment] = await db()
    .insert(segments)
    .values({ organizationId, name: "Nakuru members", filter: { tags: ["nakuru"] } })
    .returning();
  await db().insert(contactAttributes).values({ organizationId, key: "branch", label: "Branch", type: "text" });
  const [upload] = await db()
    .insert(contactImports)
    .values({
      organizationId,
      fileName: "members.csv",
      storageKey: "imports/none.csv",
      size: 10,
      columns: ["name", "phone"],
      status: "done",
    })
    .returning();
  const own = (table: typeof contacts | typeof messageTemplates | typeof campaigns) =>
    db().select({ id: table.id }).from(table).where(eq(table.organizationId, organizationId));
  const [campaign] = await db()
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.organizationId, organizationId), eq(campaigns.status, "scheduled")));
  const [invitation] = await db().select({ id: invitations.id }).from(invitations).where(eq(invitations.organizationId, organizationId));
  // The number is registered, so the inbox's send is taken (and queued: no dispatcher runs here).
  await db().execute(sql`update whatsapp_phone_numbers set registered_at = now() where phone_number_id = '105000222'`);
  // Not contacts[0..3]: other rows' proofs delete, tag and merge those.
  const customer = (await own(contacts))[4];
  const [conversation] = await queryRows<{ id: string }>(
    db(),
    sql`
      insert into conversations (organization_id, phone_number_id, contact_id, last_inbound_at, last_message_at, unread_count)
      values (${organizationId}, '105000222', ${customer!.id}, now(), now(), 0)
      on conflict (organization_id, phone_number_id, contact_id) do update set last_inbound_at = now(), unread_count = 0
      returning id`,
  );
  const [said] = await queryRows<{ id: string }>(
    db(),
    sql`
      insert into messages (organization_id, contact_id, direction, status, body, wamid, phone_number_id, message_type, sent_at)
      values (${organizationId}, ${customer!.id}, 'inbound', 'received', 'Habari, nataka kujua salio langu', 'wamid.matrix1', '105000222', 'text', now())
      returning id`,
  );
  const rules = [];
  for (const [name, keyword] of [
    ["Prices", "bei"],
    ["Loans", "mkopo"],
  ] as const)
    rules.push(
      (
        await createRule(
          { organizationId, userId: owner.id },
          { name, matchType: "contains", keywords: [keyword], reply: `${name}: tuma ujumbe.` },
        )
      ).id,
    );
  const flows = [];
  for (const name of ["Loan balance", "Branch hours"]) {
    const flow = await createFlow(
      { organizationId, userId: owner.id },
      {
        name,
        steps: [
          { id: "first", type: "message", text: `${name}: karibu.` },
          { id: "second", type: "message", text: "Asante." },
        ],
      },
    );
    await publishFlow({ organizationId, userId: owner.id }, flow.id);
    flows.push(flow.id);
  }
  const articles = [];
  for (const [title, body] of [
    ["Saa za kazi", "Tunafungua saa mbili asubuhi hadi saa kumi jioni."],
    ["Paybill", "Lipa kupitia Paybill 400200."],
  ])
    articles.push((await addArticle({ organizationId, userId: owner.id }, { title: title!, body: body! })).id);
  const transfers = [];
  for (let i = 0; i < 2; i++) transfers.push(await startBankTransfer({ organizationId, userId: owner.id }, { amount: 2500 }));
  const [product] = await db()
    .insert(products)
    .values({
      organizationId,
      retailerId: "MATRIX-1",
      name: "Sacco umbrella",
      priceCents: 120000,
      imageUrl: "https://nyota-sacco.example.co.ke/umbrella.jpg",
    })
    .returning();
  const [order] = await db()
    .insert(orders)
    .values({ organizationId, wamid: "wamid.matrix-order", catalogId: "1", totalCents: 240000 })
    .returning();
  await db().insert(orderItems).values({
    orderId: order!.id,
    position: 0,
    retailerId: "MATRIX-1",
    productId: product!.id,
    name: "Sacco umbrella",
    quantity: 2,
    unitPriceCents: 120000,
  });
  return {
    organizationId,
    product: product!.id,
    order: order!.id,
    payment: transfers[0]!.payment.id,
    invoices: transfers.map((t) => t.invoiceId!),
    users: ids,
    cookies,
    extraAgent: (await member("amina.hassan@nyota-sacco.demo")).id,
    ownerOtherSession: sha256(other.token),
    template: (await own(messageTemplates))[0]!.id,
    contacts: (await own(contacts)).slice(0, 5).map((c) => c.id),
    contactImport: upload!.id,
    campaign: campaign!.id,
    segment: segment!.id,
    invitation: invitation!.id,
    account: account.id,
    rules,
    flows,
    articles,
    conversation: conversation!.id,
    conversationMessage: said!.id,
    quickReply: (
      await db()
        .select({ id: quickReplies.id })
        .from(quickReplies)
        .where(and(eq(quickReplies.organizationId, organizationId), eq(quickReplies.shortcut, "hours")))
    )[0]!.id,
  };
}

function changedTables(before: Record<string, string>, after: Record<string, string>) {
  return Object.keys(before).filter((t) => before[t] !== after[t]);
}

/** What the routes along a path declare (every permission needed; "session" when they ask only for a member). */
function pagePermission(samplePath: string): Need | undefined {
  const access = routeAccess(new URL(samplePath, APP).pathname);
  if (!access) return undefined;
  return access.permissions.length === 0 ? "session" : access.permissions.length === 1 ? access.permissions[0] : access.permissions;
}

/** What a route needs: what its route declares at its sample path, else its row above. */
function needOf(pattern: string, samplePath: string): { need: Need; api: boolean } {
  const page = pagePermission(samplePath);
  if (page) return { need: page, api: pattern.startsWith("/api/") };
  const row = NOT_IN_PAGE_TABLE[pattern];
  if (!row) throw new Error(`${pattern}: no declared permission nor a row in NOT_IN_PAGE_TABLE`);
  return { need: row.need, api: !!row.api };
}

/** The admin console answers 404 to anyone but a platform administrator (decision 037): it does not exist for them. */
const isConsole = (pattern: string) => pattern === "/admin" || pattern.startsWith("/admin/") || pattern.startsWith("/api/admin/");

function allowed(who: Who, need: Need) {
  if (need === "public") return true;
  if (who === "anonymous") return false;
  if (need === "session") return true;
  return (typeof need === "string" ? [need] : need).every((permission) => can(who, permission));
}

async function send(pathname: string, who: Who, w: World, init: { method?: string; form?: Record<string, string>; accept?: string } = {}) {
  const headers = new Headers({ "user-agent": "vitest", accept: init.accept ?? "text/html" });
  if (w.cookies[who]) headers.set("cookie", w.cookies[who]);
  let body: URLSearchParams | undefined;
  if (init.method === "POST") {
    headers.set("origin", APP);
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(init.form ?? {});
  }
  return appFetch(new Request(`${APP}${pathname}`, { method: init.method ?? "GET", headers, body }));
}

/** Reads a response's text, except a stream (server-sent events) which is closed unread. */
async function textOf(response: Response) {
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    await response.body?.cancel();
    return "";
  }
  return response.text();
}

/** Follows a page's redirects as a browser would (at most five), returning the last answer and the path it came from. */
async function follow(pathname: string, who: Who, w: World, first?: Response) {
  const seen: string[] = [];
  let at = pathname;
  for (let response = first ?? (await send(at, who, w)); ; response = await send(at, who, w)) {
    const location = response.headers.get("location");
    if (!(response.status >= 300 && response.status < 400 && location)) return { response, at, hops: seen, text: await textOf(response) };
    await response.body?.cancel();
    seen.push(at);
    const next = new URL(location, `${APP}${at}`);
    if (next.origin !== APP) return { response, at, hops: seen, text: "" };
    at = next.pathname + next.search;
    if (seen.length > 5 || seen.includes(at))
      throw new Error(`${who} GET ${pathname}: a redirect loop through ${[...seen, at].join(" → ")}`);
  }
}

let w: World;
beforeAll(async () => {
  // The routes' declared permissions are read from the application's routes.
  await appBuild();
});
beforeEach(async () => {
  w = await buildWorld();
});

/**
 * A route module's source with the page parts it imports (components/) and theirs, where its forms' intents are written since the pages were split into parts.
 */
/** Component files that more than one route module imports: parts shared by several pages. */
const SHARED_PARTS = (() => {
  const importers = new Map<string, number>();
  for (const file of new Set(flatRoutes().map((route) => path.join(APP_DIR, route.file))))
    for (const match of readFileSync(file, "utf8").matchAll(/from "~\/(components\/[^"]+)"/g))
      for (const candidate of [".tsx", ".ts"].map((ext) => path.join(APP_DIR, match[1]!) + ext))
        if (existsSync(candidate)) importers.set(candidate, (importers.get(candidate) ?? 0) + 1);
  return new Set([...importers].filter(([, count]) => count > 1).map(([file]) => file));
})();

function pageSources(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = readFileSync(file, "utf8");
  const parts = [...source.matchAll(/from "(~\/components\/[^"]+|\.{1,2}\/[^"]+)"/g)].flatMap((match) => {
    const spec = match[1]!;
    const base = spec.startsWith("~/") ? path.join(APP_DIR, spec.slice(2)) : path.resolve(path.dirname(file), spec);
    if (!spec.startsWith("~/") && !file.includes(`${path.sep}components${path.sep}`)) return [];
    const found = [".tsx", ".ts", "/index.ts", "/index.tsx", ""]
      .map((ext) => base + ext)
      .find((candidate) => existsSync(candidate) && !statSync(candidate).isDirectory());
    return found && !SHARED_PARTS.has(found) ? pageSources(found, seen) : [];
  });
  return [source, ...parts];
}

describe("the matrix covers every route and intent", () => {
  it("has a permission (or a documented exception) and a sample path for every route of app/routes.ts", () => {
    const missing = ROUTES.filter((r) => {
      const sample = SAMPLE[r.pattern]?.(w) ?? r.pattern;
      if (sample.includes(":")) return true;
      try {
        needOf(r.pattern, sample);
        return false;
      } catch {
        return true;
      }
    }).map((r) => r.pattern);
    expect(missing).toEqual([]);
    // Exceptions for routes that no longer exist, or that the page table now covers, go.
    const patterns = new Set(ROUTES.map((r) => r.pattern));
    expect(Object.keys(NOT_IN_PAGE_TABLE).filter((p) => !patterns.has(p) || pagePermission(SAMPLE[p]?.(w) ?? p))).toEqual([]);
  });

  it("lists every action's intents, read from the route modules", () => {
    const wrong: string[] = [];
    for (const route of ROUTES) {
      const module = MODULES.get(route.pattern)!;
      if (!takesPosts(module) || PUBLIC_ACTIONS.has(route.pattern)) continue;
      const table = ACTIONS[route.pattern];
      if (!table) {
        wrong.push(`${route.pattern}: no row in ACTIONS`);
        continue;
      }
      const [source, ...parts] = pageSources(path.join(APP_DIR, route.file));
      const intents = new Set<string>();
      for (const re of [
        /intent"?\)?\s*[!=]==\s*"([\w-]+)"/g,
        /name="intent"\s+value="([\w-]+)"/g,
        /\bintent="([\w-]+)"/g,
        /\bintent:\s*"([\w-]+)"/g,
        /case "([\w-]+)":/g,
        /\bintent:\s*z\.literal\("([\w-]+)"\)/g,
        // The intent helper's table (decision 119): `move: intent(…)`, `"save-step": intent(…)`.
        /^\s*"?([\w-]+)"?:\s*intent\(/gm,
      ])
        for (const match of source!.matchAll(re)) intents.add(match[1]!);
      for (const match of source!.matchAll(/\bintent:\s*z\.enum\(\[([^\]]+)\]/g))
        for (const name of match[1]!.matchAll(/"([\w-]+)"/g)) intents.add(name[1]!);
      // In the page's own parts (a part several pages share may post elsewhere), only what a form posts
      // (their `case` and `intent:` serve other purposes).
      for (const part of parts)
        for (const re of [/name="intent"\s+value="([\w-]+)"/g, /\bintent="([\w-]+)"/g])
          for (const match of part.matchAll(re)) intents.add(match[1]!);
      for (const intent of intents) if (!table[intent]) wrong.push(`${route.pattern}: intent "${intent}" has no row`);
      if (!intents.size && !table[""]) wrong.push(`${route.pattern}: no intents found, and no "" row`);
    }
    for (const pattern of Object.keys(ACTIONS))
      if (!takesPosts(MODULES.get(pattern) ?? {})) wrong.push(`${pattern}: in ACTIONS but has no action`);
    expect(wrong).toEqual([]);
  });
});

describe("every role against every page", () => {
  it("answers each page (and its client-side data request) as the permission table says, with no 500 and no redirect loop", async () => {
    const wrong: string[] = [];
    const deny = /Access denied/;
    // What each role its route's declaration lets in was answered: "ok" or the status it ended with.
    const answers = new Map<string, Map<Who, string>>();
    for (const route of ROUTES) {
      const sample = SAMPLE[route.pattern]?.(w) ?? route.pattern;
      const { need, api } = needOf(route.pattern, sample);
      const module = MODULES.get(route.pattern)!;
      if (route.pattern === "/api/v1/*" || typeof module.loader !== "function") continue;
      for (const who of WHO) {
        const may = allowed(who, need);
        const label = `${who} GET ${sample}`;
        if (api) {
          const response = await send(sample, who, w, { accept: "application/json" });
          const text = await textOf(response);
          const expected = may ? "allowed" : isConsole(route.pattern) ? 404 : who === "anonymous" ? 401 : 403;
          const refusals = isConsole(route.pattern) ? [401, 403, 404] : [401, 403];
          const got = refusals.includes(response.status) ? response.status : response.status >= 500 ? 500 : "allowed";
          // A browser opening the activity export signed out is sent to sign in (its `from` is the Activity page).
          const exportLogin = route.pattern === "/api/activity-logs/export" && who === "anonymous" && response.status === 302;
          // POST-only routes answer GET with 405 before anything else; their refusals are tested with the actions.
          const postOnly = response.status === 405 && !!ACTIONS[route.pattern];
          if (got !== expected && !exportLogin && !postOnly)
            wrong.push(`${label}: ${response.status} ${text.slice(0, 80)}, expected ${expected}`);
          continue;
        }
        const first = await send(sample, who, w);
        const location = first.headers.get("location");
        if (!may && need !== "public") {
          await first.body?.cancel();
          if (isConsole(route.pattern)) {
            if (first.status !== 404) wrong.push(`${label}: ${first.status} ${location}, expected 404`);
          } else if (who === "anonymous") {
            if (first.status !== 302 || !location?.startsWith("/login?from="))
              wrong.push(`${label}: ${first.status} ${location}, expected sign-in`);
          } else if (first.status !== 302 || location !== "/unauthorized") {
            wrong.push(`${label}: ${first.status} ${location}, expected /unauthorized`);
          } else {
            const page = await follow(sample, who, w);
            if (page.response.status !== 403 || !deny.test(page.text))
              wrong.push(`${label}: the refusal page answered ${page.response.status}`);
          }
        } else {
          const page = await follow(sample, who, w, first);
          const status = page.response.status;
          const also = ALLOWED_ALSO[route.pattern];
          const fine = (status >= 200 && status < 300) || status === 404 || status === also?.status;
          if (!answers.has(route.pattern)) answers.set(route.pattern, new Map());
          answers
            .get(route.pattern)!
            .set(who, status >= 200 && status < 300 ? "ok" : page.at === "/unauthorized" ? "refused" : String(status));
          if (!fine || (page.at === "/unauthorized" && sample !== "/unauthorized") || (need !== "public" && page.at.startsWith("/login")))
            wrong.push(`${label}: ended at ${page.at} with ${status}`);
          // A platform administrator acts in their own organisation: the Sacco's rows are another tenant's, not found.
          const foreign = who.startsWith("platform_") && route.pattern.includes("/:");
          if (status === 404 && also?.status !== 404 && need !== "public" && !foreign) wrong.push(`${label}: 404`);
        }
        // The same refusal when the client-side router fetches the page's data.
        if (typeof module.default === "function" && !may) {
          const dataPath = `${sample === "/" ? "/_root" : sample.replace(/\/$/, "")}.data`;
          const response = await send(dataPath, who, w, { accept: "*/*" });
          const text = await textOf(response);
          const target = /"redirect","([^"]+)"/.exec(text)?.[1];
          if (response.status >= 500) wrong.push(`${label}.data: ${response.status}`);
          else if (isConsole(route.pattern)) {
            if (response.status !== 404) wrong.push(`${label}.data: ${response.status}, expected 404`);
          } else if (!may && who !== "anonymous" && target !== "/unauthorized") wrong.push(`${label}.data: ${response.status} → ${target}`);
          else if (!may && who === "anonymous" && !target?.startsWith("/login?from=")) wrong.push(`${label}.data: → ${target}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // Issue 72: a route that declares one permission and enforces another. Navigation, search and
    // sign-in's `from` read the declaration, so every role it lets in must get the page: the members
    // of one organisation (same data) the same answer, and none of them a refusal the platform
    // administrator (who holds every permission) does not get on the same address.
    const mismatched: string[] = [];
    for (const [pattern, byWho] of answers) {
      if (needOf(pattern, SAMPLE[pattern]?.(w) ?? pattern).need === "public") continue;
      const members = [...byWho].filter(([who]) => !who.startsWith("platform_"));
      const [first] = members;
      for (const [who, answer] of members)
        if (first && answer !== first[1]) mismatched.push(`${pattern}: ${first[0]} ${first[1]}, ${who} ${answer}`);
      if (byWho.get("platform_admin") === "ok" && !pattern.includes("/:"))
        for (const [who, answer] of members) if (answer !== "ok") mismatched.push(`${pattern}: platform_admin ok, ${who} ${answer}`);
    }
    expect(mismatched).toEqual([]);
  }, 180_000);

  it("tells a refused member plainly, in a 403 page, which role they have and where to go", async () => {
    const page = await follow("/developers", "viewer", w);
    expect(page.hops).toEqual(["/developers"]);
    expect(page.response.status).toBe(403);
    expect(page.text).toContain("Access denied");
    expect(page.text.replace(/<!-- -->/g, "")).toMatch(/You are a viewer in Nyota Savings Sacco, and your role does not include it/);
    expect(page.text).toContain('href="/dashboard"');
  });
});

describe("the programme's administration tabs (issue 72)", () => {
  it("declare the permission they enforce, so sign-in sends a business owner home and an administrator to them", () => {
    for (const tab of [
      "/revenue-share/partners",
      "/revenue-share/transactions",
      "/revenue-share/settlements",
      "/revenue-share/transactions.csv",
    ]) {
      // The console's money staff's (issue 74): owners and finance; support staff go to the console.
      expect(routeAccess(tab)?.permissions, tab).toEqual(["platform:money"]);
      for (const role of ["owner", "admin", "agent", "viewer"] as const)
        expect(safeRedirectTarget(tab, role), `${role} ${tab}`).toBe("/dashboard");
      expect(safeRedirectTarget(`${tab}?page=2`, "platform_admin")).toBe(`${tab}?page=2`);
      expect(safeRedirectTarget(`${tab}?page=2`, "platform_finance")).toBe(`${tab}?page=2`);
      expect(safeRedirectTarget(tab, "platform_support")).toBe("/admin");
    }
    // The programme's own page stays the money pages': an owner applies or reads its own programme there.
    expect(safeRedirectTarget("/revenue-share", "owner")).toBe("/revenue-share");
  });
});

describe("every role against every action", () => {
  it("refuses each intent to every role without its permission, and changes nothing", async () => {
    const wrong: string[] = [];
    const proofs: { label: string; run: () => Promise<Response> }[] = [];
    let before = await tableDigests();
    for (const [pattern, intents] of Object.entries(ACTIONS)) {
      const sample = SAMPLE[pattern]?.(w) ?? pattern;
      const page = pagePermission(sample);
      const api = pattern.startsWith("/api/");
      for (const [intent, row] of Object.entries(intents)) {
        for (const who of WHO) {
          const may = who !== "anonymous" && can(who, row.needs) && (!page || allowed(who, page));
          if (may) continue;
          const label = `${who} POST ${sample} ${intent || "(form)"}`;
          const response = await send(sample, who, w, {
            method: "POST",
            form: row.form(w),
            accept: api ? "application/json" : "text/html",
          });
          await response.body?.cancel();
          const location = response.headers.get("location");
          const refused = isConsole(pattern)
            ? response.status === 404
            : who === "anonymous"
              ? response.status === 401 || (response.status === 302 && !!location?.startsWith("/login?from="))
              : response.status === 403 || (response.status === 302 && location === "/unauthorized");
          if (!refused) wrong.push(`${label}: ${response.status} ${location ?? ""}`);
          const after = await tableDigests();
          const changed = changedTables(before, after);
          if (changed.length) wrong.push(`${label}: changed ${changed.join(", ")}`);
          // A failure is reported once; the next requests compare against what it left.
          before = after;
        }
        if (row.proof !== false) {
          const by = row.proof?.by ?? "owner";
          proofs.push({
            label: `${by} POST ${sample} ${intent || "(form)"}`,
            run: () => send(sample, by, w, { method: "POST", form: row.form(w), accept: api ? "application/json" : "text/html" }),
          });
        }
      }
    }
    expect(wrong).toEqual([]);
    // The same forms from a member who may: each changes the database, so the refusals above are the guard's.
    for (const proof of proofs) {
      const was = await tableDigests();
      const response = await proof.run();
      const text = await textOf(response);
      const changed = changedTables(was, await tableDigests());
      if (response.status >= 400 || !changed.length)
        wrong.push(`${proof.label}: ${response.status} ${text.slice(0, 120)}; changed ${changed}`);
    }
    expect(wrong).toEqual([]);
  }, 180_000);
});

describe("the public API", () => {
  it("takes the organisation's key whoever made it, and never a session", async () => {
    // The key belongs to the organisation: an owner or admin makes it (developer:view), and calls
    // made with it act for the organisation, not for a member (a member removed later does not stop it).
    const shown = await send("/api/developer/api-key", "owner", w, { accept: "application/json" });
    const key = ((await shown.json()) as { key?: string }).key ?? "";
    expect(key).toMatch(/^jmb_/);
    for (const who of WHO) {
      const response = await send("/api/v1/account", who, w, { accept: "application/json" });
      await response.body?.cancel();
      expect(response.status, who).toBe(401);
    }
    const withKey = await appFetch(new Request(`${APP}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } }));
    expect(withKey.status).toBe(200);
    const [organization] = await db().select().from(organizations).where(eq(organizations.id, w.organizationId));
    expect(await withKey.text()).toContain(organization!.name);
  });
});
