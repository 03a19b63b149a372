import { Link } from "~/components/ui/link";
import type { AdminInvoiceRow } from "~/.server/domains/admin/billing/invoice-table";
import type { DisputeListRow } from "~/.server/domains/admin/billing/disputes";
import type { RevenueLine } from "~/.server/domains/admin/billing/figures";
import { AdminInvoiceStatusBadge } from "~/components/billing/invoice-history";
import { Badge } from "~/components/ui/badge";
import { Name } from "~/components/ui/name";
import { Table, type Column } from "~/components/ui/table";
import { invoicePaymentWords } from "~/lib/admin-billing";
import { formatInvoiceDate, formatKes } from "~/lib/invoice";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export const link = "font-medium link-hover";

/** The table of every organisation's invoices (its words in the request's language). */
export const invoiceColumns = (): Column<AdminInvoiceRow>[] => [
  {
    key: "number",
    header: m.admin_column_invoice(),
    sortable: true,
    cell: (r) => (
      <Link to={`/admin/billing/invoices/${r.id}`} className={link}>
        {r.invoiceNumber}
      </Link>
    ),
  },
  {
    key: "business",
    header: m.admin_column_business(),
    cell: (r) => (
      <Link to={`/admin/users/${r.organizationId}`} className="text-slate-900 hover:underline">
        <Name>{r.businessName}</Name>
      </Link>
    ),
  },
  { key: "email", header: m.admin_billing_column_email(), hideOnPhone: true, cell: (r) => r.email ?? "—" },
  { key: "plan", header: m.admin_column_plan(), hideOnPhone: true, cell: (r) => r.plan ?? "—" },
  { key: "amount", header: m.admin_column_amount(), sortable: true, align: "right", cell: (r) => formatKes(r.amountCents) },
  { key: "issued", header: m.admin_column_issued(), sortable: true, hideOnPhone: true, cell: (r) => formatInvoiceDate(r.issuedAt) },
  { key: "due", header: m.admin_billing_column_due(), hideOnPhone: true, cell: (r) => (r.dueDate ? formatInvoiceDate(r.dueDate) : "—") },
  {
    key: "paid",
    header: m.admin_billing_column_paid(),
    hideOnPhone: true,
    cell: (r) => (r.paidDate ? formatInvoiceDate(r.paidDate) : "—"),
  },
  {
    key: "status",
    header: m.admin_column_status(),
    cell: (r) => <AdminInvoiceStatusBadge status={r.status} creditedCents={r.creditedCents} />,
  },
  {
    key: "method",
    header: m.admin_billing_column_method(),
    hideOnPhone: true,
    cell: (r) => invoicePaymentWords(r) ?? "—",
  },
  {
    key: "reconciled",
    header: m.admin_billing_column_reconciled(),
    cell: (r) =>
      r.reconciled ? (
        m.admin_yes()
      ) : r.reconcilable ? (
        <Link
          to={`/admin/billing/invoices/${r.id}?dialog=reconcile`}
          className={link}
          aria-label={m.admin_reconcile_number({ number: r.invoiceNumber })}
        >
          {m.admin_reconcile()}
        </Link>
      ) : (
        "—"
      ),
  },
];

/** The disputes tables: open ones show when raised, resolved ones their outcome. */
export function disputeColumns(resolved: boolean): Column<DisputeListRow>[] {
  return [
    {
      key: "invoice",
      header: m.admin_column_invoice(),
      cell: (d) => (
        <Link to={`/admin/billing/disputes/${d.id}`} className={link}>
          {d.invoiceNumber}
        </Link>
      ),
    },
    { key: "business", header: m.admin_column_business(), cell: (d) => d.businessName },
    { key: "amount", header: m.admin_column_amount(), align: "right", cell: (d) => formatKes(d.amountCents) },
    {
      key: "reason",
      header: m.admin_billing_column_tenant_reason(),
      cell: (d) => <span className="block max-w-md text-sm break-words">{d.reason}</span>,
    },
    resolved
      ? {
          key: "outcome",
          header: m.admin_billing_column_outcome(),
          cell: (d) => (
            <span className="text-sm">
              <Badge tone={d.outcome === "credited" ? "success" : "neutral"}>
                {d.outcome === "credited" ? m.admin_dispute_credited() : m.admin_dispute_rejected()}
              </Badge>
              {d.creditNoteNumber ? <span className="block">{d.creditNoteNumber}</span> : null}
              {d.resolution ? <span className="block max-w-xs break-words text-slate-600">{d.resolution}</span> : null}
            </span>
          ),
        }
      : { key: "raised", header: m.admin_billing_column_raised(), cell: (d) => formatInvoiceDate(d.raisedAt) },
  ];
}

/** One revenue breakdown (by plan or by method), each line's share of the total. */
export function RevenueTable({
  caption,
  labelHeader,
  lines,
  empty,
}: {
  caption: string;
  /** The first column's heading: the plan, or the method. */
  labelHeader: string;
  lines: RevenueLine[];
  empty: string;
}) {
  const total = lines.reduce((sum, l) => sum + l.amountCents, 0);
  return (
    // A grid's item: narrower than the table when need be, so the table scrolls in its own box on a phone.
    <div className="min-w-0">
      <Table
        caption={caption}
        showCaption
        columns={[
          { key: "label", header: labelHeader, cell: (l: RevenueLine) => l.label },
          { key: "count", header: m.admin_billing_column_count(), align: "right", cell: (l: RevenueLine) => formatNumber(l.count) },
          { key: "amount", header: m.admin_column_amount(), align: "right", cell: (l: RevenueLine) => formatKes(l.amountCents) },
          {
            key: "share",
            header: m.admin_billing_column_share(),
            align: "right",
            // On a phone the plan, the count and the amount fit the card; the share is for wider screens.
            hideOnPhone: true,
            cell: (l: RevenueLine) => (total ? `${Math.round((l.amountCents / total) * 100)}%` : "—"),
          },
        ]}
        rows={lines}
        rowKey={(l) => l.key}
        empty={empty}
      />
    </div>
  );
}
