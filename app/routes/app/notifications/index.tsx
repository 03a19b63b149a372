import { data, Form, href, redirect, useLocation, useNavigation, useRouteLoaderData } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/index";
import * as z from "zod/mini";
import { isLocalPath, requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { listNotifications, markAllRead, markRead } from "~/.server/domains/notifications/queries";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { NotificationItem } from "~/components/notifications/notification-item";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import type { loader as layoutLoader } from "~/routes/app/layout";
import type { PermissionHandle } from "~/lib/permissions";
import { PageTitle } from "~/components/ui/page-title";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "notifications:view" };

export const meta: Route.MetaFunction = () => [{ title: m.inbox_notifications_meta_title() }];

/** The member's notifications, newest first, 20 a page (keyset: `after` is the last row's position). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const cursor = args.url.searchParams.get("after");
  return listNotifications({ userId: current.user.id, organizationId: current.organization.id }, { cursor });
}

// The bell posts here from every page: where to go back to, and the notification a button names.
const ReadAll = z.object({ redirectTo: postedText });
const ReadOne = z.object({ notification: postedText, redirectTo: postedText });

/**
 * Marks one notification read (`intent=read`, `notification`) or all of them (`intent=read-all`),
 * then goes back to `redirectTo` (the bell posts here from every page) or this page.
 */
export async function action(args: Route.ActionArgs) {
  const backTo = (redirectTo: string) => (isLocalPath(redirectTo) ? redirectTo : href("/notifications"));
  const readerOf = (current: CurrentUser) => ({ userId: current.user.id, organizationId: current.organization.id });
  return intentAction(args, {
    permission: "notifications:view",
    intents: {
      read: intent(ReadOne, async ({ value, user }) => {
        if (!(await markRead(readerOf(user), value.notification))) throw data(m.inbox_notifications_not_found(), { status: 404 });
        return redirect(backTo(value.redirectTo));
      }),
      "read-all": intent(ReadAll, async ({ value, user }) => {
        const marked = await markAllRead(readerOf(user));
        return redirectWithToast(
          backTo(value.redirectTo),
          "success",
          marked
            ? byCount(
                marked,
                () => m.inbox_notifications_marked_one({ count: marked }),
                () => m.inbox_notifications_marked_other({ count: marked }),
              )
            : m.inbox_notifications_nothing_unread(),
        );
      }),
    },
    unknown: () => {
      throw data(m.inbox_unknown_action(), { status: 400 });
    },
  });
}

export default function Notifications({ loaderData }: Route.ComponentProps) {
  const { items, next, paged } = loaderData;
  const shell = useRouteLoaderData<typeof layoutLoader>("routes/app/layout");
  const unread = shell?.bell?.unread ?? items.filter((n) => !n.read).length;
  const busy = useNavigation().state === "submitting";
  const location = useLocation();
  const here = location.pathname + location.search;
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <PageTitle>{m.inbox_notifications_title()}</PageTitle>
          <p className="text-slate-600">
            {unread
              ? byCount(
                  unread,
                  () => m.inbox_notifications_unread_one({ count: unread >= 100 ? "99+" : unread }),
                  () => m.inbox_notifications_unread_other({ count: unread >= 100 ? "99+" : unread }),
                )
              : m.inbox_notifications_up_to_date()}{" "}
            {m.inbox_notifications_intro()}
          </p>
        </div>
        {unread ? (
          <Form method="post">
            <input type="hidden" name="redirectTo" value={here} />
            <Button type="submit" name="intent" value="read-all" variant="secondary" disabled={busy}>
              {m.inbox_notifications_mark_all()}
            </Button>
          </Form>
        ) : null}
      </div>
      <Card padding="none">
        {items.length ? (
          <ul className="divide-y divide-slate-100" aria-label={m.inbox_notifications_title()}>
            {items.map((n) => (
              <li key={n.id} className="flex items-start gap-2 pr-3">
                <div className="min-w-0 flex-1">
                  <NotificationItem notification={n} />
                </div>
                {n.read ? null : (
                  <Form method="post" className="pt-3">
                    <input type="hidden" name="notification" value={n.id} />
                    <input type="hidden" name="redirectTo" value={here} />
                    <Button
                      type="submit"
                      name="intent"
                      value="read"
                      variant="ghost"
                      size="sm"
                      disabled={busy}
                      aria-label={m.inbox_notifications_mark_read_label({ title: n.title })}
                    >
                      {m.inbox_notifications_mark_read()}
                    </Button>
                  </Form>
                )}
              </li>
            ))}
          </ul>
        ) : (
          <p className="p-6 text-sm text-slate-600">{paged ? m.inbox_notifications_no_older() : m.inbox_notifications_none()}</p>
        )}
      </Card>
      <div className="flex items-center justify-between gap-3">
        {paged ? (
          <Link to={href("/notifications")} className="text-sm font-medium text-brand-700 hover:underline">
            {m.inbox_notifications_back_newest()}
          </Link>
        ) : (
          <span />
        )}
        {next ? (
          <ButtonLink to={`?after=${encodeURIComponent(next)}`} variant="secondary" size="sm">
            {m.inbox_notifications_older()}
          </ButtonLink>
        ) : null}
      </div>
    </div>
  );
}

export const ErrorBoundary = PageErrorBoundary;
