import type { ReactNode } from "react";
import { Link } from "~/components/ui/link";
import { ArrowDown, ArrowUp, ArrowUpDown, ChevronLeft, ChevronRight } from "~/components/ui/icons";
import { m } from "~/paraglide/messages";

export type SortDirection = "asc" | "desc";

export interface Column<Row> {
  /** The column's key, also its `sort` value in the URL when sortable. */
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  sortable?: boolean;
  align?: "left" | "right";
  /** Hidden on phones (below 640 px) where the table would not fit. */
  hideOnPhone?: boolean;
}

/** The URL of a sortable header: this column, the other direction if it is the current sort; the page cursor dropped. */
export function sortLinkHref(searchParams: URLSearchParams, column: string, defaultDirection: SortDirection = "asc") {
  const next = new URLSearchParams(searchParams);
  const current = next.get("sort") === column ? (next.get("dir") === "desc" ? "desc" : "asc") : null;
  next.set("sort", column);
  next.set("dir", current ? (current === "asc" ? "desc" : "asc") : defaultDirection);
  next.delete("before");
  next.delete("after");
  next.delete("page");
  return `?${next.toString()}`;
}

/** The URL of a keyset page: the filters and sort kept, one cursor (`before` or `after`) set. */
export function pageHref(searchParams: URLSearchParams, cursor: { before?: string; after?: string }) {
  const next = new URLSearchParams(searchParams);
  next.delete("before");
  next.delete("after");
  if (cursor.before) next.set("before", cursor.before);
  if (cursor.after) next.set("after", cursor.after);
  return `?${next.toString()}`;
}

/**
 * A data table: a real <table> with a caption (visually hidden unless `showCaption`), header cells
 * that sort by links (aria-sort says which), and an empty state in place of rows when there are none.
 */
export function Table<Row>({
  caption,
  showCaption = false,
  columns,
  rows,
  rowKey,
  searchParams,
  empty,
}: {
  caption: string;
  showCaption?: boolean;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  /** The page's search parameters: needed for sortable columns. */
  searchParams?: URLSearchParams;
  /** What shows when there are no rows: a sentence, perhaps with an action. */
  empty: ReactNode;
}) {
  const sortedBy = searchParams?.get("sort");
  const direction: SortDirection = searchParams?.get("dir") === "desc" ? "desc" : "asc";
  // Short classes from app.css (.data-table): a list of 50 rows repeats them in every cell.
  const cellClass = (column: Column<Row>) =>
    [column.align === "right" ? "num" : "", column.hideOnPhone ? "wide-only" : ""].filter(Boolean).join(" ") || undefined;
  return (
    // Positioned, so visually hidden header text (sr-only, absolute) scrolls with the table instead of
    // widening the page past a phone's screen.
    <div className="relative overflow-x-auto">
      <table className="data-table w-full text-left text-sm">
        <caption className={showCaption ? "mb-2 text-left font-semibold text-slate-900" : "sr-only"}>{caption}</caption>
        <thead className="border-b border-slate-200 text-xs font-medium tracking-wide text-slate-500 uppercase">
          <tr>
            {columns.map((column) => {
              const current = column.sortable && sortedBy === column.key;
              const Icon = current ? (direction === "asc" ? ArrowUp : ArrowDown) : ArrowUpDown;
              return (
                <th
                  key={column.key}
                  scope="col"
                  aria-sort={current ? (direction === "asc" ? "ascending" : "descending") : undefined}
                  className={cellClass(column)}
                >
                  {column.sortable && searchParams ? (
                    <Link to={sortLinkHref(searchParams, column.key)} className="inline-flex items-center gap-1 hover:text-slate-900">
                      {column.header}
                      <Icon className="size-3.5" aria-hidden />
                    </Link>
                  ) : (
                    column.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.length ? (
            rows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((column) => (
                  <td key={column.key} className={cellClass(column)}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            ))
          ) : (
            <tr>
              <td colSpan={columns.length} className="px-3 py-10 text-center text-slate-600">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * How a paged table is ordered, for its pager's words: newest first ("Newer" back, "Older" on, the
 * default), oldest first ("Older" back, "Newer" on), or by anything but time ("Previous", "Next").
 */
export type PagerOrder = "newest-first" | "oldest-first" | "other";

/** The pager's two words for an order, in the page's language. */
function pagerWords(order: PagerOrder): { back: string; on: string } {
  if (order === "newest-first") return { back: m.app_pager_newer(), on: m.app_pager_older() };
  if (order === "oldest-first") return { back: m.app_pager_older(), on: m.app_pager_newer() };
  return { back: m.app_pager_previous(), on: m.app_pager_next() };
}

/** The pager's order of a table sorted `dir`, by time or not (a date column, or a name, an amount, a status). */
export function pagerOrder(byTime: boolean, dir: SortDirection): PagerOrder {
  if (!byTime) return "other";
  return dir === "asc" ? "oldest-first" : "newest-first";
}

/**
 * The page before and the page after by keyset cursors (the last row's position, never an offset:
 * page 500 costs what page 1 does). `newer` is the cursor of the page before (`?before=`), `older`
 * of the page after (`?after=`); their words follow `order` (see PagerOrder). Links, so they work
 * without JavaScript; a missing cursor shows a disabled label.
 */
export function Pager({
  searchParams,
  newer,
  older,
  label = m.app_pager_pages(),
  order = "newest-first",
}: {
  searchParams: URLSearchParams;
  newer?: string | null;
  older?: string | null;
  label?: string;
  order?: PagerOrder;
}) {
  const item = "inline-flex items-center gap-1 rounded-lg border px-3 py-1.5 text-sm font-medium";
  const live = `${item} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`;
  const dead = `${item} border-slate-200 text-slate-400`;
  const words = pagerWords(order);
  const back = (
    <>
      <ChevronLeft className="size-4" aria-hidden /> {words.back}
    </>
  );
  const on = (
    <>
      {words.on} <ChevronRight className="size-4" aria-hidden />
    </>
  );
  return (
    <nav aria-label={label} className="mt-4 flex justify-between">
      {newer ? (
        <Link to={pageHref(searchParams, { before: newer })} rel="prev" className={live}>
          {back}
        </Link>
      ) : (
        <span aria-disabled="true" className={dead}>
          {back}
        </span>
      )}
      {older ? (
        <Link to={pageHref(searchParams, { after: older })} rel="next" className={live}>
          {on}
        </Link>
      ) : (
        <span aria-disabled="true" className={dead}>
          {on}
        </span>
      )}
    </nav>
  );
}
