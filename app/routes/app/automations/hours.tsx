import { href } from "react-router";
import type { Route } from "./+types/hours";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { formAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { readAutomationSettings, saveAutomationSettings, WELCOME_AGAIN_AFTER_DAYS } from "~/.server/domains/automations/settings";
import { openingState } from "~/.server/domains/automations/page";
import { AutomationSettingsSchema, settingsFormValues, settingsInputOf } from "~/lib/schemas/automations";
import { timeZoneLabel } from "~/lib/time-zones";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { AutomationSettingsForm, OpeningNotice } from "~/components/automations/settings-form";
import { BackLink } from "~/components/ui/back-link";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// The welcome and away messages with the business hours: a document without React (decision 066); saved whole, checked by the server.
export const handle: PermissionHandle & PageHandle = { permission: "automations:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.automations_hours_meta_title() }];

/** The saved settings in the form's fields, the organisation's time zone, and whether it is open now by them. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const settings = await readAutomationSettings(current.organization.id);
  const timeZone = current.organization.timeZone;
  return {
    values: settingsFormValues(settings),
    canManage: can(current.role, "automations:manage"),
    // The time zone is the organisation's details' (Account Settings), which owners and admins change.
    canChangeZone: can(current.role, "organization:manage"),
    timeZone,
    state: openingState(settings, timeZone),
    welcomeAgainDays: WELCOME_AGAIN_AFTER_DAYS,
  };
}

/** Saves the whole form (owners and admins: the guard sends anyone else to the refusal page); nothing changes on a refusal. */
export async function action(args: Route.ActionArgs) {
  return formAction(args, {
    permission: "automations:manage",
    schema: AutomationSettingsSchema,
    handle: async ({ value, submission, user }) => {
      const actor = { organizationId: user.organization.id, userId: user.user.id, meta: requestMeta(args.request, args.context) };
      try {
        await saveAutomationSettings(actor, settingsInputOf(value), user.organization.timeZone);
      } catch (error) {
        // Refused for a field (opening times that overlap, a date that does not exist): said there, the form as it was sent.
        const refusal = refusalOf(error);
        if (!refusal.field) return refusalToast(refusal);
        return refusalReply(submission, refusal, { field: refusal.field === "form" ? null : refusal.field });
      }
      return redirectWithToast(href("/automations/hours"), "success", m.automations_hours_saved());
    },
  });
}

export default function AutomationHours({ loaderData, actionData }: Route.ComponentProps) {
  const { values, canManage, canChangeZone, timeZone, state, welcomeAgainDays } = loaderData;
  const zoneLine = (
    <>
      {m.automations_hours_zone({ zone: timeZoneLabel(timeZone) })}{" "}
      {canChangeZone ? <TextLink to={href("/settings/organisation")}>{m.automations_hours_zone_link()}</TextLink> : null}
    </>
  );
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="max-w-3xl">
        <BackLink to={href("/automations")}>{m.automations_back()}</BackLink>
        <div className="mt-2">
          <PageTitle>{m.automations_hours_title()}</PageTitle>
        </div>
        <p className="text-slate-600">{m.automations_hours_intro({ days: welcomeAgainDays })}</p>
      </div>
      <div className="max-w-3xl">
        <OpeningNotice opening={state} />
      </div>
      {canManage ? null : (
        <div className="max-w-3xl">
          <Notice>{m.automations_read_only()}</Notice>
        </div>
      )}
      <AutomationSettingsForm
        values={values}
        result={
          actionData && "result" in actionData ? (actionData.result as Parameters<typeof AutomationSettingsForm>[0]["result"]) : undefined
        }
        canManage={canManage}
        zoneLine={zoneLine}
      />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
