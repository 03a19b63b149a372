import { m } from "~/paraglide/messages";

/** The admin Users tab's choices, shared by its pages and the server (app/.server/domains/admin/users). */
export const USER_STATUSES = ["active", "pending", "suspended"] as const;
export const USER_PLANS = ["Starter", "Growth", "Enterprise"] as const;
/** The longest reason an administrator may give for suspending or reactivating. */
export const REASON_MAX = 500;

/** An organisation's status in words, in the request's language. */
export function userStatusWords(status: string) {
  switch (status) {
    case "active":
      return m.admin_status_active();
    case "pending":
      return m.admin_status_pending();
    case "suspended":
      return m.admin_status_suspended();
    default:
      return status;
  }
}

/** How an organisation is billed, in words. */
export function billingTypeWords(billingType: string) {
  return billingType === "postpaid" ? m.admin_billing_type_postpaid() : m.admin_billing_type_prepaid();
}
