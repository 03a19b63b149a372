import { eq, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { organizations, users, type Organization, type User } from "../../infrastructure/db/schema";

export async function findUserByEmail(email: string) {
  const [row] = await db()
    .select({ user: users, organization: organizations })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organizationId))
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()))
    .limit(1);
  return row ?? null;
}

export async function findUserById(id: string) {
  const [row] = await db()
    .select({ user: users, organization: organizations })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organizationId))
    .where(eq(users.id, id))
    .limit(1);
  return row ?? null;
}

export type AuthUser = ReturnType<typeof toAuthUser>;

/** The user as spec section 3 names its fields, filled from the user and the organisation. */
export function toAuthUser(
  user: Omit<User, "passwordHash" | "totpSecret" | "totpLastStep">,
  organization: Organization,
  messagesUsed: number,
) {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    businessName: organization.name,
    avatar: user.avatarUrl ?? undefined,
    usertype: user.usertype,
    phoneNumber: user.phoneNumber ?? "",
    businessId: organization.businessId,
    whatsappNumber: organization.whatsappNumber ?? "",
    createdAt: user.createdAt.toISOString(),
    lastLogin: user.lastLoginAt?.toISOString() ?? null,
    accountStatus: organization.status,
    planType: organization.planType,
    billingType: organization.billingType,
    messagesUsed,
    messageLimit: organization.messageLimit,
    isVerified: user.isVerified,
  };
}
