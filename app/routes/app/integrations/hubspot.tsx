import { data, Form, href } from "react-router";
import type { Route } from "./+types/hubspot";
import * as z from "zod/mini";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { unknownIntegrationAction } from "~/.server/domains/integrations/page";
import { followList, followSearch, hubspotSettings } from "~/.server/domains/integrations/hubspot/settings";
import { HUBSPOT_SEARCH_OPERATORS as SEARCH_OPERATORS, HUBSPOT_SEARCH_PROPERTIES as SEARCH_PROPERTIES } from "~/lib/hubspot";
import { segmentSources, unfollowSource } from "~/.server/domains/integrations/hubspot/segments";
import { syncNow } from "~/.server/domains/integrations/hubspot/sync";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { PageTitle } from "~/components/ui/page-title";
import { Toast } from "~/components/ui/toast";
import { Card } from "~/components/ui/card";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Field, SelectField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { TextLink } from "~/components/ui/text-link";
import { formatNumber, formatWhen } from "~/lib/dates";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// HubSpot's own page (decision 083): the connection's facts, "Sync now", and the lists and searches
// followed as segments. Plain forms: all of it works without JavaScript.
export const handle: PermissionHandle & PageHandle = { permission: "developer:view", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: `${m.hubspot_settings_title()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  try {
    const settings = await hubspotSettings(current.organization.id);
    return { ...settings, canManage: can(current.role, "developer:manage") };
  } catch (error) {
    const refusal = refusalOf(error);
    throw data(refusal.message, { status: refusal.status });
  }
}

const OPERATOR_WORDS = {
  EQ: () => m.hubspot_operator_eq(),
  CONTAINS_TOKEN: () => m.hubspot_operator_contains(),
  HAS_PROPERTY: () => m.hubspot_operator_has(),
};

const NoFields = z.object({});
const FollowList = z.object({ listId: postedText });
const FollowSearch = z.object({ name: postedText, property: postedText, operator: postedText, value: postedText });
const Unfollow = z.object({ source: postedText });

export async function action(args: Route.ActionArgs) {
  const here = href("/integrations/hubspot");
  return intentAction(args, {
    permission: "developer:manage",
    intents: {
      sync: intent(NoFields, async ({ user }) => {
        const { queued } = await syncNow(actorOf(args, user));
        return redirectWithToast(here, "success", queued ? m.hubspot_sync_queued() : m.hubspot_sync_already());
      }),
      "follow-list": intent(FollowList, async ({ value, user }) =>
        redirectWithToast(here, "success", m.hubspot_followed({ name: await followList(actorOf(args, user), value.listId) })),
      ),
      "follow-search": intent(FollowSearch, async ({ value, user }) =>
        redirectWithToast(here, "success", m.hubspot_followed({ name: await followSearch(actorOf(args, user), value) })),
      ),
      unfollow: intent(Unfollow, async ({ value: { source }, user }) => {
        const followed = (await segmentSources(user.organization.id)).find((s) => s.id === source);
        await unfollowSource(user.organization.id, source);
        return redirectWithToast(here, "success", m.hubspot_unfollowed({ name: followed?.name ?? "" }));
      }),
    },
    refused: (refusal, posted) => refusalToast(refusal, { intent: posted }),
    unknown: (posted) => refusalToast(unknownIntegrationAction(), { intent: posted }),
  });
}

export default function HubspotSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { connection, lists, listsError, sources, canManage, missingProperties } = loaderData;
  return (
    <div className="max-w-3xl space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <TextLink to={href("/integrations")}>{m.hubspot_back()}</TextLink>
        <PageTitle>{m.hubspot_settings_title()}</PageTitle>
        <p className="text-slate-600">{m.hubspot_settings_intro()}</p>
      </div>
      {canManage ? null : <Notice>{m.integrations_read_only()}</Notice>}
      {missingProperties ? (
        <Notice tone="warning" title={m.hubspot_properties_missing_title()}>
          <ul className="list-disc ps-5" data-testid="hubspot-missing-properties">
            {missingProperties.contacts.map((name) => (
              <li key={`contacts.${name}`} className="break-words">
                {m.hubspot_property_on_contacts({ name })}
              </li>
            ))}
            {missingProperties.communications.map((name) => (
              <li key={`communications.${name}`} className="break-words">
                {m.hubspot_property_on_communications({ name })}
              </li>
            ))}
          </ul>
          <p className="mt-2">
            {missingProperties.reason === "scope"
              ? m.hubspot_properties_missing_scope()
              : missingProperties.reason === "limit"
                ? m.hubspot_properties_missing_limit()
                : m.hubspot_properties_missing_refused({ reason: missingProperties.detail })}
          </p>
          <p className="mt-2">{m.hubspot_properties_waiting()}</p>
        </Notice>
      ) : null}
      <Card>
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm" data-testid="hubspot-facts">
          <dt className="text-slate-500">{m.integrations_account()}</dt>
          <dd className="min-w-0 break-words">{connection.accountLabel ?? "—"}</dd>
          <dt className="text-slate-500">{m.integrations_health()}</dt>
          <dd>
            <Badge tone={connection.health === "healthy" ? "success" : "danger"}>
              {connection.health === "healthy" ? m.integrations_health_healthy() : m.integrations_health_unhealthy()}
            </Badge>
          </dd>
          <dt className="text-slate-500">{m.integrations_last_sync()}</dt>
          <dd>{connection.lastSyncAt ? formatWhen(connection.lastSyncAt) : m.integrations_never()}</dd>
          <dt className="text-slate-500">{m.hubspot_count_contacts()}</dt>
          <dd className="tabular-nums">{formatNumber(connection.counts.contacts ?? 0)}</dd>
          <dt className="text-slate-500">{m.hubspot_count_messages()}</dt>
          <dd className="tabular-nums">{formatNumber(connection.counts.messages ?? 0)}</dd>
          {connection.lastError ? (
            <>
              <dt className="text-slate-500">{m.integrations_last_error()}</dt>
              <dd className="min-w-0 break-words text-red-800">{connection.lastError}</dd>
            </>
          ) : null}
        </dl>
        <p className="mt-3 text-sm text-slate-600">{m.hubspot_conflict_rule()}</p>
        {canManage ? (
          <Form method="post" className="mt-4">
            <input type="hidden" name="intent" value="sync" />
            <Button size="sm">{m.hubspot_sync_now()}</Button>
          </Form>
        ) : null}
      </Card>
      <Card>
        <h2 className="font-semibold">{m.hubspot_segments_title()}</h2>
        <p className="text-sm text-slate-600">{m.hubspot_segments_intro()}</p>
        {listsError ? <p className="mt-2 text-sm text-red-800">{m.hubspot_lists_unreadable({ reason: listsError })}</p> : null}
        {canManage ? (
          <>
            {lists.length ? (
              <Form method="post" className="mt-4 flex flex-wrap items-end gap-2">
                <input type="hidden" name="intent" value="follow-list" />
                <SelectField
                  label={m.hubspot_list_label()}
                  name="listId"
                  className="min-w-0 flex-1"
                  options={lists.map((l) => ({ value: l.listId, label: `${l.name} (${formatNumber(l.size)})` }))}
                />
                <Button size="sm" variant="secondary">
                  {m.hubspot_follow_list()}
                </Button>
              </Form>
            ) : listsError ? null : (
              <p className="mt-2 text-sm text-slate-600">{m.hubspot_list_none()}</p>
            )}
            <Form method="post" className="mt-4 grid gap-2 sm:grid-cols-2">
              <input type="hidden" name="intent" value="follow-search" />
              <Field label={m.hubspot_search_name()} name="name" maxLength={60} required />
              <SelectField
                label={m.hubspot_search_property()}
                name="property"
                options={SEARCH_PROPERTIES.map((p) => ({ value: p, label: p }))}
              />
              <SelectField
                label={m.hubspot_search_operator()}
                name="operator"
                options={SEARCH_OPERATORS.map((o) => ({ value: o, label: OPERATOR_WORDS[o]() }))}
              />
              <Field label={m.hubspot_search_value()} name="value" maxLength={100} />
              <div>
                <Button size="sm" variant="secondary">
                  {m.hubspot_follow_search()}
                </Button>
              </div>
            </Form>
          </>
        ) : null}
        <h3 className="mt-6 font-medium">{m.hubspot_sources_title()}</h3>
        {sources.length ? (
          <ul className="mt-2 divide-y divide-slate-100" aria-label={m.hubspot_sources_title()}>
            {sources.map((s) => (
              <li key={s.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
                <span>
                  <Badge tone="info">{s.kind === "list" ? m.hubspot_source_list() : m.hubspot_source_search()}</Badge> {s.name}
                </span>
                {canManage ? (
                  <Form method="post">
                    <input type="hidden" name="intent" value="unfollow" />
                    <input type="hidden" name="source" value={s.id} />
                    <Button size="sm" variant="secondary" aria-label={m.hubspot_unfollow_label({ name: s.name })}>
                      {m.hubspot_unfollow()}
                    </Button>
                  </Form>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600">{m.hubspot_sources_none()}</p>
        )}
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
