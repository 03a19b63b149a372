import { Form } from "react-router";
import type { UnmatchedReceipt } from "~/.server/domains/payments";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { formatNumber, formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

const REASON_WORDS = {
  no_request: () => m.payreq_receipts_reason_no_request(),
  several_requests: () => m.payreq_receipts_reason_several_requests(),
  request_closed: () => m.payreq_receipts_reason_request_closed(),
  untrusted_source: () => m.payreq_receipts_reason_untrusted_source(),
} as const;

/**
 * Settings → Payments' "Received without a request": each payment to the business's shortcode that
 * settled no request, with why, and (for a manager) a plain form matching it to a request by its
 * reference. A refused match is said under its own payment.
 */
export function UnmatchedReceipts({
  receipts,
  canManage,
  failed,
}: {
  receipts: UnmatchedReceipt[];
  canManage: boolean;
  failed?: { receiptId: string; reference: string; error: string };
}) {
  return (
    <Card>
      <CardHeader title={m.payreq_receipts_title()} description={m.payreq_receipts_description()} />
      {!receipts.length ? (
        <p className="mt-2 text-sm text-slate-600">{m.payreq_receipts_none()}</p>
      ) : (
        <ul className="mt-3 space-y-3" aria-label={m.payreq_receipts_title()}>
          {receipts.map((r) => {
            const refused = failed?.receiptId === r.id ? failed : undefined;
            return (
              <li key={r.id} className="rounded-lg border border-slate-200 p-3 text-sm" data-testid="unmatched-receipt">
                <dl className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-2">
                  <div>
                    <dt className="text-xs text-slate-500">{m.payreq_receipts_amount()}</dt>
                    <dd className="font-medium text-slate-900">KES {formatNumber(r.amountKes)}</dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">{m.payreq_receipts_receipt()}</dt>
                    <dd className="font-mono break-all">{r.receipt}</dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">{m.payreq_receipts_received()}</dt>
                    <dd>
                      {formatWhen(r.paidAt)} · {r.shortcodeLabel}
                    </dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">{m.payreq_receipts_from()}</dt>
                    <dd className="break-words">{r.from || "—"}</dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">{m.payreq_receipts_account()}</dt>
                    <dd className="font-mono break-all">{r.billRef || "—"}</dd>
                  </div>
                  <div>
                    <dt className="text-xs text-slate-500">{m.payreq_receipts_why()}</dt>
                    <dd>{REASON_WORDS[r.reason]()}</dd>
                  </div>
                </dl>
                {canManage ? (
                  <Form method="post" className="mt-2 flex flex-wrap items-end gap-2">
                    <input type="hidden" name="receipt" value={r.id} />
                    <Field
                      id={`match-${r.id}`}
                      name="reference"
                      label={m.payreq_receipts_reference()}
                      maxLength={12}
                      required
                      defaultValue={refused?.reference ?? ""}
                      errors={refused ? [refused.error] : undefined}
                      className="min-w-0 flex-1"
                    />
                    <Button type="submit" name="intent" value="match" size="sm" variant="secondary">
                      {m.payreq_receipts_match()}
                    </Button>
                  </Form>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
