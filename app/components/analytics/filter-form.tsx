import { Form } from "react-router";
import type { AnalyticsForm } from "~/.server/domains/analytics/page";
import { ANALYTICS_PERIODS, PERIOD_LABELS, type AnalyticsReport, type ChartSeries } from "~/lib/analytics";
import { Button } from "~/components/ui/button";
import { FilterInput, FilterSelect } from "~/components/ui/field";

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
      aria-label="Analytics filters"
      className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
    >
      <FilterSelect name="period" label="Period" value={form.period} options={ANALYTICS_PERIODS.map((p) => [p, PERIOD_LABELS[p]])} />
      <FilterInput type="date" name="from" label="From (custom range)" defaultValue={form.from} />
      <FilterInput type="date" name="to" label="To (custom range)" defaultValue={form.to} />
      {numbers.length > 1 ? (
        <FilterSelect
          name="number"
          label="Business number"
          value={form.number}
          all="All numbers"
          options={numbers.map((n) => [n.id, n.label])}
        />
      ) : null}
      {chart !== "sent" ? <input type="hidden" name="chart" value={chart} /> : null}
      <Button type="submit">Apply</Button>
    </Form>
  );
}
