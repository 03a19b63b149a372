import { data } from "react-router";
import type { Route } from "./+types/billing-export";
import { requirePlatformAdmin } from "~/.server/auth/guards";

// Issue 19: built by this work in progress.
export async function loader(args: Route.LoaderArgs) {
  await requirePlatformAdmin(args);
  throw data("Not Found", { status: 404 });
}
