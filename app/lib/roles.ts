/** The roles inside an organisation, most powerful first (the users.org_role column holds one). */
export const ORG_ROLES = ["owner", "admin", "agent", "viewer"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** A platform administrator, or anybody else (users.usertype). */
export const USER_TYPES = ["individual", "admin"] as const;
export type UserType = (typeof USER_TYPES)[number];

/** A platform administrator's staff role in the console (users.platform_role; issue 74, decision 112). */
export const PLATFORM_ROLES = ["owner", "finance", "support"] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];
