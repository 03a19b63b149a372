import { data, href } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import type { SubmissionResult } from "~/components/ui/form-state";
import type { Route } from "./+types/new";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import { confirmCampaign } from "~/.server/domains/campaigns/lifecycle";
import { campaignFormChoices } from "~/.server/domains/campaigns/page-data";
import { campaignInputOf, reviewCampaign, type CampaignReview } from "~/.server/domains/campaigns/campaign-form";
import { campaignValuesOf, emptyCampaignForm, numbersIn, UPLOAD_MAX_BYTES } from "~/lib/campaign-form";
import { CampaignIntentSchema, campaignFieldsSchema, campaignFormSchema, type CampaignKind } from "~/lib/schemas/campaign";
import { CAMPAIGN_MESSAGES } from "~/lib/schemas/campaign-rules";
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
  const current = await requireUserWithPermission(args, "campaigns:manage");
  const choices = await campaignFormChoices(current.organization.id);
  const wanted = args.url.searchParams.get("template");
  return { kind: kindOf(args.url), choices, template: choices.templates.some((t) => t.key === wanted) ? wanted : null };
}

// The fields a refusal may name on this form; any other is said above it.
const FIELDS = new Set(["name", "from", "template", "parameters", "audience", "scheduledFor"]);

/** The form again (its step "edit"), or the review of it: Conform's result either way. */
function answer(result: SubmissionResult<string[]>, status = 200, review: CampaignReview | null = null) {
  return data({ step: review ? ("review" as const) : ("edit" as const), result, review, toast: null }, { status });
}

/** An uploaded list joins the pasted one (and is carried as text from here on): the refusal's words, or null. */
async function joinUploadedList(form: FormData): Promise<string | null> {
  const file = form.get("file");
  form.delete("file");
  if (!file || typeof file === "string" || file.size === 0) return null;
  if (file.size > UPLOAD_MAX_BYTES) return CAMPAIGN_MESSAGES.fileTooLarge;
  const uploaded = numbersIn(await file.text(), { file: true });
  if (!uploaded.length) return CAMPAIGN_MESSAGES.fileEmpty;
  form.set("phones", [...numbersIn(String(form.get("phones") ?? "")), ...uploaded].join(", "));
  return null;
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "campaigns:manage");
  const kind = kindOf(args.url);
  const organizationId = current.organization.id;
  const form = await readForm(args.request);
  const intent = CampaignIntentSchema.safeParse({ intent: form.get("intent") }).data?.intent;
  if (!intent) throw data("Unknown action.", { status: 400 });
  if (intent === "choose" || intent === "back") {
    form.delete("file");
    return answer(parseWithZod(form, { schema: campaignFieldsSchema() }).reply());
  }
  const uploadRefused = await joinUploadedList(form);
  if (uploadRefused)
    return answer(parseWithZod(form, { schema: campaignFieldsSchema() }).reply({ fieldErrors: { audience: [uploadRefused] } }), 422);
  const submission = parseWithZod(form, { schema: campaignFormSchema(kind) });
  if (submission.status !== "success") return answer(submission.reply(), 422);

  const choices = await campaignFormChoices(organizationId);
  const values = campaignValuesOf(submission.value);
  const input = campaignInputOf(
    values,
    kind,
    choices.templates.find((t) => t.key === values.template),
  );
  const actor = { organizationId, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  try {
    if (intent === "review") {
      const review = await reviewCampaign(organizationId, input, {
        segmentName: (id) => choices.segments.find((s) => s.id === id)?.name ?? null,
        approvalThreshold: current.organization.approvalThreshold,
      });
      return answer(submission.reply(), 200, review);
    }
    const { id, status } = await confirmCampaign(actor, { ...input, draft: intent === "draft" });
    const broadcast = kind === "broadcast";
    const message =
      intent === "draft"
        ? broadcast
          ? m.messaging_new_toast_draft_broadcast()
          : m.messaging_new_toast_draft_campaign()
        : status === "awaiting_approval"
          ? broadcast
            ? m.messaging_new_toast_awaiting_broadcast()
            : m.messaging_new_toast_awaiting_campaign()
          : input.scheduledFor
            ? broadcast
              ? m.messaging_new_toast_scheduled_broadcast({ when: formatWhen(input.scheduledFor) })
              : m.messaging_new_toast_scheduled_campaign({ when: formatWhen(input.scheduledFor) })
            : broadcast
              ? m.messaging_new_toast_started_broadcast()
              : m.messaging_new_toast_started_campaign();
    return redirectWithToast(href("/messaging/campaigns/:id", { id }), "success", message);
  } catch (error) {
    const refusal = refusalOf(error);
    return refusalReply(submission, refusal, {
      field: refusal.field && FIELDS.has(refusal.field) ? refusal.field : null,
      status: refusal.status === 404 ? 422 : refusal.status,
      extra: { step: "edit" as const, review: null },
    });
  }
}

export default function NewCampaign({ loaderData, actionData }: Route.ComponentProps) {
  const { kind, choices, template } = loaderData;
  const values = actionData
    ? campaignValuesOf(actionData.result?.initialValue ?? {})
    : { ...emptyCampaignForm(), template: template ?? "" };
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
        <CampaignForm kind={kind} choices={choices} values={values} lastResult={actionData?.result} cancelTo={back} />
      )}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
