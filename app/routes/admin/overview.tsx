import type { Route } from "./+types/overview";
import { Building2, Clock, MessageSquare, UserPlus } from "~/components/ui/icons";
import { requirePlatformAdmin } from "~/.server/auth/guards";
import { platformFigures } from "~/.server/admin/platform-figures";
import { platformScope } from "~/.server/auth/scope";
import { StatCard } from "~/components/ui/stat-card";
import { readSearchQuery } from "~/.server/search/registry";
import { platformUsers } from "~/.server/search/providers";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { formatNumber } from "~/lib/dates";

export const meta: Route.MetaFunction = () => [{ title: "Admin console | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  // The header's search box filters users across every organisation (spec section 2).
  const read = readSearchQuery(args.url.searchParams.get("q"));
  const [figures, users] = await Promise.all([
    platformFigures(platformScope(current)),
    read.ok === true ? platformUsers.search(current, read.query, 25) : null,
  ]);
  return {
    figures,
    search: read.ok === true ? { query: read.query, users } : read.ok === false ? { query: "", message: read.message } : null,
  };
}

export default function AdminOverview({ loaderData }: Route.ComponentProps) {
  const { figures, search } = loaderData;
  return (
    <div>
      <h1 className="text-2xl font-bold tracking-tight">Admin Console</h1>
      <p className="mt-1 text-slate-600">Platform overview across every organisation.</p>
      <div className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label="Active organisations" value={formatNumber(figures.organizations.active)} icon={Building2} />
        <StatCard label="Pending verification" value={formatNumber(figures.organizations.pending)} icon={Clock} />
        <StatCard label="New sign-ups (7 days)" value={formatNumber(figures.signupsThisWeek)} icon={UserPlus} />
        <StatCard label="Messages this month" value={formatNumber(figures.messagesThisMonth)} icon={MessageSquare} />
      </div>
      {search ? (
        <section className="mt-6 rounded-xl border border-slate-200 bg-white shadow-sm" aria-labelledby="admin-user-search">
          <h2 id="admin-user-search" className="border-b border-slate-100 px-4 py-3 text-sm font-semibold text-slate-700">
            {"message" in search ? "Search users" : `Users matching “${search.query}”`}
          </h2>
          {"message" in search ? (
            <p role="alert" className="px-4 py-3 text-sm text-red-700">
              {search.message}
            </p>
          ) : search.users?.length ? (
            <ul className="divide-y divide-slate-100">
              {search.users.map((user, i) => (
                <li key={i} className="px-4 py-3">
                  <span className="block font-medium text-slate-900">{user.title}</span>
                  <span className="block text-sm text-slate-500">{user.detail}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="px-4 py-3 text-sm text-slate-600">No users match.</p>
          )}
        </section>
      ) : null}
      <p className="mt-6 text-sm text-slate-500">
        {formatNumber(figures.businessUsers)} business users · {formatNumber(figures.organizations.suspended)} suspended organisations
      </p>
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
