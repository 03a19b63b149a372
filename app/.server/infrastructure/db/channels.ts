/**
 * The pg_notify channels more than one domain hears. Each is sent by the domain that owns the
 * change; the session cache (auth, decision 182) also listens to the two that change the shell's
 * counts, so their names live here rather than in either domain.
 */

/** An inbox change (a message in or out, a status tick, a conversation opened or assigned); the payload is the organisation's id. */
export const INBOX_CHANNEL = "jumbe_inbox";

/** A new (or newly read) notification; the payload is the member's id. */
export const NOTIFICATION_CHANNEL = "jumbe_notifications";
