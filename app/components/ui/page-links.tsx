import { Link } from "~/components/ui/link";
import { ChevronLeft, ChevronRight } from "~/components/ui/icons";
import { m } from "~/paraglide/messages";

/** The URL of page `page` (1-based): the filters and sort kept; page 1 drops the parameter. */
export function pageNumberHref(searchParams: URLSearchParams, page: number) {
  const next = new URLSearchParams(searchParams);
  if (page <= 1) next.delete("page");
  else next.set("page", String(page));
  const query = next.toString();
  return query ? `?${query}` : "?";
}

/**
 * Previous and next pages by number, with "Page 2 of 40": for tables whose order is not time (a
 * name, a plan) and whose size is bounded (organisations). Links, so they work without JavaScript.
 */
export function PageLinks({
  searchParams,
  page,
  pages,
  label,
}: {
  searchParams: URLSearchParams;
  page: number;
  pages: number;
  label: string;
}) {
  const item = "inline-flex items-center gap-1 rounded-lg border px-3 py-1.5 text-sm font-medium";
  const live = `${item} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`;
  const dead = `${item} border-slate-200 text-slate-400`;
  return (
    <nav aria-label={label} className="mt-4 flex items-center justify-between gap-3">
      {page > 1 ? (
        <Link to={pageNumberHref(searchParams, page - 1)} className={live}>
          <ChevronLeft className="size-4" aria-hidden /> {m.app_pager_previous()}
        </Link>
      ) : (
        <span aria-disabled="true" className={dead}>
          <ChevronLeft className="size-4" aria-hidden /> {m.app_pager_previous()}
        </span>
      )}
      <span className="text-sm text-slate-600">{m.app_pager_page_of({ page, pages })}</span>
      {page < pages ? (
        <Link to={pageNumberHref(searchParams, page + 1)} className={live}>
          {m.app_pager_next()} <ChevronRight className="size-4" aria-hidden />
        </Link>
      ) : (
        <span aria-disabled="true" className={dead}>
          {m.app_pager_next()} <ChevronRight className="size-4" aria-hidden />
        </span>
      )}
    </nav>
  );
}
