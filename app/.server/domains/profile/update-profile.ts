import { and, eq, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { organizations, users } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import { englishOf, words, type MessageKey } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { type CurrentUser, CODE_MESSAGES, consumeCode, issueCode, queueCodeMail, can, type Role } from "../auth";
import { queueMail } from "../../infrastructure/mail/queue";
import { existingAccountMail } from "../../infrastructure/mail/messages";
import { hitRateLimit, RATE_LIMITS, rateLimitMessage } from "../../infrastructure/security/rate-limit";
import { MESSAGES } from "~/lib/schemas/auth";
import { normalizePhone } from "~/lib/phone";
import { m } from "~/paraglide/messages";
import { getLocale } from "~/paraglide/runtime";

/** "Profile updated successfully", in the request's language. */
export const profileSaved = () => m.settings_profile_saved();

export interface ProfileInput {
  businessName: string;
  email: string;
  phoneNumber?: string;
}

export type ProfileResult =
  | { ok: true; message: string; pendingEmail?: string }
  | { ok: false; status: 400 | 403 | 429; field?: "phoneNumber" | "email" | "businessName"; message: string };

/** Said to an agent or viewer who tried to rename the organisation. */
export const businessNameNotYours = () => m.settings_profile_business_name_not_yours();

/** Owners and admins rename the organisation (a platform administrator their own); agents and viewers see its name. */
export const mayRenameOrganisation = (role: Role) => can(role, "platform:console") || can(role, "organization:manage");

/** Saves business name and phone at once; a new e-mail waits until its code is confirmed. */
export async function updateProfile(current: CurrentUser, input: ProfileInput, meta: RequestMeta): Promise<ProfileResult> {
  const phone = input.phoneNumber ? normalizePhone(input.phoneNumber) : null;
  if (input.phoneNumber && !phone) return { ok: false, status: 400, field: "phoneNumber", message: MESSAGES.phoneInvalid };

  const renamed = input.businessName !== current.organization.name;
  // The organisation's name is the organisation's (Account Settings, Organisation): owners and admins change it.
  if (renamed && !mayRenameOrganisation(current.role))
    return { ok: false, status: 403, field: "businessName", message: businessNameNotYours() };
  const phoneChanged = (phone ?? null) !== (current.user.phoneNumber ?? null);
  const updated: MessageKey | undefined =
    renamed && phoneChanged
      ? "app_activity_detail_profile_updated_name_and_phone"
      : renamed
        ? "app_activity_detail_profile_updated_name"
        : phoneChanged
          ? "app_activity_detail_profile_updated_phone"
          : undefined;
  const newEmail = input.email.trim();
  const emailChanged = newEmail.toLowerCase() !== current.user.email.toLowerCase();

  if (emailChanged) {
    const limited = await hitRateLimit(RATE_LIMITS.codeAccount, `email-change:${current.user.id}`);
    if (!limited.allowed) return { ok: false, status: 429, field: "email", message: rateLimitMessage(limited.retryAfterSeconds) };
  }
  await db().transaction(async (tx) => {
    await tx
      .update(organizations)
      .set({ name: input.businessName, updatedAt: new Date() })
      .where(eq(organizations.id, current.organization.id));
    await tx.update(users).set({ phoneNumber: phone }).where(eq(users.id, current.user.id));
  });
  if (emailChanged) await startEmailChange(current, newEmail);
  if (updated || emailChanged) {
    const details = englishOf(
      !emailChanged
        ? words(updated!)
        : updated
          ? words("app_activity_detail_profile_updated_email_change", { updated: words(updated), email: newEmail })
          : words("app_activity_detail_profile_email_change", { email: newEmail }),
    );
    await recordActivity({
      organizationId: current.organization.id,
      userId: current.user.id,
      type: "profile",
      status: "success",
      action: "Profile updated",
      details,
      meta,
    });
  }
  return emailChanged
    ? { ok: true, message: m.settings_profile_saved_email_code({ email: newEmail }), pendingEmail: newEmail }
    : { ok: true, message: profileSaved() };
}

// A taken address gets a notice, not a code, and the owner sees the same answer.
async function startEmailChange(current: CurrentUser, newEmail: string) {
  const [taken] = await db()
    .select({ id: users.id })
    .from(users)
    .where(eq(sql`lower(${users.email})`, newEmail.toLowerCase()))
    .limit(1);
  if (taken) {
    await queueMail(existingAccountMail(newEmail));
    return;
  }
  // The address waits for its code from now (the page shows it pending), with a code nobody knows, as
  // an invitation's link; the job issues the one it mails, so a mail server that is down fails no save.
  await issueCode(current.user.id, "email_change", newEmail);
  await queueCodeMail({ purpose: "email_change", userId: current.user.id, to: newEmail, locale: getLocale() });
}

/** Confirms the pending e-mail with its code. */
export async function confirmEmailChange(current: CurrentUser, otp: string, meta: RequestMeta) {
  const check = await consumeCode(current.user.id, "email_change", otp);
  if (!check.ok) return { ok: false as const, status: 400 as const, message: CODE_MESSAGES[check.reason] };
  const updated = await db()
    .update(users)
    .set({ email: check.targetEmail })
    .where(and(eq(users.id, current.user.id)))
    .returning({ id: users.id })
    .catch(() => []);
  if (!updated.length) return { ok: false as const, status: 400 as const, message: m.settings_profile_email_unusable() };
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "profile",
    status: "success",
    action: "E-mail changed",
    details: `${current.user.email} → ${check.targetEmail}`,
    meta,
  });
  return { ok: true as const, message: m.settings_profile_email_changed({ email: check.targetEmail }) };
}
