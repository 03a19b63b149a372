import { data, Form, href, useNavigation } from "react-router";
import type { Route } from "./+types/security";
import { requireUserWithPermission } from "~/.server/auth/guards";
import { listSessions, signOutOtherSessions, signOutSession, type ActiveSession } from "~/.server/auth/session-list";
import { requestMeta } from "~/.server/http/request-meta";
import { readForm } from "~/.server/http/forms";
import { redirectWithToast } from "~/.server/http/toast";
import { formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { SettingsHeader } from "~/components/settings/settings-header";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Table, type Column } from "~/components/ui/table";

export const meta: Route.MetaFunction = () => [{ title: "Security | Account Settings | Jumbe" }];

/** Where the signed-in person is signed in: each live session, with a way to end the others. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "account:manage");
  return { sessions: await listSessions(current.user.id, current.session.id) };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "account:manage");
  const form = await readForm(args.request);
  const owner = { userId: current.user.id, organizationId: current.organization.id, currentSessionId: current.session.id };
  const meta = requestMeta(args.request, args.context);
  const here = href("/settings/security");
  switch (form.get("intent")) {
    case "one": {
      if (!(await signOutSession(owner, String(form.get("session") ?? ""), meta))) throw data("No such session.", { status: 404 });
      return redirectWithToast(here, "success", "That session is signed out.");
    }
    case "others": {
      const ended = await signOutOtherSessions(owner, meta);
      return redirectWithToast(
        here,
        "success",
        ended ? `Signed out of ${ended} other session${ended === 1 ? "" : "s"}.` : "You were not signed in anywhere else.",
      );
    }
  }
  throw data("Unknown action.", { status: 400 });
}

export default function Security({ loaderData }: Route.ComponentProps) {
  const { sessions } = loaderData;
  const busy = useNavigation().state === "submitting";
  const others = sessions.filter((s) => !s.current).length;
  const columns: Column<ActiveSession>[] = [
    {
      key: "device",
      header: "Device",
      cell: (s) => (
        <span className="inline-flex items-center gap-2">
          <span className="font-medium text-slate-900">{s.device}</span>
          {s.current ? <Badge tone="success">This device</Badge> : null}
        </span>
      ),
    },
    { key: "ip", header: "IP address", hideOnPhone: true, cell: (s) => s.ip ?? "Unknown" },
    { key: "since", header: "Signed in", hideOnPhone: true, cell: (s) => formatWhen(s.signedInAt) },
    { key: "used", header: "Last active", cell: (s) => formatWhen(s.lastUsedAt) },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      align: "right",
      cell: (s) =>
        s.current ? null : (
          <Form method="post">
            <input type="hidden" name="session" value={s.id} />
            <Button
              type="submit"
              name="intent"
              value="one"
              variant="secondary"
              size="sm"
              disabled={busy}
              aria-label={`Sign out ${s.device}, last active ${formatWhen(s.lastUsedAt)}`}
            >
              Sign out
            </Button>
          </Form>
        ),
    },
  ];
  return (
    <div className="space-y-6">
      <SettingsHeader current="security" />
      <Card padding="none">
        <div className="flex flex-wrap items-end justify-between gap-3 px-4 pt-4">
          <div>
            <CardHeader title="Where you are signed in" />
            <p className="mt-1 text-sm text-slate-600">
              Sign out a device you do not recognise, then change your password. Activity is updated about once an hour.
            </p>
          </div>
          {others ? (
            <Form method="post">
              <Button type="submit" name="intent" value="others" variant="secondary" disabled={busy}>
                Sign out all other sessions
              </Button>
            </Form>
          ) : null}
        </div>
        <Table caption="Your sessions" columns={columns} rows={sessions} rowKey={(s) => s.id} empty="No sessions." />
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
