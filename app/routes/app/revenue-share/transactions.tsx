import { Form, useSearchParams } from "react-router";
import type { Route } from "./+types/transactions";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { parseTransactionFilters, partnerChoices, transactionPage } from "~/.server/domains/revenue-share/read";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { Pager, Table } from "~/components/ui/table";
import { Button, buttonClass } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { Download } from "~/components/ui/icons";
import { kindWords, percent, RevenueTabs } from "~/components/revenue-share/parts";
import { formatKes } from "~/lib/invoice";
import { formatDay } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// The Transactions tab: every client payment's split (and each credit note's reversal), filtered by
// partner, month and kind, newest first, paged by keyset; the same query as CSV.
export const handle: PermissionHandle & PageHandle = { permission: "platform:money", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.revenue_tab_transactions()} | ${m.revenue_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const params = args.url.searchParams;
  const filters = parseTransactionFilters(params);
  const [page, partners] = await Promise.all([
    transactionPage(filters, { after: params.get("after"), before: params.get("before") }),
    partnerChoices(platformScope(current)),
  ]);
  return { page, partners, filters };
}

type Row = Awaited<ReturnType<typeof transactionPage>>["rows"][number];

export default function Transactions({ loaderData }: Route.ComponentProps) {
  const { page, partners, filters } = loaderData;
  const [searchParams] = useSearchParams();
  const csv = new URLSearchParams();
  if (filters.partnerId) csv.set("partner", filters.partnerId);
  if (filters.month) csv.set("month", filters.month);
  if (filters.kind) csv.set("kind", filters.kind);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{m.revenue_title()}</PageTitle>
          <p className="mt-1 text-slate-600">{m.revenue_transactions_intro()}</p>
        </div>
        <a href={`/revenue-share/transactions.csv${csv.size ? `?${csv.toString()}` : ""}`} className={buttonClass("secondary")} download>
          <Download className="size-4" aria-hidden /> {m.revenue_export_csv()}
        </a>
      </div>
      <RevenueTabs current="transactions" />
      <Form
        method="get"
        role="search"
        aria-label={m.revenue_tab_transactions()}
        className="grid gap-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end"
      >
        <FilterSelect
          name="partner"
          label={m.revenue_column_partner()}
          value={filters.partnerId ?? ""}
          all={m.revenue_all_partners()}
          options={partners.map((p) => [p.id, p.name])}
        />
        <FilterInput label={m.revenue_month()} name="month" type="month" defaultValue={filters.month ?? ""} />
        <FilterSelect
          name="kind"
          label={m.revenue_column_kind()}
          value={filters.kind ?? ""}
          all={m.revenue_all_kinds()}
          options={(["topup", "subscription", "bank_transfer", "credit_note"] as const).map((k) => [k, kindWords(k)])}
        />
        <Button type="submit" variant="secondary">
          {m.revenue_filter()}
        </Button>
      </Form>
      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <Table
          caption={m.revenue_transactions_title()}
          columns={[
            { key: "when", header: m.revenue_column_date(), cell: (r: Row) => formatDay(r.occurredAt) },
            { key: "partner", header: m.revenue_column_partner(), cell: (r) => r.partnerName },
            { key: "client", header: m.revenue_column_client(), hideOnPhone: true, cell: (r) => r.clientName },
            { key: "kind", header: m.revenue_column_kind(), hideOnPhone: true, cell: (r) => kindWords(r.kind) },
            { key: "amount", header: m.revenue_column_amount(), align: "right", cell: (r) => formatKes(r.amountCents) },
            { key: "share", header: m.revenue_column_share(), align: "right", hideOnPhone: true, cell: (r) => percent(r.shareBps) },
            { key: "partnerPart", header: m.revenue_column_partner_revenue(), align: "right", cell: (r) => formatKes(r.partnerCents) },
            {
              key: "platform",
              header: m.revenue_column_platform_revenue(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatKes(r.platformCents),
            },
          ]}
          rows={page.rows}
          rowKey={(r) => r.id}
          empty={m.revenue_transactions_empty()}
        />
      </div>
      <Pager searchParams={searchParams} newer={page.newer} older={page.older} label={m.revenue_transaction_pages()} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
