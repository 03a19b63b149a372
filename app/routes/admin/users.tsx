import { data, Form, Link, useSearchParams } from "react-router";
import type { Route } from "./+types/users";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { readUserFilters, userCounts, userPage, type AdminUserRow } from "~/.server/domains/admin/users/list";
import { USER_PLANS } from "~/lib/admin-users";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Table, type Column } from "~/components/ui/table";
import { PageLinks } from "~/components/ui/page-links";
import { Badge } from "~/components/ui/badge";
import { Name } from "~/components/ui/name";
import { Button, ButtonLink } from "~/components/ui/button";
import { FilterSelect } from "~/components/ui/field";
import { ProgressBar } from "~/components/ui/progress-bar";
import { Notice } from "~/components/ui/notice";
import { formatDay, formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = () => [{ title: "Users | Admin console | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const { filters, problems } = readUserFilters(args.url.searchParams);
  const [counts, page] = await Promise.all([userCounts(scope), userPage(scope, filters)]);
  const body = { counts, ...page, filters, problems };
  return problems.length ? data(body, { status: 400 }) : body;
}

const STATUS_WORDS: Record<AdminUserRow["status"], string> = { active: "Active", pending: "Pending", suspended: "Suspended" };

const COLUMNS: Column<AdminUserRow>[] = [
  {
    key: "business",
    header: "Business",
    sortable: true,
    cell: (r) => (
      <>
        <TextLink to={`/admin/users/${r.id}`} weight="medium">
          <Name>{r.businessName}</Name>
        </TextLink>
        <span className="block text-xs text-slate-500">{r.email ?? "No owner"}</span>
      </>
    ),
  },
  { key: "plan", header: "Plan", sortable: true, cell: (r) => r.plan },
  { key: "status", header: "Status", sortable: true, cell: (r) => <Badge status={r.status}>{STATUS_WORDS[r.status]}</Badge> },
  {
    key: "usage",
    header: "Usage",
    hideOnPhone: true,
    cell: (r) => (
      <div className="min-w-36">
        <ProgressBar
          label="Messages"
          value={Math.min(r.messagesUsed, r.messageLimit)}
          max={r.messageLimit}
          valueText={`${formatNumber(r.messagesUsed)} / ${formatNumber(r.messageLimit)}${r.limitOverridden ? " (override)" : ""}`}
          tone={r.messagesUsed >= r.messageLimit ? "danger" : r.messagesUsed >= r.messageLimit * 0.8 ? "warning" : "brand"}
        />
      </div>
    ),
  },
  { key: "revenue", header: "Revenue", align: "right", cell: (r) => formatKes(r.revenueCents) },
  {
    key: "joined",
    header: "Joined",
    sortable: true,
    hideOnPhone: true,
    cell: (r) => <time dateTime={r.joinDate}>{formatDay(r.joinDate)}</time>,
  },
  {
    key: "lastActive",
    header: "Last active",
    hideOnPhone: true,
    cell: (r) => (r.lastActive ? <time dateTime={r.lastActive}>{formatDay(`${r.lastActive}T12:00:00+03:00`)}</time> : "Never"),
  },
];

// Every tenant organisation: counts, the table with search, filters, sorting and pages (spec's admin user row).
export default function AdminUsers({ loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const { counts, rows, total, page, pages, filters, problems } = loaderData;
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>Users</PageTitle>
        <p className="mt-1 text-slate-600">Every organisation on Jumbe: its plan, status, usage this month and what it has paid.</p>
      </div>
      <section aria-labelledby="user-counts" className="grid gap-4 md:grid-cols-2">
        <h2 id="user-counts" className="sr-only">
          Counts
        </h2>
        <CountList
          title="By status"
          items={[
            ["Active", counts.byStatus.active, "?status=active"],
            ["Pending", counts.byStatus.pending, "?status=pending"],
            ["Suspended", counts.byStatus.suspended, "?status=suspended"],
          ]}
        />
        <CountList title="By plan" items={USER_PLANS.map((plan) => [plan, counts.byPlan[plan] ?? 0, `?plan=${plan}`] as const)} />
      </section>

      <Form method="get" className="flex flex-wrap items-end gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
        {/* The header's search box filters this tab (spec section 2); the filters keep its words. */}
        {filters.q ? <input type="hidden" name="q" value={filters.q} /> : null}
        <FilterSelect
          name="status"
          label="Status"
          value={filters.status ?? ""}
          all="All statuses"
          options={[
            ["active", "Active"],
            ["pending", "Pending"],
            ["suspended", "Suspended"],
          ]}
        />
        <FilterSelect name="plan" label="Plan" value={filters.plan ?? ""} all="All plans" options={USER_PLANS.map((p) => [p, p])} />
        {searchParams.get("sort") ? <input type="hidden" name="sort" value={filters.sort} /> : null}
        {searchParams.get("dir") ? <input type="hidden" name="dir" value={filters.dir} /> : null}
        <Button type="submit" variant="secondary">
          Apply
        </Button>
        {filters.q || filters.status || filters.plan ? (
          <ButtonLink to="/admin/users" variant="ghost">
            Clear
          </ButtonLink>
        ) : null}
      </Form>

      {problems.length ? (
        <Notice tone="warning" title="Some filters were left out">
          {problems.join(" ")}
        </Notice>
      ) : null}

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <p className="border-b border-slate-100 px-4 py-3 text-sm text-slate-600" aria-live="polite">
          {formatNumber(total)} {total === 1 ? "organisation" : "organisations"}
          {filters.q ? ` matching “${filters.q}”` : ""}
        </p>
        <Table
          caption="Organisations"
          columns={COLUMNS}
          rows={rows}
          rowKey={(r) => r.id}
          searchParams={searchParams}
          empty={<p>No organisations match. Try another search or filter.</p>}
        />
      </div>
      {pages > 1 ? <PageLinks searchParams={searchParams} page={page} pages={pages} label="Organisation pages" /> : null}
    </div>
  );
}

function CountList({ title, items }: { title: string; items: readonly (readonly [string, number, string])[] }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
      <h3 className="text-sm font-semibold text-slate-700">{title}</h3>
      <ul className="mt-2 grid grid-cols-3 gap-2">
        {items.map(([label, value, href]) => (
          <li key={label}>
            <Link to={href} className="block rounded-lg p-2 hover:bg-slate-50">
              <span className="block text-xs text-slate-600">{label}</span>
              <span className="block text-xl font-bold text-slate-900" data-testid={`count-${label.toLowerCase()}`}>
                {formatNumber(value)}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
