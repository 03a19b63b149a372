import { Form, href, redirect, useSearchParams } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/notifications";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { bellPage, bellReturnPath, markBellRead, readCursor } from "~/.server/domains/admin/bell";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BellEventLine } from "~/components/layout/admin-header";
import { Button } from "~/components/ui/button";
import { Pager } from "~/components/ui/table";
import { adminFormAction } from "~/.server/domains/admin/form-actions";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

export const meta: Route.MetaFunction = () => [{ title: m.admin_title({ page: m.admin_notifications_title() }) }];

/** Every platform event, newest first, 25 a page: sign-ups, disputes opened, failed jobs, open health alerts. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const params = args.url.searchParams;
  const page = await bellPage(platformScope(current), {
    after: readCursor(params.get("after")),
    before: readCursor(params.get("before")),
  });
  const seenAt = current.user.adminBellSeenAt;
  return {
    ...page,
    events: page.events.map((e) => ({ ...e, at: e.at.toISOString(), unread: !seenAt || e.at > seenAt })),
  };
}

// The bell's one form: its button's intent and the page to go back to (checked by bellReturnPath).
const MarkReadSchema = z.object({ intent: z.literal("mark-read"), back: z.optional(z.string()) });

/** POST intent=mark-read: everything so far is read; back to the page the form was on. */
export async function action(args: Route.ActionArgs) {
  return adminFormAction(args, {
    permission: "platform:console",
    schema: MarkReadSchema,
    invalid: () => {
      throw new Response("Unknown action", { status: 400 });
    },
    handle: async ({ value, user }) => {
      await markBellRead(user);
      return redirect(bellReturnPath(value.back ?? null));
    },
  });
}

export default function AdminNotifications({ loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const { events, newer, older } = loaderData;
  const unread = events.filter((e) => e.unread).length;
  return (
    <div className="mx-auto max-w-3xl">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <PageTitle>{m.admin_notifications_title()}</PageTitle>
          <p className="mt-1 text-slate-600">{m.admin_notifications_intro()}</p>
        </div>
        <Form method="post" action={href("/admin/notifications")}>
          <input type="hidden" name="intent" value="mark-read" />
          <Button type="submit" variant="secondary">
            {m.admin_notifications_mark_all_read()}
          </Button>
        </Form>
      </div>
      {events.length ? (
        <>
          <p className="sr-only" role="status">
            {unread ? m.admin_notifications_unread_on_page({ count: unread }) : m.admin_notifications_all_read()}
          </p>
          <ul
            className="mt-6 divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white shadow-sm"
            aria-label={m.admin_notifications_events()}
          >
            {events.map((event) => (
              <li key={`${event.kind}-${event.id}`}>
                <BellEventLine event={event} />
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="mt-6 text-slate-600">
          {m.admin_notifications_empty()} <TextLink to={href("/admin")}>{m.admin_notifications_back()}</TextLink>
        </p>
      )}
      {newer || older ? <Pager searchParams={searchParams} newer={newer} older={older} label={m.admin_notifications_pages()} /> : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
