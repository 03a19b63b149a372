import type { PermissionHandle } from "~/lib/permissions";
import { data, Form, useNavigation, useSearchParams, type ShouldRevalidateFunction } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/invoice";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
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
import { formatInvoiceDate, formatInvoiceDateTime, formatKes } from "~/lib/invoice";
import { amountDueCents, transferReference } from "~/lib/invoice-document";
import { Name } from "~/components/ui/name";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";
import { paymentMethodWords } from "~/lib/admin-billing";

// Money: the console's owners and finance staff (issue 74, decision 112); 404 to support staff.
export const handle: PermissionHandle = { permission: "platform:money" };

export const meta: Route.MetaFunction = ({ data: page }) => [
  { title: m.admin_title({ page: `${page?.invoice.document.number ?? m.admin_column_invoice()} | ${m.admin_tab_billing()}` }) },
];

// A refused reconcile (409: another tab or administrator reconciled it first) reads the invoice again,
// so the page shows it reconciled beside the message; other refusals keep the page as it was.
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionStatus, defaultShouldRevalidate }) =>
  actionStatus === 409 || defaultShouldRevalidate;

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
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
        return m.admin_invoice_reminder_sent({ number: sent.number, to: sent.to });
      },
    }),
    reconcile: billingIntent({
      fields: ["reference", "amount", "paymentDate", "note"],
      destructive: true,
      work: async ({ current, meta, id, values }) => {
        const done = await reconcileInvoice(current, meta, id, values);
        return m.admin_invoice_reconciled_toast({ number: done.number });
      },
    }),
  });

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
      <BackLink to="/admin/billing">{m.admin_tab_billing()}</BackLink>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="flex items-center gap-3 text-2xl font-bold tracking-tight">
          {doc.number} <AdminInvoiceStatusBadge status={invoice.status} creditedCents={doc.credited?.cents} />
        </h1>
        <div className="flex flex-wrap gap-2">
          <a href={`/admin/billing/invoices/${invoice.id}/pdf`} download className={buttonClass("secondary")}>
            <Download className="size-4" aria-hidden /> {m.admin_invoice_download_pdf()}
          </a>
          {invoice.remindable ? (
            <Form method="post" preventScrollReset>
              <Button type="submit" name="intent" value="reminder" variant="secondary" pending={busy}>
                {m.admin_invoice_send_reminder()}
              </Button>
            </Form>
          ) : null}
          {invoice.reconcilable ? (
            <Link to={dialogHref(searchParams, "reconcile")} preventScrollReset className={buttonClass("primary")}>
              {m.admin_reconcile()}
            </Link>
          ) : null}
        </div>
      </div>
      <FormError errors={formErrorsOf(replyFor(actionData, "reminder"))} />
      {/* A reconcile refused once the invoice can no longer be reconciled (another tab, another administrator): its form is gone, so say it here. */}
      {!invoice.reconcilable ? <FormError errors={formErrorsOf(reconcileReply)} /> : null}

      <Card aria-labelledby="account-title">
        <CardHeader id="account-title" title={m.admin_account()} />
        <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-slate-500">{m.admin_column_business()}</dt>
            <dd>
              <TextLink to={`/admin/users/${invoice.organizationId}`} weight="medium" underline="hover">
                <Name>{invoice.businessName}</Name>
              </TextLink>{" "}
              ·{" "}
              <TextLink to={`/admin/billing/wallets/${invoice.organizationId}`} underline="hover">
                {m.admin_billing_paid_by_wallet()}
              </TextLink>
            </dd>
          </div>
          <div>
            <dt className="text-slate-500">{m.admin_invoice_owner_email()}</dt>
            <dd>{invoice.ownerEmail ?? "—"}</dd>
          </div>
          <div>
            <dt className="text-slate-500">{m.admin_billing_column_method()}</dt>
            <dd>{invoice.paymentMethod ? paymentMethodWords(invoice.paymentMethod) : "—"}</dd>
          </div>
          <div>
            <dt className="text-slate-500">{m.admin_billing_column_reconciled()}</dt>
            <dd data-testid="reconciled">
              {invoice.reconciled
                ? `${m.admin_invoice_reconciled_yes({ when: invoice.reconciledAt ? formatInvoiceDateTime(invoice.reconciledAt) : "" })}${
                    invoice.reconciledBy ? ` ${m.admin_by({ who: invoice.reconciledBy })}` : ""
                  }`
                : m.admin_no()}
              {invoice.valueDate ? (
                <span className="block text-slate-600" data-testid="value-date">
                  {m.admin_invoice_value_date({ date: formatInvoiceDate(invoice.valueDate) })}
                </span>
              ) : null}
              {invoice.bankReference ? (
                <span className="block text-slate-600" data-testid="bank-reference">
                  {m.admin_invoice_bank_reference({ reference: invoice.bankReference })}
                </span>
              ) : null}
              {invoice.reconciliationNote ? (
                <span className="block text-slate-600">{m.admin_invoice_notes({ notes: invoice.reconciliationNote })}</span>
              ) : null}
            </dd>
          </div>
          <div>
            <dt className="text-slate-500">{m.admin_invoice_reminders()}</dt>
            <dd data-testid="reminders">
              {invoice.lastReminderAt
                ? m.admin_invoice_reminders_last({ count: invoice.reminders, when: formatInvoiceDateTime(invoice.lastReminderAt) })
                : invoice.reminders}
            </dd>
          </div>
          {invoice.creditsInvoice ? (
            <div>
              <dt className="text-slate-500">{m.admin_invoice_credits()}</dt>
              <dd>
                <TextLink to={`/admin/billing/invoices/${invoice.creditsInvoice.id}`} underline="hover">
                  {invoice.creditsInvoice.number}
                </TextLink>
              </dd>
            </div>
          ) : null}
          {invoice.disputes.length ? (
            <div className="sm:col-span-2">
              <dt className="text-slate-500">{m.admin_disputes()}</dt>
              <dd>
                <ul>
                  {invoice.disputes.map((d) => (
                    <li key={d.id}>
                      <TextLink to={`/admin/billing/disputes/${d.id}`} underline="hover">
                        {m.admin_invoice_dispute_line({
                          status:
                            d.status === "open"
                              ? m.admin_dispute_open()
                              : d.outcome === "credited"
                                ? m.admin_dispute_credited()
                                : m.admin_dispute_rejected(),
                          reason: d.reason,
                        })}
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
          title={m.admin_reconcile_number({ number: doc.number })}
          description={m.admin_invoice_reconcile_intro()}
        >
          <ReconcileForm
            invoiceId={invoice.id}
            reference={transferReference(doc)}
            amountDue={formatKes(amountDueCents(doc))}
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
