import { m } from "~/paraglide/messages";

/** The activity log's types, statuses and date ranges (spec section 9), shared by page and server. */
export const ACTIVITY_TYPES = ["login", "message", "template", "billing", "settings", "security", "system", "auth", "profile"] as const;
export const ACTIVITY_STATUSES = ["success", "warning", "error"] as const;
export const DATE_RANGES = { "24hours": 1, "7days": 7, "30days": 30, "90days": 90 } as const;
export const DEFAULT_RANGE = "7days";
export type DateRange = keyof typeof DATE_RANGES;
export type ActivityTypeName = (typeof ACTIVITY_TYPES)[number];
export type ActivityStatusName = (typeof ACTIVITY_STATUSES)[number];

/** A type's name on the page ("Login"); a type the list does not know (an old row), as stored. */
export function activityTypeLabel(type: string): string {
  switch (type as ActivityTypeName) {
    case "login":
      return m.app_activity_type_login();
    case "message":
      return m.app_activity_type_message();
    case "template":
      return m.app_activity_type_template();
    case "billing":
      return m.app_activity_type_billing();
    case "settings":
      return m.app_activity_type_settings();
    case "security":
      return m.app_activity_type_security();
    case "system":
      return m.app_activity_type_system();
    case "auth":
      return m.app_activity_type_auth();
    case "profile":
      return m.app_activity_type_profile();
    default:
      return type;
  }
}

/** A status's name on the page ("Success"). */
export function activityStatusLabel(status: ActivityStatusName): string {
  if (status === "success") return m.app_activity_status_success();
  return status === "warning" ? m.app_activity_status_warning() : m.app_activity_status_error();
}

/** The date ranges' names, in the page's language. */
export function dateRangeLabel(range: DateRange): string {
  switch (range) {
    case "24hours":
      return m.app_period_24h();
    case "7days":
      return m.app_period_7d();
    case "30days":
      return m.app_period_30d();
    case "90days":
      return m.app_period_90d();
  }
}
