import { Link } from "~/components/ui/link";
import type { Route } from "./+types/index";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import type { programmeOverview } from "~/.server/domains/revenue-share/read";
import { revenueSharePage } from "~/.server/domains/revenue-share/page";
import { revenueShareAction } from "~/.server/domains/revenue-share/page-actions";
import type { ReferralReviewRow } from "~/.server/domains/revenue-share/self-referral";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { Toast } from "~/components/ui/toast";
import { Card, CardHeader } from "~/components/ui/card";
import { StatCard } from "~/components/ui/stat-card";
import { Table } from "~/components/ui/table";
import { Notice } from "~/components/ui/notice";
import { OwnProgramme } from "~/components/revenue-share/own-programme";
import { ReferralReviews } from "~/components/revenue-share/referral-reviews";
import { CalendarClock, Users, Wallet } from "~/components/ui/icons";
import { categoryWords, PartnerForm, replyFor, RevenueTabs, type RevenueActionData } from "~/components/revenue-share/parts";
import { formatKes } from "~/lib/invoice";
import { formatDay, formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// The Revenue Share page (issue 46, decision 088): a platform administrator's Overview tab; a
// partner organisation's own programme, read-only; anyone else the programme and its application.
export const handle: PermissionHandle & PageHandle = { permission: "billing:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.revenue_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  return revenueSharePage(await requireDeclaredUser(args));
}

export const action = (args: Route.ActionArgs) => revenueShareAction(args);

export default function RevenueShare({ loaderData, actionData }: Route.ComponentProps) {
  const toast = (actionData as { toast?: { id: string; type: "error"; message: string } | null } | undefined)?.toast;
  return (
    <div className="space-y-6">
      {toast ? <Toast key={toast.id} toast={toast} /> : null}
      <div>
        <PageTitle>{m.revenue_title()}</PageTitle>
        <p className="mt-1 text-slate-600">{m.revenue_intro()}</p>
      </div>
      {loaderData.view === "admin" ? (
        <AdminOverview overview={loaderData.overview} reviews={loaderData.reviews} actionData={actionData as RevenueActionData} />
      ) : null}
      {loaderData.view === "partner" ? <OwnProgramme own={loaderData.own} link={loaderData.link} qr={loaderData.qr} /> : null}
      {loaderData.view === "apply" ? (
        <Apply canApply={loaderData.canApply} organisationName={loaderData.organisationName} actionData={actionData as RevenueActionData} />
      ) : null}
    </div>
  );
}

type Overview = Awaited<ReturnType<typeof programmeOverview>>;

function AdminOverview({
  overview,
  reviews,
  actionData,
}: {
  overview: Overview;
  reviews: ReferralReviewRow[];
  actionData: RevenueActionData;
}) {
  const months = [
    { id: "this", title: m.revenue_this_month(), figures: overview.thisMonth },
    { id: "last", title: m.revenue_last_month(), figures: overview.lastMonth },
  ];
  return (
    <>
      <RevenueTabs current="overview" />
      {months.map((month) => (
        <section key={month.id} aria-label={month.title} className="space-y-2">
          <h2 className="text-lg font-semibold">{month.title}</h2>
          <div className="grid gap-4 sm:grid-cols-3">
            <StatCard
              label={m.revenue_total_revenue()}
              value={formatKes(month.figures.revenueCents)}
              icon={Wallet}
              hint={m.revenue_transactions_count({ count: formatNumber(month.figures.transactions) })}
            />
            <StatCard label={m.revenue_partner_revenue()} value={formatKes(month.figures.partnerCents)} icon={Users} />
            <StatCard label={m.revenue_platform_revenue()} value={formatKes(month.figures.platformCents)} icon={Wallet} />
          </div>
        </section>
      ))}
      <div className="grid gap-4 sm:grid-cols-2">
        <StatCard
          label={m.revenue_next_settlement()}
          value={formatDay(`${overview.nextSettlement}T09:00:00+03:00`)}
          icon={CalendarClock}
          hint={m.revenue_to_pay({ count: formatNumber(overview.toPay.settlements), amount: formatKes(overview.toPay.netCents) })}
        />
        <StatCard
          label={m.revenue_partners_active()}
          value={formatNumber(overview.statuses.active)}
          icon={Users}
          hint={m.revenue_partners_other({
            pending: formatNumber(overview.statuses.pending),
            suspended: formatNumber(overview.statuses.suspended),
          })}
          href="/revenue-share/partners"
        />
      </div>
      <ReferralReviews reviews={reviews} actionData={actionData} />
      <Card padding="none" aria-labelledby="top-partners">
        <div className="px-4 pt-4">
          <CardHeader id="top-partners" title={m.revenue_top_partners()} description={m.revenue_top_partners_intro()} />
        </div>
        <Table
          caption={m.revenue_top_partners()}
          columns={[
            {
              key: "name",
              header: m.revenue_column_partner(),
              cell: (r: Overview["top"][number]) => (
                <Link to={`/revenue-share/partners?dialog=partner&partner=${r.id}`} className="font-medium text-brand-700 hover:underline">
                  {r.name}
                </Link>
              ),
            },
            { key: "category", header: m.revenue_column_category(), hideOnPhone: true, cell: (r) => categoryWords(r.category) },
            {
              key: "revenue",
              header: m.revenue_column_revenue(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => formatKes(r.revenueCents),
            },
            { key: "partner", header: m.revenue_column_partner_revenue(), align: "right", cell: (r) => formatKes(r.partnerCents) },
          ]}
          rows={overview.top}
          rowKey={(r) => r.id}
          empty={m.revenue_top_partners_empty()}
        />
      </Card>
    </>
  );
}

function Apply({ canApply, organisationName, actionData }: { canApply: boolean; organisationName: string; actionData: RevenueActionData }) {
  return (
    <>
      <Card aria-labelledby="programme">
        <CardHeader id="programme" title={m.revenue_programme_title()} />
        <ul className="mt-3 list-disc space-y-1 pl-5 text-sm text-slate-700">
          <li>{m.revenue_programme_point_share()}</li>
          <li>{m.revenue_programme_point_settle()}</li>
          <li>{m.revenue_programme_point_payout()}</li>
          <li>{m.revenue_programme_point_referral()}</li>
        </ul>
      </Card>
      <Card aria-labelledby="apply">
        <CardHeader id="apply" title={m.revenue_apply_title()} description={m.revenue_apply_intro()} />
        <div className="mt-4">
          {canApply ? (
            <PartnerForm
              intent="apply"
              defaults={{ name: organisationName }}
              result={replyFor(actionData, "apply")}
              submit={m.revenue_apply_submit()}
            />
          ) : (
            <Notice>{m.revenue_apply_owner_only()}</Notice>
          )}
        </div>
      </Card>
    </>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
