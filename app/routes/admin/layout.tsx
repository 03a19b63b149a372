import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { requireUserWithPermission, signedInPages } from "~/.server/auth/guards";
import { AdminHeader } from "~/components/layout/admin-header";
import { systemAlerts } from "~/.server/admin/system-alerts";
import { platformScope } from "~/.server/auth/scope";

export const middleware: Route.MiddlewareFunction[] = [signedInPages];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "platform:console");
  return {
    alerts: await systemAlerts(platformScope(current)),
    name: `${current.user.firstName} ${current.user.lastName}`.trim(),
    email: current.user.email,
    query: args.url.searchParams.get("q") ?? "",
  };
}

// Admins see no side navigation or top bar, only the admin header (spec section 2).
export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <div className="min-h-screen">
      <AdminHeader name={loaderData.name} email={loaderData.email} query={loaderData.query} alerts={loaderData.alerts} />
      <main className="mx-auto max-w-7xl p-4 sm:p-6">
        <Outlet />
      </main>
    </div>
  );
}
