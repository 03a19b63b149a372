import { data, href } from "react-router";
import type { Route } from "./+types/rule";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { attributeDefinitions } from "~/.server/domains/contacts/attributes";
import { refusalOf, refusalReply, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { createRule, getRule, ruleTemplates, updateRule } from "~/.server/domains/automations/rules";
import { answeringMembers, automationNumbers, tryRule } from "~/.server/domains/automations/page";
import { listFlows } from "~/.server/domains/automations/flows/store";
import { ANY_AD, seenAds, type SeenAd } from "~/.server/domains/automations/from-ad";
import { offeredProducts } from "~/.server/domains/automations/product-choices";
import { productSearchOf, tickedIds, valuesFromSearch } from "~/lib/schemas/product-search";
import { NEW_RULE_VALUES, RuleFormSchema, ruleFormValues, ruleInputOf, TryRuleSchema } from "~/lib/schemas/automations";
import { AUTOMATION_MESSAGES } from "~/lib/schemas/automations-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { RuleForm, TryCard } from "~/components/automations/rule-form";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { PageTitle } from "~/components/ui/page-title";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A rule's form (/automations/new and /automations/:id): a document without React (decision 066); the server checks every field.
export const handle: PermissionHandle & PageHandle = { permission: "automations:manage", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.rule ? m.automations_rule_edit_meta_title({ name: loaderData.rule.name }) : m.automations_rule_new_meta_title() },
];

/** The domain's answer, or the page's 404 for another organisation's rule or an unknown id. */
async function found<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    throw refusal;
  }
}

/** The numbers a rule may answer on: the connected ones, and the one it keeps to even if disconnected since (said so). */
function numberChoices(numbers: Awaited<ReturnType<typeof automationNumbers>>, kept: string | null) {
  return numbers
    .filter((n) => n.connected || n.id === kept)
    .map((n) => ({ id: n.id, label: n.connected ? n.label : m.automations_disconnected({ number: n.label }) }));
}

/** The ads customers came from (the latest first), and the one the rule keeps to even if it is no longer among them. */
function adChoices(ads: SeenAd[], kept: string | null) {
  const choices = ads.map((ad) => ({ id: ad.sourceId, label: ad.headline ? `${ad.headline} (${ad.sourceId})` : ad.sourceId }));
  return kept && kept !== ANY_AD && !ads.some((ad) => ad.sourceId === kept) ? [...choices, { id: kept, label: kept }] : choices;
}

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const id = args.params.id;
  const [rule, numbers, members, fields, flows, templates, ads] = await Promise.all([
    id ? found(getRule(organizationId, id)) : null,
    automationNumbers(organizationId),
    answeringMembers(organizationId),
    attributeDefinitions(organizationId),
    listFlows(organizationId),
    ruleTemplates(organizationId),
    seenAds(organizationId),
  ]);
  // "Find a product" is a GET of the whole form: the form as it was typed, the products found.
  const query = productSearchOf(args.url.searchParams);
  const saved = rule ? ruleFormValues(rule) : NEW_RULE_VALUES;
  const values = query === null ? saved : valuesFromSearch(args.url.searchParams, Object.keys(NEW_RULE_VALUES), "productIds");
  const products = await offeredProducts(organizationId, { query: query ?? "", chosenIds: tickedIds(values, "productIds") });
  return {
    rule: rule ? { id: rule.id, name: rule.name, enabled: rule.enabled } : null,
    values,
    choices: {
      numbers: numberChoices(numbers, rule?.phoneNumberId ?? null),
      ads: adChoices(ads, rule?.fromAd ?? null),
      members,
      fields: [...fields.values()].map((f) => ({ key: f.key, label: f.label })),
      flows: flows.map((flow) => ({ id: flow.id, name: flow.name })),
      templates: templates.map(({ value, name, language }) => ({ value, name, language })),
      products: { ...products, action: args.url.pathname },
    },
  };
}

/** The domain's field for the form's: tags are said at the first tags field, the whole rule above the form. */
const formField = (field: string) => (field === "tags" ? "addTags" : field === "form" ? null : field);

export async function action(args: Route.ActionArgs) {
  const id = args.params.id;
  return intentAction(args, {
    permission: "automations:manage",
    intents: {
      save: intent(RuleFormSchema, async ({ value, submission, user, intent: posted }) => {
        try {
          const input = ruleInputOf(value);
          const saved = id ? await updateRule(actorOf(args, user), id, input) : await createRule(actorOf(args, user), input);
          return redirectWithToast(
            href("/automations"),
            "success",
            id ? m.automations_saved({ name: saved.name }) : m.automations_added({ name: saved.name }),
          );
        } catch (error) {
          // Refused for a field (a pattern that could run too long, a number not connected): said there, the form as it was sent.
          const refusal = refusalOf(error);
          if (refusal.status === 404 || !refusal.field) throw refusal;
          return refusalReply(submission, refusal, { field: formField(refusal.field), extra: { intent: posted } });
        }
      }),
      // Trying needs a saved rule: on /automations/new it is not an action of the page.
      try: intent(
        TryRuleSchema,
        async ({ value, submission, user, intent: posted }) => {
          if (!id) unknownAction();
          const tried = await tryRule(user.organization.id, id, value.sample, value.fromAd || null);
          return { intent: posted, result: submission.reply(), tried, toast: null };
        },
        { invalid: (submission, posted) => (id ? formFailure(submission.reply(), 400, undefined, { intent: posted }) : unknownAction()) },
      ),
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

type ActionData = Route.ComponentProps["actionData"];
const resultFor = (actionData: ActionData, intent: string) =>
  (actionData && actionData.intent === intent && "result" in actionData ? actionData.result : undefined) as Parameters<
    typeof RuleForm
  >[0]["result"];

export default function AutomationRule({ loaderData, actionData }: Route.ComponentProps) {
  const { rule, values, choices } = loaderData;
  const back = href("/automations");
  const tried = actionData && "tried" in actionData ? actionData.tried : null;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div className="max-w-3xl">
        <BackLink to={back}>{m.automations_back()}</BackLink>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <PageTitle>{rule ? m.automations_rule_edit_title({ name: rule.name }) : m.automations_rule_new_title()}</PageTitle>
          {rule ? (
            <Badge tone={rule.enabled ? "success" : "neutral"}>{rule.enabled ? m.automations_on() : m.automations_off()}</Badge>
          ) : null}
        </div>
        <p className="text-slate-600">{m.automations_rule_intro()}</p>
      </div>
      <RuleForm
        key={rule?.id ?? "new"}
        id={rule ? `rule-${rule.id}` : "new-rule"}
        values={values}
        choices={choices}
        result={resultFor(actionData, "save")}
        submitLabel={rule ? m.automations_save() : m.automations_create()}
        cancelTo={back}
      />
      {rule ? <TryCard ruleId={rule.id} ads={choices.ads} result={resultFor(actionData, "try")} tried={tried} /> : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
