import { useSearchParams } from "react-router";
import type { Route } from "./+types/audit";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { adminAuditPage, type AuditRecord } from "~/.server/domains/admin/audit";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Pager, Table, type Column } from "~/components/ui/table";
import { Name } from "~/components/ui/name";
import { formatWhen } from "~/lib/dates";
import { auditActionLabel, describeChange } from "~/lib/admin-audit";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_tab_audit() }) }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const params = args.url.searchParams;
  const organizationId = params.get("org");
  const page = await adminAuditPage(platformScope(current), { organizationId, cursor: params.get("after") });
  return { ...page, organizationId, first: !params.get("after") };
}

const columns = (): Column<AuditRecord>[] => [
  { key: "when", header: m.admin_column_when(), cell: (r) => <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time> },
  { key: "admin", header: m.admin_audit_column_admin(), cell: (r) => r.adminEmail },
  {
    key: "action",
    header: m.admin_column_action(),
    cell: (r) => (
      <>
        <span className="font-medium text-slate-900">{auditActionLabel(r.action)}</span>
        {r.reason ? <span className="block text-sm text-slate-600">{m.admin_reason_is({ reason: r.reason })}</span> : null}
      </>
    ),
  },
  {
    key: "tenant",
    header: m.admin_column_organisation(),
    cell: (r) =>
      r.organizationId ? (
        <TextLink to={`/admin/users/${r.organizationId}`}>
          {r.organizationName ? <Name>{r.organizationName}</Name> : m.admin_erased_organisation()}
        </TextLink>
      ) : (
        "—"
      ),
  },
  {
    key: "change",
    header: m.admin_audit_column_change(),
    cell: (r) => <span className="text-sm">{describeChange(r.before, r.after)}</span>,
    hideOnPhone: true,
  },
  {
    key: "from",
    header: m.admin_audit_column_from(),
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
      <PageTitle>{m.admin_tab_audit()}</PageTitle>
      <p className="mt-1 text-slate-600">{m.admin_audit_intro()}</p>
      {loaderData.organizationId ? (
        <p className="mt-2 text-sm">
          {m.admin_audit_one_organisation()} <TextLink to="/admin/audit">{m.admin_audit_show_all()}</TextLink>
        </p>
      ) : null}
      <div className="mt-6 rounded-xl border border-slate-200 bg-white shadow-sm">
        <Table
          caption={m.admin_audit_caption()}
          columns={columns()}
          rows={loaderData.records}
          rowKey={(r) => r.id}
          empty={<p className="p-6 text-slate-600">{m.admin_audit_empty()}</p>}
        />
      </div>
      {loaderData.next || !loaderData.first ? (
        <Pager searchParams={searchParams} older={loaderData.next} newer={null} label={m.admin_audit_pages()} />
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
