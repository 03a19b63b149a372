import { Form } from "react-router";
import { Activity as ActivityIcon, AlertTriangle, CheckCircle2, Download, XCircle } from "~/components/ui/icons";
import type { Route } from "./+types/activity";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { organizationScope } from "~/.server/infrastructure/db/scope";
import { filterQuery, nairobiDate, parseActivityFilter } from "~/.server/domains/activity/filters";
import { ACTIVITY_STATUSES, ACTIVITY_TYPES, DATE_RANGES, DEFAULT_RANGE } from "~/lib/activity";
import { activityStats, listActivity } from "~/.server/domains/activity/log-queries";
import { log } from "~/.server/infrastructure/log";
import { StatCard } from "~/components/ui/stat-card";
import { formatNumber, formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { useCan } from "~/components/layout/shell-role";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

// Links, filters and a CSV export: sent as a document without React (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "activity:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: "Activity Log | Jumbe" }];

const RANGE_LABELS: Record<keyof typeof DATE_RANGES, string> = {
  "24hours": "Last 24 hours",
  "7days": "Last 7 days",
  "30days": "Last 30 days",
  "90days": "Last 90 days",
};

/** Filters live in the URL: the form is a GET, so it works without JavaScript and can be shared. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "activity:view");
  const url = args.url;
  const q = url.searchParams;
  const form = {
    type: q.get("type") || "all",
    status: q.get("status") || "all",
    range: q.get("range") || DEFAULT_RANGE,
    startDate: q.get("startDate") ?? "",
    endDate: q.get("endDate") ?? "",
  };
  const exportFailed = q.get("exportError") === "1";
  const parsed = parseActivityFilter(q);
  if (!parsed.ok) return { form, exportFailed, invalid: parsed.message, loadFailed: false, data: null };
  try {
    const scope = organizationScope(current);
    const cursor = q.get("cursor");
    const [page, stats] = await Promise.all([listActivity(scope, parsed.filter, { cursor }), activityStats(scope, parsed.filter)]);
    const query = filterQuery(parsed.filter);
    const next = page.nextCursor ? new URLSearchParams(query) : null;
    next?.set("cursor", page.nextCursor!);
    return {
      form,
      exportFailed,
      invalid: null,
      loadFailed: false,
      data: {
        stats,
        logs: page.logs,
        paged: !!cursor,
        firstPage: `/activity${query.size ? `?${query}` : ""}`,
        nextPage: next ? `/activity?${next}` : null,
        exportUrl: `/api/activity-logs/export${query.size ? `?${query}` : ""}`,
        period: { from: nairobiDate(parsed.filter.start), to: nairobiDate(new Date(parsed.filter.end.getTime() - 1)) },
      },
    };
  } catch (error) {
    log().error({ err: error }, "could not load the activity log");
    return { form, exportFailed, invalid: null, loadFailed: true, data: null };
  }
}

export default function ActivityLog({ loaderData }: Route.ComponentProps) {
  const { form, data, invalid, loadFailed, exportFailed } = loaderData;
  // The export is for owners and admins (activity:export): agents and viewers read the log here.
  const canExport = useCan("activity:export");
  const rate =
    data && data.stats.total
      ? `${Math.round((data.stats.success / data.stats.total) * 1000) / 10}% of the period`
      : "No records in the period";
  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <PageTitle>Activity Log</PageTitle>
          <p className="text-slate-600">Sign-ins, settings, security events and WhatsApp changes in your account.</p>
        </div>
        {data && canExport ? (
          <a
            href={data.exportUrl}
            download
            className="inline-flex items-center justify-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
            data-testid="export"
          >
            <Download className="size-4" aria-hidden /> Export
          </a>
        ) : null}
      </div>

      {exportFailed ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          Failed to export activity logs. Please try again.
        </p>
      ) : null}

      {data ? (
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <StatCard
            label="Total Activities"
            value={formatNumber(data.stats.total)}
            icon={ActivityIcon}
            hint={`${data.period.from} to ${data.period.to}`}
          />
          <StatCard label="Successful" value={formatNumber(data.stats.success)} icon={CheckCircle2} hint={rate} />
          <StatCard label="Warnings" value={formatNumber(data.stats.warning)} icon={AlertTriangle} />
          <StatCard label="Errors" value={formatNumber(data.stats.error)} icon={XCircle} />
        </div>
      ) : null}

      <Form
        method="get"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-6 lg:items-end"
        aria-label="Filters"
      >
        <FilterSelect
          name="type"
          label="Type"
          value={form.type}
          options={[["all", "All types"], ...ACTIVITY_TYPES.map((t) => [t, capitalise(t)] as [string, string])]}
        />
        <FilterSelect
          name="status"
          label="Status"
          value={form.status}
          options={[["all", "All statuses"], ...ACTIVITY_STATUSES.map((s) => [s, capitalise(s)] as [string, string])]}
        />
        <FilterSelect name="range" label="Date range" value={form.range} options={Object.entries(RANGE_LABELS)} />
        <FilterInput type="date" name="startDate" label="From (optional)" defaultValue={isoDay(form.startDate)} />
        <FilterInput type="date" name="endDate" label="To (optional)" defaultValue={isoDay(form.endDate)} />
        <Button type="submit">Apply filters</Button>
      </Form>

      {invalid ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {invalid}
        </p>
      ) : null}

      {loadFailed ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          <p>Failed to load activity data. Please try again.</p>
          <a href="" className="mt-2 inline-block font-semibold underline">
            Retry
          </a>
        </div>
      ) : null}

      {data ? (
        <Card padding="none" aria-label="Activity records">
          {data.logs.length ? (
            <ul className="divide-y divide-slate-100" data-testid="activity-list">
              {data.logs.map((item) => (
                <li key={item.id} className="flex gap-3 px-4 py-3" data-testid="activity-item">
                  <StatusIcon status={item.status} />
                  <div className="min-w-0 flex-1">
                    <p className="text-sm font-medium text-slate-900">
                      {item.action}{" "}
                      <span className="ml-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-normal text-slate-600">{item.type}</span>
                    </p>
                    {item.details ? <p className="text-sm break-words text-slate-600">{item.details}</p> : null}
                    <p className="text-xs text-slate-500">
                      {formatWhen(item.timestamp)}
                      {item.ipAddress ? ` · ${item.ipAddress}` : ""}
                    </p>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p className="px-4 py-10 text-center text-sm text-slate-500">No activities found matching your filters</p>
          )}
          {data.paged || data.nextPage ? (
            <nav className="flex justify-between border-t border-slate-100 px-4 py-3 text-sm" aria-label="Pages">
              {data.paged ? (
                <TextLink to={data.firstPage} weight="medium">
                  Newest
                </TextLink>
              ) : (
                <span />
              )}
              {data.nextPage ? (
                <TextLink to={data.nextPage} weight="medium" rel="next">
                  Older records
                </TextLink>
              ) : null}
            </nav>
          ) : null}
        </Card>
      ) : null}
    </div>
  );
}

function capitalise(value: string) {
  return value.charAt(0).toUpperCase() + value.slice(1);
}

/** A date the date input can show (YYYY-MM-DD), else empty. */
function isoDay(value: string) {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : "";
}

function StatusIcon({ status }: { status: string }) {
  if (status === "success") return <CheckCircle2 className="size-5 shrink-0 text-brand-600" aria-label="Success" />;
  if (status === "warning") return <AlertTriangle className="size-5 shrink-0 text-amber-500" aria-label="Warning" />;
  return <XCircle className="size-5 shrink-0 text-red-600" aria-label="Error" />;
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
