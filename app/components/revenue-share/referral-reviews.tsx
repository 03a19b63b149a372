import { Link } from "~/components/ui/link";
import type { ReferralReviewRow } from "~/.server/domains/revenue-share/self-referral";
import { Card, CardHeader } from "~/components/ui/card";
import { IntentForm, replyFor, type RevenueActionData } from "~/components/revenue-share/parts";
import { formatDay } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** A match in words: "Phone +254712345678", "E-mail domain agency.co.ke", "KRA PIN P051234567Q". */
function matchWords(match: ReferralReviewRow["matches"][number]) {
  if (match.field === "phone") return m.revenue_match_phone({ value: match.value });
  if (match.field === "email_domain") return m.revenue_match_email_domain({ value: match.value });
  return m.revenue_match_kra_pin({ value: match.value });
}

/** The referrals held for review (decision 104): who, through which partner, what they share; approve or reject, scripts or not. */
export function ReferralReviews({ reviews, actionData }: { reviews: ReferralReviewRow[]; actionData: RevenueActionData }) {
  return (
    <Card aria-labelledby="referral-reviews">
      <CardHeader id="referral-reviews" title={m.revenue_reviews_title()} description={m.revenue_reviews_intro()} />
      {reviews.length ? (
        <ul className="mt-3 divide-y divide-slate-100" aria-label={m.revenue_reviews_title()}>
          {reviews.map((r) => (
            <li key={r.id} className="space-y-3 py-3" data-testid="referral-review">
              <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-2">
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_client()}</dt>
                  <dd className="break-words">
                    {r.organizationName}
                    {r.ownerEmail ? <span className="block break-all text-slate-600">{r.ownerEmail}</span> : null}
                  </dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_partner()}</dt>
                  <dd className="break-words">
                    <Link
                      to={`/revenue-share/partners?dialog=partner&partner=${r.partnerId}`}
                      className="font-medium text-brand-700 hover:underline"
                    >
                      {r.partnerName}
                    </Link>
                  </dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_signed_up()}</dt>
                  <dd>{formatDay(r.createdAt)}</dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-slate-500">{m.revenue_column_matched()}</dt>
                  <dd className="break-words">{r.matches.map(matchWords).join(" · ")}</dd>
                </div>
              </dl>
              <div className="grid gap-4 sm:grid-cols-2">
                <IntentForm
                  intent="approve-referral"
                  hidden={{ review: r.id }}
                  submit={m.revenue_approve_referral()}
                  variant="primary"
                  reason={{ label: m.revenue_field_reason_optional(), required: false }}
                  result={replyFor(actionData, "approve-referral")}
                />
                <IntentForm
                  intent="reject-referral"
                  hidden={{ review: r.id }}
                  submit={m.revenue_reject_referral()}
                  variant="danger"
                  reason={{ label: m.revenue_field_reason(), required: true }}
                  result={replyFor(actionData, "reject-referral")}
                />
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-600">{m.revenue_reviews_empty()}</p>
      )}
    </Card>
  );
}
