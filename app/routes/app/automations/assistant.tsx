import { data, href } from "react-router";
import type { Route } from "./+types/assistant";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { readAssistantSettings, saveAssistantSettings } from "~/.server/domains/automations/assistant/settings";
import { tryAssistant } from "~/.server/domains/automations/assistant/answer";
import { usesSandboxModel } from "~/.server/domains/automations/assistant/endpoint";
import { monthUsage } from "~/.server/domains/automations/assistant/usage";
import { automationNumbers } from "~/.server/domains/automations/page";
import { assistantFormField, AssistantFormSchema, assistantInputOf, kesOfCents, TryAssistantSchema } from "~/lib/schemas/assistant-forms";
import { AUTOMATION_MESSAGES } from "~/lib/schemas/automations-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { AssistantForm, AssistantTryCard, AssistantUsageSummary, type TriedAssistant } from "~/components/automations/assistant-form";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Card, CardHeader } from "~/components/ui/card";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { getLocale } from "~/paraglide/runtime";
import { m } from "~/paraglide/messages";

// The AI assistant's settings, "Try it" and this month's usage: a document without React (decision 066); every change is a form post.
export const handle: PermissionHandle & PageHandle = { permission: "automations:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.automations_assistant_meta_title() }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const [settings, numbers, usage] = await Promise.all([
    readAssistantSettings(organizationId),
    automationNumbers(organizationId),
    monthUsage(organizationId),
  ]);
  return {
    canManage: can(current.role, "automations:manage"),
    enabled: settings.enabled,
    keySaved: settings.keySaved,
    keyLast4: settings.keyLast4,
    sandboxModel: usesSandboxModel(settings),
    // The form's fields as strings; never the key.
    values: {
      enabled: settings.enabled ? "on" : "",
      phoneNumberIds: settings.phoneNumberIds,
      instructions: settings.instructions,
      baseUrl: settings.baseUrl,
      model: settings.model,
      handoverText: settings.handoverText,
      maxTurns: String(settings.maxTurns),
      monthlyCap: kesOfCents(settings.monthlyCapCents),
      inputPrice: kesOfCents(settings.inputPriceCents),
      outputPrice: kesOfCents(settings.outputPriceCents),
    },
    numbers: numbers
      .filter((n) => n.connected || settings.phoneNumberIds.includes(n.id))
      .map((n) => ({ id: n.id, label: n.connected ? n.label : m.automations_disconnected({ number: n.label }) })),
    usage: { ...usage, capCents: settings.monthlyCapCents },
  };
}

/** Saving (owners and admins) and "Try it" (which spends tokens, so owners and admins too). */
export async function action(args: Route.ActionArgs) {
  return intentAction(args, {
    permission: "automations:manage",
    intents: {
      save: intent(
        AssistantFormSchema,
        async ({ value, submission, user, intent: posted }) => {
          const actor = { organizationId: user.organization.id, userId: user.user.id, meta: requestMeta(args.request, args.context) };
          try {
            await saveAssistantSettings(actor, assistantInputOf(value));
          } catch (error) {
            const refusal = refusalOf(error);
            if (!refusal.field) return refusalToast(refusal, { intent: posted });
            return refusalReply(submission, refusal, {
              field: assistantFormField(refusal.field),
              hideFields: ["apiKey"],
              extra: { intent: posted },
            });
          }
          return redirectWithToast(href("/automations/assistant"), "success", m.automations_assistant_saved());
        },
        { reply: { hideFields: ["apiKey"] } },
      ),
      try: intent(TryAssistantSchema, async ({ value, submission, user, intent: posted }) => {
        const outcome = await tryAssistant(user.organization.id, value.sample, getLocale());
        const passages = (list: { title: string; text: string }[]) => list.map(({ title, text }) => ({ title, text }));
        const tried: TriedAssistant =
          !outcome || outcome.kind === "retry"
            ? { kind: "off" }
            : outcome.kind === "greeting"
              ? { kind: "greeting", text: outcome.text }
              : outcome.kind === "answer"
                ? { kind: "answer", text: outcome.text, passages: passages(outcome.passages) }
                : { kind: "handover", reason: outcome.reason, detail: outcome.detail ?? null, passages: passages(outcome.passages) };
        return { intent: posted, result: submission.reply(), tried, toast: null };
      }),
    },
    unknown: () => {
      throw data(AUTOMATION_MESSAGES.unknownAction, { status: 400 });
    },
  });
}

type ActionData = Route.ComponentProps["actionData"];
const resultFor = (actionData: ActionData, intent: string) =>
  (actionData && actionData.intent === intent && "result" in actionData ? actionData.result : undefined) as Parameters<
    typeof AssistantForm
  >[0]["result"];

export default function AutomationAssistant({ loaderData, actionData }: Route.ComponentProps) {
  const { canManage, enabled, keySaved, keyLast4, sandboxModel, values, numbers, usage } = loaderData;
  const tried = actionData && "tried" in actionData ? (actionData.tried as TriedAssistant) : null;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="max-w-3xl">
        <BackLink to={href("/automations")}>{m.automations_back()}</BackLink>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <PageTitle>{m.automations_assistant_title()}</PageTitle>
          <Badge tone={enabled ? "success" : "neutral"}>{enabled ? m.automations_on() : m.automations_off()}</Badge>
        </div>
        <p className="text-slate-600">{m.automations_assistant_intro()}</p>
        <p className="mt-2 text-sm">
          <TextLink to={href("/automations/knowledge")} weight="semibold">
            {m.automations_assistant_knowledge_link()}
          </TextLink>
        </p>
      </div>
      {sandboxModel ? (
        <div className="max-w-3xl" data-testid="assistant-sandbox-model">
          <Notice tone="warning">{m.automations_assistant_sandbox_model()}</Notice>
        </div>
      ) : null}
      {canManage ? null : (
        <div className="max-w-3xl">
          <Notice>{m.automations_read_only()}</Notice>
        </div>
      )}
      <Card className="max-w-3xl">
        <CardHeader title={m.automations_assistant_usage_title()} description={m.automations_assistant_usage_description()} />
        <div className="mt-3">
          <AssistantUsageSummary usage={usage} />
        </div>
      </Card>
      <AssistantForm
        values={values}
        numbers={numbers}
        keySaved={keySaved}
        keyLast4={keyLast4}
        result={resultFor(actionData, "save")}
        canManage={canManage}
      />
      {canManage ? <AssistantTryCard result={resultFor(actionData, "try")} tried={tried} /> : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
