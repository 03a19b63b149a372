import { Link } from "react-router";
import { formatWhen } from "~/lib/dates";

/** A notification as the bell and /notifications show it (the bell has no body: it lists titles). */
export interface ShownNotification {
  id: string;
  title: string;
  body?: string;
  at: string;
  read: boolean;
}

/**
 * One notification: its title links through /notifications/:id, which marks it read and goes on to
 * what it is about (without JavaScript too). Unread ones are bold with a dot, and say so to screen readers.
 */
export function NotificationItem({ notification: n, compact = false }: { notification: ShownNotification; compact?: boolean }) {
  return (
    <div className={`flex gap-3 rounded-lg ${compact ? "px-2 py-2" : "px-4 py-3"} ${n.read ? "" : "bg-brand-50/60"}`}>
      <span
        aria-hidden
        className={`mt-1.5 size-2 shrink-0 rounded-full ${n.read ? "bg-transparent" : "bg-red-500"}`}
        data-testid={n.read ? undefined : "notification-unread"}
      />
      <div className="min-w-0 flex-1">
        <Link
          to={`/notifications/${n.id}`}
          className={`block text-sm hover:underline ${n.read ? "text-slate-700" : "font-semibold text-slate-900"}`}
        >
          {n.read ? null : <span className="sr-only">Unread: </span>}
          {n.title}
        </Link>
        {n.body ? <p className="text-sm text-slate-600">{n.body}</p> : null}
        <p className="text-xs text-slate-500">{formatWhen(n.at)}</p>
      </div>
    </div>
  );
}
