import type { ReactNode } from "react";

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
}

const W = 600;
const PAD = { top: 12, right: 8, bottom: 28, left: 8 };

/** A chart's frame: the drawing for eyes (hidden from screen readers) and the same figures as a table for them. */
function ChartFigure({ title, data, formatValue, children }: ChartProps & { children: ReactNode }) {
  const format = formatValue ?? ((v: number) => String(v));
  return (
    <figure className="w-full">
      <figcaption className="mb-2 text-sm font-medium text-slate-700">{title}</figcaption>
      {children}
      <table className="sr-only">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Period</th>
            <th scope="col">Value</th>
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
    </figure>
  );
}

/** At most about eight labels along the bottom, so they never overlap on a phone. */
function labelEvery(count: number) {
  return Math.max(1, Math.ceil(count / 8));
}

/** Bars, drawn on the server as SVG: no chart library and no script in the browser. */
export function BarChart({ title, data, formatValue, height = 180 }: ChartProps) {
  const max = Math.max(1, ...data.map((p) => p.value));
  const innerH = height - PAD.top - PAD.bottom;
  const slot = (W - PAD.left - PAD.right) / Math.max(1, data.length);
  const barW = Math.max(2, slot * 0.7);
  const every = labelEvery(data.length);
  return (
    <ChartFigure title={title} data={data} formatValue={formatValue}>
      <svg viewBox={`0 0 ${W} ${height}`} className="h-auto w-full" aria-hidden focusable="false" preserveAspectRatio="none">
        <line x1={PAD.left} x2={W - PAD.right} y1={height - PAD.bottom} y2={height - PAD.bottom} className="stroke-slate-200" />
        {data.map((point, i) => {
          const h = (point.value / max) * innerH;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <rect
              key={point.label}
              x={x.toFixed(1)}
              y={(height - PAD.bottom - h).toFixed(1)}
              width={barW.toFixed(1)}
              height={h.toFixed(1)}
              rx="2"
              className="fill-brand-600"
            />
          );
        })}
        {data.map((point, i) =>
          i % every === 0 ? (
            <text
              key={point.label}
              x={(PAD.left + i * slot + slot / 2).toFixed(1)}
              y={height - 8}
              textAnchor="middle"
              className="fill-slate-500 text-[11px]"
            >
              {point.label}
            </text>
          ) : null,
        )}
      </svg>
    </ChartFigure>
  );
}

/** A line (with its area shaded) over time, drawn on the server as one SVG path. */
export function LineChart({ title, data, formatValue, height = 180 }: ChartProps) {
  const max = Math.max(1, ...data.map((p) => p.value));
  const innerH = height - PAD.top - PAD.bottom;
  const step = (W - PAD.left - PAD.right) / Math.max(1, data.length - 1);
  const points = data.map((point, i) => [PAD.left + i * step, height - PAD.bottom - (point.value / max) * innerH] as const);
  const line = points.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join("");
  const area = points.length ? `${line}L${points.at(-1)![0].toFixed(1)} ${height - PAD.bottom}L${PAD.left} ${height - PAD.bottom}Z` : "";
  const every = labelEvery(data.length);
  return (
    <ChartFigure title={title} data={data} formatValue={formatValue}>
      <svg viewBox={`0 0 ${W} ${height}`} className="h-auto w-full" aria-hidden focusable="false" preserveAspectRatio="none">
        <line x1={PAD.left} x2={W - PAD.right} y1={height - PAD.bottom} y2={height - PAD.bottom} className="stroke-slate-200" />
        {area ? <path d={area} className="fill-brand-100" /> : null}
        {line ? <path d={line} fill="none" strokeWidth="2" className="stroke-brand-700" vectorEffect="non-scaling-stroke" /> : null}
        {data.map((point, i) =>
          i % every === 0 ? (
            <text key={point.label} x={points[i]![0].toFixed(1)} y={height - 8} textAnchor="middle" className="fill-slate-500 text-[11px]">
              {point.label}
            </text>
          ) : null,
        )}
      </svg>
    </ChartFigure>
  );
}
