import { data, Form, useSearchParams } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/partners";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { parsePartnerFilters, partnerDetail, partnerPage } from "~/.server/domains/revenue-share/read";
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
import { Button, buttonClass } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { UrlDialog, closeDialogHref, dialogHref } from "~/components/ui/dialog";
import { Plus } from "~/components/ui/icons";
import {
  CATEGORIES,
  categoryWords,
  PartnerForm,
  percent,
  replyFor,
  RevenueTabs,
  StatusBadge,
  statusWords,
  type RevenueActionData,
} from "~/components/revenue-share/parts";
import { PartnerDetailView } from "~/components/revenue-share/partner-detail";
import { SettleForm } from "~/components/revenue-share/settle-form";
import { formatKes } from "~/lib/invoice";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// The Partners tab: search, filters, a page of 20; the partner's detail, Edit Partner and Process
// Settlement as dialogs in the URL (?dialog=partner|edit|settle&partner=ID), and Enrol Partner.
export const handle: PermissionHandle & PageHandle = { permission: "platform:money", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.revenue_tab_partners()} | ${m.revenue_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const scope = platformScope(current);
  const params = args.url.searchParams;
  const filters = parsePartnerFilters(params);
  const dialog = params.get("dialog");
  const wanted = params.get("partner") ?? "";
  const [page, partner] = await Promise.all([
    partnerPage(scope, filters),
    dialog && dialog !== "enrol" && wanted ? partnerDetail(scope, wanted) : null,
  ]);
  if (dialog && dialog !== "enrol" && !partner) throw data(m.revenue_partner_not_found(), { status: 404 });
  return { page, filters, partner, stepUp: stepUpNeeded(current) };
}

export const action = (args: Route.ActionArgs) => revenueShareAction(args);

type Row = Awaited<ReturnType<typeof partnerPage>>["rows"][number];

export default function Partners({ loaderData, actionData }: Route.ComponentProps) {
  const { page, filters, partner, stepUp } = loaderData;
  const [searchParams] = useSearchParams();
  const reply = actionData as RevenueActionData & { toast?: { id: string; type: "error"; message: string } | null };
  const open = (dialog: string, id: string) => {
    const next = new URLSearchParams(searchParams);
    next.set("partner", id);
    return dialogHref(next, dialog);
  };
  return (
    <div className="space-y-6">
      {reply?.toast ? <Toast key={reply.toast.id} toast={reply.toast} /> : null}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{m.revenue_title()}</PageTitle>
          <p className="mt-1 text-slate-600">{m.revenue_partners_intro()}</p>
        </div>
        <Link to={dialogHref(searchParams, "enrol")} className={buttonClass("primary")} preventScrollReset>
          <Plus className="size-4" aria-hidden /> {m.revenue_enrol()}
        </Link>
      </div>
      <RevenueTabs current="partners" />
      <Form
        method="get"
        role="search"
        aria-label={m.revenue_tab_partners()}
        className="grid gap-3 sm:grid-cols-[2fr_1fr_1fr_auto] sm:items-end"
      >
        <FilterInput
          label={m.revenue_search()}
          name="q"
          type="search"
          defaultValue={filters.q}
          placeholder={m.revenue_search_placeholder()}
        />
        <FilterSelect
          name="status"
          label={m.revenue_column_status()}
          value={filters.status ?? ""}
          all={m.revenue_all_statuses()}
          options={(["active", "pending", "suspended"] as const).map((s) => [s, statusWords(s)])}
        />
        <FilterSelect
          name="category"
          label={m.revenue_column_category()}
          value={filters.category ?? ""}
          all={m.revenue_all_categories()}
          options={CATEGORIES.map((c) => [c, categoryWords(c)])}
        />
        <Button type="submit" variant="secondary">
          {m.revenue_filter()}
        </Button>
      </Form>
      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <Table
          caption={m.revenue_partners_caption()}
          columns={[
            {
              key: "name",
              header: m.revenue_column_partner(),
              cell: (r: Row) => (
                <Link to={open("partner", r.id)} preventScrollReset className="font-medium text-brand-700 hover:underline">
                  {r.name}
                </Link>
              ),
            },
            { key: "category", header: m.revenue_column_category(), hideOnPhone: true, cell: (r) => categoryWords(r.category) },
            { key: "status", header: m.revenue_column_status(), cell: (r) => <StatusBadge status={r.status} /> },
            { key: "share", header: m.revenue_column_share(), align: "right", cell: (r) => percent(r.shareBps) },
            {
              key: "tx",
              header: m.revenue_column_transactions(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatNumber(r.transactions),
            },
            {
              key: "revenue",
              header: m.revenue_column_revenue(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatKes(r.revenueCents),
            },
            {
              key: "partner",
              header: m.revenue_column_partner_revenue(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatKes(r.partnerCents),
            },
          ]}
          rows={page.rows}
          rowKey={(r) => r.id}
          empty={m.revenue_partners_empty()}
        />
      </div>
      <PageLinks searchParams={searchParams} page={page.page} pages={page.pages} label={m.revenue_partner_pages()} />

      <UrlDialog name="enrol" searchParams={searchParams} title={m.revenue_enrol()} description={m.revenue_enrol_intro()} size="lg">
        <PartnerForm
          intent="enrol"
          result={replyFor(reply, "enrol")}
          submit={m.revenue_enrol_submit()}
          cancel={closeDialogHref(searchParams)}
        />
      </UrlDialog>
      {partner ? (
        <>
          <UrlDialog name="partner" searchParams={searchParams} title={partner.name} size="lg">
            <PartnerDetailView partner={partner} searchParams={searchParams} open={open} reply={reply} />
          </UrlDialog>
          <UrlDialog name="edit" searchParams={searchParams} title={m.revenue_edit_partner()} description={partner.name} size="lg">
            <PartnerForm
              intent="edit"
              defaults={{
                partner: partner.id,
                name: partner.name,
                category: partner.category,
                shareBps: partner.shareBps,
                payoutMethod: partner.payoutMethod,
                mpesaPhone: partner.mpesaPhone,
                bank: partner.bankDetails?.bank,
                bankBranch: partner.bankDetails?.branch,
                accountName: partner.bankDetails?.accountName,
                accountNumber: partner.bankDetails?.accountNumber,
                kraPin: partner.kraPin,
                resident: partner.resident,
                code: partner.code,
              }}
              result={replyFor(reply, "edit")}
              submit={m.revenue_save()}
              cancel={open("partner", partner.id)}
            />
          </UrlDialog>
          <UrlDialog name="settle" searchParams={searchParams} title={m.revenue_process_settlement()} description={partner.name} size="lg">
            <SettleForm settlements={partner.settlements} stepUp={stepUp} reply={reply} />
          </UrlDialog>
        </>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
