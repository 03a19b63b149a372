import { data, Form, useSearchParams } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/settlements";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { parseSettlementFilters, partnerChoices, settlementDetail, settlementPage } from "~/.server/domains/revenue-share/read";
import { revenueShareAction } from "~/.server/domains/revenue-share/page-actions";
import { stepUpNeeded } from "~/.server/domains/admin/step-up";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { Toast } from "~/components/ui/toast";
import { Table } from "~/components/ui/table";
import { PageLinks } from "~/components/ui/page-links";
import { Button } from "~/components/ui/button";
import { FilterSelect } from "~/components/ui/field";
import { UrlDialog, dialogHref } from "~/components/ui/dialog";
import { RevenueTabs, settlementColumns, statusWords, type RevenueActionData } from "~/components/revenue-share/parts";
import { periodWords, SettleForm } from "~/components/revenue-share/settle-form";
import { formatKes } from "~/lib/invoice";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// The Settlements tab: each partner's month, its status, payout reference and statement; Process
// Settlement as a dialog in the URL (?dialog=settle&settlement=ID).
export const handle: PermissionHandle & PageHandle = { permission: "platform:money", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.revenue_tab_settlements()} | ${m.revenue_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const scope = platformScope(current);
  const params = args.url.searchParams;
  const filters = parseSettlementFilters(params);
  const chosen = params.get("dialog") === "settle" ? (params.get("settlement") ?? "") : null;
  const [page, partners, settlement] = await Promise.all([
    settlementPage(scope, filters),
    partnerChoices(scope),
    chosen !== null ? settlementDetail(scope, chosen) : null,
  ]);
  if (chosen !== null && !settlement) throw data(m.revenue_settlement_not_found(), { status: 404 });
  return { page, partners, filters, settlement, stepUp: stepUpNeeded(current) };
}

export const action = (args: Route.ActionArgs) => revenueShareAction(args);

type Row = Awaited<ReturnType<typeof settlementPage>>["rows"][number];

export default function Settlements({ loaderData, actionData }: Route.ComponentProps) {
  const { page, partners, filters, settlement, stepUp } = loaderData;
  const [searchParams] = useSearchParams();
  const reply = actionData as RevenueActionData & { toast?: { id: string; type: "error"; message: string } | null };
  const settle = (id: string) => {
    const next = new URLSearchParams(searchParams);
    next.set("settlement", id);
    return dialogHref(next, "settle");
  };
  return (
    <div className="space-y-6">
      {reply?.toast ? <Toast key={reply.toast.id} toast={reply.toast} /> : null}
      <div>
        <PageTitle>{m.revenue_title()}</PageTitle>
        <p className="mt-1 text-slate-600">{m.revenue_settlements_intro()}</p>
      </div>
      <RevenueTabs current="settlements" />
      <Form
        method="get"
        role="search"
        aria-label={m.revenue_tab_settlements()}
        className="grid gap-3 sm:grid-cols-[2fr_1fr_auto] sm:items-end"
      >
        <FilterSelect
          name="partner"
          label={m.revenue_column_partner()}
          value={filters.partnerId ?? ""}
          all={m.revenue_all_partners()}
          options={partners.map((p) => [p.id, p.name])}
        />
        <FilterSelect
          name="status"
          label={m.revenue_column_status()}
          value={filters.status ?? ""}
          all={m.revenue_all_statuses()}
          options={(["pending", "processing", "paid", "failed"] as const).map((s) => [s, statusWords(s)])}
        />
        <Button type="submit" variant="secondary">
          {m.revenue_filter()}
        </Button>
      </Form>
      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <Table
          caption={m.revenue_settlements_title()}
          columns={[
            { key: "period", header: m.revenue_column_period(), cell: (r: Row) => periodWords(r.period) },
            { key: "partner", header: m.revenue_column_partner(), cell: (r) => r.partnerName },
            {
              key: "tx",
              header: m.revenue_column_transactions(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatNumber(r.transactions),
            },
            {
              key: "earned",
              header: m.revenue_column_partner_revenue(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatKes(r.partnerCents),
            },
            {
              key: "withheld",
              header: m.revenue_column_withholding(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatKes(r.withholdingCents),
            },
            ...settlementColumns<Row>(),
            {
              key: "actions",
              header: <span className="sr-only">{m.revenue_column_actions()}</span>,
              align: "right",
              cell: (r) => (
                <span className="flex flex-wrap justify-end gap-3">
                  <a href={`/revenue-share/settlements/${r.id}/statement`} className="text-brand-700 hover:underline">
                    {m.revenue_statement()}
                  </a>
                  {r.status === "pending" || r.status === "failed" || r.awaitingApprovalBy ? (
                    <Link
                      to={settle(r.id)}
                      preventScrollReset
                      className="font-medium text-brand-700 hover:underline"
                      aria-label={m.revenue_process_settlement_of({ partner: r.partnerName, period: periodWords(r.period) })}
                    >
                      {m.revenue_process()}
                    </Link>
                  ) : null}
                </span>
              ),
            },
          ]}
          rows={page.rows}
          rowKey={(r) => r.id}
          empty={m.revenue_settlements_empty()}
        />
      </div>
      <PageLinks searchParams={searchParams} page={page.page} pages={page.pages} label={m.revenue_settlement_pages()} />
      {settlement ? (
        <UrlDialog
          name="settle"
          searchParams={searchParams}
          title={m.revenue_process_settlement()}
          description={settlement.partnerName}
          size="lg"
        >
          <SettleForm settlements={[settlement]} stepUp={stepUp} reply={reply} />
        </UrlDialog>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
