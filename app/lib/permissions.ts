import type { OrgRole, UserType } from "./roles";

/**
 * Who may do what: one table, read by every page guard, every JSON guard and the `from` check after
 * sign-in. A platform administrator (usertype admin) runs the console; everybody else acts inside
 * their own organisation with their organisation role (users.org_role): the one owner, admins,
 * agents and viewers. The role is read with the session on every request, so a change of role or a
 * removal takes effect at once on every instance.
 */
export const ROLES = ["platform_admin", "owner", "admin", "agent", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  // Their own account: profile, password, sidebar preference.
  "account:manage",
  // The organisation's overview page (/dashboard); platform administrators have the console instead.
  "overview:view",
  // The Get Started tutorial.
  "tutorial:view",
  "whatsapp:view",
  // Connect, disconnect and reconnect WhatsApp Business accounts.
  "whatsapp:manage",
  "activity:view",
  "activity:export",
  // Message templates and their preview; managing is creating, submitting, copying, deleting, syncing.
  "templates:view",
  "templates:manage",
  // The Developers page: the API key (shown in full), the webhook settings.
  "developer:view",
  "developer:manage",
  // The Message Center (/messaging): its tabs; the contact book, its consent ledger, segments and people's rights.
  "messaging:view",
  "contacts:view",
  // Add, change, tag, merge, delete and erase contacts; custom fields and segments.
  "contacts:manage",
  // Campaigns and broadcasts: their lists, pages, figures and results.
  "campaigns:view",
  // Create, schedule, pause, resume and cancel campaigns and quick broadcasts.
  "campaigns:manage",
  // The organisation's members and invitations: seeing them; inviting, changing roles, removing.
  "team:view",
  "team:manage",
  // Approve or decline another member's campaign that waits for approval (maker-checker).
  "campaigns:approve",
  // The organisation's details for invoices, and the organisation-wide rules (two-factor for everyone, notification e-mails).
  "organization:manage",
  // Notification rules: which events e-mail which roles.
  "notifications:manage",
  // Your own notifications: the bell and /notifications.
  "notifications:view",
  // The plan, the wallet, top-ups and invoices (the planned /billing and /revenue-share pages): money is for owners and admins.
  "billing:view",
  // Top up the wallet, pay and dispute invoices, change the plan and the wallet's alerts.
  "billing:manage",
  // What only the owner does: hand the ownership to another member; close (and reopen) the organisation.
  "ownership:transfer",
  "organization:close",
  // Require two-factor sign-in of every member (the owner).
  "security:enforce",
  // Turn broadcast approval on or off and set its threshold: the owner's alone, since it is the
  // check on everyone else's sending (admins approve campaigns but cannot switch the check off).
  "approvals:configure",
  // The inbox (/chat): reading conversations; answering, notes, taking, resolving and retrying;
  // assigning a conversation to any member; the organisation's saved answers.
  "inbox:view",
  "inbox:reply",
  "inbox:assign",
  "inbox:quick-replies",
  // Cross-tenant: the admin console and the job queue's health.
  "platform:console",
  "platform:queue",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ORGANISATION_ADMIN: readonly Permission[] = [
  "account:manage",
  "overview:view",
  "tutorial:view",
  "whatsapp:view",
  "whatsapp:manage",
  "activity:view",
  "activity:export",
  "templates:view",
  "templates:manage",
  "developer:view",
  "developer:manage",
  "messaging:view",
  "contacts:view",
  "contacts:manage",
  "campaigns:view",
  "campaigns:manage",
  "team:view",
  "team:manage",
  "campaigns:approve",
  "organization:manage",
  "notifications:manage",
  "notifications:view",
  "billing:view",
  "billing:manage",
  "inbox:view",
  "inbox:reply",
  "inbox:assign",
  "inbox:quick-replies",
];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  // Spec section 6: /admin and admin/profile are for admins only, /dashboard for individuals only, and
  // every other private page accepts any signed-in user: an administrator's own organisation pages too.
  platform_admin: [
    "account:manage",
    "tutorial:view",
    "whatsapp:view",
    "whatsapp:manage",
    "activity:view",
    "activity:export",
    "templates:view",
    "templates:manage",
    "developer:view",
    "developer:manage",
    "messaging:view",
    "contacts:view",
    "contacts:manage",
    "campaigns:view",
    "campaigns:manage",
    "team:view",
    "notifications:view",
    "inbox:view",
    "inbox:reply",
    "inbox:assign",
    "inbox:quick-replies",
    // An administrator's own organisation pages, as every other organisation page above.
    "billing:view",
    "billing:manage",
    "platform:console",
    "platform:queue",
  ],
  owner: [...ORGANISATION_ADMIN, "ownership:transfer", "organization:close", "security:enforce", "approvals:configure"],
  admin: ORGANISATION_ADMIN,
  // Agents chat and send; they see the setup and the log but change neither the connection nor the keys.
  agent: [
    "account:manage",
    "overview:view",
    "tutorial:view",
    "whatsapp:view",
    "activity:view",
    "templates:view",
    "messaging:view",
    "contacts:view",
    "contacts:manage",
    "campaigns:view",
    "campaigns:manage",
    "team:view",
    "notifications:view",
    // The inbox: they answer, take and resolve conversations (assigning to others is for owners and admins).
    "inbox:view",
    "inbox:reply",
  ],
  viewer: [
    "account:manage",
    "overview:view",
    "tutorial:view",
    "whatsapp:view",
    "activity:view",
    "templates:view",
    "messaging:view",
    "contacts:view",
    "campaigns:view",
    "team:view",
    "notifications:view",
    // Viewers read the inbox and answer nobody.
    "inbox:view",
  ],
};

const GRANTS = new Map<Role, ReadonlySet<Permission>>(ROLES.map((role) => [role, new Set(ROLE_PERMISSIONS[role])]));

export function can(role: Role, permission: Permission) {
  return GRANTS.get(role)?.has(permission) ?? false;
}

/** The role a user acts with: platform administrators by their usertype, everybody else their organisation role. */
export function roleOf(user: { usertype: UserType; orgRole: OrgRole }): Role {
  return user.usertype === "admin" ? "platform_admin" : user.orgRole;
}

/**
 * What opening each signed-in page needs, by its path (a `:name` segment stands for any one segment,
 * as in app/routes.ts). The layouts' middleware checks it before any loader runs, and sign-in
 * honours a `from` only when the role may open it. A signed-in page missing here needs only a
 * session; tests/integration/route-permissions.test.ts keeps every route listed.
 */
export const PAGE_PERMISSIONS: Record<string, Permission> = {
  "/dashboard": "overview:view",
  "/get-started": "tutorial:view",
  "/profile": "account:manage",
  "/change-password": "account:manage",
  "/preferences/sidebar": "account:manage",
  "/whatsapp": "whatsapp:view",
  "/embedded-callback": "whatsapp:manage",
  "/activity": "activity:view",
  "/developers": "developer:view",
  "/templates": "templates:view",
  "/templates/new": "templates:manage",
  "/templates/:id/edit": "templates:manage",
  "/templates/:id/sample": "templates:view",
  "/preview": "templates:view",
  "/messaging": "messaging:view",
  "/messaging/broadcasts": "messaging:view",
  // Campaigns and quick broadcasts: seen by everyone who sees the Message Center, made by those who manage them.
  "/messaging/campaigns/new": "campaigns:manage",
  "/messaging/broadcasts/new": "campaigns:manage",
  "/messaging/campaigns/:id": "campaigns:view",
  "/messaging/campaigns/:id/results.csv": "campaigns:view",
  "/messaging/campaigns/:id/events": "campaigns:view",
  "/messaging/contacts": "contacts:view",
  "/messaging/contacts/segments": "contacts:view",
  "/messaging/contacts/fields": "contacts:view",
  "/messaging/contacts/:id": "contacts:view",
  // The contacts a filter matches, as CSV: a copy of the book leaves with those who manage it.
  "/messaging/contacts/export.csv": "contacts:manage",
  // Everything held about one contact (the right of access), as a file: for those who manage them.
  "/messaging/contacts/:id/data.json": "contacts:manage",
  // The CSV import adds contacts: its pages and its rejected rows are for those who manage them.
  "/messaging/contacts/import": "contacts:manage",
  "/messaging/contacts/import/:id": "contacts:manage",
  "/messaging/contacts/import/:id/rejected.csv": "contacts:manage",
  // Account Settings: every member has some section (their own security); the team is seen by all, changed by owners and admins.
  "/settings": "account:manage",
  // The organisation's details (owners and admins); closing and reopening it (the owner).
  "/settings/organisation": "organization:manage",
  "/settings/team": "team:view",
  "/settings/security": "account:manage",
  // Advanced Analytics and its daily CSV: everyone who sees the campaigns' results.
  "/analytics": "campaigns:view",
  "/analytics/daily.csv": "campaigns:view",
  "/billing": "billing:view",
  // Billing: the page (its forms check billing:manage), a payment's wait, an invoice and its PDF, the card's return.
  "/billing/payments/:id": "billing:view",
  "/billing/invoices/:id": "billing:view",
  "/billing/invoices/:id/pdf": "billing:view",
  "/billing/card-return": "billing:manage",
  // Spec pages not built yet (app/lib/planned-pages.ts): each already refused to the roles it will not be for.
  "/integrations": "developer:view",
  "/revenue-share": "billing:view",

  // Who each event e-mails: owners and admins. Your own notifications: every role.
  "/settings/notifications": "notifications:manage",
  "/notifications": "notifications:view",
  "/notifications/:id": "notifications:view",
  "/notifications/events": "notifications:view",
  "/settings/account": "organization:close",
  // The inbox: conversations, a thread, its live stream and its files; the saved answers (read by
  // all who answer, kept by owners and admins on their page).
  "/chat": "inbox:view",
  "/chat/:id": "inbox:view",
  "/chat/events": "inbox:view",
  "/chat/media/:id": "inbox:view",
  "/chat/quick-replies": "inbox:quick-replies",
  "/chat/new": "inbox:reply",
  "/admin": "platform:console",
  "/admin/profile": "platform:console",
};

// The table's paths with a parameter, as patterns: `:id` matches one segment.
const PAGE_PATTERNS = Object.entries(PAGE_PERMISSIONS)
  .filter(([path]) => path.includes("/:"))
  .map(([path, permission]) => ({
    pattern: new RegExp(`^${path.replace(/[.]/g, "\\.").replace(/\/:[^/]+/g, "/[^/]+")}$`),
    permission,
  }));

/** The permission a signed-in page needs (a trailing slash is the same page). */
export function pagePermission(pathname: string): Permission | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  // The whole console is the platform administrators' (every /admin page, its exports and details).
  if (path.startsWith("/admin/")) return "platform:console";
  if (Object.hasOwn(PAGE_PERMISSIONS, path)) return PAGE_PERMISSIONS[path];
  return PAGE_PATTERNS.find(({ pattern }) => pattern.test(path))?.permission;
}
