import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { env } from "../../infrastructure/config/env";
import type { Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { sendMail } from "../../infrastructure/mail/transport";
import { passwordResetMail } from "../../infrastructure/mail/messages";
import { hitRateLimit, resetRateLimit } from "../../infrastructure/security/rate-limit";
import { issueCode } from "./codes";
import { RESEND_WINDOW } from "./signup";
import { findUserByEmail } from "./users";
import { mailLocaleOf } from "../../infrastructure/mail/locale";

/**
 * Forgot-password mail runs here, off the request: the request only counts its limits and queues
 * this job, so it does the same work whether or not the account exists (its timing tells nothing).
 */
export const RESET_MAIL_QUEUE = "auth.reset-mail";
const RESET_RESEND_WINDOW = { ...RESEND_WINDOW, name: "code:reset-resend" };

export interface ResetMailPayload {
  email: string;
  meta: RequestMeta;
}

/**
 * Mails a reset code when the address has an account that is not suspended, once per 30 s window.
 * Off the request, so in the member's language: the one they chose, else their organisation's.
 */
export async function sendResetMails(jobs: Job<ResetMailPayload>[]) {
  for (const { payload } of jobs) {
    const account = await findUserByEmail(payload.email);
    if (!account || account.organization.status === "suspended") continue;
    const window = await hitRateLimit(RESET_RESEND_WINDOW, account.user.id);
    if (!window.allowed) continue;
    try {
      const code = await issueCode(account.user.id, "reset", account.user.email);
      if (env().sandbox) log().warn(`[sandbox] password reset code for ${account.user.email}: ${code}`);
      await sendMail(passwordResetMail(account.user.email, code, mailLocaleOf(account.user, account.organization)));
    } catch (error) {
      // The retry must not find its own window closed.
      await resetRateLimit(RESET_RESEND_WINDOW, account.user.id);
      throw error;
    }
    await recordActivity({
      organizationId: account.organization.id,
      userId: account.user.id,
      type: "security",
      status: "warning",
      action: "Password reset requested",
      details: "Reset code e-mailed",
      meta: payload.meta,
    });
  }
}
