import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import type { CampaignReview } from "~/.server/domains/campaigns/campaign-form";
import type { CampaignFormValues } from "~/lib/campaign-form";
import type { CampaignKind } from "~/lib/schemas/campaign";
import { formatNumber, zoneWords } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { SMS_PART_PRICE_CENTS } from "~/lib/sms-price";
import { CalendarClock, Send, Save } from "~/components/ui/icons";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { MessagePreviewList, SummaryList } from "~/components/ui/summary";
import { Notice } from "~/components/ui/notice";
import { m } from "~/paraglide/messages";
import { CampaignProducts } from "./campaign-products";

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
    ["sms_fallback", values.smsFallback],
    ["sms_text", values.smsText],
    ["sms_after", values.smsAfter],
  ];
  if (values.everyone) fields.push(["everyone", "on"]);
  values.body.forEach((p, i) =>
    fields.push([`p${i + 1}_source`, p.source], [`p${i + 1}_fallback`, p.fallback], [`p${i + 1}_value`, p.value]),
  );
  fields.push(["h_source", values.header.source], ["h_fallback", values.header.fallback], ["h_value", values.header.value]);
  fields.push(["hm_link", values.headerFile.link], ["hm_media", values.headerFile.mediaId], ["hm_filename", values.headerFile.filename]);
  for (const b of values.buttons)
    fields.push([`b${b.index}_source`, b.source], [`b${b.index}_fallback`, b.fallback], [`b${b.index}_value`, b.value]);
  // A catalog or multi-product template's products: a section's products are its name posted once each.
  if (values.products.thumbnail) fields.push(["pr_thumb", values.products.thumbnail]);
  values.products.sections.forEach((s, i) => {
    fields.push([`s${i}_title`, s.title]);
    for (const id of s.productIds) fields.push([`s${i}_products`, id]);
  });
  return fields;
}

/** The Review step: counted, priced and previewed; Back, Save as draft or Confirm post the form again. */
export function CampaignReviewForm({ kind, values, review }: { kind: CampaignKind; values: CampaignFormValues; review: CampaignReview }) {
  const leftOutTotal = review.leftOut.reduce((sum, r) => sum + r.count, 0);
  return (
    <Form method="post" className="space-y-6" aria-label={m.messaging_form_review()}>
      {hiddenFields(values).map(([name, value], i) => (
        <input key={`${i}-${name}`} type="hidden" name={name} value={value} />
      ))}
      <Card>
        <CardHeader
          title={review.name}
          description={
            review.when ? m.messaging_review_scheduled_for({ when: review.when, zone: zoneWords() }) : m.messaging_review_sends_on_confirm()
          }
        />
        <SummaryList
          className="mt-4"
          items={[
            {
              label: m.messaging_review_will_receive(),
              value: <span data-testid="review-recipients">{formatNumber(review.recipients)}</span>,
            },
            { label: m.messaging_result_left_out(), value: formatNumber(leftOutTotal) },
            {
              label: m.messaging_estimated_cost(),
              value: (
                <span data-testid="review-cost">
                  {formatKes(review.costCents)}{" "}
                  <span className="text-xs text-slate-500">
                    {review.includedLeft === null
                      ? m.messaging_review_cost_wallet({ price: formatKes(review.perMessageCents) })
                      : m.messaging_review_cost_plan({
                          count: formatNumber(review.includedLeft),
                          price: formatKes(review.perMessageCents),
                        })}
                  </span>
                </span>
              ),
            },
            ...(review.sms
              ? [
                  {
                    label: m.sms_fallback_review_label(),
                    value: (
                      <span data-testid="review-sms">
                        {m.sms_fallback_review_cost({
                          total: formatKes(review.sms.totalCents),
                          count: formatNumber(review.recipients),
                          parts: formatNumber(review.sms.parts),
                          price: formatKes(SMS_PART_PRICE_CENTS),
                        })}{" "}
                        <span className="block text-xs text-slate-500">
                          {m.sms_fallback_review_after({ minutes: formatNumber(review.sms.afterMinutes), text: review.sms.text })}
                        </span>
                      </span>
                    ),
                  },
                ]
              : []),
            { label: m.messaging_review_from(), value: review.from },
            { label: m.messaging_campaigns_col_template(), value: review.template },
            { label: m.messaging_campaigns_col_audience(), value: review.audience },
          ]}
        />
        {review.walletAvailableCents !== null ? (
          <div className="mt-4" data-testid="review-balance-warning">
            <Notice tone="warning" title={m.messaging_review_wallet_title()}>
              {(kind === "broadcast" ? m.messaging_review_wallet_body_broadcast : m.messaging_review_wallet_body_campaign)({
                cost: formatKes(review.costCents),
                available: formatKes(review.walletAvailableCents),
              })}{" "}
              <Link to="/billing" className="font-semibold underline">
                {m.messaging_review_wallet_top_up()}
              </Link>
            </Notice>
          </div>
        ) : null}
        {review.approvalThreshold !== null ? (
          <p role="note" className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            {m.messaging_review_approval_note({ threshold: formatNumber(review.approvalThreshold) })}
          </p>
        ) : null}
        <CampaignProducts className="mt-4" products={review.products} />
        {review.leftOut.length ? (
          <div className="mt-4">
            <h3 className="text-sm font-semibold text-slate-900">{m.messaging_review_left_out_title()}</h3>
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
        <CardHeader title={m.messaging_review_preview_title()} description={m.messaging_review_preview_description()} />
        <MessagePreviewList className="mt-4" messages={review.preview} empty={m.messaging_review_preview_empty()} />
      </Card>
      <div className="flex flex-wrap justify-end gap-2">
        <Button type="submit" name="intent" value="back" variant="secondary">
          {m.messaging_back()}
        </Button>
        {kind === "campaign" ? (
          <Button type="submit" name="intent" value="draft" variant="secondary" pendingText={m.messaging_saving()}>
            <Save className="size-4" aria-hidden /> {m.messaging_review_save_draft()}
          </Button>
        ) : null}
        <Button type="submit" name="intent" value="confirm" pendingText={m.messaging_starting()} disabled={review.recipients === 0}>
          {review.when ? <CalendarClock className="size-4" aria-hidden /> : <Send className="size-4" aria-hidden />}
          {review.when
            ? m.messaging_review_confirm_schedule()
            : m.messaging_review_confirm_send({ count: formatNumber(review.recipients) })}
        </Button>
      </div>
    </Form>
  );
}
