import { data, Form, href } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/notifications";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { readEmailRules, saveEmailRules } from "~/.server/domains/notifications/rules";
import { EVENT_SETTINGS, RULE_ROLES } from "~/lib/notifications";
import { ROLE_WORDS } from "~/lib/schemas/team-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { SettingsHeader } from "~/components/settings/settings-header";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Toast } from "~/components/ui/toast";
import { refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A form of checkboxes: sent as a document without React (decision 066); app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "notifications:manage", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_notifications_meta_title() }];

export const RULES_MESSAGES = {
  get badRole() {
    return m.settings_notifications_bad_role();
  },
};

/** "<event>: e-mail owners": a checkbox's name, by the role it ticks. */
function emailRoleLabel(event: string, role: (typeof RULE_ROLES)[number]) {
  if (role === "owner") return m.settings_notifications_email_owners({ event });
  if (role === "admin") return m.settings_notifications_email_admins({ event });
  if (role === "agent") return m.settings_notifications_email_agents({ event });
  return m.settings_notifications_email_viewers({ event });
}

// For each event the roles ticked (`<event>=<role>`, repeated): only the roles a rule can name.
const RulesSchema = z.object(Object.fromEntries(EVENT_SETTINGS.map((s) => [s.event, z.array(z.enum(RULE_ROLES))])));

/** Who each event e-mails in this organisation (owners and admins choose). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return { rules: await readEmailRules(current.organization.id) };
}

/** Saves the whole table at once: for each event, the roles ticked (`<event>=<role>`, repeated). */
export async function action(args: Route.ActionArgs) {
  return intentAction(args, {
    permission: "notifications:manage",
    intents: {
      save: intent(
        RulesSchema,
        async ({ value, user }) => {
          const changed = await saveEmailRules(user, value, requestMeta(args.request, args.context));
          return redirectWithToast(
            href("/settings/notifications"),
            "success",
            changed ? m.settings_notifications_saved_toast() : m.settings_notifications_unchanged_toast(),
          );
        },
        { invalid: () => formFailure(null, 400, RULES_MESSAGES.badRole) },
      ),
    },
    refused: (refusal) => refusalToast(refusal),
    unknown: () => {
      throw data(m.settings_unknown_action(), { status: 400 });
    },
  });
}

export default function NotificationSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { rules } = loaderData;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="notifications" />
      <Card padding="none">
        <div className="px-4 pt-4">
          <CardHeader title={m.settings_notifications_title()} description={m.settings_notifications_description()} />
        </div>
        <Form method="post" className="mt-2">
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">{m.settings_notifications_caption()}</caption>
              <thead className="border-y border-slate-200 bg-slate-50 text-xs font-semibold tracking-wide text-slate-600 uppercase">
                <tr>
                  <th scope="col" className="px-4 py-2">
                    {m.settings_notifications_column_event()}
                  </th>
                  {RULE_ROLES.map((role) => (
                    <th key={role} scope="col" className="px-3 py-2 text-center">
                      {ROLE_WORDS[role]}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {EVENT_SETTINGS.map((s) => (
                  <tr key={s.event}>
                    <th scope="row" className="px-4 py-3 font-normal">
                      <span className="font-medium text-slate-900">{s.label}</span>
                      <span className="block text-slate-600">{s.description}</span>
                      {s.note ? <span className="block text-xs text-amber-800">{s.note}</span> : null}
                    </th>
                    {RULE_ROLES.map((role) => (
                      <td key={role} className="px-3 py-3 text-center">
                        <input
                          type="checkbox"
                          name={s.event}
                          value={role}
                          defaultChecked={rules[s.event].includes(role)}
                          aria-label={emailRoleLabel(s.label, role)}
                          className="size-4 rounded border-slate-300 accent-brand-700"
                        />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="flex justify-end border-t border-slate-200 p-4">
            <Button type="submit" name="intent" value="save" pendingText={m.settings_saving()}>
              {m.settings_notifications_save()}
            </Button>
          </div>
        </Form>
      </Card>
    </div>
  );
}

export const ErrorBoundary = PageErrorBoundary;
