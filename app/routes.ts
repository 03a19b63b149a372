import { type RouteConfig, index, layout, prefix, route } from "@react-router/dev/routes";

// Every URL of the product, in one place.
export default [
  index("routes/marketing/home.tsx"),
  route("privacy-policy", "routes/marketing/privacy.tsx", { id: "privacy-policy" }),
  route("privacy", "routes/marketing/privacy.tsx", { id: "privacy" }),
  route("terms-of-service", "routes/marketing/terms.tsx", { id: "terms-of-service" }),
  route("terms", "routes/marketing/terms.tsx", { id: "terms" }),
  route("robots.txt", "routes/marketing/robots.ts"),
  route("sitemap.xml", "routes/marketing/sitemap.ts"),
  route("manifest.webmanifest", "routes/marketing/manifest.ts"),

  // The language switcher's form (decision 071).
  route("language", "routes/language.ts"),

  // Development only: every UI kit component on one page (404 in a production build).
  route("dev/ui", "routes/dev/ui.tsx"),

  // Public: signing in and up
  route("login", "routes/auth/login.tsx", { id: "login" }),
  route("signin", "routes/auth/login.tsx", { id: "signin" }),
  // Sign-in, step two, for members with two-factor sign-in.
  route("login/two-factor", "routes/auth/two-factor.tsx"),
  // Sign-in from a new browser while the account sees many failed sign-ins: a code from the e-mail.
  route("login/email-code", "routes/auth/email-code.tsx"),
  route("signup", "routes/auth/signup.tsx"),
  route("verify-otp", "routes/auth/verify-otp.tsx"),
  route("forgot-password", "routes/auth/forgot-password.tsx"),
  route("reset-password", "routes/auth/reset-password.tsx"),
  route("logout", "routes/auth/logout.tsx"),
  route("unauthorized", "routes/auth/unauthorized.tsx"),
  // An invitation's link: join the organisation that sent it.
  route("invitations/:token", "routes/auth/invitation.tsx"),

  // Signed in: the shell (side navigation for non-admins). Each page's module declares its
  // permission in its `handle`, checked by the layout's middleware (decision 055).
  layout("routes/app/layout.tsx", [
    // The contacts CSV import: upload, then the mapping form and the import's progress and report.
    route("messaging/contacts/import", "routes/app/messaging/import/upload.tsx"),
    route("messaging/contacts/import/:id", "routes/app/messaging/import/run.tsx"),
    route("dashboard", "routes/app/dashboard.tsx"),
    route("get-started", "routes/app/get-started.tsx"),
    route("profile", "routes/app/profile.tsx", { id: "profile" }),
    route("change-password", "routes/app/change-password.tsx"),
    route("preferences/sidebar", "routes/app/sidebar-preference.tsx"),
    route("whatsapp", "routes/app/whatsapp.tsx"),
    route("embedded-callback", "routes/app/embedded-callback.tsx"),
    route("activity", "routes/app/activity.tsx"),
    route("developers", "routes/app/developers.tsx"),
    route("developers/errors", "routes/app/developer-errors.tsx"),
    route("developers/api/:operation", "routes/app/developer-endpoint.tsx"),
    route("search", "routes/app/search.tsx"),
    route("search/suggest", "routes/app/search-suggest.ts"),
    route("templates", "routes/app/templates/index.tsx"),
    route("templates/new", "routes/app/templates/edit.tsx", { id: "template-new" }),
    route("templates/:id/edit", "routes/app/templates/edit.tsx", { id: "template-edit" }),
    route("preview", "routes/app/preview.tsx"),
    // The Message Center: three tabs, each a URL; contacts, their pages, fields and segments.
    route("messaging", "routes/app/messaging/campaigns.tsx"),
    route("messaging/broadcasts", "routes/app/messaging/broadcasts.tsx"),
    route("messaging/contacts", "routes/app/messaging/contacts.tsx"),
    route("messaging/contacts/segments", "routes/app/messaging/segments.tsx"),
    route("messaging/contacts/fields", "routes/app/messaging/fields.tsx"),
    route("messaging/contacts/:id", "routes/app/messaging/contact.tsx"),
    // Campaigns and quick broadcasts: the New Campaign form with its review, a campaign's page.
    route("messaging/campaigns/new", "routes/app/messaging/campaigns/new.tsx", { id: "campaign-new" }),
    route("messaging/broadcasts/new", "routes/app/messaging/campaigns/new.tsx", { id: "broadcast-new" }),
    route("messaging/campaigns/:id", "routes/app/messaging/campaigns/campaign.tsx"),
    // Account Settings: its sections, each a page (the organisation first, closing it last).
    route("settings", "routes/app/settings/index.ts"),
    route("settings/organisation", "routes/app/settings/organisation.tsx"),
    route("settings/team", "routes/app/settings/team.tsx"),
    route("settings/payments", "routes/app/settings/payments.tsx"),
    route("settings/sms", "routes/app/settings/sms.tsx"),
    route("settings/ads", "routes/app/settings/ads.tsx"),
    route("settings/retention", "routes/app/settings/retention.tsx"),
    route("settings/notifications", "routes/app/settings/notifications.tsx"),
    route("settings/security", "routes/app/settings/security.tsx"),
    route("settings/account", "routes/app/settings/account.tsx"),
    // Notifications: the full list (the bell shows the latest), and following one (marks it read).
    route("notifications", "routes/app/notifications/index.tsx"),
    route("notifications/:id", "routes/app/notifications/open.ts"),
    // The inbox: conversations, one conversation's thread, the organisation's saved answers.
    route("chat", "routes/app/chat/index.tsx"),
    route("chat/quick-replies", "routes/app/chat/quick-replies.tsx"),
    // Writing to one customer first: a contact or a number, and the number to write from.
    route("chat/new", "routes/app/chat/new.tsx"),
    route("chat/:id", "routes/app/chat/conversation.tsx"),
    route("chat/:id/sms", "routes/app/chat/sms.tsx"),
    route("chat/:id/conversion", "routes/app/chat/conversion.ts"),
    // Automations: the keyword rules in their order; a rule's form (a saved one's with "try it"); the
    // welcome and away messages with the business hours.
    route("automations", "routes/app/automations/index.tsx"),
    route("automations/new", "routes/app/automations/rule.tsx", { id: "automation-new" }),
    route("automations/hours", "routes/app/automations/hours.tsx"),
    // The AI assistant: its settings, "Try it" and usage; its knowledge base (articles, CSV and PDF uploads).
    route("automations/assistant", "routes/app/automations/assistant.tsx"),
    route("automations/knowledge", "routes/app/automations/knowledge.tsx"),
    // Chatbot flows: the list; a new flow's name; a flow's builder (its steps, publishing, idle time).
    route("automations/flows", "routes/app/automations/flows.tsx"),
    route("automations/flows/new", "routes/app/automations/flow-new.tsx"),
    route("automations/flows/:id", "routes/app/automations/flow.tsx"),
    route("automations/:id", "routes/app/automations/rule.tsx", { id: "automation-edit" }),
    // The shop (decision 138): products synced to Meta's catalog (the list, add, edit, CSV import), orders customers sent.
    route("shop/products", "routes/app/shop/products.tsx"),
    route("shop/products/new", "routes/app/shop/product.tsx", { id: "shop-product-new" }),
    route("shop/products/import", "routes/app/shop/import.tsx"),
    route("shop/products/:id", "routes/app/shop/product.tsx", { id: "shop-product-edit" }),
    route("shop/orders", "routes/app/shop/orders.tsx"),
    route("shop/orders/:id", "routes/app/shop/order.tsx"),
    // Billing: plan, wallet, usage, invoices and the top-up; a payment's wait; an invoice as a page.
    route("billing", "routes/app/billing/index.tsx"),
    route("billing/payments/:id", "routes/app/billing/payment.tsx"),
    route("billing/invoices/:id", "routes/app/billing/invoice.tsx"),
    // Advanced Analytics: the period's figures, chart, funnel, templates and daily table.
    route("analytics", "routes/app/analytics.tsx"),
    // Its Ads tab (issue 77): what each Click-to-WhatsApp ad brought, to the sale.
    route("analytics/ads", "routes/app/analytics-ads.tsx"),
    // Integrations (issue 45): the catalogue with its connect dialog, and where a provider's OAuth consent returns.
    route("integrations", "routes/app/integrations/index.tsx"),
    route("integrations/hubspot", "routes/app/integrations/hubspot.tsx"),
    route("integrations/:provider/callback", "routes/app/integrations/callback.tsx"),
    // Google Sheets' export and import settings (decision 085).
    route("integrations/google-sheets", "routes/app/integrations/google-sheets.tsx"),
    route("integrations/shopify", "routes/app/integrations/shopify.tsx"),
    // The partner programme (issue 46): the administrator's four tabs, or a partner's own programme, or the application.
    route("revenue-share", "routes/app/revenue-share/index.tsx"),
    route("revenue-share/partners", "routes/app/revenue-share/partners.tsx"),
    route("revenue-share/transactions", "routes/app/revenue-share/transactions.tsx"),
    route("revenue-share/settlements", "routes/app/revenue-share/settlements.tsx"),
  ]),

  route("whatsapp-setup", "routes/app/whatsapp-setup.ts"),
  // Payments in: M-Pesa Express callbacks (one secret address per payment), the paybill's
  // validation and confirmation (Daraja refuses "mpesa" in those), Paystack's signed webhook.
  route("webhooks/mpesa/stk/:paymentId/:secret", "routes/webhooks/mpesa-stk.ts"),
  route("webhooks/paybill/:secret/:step", "routes/webhooks/paybill.ts"),
  // Payment requests on the tenant's own shortcode (decision 137): STK results and its C2B calls.
  route("webhooks/pay/:token/stk", "routes/webhooks/pay.ts", { id: "webhooks-pay-stk" }),
  route("webhooks/pay/:token/c2b/:step", "routes/webhooks/pay.ts", { id: "webhooks-pay-c2b" }),
  // Payouts out: Daraja's B2C results for a partner's settlement (issue 46).
  route("webhooks/mpesa/b2c/:payoutId/:secret/:kind", "routes/webhooks/mpesa-b2c.ts"),
  route("webhooks/paystack", "routes/webhooks/paystack.ts"),
  route("webhooks/sms/:token/:kind", "routes/webhooks/sms.ts"),

  // Signed in: downloads, files and live streams, outside the shell; each route's declared
  // permission is checked by the layout's middleware (decision 055).
  layout("routes/app/resources.ts", [
    // A template's media sample (the preview's image).
    route("templates/:id/sample", "routes/app/templates/sample.ts"),
    // CSV downloads: an import's rejected rows, and the contacts a filter matches.
    route("messaging/contacts/import/:id/rejected.csv", "routes/app/messaging/import/rejected.ts"),
    route("messaging/contacts/export.csv", "routes/app/messaging/export.ts"),
    route("messaging/contacts/:id/data.json", "routes/app/messaging/contact-data.ts"),
    // A Shopify customer's data request, assembled for the owner to send on (decision 108).
    route("integrations/shopify/requests/:id/data.json", "routes/app/integrations/shopify-data.ts"),
    // The Google Picker's OAuth token for the Google Sheets page's script (issue 73, decision 109).
    route("integrations/google-sheets/picker-token", "routes/app/integrations/google-sheets-picker.ts"),
    // The shop's orders as CSV (the page's filter).
    route("shop/orders.csv", "routes/app/shop/orders-csv.ts"),
    // Advanced Analytics' daily table as CSV (the page's query).
    route("analytics/daily.csv", "routes/app/analytics-csv.ts"),
    route("analytics/payments.csv", "routes/app/analytics-payments-csv.ts"),
    route("analytics/ads.csv", "routes/app/analytics-ads-csv.ts"),
    // The partner programme's Transactions tab as CSV (platform administrators).
    route("revenue-share/transactions.csv", "routes/app/revenue-share/transactions-csv.ts"),
    // A campaign's per-recipient results as CSV, and its live figures (server-sent events).
    route("messaging/campaigns/:id/results.csv", "routes/app/messaging/campaigns/results.ts"),
    route("messaging/campaigns/:id/events", "routes/app/messaging/campaigns/events.ts"),
    // The Campaigns tab's live figures (server-sent events) for the campaigns its page follows.
    route("messaging/events", "routes/app/messaging/events.ts"),
    // The inbox, live (server-sent events), and the files of its messages.
    route("chat/events", "routes/app/chat/events.ts"),
    route("chat/media/:id", "routes/app/chat/media.ts"),
    // A Click-to-WhatsApp ad's picture, fetched from Meta's CDN into storage (issue 77).
    route("chat/ads/:id/picture", "routes/app/chat/ad-picture.ts"),
    // An invoice's PDF, and where Paystack's checkout sends the payer back (verifies, then the payment's page).
    route("billing/invoices/:id/pdf", "routes/app/billing/invoice-pdf.ts"),
    route("billing/card-return", "routes/app/billing/card-return.ts"),
    // A partner settlement's statement PDF (issue 46): the console's administrators and the partner's owner and admins.
    route("revenue-share/settlements/:id/statement", "routes/app/revenue-share/settlement-statement.ts"),
    // The member's bell, live (server-sent events).
    route("notifications/events", "routes/app/notifications/events.ts"),
  ]),

  // Platform administrators
  // Platform administrators: the console's six tabs, their detail pages and CSV exports, the audit
  // log, search and the bell. Anyone else gets 404 from the layout's middleware (decision 037).
  layout("routes/admin/layout.tsx", [
    route("admin", "routes/admin/overview.tsx"),
    route("admin/export.csv", "routes/admin/overview-export.ts"),
    route("admin/users", "routes/admin/users.tsx"),
    route("admin/users/export.csv", "routes/admin/users-export.ts"),
    route("admin/users/:id", "routes/admin/user.tsx"),
    route("admin/billing", "routes/admin/billing.tsx"),
    route("admin/billing/export.csv", "routes/admin/billing-export.ts"),
    route("admin/billing/invoices/:id", "routes/admin/invoice.tsx"),
    route("admin/billing/invoices/:id/pdf", "routes/admin/invoice-pdf.ts"),
    route("admin/billing/disputes/:id", "routes/admin/dispute.tsx"),
    route("admin/billing/wallets/:id", "routes/admin/wallet.tsx"),
    route("admin/whatsapp", "routes/admin/whatsapp.tsx"),
    route("admin/whatsapp/export.csv", "routes/admin/whatsapp-export.ts"),
    route("admin/whatsapp/:id", "routes/admin/whatsapp-account.tsx"),
    route("admin/system", "routes/admin/system.tsx"),
    route("admin/system/export.csv", "routes/admin/system-export.ts"),
    route("admin/templates", "routes/admin/templates.tsx"),
    route("admin/templates/export.csv", "routes/admin/templates-export.ts"),
    route("admin/templates/:id", "routes/admin/template.tsx"),
    route("admin/templates/:id/header-sample", "routes/admin/template-header-sample.ts"),
    route("admin/audit", "routes/admin/audit.tsx"),
    route("admin/audit/export.csv", "routes/admin/audit-export.ts"),
    route("admin/search", "routes/admin/search.tsx"),
    route("admin/notifications", "routes/admin/notifications.tsx"),
    // The console's staff (issue 74): its owners invite, change roles, suspend and reactivate.
    route("admin/staff", "routes/admin/staff.tsx"),
    route("admin/profile", "routes/app/profile.tsx", { id: "admin-profile" }),
    route("admin/*", "routes/admin/not-found.tsx"),
  ]),
  // A product's uploaded image, public for Meta's catalog to fetch (decision 141): an unguessable name, nothing else.
  route("catalog-images/:file", "routes/catalog-image.ts"),
  // Prometheus's scrape of this instance, with a bearer token (METRICS_TOKEN).
  route("metrics", "routes/metrics.ts"),

  // JSON API (cookie-authenticated), spec section 7
  ...prefix("api", [
    route("auth/me", "routes/api/auth.me.ts"),
    route("auth/signin", "routes/api/auth.signin.ts"),
    route("auth/two-factor", "routes/api/auth.two-factor.ts"),
    route("auth/email-code", "routes/api/auth.email-code.ts"),
    route("auth/signup", "routes/api/auth.signup.ts"),
    route("auth/verify-otp", "routes/api/auth.verify-otp.ts"),
    route("auth/resend-otp", "routes/api/auth.resend-otp.ts"),
    route("auth/logout", "routes/api/auth.logout.ts"),
    route("embedded-signup/status", "routes/api/embedded-signup.status.ts"),
    route("meta/embedded-callback", "routes/api/meta.embedded-callback.ts"),
    route("whatsapp/accounts", "routes/api/whatsapp.accounts.ts"),
    route("whatsapp/accounts/:id/:change", "routes/api/whatsapp.account-connection.ts"),
    route("admin/queue", "routes/api/admin.queue.ts"),
    route("activity-logs", "routes/api/activity-logs.ts"),
    route("activity-logs/export", "routes/api/activity-logs.export.ts"),
    route("developer/api-key", "routes/api/developer.api-key.ts"),
    route("developer/api-key/regenerate", "routes/api/developer.api-key.regenerate.ts"),
    route("billing/wallet", "routes/api/billing.wallet.ts"),
    route("billing/topups", "routes/api/billing.topups.ts"),
    route("billing/topups/:id", "routes/api/billing.topup.ts"),
    route("billing/invoices", "routes/api/billing.invoices.ts"),
    route("v1/*", "routes/api/v1.ts"),
    route("*", "routes/api/not-found.ts"),
  ]),

  // Any other path goes home (spec section 2).
  route("*", "routes/catch-all.tsx"),
] satisfies RouteConfig;
