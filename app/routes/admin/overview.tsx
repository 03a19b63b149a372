import type { Route } from "./+types/overview";
import { Building2, Clock, MessageSquare, UserPlus } from "lucide-react";
import { requireUserWithPermission } from "~/.server/auth/guards";
import { platformFigures } from "~/.server/admin/platform-figures";
import { StatCard } from "~/components/ui/stat-card";

export const meta: Route.MetaFunction = () => [{ title: "Admin console | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  await requireUserWithPermission(args, "platform:console");
  return { figures: await platformFigures() };
}

export default function AdminOverview({ loaderData }: Route.ComponentProps) {
  const { figures } = loaderData;
  const fmt = new Intl.NumberFormat("en-KE");
  return (
    <div>
      <h1 className="text-2xl font-bold tracking-tight">Admin Console</h1>
      <p className="mt-1 text-slate-600">Platform overview across every organisation.</p>
      <div className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label="Active organisations" value={fmt.format(figures.organizations.active)} icon={Building2} />
        <StatCard label="Pending verification" value={fmt.format(figures.organizations.pending)} icon={Clock} />
        <StatCard label="New sign-ups (7 days)" value={fmt.format(figures.signupsThisWeek)} icon={UserPlus} />
        <StatCard label="Messages this month" value={fmt.format(figures.messagesThisMonth)} icon={MessageSquare} />
      </div>
      <p className="mt-6 text-sm text-slate-500">
        {fmt.format(figures.businessUsers)} business users · {fmt.format(figures.organizations.suspended)} suspended organisations
      </p>
    </div>
  );
}
