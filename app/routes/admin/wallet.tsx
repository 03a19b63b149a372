import type { PermissionHandle } from "~/lib/permissions";
import { data, Form, useNavigation } from "react-router";
import { walletEntryWords } from "~/.server/domains/billing/wallet-words";
import { getFormProps } from "~/components/ui/form-state";
import type { Route } from "./+types/wallet";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
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
import { m } from "~/paraglide/messages";

// Money: the console's owners and finance staff (issue 74, decision 112); 404 to support staff.
export const handle: PermissionHandle = { permission: "platform:money" };

export const meta: Route.MetaFunction = ({ data: page }) => [
  {
    title: m.admin_title({
      page: page ? m.admin_wallet_title({ name: withoutBidiControls(page.wallet.businessName) }) : m.admin_wallet_title_unknown(),
    }),
  },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const wallet = await adminWallet(platformScope(current), args.params.id);
  if (!wallet) throw data("Not Found", { status: 404 });
  // The ledger's sentences in the reader's language (the page is a document: said here, on the server).
  const entries = wallet.entries.map((entry) => ({ ...entry, description: walletEntryWords(entry.description) }));
  return { wallet: { ...wallet, entries }, stepUp: stepUpNeeded(current) };
}

export const action = (args: Route.ActionArgs) =>
  billingAction(args, `/admin/billing/wallets/${args.params.id}`, {
    adjust: billingIntent({
      fields: ["direction", "amount", "reason"],
      destructive: true,
      work: async ({ current, meta, id, values }) => {
        const done = await adjustWallet(current, meta, id, values);
        const words = { amount: formatKes(Math.abs(done.amountCents)), balance: formatKes(done.balanceAfterCents) };
        return done.amountCents > 0 ? m.admin_wallet_credited_toast(words) : m.admin_wallet_debited_toast(words);
      },
    }),
  });

/** A ledger entry's kind in words ("invoice payment"); a kind not listed shows its code. */
const ENTRY_KIND_WORDS: Record<string, () => string> = {
  topup: () => m.admin_wallet_kind_topup(),
  hold: () => m.admin_wallet_kind_hold(),
  release: () => m.admin_wallet_kind_release(),
  charge: () => m.admin_wallet_kind_charge(),
  refund: () => m.admin_wallet_kind_refund(),
  adjustment: () => m.admin_wallet_kind_adjustment(),
  invoice_payment: () => m.admin_wallet_kind_invoice_payment(),
};
const entryKindWords = (kind: string) => (Object.hasOwn(ENTRY_KIND_WORDS, kind) ? ENTRY_KIND_WORDS[kind]!() : kind.replace("_", " "));

const entryColumns = (): Column<AdminWallet["entries"][number]>[] => [
  { key: "when", header: m.admin_column_when(), cell: (e) => formatInvoiceDateTime(e.createdAt) },
  { key: "kind", header: m.admin_wallet_column_kind(), cell: (e) => entryKindWords(e.kind) },
  { key: "description", header: m.admin_wallet_column_description(), cell: (e) => <span className="break-words">{e.description}</span> },
  { key: "by", header: m.admin_wallet_column_by(), hideOnPhone: true, cell: (e) => e.createdBy ?? "—" },
  { key: "amount", header: m.admin_column_amount(), align: "right", cell: (e) => formatKes(e.amountCents) },
  { key: "balance", header: m.admin_wallet_column_balance_after(), align: "right", cell: (e) => formatKes(e.balanceAfterCents) },
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
      <BackLink to="/admin/billing">{m.admin_tab_billing()}</BackLink>
      <PageTitle>
        {m.admin_wallet_heading_before()}{" "}
        <TextLink to={`/admin/users/${wallet.organizationId}`} underline="hover">
          <Name>{wallet.businessName}</Name>
        </TextLink>
      </PageTitle>
      <p className="text-slate-600">
        {wallet.plan}, {wallet.billingType === "postpaid" ? m.admin_user_form_postpaid() : m.admin_user_form_prepaid()}.
      </p>
      <div className="grid gap-4 sm:grid-cols-3">
        <StatCard label={m.admin_wallet_balance()} value={formatKes(wallet.balanceCents)} icon={Wallet} />
        <StatCard label={m.admin_wallet_held()} value={formatKes(wallet.heldCents)} icon={Clock} hint={m.admin_wallet_held_hint()} />
        <StatCard label={m.admin_wallet_available()} value={formatKes(wallet.availableCents)} icon={Wallet} />
      </div>
      <Card aria-labelledby="adjust-title">
        <CardHeader id="adjust-title" title={m.admin_wallet_adjust_title()} description={m.admin_wallet_adjust_intro()} />
        <Form method="post" className="mt-4 grid gap-4 sm:max-w-lg" {...getFormProps(form)} noValidate>
          <FormError id={form.errorId} errors={form.errors} />
          <RadioGroupField
            legend={m.admin_wallet_direction_legend()}
            name={fields.direction.name}
            defaultValue={fields.direction.initialValue === "debit" ? "debit" : "credit"}
            options={[
              { value: "credit", label: m.admin_wallet_credit_option() },
              { value: "debit", label: m.admin_wallet_debit_option() },
            ]}
            errors={fields.direction.errors}
            key={fields.direction.key}
          />
          <Field
            label={m.admin_wallet_amount()}
            name={fields.amount.name}
            inputMode="decimal"
            markRequired
            defaultValue={fields.amount.initialValue}
            errors={fields.amount.errors}
            key={fields.amount.key}
          />
          <TextareaField
            label={m.admin_reason()}
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
              {m.admin_wallet_apply()}
            </Button>
          </div>
        </Form>
      </Card>
      <Card aria-labelledby="ledger-title" padding="none">
        <div className="px-4 pt-4">
          <CardHeader id="ledger-title" title={m.admin_wallet_ledger_title()} description={m.admin_wallet_ledger_intro()} />
        </div>
        <Table
          caption={m.admin_wallet_ledger_caption()}
          columns={entryColumns()}
          rows={wallet.entries}
          rowKey={(e) => e.id}
          empty={m.admin_wallet_ledger_empty()}
        />
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
