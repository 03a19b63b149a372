import { data, Link } from "react-router";
import type { Route } from "./+types/payment";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
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

export const handle: PermissionHandle = { permission: "billing:view" };

export const meta: Route.MetaFunction = () => [{ title: "Payment | Billing | Jumbe" }];

/** One top-up as it goes: waiting for the phone (or the bank), then paid or failed. Another organisation's: 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "billing:view");
  const page = await paymentPageData(current.organization.id, args.params.id);
  if (!page) throw data("Not Found", { status: 404 });
  return {
    ...page,
    bank: page.payment.method === "bank" ? env().bankTransfer : null,
    // The other way to pay by M-Pesa, beside a prompt that is waiting or did not go through.
    paybill: page.payment.method === "mpesa" && page.payment.status !== "completed" ? paybillFor(current.organization) : null,
  };
}

const METHOD_TITLES = { mpesa: "M-Pesa top-up", c2b: "M-Pesa paybill payment", card: "Card top-up", bank: "Bank transfer" } as const;

export default function Payment({ loaderData }: Route.ComponentProps) {
  const { payment, phone, reference, invoice, balanceCents, bank, paybill } = loaderData;
  const pending = payment.status === "pending";
  // With JavaScript: the payment's state every 2 s, and the page's data again once it is settled.
  usePaymentWait(payment.id, pending && payment.method !== "bank");
  const tryAgain = `/billing?dialog=topup&amount=${Math.round(payment.amount)}`;
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <BackLink to="/billing">Billing &amp; Subscription</BackLink>
      <PageTitle>
        {METHOD_TITLES[payment.method]}: {formatKes(payment.amountCents)}
      </PageTitle>
      <Card aria-live="polite" data-testid="payment-state" data-status={payment.status}>
        {pending && payment.method !== "bank" ? (
          <noscript>
            <meta httpEquiv="refresh" content="5" />
          </noscript>
        ) : null}
        {pending && payment.method === "mpesa" ? (
          <>
            <CardHeader title={`Check your phone: approve ${kesWords(payment.amountCents)} to Jumbe with your M-Pesa PIN`} />
            <CardBody className="space-y-3 text-sm text-slate-700">
              <p className="flex items-center gap-2">
                <Smartphone className="size-5 text-brand-600" aria-hidden /> The prompt went to {phone ? `+${phone}` : "your phone"}.
              </p>
              <p>This page updates by itself once M-Pesa answers. Nothing is taken until you enter your PIN.</p>
              <TextLink to="." weight="medium" underline="hover">
                Check again
              </TextLink>
              {paybill ? (
                <PaybillDetails
                  paybill={paybill}
                  amountCents={payment.amountCents}
                  title="No prompt? Pay with M-Pesa Paybill instead"
                  note="What you send goes to your wallet once M-Pesa confirms it. Paying here and approving the prompt as well puts both in your wallet."
                  level={3}
                  className="mt-2"
                />
              ) : null}
            </CardBody>
          </>
        ) : null}
        {pending && payment.method === "card" ? (
          <>
            <CardHeader title="Waiting for the card payment to be confirmed" />
            <CardBody className="space-y-3 text-sm text-slate-700">
              <p>This page updates by itself once Paystack confirms the payment.</p>
              <TextLink to="." weight="medium" underline="hover">
                Check again
              </TextLink>
            </CardBody>
          </>
        ) : null}
        {pending && payment.method === "bank" && bank ? (
          <>
            <CardHeader title="Pay by bank transfer" description="Your wallet is credited once the transfer reaches our account." />
            <CardBody className="space-y-4">
              <SummaryList
                items={[
                  { label: "Amount", value: formatKes(payment.amountCents) },
                  { label: "Reference to quote", value: <span data-testid="bank-reference">{reference}</span> },
                  { label: "Bank", value: bank.bank },
                  { label: "Branch", value: bank.branch },
                  { label: "Account name", value: bank.accountName },
                  { label: "Account number", value: bank.accountNumber },
                ]}
              />
              <p className="text-sm text-slate-700">Quote the reference exactly, so we can match your transfer to your wallet.</p>
              {invoice ? (
                <Link to={`/billing/invoices/${invoice.id}`} className="text-sm font-medium text-brand-700 hover:underline">
                  View the pending invoice {invoice.number}
                </Link>
              ) : null}
            </CardBody>
          </>
        ) : null}
        {payment.status === "completed" ? (
          <>
            <div className="flex items-center gap-2">
              <CheckCircle2 className="size-6 text-brand-600" aria-hidden />
              <CardHeader title={`Paid: ${formatKes(payment.amountCents)} received`} />
            </div>
            <CardBody className="space-y-3 text-sm text-slate-700">
              {payment.receipt ? <p>M-Pesa receipt {payment.receipt}.</p> : reference ? <p>Reference {reference}.</p> : null}
              <p>
                Your wallet balance is now <strong data-testid="payment-balance">{formatKes(balanceCents)}</strong>.
              </p>
              {invoice ? (
                <TextLink to={`/billing/invoices/${invoice.id}`} weight="medium" underline="hover">
                  View receipt {invoice.number}
                </TextLink>
              ) : null}
            </CardBody>
          </>
        ) : null}
        {payment.status === "failed" ? (
          <>
            <div className="flex items-center gap-2">
              <XCircle className="size-6 text-red-600" aria-hidden />
              <CardHeader title="The payment did not go through" />
            </div>
            <CardBody className="space-y-3">
              <Notice tone="warning">{payment.reason ?? "The payment was not completed. Nothing was charged."}</Notice>
              <ButtonLink to={tryAgain}>Try again</ButtonLink>
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
