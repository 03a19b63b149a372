import { Form } from "react-router";
import type { AnalyticsForm } from "~/.server/domains/analytics/page";
import { ANALYTICS_PERIODS, PERIOD_LABELS, type AnalyticsReport, type ChartSeries } from "~/lib/analytics";
import { Button } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";
import { m } from "~/paraglide/messages";

/** The period, a custom range and the business number: a GET form, so every filter lives in the URL. */
export function AnalyticsFilterForm({
  form,
  numbers,
  chart,
}: {
  form: AnalyticsForm;
  numbers: AnalyticsReport["numbers"];
  chart: ChartSeries;
}) {
  return (
    <Form
      method="get"
      key={JSON.stringify(form)}
      aria-label={m.app_analytics_filters()}
      className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
    >
      <FilterSelect
        name="period"
        label={m.app_analytics_period()}
        value={form.period}
        options={ANALYTICS_PERIODS.map((p) => [p, PERIOD_LABELS[p]])}
      />
      <FilterInput type="date" name="from" label={m.app_analytics_from_custom()} defaultValue={form.from} />
      <FilterInput type="date" name="to" label={m.app_analytics_to_custom()} defaultValue={form.to} />
      {numbers.length > 1 ? (
        <FilterSelect
          name="number"
          label={m.app_analytics_business_number()}
          value={form.number}
          all={m.app_analytics_all_numbers()}
          options={numbers.map((n) => [n.id, n.label])}
        />
      ) : null}
      {chart !== "sent" ? <input type="hidden" name="chart" value={chart} /> : null}
      <Button type="submit">{m.app_analytics_apply()}</Button>
    </Form>
  );
}
