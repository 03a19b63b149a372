import { Form } from "react-router";

import { getFormProps, getTextareaProps } from "~/components/ui/form-state";

import { formatWhen } from "~/lib/dates";

import { CheckCircle2, XCircle } from "~/components/ui/icons";

import { Button } from "~/components/ui/button";

import { TextareaField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import type { CampaignView } from "./campaign-page-types";

// Loaded when the form is first used (decision 061).
const lazyDeclineSchema = lazySchema(() => import("~/lib/schemas/approval"), "DeclineSchema");

/**
 * Broadcast approval on a campaign's page: while it waits, who asked and when, and for an owner or
 * admin other than its author Approve and Decline (with a reason, required); once decided, who did
 * and when (and why it was declined).
 */
export function ApprovalPanel({
  campaign,
  what,
  canDecide,
  isAuthor,
  madeWithApiKey,
  keyHolderWords,
  timePassed,
  result,
}: {
  campaign: CampaignView;
  what: string;
  canDecide: boolean;
  isAuthor: boolean;
  madeWithApiKey: boolean;
  keyHolderWords: string | null;
  timePassed: boolean;
  result: Parameters<typeof useSchemaForm>[1];
}) {
  const approval = campaign.approval!;
  const [form, fields] = useSchemaForm(lazyDeclineSchema, result, { id: "decline" });
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
            <Button type="submit" name="intent" value="approve" pendingText="Approving...">
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
            <Button type="submit" name="intent" value="decline" variant="danger" pendingText="Declining...">
              <XCircle className="size-4" aria-hidden /> Decline {what}
            </Button>
          </Form>
        </div>
      ) : null}
    </section>
  );
}
