import { Form } from "react-router";
import { Activity as ActivityIcon, AlertTriangle, CheckCircle2, Download, XCircle } from "~/components/ui/icons";
import type { Route } from "./+types/activity";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { organizationScope } from "~/.server/infrastructure/db/scope";
import { filterQuery, nairobiDate, parseActivityFilter } from "~/.server/domains/activity/filters";
import {
  ACTIVITY_STATUSES,
  ACTIVITY_TYPES,
  activityStatusLabel,
  activityTypeLabel,
  DATE_RANGES,
  dateRangeLabel,
  DEFAULT_RANGE,
  type DateRange,
} from "~/lib/activity";
import { activityStats, listActivity } from "~/.server/domains/activity/log-queries";
import { activityInWords } from "~/.server/domains/activity/words";
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
import { decimal } from "~/components/analytics/words";
import { m } from "~/paraglide/messages";

// Links, filters and a CSV export: sent as a document without React (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "activity:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.app_activity_title()} | Jumbe` }];

/** Filters live in the URL: the form is a GET, so it works without JavaScript and can be shared. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
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
        // Said in the reader's language; the API and the export give them as stored.
        logs: page.logs.map(activityInWords),
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
      ? m.app_activity_rate({ percent: decimal(Math.round((data.stats.success / data.stats.total) * 1000) / 10) })
      : m.app_activity_no_records();
  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <PageTitle>{m.app_activity_title()}</PageTitle>
          <p className="text-slate-600">{m.app_activity_intro()}</p>
        </div>
        {data && canExport ? (
          <a
            href={data.exportUrl}
            download
            className="inline-flex items-center justify-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
            data-testid="export"
          >
            <Download className="size-4" aria-hidden /> {m.app_activity_export()}
          </a>
        ) : null}
      </div>

      {exportFailed ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {m.app_activity_export_failed()}
        </p>
      ) : null}

      {data ? (
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <StatCard
            label={m.app_activity_total()}
            value={formatNumber(data.stats.total)}
            icon={ActivityIcon}
            hint={m.app_range_from_to({ from: data.period.from, to: data.period.to })}
          />
          <StatCard label={m.app_activity_successful()} value={formatNumber(data.stats.success)} icon={CheckCircle2} hint={rate} />
          <StatCard label={m.app_activity_warnings()} value={formatNumber(data.stats.warning)} icon={AlertTriangle} />
          <StatCard label={m.app_activity_errors()} value={formatNumber(data.stats.error)} icon={XCircle} />
        </div>
      ) : null}

      <Form
        method="get"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-6 lg:items-end"
        aria-label={m.app_activity_filters()}
      >
        <FilterSelect
          name="type"
          label={m.app_activity_type()}
          value={form.type}
          options={[["all", m.app_activity_all_types()], ...ACTIVITY_TYPES.map((t) => [t, activityTypeLabel(t)] as [string, string])]}
        />
        <FilterSelect
          name="status"
          label={m.app_activity_status()}
          value={form.status}
          options={[
            ["all", m.app_activity_all_statuses()],
            ...ACTIVITY_STATUSES.map((s) => [s, activityStatusLabel(s)] as [string, string]),
          ]}
        />
        <FilterSelect
          name="range"
          label={m.app_activity_date_range()}
          value={form.range}
          options={(Object.keys(DATE_RANGES) as DateRange[]).map((range) => [range, dateRangeLabel(range)])}
        />
        <FilterInput type="date" name="startDate" label={m.app_activity_from_optional()} defaultValue={isoDay(form.startDate)} />
        <FilterInput type="date" name="endDate" label={m.app_activity_to_optional()} defaultValue={isoDay(form.endDate)} />
        <Button type="submit">{m.app_activity_apply()}</Button>
      </Form>

      {invalid ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {invalid}
        </p>
      ) : null}

      {loadFailed ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          <p>{m.app_activity_load_failed()}</p>
          <a href="" className="mt-2 inline-block font-semibold underline">
            {m.app_activity_retry()}
          </a>
        </div>
      ) : null}

      {data ? (
        <Card padding="none" aria-label={m.app_activity_records()}>
          {data.logs.length ? (
            <ul className="divide-y divide-slate-100" data-testid="activity-list">
              {data.logs.map((item) => (
                <li key={item.id} className="flex gap-3 px-4 py-3" data-testid="activity-item">
                  <StatusIcon status={item.status} />
                  <div className="min-w-0 flex-1">
                    <p className="text-sm font-medium text-slate-900">
                      {item.action}{" "}
                      <span className="ml-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-normal text-slate-600">
                        {activityTypeLabel(item.type).toLowerCase()}
                      </span>
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
            <p className="px-4 py-10 text-center text-sm text-slate-500">{m.app_activity_none()}</p>
          )}
          {data.paged || data.nextPage ? (
            <nav className="flex justify-between border-t border-slate-100 px-4 py-3 text-sm" aria-label={m.app_pager_pages()}>
              {data.paged ? (
                <TextLink to={data.firstPage} weight="medium">
                  {m.app_activity_newest()}
                </TextLink>
              ) : (
                <span />
              )}
              {data.nextPage ? (
                <TextLink to={data.nextPage} weight="medium" rel="next">
                  {m.app_activity_older()}
                </TextLink>
              ) : null}
            </nav>
          ) : null}
        </Card>
      ) : null}
    </div>
  );
}

/** A date the date input can show (YYYY-MM-DD), else empty. */
function isoDay(value: string) {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : "";
}

function StatusIcon({ status }: { status: string }) {
  if (status === "success") return <CheckCircle2 className="size-5 shrink-0 text-brand-600" aria-label={m.app_activity_status_success()} />;
  if (status === "warning")
    return <AlertTriangle className="size-5 shrink-0 text-amber-500" aria-label={m.app_activity_status_warning()} />;
  return <XCircle className="size-5 shrink-0 text-red-600" aria-label={m.app_activity_status_error()} />;
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
