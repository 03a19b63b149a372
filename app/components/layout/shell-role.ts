import { useRouteLoaderData } from "react-router";
import type { loader } from "~/routes/app/layout";
import { can, type Permission, type Role } from "~/lib/permissions";

/** The signed-in member's role, from the shell's loader (every page of the shell has it). */
export function useShellRole(): Role {
  const data = useRouteLoaderData<typeof loader>("routes/app/layout");
  if (!data) throw new Error("useShellRole outside the signed-in shell");
  return data.role;
}

/** Whether the signed-in member's role has `permission`: for hiding what they cannot use (the server checks again). */
export function useCan(permission: Permission) {
  return can(useShellRole(), permission);
}

/** The navigation's and settings' pages the member may open, from the shell's loader (the permissions their routes declare). */
export function useShellOpens(): readonly string[] {
  const data = useRouteLoaderData<typeof loader>("routes/app/layout");
  if (!data) throw new Error("useShellOpens outside the signed-in shell");
  return data.opens;
}
