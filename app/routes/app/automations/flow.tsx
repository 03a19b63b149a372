import { data, Form, href, redirect } from "react-router";
import type { Route } from "./+types/flow";
import * as z from "zod/mini";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { postedLines, postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { getFlow, publishFlow, updateFlow } from "~/.server/domains/automations/flows/store";
import { flowSwitch } from "~/.server/domains/automations/flows/switch";
import { deleteStep, moveStep, saveStep } from "~/.server/domains/automations/flows/builder";
import type { StepInput } from "~/.server/domains/automations/flows/steps";
import { answeringMembers } from "~/.server/domains/automations/page";
import { shortcodeChoices } from "~/.server/domains/payments";
import { stepProducts } from "~/.server/domains/automations/product-choices";
import { FLOW_MESSAGES, FLOW_STEP_TYPES, FLOW_STEPS_MAX, flowStatusWords, stepTypeWords, type FlowStepType } from "~/lib/schemas/flows";
import { isStepType, newStepValues, STEP_FIELDS, stepInputOf, stepValues, type StepValues } from "~/lib/schemas/flow-form";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { StepForm, StepItem } from "~/components/automations/flow-steps";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { SelectField } from "~/components/ui/field";
import { FlowSettingsCard } from "~/components/automations/flow-settings";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { Toast } from "~/components/ui/toast";
import { formatNumber } from "~/lib/dates";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A flow's builder (/automations/flows/:id): a document without React (decision 066). Steps are added,
// changed, moved and deleted one form post at a time; every member reads it, owners and admins change it.
export const handle: PermissionHandle & PageHandle = { permission: "automations:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData ? m.automations_flows_edit_meta_title({ name: loaderData.flow.name }) : m.automations_flows_meta_title() },
];

/** The domain's answer, or the page's 404 for another organisation's flow or an unknown id. */
async function found<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    throw refusal;
  }
}

export async function loader(args: Route.LoaderArgs) {
  const id = args.params.id;
  const current = await requireDeclaredUser(args);
  const canManage = can(current.role, "automations:manage");
  const [flow, members, shortcodes] = await Promise.all([
    found(getFlow(current.organization.id, id)),
    answeringMembers(current.organization.id),
    canManage ? shortcodeChoices(current.organization.id) : [],
  ]);
  const params = args.url.searchParams;
  let editing: { type: FlowStepType; stepId: string | null; values: StepValues } | null = null;
  const add = params.get("add") ?? "";
  const stepId = params.get("step");
  if (canManage && isStepType(add) && flow.steps.length < FLOW_STEPS_MAX) editing = { type: add, stepId: null, values: newStepValues(add) };
  else if (canManage && stepId) {
    const step = flow.steps.find((s) => s.id === stepId);
    if (!step) throw data(FLOW_MESSAGES.step, { status: 404 });
    // A step just added for a target (an end until filled in), to become the kind chosen (?kind=message).
    const kind = params.getAll("kind").find(isStepType) ?? "";
    editing =
      step.type === "end" && isStepType(kind) && kind !== "end"
        ? { type: kind, stepId: step.id, values: newStepValues(kind) }
        : { type: step.type, stepId: step.id, values: stepValues(step) };
  }
  const searched = editing?.type === "products" ? await stepProducts(current.organization.id, args.url, editing.values) : null;
  if (searched && editing) editing.values = searched.values;
  return { flow, canManage, members, shortcodes, products: searched?.offered ?? null, editing };
}

type Actor = ReturnType<typeof actorOf>;

const NoFields = z.object({});
const Settings = z.object({ name: postedText, idleMinutes: postedText, idleText: postedText });
const StepFields = z.object({
  type: postedText,
  stepId: postedText,
  ...Object.fromEntries([...new Set(Object.values(STEP_FIELDS).flat())].map((field) => [field, postedText])),
  // A products step's ticked boxes, one a line (more than a step may name: its check refuses past 30).
  productIds: postedLines(100),
});
const StepId = z.object({ stepId: postedText });
const MoveStep = z.object({ stepId: postedText, direction: z.enum(["up", "down"]) });

function unknownAction(): never {
  throw data(FLOW_MESSAGES.unknownAction, { status: 400 });
}

/** A step's form, refused at a field: the form again as sent, the words at that field. */
async function saveStepIntent(actor: Actor, flowId: string, posted: z.output<typeof StepFields>) {
  const { type, stepId } = posted;
  if (!isStepType(type)) unknownAction();
  const values = Object.fromEntries(
    STEP_FIELDS[type].map((field) => [field, (posted as Record<string, string>)[field] ?? ""]),
  ) as StepValues;
  let saved: Awaited<ReturnType<typeof saveStep>>;
  try {
    saved = await saveStep(actor, flowId, { ...(stepInputOf(type, values) as Omit<StepInput, "id">), id: stepId || undefined });
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status === 404 && !refusal.field) throw refusal;
    // The domain names the step's field within the list (steps[3].text): the form has one step.
    const named = refusal.field?.replace(/^steps\[\d+\]\./, "");
    const field = named && STEP_FIELDS[type].includes(named) ? named : "type";
    return data(
      { intent: "save-step", toast: null, stepForm: { type, stepId: stepId || null, values, errors: { [field]: [refusal.message] } } },
      { status: refusal.status === 409 ? 409 : 400 },
    );
  }
  const here = href("/automations/flows/:id", { id: flowId });
  // A target asked for a new step: its form next, as the kind chosen.
  const [added] = saved.added;
  if (added) {
    const place = saved.steps.findIndex((s) => s.id === added.id) + 1;
    const next = `${here}?${new URLSearchParams({ step: added.id, kind: added.type })}#step-form`;
    return redirectWithToast(next, "success", m.automations_flows_step_saved_new({ place }));
  }
  return redirectWithToast(`${here}#steps`, "success", m.automations_flows_step_saved());
}

export async function action(args: Route.ActionArgs) {
  const id = args.params.id;
  const here = href("/automations/flows/:id", { id });
  const turn = flowSwitch(args, NoFields, () => id, here);
  return intentAction(args, {
    permission: "automations:manage",
    intents: {
      settings: intent(Settings, async ({ value: values, user, intent: posted }) => {
        try {
          const minutes = /^\d+$/.test(values.idleMinutes.trim()) ? Number(values.idleMinutes) : Number.NaN;
          await updateFlow(actorOf(args, user), id, { name: values.name, idleMinutes: minutes, idleText: values.idleText });
        } catch (error) {
          const refusal = refusalOf(error);
          if (!refusal.field || refusal.status === 404) throw refusal;
          return data({ intent: posted, toast: null, errors: { [refusal.field]: [refusal.message] }, values }, { status: 400 });
        }
        return redirectWithToast(here, "success", m.automations_flows_settings_saved());
      }),
      "save-step": intent(StepFields, ({ value, user }) => saveStepIntent(actorOf(args, user), id, value)),
      "move-step": intent(
        MoveStep,
        async ({ value, user }) => {
          await moveStep(actorOf(args, user), id, value.stepId, value.direction);
          return redirect(`${here}#steps`);
        },
        { invalid: unknownAction },
      ),
      "delete-step": intent(StepId, async ({ value, user }) => {
        await deleteStep(actorOf(args, user), id, value.stepId);
        return redirectWithToast(`${here}#steps`, "success", m.automations_flows_step_deleted());
      }),
      publish: intent(NoFields, async ({ user }) => {
        const flow = await publishFlow(actorOf(args, user), id);
        return redirectWithToast(here, "success", m.automations_flows_published({ name: flow.name, version: flow.liveVersion ?? 0 }));
      }),
      enable: turn,
      disable: turn,
    },
    refused: (refusal, posted) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent: posted });
    },
    unknown: unknownAction,
  });
}

export default function FlowBuilder({ loaderData, actionData }: Route.ComponentProps) {
  const { flow, canManage, members, shortcodes, products, editing: loaded } = loaderData;
  const back = href("/automations/flows");
  const failed = actionData && "errors" in actionData ? actionData : null;
  const stepFailed = actionData && "stepForm" in actionData ? actionData.stepForm : null;
  const toast = actionData && "toast" in actionData ? actionData.toast : null;
  const here = href("/automations/flows/:id", { id: flow.id });
  const editing = stepFailed ? { ...stepFailed, values: stepFailed.values } : loaded;
  const settingsErrors = failed?.intent === "settings" ? (failed.errors as Record<string, string[]>) : {};
  const settingsValues = failed?.intent === "settings" ? (failed.values as Record<string, string>) : null;
  return (
    <div className="space-y-6">
      {toast ? <Toast key={toast.id} toast={toast} /> : null}
      <div className="max-w-3xl">
        <BackLink to={back}>{m.automations_flows_back()}</BackLink>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <PageTitle>{flow.name}</PageTitle>
          <Badge tone={flow.status === "live" ? "success" : "neutral"}>{flowStatusWords(flow.status)}</Badge>
        </div>
        <p className="text-slate-600">
          {flow.liveVersion === null
            ? m.automations_flows_not_published_long()
            : m.automations_flows_live_version({ version: flow.liveVersion })}{" "}
          {m.automations_flows_sessions_figures({
            active: formatNumber(flow.activeSessions),
            completed: formatNumber(flow.completedSessions),
          })}
        </p>
        {flow.olderSessions > 0 ? (
          <p className="text-sm text-slate-600">{m.automations_flows_older_sessions({ count: formatNumber(flow.olderSessions) })}</p>
        ) : null}
      </div>
      {canManage ? null : <Notice>{m.automations_read_only()}</Notice>}
      {canManage ? (
        <Card>
          <CardHeader
            title={m.automations_flows_publish_title()}
            description={flow.unpublished ? m.automations_flows_publish_pending() : m.automations_flows_publish_none()}
          />
          <div className="mt-3 flex flex-wrap gap-2">
            <Form method="post">
              <Button type="submit" name="intent" value="publish" disabled={!flow.steps.length}>
                {m.automations_flows_publish()}
              </Button>
            </Form>
            {flow.liveVersion === null ? null : (
              <Form method="post">
                <Button type="submit" name="intent" value={flow.status === "live" ? "disable" : "enable"} variant="secondary">
                  {flow.status === "live" ? m.automations_flows_turn_off() : m.automations_flows_turn_on()}
                </Button>
              </Form>
            )}
          </div>
        </Card>
      ) : null}
      <Card>
        <div id="steps">
          <CardHeader
            title={m.automations_flows_steps_title()}
            description={m.automations_flows_steps_count({ count: flow.steps.length, max: FLOW_STEPS_MAX })}
          />
        </div>
        {flow.steps.length ? (
          <ol className="mt-3 space-y-2">
            {flow.steps.map((step, i) => (
              <StepItem key={step.id} step={step} steps={flow.steps} place={i + 1} canManage={canManage} />
            ))}
          </ol>
        ) : (
          <p className="mt-3 text-sm text-slate-600">{m.automations_flows_steps_empty()}</p>
        )}
        {canManage && flow.steps.length < FLOW_STEPS_MAX && !editing ? (
          // A GET form: the chosen kind's form is a page state (?add=question), so it works without JavaScript.
          <Form method="get" action={`${here}#step-form`} className="mt-4 flex flex-wrap items-end gap-2">
            <SelectField
              name="add"
              label={m.automations_flows_add_step_kind()}
              options={FLOW_STEP_TYPES.map((type) => ({ value: type, label: stepTypeWords(type) }))}
            />
            <Button type="submit" variant="secondary">
              {m.automations_flows_add_step_choose()}
            </Button>
          </Form>
        ) : null}
        {canManage && flow.steps.length >= FLOW_STEPS_MAX ? (
          <p className="mt-3 text-sm text-slate-600">{FLOW_MESSAGES.stepsLimit}</p>
        ) : null}
        {canManage && editing ? (
          <div className="mt-4">
            <StepForm
              key={`${editing.type}-${editing.stepId ?? "new"}`}
              type={editing.type}
              stepId={editing.stepId}
              values={editing.values}
              fresh={!!editing.stepId && editing.type !== "end" && flow.steps.find((s) => s.id === editing.stepId)?.type === "end"}
              errors={stepFailed?.errors ?? {}}
              steps={flow.steps}
              members={members}
              shortcodes={shortcodes}
              products={products}
              cancelTo={`${here}#steps`}
            />
          </div>
        ) : null}
      </Card>
      <FlowSettingsCard flow={flow} canManage={canManage} values={settingsValues} errors={settingsErrors} />
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
