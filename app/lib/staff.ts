import { PLATFORM_ROLES, type PlatformRole } from "./roles";
import { m } from "~/paraglide/messages";

/** The console's staff roles as people read them (issue 74), in the language being written. */
export function staffRoleWords(role: PlatformRole) {
  return { owner: m.admin_staff_role_owner, finance: m.admin_staff_role_finance, support: m.admin_staff_role_support }[role]();
}

/** What each staff role may do, one sentence each, shown beside the role's choice. */
export function staffRoleHint(role: PlatformRole) {
  return { owner: m.admin_staff_role_owner_hint, finance: m.admin_staff_role_finance_hint, support: m.admin_staff_role_support_hint }[
    role
  ]();
}

export const isPlatformRole = (value: unknown): value is PlatformRole => PLATFORM_ROLES.includes(value as PlatformRole);
