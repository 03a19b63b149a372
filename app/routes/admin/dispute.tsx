import type { PermissionHandle } from "~/lib/permissions";
import { data, useNavigation } from "react-router";
import type { Route } from "./+types/dispute";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { stepUpNeeded } from "~/.server/domains/admin/step-up";
import { adminDispute, creditDispute, rejectDispute } from "~/.server/domains/admin/billing/disputes";
import { adminInvoice } from "~/.server/domains/admin/billing/invoice-detail";
import { billingAction, billingIntent } from "~/.server/domains/admin/billing/actions";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { InvoiceView } from "~/components/billing/invoice-view";
import { AdminInvoiceStatusBadge } from "~/components/billing/invoice-history";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { CreditDisputeForm, RejectDisputeForm } from "~/components/admin/billing/dispute-forms";
import { replyFor } from "~/components/admin/billing/form-reply";
import { formatInvoiceDateTime, formatKes } from "~/lib/invoice";
import { withoutBidiControls } from "~/lib/names";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";
import { invoiceStatusWords } from "~/lib/admin-billing";

// Money: the console's owners and finance staff (issue 74, decision 112); 404 to support staff.
export const handle: PermissionHandle = { permission: "platform:money" };

export const meta: Route.MetaFunction = ({ data: page }) => [
  {
    title: m.admin_title({
      page: `${page ? m.admin_dispute_title({ number: page.invoice.document.number }) : m.admin_dispute_title_unknown()} | ${m.admin_tab_billing()}`,
    }),
  },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const dispute = await adminDispute(scope, args.params.id);
  if (!dispute) throw data("Not Found", { status: 404 });
  const invoice = await adminInvoice(scope, dispute.invoiceId);
  if (!invoice) throw data("Not Found", { status: 404 });
  return { dispute, invoice, stepUp: stepUpNeeded(current) };
}

// Issuing a credit note moves money and rejecting closes the tenant's dispute: both take the step-up.
export const action = (args: Route.ActionArgs) =>
  billingAction(args, `/admin/billing/disputes/${args.params.id}`, {
    credit: billingIntent({
      fields: ["amount", "note"],
      destructive: true,
      work: async ({ current, meta, id, values }) => {
        const done = await creditDispute(current, meta, id, values);
        const issued = { number: done.creditNoteNumber, amount: formatKes(done.amountCents) };
        if (done.voided) return m.admin_dispute_credited_void_toast({ ...issued, invoice: done.invoiceNumber });
        if (done.dueCents !== null)
          return m.admin_dispute_credited_due_toast({ ...issued, invoice: done.invoiceNumber, due: formatKes(done.dueCents) });
        if (done.toPayer) return m.admin_dispute_credited_payer_toast(issued);
        return m.admin_dispute_credited_wallet_toast(issued);
      },
    }),
    reject: billingIntent({
      fields: ["note"],
      destructive: true,
      work: async ({ current, meta, id, values }) => {
        const done = await rejectDispute(current, meta, id, values);
        return m.admin_dispute_rejected_toast({ number: done.invoiceNumber, status: invoiceStatusWords(done.status) });
      },
    }),
  });

export default function AdminDispute({ loaderData, actionData }: Route.ComponentProps) {
  const { dispute, invoice, stepUp } = loaderData;
  const busy = useNavigation().state === "submitting";
  const doc = invoice.document;
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <BackLink to="/admin/billing">{m.admin_tab_billing()}</BackLink>
      <h1 className="flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight">
        {m.admin_dispute_title({ number: doc.number })}
        {dispute.status === "open" ? (
          <Badge tone="info">{m.admin_dispute_open()}</Badge>
        ) : (
          <Badge tone={dispute.outcome === "credited" ? "success" : "neutral"}>
            {dispute.outcome === "credited" ? m.admin_dispute_credited() : m.admin_dispute_rejected()}
          </Badge>
        )}
      </h1>

      <Card aria-labelledby="reason-title">
        <CardHeader
          id="reason-title"
          title={m.admin_dispute_reason_title()}
          description={`${m.admin_dispute_raised({ name: withoutBidiControls(invoice.businessName), when: formatInvoiceDateTime(dispute.raisedAt) })}${
            dispute.raisedBy ? ` ${m.admin_by({ who: dispute.raisedBy })}` : ""
          }.`}
        />
        <p className="mt-3 break-words whitespace-pre-line text-slate-900" data-testid="dispute-reason">
          {dispute.reason}
        </p>
        <p className="mt-3 text-sm text-slate-600">
          {m.admin_column_invoice()}{" "}
          <TextLink to={`/admin/billing/invoices/${invoice.id}`} weight="medium" underline="hover">
            {doc.number}
          </TextLink>{" "}
          <AdminInvoiceStatusBadge status={invoice.status} />,{" "}
          {m.admin_dispute_before({ amount: formatKes(doc.totalCents), status: invoiceStatusWords(dispute.previousStatus) })}
        </p>
      </Card>

      {dispute.status === "resolved" ? (
        <Card aria-labelledby="resolution-title" data-testid="dispute-resolution">
          <CardHeader
            id="resolution-title"
            title={dispute.outcome === "credited" ? m.admin_dispute_resolved_credit() : m.admin_dispute_rejected()}
            description={`${dispute.resolvedAt ? formatInvoiceDateTime(dispute.resolvedAt) : ""}${
              dispute.resolvedBy ? ` ${m.admin_by({ who: dispute.resolvedBy })}` : ""
            }`}
          />
          {dispute.creditNote ? (
            <p className="mt-2 text-sm">
              {m.admin_billing_paid_by_credit_note()}{" "}
              <TextLink to={`/admin/billing/invoices/${dispute.creditNote.id}`} weight="medium" underline="hover">
                {dispute.creditNote.number}
              </TextLink>
            </p>
          ) : null}
          {dispute.resolution ? (
            <p className="mt-2 text-sm break-words">{m.admin_dispute_note_to_tenant({ note: dispute.resolution })}</p>
          ) : null}
        </Card>
      ) : (
        <div className="grid gap-6 md:grid-cols-2">
          <CreditDisputeForm
            previousStatus={dispute.previousStatus}
            toppedUp={doc.kind === "topup" || doc.kind === "bank_transfer"}
            number={doc.number}
            totalCents={doc.totalCents}
            result={replyFor(actionData, "credit")}
            stepUp={stepUp}
            busy={busy}
          />
          <RejectDisputeForm previousStatus={dispute.previousStatus} result={replyFor(actionData, "reject")} stepUp={stepUp} busy={busy} />
        </div>
      )}

      <InvoiceView invoice={doc} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
