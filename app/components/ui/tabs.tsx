import { Link } from "~/components/ui/link";

export interface TabItem {
  label: string;
  to: string;
  current?: boolean;
  count?: number;
}

/** Tabs that are links: each tab is a URL, so it works without JavaScript and can be shared. */
export function Tabs({ items, label }: { items: TabItem[]; label: string }) {
  return (
    <nav aria-label={label} className="border-b border-slate-200">
      <ul className="-mb-px flex gap-4 overflow-x-auto">
        {items.map((item) => (
          <li key={item.to}>
            <Link to={item.to} aria-current={item.current ? "page" : undefined} className="tab">
              {item.label}
              {item.count !== undefined ? (
                <span className="rounded-full bg-slate-100 px-2 text-xs text-slate-700">{item.count}</span>
              ) : null}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
