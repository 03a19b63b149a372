import { Link } from "react-router";
import type { AdminInvoiceRow } from "~/.server/domains/admin/billing/invoice-table";
import type { DisputeListRow } from "~/.server/domains/admin/billing/disputes";
import type { RevenueLine } from "~/.server/domains/admin/billing/figures";
import { AdminInvoiceStatusBadge } from "~/components/billing/invoice-history";
import { Badge } from "~/components/ui/badge";
import { Name } from "~/components/ui/name";
import { Table, type Column } from "~/components/ui/table";
import { invoicePaymentWords } from "~/lib/admin-billing";
import { formatInvoiceDate, formatKes } from "~/lib/invoice";

export const link = "font-medium link-hover";

/** The table of every organisation's invoices. */
export const INVOICE_COLUMNS: Column<AdminInvoiceRow>[] = [
  {
    key: "number",
    header: "Invoice",
    sortable: true,
    cell: (r) => (
      <Link to={`/admin/billing/invoices/${r.id}`} className={link}>
        {r.invoiceNumber}
      </Link>
    ),
  },
  {
    key: "business",
    header: "Business",
    cell: (r) => (
      <Link to={`/admin/users/${r.organizationId}`} className="text-slate-900 hover:underline">
        <Name>{r.businessName}</Name>
      </Link>
    ),
  },
  { key: "email", header: "Email", hideOnPhone: true, cell: (r) => r.email ?? "—" },
  { key: "plan", header: "Plan", hideOnPhone: true, cell: (r) => r.plan ?? "—" },
  { key: "amount", header: "Amount", sortable: true, align: "right", cell: (r) => formatKes(r.amountCents) },
  { key: "issued", header: "Issued", sortable: true, hideOnPhone: true, cell: (r) => formatInvoiceDate(r.issuedAt) },
  { key: "due", header: "Due date", hideOnPhone: true, cell: (r) => (r.dueDate ? formatInvoiceDate(r.dueDate) : "—") },
  { key: "paid", header: "Paid date", hideOnPhone: true, cell: (r) => (r.paidDate ? formatInvoiceDate(r.paidDate) : "—") },
  {
    key: "status",
    header: "Status",
    cell: (r) => <AdminInvoiceStatusBadge status={r.status} creditedCents={r.creditedCents} />,
  },
  {
    key: "method",
    header: "Payment method",
    hideOnPhone: true,
    cell: (r) => invoicePaymentWords(r) ?? "—",
  },
  {
    key: "reconciled",
    header: "Reconciled",
    cell: (r) =>
      r.reconciled ? (
        "Yes"
      ) : r.reconcilable ? (
        <Link to={`/admin/billing/invoices/${r.id}?dialog=reconcile`} className={link} aria-label={`Reconcile ${r.invoiceNumber}`}>
          Reconcile
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
      header: "Invoice",
      cell: (d) => (
        <Link to={`/admin/billing/disputes/${d.id}`} className={link}>
          {d.invoiceNumber}
        </Link>
      ),
    },
    { key: "business", header: "Business", cell: (d) => d.businessName },
    { key: "amount", header: "Amount", align: "right", cell: (d) => formatKes(d.amountCents) },
    { key: "reason", header: "Tenant's reason", cell: (d) => <span className="block max-w-md text-sm break-words">{d.reason}</span> },
    resolved
      ? {
          key: "outcome",
          header: "Outcome",
          cell: (d) => (
            <span className="text-sm">
              <Badge tone={d.outcome === "credited" ? "success" : "neutral"}>{d.outcome === "credited" ? "Credited" : "Rejected"}</Badge>
              {d.creditNoteNumber ? <span className="block">{d.creditNoteNumber}</span> : null}
              {d.resolution ? <span className="block max-w-xs break-words text-slate-600">{d.resolution}</span> : null}
            </span>
          ),
        }
      : { key: "raised", header: "Raised", cell: (d) => formatInvoiceDate(d.raisedAt) },
  ];
}

/** One revenue breakdown (by plan or by method), each line's share of the total. */
export function RevenueTable({ caption, lines, empty }: { caption: string; lines: RevenueLine[]; empty: string }) {
  const total = lines.reduce((sum, l) => sum + l.amountCents, 0);
  return (
    <div>
      <Table
        caption={caption}
        showCaption
        columns={[
          { key: "label", header: caption.startsWith("By plan") ? "Plan" : "Method", cell: (l: RevenueLine) => l.label },
          { key: "count", header: "Count", align: "right", cell: (l: RevenueLine) => l.count.toLocaleString("en-US") },
          { key: "amount", header: "Amount", align: "right", cell: (l: RevenueLine) => formatKes(l.amountCents) },
          {
            key: "share",
            header: "Share",
            align: "right",
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
