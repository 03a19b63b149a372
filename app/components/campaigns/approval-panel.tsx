import { Form } from "react-router";

import { getFormProps, getTextareaProps } from "~/components/ui/form-state";

import { formatWhen } from "~/lib/dates";

import { CheckCircle2, XCircle } from "~/components/ui/icons";

import { Button } from "~/components/ui/button";

import { TextareaField } from "~/components/ui/field";

import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";

import { m } from "~/paraglide/messages";

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
  canDecide,
  isAuthor,
  madeWithApiKey,
  keyHolderWords,
  timePassed,
  result,
}: {
  campaign: CampaignView;
  canDecide: boolean;
  isAuthor: boolean;
  madeWithApiKey: boolean;
  keyHolderWords: string | null;
  timePassed: boolean;
  result: Parameters<typeof useSchemaForm>[1];
}) {
  const approval = campaign.approval!;
  const [form, fields] = useSchemaForm(lazyDeclineSchema, result, { id: "decline" });
  const broadcast = campaign.kind === "broadcast";
  const author = campaign.createdBy
    ? campaign.createdBy.name
    : madeWithApiKey
      ? m.messaging_approval_author_api()
      : m.messaging_approval_author_api_or_removed();
  const waiting = campaign.status === "awaiting_approval";
  const scheduled = campaign.scheduledFor && campaign.audienceSize === null;
  const late = scheduled && timePassed;
  const onApproval = !scheduled
    ? m.messaging_approval_sends_now()
    : late
      ? m.messaging_approval_time_passed()
      : m.messaging_approval_schedules({ when: formatWhen(campaign.scheduledFor!) });
  if (!waiting)
    return (
      <section
        aria-label={m.messaging_approval_label()}
        className={`rounded-lg border px-4 py-3 text-sm ${approval.declinedAt ? "border-red-200 bg-red-50 text-red-900" : "border-brand-200 bg-brand-50 text-brand-900"}`}
      >
        {approval.declinedAt ? (
          <p>
            {m.messaging_approval_declined_by({ name: approval.declinedBy ?? "", when: formatWhen(approval.declinedAt) })}{" "}
            <q>{approval.declineReason}</q>
          </p>
        ) : approval.approvedAt ? (
          <p>{m.messaging_approval_approved_by({ name: approval.approvedBy ?? "", when: formatWhen(approval.approvedAt) })}</p>
        ) : null}
      </section>
    );
  return (
    <section
      aria-label={m.messaging_approval_label()}
      className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
    >
      <h2 className="font-semibold">{m.messaging_status_awaiting_approval()}</h2>
      <p className="mt-1">
        {approval.requestedAt
          ? m.messaging_approval_asked_by_on({ name: author, when: formatWhen(approval.requestedAt) })
          : m.messaging_approval_asked_by({ name: author })}{" "}
        {madeWithApiKey ? m.messaging_approval_threshold_api_key() : m.messaging_approval_threshold_author()}
      </p>
      {isAuthor ? (
        <p className="mt-1">{broadcast ? m.messaging_approval_you_made_broadcast() : m.messaging_approval_you_made_campaign()}</p>
      ) : null}
      {keyHolderWords ? <p className="mt-1">{keyHolderWords}</p> : null}
      {canDecide ? (
        <div className="mt-3 grid gap-4 sm:grid-cols-2 sm:items-start">
          <Form method="post">
            <p className="mb-2">{onApproval}</p>
            <Button type="submit" name="intent" value="approve" pendingText={m.messaging_approval_approving()}>
              <CheckCircle2 className="size-4" aria-hidden />{" "}
              {broadcast ? m.messaging_approval_approve_broadcast() : m.messaging_approval_approve_campaign()}
            </Button>
          </Form>
          <Form method="post" {...getFormProps(form)}>
            <TextareaField
              label={m.messaging_approval_reason_label()}
              markRequired
              rows={2}
              errors={fields.reason.errors}
              hint={m.messaging_approval_reason_hint()}
              {...getTextareaProps(fields.reason)}
              key={fields.reason.key}
            />
            <Button type="submit" name="intent" value="decline" variant="danger" pendingText={m.messaging_approval_declining()}>
              <XCircle className="size-4" aria-hidden />{" "}
              {broadcast ? m.messaging_approval_decline_broadcast() : m.messaging_approval_decline_campaign()}
            </Button>
          </Form>
        </div>
      ) : null}
    </section>
  );
}
