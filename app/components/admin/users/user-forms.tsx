import { Form } from "react-router";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import type { TenantDetail } from "~/.server/domains/admin/users/detail";
import { Button, ButtonLink } from "~/components/ui/button";
import { Field, FormError, SelectField, TextareaField } from "~/components/ui/field";
import { StepUpField } from "~/components/ui/step-up-field";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { REASON_MAX, USER_PLANS } from "~/lib/admin-users";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

type EditFields = Record<"plan" | "limitOverride" | "overrideReason" | "status" | "firstName" | "lastName" | "email" | "phone", string>;

/** Edit User: the organisation's plan, its message limit, its status and its owner's contact details. */
export function EditUserForm({
  tenant,
  result,
  cancel,
  busy,
}: {
  tenant: TenantDetail;
  result?: SubmissionResult<string[]> | null;
  cancel: string;
  busy: boolean;
}) {
  const suspended = tenant.status === "suspended";
  const [form, fields] = useServerCheckedForm<EditFields>(result, {
    id: "edit-user",
    defaultValue: {
      plan: tenant.plan,
      limitOverride: tenant.limitOverride ? String(tenant.limitOverride.messages) : "",
      overrideReason: tenant.limitOverride?.reason ?? "",
      status: tenant.status,
      firstName: tenant.owner?.firstName,
      lastName: tenant.owner?.lastName,
      email: tenant.owner?.email,
      phone: tenant.owner?.phoneNumber ?? "",
    },
  });
  return (
    <Form method="post" action={`?${new URLSearchParams({ dialog: "edit" })}`} {...getFormProps(form)} className="space-y-3" noValidate>
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label={m.admin_column_plan()}
        name={fields.plan.name}
        defaultValue={fields.plan.initialValue}
        options={USER_PLANS.map((p) => ({ value: p, label: p }))}
        errors={fields.plan.errors}
        key={fields.plan.key}
      />
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold text-slate-700">{m.admin_user_form_limit()}</legend>
        <p className="text-sm text-slate-600">
          {m.admin_user_form_limit_help({
            billing: tenant.billingType === "postpaid" ? m.admin_user_form_postpaid() : m.admin_user_form_prepaid(),
            plan: tenant.plan,
            limit: formatNumber(tenant.planMessageLimit),
          })}
        </p>
        <Field
          label={m.admin_user_form_override()}
          name={fields.limitOverride.name}
          inputMode="numeric"
          defaultValue={fields.limitOverride.initialValue}
          errors={fields.limitOverride.errors}
          key={fields.limitOverride.key}
        />
        <TextareaField
          label={m.admin_user_form_override_reason()}
          name={fields.overrideReason.name}
          rows={2}
          maxLength={REASON_MAX}
          defaultValue={fields.overrideReason.initialValue}
          errors={fields.overrideReason.errors}
          key={fields.overrideReason.key}
        />
      </fieldset>
      {suspended ? (
        <p className="text-sm text-slate-600">{m.admin_user_form_suspended()}</p>
      ) : (
        <SelectField
          label={m.admin_column_status()}
          name={fields.status.name}
          defaultValue={fields.status.initialValue}
          options={[
            { value: "active", label: m.admin_status_active() },
            { value: "pending", label: m.admin_status_pending() },
          ]}
          errors={fields.status.errors}
          key={fields.status.key}
        />
      )}
      {tenant.owner ? (
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold text-slate-700">{m.admin_user_form_owner()}</legend>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field
              label={m.admin_user_form_first_name()}
              name={fields.firstName.name}
              defaultValue={fields.firstName.initialValue}
              errors={fields.firstName.errors}
              key={fields.firstName.key}
              autoComplete="off"
              markRequired
            />
            <Field
              label={m.admin_user_form_last_name()}
              name={fields.lastName.name}
              defaultValue={fields.lastName.initialValue}
              errors={fields.lastName.errors}
              key={fields.lastName.key}
              autoComplete="off"
              markRequired
            />
          </div>
          <Field
            label={m.admin_email()}
            name={fields.email.name}
            type="email"
            defaultValue={fields.email.initialValue}
            errors={fields.email.errors}
            key={fields.email.key}
            autoComplete="off"
            markRequired
          />
          <Field
            label={m.admin_phone()}
            name={fields.phone.name}
            type="tel"
            defaultValue={fields.phone.initialValue}
            errors={fields.phone.errors}
            key={fields.phone.key}
            autoComplete="off"
          />
        </fieldset>
      ) : null}
      <DialogButtons cancel={cancel} busy={busy} intent="edit" label={m.admin_save_changes()} />
    </Form>
  );
}

export function ReasonForm({
  intent,
  label,
  danger,
  result,
  stepUpNeeded,
  cancel,
  busy,
}: {
  intent: "suspend" | "reactivate";
  label: string;
  danger?: boolean;
  result?: SubmissionResult<string[]> | null;
  stepUpNeeded: boolean;
  cancel: string;
  busy: boolean;
}) {
  const [form, fields] = useServerCheckedForm<{ reason: string; confirmation: string }>(result, { id: `${intent}-user` });
  return (
    <Form method="post" action={`?${new URLSearchParams({ dialog: intent })}`} {...getFormProps(form)} className="space-y-3" noValidate>
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField
        label={m.admin_reason()}
        name={fields.reason.name}
        maxLength={REASON_MAX}
        hint={m.admin_user_form_reason_hint()}
        defaultValue={fields.reason.initialValue}
        errors={fields.reason.errors}
        key={fields.reason.key}
        markRequired
      />
      <StepUpField needed={stepUpNeeded} error={fields.confirmation.errors?.[0]} id={`${intent}-confirmation`} />
      <DialogButtons cancel={cancel} busy={busy} intent={intent} label={label} danger={danger} />
    </Form>
  );
}

function DialogButtons({
  cancel,
  busy,
  intent,
  label,
  danger,
}: {
  cancel: string;
  busy: boolean;
  intent: string;
  label: string;
  danger?: boolean;
}) {
  return (
    <div className="flex justify-end gap-2 pt-2">
      <ButtonLink to={cancel} variant="secondary" replace preventScrollReset>
        {m.admin_cancel()}
      </ButtonLink>
      <Button type="submit" name="intent" value={intent} variant={danger ? "danger" : "primary"} pending={busy}>
        {label}
      </Button>
    </div>
  );
}
