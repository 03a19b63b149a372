/** The activity log's types, statuses and date ranges (spec section 9), shared by page and server. */
export const ACTIVITY_TYPES = ["login", "message", "template", "billing", "settings", "security", "system", "auth", "profile"] as const;
export const ACTIVITY_STATUSES = ["success", "warning", "error"] as const;
export const DATE_RANGES = { "24hours": 1, "7days": 7, "30days": 30, "90days": 90 } as const;
export const DEFAULT_RANGE = "7days";
export type DateRange = keyof typeof DATE_RANGES;
