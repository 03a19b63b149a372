import { useRouteLoaderData } from "react-router";
import type { loader } from "~/routes/app/layout";
import type { BrowserPermission } from "~/lib/grants";

function useShellData() {
  const data = useRouteLoaderData<typeof loader>("routes/app/layout");
  if (!data) throw new Error("used outside the signed-in shell");
  return data;
}

/** What the signed-in member's role may do of what pages ask in the browser (app/lib/grants.ts). */
export function useGrants(): readonly BrowserPermission[] {
  return useShellData().grants;
}

/** Whether the signed-in member's role has `permission`: for hiding what they cannot use (the server checks again). */
export function useCan(permission: BrowserPermission) {
  return useGrants().includes(permission);
}

/** The navigation's and settings' pages the member may open, from the shell's loader (the permissions their routes declare). */
export function useShellOpens(): readonly string[] {
  return useShellData().opens;
}
