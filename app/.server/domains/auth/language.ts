import { eq } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { users } from "../../infrastructure/db/schema";
import type { Locale } from "~/paraglide/runtime";

/**
 * A member's language (issue 43): chosen with the switcher (the user menu) and kept on their account,
 * so every device they sign in on and every e-mail to them uses it.
 */
export async function saveMemberLocale(userId: string, locale: Locale) {
  await db().update(users).set({ locale }).where(eq(users.id, userId));
}
