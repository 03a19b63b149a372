import { data, Form, useNavigation } from "react-router";
import { getFormProps } from "~/components/ui/form-state";
import type { Route } from "./+types/wallet";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { stepUpNeeded } from "~/.server/domains/admin/step-up";
import { adjustWallet, adminWallet, type AdminWallet } from "~/.server/domains/admin/billing/wallet";
import { ADJUSTMENT_REASON_MAX } from "~/lib/admin-billing";
import { billingAction, billingIntent } from "~/.server/domains/admin/billing/actions";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Card, CardHeader } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { Field, FormError, RadioGroupField, TextareaField } from "~/components/ui/field";
import { StepUpField } from "~/components/ui/step-up-field";
import { StatCard } from "~/components/ui/stat-card";
import { Table, type Column } from "~/components/ui/table";
import { Clock, Wallet } from "~/components/ui/icons";
import { formatInvoiceDateTime, formatKes } from "~/lib/invoice";
import { Name } from "~/components/ui/name";
import { withoutBidiControls } from "~/lib/names";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { replyFor } from "~/components/admin/billing/form-reply";

export const meta: Route.MetaFunction = ({ data: page }) => [
  { title: `Wallet of ${page ? withoutBidiControls(page.wallet.businessName) : "an organisation"} | Admin console | Jumbe` },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const wallet = await adminWallet(platformScope(current), args.params.id);
  if (!wallet) throw data("Not Found", { status: 404 });
  return { wallet, stepUp: stepUpNeeded(current) };
}

export const action = (args: Route.ActionArgs) =>
  billingAction(args, `/admin/billing/wallets/${args.params.id}`, {
    adjust: billingIntent({
      fields: ["direction", "amount", "reason"],
      destructive: true,
      work: async ({ current, meta, id, values }) => {
        const done = await adjustWallet(current, meta, id, values);
        return `${done.amountCents > 0 ? "Credited" : "Debited"} ${formatKes(Math.abs(done.amountCents))}: the balance is now ${formatKes(done.balanceAfterCents)}.`;
      },
    }),
  });

const ENTRY_COLUMNS: Column<AdminWallet["entries"][number]>[] = [
  { key: "when", header: "When", cell: (e) => formatInvoiceDateTime(e.createdAt) },
  { key: "kind", header: "Kind", cell: (e) => e.kind.replace("_", " ") },
  { key: "description", header: "Description", cell: (e) => <span className="break-words">{e.description}</span> },
  { key: "by", header: "By", hideOnPhone: true, cell: (e) => e.createdBy ?? "—" },
  { key: "amount", header: "Amount", align: "right", cell: (e) => formatKes(e.amountCents) },
  { key: "balance", header: "Balance after", align: "right", cell: (e) => formatKes(e.balanceAfterCents) },
];

export default function AdminWalletPage({ loaderData, actionData }: Route.ComponentProps) {
  const { wallet, stepUp } = loaderData;
  const busy = useNavigation().state === "submitting";
  const [form, fields] = useServerCheckedForm<{ direction: string; amount: string; reason: string; confirmation: string }>(
    replyFor(actionData, "adjust"),
    { id: "adjust-wallet" },
  );
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <BackLink to="/admin/billing">Billing</BackLink>
      <PageTitle>
        Wallet of{" "}
        <TextLink to={`/admin/users/${wallet.organizationId}`} underline="hover">
          <Name>{wallet.businessName}</Name>
        </TextLink>
      </PageTitle>
      <p className="text-slate-600">
        {wallet.plan}, {wallet.billingType}.
      </p>
      <div className="grid gap-4 sm:grid-cols-3">
        <StatCard label="Balance" value={formatKes(wallet.balanceCents)} icon={Wallet} />
        <StatCard label="Held" value={formatKes(wallet.heldCents)} icon={Clock} hint="Reserved for queued prepaid messages" />
        <StatCard label="Available" value={formatKes(wallet.availableCents)} icon={Wallet} />
      </div>
      <Card aria-labelledby="adjust-title">
        <CardHeader
          id="adjust-title"
          title="Adjust the wallet"
          description="A credit or debit with a reason, written to the ledger as an adjustment by you. A debit cannot take the available balance below zero."
        />
        <Form method="post" className="mt-4 grid gap-4 sm:max-w-lg" {...getFormProps(form)} noValidate>
          <FormError id={form.errorId} errors={form.errors} />
          <RadioGroupField
            legend="Direction"
            name={fields.direction.name}
            defaultValue={fields.direction.initialValue === "debit" ? "debit" : "credit"}
            options={[
              { value: "credit", label: "Credit (add money)" },
              { value: "debit", label: "Debit (take money)" },
            ]}
            errors={fields.direction.errors}
            key={fields.direction.key}
          />
          <Field
            label="Amount (KES)"
            name={fields.amount.name}
            inputMode="decimal"
            markRequired
            defaultValue={fields.amount.initialValue}
            errors={fields.amount.errors}
            key={fields.amount.key}
          />
          <TextareaField
            label="Reason"
            name={fields.reason.name}
            maxLength={ADJUSTMENT_REASON_MAX}
            markRequired
            defaultValue={fields.reason.initialValue}
            errors={fields.reason.errors}
            key={fields.reason.key}
          />
          <StepUpField needed={stepUp} error={fields.confirmation.errors?.[0]} />
          <div>
            <Button type="submit" name="intent" value="adjust" pending={busy}>
              Apply adjustment
            </Button>
          </div>
        </Form>
      </Card>
      <Card aria-labelledby="ledger-title" padding="none">
        <div className="px-4 pt-4">
          <CardHeader id="ledger-title" title="Latest ledger entries" description="The 25 newest, newest first." />
        </div>
        <Table caption="Ledger entries" columns={ENTRY_COLUMNS} rows={wallet.entries} rowKey={(e) => e.id} empty="No ledger entries yet." />
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
