import { data, Form, href, redirect, useNavigation, useSearchParams } from "react-router";
import { getFormProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { CheckCircle2, Download, Pause, Play, XCircle } from "~/components/ui/icons";
import type { Route } from "./+types/campaign";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { cancelCampaign, pauseCampaign, resumeCampaign } from "~/.server/domains/campaigns/lifecycle";
import { getCampaign, RECIPIENT_RESULTS, recipientsPage, type RecipientResult } from "~/.server/domains/campaigns/queries";
import { APPROVAL_WORDS, apiKeyApproval, approveCampaign, declineCampaign, requireApprover } from "~/.server/domains/campaigns/approval";
import { DeclineSchema } from "~/lib/schemas/approval";
import { LEFT_OUT_WORDS } from "~/.server/domains/campaigns/failure-words";
import { BUILT_IN_FIELDS } from "~/.server/domains/campaigns/variables";
import { getMediaFile } from "~/.server/domains/messaging/media-files";
import type { CampaignParameters } from "~/.server/infrastructure/db/schema/campaigns";
import { sourceInWords } from "~/lib/campaign-form";
import { followedAfterEnd, LIVE_STATUSES, liveFiguresOf, progressOf, RESULT_CHOICES, statusWords } from "~/lib/campaign-live";
import { formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { useCampaignLive } from "~/components/messaging/use-campaign-live";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { FilterSelect } from "~/components/ui/field";
import { ProgressBar } from "~/components/ui/progress-bar";
import { SummaryList } from "~/components/ui/summary";
import { Pager, Table, type Column } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import { TextareaField } from "~/components/ui/field";
import { useSchemaForm } from "~/components/ui/use-schema-form";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { refusalOf, throwIfNotFound, refusalToast, refusalRedirect } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import { TextLink } from "~/components/ui/text-link";

export const handle: PermissionHandle = { permission: "campaigns:view" };

export const meta: Route.MetaFunction = ({ data: loaded }) => [
  { title: `${loaded?.campaign.name ?? "Campaign"} | Message Center | Jumbe` },
];

const RESULT_LABELS: Record<RecipientResult, string> = {
  waiting: "Waiting",
  sent: "Sent",
  delivered: "Delivered",
  read: "Read",
  replied: "Replied",
  failed: "Failed",
  left_out: "Left out",
};

const notFound = (error: unknown) => {
  if (isRefusal(error) && error.status === 404) return data("Campaign not found.", { status: 404 });
  return error;
};

/**
 * /messaging/campaigns/:id: one campaign or broadcast. Its figures update live with JavaScript (the
 * events route), also for a day after it ends while statuses arrive; without it the page refreshes
 * itself every 5 s while it sends or waits for its time, and a reload shows the figures. Pause, Resume and Cancel (with a `?confirm=cancel` step) are plain POST forms.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "campaigns:view");
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const wanted = params.get("result");
  const result = (RECIPIENT_RESULTS as readonly string[]).includes(wanted ?? "") ? (wanted as RecipientResult) : undefined;
  const after = Number(params.get("after"));
  try {
    // Side by side (each refuses a campaign of another tenant): the page waits for two round trips, not four.
    const [campaign, recipients] = await Promise.all([
      getCampaign(organizationId, args.params.id),
      recipientsPage(organizationId, args.params.id, { result, after: Number.isSafeInteger(after) && after > 0 ? after : undefined }),
    ]);
    // Made through the API: whoever has held its key cannot decide it (decision 045).
    const viaKey =
      campaign.status === "awaiting_approval" && !campaign.createdBy
        ? await apiKeyApproval(organizationId, campaign.id, current.user.id)
        : { madeWithApiKey: false, heldKey: false };
    return {
      campaign,
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
    headerFile = file ? `Uploaded file ${file.fileName ?? file.id}` : "An uploaded file, since deleted";
  }
  if (headerFile && media?.filename) headerFile += ` (shown as ${media.filename})`;
  const buttons = (parameters.buttons ?? []).map((b) => `Button ${b.index + 1}: ${sourceInWords(b.source, BUILT_IN_FIELDS)}`);
  return { headerFile, buttons };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "campaigns:view");
  const form = await readForm(args.request);
  const intent = String(form.get("intent") ?? "");
  const id = args.params.id;
  const page = href("/messaging/campaigns/:id", { id });
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  try {
    // Broadcast approval: owners and admins other than the author (approval.ts checks all of it).
    if (intent === "approve" || intent === "decline") {
      const approver = { ...actor, role: current.role };
      requireApprover(approver);
      if (intent === "approve") {
        const { outcome } = await approveCampaign(approver, id);
        return redirectWithToast(
          page,
          "success",
          outcome === "sending" ? "Approved: it is sending now." : "Approved: it will send at its scheduled time.",
        );
      }
      const submission = parseWithZod(form, { schema: DeclineSchema });
      if (submission.status !== "success") return formFailure(submission.reply(), 400, undefined, { intent });
      await declineCampaign(approver, id, submission.value.reason);
      return redirectWithToast(page, "success", "Declined: it will not be sent, and its author can see why.");
    }
    if (!can(current.role, "campaigns:manage")) throw redirect("/unauthorized");
    if (intent === "pause") {
      await pauseCampaign(actor, id);
      return redirectWithToast(page, "success", "Paused: nothing more leaves until you resume it.");
    }
    if (intent === "resume") {
      await resumeCampaign(actor, id);
      return redirectWithToast(page, "success", "Resumed.");
    }
    if (intent === "cancel") {
      if (form.get("confirm") !== "yes") return redirect(`${page}?confirm=cancel`);
      await cancelCampaign(actor, id);
      return redirectWithToast(page, "success", "Cancelled: whoever had not been sent to is left out.");
    }
  } catch (error) {
    // Approving or declining: refused with its status (403 for a role or the author, 409 when decided already).
    const refusal = refusalOf(error);
    throwIfNotFound(refusal, "Campaign not found.");
    if (intent === "approve" || intent === "decline") return refusalToast(refusal, { intent });
    return refusalRedirect(page, refusal);
  }
  throw data("Unknown action.", { status: 400 });
}

type Recipient = Route.ComponentProps["loaderData"]["recipients"]["recipients"][number];

const COUNTERS = [
  ["queued", "Queued"],
  ["sent", "Sent"],
  ["delivered", "Delivered"],
  ["read", "Read"],
  ["replied", "Replied"],
  ["failed", "Failed"],
] as const;

export default function CampaignPage({ loaderData, actionData }: Route.ComponentProps) {
  const {
    campaign,
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
  const [search] = useSearchParams();
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const ended = ["completed", "cancelled", "failed"].includes(campaign.status);
  const live = useCampaignLive(campaign.id, liveFiguresOf(campaign), (!ended || followed) && campaign.status !== "draft");
  const leftOutTotal = Object.values(campaign.leftOut).reduce((sum, n) => sum + (n ?? 0), 0);
  const reach = campaign.audienceSize === null ? null : campaign.audienceSize - leftOutTotal;
  const progress = progressOf(live.counts, reach);
  const page = href("/messaging/campaigns/:id", { id: campaign.id });
  const csv = `${page}/results.csv${result ? `?result=${result}` : ""}`;
  const what = campaign.kind === "broadcast" ? "broadcast" : "campaign";
  const canPause = live.status === "sending" || live.status === "scheduled";
  const canResume = live.status === "paused";
  const canCancel = !["completed", "cancelled", "failed"].includes(live.status);

  const columns: Column<Recipient>[] = [
    {
      key: "to",
      header: "Recipient",
      cell: (r) => (
        <span>
          <span className="tabular-nums">{r.phone ?? "No number"}</span>
          {r.name ? <span className="block text-xs text-slate-500">{r.name}</span> : null}
        </span>
      ),
    },
    {
      key: "result",
      header: "Result",
      cell: (r) => (
        <span className="flex flex-wrap gap-1">
          <Badge status={r.result === "left_out" ? "archived" : r.result === "waiting" ? "queued" : r.result}>
            {RESULT_LABELS[r.result]}
          </Badge>
          {r.replied ? <Badge tone="info">Replied</Badge> : null}
        </span>
      ),
    },
    { key: "reason", header: "Reason", hideOnPhone: true, cell: (r) => r.reason ?? "" },
    {
      key: "when",
      header: "Last update",
      hideOnPhone: true,
      cell: (r) => {
        const at = r.repliedAt ?? r.readAt ?? r.deliveredAt ?? r.sentAt;
        return at ? formatWhen(at) : "";
      },
    },
  ];

  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      {LIVE_STATUSES.includes(campaign.status) ? (
        // Without JavaScript the page refreshes itself while the campaign runs (with it, the events route updates it).
        <noscript>
          <meta httpEquiv="refresh" content="5" />
        </noscript>
      ) : null}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <BackLink to={campaign.kind === "broadcast" ? href("/messaging/broadcasts") : href("/messaging")}>
            {campaign.kind === "broadcast" ? "Broadcast History" : "Campaigns"}
          </BackLink>
          <h1 className="mt-2 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight">
            {campaign.name}
            <span data-testid="campaign-status">
              <Badge status={campaign.approval?.declinedAt ? "declined" : live.status}>
                {statusWords(live.status, campaign.approval?.declinedAt ? "declined" : null)}
              </Badge>
            </span>
          </h1>
          <p className="text-slate-600">
            {campaign.kind === "broadcast" ? "Quick broadcast" : "Campaign"} of {campaign.template.name} ({campaign.template.language}) from{" "}
            {campaign.from ?? "a disconnected number"}
          </p>
        </div>
        {canManage && (canPause || canResume || canCancel) ? (
          <div className="flex flex-wrap gap-2">
            {canPause ? (
              <Form method="post">
                <Button type="submit" name="intent" value="pause" variant="secondary" pending={busy("pause")} pendingText="Pausing...">
                  <Pause className="size-4" aria-hidden /> Pause
                </Button>
              </Form>
            ) : null}
            {canResume ? (
              <Form method="post">
                <Button type="submit" name="intent" value="resume" pending={busy("resume")} pendingText="Resuming...">
                  <Play className="size-4" aria-hidden /> Resume
                </Button>
              </Form>
            ) : null}
            {canCancel && !confirmCancel ? (
              <Form method="post">
                <Button type="submit" name="intent" value="cancel" variant="danger">
                  <XCircle className="size-4" aria-hidden /> Cancel {what}
                </Button>
              </Form>
            ) : null}
          </div>
        ) : null}
      </div>

      {canManage && canCancel && confirmCancel ? (
        <ConfirmPanel
          title={`Cancel this ${what}?`}
          intent="cancel"
          confirmLabel={`Yes, cancel the ${what}`}
          cancelTo={page}
          busy={busy("cancel")}
        >
          Whoever has not been sent to yet is left out. Messages already with Meta keep their statuses. This cannot be undone.
        </ConfirmPanel>
      ) : null}

      {campaign.approval ? (
        <ApprovalPanel
          campaign={campaign}
          what={what}
          canDecide={canDecide && live.status === "awaiting_approval"}
          isAuthor={isAuthor}
          madeWithApiKey={madeWithApiKey}
          keyHolderWords={keyHolderWords}
          timePassed={timePassed}
          result={actionData?.intent === "decline" && "result" in actionData ? actionData.result : undefined}
          busy={busy}
        />
      ) : null}

      {live.pausedReason || (live.status === "paused" && campaign.pausedBy) ? (
        <p role="status" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          Paused{live.pausedReason ? `: ${live.pausedReason}` : campaign.pausedBy ? ` by ${campaign.pausedBy}.` : "."}
        </p>
      ) : null}
      {live.notice ? (
        <p role="status" className="rounded-lg border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-900">
          {live.notice}
        </p>
      ) : null}

      <Card>
        <ProgressBar
          label={
            live.status === "scheduled" ? "Waiting for its time" : live.status === "awaiting_approval" ? "Waiting for approval" : "Progress"
          }
          value={progress.done}
          max={Math.max(progress.of, 1)}
          valueText={`${formatNumber(progress.done)} of ${formatNumber(progress.of)}`}
          tone={live.counts.failed > 0 && live.counts.failed >= progress.done / 2 ? "danger" : "brand"}
        />
        <dl className="mt-4 grid grid-cols-3 gap-3 sm:grid-cols-6" aria-label="Figures">
          {COUNTERS.map(([key, label]) => (
            <div key={key} className="rounded-lg bg-slate-50 px-3 py-2">
              <dt className="text-xs text-slate-500">{label}</dt>
              <dd className="text-lg font-bold text-slate-900 tabular-nums" data-testid={`count-${key}`}>
                {formatNumber(live.counts[key])}
              </dd>
            </div>
          ))}
        </dl>
      </Card>

      <Card>
        <CardHeader title="Details" />
        <SummaryList
          className="mt-4"
          items={[
            { label: "Audience", value: campaign.audienceLabel },
            ...(templateValues.headerFile ? [{ label: "Header file", value: templateValues.headerFile }] : []),
            ...(templateValues.buttons.length
              ? [
                  {
                    label: "Button values",
                    value: (
                      <ul>
                        {templateValues.buttons.map((words) => (
                          <li key={words}>{words}</li>
                        ))}
                      </ul>
                    ),
                  },
                ]
              : []),
            {
              label: "Audience size",
              value: campaign.audienceSize === null ? "Counted when it starts" : formatNumber(campaign.audienceSize),
            },
            {
              label: "Estimated cost",
              value: campaign.estimatedCostKes === null ? "" : formatKes(Math.round(campaign.estimatedCostKes * 100)),
            },
            { label: "Scheduled for", value: campaign.scheduledFor ? formatWhen(campaign.scheduledFor) : "Not scheduled" },
            { label: "Started", value: campaign.startedAt ? formatWhen(campaign.startedAt) : "Not yet" },
            { label: campaign.finishedAt ? "Ended" : "Created", value: formatWhen(campaign.finishedAt ?? campaign.createdAt) },
          ]}
        />
        {leftOutTotal ? (
          <div className="mt-4">
            <h3 className="text-sm font-semibold text-slate-900">Left out: {formatNumber(leftOutTotal)}</h3>
            <ul className="mt-1 list-disc pl-5 text-sm text-slate-700">
              {leftOut.map((r) => (
                <li key={r.reason}>
                  {r.words}: {formatNumber(r.count)}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </Card>

      <Card padding="none">
        <div className="flex flex-wrap items-end justify-between gap-3 px-4 pt-4">
          <h2 className="font-semibold text-slate-900">Recipients</h2>
          <div className="flex flex-wrap items-end gap-3">
            <Form method="get" className="flex items-end gap-2" aria-label="Result filter">
              <FilterSelect
                name="result"
                label="Result"
                value={result ?? ""}
                all="Every result"
                options={RESULT_CHOICES.map((r) => [r, RESULT_LABELS[r]])}
              />
              <Button type="submit" variant="secondary" size="sm" className="mb-0.5">
                Show
              </Button>
            </Form>
            <a
              href={csv}
              download
              className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
            >
              <Download className="size-4" aria-hidden /> Download results
            </a>
          </div>
        </div>
        <Table
          caption="Recipients"
          columns={columns}
          rows={recipients.recipients}
          rowKey={(r) => r.id}
          empty={
            campaign.audienceSize === null ? (
              <>The recipients are counted when it starts.</>
            ) : result ? (
              <>
                Nobody with this result.{" "}
                <TextLink to={page} weight="semibold">
                  Show everyone
                </TextLink>
              </>
            ) : (
              "No recipients."
            )
          }
        />
        <div className="px-4 pb-4">
          <Pager searchParams={search} older={recipients.next === null ? null : String(recipients.next)} label="Recipient pages" />
        </div>
      </Card>
    </div>
  );
}

type Loaded = Route.ComponentProps["loaderData"];

/**
 * Broadcast approval on a campaign's page: while it waits, who asked and when, and for an owner or
 * admin other than its author Approve and Decline (with a reason, required); once decided, who did
 * and when (and why it was declined).
 */
function ApprovalPanel({
  campaign,
  what,
  canDecide,
  isAuthor,
  madeWithApiKey,
  keyHolderWords,
  timePassed,
  result,
  busy,
}: {
  campaign: Loaded["campaign"];
  what: string;
  canDecide: boolean;
  isAuthor: boolean;
  madeWithApiKey: boolean;
  keyHolderWords: string | null;
  timePassed: boolean;
  result: Parameters<typeof useSchemaForm>[1];
  busy: (intent: string) => boolean;
}) {
  const approval = campaign.approval!;
  const [form, fields] = useSchemaForm(DeclineSchema, result, { id: "decline" });
  const author = campaign.createdBy ? campaign.createdBy.name : madeWithApiKey ? "the API" : "the API (or a member since removed)";
  const waiting = campaign.status === "awaiting_approval";
  const scheduled = campaign.scheduledFor && campaign.audienceSize === null;
  const late = scheduled && timePassed;
  const onApproval = !scheduled
    ? "Approving sends it now."
    : late
      ? "Its scheduled time has passed: approving sends it now."
      : `Approving schedules it for ${formatWhen(campaign.scheduledFor!)}.`;
  if (!waiting)
    return (
      <section
        aria-label="Approval"
        className={`rounded-lg border px-4 py-3 text-sm ${approval.declinedAt ? "border-red-200 bg-red-50 text-red-900" : "border-brand-200 bg-brand-50 text-brand-900"}`}
      >
        {approval.declinedAt ? (
          <p>
            Declined by {approval.declinedBy} on {formatWhen(approval.declinedAt)}: <q>{approval.declineReason}</q>
          </p>
        ) : approval.approvedAt ? (
          <p>
            Approved by {approval.approvedBy} on {formatWhen(approval.approvedAt)}.
          </p>
        ) : null}
      </section>
    );
  return (
    <section aria-label="Approval" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
      <h2 className="font-semibold">Awaiting approval</h2>
      <p className="mt-1">
        Asked for by {author}
        {approval.requestedAt ? ` on ${formatWhen(approval.requestedAt)}` : ""}. It reaches more people than the organisation&apos;s
        approval threshold, so nothing is sent until an owner or admin{" "}
        {madeWithApiKey ? "who has never revealed the API key it was made with" : "other than its author"} approves it.
      </p>
      {isAuthor ? <p className="mt-1">You made this {what}: another owner or admin must approve it. You can still cancel it.</p> : null}
      {keyHolderWords ? <p className="mt-1">{keyHolderWords}</p> : null}
      {canDecide ? (
        <div className="mt-3 grid gap-4 sm:grid-cols-2 sm:items-start">
          <Form method="post">
            <p className="mb-2">{onApproval}</p>
            <Button type="submit" name="intent" value="approve" pending={busy("approve")} pendingText="Approving...">
              <CheckCircle2 className="size-4" aria-hidden /> Approve {what}
            </Button>
          </Form>
          <Form method="post" {...getFormProps(form)}>
            <TextareaField
              label="Reason for declining"
              markRequired
              rows={2}
              errors={fields.reason.errors}
              hint="The author sees it. Declined, it is cancelled."
              {...getTextareaProps(fields.reason)}
              key={fields.reason.key}
            />
            <Button type="submit" name="intent" value="decline" variant="danger" pending={busy("decline")} pendingText="Declining...">
              <XCircle className="size-4" aria-hidden /> Decline {what}
            </Button>
          </Form>
        </div>
      ) : null}
    </section>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
