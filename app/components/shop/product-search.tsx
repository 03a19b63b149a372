import { Button } from "~/components/ui/button";
import { m } from "~/paraglide/messages";

/**
 * "Find a product by name or SKU" in a form that ticks products (the inbox's picker, the automations'
 * Send products): a GET of the whole form to the page's address (`pq` and every field), so what was
 * typed and ticked comes back with the products found, without JavaScript too. Says how many of how
 * many are shown, and when the search found nothing more.
 */
export function ProductSearch({
  query,
  action,
  shown,
  total,
  noMatch,
  keep = {},
}: {
  query: string;
  action: string;
  shown: number;
  total: number;
  /** The search found no product besides the ticked ones. */
  noMatch: boolean;
  /** Fields of the page's address the search keeps (the step being edited). */
  keep?: Record<string, string>;
}) {
  return (
    <div>
      {Object.entries(keep).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <div className="mt-1 flex items-end gap-2">
        <label className="block min-w-0 flex-1 text-xs text-slate-600">
          {m.shop_send_search_label()}
          <input
            type="search"
            name="pq"
            defaultValue={query}
            maxLength={100}
            className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-1.5 text-sm"
          />
        </label>
        <Button type="submit" formMethod="get" formAction={action} formNoValidate variant="secondary" size="sm">
          {m.shop_send_search_submit()}
        </Button>
      </div>
      {total > shown ? <p className="mt-1 text-xs text-slate-500">{m.shop_send_showing({ shown, total })}</p> : null}
      {query && noMatch ? <p className="mt-1 text-xs text-slate-500">{m.shop_send_no_match({ query })}</p> : null}
    </div>
  );
}
