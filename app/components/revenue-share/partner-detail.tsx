import { Link } from "~/components/ui/link";
import type { partnerDetail } from "~/.server/domains/revenue-share/read";
import { buttonClass } from "~/components/ui/button";
import { closeDialogHref } from "~/components/ui/dialog";
import { SummaryList } from "~/components/ui/summary";
import { categoryWords, IntentForm, percent, replyFor, StatusBadge, type RevenueActionData } from "~/components/revenue-share/parts";
import { formatKes } from "~/lib/invoice";
import { formatDay, formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

type Detail = NonNullable<Awaited<ReturnType<typeof partnerDetail>>>;

/**
 * A partner's detail in the Partners tab's dialog (?dialog=partner&partner=ID): its figures and
 * payout, Edit and Process Settlement, approve/reject/suspend/reactivate, its clients (assign,
 * unassign) and its share's history.
 */
export function PartnerDetailView({
  partner,
  searchParams,
  open,
  reply,
}: {
  partner: Detail;
  searchParams: URLSearchParams;
  open: (dialog: string, id: string) => string;
  reply: RevenueActionData;
}) {
  const hidden = { partner: partner.id };
  return (
    <div className="space-y-5" data-testid="partner-detail">
      <div className="flex flex-wrap gap-2">
        <Link to={open("edit", partner.id)} preventScrollReset className={buttonClass("secondary", "sm")}>
          {m.revenue_edit_partner()}
        </Link>
        <Link to={open("settle", partner.id)} preventScrollReset className={buttonClass("secondary", "sm")}>
          {m.revenue_process_settlement()}
        </Link>
        <Link to={`/revenue-share/transactions?partner=${partner.id}`} className={buttonClass("ghost", "sm")}>
          {m.revenue_tab_transactions()}
        </Link>
      </div>
      <SummaryList
        items={[
          { label: m.revenue_column_status(), value: <StatusBadge status={partner.status} /> },
          { label: m.revenue_column_category(), value: categoryWords(partner.category) },
          { label: m.revenue_column_share(), value: <span data-testid="partner-share">{percent(partner.shareBps)}</span> },
          { label: m.revenue_organisation(), value: partner.organizationName },
          { label: m.revenue_field_code(), value: <code>{partner.code}</code> },
          { label: m.revenue_column_transactions(), value: formatNumber(partner.transactions) },
          { label: m.revenue_total_revenue(), value: formatKes(partner.revenueCents) },
          { label: m.revenue_partner_revenue(), value: formatKes(partner.partnerCents) },
          { label: m.revenue_platform_revenue(), value: formatKes(partner.platformCents) },
          {
            label: m.revenue_last_settlement(),
            value: partner.lastSettlement ? formatDay(`${partner.lastSettlement}T12:00:00+03:00`) : "—",
          },
          {
            label: m.revenue_next_settlement(),
            value: partner.nextSettlement ? formatDay(`${partner.nextSettlement}T09:00:00+03:00`) : "—",
          },
          { label: m.revenue_integration_date(), value: formatDay(partner.integrationDate) },
          {
            label: m.revenue_payout_to(),
            value:
              partner.payoutMethod === "mpesa"
                ? `M-Pesa +${partner.mpesaPhone ?? ""}`
                : `${partner.bankDetails?.bank ?? ""}, ${partner.bankDetails?.accountName ?? ""} ${partner.bankDetails?.accountNumber ?? ""}`,
          },
          { label: m.revenue_field_kra(), value: partner.kraPin },
        ]}
      />
      <section aria-labelledby="partner-status" className="space-y-2">
        <h3 id="partner-status" className="font-medium">
          {m.revenue_status_title()}
        </h3>
        {partner.status === "pending" ? (
          <div className="grid gap-4 sm:grid-cols-2">
            <IntentForm
              intent="approve"
              hidden={hidden}
              submit={m.revenue_approve()}
              variant="primary"
              result={replyFor(reply, "approve")}
            />
            <IntentForm
              intent="reject"
              hidden={hidden}
              submit={m.revenue_reject()}
              variant="danger"
              reason={{ label: m.revenue_field_reason(), required: true }}
              result={replyFor(reply, "reject")}
            />
          </div>
        ) : partner.status === "active" ? (
          <IntentForm
            intent="suspend"
            hidden={hidden}
            submit={m.revenue_suspend()}
            variant="danger"
            reason={{ label: m.revenue_field_reason(), required: true }}
            result={replyFor(reply, "suspend")}
          />
        ) : (
          <IntentForm
            intent="reactivate"
            hidden={hidden}
            submit={m.revenue_reactivate()}
            reason={{ label: m.revenue_field_reason_optional(), required: false }}
            result={replyFor(reply, "reactivate")}
          />
        )}
      </section>
      <section aria-labelledby="partner-clients" className="space-y-2">
        <h3 id="partner-clients" className="font-medium">
          {m.revenue_clients_title()}
        </h3>
        {partner.clients.length ? (
          <ul className="divide-y divide-slate-100 text-sm" aria-label={m.revenue_clients_title()}>
            {partner.clients.map((c) => (
              <li key={c.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
                <span className="min-w-0 break-words">
                  {c.name} · {formatDay(c.joined)} · {formatKes(c.paidThisMonthCents)}
                </span>
                <details>
                  <summary className="cursor-pointer text-sm text-brand-700">{m.revenue_unassign()}</summary>
                  <div className="mt-2">
                    <IntentForm
                      intent="unassign"
                      hidden={{ partner: partner.id, client: c.id }}
                      submit={m.revenue_unassign_submit({ name: c.name })}
                      variant="danger"
                      reason={{ label: m.revenue_field_reason(), required: true }}
                      result={replyFor(reply, "unassign")}
                    />
                  </div>
                </details>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600">{m.revenue_clients_empty()}</p>
        )}
        <IntentForm
          intent="assign"
          hidden={hidden}
          submit={m.revenue_assign()}
          reason={{ label: m.revenue_field_reason(), required: true }}
          result={replyFor(reply, "assign")}
        />
      </section>
      <section aria-labelledby="partner-shares" className="space-y-2">
        <h3 id="partner-shares" className="font-medium">
          {m.revenue_share_history()}
        </h3>
        <ul className="text-sm text-slate-700" data-testid="share-history">
          {partner.shares.map((s) => (
            <li key={`${s.from}-${s.shareBps}`} className="break-words">
              {formatDay(s.from)}: {percent(s.shareBps)} · {s.reason}
            </li>
          ))}
        </ul>
      </section>
      <p className="text-xs text-slate-500">
        <Link to={closeDialogHref(searchParams)} className="text-brand-700 hover:underline">
          {m.revenue_close()}
        </Link>
      </p>
    </div>
  );
}
