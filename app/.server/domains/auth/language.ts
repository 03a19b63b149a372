import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { organizations, users } from "../../infrastructure/db/schema";
import { mailLocaleOf } from "../../infrastructure/mail/locale";
import { roleOf } from "~/lib/permissions";
import type { Locale } from "~/paraglide/runtime";

/**
 * A member's language (issue 43): chosen with the switcher (the user menu) and kept on their account,
 * so every device they sign in on and every e-mail to them uses it.
 */
export async function saveMemberLocale(userId: string, locale: Locale) {
  await db().update(users).set({ locale }).where(eq(users.id, userId));
}

/** An organisation's owners, each with the language to write to them in (theirs, else the organisation's): for the jobs that e-mail them. */
export async function ownersToWrite(organizationId: string): Promise<{ email: string; locale: Locale }[]> {
  const members = await db()
    .select({
      email: users.email,
      usertype: users.usertype,
      orgRole: users.orgRole,
      locale: users.locale,
      defaultLocale: organizations.defaultLocale,
    })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organizationId))
    .where(eq(users.organizationId, organizationId));
  return members
    .filter((member) => roleOf(member) === "owner")
    .map((member) => ({ email: member.email, locale: mailLocaleOf(member, { defaultLocale: member.defaultLocale }) }));
}
