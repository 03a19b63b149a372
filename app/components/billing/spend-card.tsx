import type { SpendBreakdown, SpendLine } from "~/.server/domains/billing/page";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { categoryWords } from "~/lib/billing-words";
import { formatKes } from "~/lib/invoice";

/** What this period's messages cost, by template category and by number. */
export function SpendCard({ spend }: { spend: SpendBreakdown }) {
  return (
    <Card aria-labelledby="spend-title">
      <CardHeader id="spend-title" title="Spend this period" description="What your messages cost, by template category and by number." />
      {spend.byCategory.length === 0 ? (
        <p className="mt-4 rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600">
          No messages charged this period yet.
        </p>
      ) : (
        <CardBody className="grid gap-6 md:grid-cols-2">
          <SpendTable caption="By template category" lines={spend.byCategory.map((l) => ({ ...l, label: categoryWords(l.label) }))} />
          <SpendTable caption="By number" lines={spend.byNumber} />
        </CardBody>
      )}
    </Card>
  );
}

function SpendTable({ caption, lines }: { caption: string; lines: SpendLine[] }) {
  return (
    <table className="figures">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{caption === "By number" ? "Number" : "Category"}</th>
          <th scope="col" className="num">
            Messages
          </th>
          <th scope="col" className="num">
            Amount
          </th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line) => (
          <tr key={line.label}>
            <th scope="row">{line.label}</th>
            <td className="num">{line.messages.toLocaleString("en-US")}</td>
            <td className="num">{formatKes(line.amountCents)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
