import { ArrowDown, ArrowUp, type IconComponent } from "~/components/ui/icons";
import { Link } from "~/components/ui/link";
import { intlLocale } from "~/lib/intl";
import { m } from "~/paraglide/messages";

/** How a figure moved against the period before it. */
export interface Change {
  /** The change in percent; null when there is nothing to compare with. */
  percent: number | null;
  /** What it is compared with: "previous 7 days". */
  against: string;
  /** Whether a rise is good news (most figures) or bad (failures, waiting times): it picks the colour, never the words. */
  better?: "up" | "down";
}

const percentFormats = new Map<string, Intl.NumberFormat>();

/** "+12.5% vs previous 7 days", "−3% vs previous 24 hours", "No change vs …", or "No data for the previous period". */
export function changeWords({ percent, against }: Pick<Change, "percent" | "against">) {
  if (percent === null) return m.app_change_no_data();
  if (percent === 0) return m.app_change_flat({ against });
  const locale = intlLocale();
  let format = percentFormats.get(locale);
  if (!format) percentFormats.set(locale, (format = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 })));
  // U+2212, which screen readers read as "minus" (a hyphen is often read as nothing or "dash").
  return m.app_change_moved({ change: `${percent > 0 ? "+" : "\u2212"}${format.format(Math.abs(percent))}`, against });
}

/** The change in words, with an arrow for its direction and green or red for good or bad news. */
export function ChangeIndicator({ change }: { change: Change }) {
  const { percent, better = "up" } = change;
  const moved = percent !== null && percent !== 0;
  const good = moved && percent > 0 === (better === "up");
  const Arrow = moved && percent > 0 ? ArrowUp : ArrowDown;
  return (
    <p
      className={`stat-change ${!moved ? "text-slate-600" : good ? "text-brand-700" : "text-red-700"}`}
      data-change={percent === null ? "none" : percent > 0 ? "up" : percent < 0 ? "down" : "flat"}
    >
      {moved ? <Arrow className="stat-arrow" aria-hidden /> : null}
      <span>{changeWords(change)}</span>
    </p>
  );
}

/**
 * A figure with its label. `change` says how it moved against the period before, in words (the
 * colour only repeats them); `href` makes the whole card a link to the page behind the figure.
 */
export function StatCard({
  label,
  value,
  icon: Icon,
  hint,
  change,
  href,
}: {
  label: string;
  value: string;
  icon: IconComponent;
  hint?: string;
  change?: Change;
  href?: string;
}) {
  const body = (
    <>
      <div className="stat-head">
        <p className="stat-label">{label}</p>
        <Icon className="stat-icon" aria-hidden />
      </div>
      <p className="stat-value" data-testid={`stat-${label.toLowerCase().replace(/\W+/g, "-")}`}>
        {value}
      </p>
      {change ? <ChangeIndicator change={change} /> : null}
      {hint ? <p className="stat-hint">{hint}</p> : null}
    </>
  );
  // The card's classes are components in app.css: a page of figures draws a score of cards (issue 78's page weight).
  return href ? (
    <Link to={href} className="stat-card stat-link">
      {body}
    </Link>
  ) : (
    <div className="stat-card">{body}</div>
  );
}
