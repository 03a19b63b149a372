import { IntentForm, replyFor, StatusBadge, type RevenueActionData } from "./parts";
import { formatKes } from "~/lib/invoice";
import { longMonth } from "~/lib/billing-words";
import { m } from "~/paraglide/messages";

/** "November 2026" from "2026-11-01", in the page's language. */
export function periodWords(period: string) {
  return longMonth(period.slice(0, 7));
}

/**
 * Process Settlement: each settlement still to pay (pending or failed: a failed one may be tried
 * again) with its form — M-Pesa sends a payout, a bank transfer is marked paid with the bank's
 * reference — and an M-Pesa payout waiting for a second administrator's approval. Each takes the step-up.
 */
export function SettleForm({
  settlements,
  stepUp,
  reply,
}: {
  settlements: {
    id: string;
    period: string;
    netCents: number;
    withholdingCents: number;
    carriedInCents: number;
    carriedOutCents: number;
    payableCents: number;
    status: string;
    payoutMethod: string;
    failureReason: string | null;
    awaitingApprovalBy: string | null;
  }[];
  stepUp: boolean;
  reply: RevenueActionData;
}) {
  const open = settlements.filter((s) => s.status === "pending" || s.status === "failed" || s.awaitingApprovalBy);
  if (!open.length) return <p className="text-sm text-slate-600">{m.revenue_settle_none()}</p>;
  return (
    <ul className="space-y-4">
      {open.map((s) => (
        <li key={s.id} className="space-y-2 rounded-lg border border-slate-200 p-3" data-testid="settle-item">
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <strong>{periodWords(s.period)}</strong> <StatusBadge status={s.status} />
            <span>
              {m.revenue_settle_pays({
                amount: formatKes(s.payableCents),
                net: formatKes(s.netCents),
                withheld: formatKes(s.withholdingCents),
                carriedIn: formatKes(s.carriedInCents),
                carriedOut: formatKes(s.carriedOutCents),
              })}
            </span>
          </p>
          {s.failureReason ? (
            <p className="text-sm break-words text-red-800">{m.revenue_settle_failed({ reason: s.failureReason })}</p>
          ) : null}
          <p className="text-sm">
            <a href={`/revenue-share/settlements/${s.id}/statement`} className="text-brand-700 hover:underline">
              {m.revenue_statement()}
            </a>
          </p>
          {s.awaitingApprovalBy ? (
            <IntentForm
              intent="approve-payout"
              hidden={{ settlement: s.id }}
              submit={m.revenue_approve_payout()}
              variant="primary"
              stepUp={stepUp}
              result={replyFor(reply, "approve-payout")}
            />
          ) : (
            <IntentForm
              intent="settle"
              hidden={{ settlement: s.id }}
              submit={
                s.payoutMethod === "bank" ? m.revenue_mark_paid() : s.status === "failed" ? m.revenue_retry_mpesa() : m.revenue_pay_mpesa()
              }
              variant="primary"
              reference={s.payoutMethod === "bank"}
              stepUp={stepUp}
              result={replyFor(reply, "settle")}
            />
          )}
        </li>
      ))}
    </ul>
  );
}
