import { data, href } from "react-router";
import type { SubmissionResult } from "~/components/ui/form-state";
import type { Route } from "./+types/new";
import { requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import type { SubmissionOf } from "~/.server/infrastructure/http/intents";
import { requestMeta, type RequestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { confirmCampaign } from "~/.server/domains/campaigns/lifecycle";
import { campaignFormChoices } from "~/.server/domains/campaigns/page-data";
import {
  campaignInputOf,
  joinUploadedList,
  reviewCampaign,
  withoutUploadedList,
  type CampaignReview,
} from "~/.server/domains/campaigns/campaign-form";
import { pickerProducts } from "~/.server/domains/shop";
import { campaignValuesOf, emptyCampaignForm, fieldsOfAddress, productPickerAsk } from "~/lib/campaign-form";
import { campaignFieldsSchema, campaignFormSchema, type CampaignKind } from "~/lib/schemas/campaign";
import { formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { CampaignForm } from "~/components/campaigns/campaign-form";
import { CampaignReviewForm } from "~/components/campaigns/campaign-review";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { liveDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Campaigns and quick broadcasts: seen by everyone who sees the Message Center, made by those who manage them.
// Documents without React (decision 067): each step posts the whole form; a chosen template's
// placeholders are redrawn from the server (app/assets/live.js).
export const handle: PermissionHandle & PageHandle = { permission: "campaigns:manage", ...liveDocumentPage };

export const clientLoader = loadAsDocument;

const kindOf = (url: URL): CampaignKind => (url.pathname.startsWith("/messaging/broadcasts") ? "broadcast" : "campaign");

export const meta: Route.MetaFunction = ({ location }) => [
  {
    title: location.pathname.startsWith("/messaging/broadcasts")
      ? m.messaging_new_meta_title_broadcast()
      : m.messaging_new_meta_title_campaign(),
  },
];

/**
 * /messaging/campaigns/new and /messaging/broadcasts/new: the spec's New Campaign modal as a page
 * (and Quick Broadcast: a template to an audience, now). Every step posts the whole form, so it works
 * without JavaScript: choosing a template shows its placeholders (at once with JavaScript), Review
 * counts the audience, prices it and previews the first real messages, then Confirm, Save as draft or
 * Back.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const choices = await campaignFormChoices(current.organization.id);
  const wanted = args.url.searchParams.get("template");
  // "Find a product" is a GET of the whole form: the page shows it as it was typed and ticked.
  const fields = fieldsOfAddress(args.url.searchParams);
  const searched = args.url.searchParams.has("pq") ? campaignValuesOf(fields) : null;
  const picker = choices.templates.some((t) => t.productButton)
    ? await pickerProducts(current.organization.id, productPickerAsk(fields))
    : null;
  return {
    kind: kindOf(args.url),
    choices,
    template: choices.templates.some((t) => t.key === wanted) ? wanted : null,
    searched,
    picker,
    path: args.url.pathname,
  };
}

/** The products a posted form's template offers (its search and ticks), when a template is chosen. */
const pickerOf = (user: CurrentUser, fields: Record<string, unknown>) =>
  fields.template ? pickerProducts(user.organization.id, productPickerAsk(fields)) : Promise.resolve(null);
type Picker = Awaited<ReturnType<typeof pickerOf>>;

// The fields a refusal may name on this form; any other is said above it.
const FIELDS = new Set(["name", "from", "template", "parameters", "audience", "scheduledFor", "smsFallback"]);

/** The form again (its step "edit"), or the review of it: Conform's result either way. */
function answer(result: SubmissionResult<string[]>, status = 200, review: CampaignReview | null = null, picker: Picker = null) {
  return data({ step: review ? ("review" as const) : ("edit" as const), result, review, picker, toast: null }, { status });
}

interface Shown {
  reply: () => SubmissionResult<string[]>;
  payload: Record<string, unknown>;
}

/** Choose and Back: the form again as it was typed (a failure too: nothing is judged yet). */
const shownAgain = async (submission: Shown, user: CurrentUser, status = 200) =>
  answer(submission.reply(), status, null, await pickerOf(user, submission.payload));

export async function action(args: Route.ActionArgs) {
  const kind = kindOf(args.url);
  const meta = requestMeta(args.request, args.context);
  const shown = intent(campaignFieldsSchema(), ({ submission, user }) => shownAgain(submission, user), {
    prepare: withoutUploadedList,
    invalid: (submission, _intent, user) => shownAgain(submission, user),
  });
  const posted = intent(
    campaignFormSchema(kind),
    async ({ value, submission, user, intent: step }) => saveOrReview(user, meta, kind, step, value, submission),
    {
      prepare: joinUploadedList,
      invalid: (submission, _intent, user) => shownAgain(submission, user, 422),
    },
  );
  return intentAction(args, {
    permission: "campaigns:manage",
    intents: { choose: shown, back: shown, review: posted, confirm: posted, draft: posted },
    unknown: () => {
      throw data("Unknown action.", { status: 400 });
    },
  });
}

/** Review (the audience counted, priced and previewed), Confirm or Save as draft: the campaign made, or the form refused at its field. */
async function saveOrReview(
  current: CurrentUser,
  meta: RequestMeta,
  kind: CampaignKind,
  intent: string,
  value: Record<string, unknown>,
  submission: SubmissionOf<ReturnType<typeof campaignFormSchema>>,
) {
  const organizationId = current.organization.id;
  const choices = await campaignFormChoices(organizationId);
  const values = campaignValuesOf(value);
  const input = campaignInputOf(
    values,
    kind,
    choices.templates.find((t) => t.key === values.template),
  );
  const actor = { organizationId, userId: current.user.id, meta };
  try {
    if (intent === "review") {
      const review = await reviewCampaign(organizationId, input, {
        segmentName: (id) => choices.segments.find((s) => s.id === id)?.name ?? null,
        approvalThreshold: current.organization.approvalThreshold,
      });
      return answer(submission.reply(), 200, review);
    }
    const { id, status } = await confirmCampaign(actor, { ...input, draft: intent === "draft" });
    return redirectWithToast(href("/messaging/campaigns/:id", { id }), "success", doneWords(kind, intent, status, input.scheduledFor));
  } catch (error) {
    const refusal = refusalOf(error);
    return refusalReply(submission, refusal, {
      field: refusal.field && FIELDS.has(refusal.field) ? refusal.field : null,
      status: refusal.status === 404 ? 422 : refusal.status,
      extra: { step: "edit" as const, review: null, picker: await pickerOf(current, submission.payload) },
    });
  }
}

/** The toast of a saved campaign or broadcast: a draft, awaiting approval, scheduled or started. */
function doneWords(kind: CampaignKind, intent: string, status: string, scheduledFor: Date | null | undefined) {
  const broadcast = kind === "broadcast";
  if (intent === "draft") return broadcast ? m.messaging_new_toast_draft_broadcast() : m.messaging_new_toast_draft_campaign();
  if (status === "awaiting_approval")
    return broadcast ? m.messaging_new_toast_awaiting_broadcast() : m.messaging_new_toast_awaiting_campaign();
  if (scheduledFor)
    return broadcast
      ? m.messaging_new_toast_scheduled_broadcast({ when: formatWhen(scheduledFor) })
      : m.messaging_new_toast_scheduled_campaign({ when: formatWhen(scheduledFor) });
  return broadcast ? m.messaging_new_toast_started_broadcast() : m.messaging_new_toast_started_campaign();
}

export default function NewCampaign({ loaderData, actionData }: Route.ComponentProps) {
  const { kind, choices, template, searched, path } = loaderData;
  const values = actionData
    ? campaignValuesOf(actionData.result?.initialValue ?? {})
    : (searched ?? { ...emptyCampaignForm(), template: template ?? "" });
  const picker = actionData ? actionData.picker : loaderData.picker;
  const title = kind === "broadcast" ? m.messaging_new_title_broadcast() : m.messaging_new_title_campaign();
  const back = kind === "broadcast" ? href("/messaging/broadcasts") : href("/messaging");
  const review = actionData?.step === "review" ? actionData.review : null;
  return (
    <div className="space-y-6">
      <div>
        <BackLink to={back}>{kind === "broadcast" ? m.messaging_center_tab_broadcasts() : m.messaging_center_tab_campaigns()}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{review ? m.messaging_new_review_title({ title }) : title}</h1>
        <p className="text-slate-600">{kind === "broadcast" ? m.messaging_new_intro_broadcast() : m.messaging_new_intro_campaign()}</p>
      </div>
      {review ? (
        <CampaignReviewForm kind={kind} values={values} review={review} />
      ) : (
        <CampaignForm
          kind={kind}
          choices={choices}
          values={values}
          picker={picker && { ...picker, action: path }}
          lastResult={actionData?.result}
          cancelTo={back}
        />
      )}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
