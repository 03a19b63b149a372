/**
 * How long an organisation's data is kept (issue 78, decision 165): each organisation chooses within
 * the platform's limits; the database checks the same limits (organizations_*_retention_check), the
 * settings form and the privacy policy read them from here.
 */
export const RETENTION_LIMITS = {
  /** Message bodies (what was written) and their payloads: 30 days to 7 years, 2 years unless chosen. */
  messages: { min: 30, max: 7 * 365, default: 2 * 365 },
  /** Media files (images, documents, voice notes): 90 days unless chosen, never longer than the bodies. */
  media: { min: 30, max: 7 * 365, default: 90 },
  /** Logs: the activity log and webhook deliveries out; 30 to 365 days, 90 unless chosen. */
  logs: { min: 30, max: 365, default: 90 },
} as const;

export type RetentionKind = keyof typeof RETENTION_LIMITS;

export interface RetentionPolicy {
  messageDays: number;
  mediaDays: number;
  logDays: number;
}

/** Webhook deliveries in (Meta's, byte for byte) are the platform's, not a tenant's: kept this long once processed. */
export const INBOUND_WEBHOOK_DAYS = 30;

/** The admin console's audit log is the platform's accountability record: kept whole years. */
export const ADMIN_AUDIT_YEARS = 7;
