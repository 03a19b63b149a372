import { data, useNavigation, useSearchParams } from "react-router";
import type { SubmissionResult } from "~/components/ui/form-state";
import type { Route } from "./+types/user";
import { requireDeclaredStaff, type CurrentUser } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { adminIntent, adminIntentAction } from "~/.server/domains/admin/form-actions";
import type { SubmissionOf } from "~/.server/infrastructure/http/intents";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { checkStepUp, STEP_UP_FIELD, stepUpNeeded } from "~/.server/domains/admin/step-up";
import { findTenant, tenantActivity } from "~/.server/domains/admin/users/detail";
import { activityInWords } from "~/.server/domains/activity/words";
import { EditTenantSchema, editTenant, ReasonSchema } from "~/.server/domains/admin/users/edit";
import { reactivateTenant, suspendTenant } from "~/.server/domains/admin/users/suspension";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { TenantOverview, TenantRecords } from "~/components/admin/users/user-cards";
import { EditUserForm, ReasonForm } from "~/components/admin/users/user-forms";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Name } from "~/components/ui/name";
import { ButtonLink } from "~/components/ui/button";
import { closeDialogHref, dialogHref, UrlDialog } from "~/components/ui/dialog";
import { Notice } from "~/components/ui/notice";
import { formatWhen } from "~/lib/dates";
import { withoutBidiControls } from "~/lib/names";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";
import { byCount } from "~/lib/intl";
import { billingTypeWords, userStatusWords } from "~/lib/admin-users";

export const meta: Route.MetaFunction = ({ data: loaded }) => [
  {
    title: m.admin_title({
      page: `${loaded && "tenant" in loaded ? withoutBidiControls(loaded.tenant.name) : m.admin_column_organisation()} | ${m.admin_tab_users()}`,
    }),
  },
];

const notFound = () => data("Not Found", { status: 404 });

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  const tenant = await findTenant(scope, args.params.id);
  if (!tenant) throw notFound();
  const records = await tenantActivity(scope, tenant.id);
  // The tenant's activity in the administrator's language (stored in English).
  return { tenant, ...records, activity: records.activity.map(activityInWords), stepUpNeeded: stepUpNeeded(current) };
}

type ReplyOptions = { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] };

/** Never sent back to the form: the administrator's password (or code) of a step-up. */
const HIDDEN = [STEP_UP_FIELD];

/** The form again with its intent (the page has three), its status and Conform's reply. */
const refused = <Result,>(intent: string, status: number, result: Result) => formFailure(result, status, undefined, { intent });

/** Edit User, Suspend User and Reactivate: each a POST with its intent; suspend and reactivate need a fresh proof (step-up). */
export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  // The organisation the page is about: a 404 before anything else.
  const tenantOf = async (current: CurrentUser) => {
    const tenant = await findTenant(platformScope(current), args.params.id);
    if (!tenant) throw notFound();
    return tenant;
  };
  const invalid =
    (hideFields?: string[]) =>
    async (submission: { reply: (options: ReplyOptions) => SubmissionResult<string[]> }, intent: string, user: CurrentUser) => {
      await tenantOf(user);
      return refused(intent, 400, submission.reply(hideFields ? { hideFields } : {}));
    };
  const suspendOrReactivate = adminIntent(
    ReasonSchema,
    async ({ value, submission, form, user, intent }) =>
      changeStatus(await tenantOf(user), user, meta, { value, submission, form, intent }),
    { invalid: invalid(HIDDEN) },
  );
  return adminIntentAction(args, {
    permission: "platform:console",
    intents: {
      edit: adminIntent(
        EditTenantSchema,
        async ({ value, submission, user, intent }) => {
          const tenant = await tenantOf(user);
          try {
            const outcome = await editTenant(user, meta, tenant.id, value);
            return redirectWithToast(
              `/admin/users/${tenant.id}`,
              "success",
              outcome.changed ? m.admin_user_updated({ name: withoutBidiControls(tenant.name) }) : m.admin_user_nothing_changed(),
            );
          } catch (error) {
            return refusedFor(intent, submission, error);
          }
        },
        { invalid: invalid() },
      ),
      suspend: suspendOrReactivate,
      reactivate: suspendOrReactivate,
    },
    // Only a hand-made post has no button's intent: no form of the page shows it.
    unknown: async (intent, _read, user) => {
      await tenantOf(user);
      return formFailure(null, 400, m.admin_user_choose_action(), { intent });
    },
  });
}

/** Suspend or reactivate: a fresh proof first (step-up), then the change and its toast. */
async function changeStatus(
  tenant: NonNullable<Awaited<ReturnType<typeof findTenant>>>,
  current: CurrentUser,
  meta: ReturnType<typeof requestMeta>,
  {
    value,
    submission,
    form,
    intent,
  }: { value: { reason: string }; submission: SubmissionOf<typeof ReasonSchema>; form: FormData; intent: string },
) {
  const here = `/admin/users/${tenant.id}`;
  const stepUp = await checkStepUp(current, form);
  if (!stepUp.ok)
    return refused(intent, stepUp.status, submission.reply({ fieldErrors: { [STEP_UP_FIELD]: [stepUp.message] }, hideFields: HIDDEN }));
  try {
    if (intent === "suspend") {
      const done = await suspendTenant(current, meta, tenant.id, value.reason);
      const count = done.campaignsPaused;
      const campaigns = count
        ? ` ${byCount(
            count,
            () => m.admin_user_campaigns_paused_one({ count }),
            () => m.admin_user_campaigns_paused_other({ count }),
          )}`
        : "";
      return redirectWithToast(here, "success", `${m.admin_user_suspended_toast({ name: withoutBidiControls(tenant.name) })}${campaigns}`);
    }
    const done = await reactivateTenant(current, meta, tenant.id, value.reason);
    const count = done.campaignsResumed;
    const campaigns = count
      ? ` ${byCount(
          count,
          () => m.admin_user_campaigns_resumed_one({ count }),
          () => m.admin_user_campaigns_resumed_other({ count }),
        )}`
      : "";
    return redirectWithToast(here, "success", `${m.admin_user_reactivated_toast({ name: withoutBidiControls(tenant.name) })}${campaigns}`);
  } catch (error) {
    return refusedFor(intent, submission, error);
  }
}

/** A domain's refusal in the form it refused: at its field, or above the form; an unknown organisation is the 404 page. */
function refusedFor(intent: string, submission: { reply: (options: ReplyOptions) => SubmissionResult<string[]> }, error: unknown) {
  const refusal = refusalOf(error);
  if (refusal.status === 404) throw notFound();
  return refusalReply(submission, refusal, { hideFields: HIDDEN, extra: { intent } });
}

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
      <BackLink to="/admin/users">{m.admin_user_back()}</BackLink>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <PageTitle>
            <Name>{tenant.name}</Name>
          </PageTitle>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-slate-600">
            <Badge status={tenant.status}>{userStatusWords(tenant.status)}</Badge>
            <span>
              {tenant.plan} · {billingTypeWords(tenant.billingType)} · {m.admin_user_business_id({ id: tenant.businessId })}
            </span>
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink to={dialogHref(searchParams, "edit")} variant="secondary" preventScrollReset>
            {m.admin_user_edit()}
          </ButtonLink>
          {suspended ? (
            <ButtonLink to={dialogHref(searchParams, "reactivate")} preventScrollReset>
              {m.admin_user_reactivate()}
            </ButtonLink>
          ) : (
            <ButtonLink to={dialogHref(searchParams, "suspend")} variant="danger" preventScrollReset>
              {m.admin_user_suspend_user()}
            </ButtonLink>
          )}
        </div>
      </div>

      {suspended ? (
        <Notice tone="warning" title={m.admin_status_suspended()}>
          {m.admin_user_suspended_since({
            when: tenant.suspendedAt ? formatWhen(tenant.suspendedAt) : "—",
            reason: tenant.suspensionReason ?? "—",
          })}
        </Notice>
      ) : null}

      <TenantOverview tenant={tenant} members={members} messagesUsed={messagesUsed} wallet={wallet} revenueCents={revenueCents} />

      <TenantRecords tenant={tenant} activity={activity} audit={audit} moreAudit={moreAudit} />

      <UrlDialog name="edit" searchParams={searchParams} title={m.admin_user_edit()}>
        <EditUserForm tenant={tenant} result={result("edit")} cancel={closeDialogHref(searchParams)} busy={busy} />
      </UrlDialog>

      <UrlDialog
        name="suspend"
        searchParams={searchParams}
        title={m.admin_user_suspend_user()}
        description={m.admin_user_suspend_description()}
      >
        <ReasonForm
          intent="suspend"
          label={m.admin_user_suspend()}
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
        title={m.admin_user_reactivate()}
        description={m.admin_user_reactivate_description()}
      >
        <ReasonForm
          intent="reactivate"
          label={m.admin_user_reactivate()}
          result={result("reactivate")}
          stepUpNeeded={stepUpNeeded}
          cancel={closeDialogHref(searchParams)}
          busy={busy}
        />
      </UrlDialog>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
