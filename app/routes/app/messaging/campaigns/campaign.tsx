import { data, href, redirect } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/campaign";
import { can, requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { cancelCampaign, pauseCampaign, resumeCampaign } from "~/.server/domains/campaigns/lifecycle";
import { campaignProductsShown } from "~/.server/domains/campaigns/products";
import { getCampaign, RECIPIENT_RESULTS, recipientsPage, type RecipientResult } from "~/.server/domains/campaigns/queries";
import { campaignFallbackSummary } from "~/.server/domains/sms";
import { APPROVAL_WORDS, apiKeyApproval, approveCampaign, declineCampaign, requireApprover } from "~/.server/domains/campaigns/approval";
import { DeclineSchema } from "~/lib/schemas/approval";
import { LEFT_OUT_WORDS } from "~/.server/domains/campaigns/failure-words";
import { BUILT_IN_FIELDS } from "~/.server/domains/campaigns/variables";
import { getMediaFile } from "~/.server/domains/messaging/media-files";
import type { CampaignParameters } from "~/.server/infrastructure/db/schema/campaigns";
import { sourceInWords } from "~/lib/campaign-form";
import { followedAfterEnd, LIVE_STATUSES, liveFiguresOf, progressOf } from "~/lib/campaign-live";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { ApprovalPanel } from "~/components/campaigns/approval-panel";
import { CampaignControls, CampaignNotices } from "~/components/campaigns/campaign-controls";
import { CampaignHeading } from "~/components/campaigns/campaign-heading";
import { CampaignDetails } from "~/components/campaigns/campaign-details";
import { CampaignFigures } from "~/components/campaigns/campaign-figures";
import { CampaignRecipients } from "~/components/campaigns/campaign-recipients";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Toast } from "~/components/ui/toast";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { throwIfNotFound, refusalToast, refusalRedirect } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { liveDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A document without React (decision 067): while it sends (and for a day after, as statuses arrive)
// the page's script (app/assets/live.js) follows the events route and redraws its live parts.
export const handle: PermissionHandle & PageHandle = { permission: "campaigns:view", ...liveDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ data: loaded }) => [
  { title: m.messaging_campaign_meta_title({ name: loaded?.campaign.name ?? m.messaging_campaign_meta_fallback() }) },
];

const notFound = (error: unknown) => {
  if (isRefusal(error) && error.status === 404) return data(m.messaging_campaign_not_found(), { status: 404 });
  return error;
};

/**
 * /messaging/campaigns/:id: one campaign or broadcast. Its figures update live with JavaScript (the
 * events route), also for a day after it ends while statuses arrive; without it the page refreshes
 * itself every 5 s while it sends or waits for its time, and a reload shows the figures. Pause,
 * Resume and Cancel (with a `?confirm=cancel` step) are plain POST forms.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const wanted = params.get("result");
  const result = (RECIPIENT_RESULTS as readonly string[]).includes(wanted ?? "") ? (wanted as RecipientResult) : undefined;
  const after = Number(params.get("after"));
  try {
    // Side by side (each refuses a campaign of another tenant): the page waits for two round trips, not four.
    const [campaign, recipients, smsFallback] = await Promise.all([
      getCampaign(organizationId, args.params.id),
      recipientsPage(organizationId, args.params.id, { result, after: Number.isSafeInteger(after) && after > 0 ? after : undefined }),
      campaignFallbackSummary(organizationId, args.params.id),
    ]);
    // Made through the API: whoever has held its key cannot decide it (decision 045).
    const viaKey =
      campaign.status === "awaiting_approval" && !campaign.createdBy
        ? await apiKeyApproval(organizationId, campaign.id, current.user.id)
        : { madeWithApiKey: false, heldKey: false };
    return {
      campaign,
      smsFallback,
      templateValues: await templateValuesInWords(organizationId, campaign.parameters),
      recipients,
      result: result ?? null,
      leftOut: Object.entries(campaign.leftOut).map(([reason, count]) => ({
        reason,
        words: LEFT_OUT_WORDS[reason] ?? reason,
        count: count ?? 0,
      })),
      canManage: can(current.role, "campaigns:manage"),
      // Broadcast approval: owners and admins decide, but never on their own campaign.
      isAuthor: campaign.createdBy?.id === current.user.id,
      canDecide: can(current.role, "campaigns:approve") && campaign.createdBy?.id !== current.user.id && !viaKey.heldKey,
      madeWithApiKey: viaKey.madeWithApiKey,
      keyHolderWords: viaKey.heldKey && can(current.role, "campaigns:approve") ? APPROVAL_WORDS.keyHolder : null,
      // A scheduled one whose time has passed while it waited sends as soon as it is approved.
      timePassed: !!campaign.scheduledFor && new Date(campaign.scheduledFor).getTime() <= Date.now(),
      confirmCancel: params.get("confirm") === "cancel",
      // Ended within the last day: its statuses are still followed live (decision 049).
      followed: followedAfterEnd(campaign.finishedAt),
    };
  } catch (error) {
    throw notFound(error);
  }
}

/** A media header's file and the buttons' values in words, for the summary (the body's show in the preview when it is made). */
async function templateValuesInWords(organizationId: string, parameters: CampaignParameters) {
  const media = parameters.headerMedia;
  let headerFile: string | null = media?.link ?? null;
  if (media?.mediaId) {
    const file = await getMediaFile(organizationId, media.mediaId).catch(() => null);
    headerFile = file ? m.messaging_campaign_header_uploaded({ name: file.fileName ?? file.id }) : m.messaging_campaign_header_deleted();
  }
  if (headerFile && media?.filename) headerFile = m.messaging_campaign_header_shown_as({ file: headerFile, name: media.filename });
  const buttons = (parameters.buttons ?? []).map((b) =>
    m.messaging_campaign_button_value({ number: b.index + 1, source: sourceInWords(b.source, BUILT_IN_FIELDS) }),
  );
  return { headerFile, buttons, products: await campaignProductsShown(organizationId, parameters.products) };
}

// Approving, pausing and resuming post only their button; a decline its reason (checked after the role:
// a role that may not decide is told so first); a cancel says "yes" on its second step.
const NoFields = z.object({});
const ReasonSchema = z.object({ reason: z.optional(z.string()) });
const CancelSchema = z.object({ confirm: postedText });

/**
 * Every member who sees the campaign may post here; approving and declining are for owners and
 * admins other than its author (approval.ts refuses anyone else, 403 in a toast), pausing, resuming
 * and cancelling for those who manage campaigns (the helper sends anyone else to the refusal page).
 */
export async function action(args: Route.ActionArgs) {
  const id = args.params.id;
  const page = href("/messaging/campaigns/:id", { id });
  const actorOf = (current: CurrentUser) => ({
    organizationId: current.organization.id,
    userId: current.user.id,
    meta: requestMeta(args.request, args.context),
  });
  const approverOf = (current: CurrentUser) => {
    const approver = { ...actorOf(current), role: current.role };
    requireApprover(approver);
    return approver;
  };
  return intentAction(args, {
    permission: "campaigns:view",
    intents: {
      approve: intent(NoFields, async ({ user }) => {
        const { outcome } = await approveCampaign(approverOf(user), id);
        return redirectWithToast(
          page,
          "success",
          outcome === "sending" ? m.messaging_campaign_approved_sending() : m.messaging_campaign_approved_scheduled(),
        );
      }),
      decline: intent(ReasonSchema, async ({ value, submission, user, intent: posted }) => {
        const approver = approverOf(user);
        const checked = DeclineSchema.safeParse(value);
        if (!checked.success)
          return formFailure(
            submission.reply({ fieldErrors: { reason: checked.error.issues.map((issue) => issue.message) } }),
            400,
            undefined,
            {
              intent: posted,
            },
          );
        await declineCampaign(approver, id, checked.data.reason);
        return redirectWithToast(page, "success", m.messaging_campaign_declined_toast());
      }),
      pause: intent(
        NoFields,
        async ({ user }) => {
          await pauseCampaign(actorOf(user), id);
          return redirectWithToast(page, "success", m.messaging_campaign_paused_toast());
        },
        { permission: "campaigns:manage" },
      ),
      resume: intent(
        NoFields,
        async ({ user }) => {
          await resumeCampaign(actorOf(user), id);
          return redirectWithToast(page, "success", m.messaging_campaign_resumed_toast());
        },
        { permission: "campaigns:manage" },
      ),
      cancel: intent(
        CancelSchema,
        async ({ value, user }) => {
          if (value.confirm !== "yes") return redirect(`${page}?confirm=cancel`);
          await cancelCampaign(actorOf(user), id);
          return redirectWithToast(page, "success", m.messaging_campaign_cancelled_toast());
        },
        { permission: "campaigns:manage" },
      ),
    },
    refused: async (refusal, posted) => {
      // Approving or declining: refused with its status (403 for a role or the author, 409 when decided already).
      throwIfNotFound(refusal, m.messaging_campaign_not_found());
      if (posted === "approve" || posted === "decline") return refusalToast(refusal, { intent: posted });
      return refusalRedirect(page, refusal);
    },
    unknown: () => {
      throw data("Unknown action.", { status: 400 });
    },
  });
}

export default function CampaignPage({ loaderData, actionData }: Route.ComponentProps) {
  const {
    campaign,
    smsFallback,
    templateValues,
    recipients,
    result,
    leftOut,
    canManage,
    canDecide,
    isAuthor,
    madeWithApiKey,
    keyHolderWords,
    timePassed,
    confirmCancel,
    followed,
  } = loaderData;
  const ended = ["completed", "cancelled", "failed"].includes(campaign.status);
  const live = liveFiguresOf(campaign);
  const followsLive = (!ended || followed) && campaign.status !== "draft";
  const leftOutTotal = Object.values(campaign.leftOut).reduce((sum, n) => sum + (n ?? 0), 0);
  const reach = campaign.audienceSize === null ? null : campaign.audienceSize - leftOutTotal;
  const page = href("/messaging/campaigns/:id", { id: campaign.id });
  const broadcast = campaign.kind === "broadcast";
  const canPause = live.status === "sending" || live.status === "scheduled";
  const canResume = live.status === "paused";
  const canCancel = !["completed", "cancelled", "failed"].includes(live.status);

  return (
    <div
      className="space-y-6"
      data-live-events={followsLive ? href("/messaging/campaigns/:id/events", { id: campaign.id }) : undefined}
      data-live-on="figures"
    >
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      {LIVE_STATUSES.includes(campaign.status) ? (
        // Without JavaScript the page refreshes itself while the campaign runs (with it, the events route updates it).
        <noscript>
          <meta httpEquiv="refresh" content="5" />
        </noscript>
      ) : null}
      <div id="campaign-heading" data-live-region className="flex flex-wrap items-end justify-between gap-3">
        <CampaignHeading campaign={campaign} status={live.status} />
        {canManage && (canPause || canResume || canCancel) ? (
          <CampaignControls kind={campaign.kind} canPause={canPause} canResume={canResume} canCancel={canCancel && !confirmCancel} />
        ) : null}
      </div>

      {canManage && canCancel && confirmCancel ? (
        <ConfirmPanel
          title={broadcast ? m.messaging_campaign_cancel_title_broadcast() : m.messaging_campaign_cancel_title_campaign()}
          intent="cancel"
          confirmLabel={broadcast ? m.messaging_campaign_cancel_confirm_broadcast() : m.messaging_campaign_cancel_confirm_campaign()}
          cancelTo={page}
        >
          {m.messaging_campaign_cancel_body()}
        </ConfirmPanel>
      ) : null}

      {campaign.approval ? (
        <ApprovalPanel
          campaign={campaign}
          canDecide={canDecide && live.status === "awaiting_approval"}
          isAuthor={isAuthor}
          madeWithApiKey={madeWithApiKey}
          keyHolderWords={keyHolderWords}
          timePassed={timePassed}
          result={actionData?.intent === "decline" && "result" in actionData ? actionData.result : undefined}
        />
      ) : null}

      <div id="campaign-notices" data-live-region className="space-y-6 empty:hidden">
        <CampaignNotices live={live} pausedBy={campaign.pausedBy} />
      </div>
      <div id="campaign-figures" data-live-region>
        <CampaignFigures live={live} progress={progressOf(live.counts, reach)} />
      </div>
      <CampaignDetails {...{ campaign, templateValues, leftOut, leftOutTotal }} sms={smsFallback} />
      <div id="campaign-recipients" data-live-region>
        <CampaignRecipients recipients={recipients} result={result} page={page} counted={campaign.audienceSize !== null} />
      </div>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
