import type { SpendBreakdown, SpendLine } from "~/.server/domains/billing/page";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { categoryWords } from "~/lib/billing-words";
import { formatKes } from "~/lib/invoice";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** What this period's messages cost, by template category and by number. */
export function SpendCard({ spend }: { spend: SpendBreakdown }) {
  return (
    <Card aria-labelledby="spend-title">
      <CardHeader id="spend-title" title={m.billing_spend_title()} description={m.billing_spend_description()} />
      {spend.byCategory.length === 0 ? (
        <p className="mt-4 rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600">
          {m.billing_spend_empty()}
        </p>
      ) : (
        <CardBody className="grid gap-6 md:grid-cols-2">
          <SpendTable by="category" lines={spend.byCategory.map((l) => ({ ...l, label: categoryWords(l.label) }))} />
          <SpendTable by="number" lines={spend.byNumber} />
        </CardBody>
      )}
    </Card>
  );
}

function SpendTable({ by, lines }: { by: "category" | "number"; lines: SpendLine[] }) {
  return (
    // A grid's item that may be narrower than the table: the table scrolls in its own box on a phone.
    <div className="min-w-0 overflow-x-auto">
      <table className="figures">
        <caption>{by === "number" ? m.billing_spend_by_number() : m.billing_spend_by_category()}</caption>
        <thead>
          <tr>
            <th scope="col">{by === "number" ? m.billing_spend_column_number() : m.billing_spend_column_category()}</th>
            <th scope="col" className="num">
              {m.billing_spend_column_messages()}
            </th>
            <th scope="col" className="num">
              {m.billing_amount()}
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => (
            <tr key={line.label}>
              <th scope="row">{line.label}</th>
              <td className="num">{formatNumber(line.messages)}</td>
              <td className="num">{formatKes(line.amountCents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
