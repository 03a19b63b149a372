import { Link } from "~/components/ui/link";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

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
  // Its looks are app/app.css's .notice classes (the bell lists five on every page).
  return (
    <div className={compact ? "notice notice-compact" : "notice"} data-unread={n.read ? undefined : ""}>
      <span aria-hidden className="notice-dot" data-testid={n.read ? undefined : "notification-unread"} />
      <div className="min-w-0 flex-1">
        <Link to={`/notifications/${n.id}`} className="notice-title">
          {n.read ? null : <span className="sr-only">{`${m.inbox_notifications_unread_prefix()} `}</span>}
          {n.title}
        </Link>
        {n.body ? <p className="text-sm text-slate-600">{n.body}</p> : null}
        <p className="text-xs text-slate-500">{formatWhen(n.at)}</p>
      </div>
    </div>
  );
}
