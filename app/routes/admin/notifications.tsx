import type { Route } from "./+types/notifications";
import { requirePlatformAdmin } from "~/.server/auth/guards";

// Issue 19: built by this work in progress.
export async function loader(args: Route.LoaderArgs) {
  await requirePlatformAdmin(args);
  return null;
}

export default function Admin() {
  return <h1 className="text-2xl font-bold tracking-tight">Notifications</h1>;
}
