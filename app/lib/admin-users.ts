/** The admin Users tab's choices, shared by its pages and the server (app/.server/domains/admin/users). */
export const USER_STATUSES = ["active", "pending", "suspended"] as const;
export const USER_PLANS = ["Starter", "Growth", "Enterprise"] as const;
/** The longest reason an administrator may give for suspending or reactivating. */
export const REASON_MAX = 500;
