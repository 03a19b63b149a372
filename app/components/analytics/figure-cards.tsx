import { change, type AnalyticsFilters, type AnalyticsReport, type Compared } from "~/lib/analytics";
import { formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { StatCard, type Change } from "~/components/ui/stat-card";
import { BarChart3, CheckCheck, CheckCircle2, Eye, MessageCircle, Reply, Send, Timer, Users, Wallet, XCircle } from "~/components/ui/icons";
import { comparedWith, decimal } from "./words";

const count = (figure: Compared) => formatNumber(figure.value ?? 0);
const percentValue = (n: number | null) => (n === null ? "None" : `${decimal(n)}%`);

function changeOf(figure: Compared, against: string, better: Change["better"] = "up"): Change {
  return { percent: change(figure), against, better };
}

/** The period's figures, each with its change from the period before. */
export function FigureCards({ report, filters }: { report: AnalyticsReport; filters: AnalyticsFilters }) {
  const { cards } = report;
  const against = comparedWith(filters);
  return (
    <section aria-label="Figures" className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
      <StatCard label="Messages sent" value={count(cards.sent)} icon={Send} change={changeOf(cards.sent, against)} />
      <StatCard label="Delivered" value={count(cards.delivered)} icon={CheckCheck} change={changeOf(cards.delivered, against)} />
      <StatCard label="Read" value={count(cards.read)} icon={Eye} change={changeOf(cards.read, against)} />
      <StatCard label="Replied" value={count(cards.replied)} icon={Reply} change={changeOf(cards.replied, against)} />
      <StatCard label="Messages received" value={count(cards.received)} icon={MessageCircle} change={changeOf(cards.received, against)} />
      <StatCard label="Unique contacts" value={count(cards.uniqueContacts)} icon={Users} change={changeOf(cards.uniqueContacts, against)} />
      <StatCard
        label="Avg. first response"
        value={cards.avgResponseMinutes.value === null ? "None" : `${decimal(cards.avgResponseMinutes.value)} min`}
        icon={Timer}
        change={changeOf(cards.avgResponseMinutes, against, "down")}
        hint={
          cards.avgResponseMinutes.value === null ? "No customer was answered in this period." : "From a customer's message to the answer."
        }
      />
      <StatCard
        label="Delivery rate"
        value={percentValue(cards.deliveryRate.value)}
        icon={CheckCircle2}
        change={changeOf(cards.deliveryRate, against)}
        hint={cards.deliveryRate.value === null ? "Nothing was sent in this period." : "Delivered of sent."}
      />
      <StatCard
        label="Read rate"
        value={percentValue(cards.readRate.value)}
        icon={BarChart3}
        change={changeOf(cards.readRate, against)}
        hint={cards.readRate.value === null ? "Nothing was delivered in this period." : "Read of delivered."}
      />
      <StatCard label="Failed" value={count(cards.failed)} icon={XCircle} change={changeOf(cards.failed, against, "down")} />
      <StatCard
        label="Spend"
        value={formatKes(cards.spendCents.value ?? 0)}
        icon={Wallet}
        change={changeOf(cards.spendCents, against)}
        hint={
          report.billingType === "postpaid"
            ? "Your plan is postpaid: usage is billed on your monthly invoice."
            : "Template messages paid from your wallet."
        }
      />
    </section>
  );
}
