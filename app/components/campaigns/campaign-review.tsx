import { Form, Link } from "react-router";
import type { CampaignReview } from "~/.server/domains/campaigns/campaign-form";
import type { CampaignFormValues } from "~/lib/campaign-form";
import type { CampaignKind } from "~/lib/schemas/campaign";
import { formatNumber, zoneWords } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { CalendarClock, Send, Save } from "~/components/ui/icons";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { MessagePreviewList, SummaryList } from "~/components/ui/summary";
import { Notice } from "~/components/ui/notice";

/** The form's values as hidden fields: the review posts them again with the chosen button. */
function hiddenFields(values: CampaignFormValues): [string, string][] {
  const fields: [string, string][] = [
    ["name", values.name],
    ["from", values.from],
    ["template", values.template],
    ["segment", values.segment],
    ["tags", values.tags],
    ["phones", values.phones],
    ["when", values.when],
    ["date", values.date],
    ["time", values.time],
  ];
  if (values.everyone) fields.push(["everyone", "on"]);
  values.body.forEach((p, i) =>
    fields.push([`p${i + 1}_source`, p.source], [`p${i + 1}_fallback`, p.fallback], [`p${i + 1}_value`, p.value]),
  );
  fields.push(["h_source", values.header.source], ["h_fallback", values.header.fallback], ["h_value", values.header.value]);
  fields.push(["hm_link", values.headerFile.link], ["hm_media", values.headerFile.mediaId], ["hm_filename", values.headerFile.filename]);
  for (const b of values.buttons)
    fields.push([`b${b.index}_source`, b.source], [`b${b.index}_fallback`, b.fallback], [`b${b.index}_value`, b.value]);
  return fields;
}

/** The Review step: counted, priced and previewed; Back, Save as draft or Confirm post the form again. */
export function CampaignReviewForm({ kind, values, review }: { kind: CampaignKind; values: CampaignFormValues; review: CampaignReview }) {
  const leftOutTotal = review.leftOut.reduce((sum, r) => sum + r.count, 0);
  return (
    <Form method="post" className="space-y-6" aria-label="Review">
      {hiddenFields(values).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Card>
        <CardHeader
          title={review.name}
          description={review.when ? `Scheduled for ${review.when} (${zoneWords()})` : "Sends as soon as you confirm"}
        />
        <SummaryList
          className="mt-4"
          items={[
            { label: "Will receive it", value: <span data-testid="review-recipients">{formatNumber(review.recipients)}</span> },
            { label: "Left out", value: formatNumber(leftOutTotal) },
            {
              label: "Estimated cost",
              value: (
                <span data-testid="review-cost">
                  {formatKes(review.costCents)}{" "}
                  <span className="text-xs text-slate-500">
                    {review.includedLeft === null
                      ? `(${formatKes(review.perMessageCents)} a message, from your wallet)`
                      : `(your plan includes ${formatNumber(review.includedLeft)} more messages this month; ${formatKes(review.perMessageCents)} each beyond)`}
                  </span>
                </span>
              ),
            },
            { label: "From", value: review.from },
            { label: "Template", value: review.template },
            { label: "Audience", value: review.audience },
          ]}
        />
        {review.walletAvailableCents !== null ? (
          <div className="mt-4" data-testid="review-balance-warning">
            <Notice tone="warning" title="Your wallet cannot pay for all of it">
              The estimate is {formatKes(review.costCents)} and your wallet has {formatKes(review.walletAvailableCents)} available. Messages
              stop when the money runs out, and the {kind} pauses until a top-up covers the rest.{" "}
              <Link to="/billing" className="font-semibold underline">
                Top up your wallet
              </Link>
            </Notice>
          </div>
        ) : null}
        {review.approvalThreshold !== null ? (
          <p role="note" className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            It reaches more than {formatNumber(review.approvalThreshold)} people, your organisation&apos;s approval threshold: confirming
            puts it to approval, and nothing is sent until an owner or admin other than you approves it.
          </p>
        ) : null}
        {review.leftOut.length ? (
          <div className="mt-4">
            <h3 className="text-sm font-semibold text-slate-900">Who is left out, and why</h3>
            <ul className="mt-1 list-disc pl-5 text-sm text-slate-700">
              {review.leftOut.map((r) => (
                <li key={r.reason}>
                  {r.words}: {formatNumber(r.count)}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </Card>
      <Card>
        <CardHeader title="Preview" description="The first messages as the people will read them." />
        <MessagePreviewList className="mt-4" messages={review.preview} empty="Nobody in this audience can receive it." />
      </Card>
      <div className="flex flex-wrap justify-end gap-2">
        <Button type="submit" name="intent" value="back" variant="secondary">
          Back
        </Button>
        {kind === "campaign" ? (
          <Button type="submit" name="intent" value="draft" variant="secondary" pendingText="Saving...">
            <Save className="size-4" aria-hidden /> Save as draft
          </Button>
        ) : null}
        <Button type="submit" name="intent" value="confirm" pendingText="Starting..." disabled={review.recipients === 0}>
          {review.when ? <CalendarClock className="size-4" aria-hidden /> : <Send className="size-4" aria-hidden />}
          {review.when ? "Confirm and schedule" : `Confirm and send to ${formatNumber(review.recipients)}`}
        </Button>
      </div>
    </Form>
  );
}
