import type { ReactNode } from "react";
import { invoiceWords, unitWords } from "~/lib/invoice-words";
import { encode as encodeQr } from "uqr";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import {
  formatAmount,
  formatInvoiceDate,
  formatInvoiceDateTime,
  formatKes,
  formatQuantity,
  type InvoiceDocument,
  type InvoiceStatus,
} from "~/lib/invoice";
import {
  documentTitle,
  documentStatusWords,
  documentTotalLabel,
  detailsHeading,
  numberLabel,
  isTaxDocument,
  etimsPendingText,
  INVOICE_KIND_LABELS,
  coveringInvoiceWords,
  reclassificationWords,
  transferReference,
  amountDueCents,
  vatLabel,
  documentSubtitle,
  paymentMethodLabel,
  showsBankDetails,
} from "~/lib/invoice-document";
import { m } from "~/paraglide/messages";

const STATUS_TONES: Record<InvoiceStatus, BadgeTone> = {
  paid: "success",
  pending: "warning",
  overdue: "danger",
  disputed: "warning",
  void: "neutral",
};

/**
 * An invoice as HTML: the same figures, dates and fields as its PDF (app/.server/domains/billing/invoice-pdf.ts),
 * from the same formatters. Printing it gives a clean page: the card's border and shadow go, nothing else.
 */
export function InvoiceView({ invoice }: { invoice: InvoiceDocument }) {
  const titleId = `invoice-${invoice.number}-title`;
  return (
    <Card
      as="article"
      padding="xl"
      aria-labelledby={titleId}
      className="text-slate-900 print:rounded-none print:border-0 print:p-0 print:shadow-none"
    >
      <InvoiceHeader invoice={invoice} titleId={titleId} />
      <div className="grid gap-6 border-b border-slate-200 py-6 sm:grid-cols-2 print:grid-cols-2">
        <BillTo buyer={invoice.buyer} />
        <InvoiceDetails invoice={invoice} />
      </div>
      <LinesTable invoice={invoice} />
      <Totals invoice={invoice} />
      <PaymentPanels invoice={invoice} />
      <footer className="mt-8 border-t border-slate-200 pt-3 text-xs text-slate-500">
        <p>
          {invoice.seller.name} · {m.billing_kra_pin()} {invoice.seller.kraPin} · {invoice.seller.address}
        </p>
        <p className="mt-1">{m.billing_invoice_footer_units()}</p>
      </footer>
    </Card>
  );
}

function InvoiceHeader({ invoice, titleId }: { invoice: InvoiceDocument; titleId: string }) {
  const subtitle = documentSubtitle(invoice);
  return (
    <header className="flex flex-wrap items-start justify-between gap-6 border-b border-slate-200 pb-6">
      <div className="min-w-0">
        <p className="text-lg font-semibold">{invoice.seller.name}</p>
        <p className="mt-1 max-w-sm text-sm text-slate-600">{invoice.seller.address}</p>
        <p className="mt-1 text-sm font-semibold">{m.billing_invoice_seller_pin({ pin: invoice.seller.kraPin })}</p>
      </div>
      <div className="text-right">
        <h2 id={titleId} className="text-2xl font-bold tracking-wide text-brand-700">
          {documentTitle(invoice)} <span className="block text-base font-semibold text-slate-900">{invoice.number}</span>
        </h2>
        <p className="mt-2">
          <Badge tone={STATUS_TONES[invoice.status]}>{documentStatusWords(invoice)}</Badge>
        </p>
        {subtitle ? <p className="mt-1 text-xs text-slate-600">{subtitle}</p> : null}
      </div>
    </header>
  );
}

/** Label and value rows as a definition list. */
function Details({ rows, className = "" }: { rows: [string, ReactNode][]; className?: string }) {
  return (
    <dl className={`grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm ${className}`.trim()}>
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-500">{label}</dt>
          <dd className="min-w-0 break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function SectionTitle({ children }: { children: ReactNode }) {
  return <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">{children}</h3>;
}

function When({ at, children }: { at: string; children: ReactNode }) {
  return <time dateTime={at}>{children}</time>;
}

function BillTo({ buyer }: { buyer: InvoiceDocument["buyer"] }) {
  const rows: [string, ReactNode][] = [[m.billing_kra_pin(), buyer.kraPin ?? m.billing_invoice_not_provided()]];
  if (buyer.address) rows.push([m.billing_invoice_address(), buyer.address]);
  if (buyer.county) rows.push([m.billing_invoice_county(), buyer.county]);
  rows.push([m.billing_invoice_business_id(), buyer.businessId]);
  if (buyer.email) rows.push([m.billing_invoice_email(), buyer.email]);
  return (
    <section>
      <SectionTitle>{m.billing_invoice_bill_to()}</SectionTitle>
      <p className="mt-1 font-semibold">{buyer.name}</p>
      <Details rows={rows} className="mt-2" />
    </section>
  );
}

function InvoiceDetails({ invoice }: { invoice: InvoiceDocument }) {
  const rows: [string, ReactNode][] = [
    [numberLabel(invoice), invoice.number],
    [
      m.billing_invoice_issued(),
      <When at={invoice.issuedAt}>{m.billing_invoice_nairobi_time({ time: formatInvoiceDateTime(invoice.issuedAt) })}</When>,
    ],
  ];
  if (invoice.dueAt) rows.push([m.billing_invoice_due(), <When at={invoice.dueAt}>{formatInvoiceDate(invoice.dueAt)}</When>]);
  if (invoice.periodStart && invoice.periodEnd)
    rows.push([
      m.billing_invoice_period(),
      <>
        <When at={invoice.periodStart}>{formatInvoiceDate(invoice.periodStart)}</When> -{" "}
        <When at={invoice.periodEnd}>{formatInvoiceDate(invoice.periodEnd)}</When>
      </>,
    ]);
  rows.push([m.billing_invoice_type(), INVOICE_KIND_LABELS[invoice.kind]]);
  rows.push([m.billing_status(), documentStatusWords(invoice)]);
  return (
    <section>
      <SectionTitle>{detailsHeading(invoice)}</SectionTitle>
      <Details rows={rows} className="mt-2" />
    </section>
  );
}

/**
 * The figure columns' headers, in the request's language: [header, right-aligned]. A receipt charges
 * no VAT (decision 050): its lines have one amount, not net, VAT and gross.
 */
const figureHeaders = (taxed: boolean): [string, boolean][] => [
  [m.billing_invoice_column_quantity(), true],
  [m.billing_invoice_column_unit(), false],
  [m.billing_invoice_column_unit_price(), true],
  ...(taxed
    ? ([
        [m.billing_invoice_column_net(), true],
        [vatLabel(), true],
        [m.billing_invoice_column_gross(), true],
      ] as [string, boolean][])
    : ([[m.documents_column_amount(), true]] as [string, boolean][])),
];
const FIGURE_CELL = "px-2 py-2 text-right whitespace-nowrap tabular-nums";

function LinesTable({ invoice }: { invoice: InvoiceDocument }) {
  const taxed = isTaxDocument(invoice);
  const basis = invoice.pricesIncludeVat ? m.billing_invoice_basis_include_vat() : m.billing_invoice_basis_exclude_vat();
  return (
    <div className="mt-6 overflow-x-auto print:overflow-visible">
      <table className="w-full text-left text-sm print:text-xs">
        <caption className="mb-2 text-left">
          <span className="font-semibold">{m.billing_invoice_items()}</span>{" "}
          <span className="text-xs text-slate-500">{m.billing_invoice_items_note({ basis })}</span>
        </caption>
        <thead className="bg-slate-100 text-xs font-medium text-slate-600">
          <tr>
            <th scope="col" className="px-2 py-2">
              {m.billing_invoice_column_item_code()}
            </th>
            <th scope="col" className="px-2 py-2">
              {m.billing_invoices_column_description()}
            </th>
            {figureHeaders(taxed).map(([header, right]) => (
              <th key={header} scope="col" className={`px-2 py-2 whitespace-nowrap ${right ? "text-right" : ""}`}>
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200">
          {invoice.lines.length ? (
            invoice.lines.map((line, index) => (
              <tr key={`${index}-${line.itemCode}`} className="break-inside-avoid align-top">
                <td className="px-2 py-2 text-xs whitespace-nowrap text-slate-500">{line.itemCode}</td>
                <td className="min-w-44 px-2 py-2 print:min-w-28">{invoiceWords(line.description)}</td>
                <td className={FIGURE_CELL}>{formatQuantity(line.quantity)}</td>
                <td className="px-2 py-2 whitespace-nowrap">{unitWords(line.unit)}</td>
                <td className={FIGURE_CELL}>{formatAmount(line.unitPriceCents)}</td>
                {taxed ? (
                  <>
                    <td className={FIGURE_CELL}>{formatAmount(line.netCents)}</td>
                    <td className={FIGURE_CELL}>{formatAmount(line.vatCents)}</td>
                  </>
                ) : null}
                <td className={FIGURE_CELL}>{formatAmount(line.grossCents)}</td>
              </tr>
            ))
          ) : (
            <tr>
              <td colSpan={taxed ? 8 : 6} className="px-3 py-6 text-center text-slate-600">
                {m.billing_invoice_no_items()}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

function Totals({ invoice }: { invoice: InvoiceDocument }) {
  return (
    <div className="mt-4 flex flex-col-reverse gap-4 border-t border-slate-200 pt-4 sm:flex-row sm:justify-between print:flex-row print:justify-between">
      <p className="max-w-sm text-xs text-slate-500" data-testid="vat-note">
        {coveringInvoiceWords(invoice) ??
          reclassificationWords(invoice) ??
          (invoice.pricesIncludeVat ? m.billing_invoice_vat_note_included() : m.billing_invoice_vat_note_excluded())}
      </p>
      <dl className="grid min-w-72 grid-cols-[1fr_auto] gap-y-1 text-sm">
        {isTaxDocument(invoice) ? (
          <>
            <dt className="pr-6 text-slate-600">{m.billing_invoice_net_amount()}</dt>
            <dd className="text-right tabular-nums">{formatKes(invoice.netCents)}</dd>
            <dt className="pr-6 text-slate-600">{vatLabel()}</dt>
            <dd className="text-right tabular-nums">{formatKes(invoice.vatCents)}</dd>
          </>
        ) : null}
        <dt className="mt-1 border-t border-slate-900 pt-1 pr-6 text-base font-bold">{documentTotalLabel(invoice)}</dt>
        <dd className="mt-1 border-t border-slate-900 pt-1 text-right text-base font-bold tabular-nums">{formatKes(invoice.totalCents)}</dd>
        {invoice.credited && invoice.credited.cents > 0 ? (
          <>
            <dt className="pr-6 text-slate-600">{m.billing_invoice_credited({ notes: invoice.credited.notes.join(", ") })}</dt>
            <dd className="text-right tabular-nums">-{formatKes(invoice.credited.cents)}</dd>
            {invoice.status === "pending" || invoice.status === "overdue" ? (
              <>
                <dt className="pr-6 font-bold">{m.billing_invoice_amount_due()}</dt>
                <dd className="text-right font-bold tabular-nums" data-testid="amount-due">
                  {formatKes(amountDueCents(invoice))}
                </dd>
              </>
            ) : null}
          </>
        ) : null}
      </dl>
    </div>
  );
}

function Panel({ title, children, className = "" }: { title: string; children: ReactNode; className?: string }) {
  return (
    <section className={`break-inside-avoid rounded-lg border border-slate-200 p-4 ${className}`.trim()}>
      <SectionTitle>{title}</SectionTitle>
      <div className="mt-2">{children}</div>
    </section>
  );
}

function PaymentPanels({ invoice }: { invoice: InvoiceDocument }) {
  const creditNote = invoice.kind === "credit_note";
  // A credit note is not paid: it names the invoice it credits (a fact of its issue).
  const payment: [string, ReactNode][] = creditNote
    ? [[m.documents_credits_invoice(), invoice.credits?.number ?? "-"]]
    : [
        [m.billing_status(), documentStatusWords(invoice)],
        [m.billing_invoice_method(), paymentMethodLabel(invoice) ?? m.billing_invoice_not_paid_yet()],
      ];
  // While a transfer is awaited its reference is shown once, with the bank's details.
  if (!creditNote && invoice.payment.reference && !bankAwaited(invoice)) payment.push([m.billing_reference(), invoice.payment.reference]);
  if (!creditNote && invoice.paidAt)
    payment.push([m.billing_invoice_paid_at(), <When at={invoice.paidAt}>{formatInvoiceDateTime(invoice.paidAt)}</When>]);
  if (!creditNote && invoice.valueDate)
    payment.push([m.documents_value_date(), <When at={invoice.valueDate}>{formatInvoiceDate(invoice.valueDate)}</When>]);
  const bank = showsBankDetails(invoice) ? invoice.bank : null;
  const etims = isTaxDocument(invoice);
  return (
    // Two columns: payment and bank details side by side while unpaid, eTIMS under them across both.
    <div className="mt-6 grid gap-4 sm:grid-cols-2 print:grid-cols-2">
      <Panel title={creditNote ? m.documents_credit() : m.billing_invoice_payment()}>
        <Details rows={payment} />
      </Panel>
      {bank ? (
        <Panel title={m.billing_pay_by_bank_transfer()}>
          <Details
            rows={[
              [m.billing_bank(), bank.bank],
              [m.billing_branch(), bank.branch],
              [m.billing_account_name(), bank.accountName],
              [m.billing_invoice_account_no(), bank.accountNumber],
              [m.billing_reference(), <span data-testid="transfer-reference">{transferReference(invoice)}</span>],
            ]}
          />
        </Panel>
      ) : null}
      {etims ? (
        <Panel title={m.billing_invoice_etims()} className={bank ? "sm:col-span-2 print:col-span-2" : ""}>
          <Etims etims={invoice.etims} number={invoice.number} />
        </Panel>
      ) : null}
    </div>
  );
}

function Etims({ etims, number }: { etims: InvoiceDocument["etims"]; number: string }) {
  if (!etims.cuSerial && !etims.cuInvoiceNumber) return <p className="text-sm font-semibold text-amber-800">{etimsPendingText()}</p>;
  return (
    <>
      <Details
        rows={[
          [m.billing_invoice_cu_serial(), etims.cuSerial ?? "-"],
          [m.billing_invoice_cu_invoice(), etims.cuInvoiceNumber ?? "-"],
        ]}
      />
      {etims.qrUrl ? <EtimsQr url={etims.qrUrl} label={m.billing_invoice_etims_qr({ number })} /> : null}
    </>
  );
}

/** The eTIMS QR code as a small SVG: one filled rectangle per dark run in each row. */
function EtimsQr({ url, label }: { url: string; label: string }) {
  const { data, size } = encodeQr(url, { ecc: "M", border: 2 });
  let path = "";
  data.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < row.length && row[x]) x++;
      path += `M${start} ${y}h${x - start}v1h${start - x}z`;
    }
  });
  return (
    <svg viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shapeRendering="crispEdges" className="mt-3 size-24">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}

const bankAwaited = (invoice: InvoiceDocument) => Boolean(showsBankDetails(invoice) && invoice.bank);
