import { Link } from "~/components/ui/link";
import { invoiceWords } from "~/lib/invoice-words";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { Table, type Column } from "~/components/ui/table";
import { formatInvoiceDate, formatKes, type InvoiceStatus } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

/** The words (read when used, in the request's language) and tones of an invoice's status in lists (the spec's paid, pending, overdue, disputed). */
export const INVOICE_STATUS_BADGES: Record<InvoiceStatus, { readonly label: string; tone: BadgeTone }> = {
  paid: {
    get label() {
      return m.billing_invoice_status_paid();
    },
    tone: "success",
  },
  pending: {
    get label() {
      return m.billing_invoice_status_pending();
    },
    tone: "warning",
  },
  overdue: {
    get label() {
      return m.billing_invoice_status_overdue();
    },
    tone: "danger",
  },
  disputed: {
    get label() {
      return m.billing_invoice_status_disputed();
    },
    tone: "info",
  },
  void: {
    get label() {
      return m.billing_invoice_status_void();
    },
    tone: "neutral",
  },
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
  if (status === "pending" || status === "overdue") return m.billing_invoice_partly_credited();
  return status === "paid" ? m.billing_invoice_paid_credit_note() : null;
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
  if (outcome.outcome === "rejected")
    return outcome.note ? m.billing_dispute_rejected_note({ note: outcome.note }) : m.billing_dispute_rejected();
  const creditNote = outcome.creditNoteNumber ?? m.billing_dispute_a_credit_note();
  return outcome.note
    ? m.billing_dispute_credited_by_note({ creditNote, note: outcome.note })
    : m.billing_dispute_credited_by({ creditNote });
}

const linkClass = "font-medium link-hover";

/** The organisation's invoices and receipts: view, download, and (for owners and admins) dispute. */
export function InvoiceHistory({ invoices, disputeHref }: { invoices: InvoiceListRow[]; disputeHref: ((id: string) => string) | null }) {
  const columns: Column<InvoiceListRow>[] = [
    {
      key: "number",
      header: m.billing_invoices_column_invoice(),
      cell: (i) => (
        <Link to={`/billing/invoices/${i.id}`} className={linkClass}>
          {i.number}
        </Link>
      ),
    },
    { key: "date", header: m.billing_invoices_column_date(), cell: (i) => formatInvoiceDate(i.issuedAt) },
    { key: "description", header: m.billing_invoices_column_description(), hideOnPhone: true, cell: (i) => invoiceWords(i.description) },
    { key: "amount", header: m.billing_amount(), align: "right", cell: (i) => formatKes(i.totalCents) },
    {
      key: "status",
      header: m.billing_status(),
      cell: (i) => (
        <span>
          <InvoiceStatusBadge status={i.status} creditedCents={i.creditedCents} />
          {i.status === "disputed" && i.disputeReason ? (
            <span className="mt-1 block max-w-xs text-xs break-words text-slate-600">
              {m.billing_dispute_reason({ reason: i.disputeReason })}
            </span>
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
      header: <span className="sr-only">{m.billing_actions()}</span>,
      align: "right",
      cell: (i) => (
        // The invoice's number (the first column) opens it: no second link to the same page here
        // (issue 42: 1.5 kB of the Billing page's HTML).
        <span className="inline-flex flex-wrap justify-end gap-3 text-sm">
          <a
            href={`/billing/invoices/${i.id}/pdf`}
            download
            className={linkClass}
            aria-label={m.billing_download_pdf_of({ number: i.number })}
          >
            {m.billing_download_pdf()}
          </a>
          {disputeHref && !i.number.startsWith("CRN-") && (i.status === "pending" || i.status === "overdue" || i.status === "paid") ? (
            <Link
              to={disputeHref(i.id)}
              preventScrollReset
              className={linkClass}
              aria-label={m.billing_dispute_number({ number: i.number })}
            >
              {m.billing_dispute_link()}
            </Link>
          ) : null}
        </span>
      ),
    },
  ];
  return (
    <Card padding="none" aria-labelledby="invoices-title">
      <div className="px-4 pt-4">
        <CardHeader id="invoices-title" title={m.billing_invoices_title()} description={m.billing_invoices_description()} />
      </div>
      <Table
        caption={m.billing_invoices_caption()}
        columns={columns}
        rows={invoices}
        rowKey={(i) => i.id}
        empty={m.billing_invoices_empty()}
      />
    </Card>
  );
}
