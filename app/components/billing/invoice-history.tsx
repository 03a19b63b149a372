import { Link } from "react-router";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { Table, type Column } from "~/components/ui/table";
import { formatInvoiceDate, formatKes, type InvoiceStatus } from "~/lib/invoice";

/** The words and tones of an invoice's status in lists (the spec's paid, pending, overdue, disputed). */
export const INVOICE_STATUS_BADGES: Record<InvoiceStatus, { label: string; tone: BadgeTone }> = {
  paid: { label: "Paid", tone: "success" },
  pending: { label: "Pending", tone: "warning" },
  overdue: { label: "Overdue", tone: "danger" },
  disputed: { label: "Disputed", tone: "info" },
  void: { label: "Void", tone: "neutral" },
};

/** A status from the console's cross-tenant rows (any string; an unknown one as it is). */
export function AdminInvoiceStatusBadge({ status, creditedCents = 0 }: { status: string; creditedCents?: number }) {
  const badge = INVOICE_STATUS_BADGES[status as InvoiceStatus] as { label: string; tone: BadgeTone } | undefined;
  return badge ? <Badge tone={badge.tone}>{creditedLabel(status, creditedCents) ?? badge.label}</Badge> : <Badge>{status}</Badge>;
}

/** A status badge; with credit notes against the invoice, "Partly credited" (still owed) or "Paid · credit note". */
export function InvoiceStatusBadge({ status, creditedCents = 0 }: { status: InvoiceStatus; creditedCents?: number }) {
  const badge = INVOICE_STATUS_BADGES[status];
  return <Badge tone={badge.tone}>{creditedLabel(status, creditedCents) ?? badge.label}</Badge>;
}

function creditedLabel(status: string, creditedCents: number) {
  if (creditedCents <= 0) return null;
  if (status === "pending" || status === "overdue") return "Partly credited";
  return status === "paid" ? "Paid · credit note" : null;
}

export interface InvoiceListRow {
  id: string;
  number: string;
  status: InvoiceStatus;
  description: string;
  issuedAt: string;
  totalCents: number;
  /** Credit notes against it: "Partly credited" while unpaid, "Paid · credit note" once paid. */
  creditedCents?: number;
  disputeReason: string | null;
  /** How its last dispute was resolved: a credit note, or rejected with Jumbe's note. */
  disputeOutcome?: { outcome: "credited" | "rejected"; note: string | null; creditNoteNumber: string | null } | null;
}

/** "Dispute rejected: <note>" or "Credited by CRN-2026-000001": what Jumbe answered to a dispute. */
export function disputeOutcomeWords(outcome: NonNullable<InvoiceListRow["disputeOutcome"]>) {
  if (outcome.outcome === "rejected") return `Dispute rejected${outcome.note ? `: ${outcome.note}` : ""}`;
  return `Dispute resolved: credited by ${outcome.creditNoteNumber ?? "a credit note"}${outcome.note ? ` (${outcome.note})` : ""}`;
}

const linkClass = "font-medium link-hover";

/** The organisation's invoices and receipts: view, download, and (for owners and admins) dispute. */
export function InvoiceHistory({ invoices, disputeHref }: { invoices: InvoiceListRow[]; disputeHref: ((id: string) => string) | null }) {
  const columns: Column<InvoiceListRow>[] = [
    {
      key: "number",
      header: "Invoice",
      cell: (i) => (
        <Link to={`/billing/invoices/${i.id}`} className={linkClass}>
          {i.number}
        </Link>
      ),
    },
    { key: "date", header: "Date", cell: (i) => formatInvoiceDate(i.issuedAt) },
    { key: "description", header: "Description", hideOnPhone: true, cell: (i) => i.description },
    { key: "amount", header: "Amount", align: "right", cell: (i) => formatKes(i.totalCents) },
    {
      key: "status",
      header: "Status",
      cell: (i) => (
        <span>
          <InvoiceStatusBadge status={i.status} creditedCents={i.creditedCents} />
          {i.status === "disputed" && i.disputeReason ? (
            <span className="mt-1 block max-w-xs text-xs break-words text-slate-600">Reason: {i.disputeReason}</span>
          ) : i.disputeOutcome ? (
            <span className="mt-1 block max-w-xs text-xs break-words text-slate-600" data-testid="dispute-outcome">
              {disputeOutcomeWords(i.disputeOutcome)}
            </span>
          ) : null}
        </span>
      ),
    },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      align: "right",
      cell: (i) => (
        // The invoice's number (the first column) opens it: no second link to the same page here
        // (issue 42: 1.5 kB of the Billing page's HTML).
        <span className="inline-flex flex-wrap justify-end gap-3 text-sm">
          <a href={`/billing/invoices/${i.id}/pdf`} download className={linkClass} aria-label={`Download PDF of ${i.number}`}>
            Download PDF
          </a>
          {disputeHref && !i.number.startsWith("CRN-") && (i.status === "pending" || i.status === "overdue" || i.status === "paid") ? (
            <Link to={disputeHref(i.id)} preventScrollReset className={linkClass} aria-label={`Dispute ${i.number}`}>
              Dispute
            </Link>
          ) : null}
        </span>
      ),
    },
  ];
  return (
    <Card padding="none" aria-labelledby="invoices-title">
      <div className="px-4 pt-4">
        <CardHeader id="invoices-title" title="Invoice history" description="Tax invoices and receipts, newest first." />
      </div>
      <Table
        caption="Invoices"
        columns={columns}
        rows={invoices}
        rowKey={(i) => i.id}
        empty="No invoices yet. A top-up or a month on a postpaid plan makes one."
      />
    </Card>
  );
}
