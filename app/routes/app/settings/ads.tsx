import { data, Form, href } from "react-router";
import type { Route } from "./+types/ads";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { conversionSettings, setConversionConsent, setLeadTags } from "~/.server/domains/ads";
import { ConversionConsentSchema, LeadTagsSchema } from "~/lib/schemas/ad-conversions";
import { LeadTagsCard } from "~/components/settings/lead-tags-card";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card, CardHeader } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { Toast } from "~/components/ui/toast";
import { SettingsHeader } from "~/components/settings/settings-header";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Settings → Ads (issue 77, decision 156): "Send conversions to Meta", off until an owner or admin
// turns it on (whatsapp:manage: it speaks for the organisation's WhatsApp accounts at Meta). A
// document without React (decision 066): each button is a plain form post.
export const handle: PermissionHandle & PageHandle = { permission: "whatsapp:manage", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.ads_settings_meta_title() }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return { settings: await conversionSettings(current.organization.id), canManage: can(current.role, "whatsapp:manage") };
}

export async function action(args: Route.ActionArgs) {
  const meta = requestMeta(args.request, args.context);
  const here = href("/settings/ads");
  return intentAction(args, {
    permission: "whatsapp:manage",
    intents: {
      "conversions-on": intent(ConversionConsentSchema, async ({ user }) => {
        await setConversionConsent(user, true, meta);
        return redirectWithToast(here, "success", m.ads_conversions_on_toast());
      }),
      "conversions-off": intent(ConversionConsentSchema, async ({ user }) => {
        await setConversionConsent(user, false, meta);
        return redirectWithToast(here, "success", m.ads_conversions_off_toast());
      }),
      "lead-tags": intent(LeadTagsSchema, async ({ user, value }) => {
        const changed = await setLeadTags(user, value.leadTags, meta);
        return redirectWithToast(here, "success", changed ? m.ads_lead_tags_saved_toast() : m.ads_lead_tags_unchanged_toast());
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

export default function AdsSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { settings, canManage } = loaderData;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="ads" />
      <Card>
        <CardHeader title={m.ads_conversions_title()} description={m.ads_conversions_description()} />
        <p className="mt-3 font-medium text-slate-900" data-testid="conversions-state">
          {settings.enabled ? m.ads_conversions_on() : m.ads_conversions_off()}
        </p>
        {settings.hasAccount || settings.enabled ? null : <p className="mt-2 text-slate-600">{m.ads_conversions_no_account()}</p>}
        {canManage ? (
          <Form method="post" className="mt-4">
            <Button
              type="submit"
              name="intent"
              value={settings.enabled ? "conversions-off" : "conversions-on"}
              variant={settings.enabled ? "secondary" : "primary"}
            >
              {settings.enabled ? m.ads_conversions_turn_off() : m.ads_conversions_turn_on()}
            </Button>
          </Form>
        ) : (
          <p className="mt-2 text-slate-600">{m.ads_conversions_readonly()}</p>
        )}
        {settings.datasets.length ? (
          <div className="mt-4">
            <h3 className="font-medium text-slate-900">{m.ads_conversions_datasets()}</h3>
            <ul className="mt-1 space-y-1 text-sm break-all text-slate-600">
              {settings.datasets.map((d) => (
                <li key={d.wabaId}>{m.ads_conversions_dataset_line({ waba: d.wabaId, dataset: d.datasetId })}</li>
              ))}
            </ul>
          </div>
        ) : null}
        <p className="mt-4 text-sm text-slate-600" data-testid="conversions-counts">
          {m.ads_conversions_counts({
            sent: settings.counts.sent,
            queued: settings.counts.queued,
            failed: settings.counts.failed,
            skipped: settings.counts.skipped,
          })}
        </p>
      </Card>
      <LeadTagsCard
        leadTags={settings.leadTags}
        enabled={settings.enabled}
        canManage={canManage}
        result={actionData && "intent" in actionData && actionData.intent === "lead-tags" ? actionData.result : undefined}
      />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
