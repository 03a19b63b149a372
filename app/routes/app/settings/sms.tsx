import { data, href } from "react-router";
import type { Route } from "./+types/sms";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import {
  automationFallbacksOf,
  removeSmsConnection,
  saveAutomationFallback,
  saveSmsConnection,
  smsConnectionView,
  testSmsConnection,
} from "~/.server/domains/sms";
import { AutomationFallbackSchema, RemoveSmsSchema, SaveSmsSchema, SmsButtonSchema } from "~/lib/schemas/sms";
import { FALLBACK_AFTER_DEFAULT } from "~/lib/sms-fallback";
import { AutomationFallbacks } from "~/components/settings/sms/automation-fallbacks";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Toast } from "~/components/ui/toast";
import { SettingsHeader } from "~/components/settings/settings-header";
import { SmsConnectForm, SmsConnectionCard } from "~/components/settings/sms/sms-connection";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Settings → SMS (issue 77, decision 148): the organisation's own Africa's Talking application. Seen and
// changed by owners and admins (whatsapp:manage: it is a channel, as the WhatsApp connection is). Sent
// as a document without React (decision 066); every form works without JavaScript.
export const handle: PermissionHandle & PageHandle = { permission: "whatsapp:manage", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.sms_meta_title() }];

/** The connection (never its key), and whether the URL asks to confirm disconnecting. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const connection = await smsConnectionView(current.organization.id);
  return {
    connection,
    // Automations' SMS fallback (decision 159): offered only while SMS is connected.
    fallbacks: connection ? await automationFallbacksOf(current.organization.id) : null,
    canManage: can(current.role, "whatsapp:manage"),
    removing: connection !== null && args.url.searchParams.get("confirm") === "remove",
  };
}

// The key is never sent back to the page, not even the one just typed.
const SECRET_FIELDS = ["apiKey"];

export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const here = href("/settings/sms");
  return intentAction(args, {
    permission: "whatsapp:manage",
    intents: {
      save: intent(
        SaveSmsSchema,
        async ({ value, submission, user, intent: posted }) => {
          try {
            const changed = await saveSmsConnection(user, value, meta);
            return redirectWithToast(here, "success", changed ? m.sms_saved_toast() : m.sms_unchanged_toast());
          } catch (error) {
            const refusal = refusalOf(error);
            if (!refusal.field) throw refusal;
            return refusalReply(submission, refusal, { hideFields: SECRET_FIELDS, extra: { intent: posted } });
          }
        },
        { reply: { hideFields: SECRET_FIELDS } },
      ),
      test: intent(SmsButtonSchema, async ({ user }) => {
        const result = await testSmsConnection(user, meta);
        return result.working
          ? redirectWithToast(here, "success", m.sms_working_toast({ balance: result.balance ?? "" }))
          : redirectWithToast(here, "error", m.sms_failing_toast({ reason: result.reason ?? "" }));
      }),
      fallback: intent(AutomationFallbackSchema, async ({ value, user, intent: posted }) => {
        const after = value.sms_after ? Number(value.sms_after) : FALLBACK_AFTER_DEFAULT;
        const given = { mode: value.sms_fallback, text: value.sms_text ?? "", afterMinutes: after };
        try {
          await saveAutomationFallback(user, value.automation, given, meta);
          return redirectWithToast(here, "success", m.sms_auto_fallback_saved_toast());
        } catch (error) {
          const refusal = refusalOf(error);
          if (!refusal.field) throw refusal;
          const failed = { automation: value.automation, mode: value.sms_fallback, text: given.text, after: value.sms_after ?? "" };
          return data({ intent: posted, fallback: { ...failed, error: refusal.message } }, { status: refusal.status });
        }
      }),
      remove: intent(RemoveSmsSchema, async ({ value, user, intent: posted }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, m.sms_refusal_confirm(), { intent: posted });
        await removeSmsConnection(user, meta);
        return redirectWithToast(here, "success", m.sms_removed_toast());
      }),
    },
    refused: (refusal, posted) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent: posted });
    },
    unknown: () => {
      throw data(m.settings_unknown_action(), { status: 400 });
    },
  });
}

export default function SmsSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { connection, canManage, removing, fallbacks } = loaderData;
  const here = href("/settings/sms");
  const result = actionData?.intent === "save" ? actionData.result : undefined;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="sms" />
      <Card>
        <CardHeader title={m.sms_title()} description={m.sms_description()} />
        {connection ? (
          <SmsConnectionCard connection={connection} canManage={canManage} />
        ) : (
          <p className="mt-3 text-slate-600">{m.sms_empty()}</p>
        )}
        {removing ? (
          <ConfirmPanel title={m.sms_remove_title()} intent="remove" confirmLabel={m.sms_remove_confirm()} cancelTo={here} fields={{}}>
            {m.sms_remove_body()}
          </ConfirmPanel>
        ) : null}
      </Card>
      {canManage ? <SmsConnectForm connection={connection} result={result} /> : null}
      {canManage && fallbacks ? (
        <AutomationFallbacks settings={fallbacks} failed={actionData && "fallback" in actionData ? actionData.fallback : null} />
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
