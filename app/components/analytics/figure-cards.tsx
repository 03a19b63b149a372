import { change, type AnalyticsFilters, type AnalyticsReport, type Compared } from "~/lib/analytics";
import { formatNumber } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { StatCard, type Change } from "~/components/ui/stat-card";
import type { AutomationFigures } from "~/.server/domains/automations/analytics";
import {
  Bot,
  BarChart3,
  CheckCheck,
  CheckCircle2,
  Eye,
  MessageCircle,
  Reply,
  Send,
  Timer,
  UserPlus,
  Users,
  Wallet,
  XCircle,
} from "~/components/ui/icons";
import { comparedWith, decimal } from "./words";
import { m } from "~/paraglide/messages";

const count = (figure: Compared) => formatNumber(figure.value ?? 0);
const percentValue = (n: number | null) => (n === null ? m.app_analytics_none() : `${decimal(n)}%`);

function changeOf(figure: Compared, against: string, better: Change["better"] = "up"): Change {
  return { percent: change(figure), against, better };
}

/**
 * The period's conversations by who answered them (issue 44): automations alone, handed by one to a
 * person, resolved by a member. Shown once automations or people have done any of it.
 */
export function AutomationCards({ figures }: { figures: AutomationFigures }) {
  if (figures.byAutomation + figures.handedOver + figures.resolvedByPeople === 0) return null;
  return (
    <section aria-label={m.app_analytics_automation_figures()} className="grid grid-cols-1 gap-3 sm:grid-cols-3 sm:gap-4">
      <StatCard
        label={m.app_analytics_by_automation()}
        value={formatNumber(figures.byAutomation)}
        icon={Bot}
        hint={m.app_analytics_by_automation_hint()}
      />
      <StatCard
        label={m.app_analytics_handed_over()}
        value={formatNumber(figures.handedOver)}
        icon={UserPlus}
        hint={m.app_analytics_handed_over_hint()}
      />
      <StatCard
        label={m.app_analytics_resolved_by_people()}
        value={formatNumber(figures.resolvedByPeople)}
        icon={Users}
        hint={m.app_analytics_resolved_by_people_hint()}
      />
    </section>
  );
}

/** The period's figures, each with its change from the period before. */
export function FigureCards({ report, filters }: { report: AnalyticsReport; filters: AnalyticsFilters }) {
  const { cards } = report;
  const against = comparedWith(filters);
  return (
    <section aria-label={m.app_analytics_figures()} className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
      <StatCard label={m.app_analytics_messages_sent()} value={count(cards.sent)} icon={Send} change={changeOf(cards.sent, against)} />
      <StatCard
        label={m.app_analytics_delivered()}
        value={count(cards.delivered)}
        icon={CheckCheck}
        change={changeOf(cards.delivered, against)}
      />
      <StatCard label={m.app_analytics_read()} value={count(cards.read)} icon={Eye} change={changeOf(cards.read, against)} />
      <StatCard label={m.app_analytics_replied()} value={count(cards.replied)} icon={Reply} change={changeOf(cards.replied, against)} />
      <StatCard
        label={m.app_analytics_messages_received()}
        value={count(cards.received)}
        icon={MessageCircle}
        change={changeOf(cards.received, against)}
      />
      <StatCard
        label={m.app_analytics_unique_contacts()}
        value={count(cards.uniqueContacts)}
        icon={Users}
        change={changeOf(cards.uniqueContacts, against)}
      />
      <StatCard
        label={m.app_analytics_avg_first_response()}
        value={
          cards.avgResponseMinutes.value === null
            ? m.app_analytics_none()
            : m.app_analytics_minutes({ minutes: decimal(cards.avgResponseMinutes.value) })
        }
        icon={Timer}
        change={changeOf(cards.avgResponseMinutes, against, "down")}
        hint={cards.avgResponseMinutes.value === null ? m.app_analytics_no_answer_hint() : m.app_analytics_response_hint()}
      />
      <StatCard
        label={m.app_analytics_delivery_rate()}
        value={percentValue(cards.deliveryRate.value)}
        icon={CheckCircle2}
        change={changeOf(cards.deliveryRate, against)}
        hint={cards.deliveryRate.value === null ? m.app_analytics_nothing_sent_hint() : m.app_analytics_delivery_rate_hint()}
      />
      <StatCard
        label={m.app_analytics_read_rate()}
        value={percentValue(cards.readRate.value)}
        icon={BarChart3}
        change={changeOf(cards.readRate, against)}
        hint={cards.readRate.value === null ? m.app_analytics_nothing_delivered_hint() : m.app_analytics_read_rate_hint()}
      />
      <StatCard
        label={m.app_analytics_failed()}
        value={count(cards.failed)}
        icon={XCircle}
        change={changeOf(cards.failed, against, "down")}
      />
      <StatCard
        label={m.app_analytics_spend()}
        value={formatKes(cards.spendCents.value ?? 0)}
        icon={Wallet}
        change={changeOf(cards.spendCents, against)}
        hint={report.billingType === "postpaid" ? m.app_analytics_postpaid_hint() : m.app_analytics_prepaid_hint()}
      />
    </section>
  );
}
