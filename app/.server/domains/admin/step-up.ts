import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { type CurrentUser, confirmOwnPassword, checkSecondFactor } from "../auth";
import { hitRateLimit, RATE_LIMITS, rateLimitMessage } from "../../infrastructure/security/rate-limit";
import { m } from "~/paraglide/messages";

/**
 * Step-up for destructive admin actions (suspend, adjust a wallet, reconcile, resolve a dispute, disconnect): the
 * administrator proved who they are within the last 10 minutes (signing in, or a step-up), or proves
 * it again in the same form with their password or, when two-factor is on, an authenticator code.
 * The time is the session's own (sessions.confirmed_at), so it holds on every instance.
 */
export const STEP_UP_WINDOW_MS = 10 * 60 * 1000;

/** The form field a destructive action's form carries when a step-up is due. */
export const STEP_UP_FIELD = "confirmation";

/** What a refused step-up says, read in the request's language. */
export const STEP_UP_MESSAGES = {
  get required() {
    return m.admin_step_up_required();
  },
  get wrong() {
    return m.admin_step_up_wrong();
  },
} as const;

export function stepUpNeeded(current: Pick<CurrentUser, "session">, now = Date.now()) {
  return now - current.session.confirmedAt.getTime() > STEP_UP_WINDOW_MS;
}

export type StepUpCheck = { ok: true } | { ok: false; status: 400 | 429; message: string };

/**
 * Checks the step-up of a destructive action's form. Fresh enough: nothing to type. Otherwise the
 * typed password (or a 6-digit code when two-factor is on) is checked, wrong tries count in the
 * administrator's own bucket, and a right one restarts the 10 minutes for this session.
 */
export async function checkStepUp(current: CurrentUser, form: FormData): Promise<StepUpCheck> {
  if (!stepUpNeeded(current)) return { ok: true };
  const typed = String(form.get(STEP_UP_FIELD) ?? "").slice(0, 200);
  if (!typed.trim()) return { ok: false, status: 400, message: STEP_UP_MESSAGES.required };
  const code = typed.replace(/\s+/g, "");
  let confirmed: boolean;
  if (current.user.twoFactorEnabledAt && /^\d{6}$/.test(code)) {
    // Codes count in the same bucket as passwords: six digits are not guessed a million times.
    const limited = await hitRateLimit(RATE_LIMITS.passwordChange, current.user.id);
    if (!limited.allowed) return { ok: false, status: 429, message: rateLimitMessage(limited.retryAfterSeconds) };
    confirmed = (await checkSecondFactor(current.user.id, code)).ok;
    if (!confirmed) return { ok: false, status: 400, message: STEP_UP_MESSAGES.wrong };
  } else {
    const check = await confirmOwnPassword(current.user.id, typed, STEP_UP_MESSAGES.wrong);
    if (!check.ok) return check;
    confirmed = true;
  }
  await db().execute(sql`update sessions set confirmed_at = now() where id = ${current.session.id}`);
  current.session.confirmedAt = new Date();
  return { ok: true };
}
