import { useSearchParams } from "react-router";
import type { Route } from "./+types/audit";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminAuditPage, type AuditRecord } from "~/.server/domains/admin/audit";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Pager, Table, type Column } from "~/components/ui/table";
import { Name } from "~/components/ui/name";
import { formatWhen } from "~/lib/dates";
import { auditActionLabel, describeChange } from "~/lib/admin-audit";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = () => [{ title: "Audit log | Admin console | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const params = args.url.searchParams;
  const organizationId = params.get("org");
  const page = await adminAuditPage(platformScope(current), { organizationId, cursor: params.get("after") });
  return { ...page, organizationId, first: !params.get("after") };
}

const COLUMNS: Column<AuditRecord>[] = [
  { key: "when", header: "When", cell: (r) => <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time> },
  { key: "admin", header: "Administrator", cell: (r) => r.adminEmail },
  {
    key: "action",
    header: "Action",
    cell: (r) => (
      <>
        <span className="font-medium text-slate-900">{auditActionLabel(r.action)}</span>
        {r.reason ? <span className="block text-sm text-slate-600">Reason: {r.reason}</span> : null}
      </>
    ),
  },
  {
    key: "tenant",
    header: "Organisation",
    cell: (r) =>
      r.organizationId ? (
        <TextLink to={`/admin/users/${r.organizationId}`}>
          {r.organizationName ? <Name>{r.organizationName}</Name> : "Erased organisation"}
        </TextLink>
      ) : (
        "—"
      ),
  },
  { key: "change", header: "Change", cell: (r) => <span className="text-sm">{describeChange(r.before, r.after)}</span>, hideOnPhone: true },
  {
    key: "from",
    header: "From",
    cell: (r) => (
      <span className="text-sm text-slate-600" title={r.userAgent ?? undefined}>
        {r.ipAddress ?? "—"}
      </span>
    ),
    hideOnPhone: true,
  },
];

// Every administrator action, newest first; nobody can edit it (decision 037).
export default function AdminAudit({ loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  return (
    <div>
      <PageTitle>Audit log</PageTitle>
      <p className="mt-1 text-slate-600">
        Every administrator action: who, what, on which organisation, before and after, and from where. Records cannot be changed or
        deleted.
      </p>
      {loaderData.organizationId ? (
        <p className="mt-2 text-sm">
          One organisation&apos;s records. <TextLink to="/admin/audit">Show all</TextLink>
        </p>
      ) : null}
      <div className="mt-6 rounded-xl border border-slate-200 bg-white shadow-sm">
        <Table
          caption="Administrator actions"
          columns={COLUMNS}
          rows={loaderData.records}
          rowKey={(r) => r.id}
          empty={<p className="p-6 text-slate-600">No administrator actions yet.</p>}
        />
      </div>
      {loaderData.next || !loaderData.first ? (
        <Pager searchParams={searchParams} older={loaderData.next} newer={null} label="Audit log pages" />
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
