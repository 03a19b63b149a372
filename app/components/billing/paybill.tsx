import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

/**
 * The other way to pay by M-Pesa: to Jumbe's paybill from the phone's own menu, with the organisation's
 * business id as the account number (the confirmation credits the wallet it names; app/.server/domains/billing/mpesa.ts).
 * Plain server-rendered text: it reads the same with JavaScript off, and wraps at 360 px.
 */
export function PaybillDetails({
  paybill,
  amountCents,
  title = m.billing_paybill_title(),
  note = m.billing_paybill_note(),
  level = 2,
  className = "",
}: {
  paybill: { businessNumber: string; accountNumber: string };
  amountCents?: number;
  title?: string;
  note?: string;
  level?: 2 | 3;
  className?: string;
}) {
  const Heading = level === 3 ? "h3" : "h2";
  return (
    <section
      aria-labelledby="paybill-title"
      data-testid="paybill"
      className={`rounded-lg border border-slate-200 bg-slate-50 p-4 text-sm text-slate-700 ${className}`.trim()}
    >
      <Heading id="paybill-title" className="font-semibold text-slate-900">
        {title}
      </Heading>
      <p className="mt-1">{m.billing_paybill_steps()}</p>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5">
        <dt className="text-slate-500">{m.billing_paybill_business_number()}</dt>
        <dd className="font-mono font-semibold break-all text-slate-900" data-testid="paybill-business-number">
          {paybill.businessNumber}
        </dd>
        <dt className="text-slate-500">{m.billing_account_number()}</dt>
        <dd className="font-mono font-semibold break-all text-slate-900" data-testid="paybill-account-number">
          {paybill.accountNumber}
        </dd>
        {amountCents ? (
          <>
            <dt className="text-slate-500">{m.billing_amount()}</dt>
            <dd className="font-semibold text-slate-900">{formatKes(amountCents)}</dd>
          </>
        ) : null}
      </dl>
      <p className="mt-3 text-xs text-slate-600">{note}</p>
    </section>
  );
}
