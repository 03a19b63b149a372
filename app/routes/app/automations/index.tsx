import { data, href } from "react-router";
import type { Route } from "./+types/index";
import * as z from "zod/mini";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { attributeDefinitions } from "~/.server/domains/contacts/attributes";
import { refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { deleteRule, getRule, listRules, moveRule, setRuleEnabled } from "~/.server/domains/automations/rules";
import { readAutomationSettings, WELCOME_AGAIN_AFTER_DAYS } from "~/.server/domains/automations/settings";
import { readAssistantSettings } from "~/.server/domains/automations/assistant/settings";
import { listFlows } from "~/.server/domains/automations/flows/store";
import { answeringMembers, automationNumbers } from "~/.server/domains/automations/page";
import { saveOrderPayment } from "~/.server/domains/automations/order-payment";
import { OrderPaymentCard } from "~/components/automations/order-payment-card";
import { AUTOMATION_MESSAGES, RULES_MAX } from "~/lib/schemas/automations-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { ruleColumns, type RuleRow } from "~/components/automations/rule-columns";
import { AnsweringOrder } from "~/components/automations/answering-order";
import { Plus } from "~/components/ui/icons";
import { ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { Table } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { Toast } from "~/components/ui/toast";
import { formatNumber } from "~/lib/dates";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// The keyword rules in their order: sent as a document without React (decision 066); every change is a form post.
export const handle: PermissionHandle & PageHandle = { permission: "automations:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.automations_meta_title() }];

/** The organisation's rules, in the order they are tried; `?confirm=delete&rule=<id>` asks before deleting one. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const canManage = can(current.role, "automations:manage");
  const [rules, settings, numbers, members, fields, assistant, flows] = await Promise.all([
    listRules(organizationId),
    readAutomationSettings(organizationId),
    automationNumbers(organizationId),
    answeringMembers(organizationId),
    attributeDefinitions(organizationId),
    readAssistantSettings(organizationId),
    listFlows(organizationId),
  ]);
  const rows: RuleRow[] = rules.map((rule, index) => {
    const assign = rule.actions.find((action) => action.type === "assign");
    const field = rule.actions.find((action) => action.type === "field");
    return {
      ...rule,
      order: index + 1,
      numberLabel: rule.phoneNumberId ? (numbers.find((n) => n.id === rule.phoneNumberId)?.label ?? rule.phoneNumberId) : null,
      assigneeName: assign ? (members.find((member) => member.id === assign.userId)?.name ?? null) : null,
      fieldLabel: field ? (fields.get(field.key)?.label ?? null) : null,
      flowName: flows.find((flow) => rule.actions.some((action) => action.type === "flow" && action.flowId === flow.id))?.name ?? null,
    };
  });
  const params = args.url.searchParams;
  // Another organisation's id (or none at all) is not found, as in the action.
  let deleting: { id: string; name: string } | null = null;
  if (canManage && params.get("confirm") === "delete") {
    const found = rows.find((rule) => rule.id === params.get("rule"));
    if (!found) throw data(AUTOMATION_MESSAGES.notFound, { status: 404 });
    deleting = { id: found.id, name: found.name };
  }
  return {
    rules: rows,
    canManage,
    deleting,
    full: rules.length >= RULES_MAX,
    welcomeEnabled: settings.welcomeEnabled,
    awayEnabled: settings.awayEnabled,
    assistantEnabled: assistant.enabled,
    orderPayment: settings.orderPaymentEnabled,
    flowCount: flows.length,
    liveFlows: flows.filter((flow) => flow.status === "live").length,
    // What answers first, each step on or off (decision 113).
    order: {
      rules: rules.some((rule) => rule.enabled) || flows.some((flow) => flow.status === "live"),
      welcome: settings.welcomeEnabled,
      away: settings.awayEnabled,
      assistant: assistant.enabled,
      welcomeAgainDays: WELCOME_AGAIN_AFTER_DAYS,
    },
  };
}

const RuleId = z.object({ id: postedText });
const MoveRule = z.object({ id: postedText, direction: z.enum(["up", "down"]) });
const DeleteRule = z.object({ id: postedText, confirm: postedText });
const OrderPayment = z.object({ enabled: z.enum(["on", "off"]) });

/** Moving, turning on or off and deleting a rule: owners and admins (the guard sends anyone else to the refusal page). */
export async function action(args: Route.ActionArgs) {
  const here = href("/automations");
  const turn = intent(RuleId, async ({ value, user, intent: posted }) => {
    const rule = await setRuleEnabled(actorOf(args, user), value.id, posted === "enable");
    return redirectWithToast(
      here,
      "success",
      rule.enabled ? m.automations_turned_on({ name: rule.name }) : m.automations_turned_off({ name: rule.name }),
    );
  });
  return intentAction(args, {
    permission: "automations:manage",
    intents: {
      move: intent(
        MoveRule,
        async ({ value, user }) => {
          const rule = await getRule(user.organization.id, value.id);
          await moveRule(actorOf(args, user), value.id, value.direction);
          return redirectWithToast(here, "success", m.automations_moved({ name: rule.name }));
        },
        { invalid: unknownAction },
      ),
      enable: turn,
      disable: turn,
      "order-payment": intent(
        OrderPayment,
        async ({ value, user }) => {
          await saveOrderPayment(actorOf(args, user), value.enabled === "on");
          return redirectWithToast(
            `${here}#order-payment`,
            "success",
            value.enabled === "on" ? m.automations_order_payment_on() : m.automations_order_payment_off(),
          );
        },
        { invalid: unknownAction },
      ),
      delete: intent(DeleteRule, async ({ value, user, intent: posted }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, AUTOMATION_MESSAGES.confirmFirst, { intent: posted });
        const rule = await getRule(user.organization.id, value.id);
        await deleteRule(actorOf(args, user), value.id);
        return redirectWithToast(here, "success", m.automations_deleted({ name: rule.name }));
      }),
    },
    refused: (refusal, posted) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent: posted });
    },
    unknown: unknownAction,
  });
}

function unknownAction(): never {
  throw data(AUTOMATION_MESSAGES.unknownAction, { status: 400 });
}

export default function Automations({ loaderData, actionData }: Route.ComponentProps) {
  const { rules, canManage, deleting, full, welcomeEnabled, awayEnabled, assistantEnabled, flowCount, liveFlows, order } = loaderData;
  const here = href("/automations");
  const state = (on: boolean) => (on ? m.automations_on() : m.automations_off());
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="max-w-3xl">
          <PageTitle>{m.automations_title()}</PageTitle>
          <p className="text-slate-600">{m.automations_intro()}</p>
        </div>
        {canManage && !full ? (
          <ButtonLink to={href("/automations/new")}>
            <Plus className="size-4" aria-hidden /> {m.automations_new_rule()}
          </ButtonLink>
        ) : null}
      </div>
      {canManage ? null : <Notice>{m.automations_read_only()}</Notice>}
      <AnsweringOrder steps={order} />
      <Card padding="none">
        <div className="px-4 pt-4">
          <CardHeader
            title={m.automations_rules_title()}
            description={m.automations_rules_description({ count: formatNumber(rules.length), max: formatNumber(RULES_MAX) })}
          />
          {canManage && full ? <p className="mt-1 text-sm text-slate-600">{AUTOMATION_MESSAGES.limit}</p> : null}
        </div>
        <Table
          caption={m.automations_rules_title()}
          columns={ruleColumns({ canManage, count: rules.length })}
          rows={rules}
          rowKey={(rule) => rule.id}
          empty={
            <>
              {m.automations_empty_before()}
              <span className="font-mono">{m.automations_empty_example()}</span>
              {m.automations_empty_after()}{" "}
              {canManage ? (
                <TextLink to={href("/automations/new")} weight="semibold">
                  {m.automations_empty_create()}
                </TextLink>
              ) : null}
            </>
          }
        />
        {deleting ? (
          <div className="px-4 pb-4">
            <ConfirmPanel
              title={m.automations_delete_title({ name: deleting.name })}
              intent="delete"
              confirmLabel={m.automations_delete_confirm()}
              cancelTo={here}
              fields={{ id: deleting.id }}
            >
              {m.automations_delete_body()}
            </ConfirmPanel>
          </div>
        ) : null}
      </Card>
      <Card>
        <CardHeader title={m.automations_settings_card_title()} description={m.automations_settings_card_description()} />
        <ul className="mt-3 space-y-1 text-sm text-slate-700">
          <li>{m.automations_settings_card_welcome({ state: state(welcomeEnabled) })}</li>
          <li>{m.automations_settings_card_away({ state: state(awayEnabled) })}</li>
        </ul>
        <p className="mt-3 text-sm">
          <TextLink to={href("/automations/hours")} weight="semibold">
            {m.automations_settings_card_link()}
          </TextLink>
        </p>
      </Card>
      <Card>
        <CardHeader title={m.automations_assistant_card_title()} description={m.automations_assistant_card_description()} />
        <ul className="mt-3 space-y-1 text-sm text-slate-700">
          <li>{m.automations_assistant_card_state({ state: state(assistantEnabled) })}</li>
        </ul>
        <p className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <TextLink to={href("/automations/assistant")} weight="semibold">
            {m.automations_assistant_card_link()}
          </TextLink>
          <TextLink to={href("/automations/knowledge")} weight="semibold">
            {m.automations_assistant_knowledge_link()}
          </TextLink>
        </p>
      </Card>
      <OrderPaymentCard enabled={loaderData.orderPayment} canManage={canManage} />
      <Card>
        <CardHeader title={m.automations_flows_card_title()} description={m.automations_flows_card_description()} />
        <p className="mt-3 text-sm text-slate-700">
          {m.automations_flows_card_count({ count: formatNumber(flowCount), live: formatNumber(liveFlows) })}
        </p>
        <p className="mt-3 text-sm">
          <TextLink to={href("/automations/flows")} weight="semibold">
            {m.automations_flows_card_link()}
          </TextLink>
        </p>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
