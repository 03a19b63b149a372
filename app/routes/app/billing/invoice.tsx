import { data } from "react-router";
import type { Route } from "./+types/invoice";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { invoiceDocument } from "~/.server/domains/billing/invoices";
import { openDisputeOf, resolvedDisputeOf } from "~/.server/domains/billing/page";
import { disputeAction, disputeInvalid, DisputeFormSchema } from "~/.server/domains/billing/page-actions";
import { paybillFor } from "~/.server/domains/billing/mpesa";
import { formatInvoiceDateTime } from "~/lib/invoice";
import { amountDueCents } from "~/lib/invoice-document";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { InvoiceView } from "~/components/billing/invoice-view";
import { PaybillDetails } from "~/components/billing/paybill";
import { DisputeForm } from "~/components/billing/dispute-form";
import { InvoiceStatusBadge } from "~/components/billing/invoice-history";
import { BackLink } from "~/components/ui/back-link";
import { Card, CardHeader } from "~/components/ui/card";
import { Download } from "~/components/ui/icons";
import { buttonClass } from "~/components/ui/button";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

// An invoice to read, print or dispute: sent as a document without React (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "billing:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ data: page }) => [
  { title: m.billing_invoice_meta_title({ number: page?.invoice.number ?? m.billing_invoices_column_invoice() }) },
];

/** One invoice or receipt as a page, its PDF, and its dispute. Another organisation's: 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const [invoice, dispute, resolved] = await Promise.all([
    invoiceDocument(current.organization.id, args.params.id),
    openDisputeOf(current.organization.id, args.params.id),
    resolvedDisputeOf(current.organization.id, args.params.id),
  ]);
  if (!invoice) throw data("Not Found", { status: 404 });
  // A monthly invoice is paid from the wallet (settle-invoices.ts): money sent to the paybill lands there.
  const payable = invoice.kind === "subscription" && (invoice.status === "pending" || invoice.status === "overdue");
  return {
    id: args.params.id,
    invoice,
    dispute,
    resolved: dispute ? null : resolved,
    canManage: can(current.role, "billing:manage"),
    paybill: payable ? paybillFor(current.organization) : null,
  };
}

/** Disputing this invoice: owners and admins (billing:manage). */
export async function action(args: Route.ActionArgs) {
  const invoiceId = args.params.id;
  return intentAction(args, {
    permission: "billing:manage",
    intents: {
      dispute: intent(
        DisputeFormSchema,
        ({ value, submission, user, intent: posted }) =>
          disputeAction(
            { organizationId: user.organization.id, userId: user.user.id },
            invoiceId,
            value.reason,
            submission,
            posted,
            `/billing/invoices/${invoiceId}`,
          ),
        { invalid: (submission, posted) => disputeInvalid(submission, posted, invoiceId) },
      ),
    },
    unknown: () => {
      throw data(m.billing_unknown_action(), { status: 400 });
    },
  });
}

export default function Invoice({ loaderData, actionData }: Route.ComponentProps) {
  const { id, invoice, dispute, resolved, canManage, paybill } = loaderData;
  const disputable =
    invoice.kind !== "credit_note" && (invoice.status === "pending" || invoice.status === "overdue" || invoice.status === "paid");
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <BackLink to="/billing">{m.billing_title()}</BackLink>
      <div className="flex flex-wrap items-center justify-between gap-3 print:hidden">
        <h1 className="flex items-center gap-3 text-2xl font-bold tracking-tight">
          {invoice.number} <InvoiceStatusBadge status={invoice.status} creditedCents={invoice.credited?.cents} />
        </h1>
        <a href={`/billing/invoices/${id}/pdf`} download className={buttonClass("secondary")}>
          <Download className="size-4" aria-hidden /> {m.billing_download_pdf()}
        </a>
      </div>
      {dispute ? (
        <Card aria-labelledby="dispute-title" className="border-sky-200 bg-sky-50 print:hidden" data-testid="invoice-dispute">
          <CardHeader
            id="dispute-title"
            title={m.billing_invoice_status_disputed()}
            description={m.billing_dispute_raised({ date: formatInvoiceDateTime(dispute.raisedAt) })}
          />
          <p className="mt-2 text-sm break-words text-slate-800">{m.billing_dispute_reason({ reason: dispute.reason })}</p>
        </Card>
      ) : null}
      {resolved ? (
        <Card aria-labelledby="resolution-title" className="print:hidden" data-testid="invoice-dispute-outcome">
          <CardHeader
            id="resolution-title"
            title={resolved.outcome === "credited" ? m.billing_dispute_resolved_credited() : m.billing_dispute_rejected()}
            description={m.billing_dispute_answered({ date: formatInvoiceDateTime(resolved.resolvedAt) })}
          />
          {resolved.note ? (
            <p className="mt-2 text-sm break-words text-slate-800">{m.billing_dispute_note({ note: resolved.note })}</p>
          ) : null}
          {resolved.creditNote ? (
            <p className="mt-2 text-sm">
              {m.billing_credit_note()}{" "}
              <TextLink to={`/billing/invoices/${resolved.creditNote.id}`} weight="medium">
                {resolved.creditNote.number}
              </TextLink>
            </p>
          ) : null}
        </Card>
      ) : null}
      {paybill ? (
        <PaybillDetails
          paybill={paybill}
          amountCents={amountDueCents(invoice)}
          title={m.billing_invoice_paybill_title({ number: invoice.number })}
          note={m.billing_invoice_paybill_note()}
          className="print:hidden"
        />
      ) : null}
      <InvoiceView invoice={invoice} />
      {canManage && disputable ? (
        <Card aria-labelledby="dispute-form-title" className="print:hidden" id="dispute">
          <CardHeader id="dispute-form-title" title={m.billing_dispute_form_title()} description={m.billing_dispute_form_description()} />
          <div className="mt-4">
            <DisputeForm
              result={actionData && "result" in actionData ? actionData.result : undefined}
              invoiceId={id}
              number={invoice.number}
              action={`/billing/invoices/${id}`}
            />
          </div>
        </Card>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
