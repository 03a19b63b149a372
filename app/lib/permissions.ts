import type { OrgRole, PlatformRole, UserType } from "./roles";

/**
 * Who may do what: one table, read by every page guard, every JSON guard and the `from` check after
 * sign-in. A platform administrator (usertype admin) runs the console; everybody else acts inside
 * their own organisation with their organisation role (users.org_role): the one owner, admins,
 * agents and viewers. The role is read with the session on every request, so a change of role or a
 * removal takes effect at once on every instance.
 */
export const ROLES = ["platform_admin", "platform_finance", "platform_support", "owner", "admin", "agent", "viewer"] as const;
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
  // The plan, the wallet, top-ups and invoices (/billing and /revenue-share): money is for owners and admins.
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
  // Automations (issue 44): reading the keyword rules, welcome and away messages and their figures;
  // changing them (owners and admins: they answer customers in the organisation's name).
  "automations:view",
  "automations:manage",
  // Payments (issue 76, decision 136): the organisation's own M-Pesa shortcodes (Settings → Payments).
  // Seeing them (which till a payment request uses, whether it works); adding, changing, testing,
  // removing them and their Daraja credentials (owners and admins: it is where customers' money goes).
  "payments:view",
  "payments:manage",
  // The shop (decision 138): its products and orders seen by every member; the products (and the
  // Meta catalog they sync to) kept by owners and admins. Sending a product is answering (inbox:reply).
  "shop:view",
  "shop:manage",
  // Cross-tenant: the admin console and the job queue's health.
  "platform:console",
  "platform:queue",
  // The console's money (issue 74, decision 112): the Billing tab, wallets, invoices, disputes, the
  // partner programme and its payouts (approving one above the threshold is the second staff member's).
  "platform:money",
  // The console's staff: inviting, roles, suspending (the console's owners).
  "platform:staff",
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
  "automations:view",
  "automations:manage",
  "payments:view",
  "payments:manage",
  "shop:view",
  "shop:manage",
];

// Spec section 6: /admin and admin/profile are for admins only, /dashboard for individuals only, and
// every other private page accepts any signed-in user: an administrator's own organisation pages too.
const PLATFORM_STAFF: readonly Permission[] = [
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
  "automations:view",
  "automations:manage",
  "shop:view",
  "shop:manage",
];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  // Spec section 6: /admin and admin/profile are for admins only, /dashboard for individuals only, and
  // every other private page accepts any signed-in user: an administrator's own organisation pages too.
  platform_admin: [
    ...PLATFORM_STAFF,
    "billing:view",
    "billing:manage",
    "platform:console",
    "platform:queue",
    "platform:money",
    "platform:staff",
  ],
  // Issue 74 (decision 112): finance staff handle the money (payouts, wallets, invoices); support
  // staff read and help people and their numbers, and see no money; neither manages the staff.
  platform_finance: [...PLATFORM_STAFF, "billing:view", "billing:manage", "platform:console", "platform:queue", "platform:money"],
  platform_support: [...PLATFORM_STAFF, "platform:console", "platform:queue"],
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
    "automations:view",
    // They ask customers for payment in the chat, so they see which till or paybill is used and whether it works.
    "payments:view",
    "shop:view",
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
    "automations:view",
    "shop:view",
  ],
};

const GRANTS = new Map<Role, ReadonlySet<Permission>>(ROLES.map((role) => [role, new Set(ROLE_PERMISSIONS[role])]));

export function can(role: Role, permission: Permission) {
  return GRANTS.get(role)?.has(permission) ?? false;
}

const STAFF_ROLES: Record<PlatformRole, Role> = { owner: "platform_admin", finance: "platform_finance", support: "platform_support" };

/**
 * The role a user acts with: platform administrators by their staff role (an administrator without
 * one is an owner of the console, as every administrator was before staff roles), everybody else
 * their organisation role.
 */
export function roleOf(user: { usertype: UserType; orgRole: OrgRole; platformRole?: PlatformRole | null }): Role {
  return user.usertype === "admin" ? STAFF_ROLES[user.platformRole ?? "owner"] : user.orgRole;
}

/** Whether the role is one of the console's staff (any platform administrator). */
export const isPlatformStaff = (role: Role) => role.startsWith("platform_");

/**
 * What a signed-in route module declares in its `handle` (decision 055): the permission opening it
 * needs, or "signed-in" for any member. A module mounted at several addresses
 * names one per address, by its pattern in app/routes.ts. The signed-in layouts' middleware checks
 * it before any loader runs, and the navigation, search and sign-in's `from` read it from the same
 * routes (app/.server/domains/auth/route-permissions.ts).
 */
export type RoutePermission = Permission | "signed-in";

export interface PermissionHandle {
  permission: RoutePermission | Readonly<Record<string, Permission>>;
  /** A download or live stream: the page a signed-out browser signs in to and returns to (`:id` from the address). */
  signInReturnsTo?: string;
}
