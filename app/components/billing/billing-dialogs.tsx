import type { BillingPageData } from "~/.server/domains/billing/page";
import { UrlDialog } from "~/components/ui/dialog";
import { closeDialogHref } from "~/lib/dialog-href";
import { PlanForm, TopupForm, type Result } from "./billing-forms";
import { DisputeForm } from "./dispute-form";
import { PaybillDetails } from "./paybill";
import { m } from "~/paraglide/messages";

/**
 * /billing's dialogs: top up the wallet (with the Paybill beside it), change the plan, dispute an
 * invoice. Only an owner or admin sees them, and only while the URL names one, so the page loads
 * them on demand in the browser (a chunk of their own); the server renders them in place.
 */
export function BillingDialogs({
  searchParams,
  summary,
  plans,
  presetAmount,
  memberPhone,
  paybill,
  disputing,
  resultOf,
  busy,
  presetHref,
}: {
  searchParams: URLSearchParams;
  summary: BillingPageData["summary"];
  plans: BillingPageData["plans"];
  presetAmount: number | null;
  memberPhone: string | null;
  paybill: { businessNumber: string; accountNumber: string };
  disputing: { id: string; number: string } | null;
  resultOf: (intent: string) => Result;
  busy: boolean;
  presetHref: (amount: number) => string;
}) {
  return (
    <>
      <UrlDialog
        name="topup"
        searchParams={searchParams}
        title={m.billing_topup_title()}
        description={summary.billingType === "postpaid" ? m.billing_topup_postpaid_description() : undefined}
      >
        <TopupForm
          key={presetAmount ?? "default"}
          result={resultOf("topup")}
          amount={presetAmount}
          phone={memberPhone}
          busy={busy}
          presetHref={presetHref}
        />
        <PaybillDetails paybill={paybill} level={3} className="mt-5" />
      </UrlDialog>
      <UrlDialog name="plan" searchParams={searchParams} title={m.billing_change_plan()}>
        <PlanForm
          result={resultOf("plan")}
          plans={plans}
          current={`${summary.nextPlan?.plan.toLowerCase() ?? summary.plan.toLowerCase()}/${summary.nextPlan?.billingType ?? summary.billingType}`}
          nextPeriod={summary.nextBillingDate}
          busy={busy}
        />
      </UrlDialog>
      {disputing ? (
        <UrlDialog name="dispute" searchParams={searchParams} title={m.billing_dispute_number({ number: disputing.number })}>
          <DisputeForm
            result={resultOf("dispute")}
            invoiceId={disputing.id}
            number={disputing.number}
            action={`/billing?dialog=dispute&invoice=${disputing.id}`}
            cancelTo={closeDialogHref(searchParams)}
            busy={busy}
          />
        </UrlDialog>
      ) : null}
    </>
  );
}
