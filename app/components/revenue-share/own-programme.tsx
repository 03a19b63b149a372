import type { ownProgramme } from "~/.server/domains/revenue-share/read";
import { Card, CardHeader } from "~/components/ui/card";
import { Table } from "~/components/ui/table";
import { Notice } from "~/components/ui/notice";
import { SummaryList } from "~/components/ui/summary";
import { CopyButton } from "~/components/ui/copy-button";
import { categoryWords, kindWords, percent, StatusBadge, settlementColumns } from "~/components/revenue-share/parts";
import { periodWords } from "~/components/revenue-share/settle-form";
import { formatKes } from "~/lib/invoice";
import { formatDay } from "~/lib/dates";
import { m } from "~/paraglide/messages";

type Own = NonNullable<Awaited<ReturnType<typeof ownProgramme>>>;

/** A partner organisation's own programme, read-only: its share, referral link and QR, clients, transactions and settlements. */
export function OwnProgramme({ own, link, qr }: { own: Own; link: string; qr: string | null }) {
  if (own.status === "pending") return <Notice title={m.revenue_pending_title()}>{m.revenue_pending_body({ name: own.name })}</Notice>;
  return (
    <>
      {own.status === "suspended" ? <Notice tone="warning">{m.revenue_suspended_notice()}</Notice> : null}
      <div className="grid gap-4 lg:grid-cols-[2fr_1fr]">
        <Card aria-labelledby="own-programme">
          <CardHeader id="own-programme" title={own.name} description={m.revenue_own_intro()} />
          <SummaryList
            className="mt-3"
            items={[
              { label: m.revenue_column_status(), value: <StatusBadge status={own.status} /> },
              { label: m.revenue_column_category(), value: categoryWords(own.category) },
              { label: m.revenue_your_share(), value: <span data-testid="own-share">{percent(own.shareBps)}</span> },
              { label: m.revenue_this_month_earned(), value: formatKes(own.thisMonthPartnerCents) },
              { label: m.revenue_total_earned(), value: formatKes(own.totals.partnerCents) },
              { label: m.revenue_next_settlement(), value: formatDay(`${own.nextSettlement}T09:00:00+03:00`) },
              {
                label: m.revenue_payout_to(),
                value: own.payoutMethod === "mpesa" ? `M-Pesa +${own.mpesaPhone ?? ""}` : m.revenue_method_bank(),
              },
            ]}
          />
        </Card>
        <Card aria-labelledby="referral">
          <CardHeader id="referral" title={m.revenue_referral_title()} description={m.revenue_referral_intro()} />
          <p className="mt-3 text-sm break-all">
            <code data-testid="referral-link">{link}</code>
          </p>
          <div className="mt-2">
            <CopyButton text={link} label={m.revenue_referral_copy()} />
          </div>
          {qr ? (
            // Drawn on the server (uqr, as two-factor sign-in's): an SVG of our own, escaped label.
            <div className="mt-3 w-40 max-w-full" data-testid="referral-qr" dangerouslySetInnerHTML={{ __html: qr }} />
          ) : null}
        </Card>
      </div>
      <Card padding="none" aria-labelledby="own-clients">
        <div className="px-4 pt-4">
          <CardHeader id="own-clients" title={m.revenue_clients_title()} />
        </div>
        <Table
          caption={m.revenue_clients_title()}
          columns={[
            { key: "name", header: m.revenue_column_client(), cell: (r: Own["clients"][number]) => r.name },
            { key: "joined", header: m.revenue_column_joined(), cell: (r) => formatDay(r.joined) },
            { key: "paid", header: m.revenue_column_paid_month(), align: "right", cell: (r) => formatKes(r.paidThisMonthCents) },
          ]}
          rows={own.clients}
          rowKey={(r) => r.id}
          empty={m.revenue_clients_empty()}
        />
      </Card>
      {own.underReview.length ? (
        <Card aria-labelledby="own-reviews">
          <CardHeader id="own-reviews" title={m.revenue_own_reviews_title()} description={m.revenue_own_reviews_intro()} />
          <ul className="mt-3 space-y-1 text-sm" aria-label={m.revenue_own_reviews_title()}>
            {own.underReview.map((r) => (
              <li key={r.id}>{m.revenue_own_review_row({ date: formatDay(r.since) })}</li>
            ))}
          </ul>
        </Card>
      ) : null}
      <Card padding="none" aria-labelledby="own-transactions">
        <div className="px-4 pt-4">
          <CardHeader id="own-transactions" title={m.revenue_transactions_title()} description={m.revenue_own_transactions_intro()} />
        </div>
        <Table
          caption={m.revenue_transactions_title()}
          columns={[
            { key: "when", header: m.revenue_column_date(), cell: (r: Own["transactions"][number]) => formatDay(r.occurredAt) },
            { key: "client", header: m.revenue_column_client(), cell: (r) => r.clientName },
            { key: "kind", header: m.revenue_column_kind(), hideOnPhone: true, cell: (r) => kindWords(r.kind) },
            { key: "amount", header: m.revenue_column_amount(), align: "right", hideOnPhone: true, cell: (r) => formatKes(r.amountCents) },
            { key: "partner", header: m.revenue_column_your_part(), align: "right", cell: (r) => formatKes(r.partnerCents) },
          ]}
          rows={own.transactions}
          rowKey={(r) => r.id}
          empty={m.revenue_transactions_empty()}
        />
      </Card>
      <Card padding="none" aria-labelledby="own-settlements">
        <div className="px-4 pt-4">
          <CardHeader id="own-settlements" title={m.revenue_settlements_title()} />
        </div>
        <Table
          caption={m.revenue_settlements_title()}
          columns={[
            { key: "period", header: m.revenue_column_period(), cell: (r: Own["settlements"][number]) => periodWords(r.period) },
            ...settlementColumns<Own["settlements"][number]>(),
            {
              key: "statement",
              header: <span className="sr-only">{m.revenue_column_statement()}</span>,
              align: "right",
              cell: (r) => (
                <a href={`/revenue-share/settlements/${r.id}/statement`} className="text-brand-700 hover:underline">
                  {m.revenue_statement()}
                </a>
              ),
            },
          ]}
          rows={own.settlements}
          rowKey={(r) => r.id}
          empty={m.revenue_settlements_empty()}
        />
      </Card>
    </>
  );
}
