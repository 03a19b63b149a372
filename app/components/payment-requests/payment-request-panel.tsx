import { Form } from "react-router";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Field, SelectField } from "~/components/ui/field";
import { PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES, PAYMENT_REQUEST_EXPIRY_CHOICES } from "~/lib/schemas/payment-requests";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** A request as the thread's card shows it (the loader's view of payment_requests). */
export interface PaymentRequestCard {
  id: string;
  status: "open" | "paid" | "expired" | "cancelled";
  amountKes: number;
  description: string;
  reference: string;
  paid: { receipt: string | null; amountKes: number | null } | null;
  amountMismatch: boolean;
  lastAttempt: { state: string; resultCode: string | null; resultDesc: string | null } | null;
}

const STATUS_WORDS = {
  open: () => m.payreq_status_open(),
  paid: () => m.payreq_status_paid(),
  expired: () => m.payreq_status_expired(),
  cancelled: () => m.payreq_status_cancelled(),
} as const;
const TONE = { open: "warning", paid: "success", expired: "neutral", cancelled: "neutral" } as const;

/** "KES 1,250" (whole shillings: a request has no cents). */
const amount = (kes: number) => `KES ${formatNumber(kes)}`;

/** "KES 1,250 · Order 42 · Paid · receipt NLJ7RT61SV", with what the team must look at. */
export function PaymentRequestCards({
  requests,
  mayCancel,
  error,
}: {
  requests: PaymentRequestCard[];
  /** The member may answer the conversation (inbox:reply): an open request's card offers "Cancel request". */
  mayCancel: boolean;
  /** A refused cancel, said under the cards. */
  error?: string;
}) {
  if (!requests.length) return null;
  return (
    <ul className="space-y-1" aria-label={m.payreq_card_title()}>
      {requests.map((r) => (
        <li key={r.id} className="rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 text-sm" data-testid="payment-request-card">
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span className="font-medium text-slate-900">{amount(r.amountKes)}</span>
            <span className="text-slate-600">· {r.description} ·</span>
            <Badge tone={TONE[r.status]}>{STATUS_WORDS[r.status]()}</Badge>
            {r.paid?.receipt ? (
              <span className="font-mono text-xs text-slate-700">{m.payreq_card_receipt({ receipt: r.paid.receipt })}</span>
            ) : null}
            <span className="font-mono text-xs text-slate-500">{r.reference}</span>
          </p>
          {r.amountMismatch && r.paid?.amountKes != null ? (
            <p className="mt-1 text-xs text-red-700">
              {m.payreq_card_mismatch({
                paid: formatNumber(r.paid.amountKes),
                asked: formatNumber(r.amountKes),
              })}
            </p>
          ) : null}
          {r.status === "open" && r.lastAttempt?.state === "failed" && r.lastAttempt.resultDesc ? (
            <p className="mt-1 text-xs text-slate-600">{m.payreq_card_last_try({ words: r.lastAttempt.resultDesc })}</p>
          ) : null}
          {mayCancel && r.status === "open" ? (
            <Form method="post" className="mt-1">
              <input type="hidden" name="requestId" value={r.id} />
              <Button type="submit" name="intent" value="payment-cancel" size="sm" variant="ghost">
                {m.payreq_card_cancel()}
              </Button>
            </Form>
          ) : null}
        </li>
      ))}
      {error ? (
        <li role="alert" className="text-xs text-red-700">
          {error}
        </li>
      ) : null}
    </ul>
  );
}

/** The composer's "Request payment": amount, what for, reference, expiry, the shortcode. A plain post: works without JavaScript. */
export function PaymentRequestForm({
  shortcodes,
  errors,
  values,
}: {
  shortcodes: { id: string; label: string; isDefault: boolean }[];
  errors: Record<string, string> | undefined;
  values: Record<string, string> | undefined;
}) {
  const failed = !!errors && ["amount", "description", "reference", "expiresInMinutes", "shortcodeId", "payment"].some((k) => errors[k]);
  const err = (name: string) => (errors?.[name] ? [errors[name]!] : undefined);
  return (
    <details id="payment-request-details" className="text-sm" open={failed}>
      <summary className="cursor-pointer text-xs font-medium text-slate-600 hover:text-slate-900">{m.payreq_form_title()}</summary>
      {!shortcodes.length ? (
        <p className="mt-2 text-xs text-slate-600">{m.payreq_form_no_shortcode()}</p>
      ) : (
        <Form method="post" className="mt-2 grid gap-2 sm:grid-cols-2" data-live-send="">
          <Field
            id="pay-amount"
            name="amount"
            label={m.payreq_form_amount()}
            inputMode="numeric"
            required
            defaultValue={values?.amount ?? ""}
            errors={err("amount")}
          />
          <Field
            id="pay-description"
            name="description"
            label={m.payreq_form_description()}
            maxLength={100}
            required
            defaultValue={values?.description ?? ""}
            errors={err("description")}
          />
          <Field
            id="pay-reference"
            name="reference"
            label={m.payreq_form_reference()}
            hint={m.payreq_form_reference_hint()}
            maxLength={12}
            defaultValue={values?.reference ?? ""}
            errors={err("reference")}
          />
          <SelectField
            id="pay-expiry"
            name="expiresInMinutes"
            label={m.payreq_form_expiry()}
            defaultValue={values?.expiresInMinutes ?? String(PAYMENT_REQUEST_DEFAULT_EXPIRY_MINUTES)}
            errors={err("expiresInMinutes")}
            options={PAYMENT_REQUEST_EXPIRY_CHOICES.map((minutes) => ({
              value: String(minutes),
              label:
                minutes < 24 * 60
                  ? m.payreq_form_expiry_hours({ count: minutes / 60 })
                  : m.payreq_form_expiry_days({ count: minutes / (24 * 60) }),
            }))}
          />
          {shortcodes.length > 1 ? (
            <SelectField
              id="pay-shortcode"
              name="shortcodeId"
              label={m.payreq_form_shortcode()}
              defaultValue={values?.shortcodeId ?? shortcodes.find((s) => s.isDefault)?.id ?? shortcodes[0]!.id}
              errors={err("shortcodeId")}
              options={shortcodes.map((s) => ({ value: s.id, label: s.label }))}
            />
          ) : (
            <input type="hidden" name="shortcodeId" value={shortcodes[0]!.id} />
          )}
          {errors?.payment ? <p className="text-xs text-red-700 sm:col-span-2">{errors.payment}</p> : null}
          <div className="sm:col-span-2">
            <Button type="submit" name="intent" value="payment" size="sm" variant="secondary">
              {m.payreq_form_submit()}
            </Button>
          </div>
        </Form>
      )}
    </details>
  );
}
