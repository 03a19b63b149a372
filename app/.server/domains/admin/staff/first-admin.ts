import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { SignupSchema } from "~/lib/schemas/auth";
import { hashPassword, newBusinessId } from "../../auth";

/**
 * The first platform administrator of an installation (issue 74, decision 112), made by the
 * operators' command (`npm run admin:create`, scripts/admin-create.ts). The password follows sign-up's
 * rules (SignupSchema). The account is an owner of the console, verified (the operator typed the
 * address), in an organisation of its own (the platform's, never a tenant), and must set up
 * two-factor sign-in before any page. Run again for the same address: nothing changes. An address
 * that belongs to a business's account is refused: that account stays the business's (promoting it
 * would take its organisation out of the console's tenants).
 */
export interface FirstAdminInput {
  email: string;
  firstName: string;
  lastName: string;
  password: string;
  confirmPassword: string;
}

export type FirstAdminResult =
  | { outcome: "created"; userId: string; email: string }
  | { outcome: "exists"; userId: string; email: string }
  | { outcome: "refused"; problems: string[] };

export async function createFirstAdministrator(input: FirstAdminInput, platformName = "Jumbe Platform"): Promise<FirstAdminResult> {
  const checked = SignupSchema.safeParse({ ...input, email: input.email.trim().toLowerCase(), agreedToTerms: true });
  if (!checked.success) return { outcome: "refused", problems: [...new Set(checked.error.issues.map((issue) => issue.message))] };
  const { email, firstName, lastName, password } = checked.data as Required<typeof checked.data>;
  const passwordHash = await hashPassword(password);
  return db().transaction(async (tx) => {
    // One command at a time for an address: the second waits, then finds the first's account.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`admin-create:${email}`}))`);
    const [existing] = await queryRows<{ id: string; usertype: string }>(
      tx,
      sql`select id, usertype from users where lower(email) = ${email}`,
    );
    if (existing?.usertype === "admin") return { outcome: "exists" as const, userId: existing.id, email };
    if (existing) return { outcome: "refused" as const, problems: [BUSINESS_ACCOUNT] };
    const [organization] = await queryRows<{ id: string }>(
      tx,
      sql`insert into organizations (name, business_id, status) values (${platformName}, ${newBusinessId()}, 'active') returning id`,
    );
    const [user] = await queryRows<{ id: string }>(
      tx,
      sql`
      insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, usertype, org_role,
                         platform_role, two_factor_required)
      values (${organization!.id}, ${email}, ${firstName}, ${lastName}, ${passwordHash}, true, 'admin', 'owner', 'owner', true)
      returning id`,
    );
    return { outcome: "created" as const, userId: user!.id, email };
  });
}

export const BUSINESS_ACCOUNT =
  "This e-mail address belongs to a business's account. Platform administrators have accounts of their own: choose another address.";
