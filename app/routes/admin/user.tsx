import type { ReactNode } from "react";
import { data, Form, Link, useNavigation, useSearchParams } from "react-router";
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { Route } from "./+types/user";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { checkStepUp, STEP_UP_FIELD, stepUpNeeded } from "~/.server/domains/admin/step-up";
import { findTenant, tenantActivity } from "~/.server/domains/admin/users/detail";
import { EditTenantSchema, editTenant, ReasonSchema } from "~/.server/domains/admin/users/edit";
import { reactivateTenant, suspendTenant } from "~/.server/domains/admin/users/suspension";
import { REASON_MAX, USER_PLANS } from "~/lib/admin-users";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Name } from "~/components/ui/name";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { closeDialogHref, dialogHref, UrlDialog } from "~/components/ui/dialog";
import { Field, FormError, SelectField, TextareaField } from "~/components/ui/field";
import { ProgressBar } from "~/components/ui/progress-bar";
import { StepUpField } from "~/components/ui/step-up-field";
import { Notice } from "~/components/ui/notice";
import { formatDay, formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { withoutBidiControls } from "~/lib/names";
import { auditActionLabel, describeChange } from "~/lib/admin-audit";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { PageTitle } from "~/components/ui/page-title";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";

export const meta: Route.MetaFunction = ({ data: loaded }) => [
  { title: `${loaded && "tenant" in loaded ? withoutBidiControls(loaded.tenant.name) : "Organisation"} | Users | Admin console | Jumbe` },
];

const notFound = () => data("Not Found", { status: 404 });

export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const tenant = await findTenant(scope, args.params.id);
  if (!tenant) throw notFound();
  return { tenant, ...(await tenantActivity(scope, tenant.id)), stepUpNeeded: stepUpNeeded(current) };
}

type ReplyOptions = { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] };

/** Never sent back to the form: the administrator's password (or code) of a step-up. */
const HIDDEN = [STEP_UP_FIELD];

/** The form again with its intent (the page has three), its status and Conform's reply. */
const refused = <Result,>(intent: string, status: number, result: Result) => formFailure(result, status, undefined, { intent });

/** Edit User, Suspend User and Reactivate: each a POST with its intent; suspend and reactivate need a fresh proof (step-up). */
export async function action(args: Route.ActionArgs) {
  const current = await requirePlatformAdmin(args);
  const scope = platformScope(current);
  const tenant = await findTenant(scope, args.params.id);
  if (!tenant) throw notFound();
  const form = await readForm(args.request);
  const intent = String(form.get("intent") ?? "");
  const meta = requestMeta(args.request, args.context);
  const here = `/admin/users/${tenant.id}`;
  if (intent === "edit") {
    const submission = parseWithZod(form, { schema: EditTenantSchema });
    if (submission.status !== "success") return refused(intent, 400, submission.reply());
    try {
      const outcome = await editTenant(current, meta, tenant.id, submission.value);
      return redirectWithToast(here, "success", outcome.changed ? `${withoutBidiControls(tenant.name)} was updated.` : "Nothing changed.");
    } catch (error) {
      return refusedFor(intent, submission, error);
    }
  }
  if (intent === "suspend" || intent === "reactivate") {
    const submission = parseWithZod(form, { schema: ReasonSchema });
    if (submission.status !== "success") return refused(intent, 400, submission.reply({ hideFields: HIDDEN }));
    const stepUp = await checkStepUp(current, form);
    if (!stepUp.ok)
      return refused(intent, stepUp.status, submission.reply({ fieldErrors: { [STEP_UP_FIELD]: [stepUp.message] }, hideFields: HIDDEN }));
    try {
      if (intent === "suspend") {
        const done = await suspendTenant(current, meta, tenant.id, submission.value.reason);
        const campaigns = done.campaignsPaused ? ` ${done.campaignsPaused} campaign${done.campaignsPaused === 1 ? "" : "s"} paused.` : "";
        return redirectWithToast(
          here,
          "success",
          `${withoutBidiControls(tenant.name)} is suspended: its members were signed out and its API key refused.${campaigns}`,
        );
      }
      const done = await reactivateTenant(current, meta, tenant.id, submission.value.reason);
      const campaigns = done.campaignsResumed ? ` ${done.campaignsResumed} campaign${done.campaignsResumed === 1 ? "" : "s"} resumed.` : "";
      return redirectWithToast(here, "success", `${withoutBidiControls(tenant.name)} is active again.${campaigns}`);
    } catch (error) {
      return refusedFor(intent, submission, error);
    }
  }
  // Only a hand-made post has no button's intent: no form of the page shows it.
  return formFailure(null, 400, "Choose Edit User, Suspend User or Reactivate.", { intent });
}

/** A domain's refusal in the form it refused: at its field, or above the form; an unknown organisation is the 404 page. */
function refusedFor(intent: string, submission: { reply: (options: ReplyOptions) => SubmissionResult<string[]> }, error: unknown) {
  const refusal = refusalOf(error);
  if (refusal.status === 404) throw notFound();
  return refusalReply(submission, refusal, { hideFields: HIDDEN, extra: { intent } });
}

const ROLE_WORDS: Record<string, string> = { owner: "Owner", admin: "Admin", agent: "Agent", viewer: "Viewer" };

// One organisation: details, members, usage, wallet, activity and the administrators' records, with Edit, Suspend and Reactivate.
export default function AdminUser({ loaderData, actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const { tenant, members, messagesUsed, wallet, revenueCents, activity, audit, moreAudit, stepUpNeeded } = loaderData;
  const result = (intent: string) => (actionData && actionData.intent === intent ? actionData.result : undefined);
  const suspended = tenant.status === "suspended";
  return (
    <div className="space-y-6">
      <BackLink to="/admin/users">All users</BackLink>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <PageTitle>
            <Name>{tenant.name}</Name>
          </PageTitle>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-slate-600">
            <Badge status={tenant.status}>{tenant.status[0]!.toUpperCase() + tenant.status.slice(1)}</Badge>
            <span>
              {tenant.plan} · {tenant.billingType === "postpaid" ? "Postpaid" : "Prepaid"} · Business ID {tenant.businessId}
            </span>
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink to={dialogHref(searchParams, "edit")} variant="secondary" preventScrollReset>
            Edit User
          </ButtonLink>
          {suspended ? (
            <ButtonLink to={dialogHref(searchParams, "reactivate")} preventScrollReset>
              Reactivate
            </ButtonLink>
          ) : (
            <ButtonLink to={dialogHref(searchParams, "suspend")} variant="danger" preventScrollReset>
              Suspend User
            </ButtonLink>
          )}
        </div>
      </div>

      {suspended ? (
        <Notice tone="warning" title="Suspended">
          Since {tenant.suspendedAt ? formatWhen(tenant.suspendedAt) : "—"}. Reason: {tenant.suspensionReason ?? "—"}
        </Notice>
      ) : null}

      <div className="grid gap-6 lg:grid-cols-3">
        <Card aria-labelledby="details">
          <CardHeader id="details" title="Details" />
          <CardBody>
            <dl className="space-y-2 text-sm">
              <Detail
                label="Owner"
                value={tenant.owner ? <Name>{`${tenant.owner.firstName} ${tenant.owner.lastName}`}</Name> : "No owner"}
              />
              <Detail label="E-mail" value={tenant.owner?.email ?? "—"} />
              <Detail label="Phone" value={tenant.owner?.phoneNumber ?? "—"} />
              <Detail label="WhatsApp number" value={tenant.whatsappNumber ?? "Not connected"} />
              <Detail label="Joined" value={formatDay(tenant.joinDate)} />
              {tenant.closing ? <Detail label="Closing" value="The owner asked to close it" /> : null}
            </dl>
          </CardBody>
        </Card>
        <Card aria-labelledby="usage">
          <CardHeader id="usage" title="Usage this month" />
          <CardBody className="space-y-4">
            <ProgressBar
              label="Messages"
              value={Math.min(messagesUsed, tenant.messageLimit)}
              max={tenant.messageLimit}
              valueText={`${formatNumber(messagesUsed)} of ${formatNumber(tenant.messageLimit)}`}
              tone={messagesUsed >= tenant.messageLimit ? "danger" : "brand"}
            />
            <p className="text-sm text-slate-600" data-testid="message-limit-source">
              {tenant.limitOverride
                ? `Limit set by an administrator (override of the ${tenant.plan} plan's ${formatNumber(tenant.planMessageLimit)}). Reason: ${tenant.limitOverride.reason}`
                : `The ${tenant.plan} plan's limit.`}
            </p>
            <dl className="space-y-2 text-sm">
              <Detail label="Wallet balance" value={formatKes(wallet.balanceCents)} />
              <Detail label="Held for queued messages" value={formatKes(wallet.heldCents)} />
              <Detail label="Revenue (total paid)" value={formatKes(revenueCents)} />
            </dl>
          </CardBody>
        </Card>
        <Card aria-labelledby="members">
          <CardHeader id="members" title={`Members (${members.length})`} />
          <CardBody>
            <ul className="divide-y divide-slate-100 text-sm">
              {members.map((m) => (
                <li key={m.id} className="py-2">
                  <span className="font-medium text-slate-900">
                    <Name>{m.name}</Name>
                  </span>{" "}
                  · {ROLE_WORDS[m.role] ?? m.role}
                  <span className="block text-slate-600">{m.email}</span>
                  <span className="block text-xs text-slate-500">
                    {m.lastSignIn ? `Last signed in ${formatWhen(m.lastSignIn)}` : "Never signed in"}
                  </span>
                </li>
              ))}
            </ul>
          </CardBody>
        </Card>
      </div>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card aria-labelledby="activity">
          <CardHeader id="activity" title="Recent activity" />
          <CardBody>
            {activity.length ? (
              <ul className="divide-y divide-slate-100 text-sm">
                {activity.map((a) => (
                  <li key={a.id} className="py-2">
                    <span className="font-medium text-slate-900">{a.action}</span>{" "}
                    <span className="text-xs text-slate-500">
                      <time dateTime={a.createdAt}>{formatWhen(a.createdAt)}</time>
                    </span>
                    {a.details ? <span className="block text-slate-600">{a.details}</span> : null}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-slate-600">No activity yet.</p>
            )}
          </CardBody>
        </Card>
        <Card aria-labelledby="admin-records">
          <CardHeader
            id="admin-records"
            title="Administrator actions"
            actions={
              <Link to={`/admin/audit?org=${tenant.id}`} className="text-sm font-medium text-brand-700 underline">
                {moreAudit ? "All records in the audit log" : "Open in the audit log"}
              </Link>
            }
          />
          <CardBody>
            {audit.length ? (
              <ul className="divide-y divide-slate-100 text-sm">
                {audit.map((r) => (
                  <li key={r.id} className="py-2">
                    <span className="font-medium text-slate-900">{auditActionLabel(r.action)}</span>{" "}
                    <span className="text-xs text-slate-500">
                      by {r.adminEmail}, <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time>
                    </span>
                    {r.reason ? <span className="block text-slate-600">Reason: {r.reason}</span> : null}
                    <span className="block text-xs text-slate-500">{describeChange(r.before, r.after)}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-slate-600">No administrator has acted on this organisation.</p>
            )}
          </CardBody>
        </Card>
      </div>

      <UrlDialog name="edit" searchParams={searchParams} title="Edit User">
        <EditUserForm tenant={tenant} result={result("edit")} cancel={closeDialogHref(searchParams)} busy={busy} />
      </UrlDialog>

      <UrlDialog
        name="suspend"
        searchParams={searchParams}
        title="Suspend User"
        description="At once: every member is signed out, the API key is refused, and scheduled and sending campaigns pause. Reactivate undoes it."
      >
        <ReasonForm
          intent="suspend"
          label="Suspend"
          danger
          result={result("suspend")}
          stepUpNeeded={stepUpNeeded}
          cancel={closeDialogHref(searchParams)}
          busy={busy}
        />
      </UrlDialog>
      <UrlDialog
        name="reactivate"
        searchParams={searchParams}
        title="Reactivate"
        description="The organisation becomes active again, and the campaigns the suspension paused resume."
      >
        <ReasonForm
          intent="reactivate"
          label="Reactivate"
          result={result("reactivate")}
          stepUpNeeded={stepUpNeeded}
          cancel={closeDialogHref(searchParams)}
          busy={busy}
        />
      </UrlDialog>
    </div>
  );
}

type EditFields = Record<"plan" | "limitOverride" | "overrideReason" | "status" | "firstName" | "lastName" | "email" | "phone", string>;

/** Edit User: the organisation's plan, its message limit, its status and its owner's contact details. */
function EditUserForm({
  tenant,
  result,
  cancel,
  busy,
}: {
  tenant: Route.ComponentProps["loaderData"]["tenant"];
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
        label="Plan"
        name={fields.plan.name}
        defaultValue={fields.plan.initialValue}
        options={USER_PLANS.map((p) => ({ value: p, label: p }))}
        errors={fields.plan.errors}
        key={fields.plan.key}
      />
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold text-slate-700">Message limit</legend>
        <p className="text-sm text-slate-600">
          The limit follows the plan&apos;s price list ({tenant.billingType === "postpaid" ? "postpaid" : "prepaid"}: the {tenant.plan} plan
          allows {formatNumber(tenant.planMessageLimit)} messages a month). Leave the override empty to follow the plan.
        </p>
        <Field
          label="Override the plan's limit (messages a month)"
          name={fields.limitOverride.name}
          inputMode="numeric"
          defaultValue={fields.limitOverride.initialValue}
          errors={fields.limitOverride.errors}
          key={fields.limitOverride.key}
        />
        <TextareaField
          label="Reason for the override"
          name={fields.overrideReason.name}
          rows={2}
          maxLength={REASON_MAX}
          defaultValue={fields.overrideReason.initialValue}
          errors={fields.overrideReason.errors}
          key={fields.overrideReason.key}
        />
      </fieldset>
      {suspended ? (
        <p className="text-sm text-slate-600">Status: suspended. Reactivate it with Reactivate, giving the reason.</p>
      ) : (
        <SelectField
          label="Status"
          name={fields.status.name}
          defaultValue={fields.status.initialValue}
          options={[
            { value: "active", label: "Active" },
            { value: "pending", label: "Pending" },
          ]}
          errors={fields.status.errors}
          key={fields.status.key}
        />
      )}
      {tenant.owner ? (
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold text-slate-700">The owner&apos;s contact details</legend>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field
              label="First name"
              name={fields.firstName.name}
              defaultValue={fields.firstName.initialValue}
              errors={fields.firstName.errors}
              key={fields.firstName.key}
              autoComplete="off"
              markRequired
            />
            <Field
              label="Last name"
              name={fields.lastName.name}
              defaultValue={fields.lastName.initialValue}
              errors={fields.lastName.errors}
              key={fields.lastName.key}
              autoComplete="off"
              markRequired
            />
          </div>
          <Field
            label="E-mail"
            name={fields.email.name}
            type="email"
            defaultValue={fields.email.initialValue}
            errors={fields.email.errors}
            key={fields.email.key}
            autoComplete="off"
            markRequired
          />
          <Field
            label="Phone"
            name={fields.phone.name}
            type="tel"
            defaultValue={fields.phone.initialValue}
            errors={fields.phone.errors}
            key={fields.phone.key}
            autoComplete="off"
          />
        </fieldset>
      ) : null}
      <DialogButtons cancel={cancel} busy={busy} intent="edit" label="Save changes" />
    </Form>
  );
}

function Detail({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="flex justify-between gap-3">
      <dt className="text-slate-600">{label}</dt>
      <dd className="text-right font-medium text-slate-900">{value}</dd>
    </div>
  );
}

function ReasonForm({
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
        label="Reason"
        name={fields.reason.name}
        maxLength={REASON_MAX}
        hint="Recorded in the audit log."
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
        Cancel
      </ButtonLink>
      <Button type="submit" name="intent" value={intent} variant={danger ? "danger" : "primary"} pending={busy}>
        {label}
      </Button>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
