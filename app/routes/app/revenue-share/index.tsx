import { Link } from "react-router";
import type { Route } from "./+types/index";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { ownProgramme, programmeOverview } from "~/.server/domains/revenue-share/read";
import { revenueShareAction } from "~/.server/domains/revenue-share/page-actions";
import { referralReviews, type ReferralReviewRow } from "~/.server/domains/revenue-share/self-referral";
import { qrSvg } from "~/.server/domains/auth/two-factor/qr";
import { env } from "~/.server/infrastructure/config/env";
import { can, type PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { Toast } from "~/components/ui/toast";
import { Card, CardHeader } from "~/components/ui/card";
import { StatCard } from "~/components/ui/stat-card";
import { Table } from "~/components/ui/table";
import { Notice } from "~/components/ui/notice";
import { SummaryList } from "~/components/ui/summary";
import { CopyButton } from "~/components/ui/copy-button";
import { CalendarClock, Users, Wallet } from "~/components/ui/icons";
import {
  categoryWords,
  IntentForm,
  kindWords,
  PartnerForm,
  percent,
  replyFor,
  RevenueTabs,
  StatusBadge,
  type RevenueActionData,
} from "~/components/revenue-share/parts";
import { formatKes } from "~/lib/invoice";
import { periodWords } from "~/components/revenue-share/settle-form";
import { formatDay, formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// The Revenue Share page (issue 46, decision 088): a platform administrator's Overview tab; a
// partner organisation's own programme, read-only; anyone else the programme and its application.
export const handle: PermissionHandle & PageHandle = { permission: "billing:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.revenue_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "billing:view");
  // The console's money staff (owners and finance; issue 74): the programme's administration.
  if (can(current.role, "platform:money")) {
    const scope = platformScope(current);
    const [overview, reviews] = await Promise.all([programmeOverview(scope), referralReviews(scope)]);
    return { view: "admin" as const, overview, reviews };
  }
  const own = await ownProgramme(current.organization.id);
  if (!own) return { view: "apply" as const, canApply: can(current.role, "billing:manage"), organisationName: current.organization.name };
  const link = `${env().APP_URL.replace(/\/+$/, "")}/signup?ref=${own.code}`;
  return { view: "partner" as const, own, link, qr: own.status === "pending" ? null : qrSvg(link, m.revenue_qr_label()) };
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

/** A match in words: "Phone +254712345678", "E-mail domain agency.co.ke", "KRA PIN P051234567Q". */
function matchWords(match: ReferralReviewRow["matches"][number]) {
  if (match.field === "phone") return m.revenue_match_phone({ value: match.value });
  if (match.field === "email_domain") return m.revenue_match_email_domain({ value: match.value });
  return m.revenue_match_kra_pin({ value: match.value });
}

/** The referrals held for review (decision 104): who, through which partner, what they share; approve or reject, scripts or not. */
function ReferralReviews({ reviews, actionData }: { reviews: ReferralReviewRow[]; actionData: RevenueActionData }) {
  return (
    <Card aria-labelledby="referral-reviews">
      <CardHeader id="referral-reviews" title={m.revenue_reviews_title()} description={m.revenue_reviews_intro()} />
      {reviews.length ? (
        <ul className="mt-3 divide-y divide-slate-100" aria-label={m.revenue_reviews_title()}>
          {reviews.map((r) => (
            <li key={r.id} className="space-y-3 py-3" data-testid="referral-review">
              <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-2">
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_client()}</dt>
                  <dd className="break-words">
                    {r.organizationName}
                    {r.ownerEmail ? <span className="block break-all text-slate-600">{r.ownerEmail}</span> : null}
                  </dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_partner()}</dt>
                  <dd className="break-words">
                    <Link
                      to={`/revenue-share/partners?dialog=partner&partner=${r.partnerId}`}
                      className="font-medium text-brand-700 hover:underline"
                    >
                      {r.partnerName}
                    </Link>
                  </dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_signed_up()}</dt>
                  <dd>{formatDay(r.createdAt)}</dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_matched()}</dt>
                  <dd className="break-words">{r.matches.map(matchWords).join(" · ")}</dd>
                </div>
              </dl>
              <div className="grid gap-4 sm:grid-cols-2">
                <IntentForm
                  intent="approve-referral"
                  hidden={{ review: r.id }}
                  submit={m.revenue_approve_referral()}
                  variant="primary"
                  reason={{ label: m.revenue_field_reason_optional(), required: false }}
                  result={replyFor(actionData, "approve-referral")}
                />
                <IntentForm
                  intent="reject-referral"
                  hidden={{ review: r.id }}
                  submit={m.revenue_reject_referral()}
                  variant="danger"
                  reason={{ label: m.revenue_field_reason(), required: true }}
                  result={replyFor(actionData, "reject-referral")}
                />
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-600">{m.revenue_reviews_empty()}</p>
      )}
    </Card>
  );
}

type Own = NonNullable<Awaited<ReturnType<typeof ownProgramme>>>;

function OwnProgramme({ own, link, qr }: { own: Own; link: string; qr: string | null }) {
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
            {
              key: "carried",
              header: m.revenue_column_carried(),
              align: "right",
              hideOnPhone: true,
              cell: (r) => `${formatKes(r.carriedInCents)} / ${formatKes(-r.carriedOutCents)}`,
            },
            { key: "net", header: m.revenue_column_net(), align: "right", cell: (r) => formatKes(r.payableCents) },
            { key: "status", header: m.revenue_column_status(), cell: (r) => <StatusBadge status={r.status} /> },
            { key: "reference", header: m.revenue_column_reference(), hideOnPhone: true, cell: (r) => r.payoutReference ?? "—" },
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
