import { Form } from "react-router";
import type { StaffMember } from "~/.server/domains/admin/staff/staff";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { Field, FormError, SelectField } from "~/components/ui/field";
import { Button, ButtonLink } from "~/components/ui/button";
import { Badge } from "~/components/ui/badge";
import { StepUpField } from "~/components/ui/step-up-field";
import { PLATFORM_ROLES } from "~/lib/roles";
import { staffRoleHint, staffRoleWords } from "~/lib/staff";
import { m } from "~/paraglide/messages";

/*
 * The console's Staff tab's parts (issue 74, decision 112): a member's two-factor badge, Invite
 * Staff's form, and the Manage dialog's role and suspend/reactivate forms (each with the step-up).
 */

export function TwoFactorBadge({ member }: { member: StaffMember }) {
  if (member.twoFactor) return <Badge tone="success">{m.admin_staff_two_factor_on()}</Badge>;
  if (member.twoFactorRequired) return <Badge tone="warning">{m.admin_staff_two_factor_due()}</Badge>;
  return <Badge tone="danger">{m.admin_staff_two_factor_off()}</Badge>;
}

const roleOptions = () => PLATFORM_ROLES.map((role) => ({ value: role, label: `${staffRoleWords(role)}: ${staffRoleHint(role)}` }));

export function InviteForm({
  result,
  stepUpNeeded,
  cancel,
  busy,
}: {
  result?: SubmissionResult<string[]>;
  stepUpNeeded: boolean;
  cancel: string;
  busy: boolean;
}) {
  const [form, fields] = useServerCheckedForm<{ email: string; role: string; confirmation: string }>(result, { id: "invite-staff" });
  return (
    <Form method="post" action="?dialog=invite" {...getFormProps(form)} className="space-y-3" noValidate>
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label={m.admin_staff_email()}
        name={fields.email.name}
        type="email"
        autoComplete="off"
        defaultValue={fields.email.initialValue}
        errors={fields.email.errors}
        key={fields.email.key}
        markRequired
      />
      <SelectField
        label={m.admin_staff_role()}
        name={fields.role.name}
        defaultValue={fields.role.initialValue ?? "support"}
        errors={fields.role.errors}
        key={fields.role.key}
        options={roleOptions()}
      />
      <StepUpField needed={stepUpNeeded} error={fields.confirmation.errors?.[0]} id="invite-confirmation" />
      <div className="flex flex-wrap justify-end gap-2 pt-2">
        <ButtonLink to={cancel} variant="secondary" replace preventScrollReset>
          {m.admin_cancel()}
        </ButtonLink>
        <Button type="submit" name="intent" value="invite" pending={busy}>
          {m.admin_staff_send_invitation()}
        </Button>
      </div>
    </Form>
  );
}

export function ManageForms({
  member,
  result,
  stepUpNeeded,
  cancel,
  busy,
}: {
  member: StaffMember;
  result: (intent: string) => SubmissionResult<string[]> | undefined;
  stepUpNeeded: boolean;
  cancel: string;
  busy: boolean;
}) {
  const [roleForm, roleFields] = useServerCheckedForm<{ role: string; confirmation: string }>(result("role"), { id: "staff-role" });
  const statusIntent = member.suspendedAt ? "reactivate" : "suspend";
  const [statusForm, statusFields] = useServerCheckedForm<{ confirmation: string }>(result(statusIntent), { id: "staff-status" });
  const action = `?${new URLSearchParams({ dialog: "manage", staff: member.id })}`;
  return (
    <div className="space-y-6">
      <Form method="post" action={action} {...getFormProps(roleForm)} className="space-y-3" noValidate>
        <FormError id={roleForm.errorId} errors={roleForm.errors} />
        <input type="hidden" name="staff" value={member.id} />
        <SelectField
          label={m.admin_staff_role()}
          name={roleFields.role.name}
          defaultValue={roleFields.role.initialValue ?? member.role}
          errors={roleFields.role.errors}
          key={roleFields.role.key}
          options={roleOptions()}
        />
        <StepUpField needed={stepUpNeeded} error={roleFields.confirmation.errors?.[0]} id="role-confirmation" />
        <div className="flex justify-end">
          <Button type="submit" name="intent" value="role" pending={busy}>
            {m.admin_staff_change_role()}
          </Button>
        </div>
      </Form>
      <Form method="post" action={action} {...getFormProps(statusForm)} className="space-y-3 border-t border-slate-200 pt-4" noValidate>
        <FormError id={statusForm.errorId} errors={statusForm.errors} />
        <input type="hidden" name="staff" value={member.id} />
        {member.suspendedAt ? null : <p className="text-sm text-slate-600">{m.admin_staff_suspend_hint()}</p>}
        <StepUpField needed={stepUpNeeded} error={statusFields.confirmation.errors?.[0]} id="status-confirmation" />
        <div className="flex flex-wrap justify-end gap-2">
          <ButtonLink to={cancel} variant="secondary" replace preventScrollReset>
            {m.admin_cancel()}
          </ButtonLink>
          <Button type="submit" name="intent" value={statusIntent} variant={member.suspendedAt ? "primary" : "danger"} pending={busy}>
            {member.suspendedAt ? m.admin_staff_reactivate() : m.admin_staff_suspend()}
          </Button>
        </div>
      </Form>
    </div>
  );
}
