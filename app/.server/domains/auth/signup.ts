import { randomInt } from "node:crypto";
import { TransactionRollbackError } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { organizations, users } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { queueMail } from "../../infrastructure/mail/queue";
import { existingAccountMail } from "../../infrastructure/mail/messages";
import { hitRateLimit, hitRateLimits, RATE_LIMITS, rateLimitMessage } from "../../infrastructure/security/rate-limit";
import { normalizePhone } from "~/lib/phone";
import { hashPassword } from "./password";
import { queueCodeMail } from "./code-mail-job";
import { findUserByEmail } from "./users";
import { booleanSettingSql, PLATFORM_SETTINGS } from "../../infrastructure/config/platform-settings";
import { m } from "~/paraglide/messages";
import { baseLocale, getLocale } from "~/paraglide/runtime";

/** What a sign-up that went through says, in the request's language. */
export const signupSuccess = () => m.validation_auth_signup_success();
/** The same in English, as the JSON API answers it (docs/api.md); pages say signupSuccess(). */
export const SIGNUP_SUCCESS = m.validation_auth_signup_success({}, { locale: baseLocale });
export const RESEND_WINDOW = { name: "code:resend", limit: 1, windowSeconds: 30, fixed: true };

export interface SignupInput {
  firstName: string;
  lastName: string;
  businessName?: string;
  email: string;
  phoneNumber?: string;
  password: string;
  /**
   * Work in the sign-up's own transaction once the organisation exists (the partner programme's
   * referral attribution, issue 46): rolled back with the sign-up if it loses a race for its e-mail.
   */
  withOrganisation?: (tx: Executor, organizationId: string) => Promise<unknown>;
}

export type SignupResult = { ok: true; email: string } | { ok: false; status: 400 | 429; message: string; field?: string };

const BUSINESS_ID_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789";

export function newBusinessId() {
  let id = "JMB-";
  for (let i = 0; i < 8; i++) id += BUSINESS_ID_ALPHABET[randomInt(0, BUSINESS_ID_ALPHABET.length)];
  return id;
}

/**
 * Creates the organisation and its first user and queues the e-mail of a code. An e-mail that already has an
 * account gets a notice instead and the caller sees the same result, so sign-up reveals nothing.
 */
export async function createSignup(input: SignupInput, meta: RequestMeta): Promise<SignupResult> {
  const limited = await hitRateLimits([[RATE_LIMITS.signupIp, meta.ip]]);
  if (!limited.allowed) return { ok: false, status: 429, message: rateLimitMessage(limited.retryAfterSeconds) };

  let phone: string | null = null;
  if (input.phoneNumber) {
    phone = normalizePhone(input.phoneNumber);
    if (!phone) return { ok: false, status: 400, message: m.validation_auth_phone_invalid(), field: "phoneNumber" };
  }
  const email = input.email.trim();
  const passwordHash = await hashPassword(input.password);
  const existing = await findUserByEmail(email);
  if (existing) {
    const fresh = await hitRateLimit(RESEND_WINDOW, existing.user.id);
    // In the language the account chose, else the request's.
    if (fresh.allowed) await queueMail(existingAccountMail(existing.user.email, existing.user.locale ?? getLocale()));
    return { ok: true, email };
  }

  const created = await db()
    .transaction(async (tx) => {
      const [organization] = await tx
        .insert(organizations)
        .values({
          name: input.businessName?.trim() || `${input.firstName.trim()} ${input.lastName.trim()}`,
          businessId: newBusinessId(),
          // Held for the platform's review from the start when the setting is on, read in this
          // statement: every instance agrees (decision 039).
          templateReview: booleanSettingSql(PLATFORM_SETTINGS.holdNewOrganisationsTemplates),
        })
        .returning();
      const [user] = await tx
        .insert(users)
        .values({
          organizationId: organization!.id,
          email,
          firstName: input.firstName.trim(),
          lastName: input.lastName.trim(),
          phoneNumber: phone,
          passwordHash,
          // The language the person signed up in: their pages and e-mails until they choose another.
          locale: getLocale(),
        })
        .onConflictDoNothing()
        .returning();
      if (!user) tx.rollback();
      await input.withOrganisation?.(tx, organization!.id);
      return { organization: organization!, user: user! };
    })
    .catch((error: unknown) => {
      if (error instanceof TransactionRollbackError) return null;
      throw error;
    });
  // A concurrent sign-up with the same e-mail won the race; answer as for an existing account.
  if (!created) return { ok: true, email };

  await recordActivity({
    organizationId: created.organization.id,
    userId: created.user.id,
    type: "auth",
    status: "success",
    action: "Account created",
    details: `Sign-up for ${email}`,
    meta,
  });
  await hitRateLimit(RESEND_WINDOW, created.user.id);
  await sendVerificationCode(created.user.id, email);
  return { ok: true, email };
}

/**
 * Queues the e-mail of a sign-up code (code-mail-job.ts issues the code as it mails it), so a mail
 * server that is down fails no sign-up; callers open the 30 s resend window (RESEND_WINDOW) first.
 */
export async function sendVerificationCode(userId: string, email: string) {
  await queueCodeMail({ purpose: "signup", userId, to: email, locale: getLocale() });
}
