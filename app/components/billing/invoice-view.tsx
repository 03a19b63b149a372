import type { ReactNode } from "react";
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
  ETIMS_PENDING_TEXT,
  INVOICE_KIND_LABELS,
  invoiceStatusWords,
  isReceipt,
  coveringInvoiceWords,
  transferReference,
  amountDueCents,
  VAT_LABEL,
  documentSubtitle,
  paymentMethodLabel,
  showsBankDetails,
  totalLabel,
} from "~/lib/invoice-document";

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
          {invoice.seller.name} · KRA PIN {invoice.seller.kraPin} · {invoice.seller.address}
        </p>
        <p className="mt-1">Amounts in Kenya shillings (KES). Dates and times in Africa/Nairobi (EAT).</p>
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
        <p className="mt-1 text-sm font-semibold">KRA PIN: {invoice.seller.kraPin}</p>
      </div>
      <div className="text-right">
        <h2 id={titleId} className="text-2xl font-bold tracking-wide text-brand-700">
          {documentTitle(invoice)} <span className="block text-base font-semibold text-slate-900">{invoice.number}</span>
        </h2>
        <p className="mt-2">
          <Badge tone={STATUS_TONES[invoice.status]}>{invoiceStatusWords(invoice)}</Badge>
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
  const rows: [string, ReactNode][] = [["KRA PIN", buyer.kraPin ?? "Not provided"]];
  if (buyer.address) rows.push(["Address", buyer.address]);
  if (buyer.county) rows.push(["County", buyer.county]);
  rows.push(["Business ID", buyer.businessId]);
  if (buyer.email) rows.push(["E-mail", buyer.email]);
  return (
    <section>
      <SectionTitle>Bill to</SectionTitle>
      <p className="mt-1 font-semibold">{buyer.name}</p>
      <Details rows={rows} className="mt-2" />
    </section>
  );
}

function InvoiceDetails({ invoice }: { invoice: InvoiceDocument }) {
  const rows: [string, ReactNode][] = [
    ["Invoice number", invoice.number],
    ["Issued", <When at={invoice.issuedAt}>{formatInvoiceDateTime(invoice.issuedAt)} (Nairobi)</When>],
  ];
  if (invoice.dueAt) rows.push(["Due", <When at={invoice.dueAt}>{formatInvoiceDate(invoice.dueAt)}</When>]);
  if (invoice.periodStart && invoice.periodEnd)
    rows.push([
      "Period",
      <>
        <When at={invoice.periodStart}>{formatInvoiceDate(invoice.periodStart)}</When> -{" "}
        <When at={invoice.periodEnd}>{formatInvoiceDate(invoice.periodEnd)}</When>
      </>,
    ]);
  rows.push(["Type", INVOICE_KIND_LABELS[invoice.kind]]);
  rows.push(["Status", invoiceStatusWords(invoice)]);
  return (
    <section>
      <SectionTitle>Invoice details</SectionTitle>
      <Details rows={rows} className="mt-2" />
    </section>
  );
}

const FIGURE_HEADERS = ["Qty", "Unit", "Unit price", "Net", VAT_LABEL, "Gross"] as const;
const FIGURE_CELL = "px-2 py-2 text-right whitespace-nowrap tabular-nums";

function LinesTable({ invoice }: { invoice: InvoiceDocument }) {
  const basis = invoice.pricesIncludeVat ? "unit prices include VAT" : "unit prices exclude VAT";
  return (
    <div className="mt-6 overflow-x-auto print:overflow-visible">
      <table className="w-full text-left text-sm print:text-xs">
        <caption className="mb-2 text-left">
          <span className="font-semibold">Items</span> <span className="text-xs text-slate-500">(amounts in KES; {basis})</span>
        </caption>
        <thead className="bg-slate-100 text-xs font-medium text-slate-600">
          <tr>
            <th scope="col" className="px-2 py-2">
              Item code
            </th>
            <th scope="col" className="px-2 py-2">
              Description
            </th>
            {FIGURE_HEADERS.map((header) => (
              <th key={header} scope="col" className={`px-2 py-2 whitespace-nowrap ${header === "Unit" ? "" : "text-right"}`}>
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
                <td className="min-w-44 px-2 py-2 print:min-w-28">{line.description}</td>
                <td className={FIGURE_CELL}>{formatQuantity(line.quantity)}</td>
                <td className="px-2 py-2 whitespace-nowrap">{line.unit}</td>
                <td className={FIGURE_CELL}>{formatAmount(line.unitPriceCents)}</td>
                <td className={FIGURE_CELL}>{formatAmount(line.netCents)}</td>
                <td className={FIGURE_CELL}>{formatAmount(line.vatCents)}</td>
                <td className={FIGURE_CELL}>{formatAmount(line.grossCents)}</td>
              </tr>
            ))
          ) : (
            <tr>
              <td colSpan={8} className="px-3 py-6 text-center text-slate-600">
                No items.
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
          (invoice.pricesIncludeVat
            ? "Prices include VAT at 16%. Each line's VAT is the part of its gross amount above the net, the net rounded to the nearest cent; the totals are the sums of the lines."
            : "Prices exclude VAT. VAT at 16% is worked out on each line and rounded to the nearest cent; the totals are the sums of the lines.")}
      </p>
      <dl className="grid min-w-72 grid-cols-[1fr_auto] gap-y-1 text-sm">
        {isReceipt(invoice) ? null : (
          <>
            <dt className="pr-6 text-slate-600">Net (taxable) amount</dt>
            <dd className="text-right tabular-nums">{formatKes(invoice.netCents)}</dd>
            <dt className="pr-6 text-slate-600">{VAT_LABEL}</dt>
            <dd className="text-right tabular-nums">{formatKes(invoice.vatCents)}</dd>
          </>
        )}
        <dt className="mt-1 border-t border-slate-900 pt-1 pr-6 text-base font-bold">
          {isReceipt(invoice) ? "Amount received (KES)" : totalLabel(invoice.status)}
        </dt>
        <dd className="mt-1 border-t border-slate-900 pt-1 text-right text-base font-bold tabular-nums">{formatKes(invoice.totalCents)}</dd>
        {invoice.credited && invoice.credited.cents > 0 ? (
          <>
            <dt className="pr-6 text-slate-600">Credited ({invoice.credited.notes.join(", ")})</dt>
            <dd className="text-right tabular-nums">-{formatKes(invoice.credited.cents)}</dd>
            {invoice.status === "pending" || invoice.status === "overdue" ? (
              <>
                <dt className="pr-6 font-bold">Amount due (KES)</dt>
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
  const payment: [string, ReactNode][] = [
    ["Status", invoiceStatusWords(invoice)],
    ["Method", paymentMethodLabel(invoice) ?? "Not paid yet"],
  ];
  // While a transfer is awaited its reference is shown once, with the bank's details.
  if (invoice.payment.reference && !bankAwaited(invoice)) payment.push(["Reference", invoice.payment.reference]);
  if (invoice.paidAt) payment.push(["Paid", <When at={invoice.paidAt}>{formatInvoiceDateTime(invoice.paidAt)}</When>]);
  const bank = showsBankDetails(invoice) ? invoice.bank : null;
  return (
    // Two columns: payment and bank details side by side while unpaid, eTIMS under them across both.
    <div className="mt-6 grid gap-4 sm:grid-cols-2 print:grid-cols-2">
      <Panel title="Payment">
        <Details rows={payment} />
      </Panel>
      {bank ? (
        <Panel title="Pay by bank transfer">
          <Details
            rows={[
              ["Bank", bank.bank],
              ["Branch", bank.branch],
              ["Account name", bank.accountName],
              ["Account no.", bank.accountNumber],
              ["Reference", <span data-testid="transfer-reference">{transferReference(invoice)}</span>],
            ]}
          />
        </Panel>
      ) : null}
      <Panel title="KRA eTIMS" className={bank ? "sm:col-span-2 print:col-span-2" : ""}>
        <Etims etims={invoice.etims} number={invoice.number} />
      </Panel>
    </div>
  );
}

function Etims({ etims, number }: { etims: InvoiceDocument["etims"]; number: string }) {
  if (!etims.cuSerial && !etims.cuInvoiceNumber) return <p className="text-sm font-semibold text-amber-800">{ETIMS_PENDING_TEXT}</p>;
  return (
    <>
      <Details
        rows={[
          ["CU serial no.", etims.cuSerial ?? "-"],
          ["CU invoice no.", etims.cuInvoiceNumber ?? "-"],
        ]}
      />
      {etims.qrUrl ? <EtimsQr url={etims.qrUrl} label={`KRA eTIMS QR code for ${number}`} /> : null}
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
