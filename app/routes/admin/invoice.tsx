import { data, Form, Link, useNavigation, useSearchParams, type ShouldRevalidateFunction } from "react-router";
import type { Route } from "./+types/invoice";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { stepUpNeeded } from "~/.server/domains/admin/step-up";
import { adminInvoice, sendInvoiceReminder } from "~/.server/domains/admin/billing/invoice-detail";
import { reconcileInvoice } from "~/.server/domains/admin/billing/reconcile";
import { billingAction, billingIntent } from "~/.server/domains/admin/billing/actions";
import { nairobiDate } from "~/.server/domains/billing/periods";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { InvoiceView } from "~/components/billing/invoice-view";
import { AdminInvoiceStatusBadge } from "~/components/billing/invoice-history";
import { BackLink } from "~/components/ui/back-link";
import { Card, CardHeader } from "~/components/ui/card";
import { Button, buttonClass } from "~/components/ui/button";
import { FormError } from "~/components/ui/field";
import { ReconcileForm } from "~/components/admin/billing/reconcile-form";
import { formErrorsOf, replyFor } from "~/components/admin/billing/form-reply";
import { UrlDialog, closeDialogHref, dialogHref } from "~/components/ui/dialog";
import { Download } from "~/components/ui/icons";
import { formatInvoiceDateTime } from "~/lib/invoice";
import { Name } from "~/components/ui/name";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = ({ data: page }) => [
  { title: `${page?.invoice.document.number ?? "Invoice"} | Billing | Admin console | Jumbe` },
];

// A refused reconcile (409: another tab or administrator reconciled it first) reads the invoice again,
// so the page shows it reconciled beside the message; other refusals keep the page as it was.
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionStatus, defaultShouldRevalidate }) =>
  actionStatus === 409 || defaultShouldRevalidate;

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const invoice = await adminInvoice(platformScope(current), args.params.id);
  if (!invoice) throw data("Not Found", { status: 404 });
  return { invoice, stepUp: stepUpNeeded(current), today: nairobiDate(new Date()) };
}

export const action = (args: Route.ActionArgs) =>
  billingAction(args, `/admin/billing/invoices/${args.params.id}`, {
    reminder: billingIntent({
      fields: [],
      destructive: false,
      work: async ({ current, meta, id }) => {
        const sent = await sendInvoiceReminder(current, meta, id);
        return `Reminder for ${sent.number} e-mailed to ${sent.to}.`;
      },
    }),
    reconcile: billingIntent({
      fields: ["reference", "paymentDate", "note"],
      destructive: true,
      work: async ({ current, meta, id, values }) => {
        const done = await reconcileInvoice(current, meta, id, values);
        return `${done.number} reconciled: the wallet was credited once.`;
      },
    }),
  });

const METHOD_WORDS: Record<string, string> = { mpesa: "M-Pesa", c2b: "M-Pesa paybill", card: "Card", bank: "Bank transfer" };

export default function AdminInvoice({ loaderData, actionData }: Route.ComponentProps) {
  const { invoice, stepUp, today } = loaderData;
  const [searchParams] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const reconcileReply = replyFor(actionData, "reconcile");
  // A refused reconcile shows its form again (open), with or without JavaScript.
  const reconcileParams = reconcileReply ? new URLSearchParams({ dialog: "reconcile" }) : searchParams;
  const doc = invoice.document;
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <BackLink to="/admin/billing">Billing</BackLink>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="flex items-center gap-3 text-2xl font-bold tracking-tight">
          {doc.number} <AdminInvoiceStatusBadge status={invoice.status} creditedCents={doc.credited?.cents} />
        </h1>
        <div className="flex flex-wrap gap-2">
          <a href={`/admin/billing/invoices/${invoice.id}/pdf`} download className={buttonClass("secondary")}>
            <Download className="size-4" aria-hidden /> Download PDF
          </a>
          {invoice.remindable ? (
            <Form method="post" preventScrollReset>
              <Button type="submit" name="intent" value="reminder" variant="secondary" pending={busy}>
                Send Reminder
              </Button>
            </Form>
          ) : null}
          {invoice.reconcilable ? (
            <Link to={dialogHref(searchParams, "reconcile")} preventScrollReset className={buttonClass("primary")}>
              Reconcile
            </Link>
          ) : null}
        </div>
      </div>
      <FormError errors={formErrorsOf(replyFor(actionData, "reminder"))} />
      {/* A reconcile refused once the invoice can no longer be reconciled (another tab, another administrator): its form is gone, so say it here. */}
      {!invoice.reconcilable ? <FormError errors={formErrorsOf(reconcileReply)} /> : null}

      <Card aria-labelledby="account-title">
        <CardHeader id="account-title" title="Account" />
        <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-slate-500">Business</dt>
            <dd>
              <TextLink to={`/admin/users/${invoice.organizationId}`} weight="medium" underline="hover">
                <Name>{invoice.businessName}</Name>
              </TextLink>{" "}
              ·{" "}
              <TextLink to={`/admin/billing/wallets/${invoice.organizationId}`} underline="hover">
                Wallet
              </TextLink>
            </dd>
          </div>
          <div>
            <dt className="text-slate-500">Owner&apos;s e-mail</dt>
            <dd>{invoice.ownerEmail ?? "—"}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Payment method</dt>
            <dd>{invoice.paymentMethod ? (METHOD_WORDS[invoice.paymentMethod] ?? invoice.paymentMethod) : "—"}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Reconciled</dt>
            <dd data-testid="reconciled">
              {invoice.reconciled
                ? `Yes, ${invoice.reconciledAt ? formatInvoiceDateTime(invoice.reconciledAt) : ""}${invoice.reconciledBy ? ` by ${invoice.reconciledBy}` : ""}`
                : "No"}
              {invoice.reconciliationNote ? <span className="block text-slate-600">Notes: {invoice.reconciliationNote}</span> : null}
            </dd>
          </div>
          <div>
            <dt className="text-slate-500">Reminders sent</dt>
            <dd data-testid="reminders">
              {invoice.reminders}
              {invoice.lastReminderAt ? `, last ${formatInvoiceDateTime(invoice.lastReminderAt)}` : ""}
            </dd>
          </div>
          {invoice.creditsInvoice ? (
            <div>
              <dt className="text-slate-500">Credits</dt>
              <dd>
                <TextLink to={`/admin/billing/invoices/${invoice.creditsInvoice.id}`} underline="hover">
                  {invoice.creditsInvoice.number}
                </TextLink>
              </dd>
            </div>
          ) : null}
          {invoice.disputes.length ? (
            <div className="sm:col-span-2">
              <dt className="text-slate-500">Disputes</dt>
              <dd>
                <ul>
                  {invoice.disputes.map((d) => (
                    <li key={d.id}>
                      <TextLink to={`/admin/billing/disputes/${d.id}`} underline="hover">
                        {d.status === "open" ? "Open" : d.outcome === "credited" ? "Credited" : "Rejected"}: {d.reason}
                      </TextLink>
                    </li>
                  ))}
                </ul>
              </dd>
            </div>
          ) : null}
        </dl>
      </Card>

      <InvoiceView invoice={doc} />

      {invoice.reconcilable ? (
        <UrlDialog
          name="reconcile"
          searchParams={reconcileParams}
          title={`Reconcile ${doc.number}`}
          description="Match the transfer on the bank statement. The tenant's wallet is credited once, and the invoice marked paid."
        >
          <ReconcileForm
            invoiceId={invoice.id}
            reference={doc.payment.reference}
            today={today}
            cancel={closeDialogHref(searchParams)}
            result={reconcileReply}
            stepUp={stepUp}
            busy={busy}
          />
        </UrlDialog>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
