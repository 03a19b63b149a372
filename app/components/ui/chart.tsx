import type { ReactNode } from "react";
import { Link } from "~/components/ui/link";
import { intlLocale, numberFormat } from "~/lib/intl";
import { m } from "~/paraglide/messages";

export interface Point {
  label: string;
  value: number;
}

interface ChartProps {
  /** Says what the chart shows; also the caption of its table. */
  title: string;
  data: Point[];
  formatValue?: (value: number) => string;
  /** Height of the drawing in px; it stretches to the width it is given. */
  height?: number;
  /** The screen readers' table's column headings ("Period" and "Value" unless given). */
  labelHeader?: string;
  valueHeader?: string;
  /** The bars' fill (a Tailwind fill-* class). */
  barClassName?: string;
  /**
   * Charts that share their periods (a page's metrics, by the hour) may give their figures to one
   * `SeriesTable` instead, a column each: then the chart draws no table of its own.
   */
  inSharedTable?: boolean;
}

const W = 600;
const PAD = { top: 12, right: 8, bottom: 28, left: 8 };

/** A chart's frame: the drawing for eyes (hidden from screen readers) and the same figures as a table for them. */
function ChartFigure({
  title,
  data,
  formatValue,
  labelHeader,
  valueHeader,
  inSharedTable,
  children,
}: ChartProps & { children: ReactNode }) {
  const format = formatValue ?? ((v: number) => String(v));
  return (
    <figure className="w-full">
      <figcaption className="mb-2 text-sm font-medium text-slate-700">{title}</figcaption>
      {children}
      {inSharedTable ? null : (
        // A table is as wide as its text whatever its own width says: hidden inside a box that is not.
        <div className="sr-only">
          <table>
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">{labelHeader ?? m.app_analytics_period()}</th>
                <th scope="col">{valueHeader ?? m.app_ui_value()}</th>
              </tr>
            </thead>
            <tbody>
              {data.map((point) => (
                <tr key={point.label}>
                  <th scope="row">{point.label}</th>
                  <td>{format(point.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}

/**
 * Several charts' figures for screen readers in one table, a column per chart and a row per period,
 * so the periods are written once (the charts say `inSharedTable`). A period a series has no figure
 * for reads "–".
 */
export function SeriesTable({
  caption,
  labelHeader = m.app_analytics_period(),
  columns,
}: {
  caption: string;
  labelHeader?: string;
  columns: { header: string; data: Point[]; formatValue?: (value: number) => string }[];
}) {
  const labels = [...new Set(columns.flatMap((column) => column.data.map((point) => point.label)))];
  const byLabel = columns.map((column) => new Map(column.data.map((point) => [point.label, point.value])));
  return (
    <div className="sr-only">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{labelHeader}</th>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {labels.map((label) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {columns.map((column, i) => {
                const value = byLabel[i]!.get(label);
                return <td key={column.header}>{value === undefined ? "–" : (column.formatValue ?? String)(value)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** At most about eight labels along the bottom, so they never overlap on a phone. */
function labelEvery(count: number) {
  return Math.max(1, Math.ceil(count / 8));
}

/** The bars as one path: for each, up from the axis to its value and back (an empty one draws nothing). */
function barsPath(data: ChartProps["data"], max: number, innerH: number, height: number, slot: number, barW: number) {
  const base = height - PAD.bottom;
  const width = Math.round(barW);
  return data
    .map((point, i) => {
      const h = Math.round((point.value / max) * innerH);
      return h ? `M${Math.round(PAD.left + i * slot + (slot - barW) / 2)} ${base}v-${h}h${width}v${h}z` : "";
    })
    .join("");
}

/** Bars, drawn on the server as SVG: no chart library and no script in the browser. */
export function BarChart(props: ChartProps) {
  const { data, height = 180, barClassName = "fill-brand-600" } = props;
  const max = Math.max(1, ...data.map((p) => p.value));
  const innerH = height - PAD.top - PAD.bottom;
  const slot = (W - PAD.left - PAD.right) / Math.max(1, data.length);
  const barW = Math.max(2, slot * 0.7);
  const every = labelEvery(data.length);
  return (
    <ChartFigure {...props}>
      <svg viewBox={`0 0 ${W} ${height}`} className="h-auto w-full" aria-hidden focusable="false" preserveAspectRatio="none">
        <line x1={PAD.left} x2={W - PAD.right} y1={height - PAD.bottom} y2={height - PAD.bottom} className="stroke-slate-200" />
        {/* Every bar in one path, on whole units of the 600-wide box (issue 42: a <rect> each was 60 bytes a bar). */}
        <path d={barsPath(data, max, innerH, height, slot, barW)} className={barClassName} />
        <g textAnchor="middle" className="fill-slate-500 text-[11px]">
          {data.map((point, i) =>
            i % every === 0 ? (
              <text key={point.label} x={Math.round(PAD.left + i * slot + slot / 2)} y={height - 8}>
                {point.label}
              </text>
            ) : null,
          )}
        </g>
      </svg>
    </ChartFigure>
  );
}

/** A line (with its area shaded) over time, drawn on the server as one SVG path. */
export function LineChart(props: ChartProps) {
  const { data, height = 180 } = props;
  const max = Math.max(1, ...data.map((p) => p.value));
  const innerH = height - PAD.top - PAD.bottom;
  const step = (W - PAD.left - PAD.right) / Math.max(1, data.length - 1);
  const points = data.map((point, i) => [PAD.left + i * step, height - PAD.bottom - (point.value / max) * innerH] as const);
  // Whole units of the 600-wide box: half a unit is under a pixel at any width the page has.
  const line = points.map(([x, y], i) => `${i ? "L" : "M"}${Math.round(x)} ${Math.round(y)}`).join("");
  const area = points.length ? `${line}L${Math.round(points.at(-1)![0])} ${height - PAD.bottom}L${PAD.left} ${height - PAD.bottom}Z` : "";
  const every = labelEvery(data.length);
  return (
    <ChartFigure {...props}>
      <svg viewBox={`0 0 ${W} ${height}`} className="h-auto w-full" aria-hidden focusable="false" preserveAspectRatio="none">
        <line x1={PAD.left} x2={W - PAD.right} y1={height - PAD.bottom} y2={height - PAD.bottom} className="stroke-slate-200" />
        {area ? <path d={area} className="fill-brand-100" /> : null}
        {line ? <path d={line} fill="none" strokeWidth="2" className="stroke-brand-700" vectorEffect="non-scaling-stroke" /> : null}
        <g textAnchor="middle" className="fill-slate-500 text-[11px]">
          {data.map((point, i) =>
            i % every === 0 ? (
              <text key={point.label} x={Math.round(points[i]![0])} y={height - 8}>
                {point.label}
              </text>
            ) : null,
          )}
        </g>
      </svg>
    </ChartFigure>
  );
}

export interface Series {
  key: string;
  label: string;
  /** The bars' fill when this series is shown (a Tailwind fill-* class). */
  barClassName?: string;
}

/**
 * Bars of one series at a time (sent, delivered, read...) with links that choose it: each link is
 * the page's URL for that series, so the choice works without JavaScript and can be shared. The
 * chosen link is marked with aria-current, and the screen readers' table follows the choice.
 */
export function SeriesBarChart({
  title,
  points,
  series,
  selected,
  hrefFor,
  formatValue,
  labelHeader,
  height,
}: {
  title: string;
  points: { label: string; values: Record<string, number> }[];
  series: Series[];
  selected: string;
  hrefFor: (key: string) => string;
  formatValue?: (value: number) => string;
  labelHeader?: string;
  height?: number;
}) {
  const current = series.find((s) => s.key === selected) ?? series[0]!;
  return (
    <div>
      <div role="group" aria-label={m.app_ui_series_shown()} className="mb-3 inline-flex rounded-lg border border-slate-300 bg-white p-0.5">
        {series.map((s) => (
          <Link
            key={s.key}
            to={hrefFor(s.key)}
            replace
            preventScrollReset
            aria-current={s.key === current.key ? "true" : undefined}
            className={`rounded-md px-3 py-1.5 text-sm font-medium ${s.key === current.key ? "bg-brand-700 text-white" : "text-slate-700 hover:bg-slate-100"}`}
          >
            {s.label}
          </Link>
        ))}
      </div>
      <BarChart
        title={`${title}: ${current.label}`}
        data={points.map((p) => ({ label: p.label, value: p.values[current.key] ?? 0 }))}
        formatValue={formatValue}
        labelHeader={labelHeader}
        valueHeader={current.label}
        barClassName={current.barClassName}
        height={height}
      />
    </div>
  );
}

export interface FunnelStep {
  label: string;
  value: number;
}

/**
 * Steps that narrow (sent, delivered, read, replied): each with its count, a bar as wide as its
 * share of the first step, and its percentage of the step before in words.
 */
export function Funnel({
  title,
  steps,
  formatValue = (v) => String(v),
}: {
  title: string;
  steps: FunnelStep[];
  formatValue?: (value: number) => string;
}) {
  const first = steps[0]?.value ?? 0;
  const percent = numberFormat(intlLocale(), { maximumFractionDigits: 1 });
  return (
    <figure>
      <figcaption className="sr-only">{title}</figcaption>
      <ol className="space-y-3">
        {steps.map((step, i) => {
          const before = steps[i - 1];
          const share = first > 0 ? Math.max(step.value > 0 ? 1 : 0, Math.round((step.value / first) * 100)) : 0;
          const ofBefore = before && before.value > 0 ? percent.format(Math.round((step.value / before.value) * 1000) / 10) : null;
          return (
            <li key={step.label}>
              <div className="flex items-baseline justify-between gap-3 text-sm">
                <span className="font-medium text-slate-800">{step.label}</span>
                <span className="font-semibold text-slate-900 tabular-nums">{formatValue(step.value)}</span>
              </div>
              <div className="mt-1 h-2.5 rounded-full bg-slate-100" aria-hidden>
                <div className="h-2.5 rounded-full bg-brand-600" style={{ width: `${share}%` }} />
              </div>
              <p className="mt-1 text-xs text-slate-600">
                {!before
                  ? m.app_ui_funnel_start()
                  : ofBefore === null
                    ? m.app_ui_funnel_nothing_before({ step: before.label.toLowerCase() })
                    : m.app_ui_funnel_share({ percent: ofBefore, step: before.label.toLowerCase() })}
              </p>
            </li>
          );
        })}
      </ol>
    </figure>
  );
}
