import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/payment";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { env } from "~/.server/infrastructure/config/env";
import { paymentPageData } from "~/.server/domains/billing/page";
import { paybillFor } from "~/.server/domains/billing/mpesa";
import { formatKes } from "~/lib/invoice";
import { kesWords } from "~/lib/billing-words";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { usePaymentWait } from "~/components/billing/use-payment-wait";
import { PaybillDetails } from "~/components/billing/paybill";
import { BackLink } from "~/components/ui/back-link";
import { ButtonLink } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { CheckCircle2, Smartphone, XCircle } from "~/components/ui/icons";
import { Notice } from "~/components/ui/notice";
import { SummaryList } from "~/components/ui/summary";
import type { PermissionHandle } from "~/lib/permissions";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "billing:view" };

export const meta: Route.MetaFunction = () => [{ title: m.billing_payment_meta_title() }];

/** One top-up as it goes: waiting for the phone (or the bank), then paid or failed. Another organisation's: 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const page = await paymentPageData(current.organization.id, args.params.id);
  if (!page) throw data("Not Found", { status: 404 });
  return {
    ...page,
    bank: page.payment.method === "bank" ? env().bankTransfer : null,
    // The other way to pay by M-Pesa, beside a prompt that is waiting or did not go through.
    paybill: page.payment.method === "mpesa" && page.payment.status !== "completed" ? paybillFor(current.organization) : null,
  };
}

/** What the payment is, as the page's title says it (read when the page renders). */
function methodTitle(method: "mpesa" | "c2b" | "card" | "bank") {
  if (method === "c2b") return m.billing_payment_title_c2b();
  if (method === "card") return m.billing_payment_title_card();
  if (method === "bank") return m.billing_payment_title_bank();
  return m.billing_payment_title_mpesa();
}

export default function Payment({ loaderData }: Route.ComponentProps) {
  const { payment, phone, reference, invoice, balanceCents, bank, paybill } = loaderData;
  const pending = payment.status === "pending";
  // With JavaScript: the payment's state every 2 s, and the page's data again once it is settled.
  usePaymentWait(payment.id, pending && payment.method !== "bank");
  const tryAgain = `/billing?dialog=topup&amount=${Math.round(payment.amount)}`;
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <BackLink to="/billing">{m.billing_title()}</BackLink>
      <PageTitle>{m.billing_payment_heading({ method: methodTitle(payment.method), amount: formatKes(payment.amountCents) })}</PageTitle>
      <Card aria-live="polite" data-testid="payment-state" data-status={payment.status}>
        {pending && payment.method !== "bank" ? (
          <noscript>
            <meta httpEquiv="refresh" content="5" />
          </noscript>
        ) : null}
        {pending && payment.method === "mpesa" ? (
          <>
            <CardHeader title={m.billing_payment_check_phone({ amount: kesWords(payment.amountCents) })} />
            <CardBody className="space-y-3 text-sm text-slate-700">
              <p className="flex items-center gap-2">
                <Smartphone className="size-5 text-brand-600" aria-hidden />{" "}
                {phone ? m.billing_payment_prompt_sent_to({ phone: `+${phone}` }) : m.billing_payment_prompt_sent_to_your_phone()}
              </p>
              <p>{m.billing_payment_mpesa_wait_note()}</p>
              <TextLink to="." weight="medium" underline="hover">
                {m.billing_payment_check_again()}
              </TextLink>
              {paybill ? (
                <PaybillDetails
                  paybill={paybill}
                  amountCents={payment.amountCents}
                  title={m.billing_payment_no_prompt_title()}
                  note={m.billing_payment_no_prompt_note()}
                  level={3}
                  className="mt-2"
                />
              ) : null}
            </CardBody>
          </>
        ) : null}
        {pending && payment.method === "card" ? (
          <>
            <CardHeader title={m.billing_payment_card_waiting()} />
            <CardBody className="space-y-3 text-sm text-slate-700">
              <p>{m.billing_payment_card_wait_note()}</p>
              <TextLink to="." weight="medium" underline="hover">
                {m.billing_payment_check_again()}
              </TextLink>
            </CardBody>
          </>
        ) : null}
        {pending && payment.method === "bank" && bank ? (
          <>
            <CardHeader title={m.billing_pay_by_bank_transfer()} description={m.billing_payment_bank_description()} />
            <CardBody className="space-y-4">
              <SummaryList
                items={[
                  { label: m.billing_amount(), value: formatKes(payment.amountCents) },
                  { label: m.billing_payment_reference_to_quote(), value: <span data-testid="bank-reference">{reference}</span> },
                  { label: m.billing_bank(), value: bank.bank },
                  { label: m.billing_branch(), value: bank.branch },
                  { label: m.billing_account_name(), value: bank.accountName },
                  { label: m.billing_account_number(), value: bank.accountNumber },
                ]}
              />
              <p className="text-sm text-slate-700">{m.billing_payment_quote_reference()}</p>
              {invoice ? (
                <Link to={`/billing/invoices/${invoice.id}`} className="text-sm font-medium text-brand-700 hover:underline">
                  {m.billing_payment_view_pending_invoice({ number: invoice.number })}
                </Link>
              ) : null}
            </CardBody>
          </>
        ) : null}
        {payment.status === "completed" ? (
          <>
            <div className="flex items-center gap-2">
              <CheckCircle2 className="size-6 text-brand-600" aria-hidden />
              <CardHeader title={m.billing_payment_paid_received({ amount: formatKes(payment.amountCents) })} />
            </div>
            <CardBody className="space-y-3 text-sm text-slate-700">
              {payment.receipt ? (
                <p>{m.billing_payment_mpesa_receipt({ receipt: payment.receipt })}</p>
              ) : reference ? (
                <p>{m.billing_payment_reference({ reference })}</p>
              ) : null}
              <p>
                {m.billing_payment_balance_now_before()} <strong data-testid="payment-balance">{formatKes(balanceCents)}</strong>
                {m.billing_payment_balance_now_after()}
              </p>
              {invoice ? (
                <TextLink to={`/billing/invoices/${invoice.id}`} weight="medium" underline="hover">
                  {m.billing_payment_view_receipt({ number: invoice.number })}
                </TextLink>
              ) : null}
            </CardBody>
          </>
        ) : null}
        {payment.status === "failed" ? (
          <>
            <div className="flex items-center gap-2">
              <XCircle className="size-6 text-red-600" aria-hidden />
              <CardHeader title={m.billing_payment_failed_title()} />
            </div>
            <CardBody className="space-y-3">
              <Notice tone="warning">{payment.reason ?? m.billing_payment_failed_default()}</Notice>
              <ButtonLink to={tryAgain}>{m.billing_payment_try_again()}</ButtonLink>
              {paybill ? <PaybillDetails paybill={paybill} amountCents={payment.amountCents} level={3} className="mt-2" /> : null}
            </CardBody>
          </>
        ) : null}
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
