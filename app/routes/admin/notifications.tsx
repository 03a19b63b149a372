import { Form, href, redirect, useSearchParams } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod/mini";
import type { Route } from "./+types/notifications";
import { requirePlatformAdmin } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { bellPage, bellReturnPath, markBellRead, readCursor } from "~/.server/domains/admin/bell";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BellEventLine } from "~/components/layout/admin-header";
import { Button } from "~/components/ui/button";
import { Pager } from "~/components/ui/table";
import { readForm } from "~/.server/infrastructure/http/forms";
import { PageTitle } from "~/components/ui/page-title";
import { TextLink } from "~/components/ui/text-link";

export const meta: Route.MetaFunction = () => [{ title: "Notifications | Admin console | Jumbe" }];

/** Every platform event, newest first, 25 a page: sign-ups, disputes opened, failed jobs, open health alerts. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdmin(args);
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
  const current = await requirePlatformAdmin(args);
  const post = parseWithZod(await readForm(args.request), { schema: MarkReadSchema });
  if (post.status !== "success") throw new Response("Unknown action", { status: 400 });
  await markBellRead(current);
  return redirect(bellReturnPath(post.value.back ?? null));
}

export default function AdminNotifications({ loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const { events, newer, older } = loaderData;
  const unread = events.filter((e) => e.unread).length;
  return (
    <div className="mx-auto max-w-3xl">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <PageTitle>Notifications</PageTitle>
          <p className="mt-1 text-slate-600">New sign-ups, disputes opened, failed jobs and open health alerts, newest first.</p>
        </div>
        <Form method="post" action={href("/admin/notifications")}>
          <input type="hidden" name="intent" value="mark-read" />
          <Button type="submit" variant="secondary">
            Mark all as read
          </Button>
        </Form>
      </div>
      {events.length ? (
        <>
          <p className="sr-only" role="status">
            {unread ? `${unread} unread on this page` : "All read"}
          </p>
          <ul className="mt-6 divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white shadow-sm" aria-label="Platform events">
            {events.map((event) => (
              <li key={`${event.kind}-${event.id}`}>
                <BellEventLine event={event} />
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="mt-6 text-slate-600">
          Nothing has happened yet: no sign-ups, disputes, failed jobs or health alerts.{" "}
          <TextLink to={href("/admin")}>Back to the overview</TextLink>
        </p>
      )}
      {newer || older ? <Pager searchParams={searchParams} newer={newer} older={older} label="Notification pages" /> : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
