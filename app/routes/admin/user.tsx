import type { ReactNode } from "react";
import { data, Form, Link, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/user";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { checkStepUp, stepUpNeeded, typedValues } from "~/.server/domains/admin/step-up";
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
import { refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import { PageTitle } from "~/components/ui/page-title";

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

type ActionResult = { intent: string; fieldErrors?: Record<string, string[]>; formError?: string; values?: Record<string, string> };

const refused = (intent: string, status: number, result: Omit<ActionResult, "intent">) =>
  data<ActionResult>({ intent, ...result }, { status });

const fieldErrorsOf = (issues: readonly { path: readonly PropertyKey[]; message: string }[]) => {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) (errors[String(issue.path[0] ?? "form")] ??= []).push(issue.message);
  return errors;
};

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
  try {
    if (intent === "edit") {
      const parsed = EditTenantSchema.safeParse(Object.fromEntries([...form].filter(([, v]) => typeof v === "string")));
      if (!parsed.success) return refused(intent, 400, { fieldErrors: fieldErrorsOf(parsed.error.issues), values: typedValues(form) });
      const outcome = await editTenant(current, meta, tenant.id, parsed.data);
      if (!outcome.ok) return refused(intent, outcome.status, { fieldErrors: outcome.fieldErrors, values: typedValues(form) });
      return redirectWithToast(here, "success", outcome.changed ? `${withoutBidiControls(tenant.name)} was updated.` : "Nothing changed.");
    }
    if (intent === "suspend" || intent === "reactivate") {
      const parsed = ReasonSchema.safeParse({ reason: form.get("reason") ?? "" });
      if (!parsed.success) return refused(intent, 400, { fieldErrors: fieldErrorsOf(parsed.error.issues), values: typedValues(form) });
      const stepUp = await checkStepUp(current, form);
      if (!stepUp.ok) return refused(intent, stepUp.status, { fieldErrors: { confirmation: [stepUp.message] }, values: typedValues(form) });
      if (intent === "suspend") {
        const done = await suspendTenant(current, meta, tenant.id, parsed.data.reason);
        const campaigns = done.campaignsPaused ? ` ${done.campaignsPaused} campaign${done.campaignsPaused === 1 ? "" : "s"} paused.` : "";
        return redirectWithToast(
          here,
          "success",
          `${withoutBidiControls(tenant.name)} is suspended: its members were signed out and its API key refused.${campaigns}`,
        );
      }
      const done = await reactivateTenant(current, meta, tenant.id, parsed.data.reason);
      const campaigns = done.campaignsResumed ? ` ${done.campaignsResumed} campaign${done.campaignsResumed === 1 ? "" : "s"} resumed.` : "";
      return redirectWithToast(here, "success", `${withoutBidiControls(tenant.name)} is active again.${campaigns}`);
    }
    return refused(intent, 400, { formError: "Choose Edit User, Suspend User or Reactivate." });
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status === 404) throw notFound();
    return refused(intent, refusal.status, { formError: refusal.message });
  }
}

const ROLE_WORDS: Record<string, string> = { owner: "Owner", admin: "Admin", agent: "Agent", viewer: "Viewer" };

// One organisation: details, members, usage, wallet, activity and the administrators' records, with Edit, Suspend and Reactivate.
export default function AdminUser({ loaderData, actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const { tenant, members, messagesUsed, wallet, revenueCents, activity, audit, moreAudit, stepUpNeeded } = loaderData;
  const result = (intent: string) => (actionData && actionData.intent === intent ? actionData : undefined);
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
        <Form method="post" action={`?${new URLSearchParams({ dialog: "edit" })}`} className="space-y-3" noValidate>
          <FormError errors={result("edit")?.formError ? [result("edit")!.formError!] : null} />
          <SelectField
            label="Plan"
            name="plan"
            defaultValue={result("edit")?.values?.plan ?? tenant.plan}
            options={USER_PLANS.map((p) => ({ value: p, label: p }))}
            errors={result("edit")?.fieldErrors?.plan}
          />
          <fieldset className="space-y-3">
            <legend className="text-sm font-semibold text-slate-700">Message limit</legend>
            <p className="text-sm text-slate-600">
              The limit follows the plan&apos;s price list ({tenant.billingType === "postpaid" ? "postpaid" : "prepaid"}: the {tenant.plan}{" "}
              plan allows {formatNumber(tenant.planMessageLimit)} messages a month). Leave the override empty to follow the plan.
            </p>
            <Field
              label="Override the plan's limit (messages a month)"
              name="limitOverride"
              inputMode="numeric"
              defaultValue={result("edit")?.values?.limitOverride ?? (tenant.limitOverride ? String(tenant.limitOverride.messages) : "")}
              errors={result("edit")?.fieldErrors?.limitOverride}
            />
            <TextareaField
              label="Reason for the override"
              name="overrideReason"
              rows={2}
              maxLength={REASON_MAX}
              defaultValue={result("edit")?.values?.overrideReason ?? tenant.limitOverride?.reason ?? ""}
              errors={result("edit")?.fieldErrors?.overrideReason}
            />
          </fieldset>
          {suspended ? (
            <p className="text-sm text-slate-600">Status: suspended. Reactivate it with Reactivate, giving the reason.</p>
          ) : (
            <SelectField
              label="Status"
              name="status"
              defaultValue={tenant.status}
              options={[
                { value: "active", label: "Active" },
                { value: "pending", label: "Pending" },
              ]}
              errors={result("edit")?.fieldErrors?.status}
            />
          )}
          {tenant.owner ? (
            <fieldset className="space-y-3">
              <legend className="text-sm font-semibold text-slate-700">The owner&apos;s contact details</legend>
              <div className="grid gap-3 sm:grid-cols-2">
                <Field
                  label="First name"
                  name="firstName"
                  defaultValue={tenant.owner.firstName}
                  errors={result("edit")?.fieldErrors?.firstName}
                  autoComplete="off"
                  markRequired
                />
                <Field
                  label="Last name"
                  name="lastName"
                  defaultValue={tenant.owner.lastName}
                  errors={result("edit")?.fieldErrors?.lastName}
                  autoComplete="off"
                  markRequired
                />
              </div>
              <Field
                label="E-mail"
                name="email"
                type="email"
                defaultValue={tenant.owner.email}
                errors={result("edit")?.fieldErrors?.email}
                autoComplete="off"
                markRequired
              />
              <Field
                label="Phone"
                name="phone"
                type="tel"
                defaultValue={tenant.owner.phoneNumber ?? ""}
                errors={result("edit")?.fieldErrors?.phone}
                autoComplete="off"
              />
            </fieldset>
          ) : null}
          <DialogButtons cancel={closeDialogHref(searchParams)} busy={busy} intent="edit" label="Save changes" />
        </Form>
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
  result?: ActionResult;
  stepUpNeeded: boolean;
  cancel: string;
  busy: boolean;
}) {
  return (
    <Form method="post" action={`?${new URLSearchParams({ dialog: intent })}`} className="space-y-3" noValidate>
      <FormError errors={result?.formError ? [result.formError] : null} />
      <TextareaField
        label="Reason"
        name="reason"
        maxLength={REASON_MAX}
        hint="Recorded in the audit log."
        defaultValue={result?.values?.reason}
        errors={result?.fieldErrors?.reason}
        markRequired
      />
      <StepUpField needed={stepUpNeeded} error={result?.fieldErrors?.confirmation?.[0]} id={`${intent}-confirmation`} />
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
