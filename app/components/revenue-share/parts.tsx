import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import { PARTNER_FIELD_NAMES, type PartnerFields } from "~/lib/partner-fields";
import { Tabs } from "~/components/ui/tabs";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button, buttonClass } from "~/components/ui/button";
import { CheckboxField, Field, FormError, SelectField, TextareaField } from "~/components/ui/field";
import { StepUpField } from "~/components/ui/step-up-field";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import type { Column } from "~/components/ui/table";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

/** What the programme's actions answer a refused form: Conform's reply and the intent of the form it refused. */
export type RevenueActionData = { result?: SubmissionResult<string[]> | null; intent?: string } | undefined;

export const replyFor = (actionData: RevenueActionData, ...intents: string[]) =>
  actionData && intents.includes(actionData.intent ?? "") ? actionData.result : undefined;

export const CATEGORIES = ["CRM", "E-commerce", "Agency", "Bank", "Government", "Reseller", "Integrator"] as const;
export const SHARE_PRESETS = [12, 15, 18, 20] as const;

export const percent = (bps: number) => `${(bps / 100).toLocaleString("en", { maximumFractionDigits: 2 })}%`;

const STATUS_TONES: Record<string, BadgeTone> = {
  active: "success",
  pending: "warning",
  suspended: "danger",
  processing: "info",
  paid: "success",
  failed: "danger",
};

export function statusWords(status: string) {
  switch (status) {
    case "active":
      return m.revenue_status_active();
    case "pending":
      return m.revenue_status_pending();
    case "suspended":
      return m.revenue_status_suspended();
    case "processing":
      return m.revenue_status_processing();
    case "paid":
      return m.revenue_status_paid();
    case "failed":
      return m.revenue_status_failed();
    default:
      return status;
  }
}

/** A settlement's money and state, as every settlements table shows them: carried in / out, net, status, payout reference. */
export function settlementColumns<
  Row extends { carriedInCents: number; carriedOutCents: number; payableCents: number; status: string; payoutReference: string | null },
>(): Column<Row>[] {
  return [
    {
      key: "carried",
      header: m.revenue_column_carried(),
      align: "right",
      hideOnPhone: true,
      cell: (r) => `${formatKes(r.carriedInCents)} / ${formatKes(-r.carriedOutCents)}`,
    },
    { key: "net", header: m.revenue_column_net(), align: "right", cell: (r) => formatKes(r.payableCents) },
    { key: "status", header: m.revenue_column_status(), cell: (r) => <StatusBadge status={r.status} /> },
    { key: "reference", header: m.revenue_column_reference(), hideOnPhone: true, cell: (r) => r.payoutReference ?? "—" },
  ];
}

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONES[status] ?? "neutral"}>{statusWords(status)}</Badge>;
}

export function kindWords(kind: string) {
  switch (kind) {
    case "topup":
      return m.revenue_kind_topup();
    case "subscription":
      return m.revenue_kind_subscription();
    case "bank_transfer":
      return m.revenue_kind_bank_transfer();
    case "credit_note":
      return m.revenue_kind_credit_note();
    default:
      return kind;
  }
}

/** The administrator's four tabs, each a URL. */
export function RevenueTabs({ current }: { current: "overview" | "partners" | "transactions" | "settlements" }) {
  return (
    <Tabs
      label={m.revenue_tabs()}
      items={[
        { label: m.revenue_tab_overview(), to: "/revenue-share", current: current === "overview" },
        { label: m.revenue_tab_partners(), to: "/revenue-share/partners", current: current === "partners" },
        { label: m.revenue_tab_transactions(), to: "/revenue-share/transactions", current: current === "transactions" },
        { label: m.revenue_tab_settlements(), to: "/revenue-share/settlements", current: current === "settlements" },
      ]}
    />
  );
}

export interface PartnerDefaults {
  partner?: string;
  organization?: string;
  name?: string;
  category?: string;
  shareBps?: number;
  payoutMethod?: string;
  mpesaPhone?: string | null;
  bank?: string;
  bankBranch?: string;
  accountName?: string;
  accountNumber?: string;
  kraPin?: string;
  resident?: boolean;
  code?: string;
}

const PARTNER_FORM_FIELDS = ["organization", ...PARTNER_FIELD_NAMES] as const;

type PartnerFormFields = PartnerFields & { organization: string };

/**
 * The partner's form: enrolment (with the organisation), Edit Partner (with its id) and the
 * application (no share, no code: an administrator sets them). One POST; the server checks it and
 * sends the form back with each problem at its field.
 */
export function PartnerForm({
  intent,
  defaults = {},
  result,
  cancel,
  submit,
}: {
  intent: "enrol" | "edit" | "apply";
  defaults?: PartnerDefaults;
  result?: SubmissionResult<string[]> | null;
  cancel?: string;
  submit: string;
}) {
  const share = defaults.shareBps ?? 1500;
  const preset = SHARE_PRESETS.find((p) => p * 100 === share);
  const [form, fields] = useServerCheckedForm<PartnerFormFields>(result, {
    id: `partner-${intent}`,
    defaultValue: {
      organization: defaults.organization ?? "",
      name: defaults.name ?? "",
      category: defaults.category ?? "Agency",
      share: preset ? String(preset) : "other",
      shareOther: preset ? "" : String(share / 100),
      payoutMethod: defaults.payoutMethod ?? "mpesa",
      mpesaPhone: defaults.mpesaPhone ? `+${defaults.mpesaPhone}` : "",
      bank: defaults.bank ?? "",
      bankBranch: defaults.bankBranch ?? "",
      accountName: defaults.accountName ?? "",
      accountNumber: defaults.accountNumber ?? "",
      kraPin: defaults.kraPin ?? "",
      resident: defaults.resident === false ? "" : "on",
      code: defaults.code ?? "",
    },
  });
  const field = (name: keyof PartnerFormFields) => ({
    name: fields[name].name,
    defaultValue: fields[name].initialValue as string | undefined,
    errors: fields[name].errors,
  });
  const props = Object.fromEntries(PARTNER_FORM_FIELDS.map((name) => [name, field(name)])) as Record<
    keyof PartnerFormFields,
    ReturnType<typeof field>
  >;
  return (
    <Form method="post" className="space-y-4" preventScrollReset {...getFormProps(form)} noValidate>
      <FormError id={form.errorId} errors={form.errors} />
      {defaults.partner ? <input type="hidden" name="partner" value={defaults.partner} /> : null}
      {intent === "enrol" ? (
        <Field
          label={m.revenue_field_organisation()}
          hint={m.revenue_field_organisation_hint()}
          maxLength={200}
          markRequired
          {...props.organization}
        />
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label={m.revenue_field_name()} maxLength={120} markRequired {...props.name} />
        <SelectField
          label={m.revenue_field_category()}
          options={CATEGORIES.map((c) => ({ value: c, label: categoryWords(c) }))}
          {...props.category}
        />
      </div>
      {intent === "apply" ? (
        <p className="text-sm text-slate-600">{m.revenue_apply_share_note({ share: "15%" })}</p>
      ) : (
        <fieldset className="space-y-3">
          <legend className="text-sm font-medium text-slate-800">{m.revenue_field_share()}</legend>
          <div className="grid gap-4 sm:grid-cols-2">
            <SelectField
              label={m.revenue_field_share_choice()}
              options={[
                ...SHARE_PRESETS.map((p) => ({ value: String(p), label: `${p}%` })),
                { value: "other", label: m.revenue_field_share_other_choice() },
              ]}
              {...props.share}
            />
            <Field
              label={m.revenue_field_share_other()}
              hint={m.revenue_field_share_other_hint()}
              inputMode="decimal"
              maxLength={5}
              {...props.shareOther}
            />
          </div>
          <TextareaField label={m.revenue_field_reason()} hint={m.revenue_field_reason_hint()} maxLength={500} {...props.reason} />
        </fieldset>
      )}
      <fieldset className="space-y-3">
        <legend className="text-sm font-medium text-slate-800">{m.revenue_field_payout()}</legend>
        <SelectField
          label={m.revenue_field_payout_method()}
          options={[
            { value: "mpesa", label: m.revenue_method_mpesa() },
            { value: "bank", label: m.revenue_method_bank() },
          ]}
          {...props.payoutMethod}
        />
        <Field
          label={m.revenue_field_mpesa()}
          hint={m.revenue_field_mpesa_hint()}
          type="tel"
          autoComplete="tel"
          maxLength={20}
          {...props.mpesaPhone}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label={m.revenue_field_bank()} maxLength={80} {...props.bank} />
          <Field label={m.revenue_field_branch()} maxLength={80} {...props.bankBranch} />
          <Field label={m.revenue_field_account_name()} maxLength={120} {...props.accountName} />
          <Field label={m.revenue_field_account_number()} inputMode="numeric" maxLength={24} {...props.accountNumber} />
        </div>
      </fieldset>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label={m.revenue_field_kra()} hint={m.revenue_field_kra_hint()} maxLength={11} markRequired {...props.kraPin} />
        {intent === "apply" ? null : (
          <Field label={m.revenue_field_code()} hint={m.revenue_field_code_hint()} maxLength={16} {...props.code} />
        )}
      </div>
      <CheckboxField
        label={m.revenue_field_resident()}
        hint={m.revenue_field_resident_hint()}
        name="resident"
        defaultChecked={fields.resident.initialValue === "on"}
      />
      <div className="flex flex-wrap justify-end gap-2">
        {cancel ? (
          <Link to={cancel} replace preventScrollReset className={buttonClass("secondary")}>
            {m.revenue_cancel()}
          </Link>
        ) : null}
        <Button type="submit" name="intent" value={intent}>
          {submit}
        </Button>
      </div>
    </Form>
  );
}

export function categoryWords(category: string) {
  switch (category) {
    case "CRM":
      return m.revenue_category_crm();
    case "E-commerce":
      return m.revenue_category_ecommerce();
    case "Agency":
      return m.revenue_category_agency();
    case "Bank":
      return m.revenue_category_bank();
    case "Government":
      return m.revenue_category_government();
    case "Reseller":
      return m.revenue_category_reseller();
    case "Integrator":
      return m.revenue_category_integrator();
    default:
      return category;
  }
}

/** A short form of one intent with an optional reason and the step-up (payouts). */
export function IntentForm({
  intent,
  hidden,
  submit,
  variant = "secondary",
  reason,
  reference,
  stepUp,
  result,
}: {
  intent: string;
  hidden: Record<string, string>;
  submit: string;
  variant?: "primary" | "secondary" | "danger";
  reason?: { label: string; required: boolean };
  reference?: boolean;
  stepUp?: boolean;
  result?: SubmissionResult<string[]> | null;
}) {
  const [form, fields] = useServerCheckedForm<{ reason: string; reference: string; confirmation: string; organization: string }>(result, {
    id: `${intent}-${Object.values(hidden).join("-")}`,
  });
  return (
    <Form method="post" className="space-y-3" preventScrollReset {...getFormProps(form)} noValidate>
      <FormError id={form.errorId} errors={form.errors} />
      {Object.entries(hidden).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {intent === "assign" ? (
        <Field
          label={m.revenue_field_client()}
          hint={m.revenue_field_client_hint()}
          name={fields.organization.name}
          maxLength={200}
          markRequired
          defaultValue={fields.organization.initialValue}
          errors={fields.organization.errors}
          key={fields.organization.key}
        />
      ) : null}
      {reason ? (
        <Field
          label={reason.label}
          name={fields.reason.name}
          maxLength={500}
          markRequired={reason.required}
          defaultValue={fields.reason.initialValue}
          errors={fields.reason.errors}
          key={fields.reason.key}
        />
      ) : null}
      {reference ? (
        <Field
          label={m.revenue_field_reference()}
          hint={m.revenue_field_reference_hint()}
          name={fields.reference.name}
          maxLength={60}
          markRequired
          defaultValue={fields.reference.initialValue}
          errors={fields.reference.errors}
          key={fields.reference.key}
        />
      ) : null}
      {stepUp !== undefined ? <StepUpField needed={stepUp} error={fields.confirmation.errors?.[0]} id={`${intent}-confirmation`} /> : null}
      <Button type="submit" name="intent" value={intent} variant={variant} size="sm">
        {submit}
      </Button>
    </Form>
  );
}
