import { lazy, Suspense } from "react";
import { data, redirect, redirectDocument, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/index";
import { can, requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { billingPageData } from "~/.server/domains/billing/page";
import { paybillFor, startMpesaTopup } from "~/.server/domains/billing/mpesa";
import { startCardTopup } from "~/.server/domains/billing/card";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { changePlan, saveWalletAlerts } from "~/.server/domains/billing/settings";
import { disputeAction, disputeInvalid, DisputeFormSchema, postedInvoice } from "~/.server/domains/billing/page-actions";
import { PlanChoiceSchema, TopupSchema, WalletAlertsSchema } from "~/lib/schemas/billing";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { WalletAlertsForm } from "~/components/billing/wallet-alerts-form";
import { BillingDialogs as ServerBillingDialogs } from "~/components/billing/billing-dialogs";
import { InvoiceHistory } from "~/components/billing/invoice-history";
import { ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { dialogHref } from "~/lib/dialog-href";
import { Toast } from "~/components/ui/toast";
import { Wallet } from "~/components/ui/icons";
import { BillingSummaryCards } from "~/components/billing/summary-cards";
import { SpendCard } from "~/components/billing/spend-card";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";
import { assistantBillingUsage } from "~/.server/domains/automations/assistant/usage";
import { AssistantUsageCard } from "~/components/billing/assistant-usage-card";

// The page's forms check billing:manage.
// Plan, wallet, usage and invoices with URL dialogs: sent as a document without React (decision 066); app/assets/forms.js makes the open dialog modal and holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "billing:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.billing_meta_title() }];

/** Billing & Subscription (spec section 2): owners and admins see it; the same roles change it. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const [page, assistantUsage] = await Promise.all([
    billingPageData(current.organization.id),
    assistantBillingUsage(current.organization.id),
  ]);
  const params = args.url.searchParams;
  const disputing = page.invoices.find((i) => i.id === params.get("invoice") && disputable(i.status)) ?? null;
  const amount = Number(params.get("amount"));
  return {
    ...page,
    assistantUsage,
    canManage: can(current.role, "billing:manage"),
    memberPhone: current.user.phoneNumber,
    paybill: paybillFor(current.organization),
    presetAmount: Number.isSafeInteger(amount) && amount > 0 ? amount : null,
    disputing: disputing ? { id: disputing.id, number: disputing.number } : null,
  };
}

const disputable = (status: string) => status === "pending" || status === "overdue" || status === "paid";

/** A form that does not fit: the same form again with its errors (422), the page told which one it was. */
const unfit = <Result,>(submission: { reply: () => Result }, intent: string) => formFailure(submission.reply(), 422, undefined, { intent });

/** Top-ups, the plan, the wallet's alerts and disputes: owners and admins (billing:manage). */
export async function action(args: Route.ActionArgs) {
  const actorOf = (current: CurrentUser) => ({ organizationId: current.organization.id, userId: current.user.id });
  return intentAction(args, {
    permission: "billing:manage",
    intents: {
      topup: intent(
        TopupSchema,
        async ({ value: { amount, method = "mpesa", phone }, submission, user, intent: posted }) => {
          const actor = actorOf(user);
          try {
            if (method === "card") {
              const started = await startCardTopup({ ...actor, email: user.user.email }, { amount });
              // Paystack's hosted checkout is another site (the sandbox's is not one of the app's routes): a document load.
              return started.authorizationUrl
                ? redirectDocument(started.authorizationUrl)
                : redirect(`/billing/payments/${started.payment.id}`);
            }
            if (method === "bank") {
              const started = await startBankTransfer(actor, { amount });
              return redirect(`/billing/payments/${started.payment.id}`);
            }
            const payment = await startMpesaTopup(actor, { amount, phone });
            return redirect(`/billing/payments/${payment.id}`);
          } catch (error) {
            const refusal = refusalOf(error);
            // The form has no e-mail field: that refusal is said above it. An outside system's failure answers 503.
            const field = refusal.field === "email" ? null : refusal.field;
            const status = refusal.status >= 500 ? 503 : field ? 422 : refusal.status;
            return refusalReply(submission, refusal, { field, status, extra: { intent: posted } });
          }
        },
        { invalid: unfit },
      ),
      plan: intent(
        PlanChoiceSchema,
        async ({ value, submission, user, intent: posted }) => {
          const [plan, billingType] = value.choice.split("/");
          try {
            await changePlan(actorOf(user), { plan, billingType });
          } catch (error) {
            return refusalReply(submission, refusalOf(error), { field: "choice", status: 422, extra: { intent: posted } });
          }
          return redirectWithToast("/billing", "success", m.billing_plan_saved_toast());
        },
        { invalid: unfit },
      ),
      alerts: intent(
        WalletAlertsSchema,
        async ({ value: v, submission, user, intent: posted }) => {
          try {
            await saveWalletAlerts(actorOf(user), {
              lowBalance: v.lowBalance,
              autoTopupBelow: v.autoTopupBelow,
              autoTopupAmount: v.autoTopupAmount,
              autoTopupPhone: v.autoTopupPhone,
            });
          } catch (error) {
            const refusal = refusalOf(error);
            return refusalReply(submission, refusal, { field: refusal.field ?? "lowBalance", status: 422, extra: { intent: posted } });
          }
          return redirectWithToast("/billing", "success", m.billing_alerts_saved_toast());
        },
        { invalid: unfit },
      ),
      dispute: intent(
        DisputeFormSchema,
        ({ value, submission, user, intent: posted }) =>
          disputeAction(actorOf(user), value.invoice, value.reason, submission, posted, "/billing"),
        { invalid: (submission, posted) => disputeInvalid(submission, posted, postedInvoice(submission)) },
      ),
    },
    unknown: () => {
      throw data(m.billing_unknown_action(), { status: 400 });
    },
  });
}

// The top-up, plan and dispute dialogs: open only while the URL names one, so in the browser a chunk
// loaded when one opens (about 3 kB of /billing's first visit); the server renders them in place
// (decision 061's pattern, as the closing banner's).
const BILLING_DIALOGS: readonly string[] = ["topup", "plan", "dispute"];
const BillingDialogs = import.meta.env.SSR
  ? ServerBillingDialogs
  : lazy(() => import("~/components/billing/billing-dialogs").then((module) => ({ default: module.BillingDialogs })));

export default function Billing({ loaderData, actionData }: Route.ComponentProps) {
  const { summary, plans, invoices, spend, alerts, canManage, memberPhone, paybill, presetAmount, disputing, assistantUsage } = loaderData;
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const resultOf = (intent: string) =>
    actionData && "intent" in actionData && actionData.intent === intent ? actionData.result : undefined;
  const topupHref = dialogHref(searchParams, "topup");
  const presetHref = (amount: number) => {
    const next = new URLSearchParams(searchParams);
    next.set("dialog", "topup");
    next.set("amount", String(amount));
    return `?${next.toString()}`;
  };
  const disputeHref = (invoiceId: string) => {
    const next = new URLSearchParams(searchParams);
    next.set("dialog", "dispute");
    next.set("invoice", invoiceId);
    return `?${next.toString()}`;
  };
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{m.billing_title()}</PageTitle>
          <p className="mt-1 text-sm text-slate-600">{m.billing_intro()}</p>
        </div>
        {canManage ? (
          <ButtonLink to={topupHref} preventScrollReset>
            <Wallet className="size-4" aria-hidden /> {m.billing_topup_button()}
          </ButtonLink>
        ) : null}
      </div>

      <BillingSummaryCards summary={summary} plans={plans} canManage={canManage} searchParams={searchParams} />

      <SpendCard spend={spend} />

      {assistantUsage ? <AssistantUsageCard usage={assistantUsage} /> : null}

      <InvoiceHistory invoices={invoices} disputeHref={canManage ? disputeHref : null} />

      {canManage ? (
        <Card aria-labelledby="alerts-title">
          <CardHeader id="alerts-title" title={m.billing_alerts_title()} description={m.billing_alerts_description()} />
          <WalletAlertsForm result={resultOf("alerts")} alerts={alerts} busy={busy} />
        </Card>
      ) : null}

      {canManage && BILLING_DIALOGS.includes(searchParams.get("dialog") ?? "") ? (
        <Suspense fallback={null}>
          <BillingDialogs
            searchParams={searchParams}
            summary={summary}
            plans={plans}
            presetAmount={presetAmount}
            memberPhone={memberPhone}
            paybill={paybill}
            disputing={disputing}
            resultOf={resultOf}
            busy={busy}
            presetHref={presetHref}
          />
        </Suspense>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
