import { data, Form, useSearchParams } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/users";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { readUserFilters, userCounts, userPage, type AdminUserRow } from "~/.server/domains/admin/users/list";
import { USER_PLANS, userStatusWords } from "~/lib/admin-users";
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
import { m } from "~/paraglide/messages";
import { byCount } from "~/lib/intl";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_tab_users() }) }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const { filters, problems } = readUserFilters(args.url.searchParams);
  const [counts, page] = await Promise.all([userCounts(scope), userPage(scope, filters)]);
  const body = { counts, ...page, filters, problems };
  return problems.length ? data(body, { status: 400 }) : body;
}

const columns = (): Column<AdminUserRow>[] => [
  {
    key: "business",
    header: m.admin_column_business(),
    sortable: true,
    cell: (r) => (
      <>
        <TextLink to={`/admin/users/${r.id}`} weight="medium">
          <Name>{r.businessName}</Name>
        </TextLink>
        <span className="block text-xs text-slate-500">{r.email ?? m.admin_no_owner()}</span>
      </>
    ),
  },
  { key: "plan", header: m.admin_column_plan(), sortable: true, cell: (r) => r.plan },
  {
    key: "status",
    header: m.admin_column_status(),
    sortable: true,
    cell: (r) => <Badge status={r.status}>{userStatusWords(r.status)}</Badge>,
  },
  {
    key: "usage",
    header: m.admin_users_column_usage(),
    hideOnPhone: true,
    cell: (r) => (
      <div className="min-w-36">
        <ProgressBar
          label={m.admin_users_messages()}
          value={Math.min(r.messagesUsed, r.messageLimit)}
          max={r.messageLimit}
          valueText={
            r.limitOverridden
              ? m.admin_users_usage_override({ used: formatNumber(r.messagesUsed), limit: formatNumber(r.messageLimit) })
              : `${formatNumber(r.messagesUsed)} / ${formatNumber(r.messageLimit)}`
          }
          tone={r.messagesUsed >= r.messageLimit ? "danger" : r.messagesUsed >= r.messageLimit * 0.8 ? "warning" : "brand"}
        />
      </div>
    ),
  },
  { key: "revenue", header: m.admin_users_column_revenue(), align: "right", cell: (r) => formatKes(r.revenueCents) },
  {
    key: "joined",
    header: m.admin_column_joined(),
    sortable: true,
    hideOnPhone: true,
    cell: (r) => <time dateTime={r.joinDate}>{formatDay(r.joinDate)}</time>,
  },
  {
    key: "lastActive",
    header: m.admin_users_column_last_active(),
    hideOnPhone: true,
    cell: (r) =>
      r.lastActive ? <time dateTime={r.lastActive}>{formatDay(`${r.lastActive}T12:00:00+03:00`)}</time> : m.admin_users_never(),
  },
];

// Every tenant organisation: counts, the table with search, filters, sorting and pages (spec's admin user row).
export default function AdminUsers({ loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const { counts, rows, total, page, pages, filters, problems } = loaderData;
  // The table's order as the address chose it, kept by the filters' form.
  const sortChosen = !!searchParams.get("sort");
  const directionChosen = !!searchParams.get("dir");
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>{m.admin_tab_users()}</PageTitle>
        <p className="mt-1 text-slate-600">{m.admin_users_intro()}</p>
      </div>
      <section aria-labelledby="user-counts" className="grid gap-4 md:grid-cols-2">
        <h2 id="user-counts" className="sr-only">
          {m.admin_users_counts()}
        </h2>
        <CountList
          title={m.admin_users_by_status()}
          items={[
            ["active", m.admin_status_active(), counts.byStatus.active, "?status=active"],
            ["pending", m.admin_status_pending(), counts.byStatus.pending, "?status=pending"],
            ["suspended", m.admin_status_suspended(), counts.byStatus.suspended, "?status=suspended"],
          ]}
        />
        <CountList
          title={m.admin_users_by_plan()}
          items={USER_PLANS.map((plan) => [plan.toLowerCase(), plan, counts.byPlan[plan] ?? 0, `?plan=${plan}`] as const)}
        />
      </section>

      <Form method="get" className="flex flex-wrap items-end gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
        {/* The header's search box filters this tab (spec section 2); the filters keep its words. */}
        {filters.q ? <input type="hidden" name="q" value={filters.q} /> : null}
        <FilterSelect
          name="status"
          label={m.admin_column_status()}
          value={filters.status ?? ""}
          all={m.admin_all_statuses()}
          options={[
            ["active", m.admin_status_active()],
            ["pending", m.admin_status_pending()],
            ["suspended", m.admin_status_suspended()],
          ]}
        />
        <FilterSelect
          name="plan"
          label={m.admin_column_plan()}
          value={filters.plan ?? ""}
          all={m.admin_all_plans()}
          options={USER_PLANS.map((p) => [p, p])}
        />
        {sortChosen ? <input type="hidden" name="sort" value={filters.sort} /> : null}
        {directionChosen ? <input type="hidden" name="dir" value={filters.dir} /> : null}
        <Button type="submit" variant="secondary">
          {m.admin_apply()}
        </Button>
        {filters.q || filters.status || filters.plan ? (
          <ButtonLink to="/admin/users" variant="ghost">
            {m.admin_clear()}
          </ButtonLink>
        ) : null}
      </Form>

      {problems.length ? (
        <Notice tone="warning" title={m.admin_users_filters_left_out()}>
          {problems.join(" ")}
        </Notice>
      ) : null}

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <p className="border-b border-slate-100 px-4 py-3 text-sm text-slate-600" aria-live="polite">
          {byCount(
            total,
            () => m.admin_users_total_one({ count: formatNumber(total) }),
            () => m.admin_users_total_other({ count: formatNumber(total) }),
          )}
          {filters.q ? ` ${m.admin_users_matching({ query: filters.q })}` : ""}
        </p>
        <Table
          caption={m.admin_overview_organisations()}
          columns={columns()}
          rows={rows}
          rowKey={(r) => r.id}
          searchParams={searchParams}
          empty={<p>{m.admin_users_empty()}</p>}
        />
      </div>
      {pages > 1 ? <PageLinks searchParams={searchParams} page={page} pages={pages} label={m.admin_users_pages()} /> : null}
    </div>
  );
}

/** Counts, each a link to the table filtered by it: [test id, label, count, link]. */
function CountList({ title, items }: { title: string; items: readonly (readonly [string, string, number, string])[] }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
      <h3 className="text-sm font-semibold text-slate-700">{title}</h3>
      <ul className="mt-2 grid grid-cols-3 gap-2">
        {items.map(([id, label, value, href]) => (
          <li key={id}>
            <Link to={href} className="block rounded-lg p-2 hover:bg-slate-50">
              <span className="block text-xs text-slate-600">{label}</span>
              <span className="block text-xl font-bold text-slate-900" data-testid={`count-${id}`}>
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
