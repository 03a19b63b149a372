import type { ReactNode } from "react";
import { data, Form, href } from "react-router";
import type { Route } from "./+types/flows";
import * as z from "zod/mini";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { deleteFlow, getFlow, listFlows, type FlowView } from "~/.server/domains/automations/flows/store";
import { flowSwitch } from "~/.server/domains/automations/flows/switch";
import { FLOW_MESSAGES, FLOW_STEPS_MAX, FLOWS_MAX, flowStatusWords } from "~/lib/schemas/flows";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Pencil, Plus, Power, PowerOff, Trash2 } from "~/components/ui/icons";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { Table, type Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { Toast } from "~/components/ui/toast";
import { formatNumber } from "~/lib/dates";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// The chatbot flows: a document without React (decision 066); every change is a form post.
export const handle: PermissionHandle & PageHandle = { permission: "automations:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.automations_flows_meta_title() }];

/** The organisation's flows; `?confirm=delete&flow=<id>` asks before deleting one. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const canManage = can(current.role, "automations:manage");
  const flows = await listFlows(current.organization.id);
  const params = args.url.searchParams;
  let deleting: { id: string; name: string } | null = null;
  if (canManage && params.get("confirm") === "delete") {
    const found = flows.find((flow) => flow.id === params.get("flow"));
    if (!found) throw data(FLOW_MESSAGES.notFound, { status: 404 });
    deleting = { id: found.id, name: found.name };
  }
  return { flows, canManage, deleting, full: flows.length >= FLOWS_MAX };
}

/** Turning a flow on or off, deleting it: owners and admins. */
const FlowId = z.object({ id: postedText });
const DeleteFlow = z.object({ id: postedText, confirm: postedText });

export async function action(args: Route.ActionArgs) {
  const here = href("/automations/flows");
  const turn = flowSwitch(args, FlowId, (value) => value.id, here);
  return intentAction(args, {
    permission: "automations:manage",
    intents: {
      enable: turn,
      disable: turn,
      delete: intent(DeleteFlow, async ({ value, user, intent: posted }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, FLOW_MESSAGES.confirmFirst, { intent: posted });
        const flow = await getFlow(user.organization.id, value.id);
        await deleteFlow(actorOf(args, user), value.id);
        return redirectWithToast(here, "success", m.automations_flows_deleted({ name: flow.name }));
      }),
    },
    refused: (refusal, posted) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent: posted });
    },
    unknown: () => {
      throw data(FLOW_MESSAGES.unknownAction, { status: 400 });
    },
  });
}

function FlowPost({ flow, intent, label, children }: { flow: FlowView; intent: string; label: string; children: ReactNode }) {
  return (
    <Form method="post" className="inline">
      <input type="hidden" name="id" value={flow.id} />
      <Button type="submit" name="intent" value={intent} variant="secondary" size="sm" aria-label={label} title={label}>
        {children}
      </Button>
    </Form>
  );
}

function flowColumns(canManage: boolean): Column<FlowView>[] {
  const columns: Column<FlowView>[] = [
    {
      key: "name",
      header: m.automations_flows_column_name(),
      cell: (flow) => (
        <TextLink to={href("/automations/flows/:id", { id: flow.id })} weight="semibold">
          {flow.name}
        </TextLink>
      ),
    },
    {
      key: "status",
      header: m.automations_flows_column_status(),
      cell: (flow) => (
        <>
          <Badge tone={flow.status === "live" ? "success" : "neutral"}>{flowStatusWords(flow.status)}</Badge>
          {flow.unpublished && flow.liveVersion !== null ? (
            <span className="block text-xs text-slate-500">{m.automations_flows_unpublished_changes()}</span>
          ) : null}
        </>
      ),
    },
    {
      key: "version",
      header: m.automations_flows_column_version(),
      cell: (flow) =>
        flow.liveVersion === null ? m.automations_flows_not_published() : m.automations_flows_version({ version: flow.liveVersion }),
    },
    {
      key: "steps",
      header: m.automations_flows_column_steps(),
      cell: (flow) => (
        <span className="tabular-nums">{m.automations_flows_steps_count({ count: flow.steps.length, max: FLOW_STEPS_MAX })}</span>
      ),
    },
    {
      key: "sessions",
      header: m.automations_flows_column_sessions(),
      cell: (flow) => (
        <span className="whitespace-nowrap">
          {m.automations_flows_sessions_figures({
            active: formatNumber(flow.activeSessions),
            completed: formatNumber(flow.completedSessions),
          })}
        </span>
      ),
    },
  ];
  if (!canManage) return columns;
  columns.push({
    key: "actions",
    header: <span className="sr-only">{m.automations_flows_column_actions()}</span>,
    align: "right",
    cell: (flow) => (
      <div className="flex flex-wrap justify-end gap-1">
        <ButtonLink
          to={href("/automations/flows/:id", { id: flow.id })}
          variant="secondary"
          size="sm"
          aria-label={m.automations_flows_edit_label({ name: flow.name })}
        >
          <Pencil className="size-4" aria-hidden /> {m.automations_flows_edit()}
        </ButtonLink>
        {flow.liveVersion === null ? null : flow.status === "live" ? (
          <FlowPost flow={flow} intent="disable" label={m.automations_flows_turn_off_label({ name: flow.name })}>
            <PowerOff className="size-4" aria-hidden /> {m.automations_flows_turn_off()}
          </FlowPost>
        ) : (
          <FlowPost flow={flow} intent="enable" label={m.automations_flows_turn_on_label({ name: flow.name })}>
            <Power className="size-4" aria-hidden /> {m.automations_flows_turn_on()}
          </FlowPost>
        )}
        <ButtonLink
          to={`?confirm=delete&flow=${flow.id}`}
          variant="secondary"
          size="sm"
          aria-label={m.automations_flows_delete_label({ name: flow.name })}
        >
          <Trash2 className="size-4" aria-hidden /> {m.automations_flows_delete()}
        </ButtonLink>
      </div>
    ),
  });
  return columns;
}

export default function Flows({ loaderData, actionData }: Route.ComponentProps) {
  const { flows, canManage, deleting, full } = loaderData;
  const here = href("/automations/flows");
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="max-w-3xl">
          <BackLink to={href("/automations")}>{m.automations_back()}</BackLink>
          <PageTitle>{m.automations_flows_title()}</PageTitle>
          <p className="text-slate-600">{m.automations_flows_intro()}</p>
        </div>
        {canManage && !full ? (
          <ButtonLink to={href("/automations/flows/new")}>
            <Plus className="size-4" aria-hidden /> {m.automations_flows_new()}
          </ButtonLink>
        ) : null}
      </div>
      {canManage ? null : <Notice>{m.automations_read_only()}</Notice>}
      <Card padding="none">
        <div className="px-4 pt-4">
          <CardHeader
            title={m.automations_flows_list_title()}
            description={m.automations_flows_limits({
              count: formatNumber(flows.length),
              max: formatNumber(FLOWS_MAX),
              steps: FLOW_STEPS_MAX,
            })}
          />
          {canManage && full ? <p className="mt-1 text-sm text-slate-600">{FLOW_MESSAGES.limit}</p> : null}
        </div>
        <Table
          caption={m.automations_flows_list_title()}
          columns={flowColumns(canManage)}
          rows={flows}
          rowKey={(flow) => flow.id}
          empty={
            <>
              {m.automations_flows_empty()}{" "}
              {canManage ? (
                <TextLink to={href("/automations/flows/new")} weight="semibold">
                  {m.automations_flows_empty_create()}
                </TextLink>
              ) : null}
            </>
          }
        />
        {deleting ? (
          <div className="px-4 pb-4">
            <ConfirmPanel
              title={m.automations_flows_delete_title({ name: deleting.name })}
              intent="delete"
              confirmLabel={m.automations_flows_delete_confirm()}
              cancelTo={here}
              fields={{ id: deleting.id }}
            >
              {m.automations_flows_delete_body()}
            </ConfirmPanel>
          </div>
        ) : null}
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
