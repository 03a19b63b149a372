import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/dispute";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { stepUpNeeded } from "~/.server/domains/admin/step-up";
import { adminDispute, creditDispute, rejectDispute } from "~/.server/domains/admin/billing/disputes";
import { RESOLUTION_NOTE_MAX } from "~/lib/admin-billing";
import { adminInvoice } from "~/.server/domains/admin/billing/invoice-detail";
import { billingAction, type AdminFormError } from "~/.server/domains/admin/billing/actions";
import { formTexts } from "~/.server/domains/admin/billing/refusal";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { InvoiceView } from "~/components/billing/invoice-view";
import { AdminInvoiceStatusBadge } from "~/components/billing/invoice-history";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { Field, FormError, TextareaField } from "~/components/ui/field";
import { StepUpField } from "~/components/ui/step-up-field";
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
    credit: {
      destructive: true,
      work: async ({ current, meta, id, form }) => {
        const done = await creditDispute(current, meta, id, formTexts(form, "amount", "note"));
        return `Credit note ${done.creditNoteNumber} issued for ${formatKes(done.amountCents)}: ${
          done.voided
            ? `${done.invoiceNumber} is void.`
            : done.dueCents !== null
              ? `${formatKes(done.dueCents)} of ${done.invoiceNumber} is still due.`
              : "credited to the wallet."
        }`;
      },
    },
    reject: {
      destructive: true,
      work: async ({ current, meta, id, form }) => {
        const done = await rejectDispute(current, meta, id, formTexts(form, "note"));
        return `Dispute rejected: ${done.invoiceNumber} is ${done.status} again, and the organisation sees your note.`;
      },
    },
  });

export default function AdminDispute({ loaderData, actionData }: Route.ComponentProps) {
  const { dispute, invoice, stepUp } = loaderData;
  const busy = useNavigation().state === "submitting";
  const error: AdminFormError | undefined = actionData && "error" in actionData ? actionData.error : undefined;
  const errorOf = (intent: string, field?: string) =>
    error && error.intent === intent && (field === undefined ? !error.field : error.field === field) ? [error.message] : undefined;
  const typed = (intent: string, name: string) => (error?.intent === intent ? error.values?.[name] : undefined);
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
          <Card aria-labelledby="credit-title">
            <CardHeader
              id="credit-title"
              title="Resolve with a credit note"
              description="A numbered credit note (CRN) the tenant sees with the invoice."
            />
            <p className="mt-3 rounded-md bg-slate-50 p-3 text-sm text-slate-700" data-testid="credit-effect">
              {creditEffectWords(dispute.previousStatus, doc.number, doc.totalCents)}
            </p>
            <Form method="post" className="mt-4 space-y-4">
              <FormError errors={errorOf("credit")} />
              <Field
                label="Amount to credit (KES, VAT included)"
                name="amount"
                inputMode="decimal"
                placeholder={(doc.totalCents / 100).toFixed(2)}
                hint={`Leave it empty to credit all ${formatKes(doc.totalCents)}.`}
                defaultValue={typed("credit", "amount")}
                errors={errorOf("credit", "amount")}
              />
              <TextareaField
                label="Note to the tenant (optional)"
                name="note"
                maxLength={RESOLUTION_NOTE_MAX}
                defaultValue={typed("credit", "note")}
                errors={errorOf("credit", "note")}
              />
              <StepUpField needed={stepUp} error={errorOf("credit", "confirmation")?.[0]} id="credit-confirmation" />
              <Button type="submit" name="intent" value="credit" pending={busy}>
                Issue credit note
              </Button>
            </Form>
          </Card>
          <Card aria-labelledby="reject-title">
            <CardHeader
              id="reject-title"
              title="Reject the dispute"
              description={`The invoice returns to ${dispute.previousStatus}; the tenant sees your note on their billing page.`}
            />
            <Form method="post" className="mt-4 space-y-4">
              <FormError errors={errorOf("reject")} />
              <TextareaField
                label="Note to the tenant"
                name="note"
                maxLength={RESOLUTION_NOTE_MAX}
                markRequired
                defaultValue={typed("reject", "note")}
                errors={errorOf("reject", "note")}
              />
              <StepUpField needed={stepUp} error={errorOf("reject", "confirmation")?.[0]} id="reject-confirmation" />
              <Button type="submit" name="intent" value="reject" variant="danger" pending={busy}>
                Reject dispute
              </Button>
            </Form>
          </Card>
        </div>
      )}

      <InvoiceView invoice={doc} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}

/** What a credit note will do, shown before the administrator confirms it. */
function creditEffectWords(previousStatus: string, number: string, totalCents: number) {
  if (previousStatus === "pending" || previousStatus === "overdue")
    return `${number} is unpaid. Crediting all ${formatKes(totalCents)} voids it. Crediting part of it lowers what is due by that amount, and the rest stays due; nothing is added to or taken from the wallet.`;
  return `${number} is ${previousStatus === "paid" ? "paid" : previousStatus}. The credit goes back to the tenant's wallet as money they can spend.`;
}
