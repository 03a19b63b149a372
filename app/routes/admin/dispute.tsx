import { data, useNavigation } from "react-router";
import type { Route } from "./+types/dispute";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
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

export const meta: Route.MetaFunction = ({ data: page }) => [
  { title: `Dispute of ${page?.invoice.document.number ?? "an invoice"} | Billing | Admin console | Jumbe` },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
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
        return `Credit note ${done.creditNoteNumber} issued for ${formatKes(done.amountCents)}: ${
          done.voided
            ? `${done.invoiceNumber} is void.`
            : done.dueCents !== null
              ? `${formatKes(done.dueCents)} of ${done.invoiceNumber} is still due.`
              : "credited to the wallet."
        }`;
      },
    }),
    reject: billingIntent({
      fields: ["note"],
      destructive: true,
      work: async ({ current, meta, id, values }) => {
        const done = await rejectDispute(current, meta, id, values);
        return `Dispute rejected: ${done.invoiceNumber} is ${done.status} again, and the organisation sees your note.`;
      },
    }),
  });

export default function AdminDispute({ loaderData, actionData }: Route.ComponentProps) {
  const { dispute, invoice, stepUp } = loaderData;
  const busy = useNavigation().state === "submitting";
  const doc = invoice.document;
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <BackLink to="/admin/billing">Billing</BackLink>
      <h1 className="flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight">
        Dispute of {doc.number}
        {dispute.status === "open" ? (
          <Badge tone="info">Open</Badge>
        ) : (
          <Badge tone={dispute.outcome === "credited" ? "success" : "neutral"}>
            {dispute.outcome === "credited" ? "Credited" : "Rejected"}
          </Badge>
        )}
      </h1>

      <Card aria-labelledby="reason-title">
        <CardHeader
          id="reason-title"
          title="The tenant's reason"
          description={`${withoutBidiControls(invoice.businessName)}, raised ${formatInvoiceDateTime(dispute.raisedAt)}${dispute.raisedBy ? ` by ${dispute.raisedBy}` : ""}.`}
        />
        <p className="mt-3 break-words whitespace-pre-line text-slate-900" data-testid="dispute-reason">
          {dispute.reason}
        </p>
        <p className="mt-3 text-sm text-slate-600">
          Invoice{" "}
          <TextLink to={`/admin/billing/invoices/${invoice.id}`} weight="medium" underline="hover">
            {doc.number}
          </TextLink>{" "}
          <AdminInvoiceStatusBadge status={invoice.status} />, {formatKes(doc.totalCents)}; before the dispute it was{" "}
          {dispute.previousStatus}.
        </p>
      </Card>

      {dispute.status === "resolved" ? (
        <Card aria-labelledby="resolution-title" data-testid="dispute-resolution">
          <CardHeader
            id="resolution-title"
            title={dispute.outcome === "credited" ? "Resolved by a credit note" : "Rejected"}
            description={`${dispute.resolvedAt ? formatInvoiceDateTime(dispute.resolvedAt) : ""}${dispute.resolvedBy ? ` by ${dispute.resolvedBy}` : ""}`}
          />
          {dispute.creditNote ? (
            <p className="mt-2 text-sm">
              Credit note{" "}
              <TextLink to={`/admin/billing/invoices/${dispute.creditNote.id}`} weight="medium" underline="hover">
                {dispute.creditNote.number}
              </TextLink>
            </p>
          ) : null}
          {dispute.resolution ? <p className="mt-2 text-sm break-words">Note to the tenant: {dispute.resolution}</p> : null}
        </Card>
      ) : (
        <div className="grid gap-6 md:grid-cols-2">
          <CreditDisputeForm
            previousStatus={dispute.previousStatus}
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
