import { Form } from "react-router";
import type { OpenInvitation } from "~/.server/domains/team/invitations";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Table, type Column } from "~/components/ui/table";
import { formatDay, formatWhen } from "~/lib/dates";
import { ROLE_WORDS } from "~/lib/schemas/team-rules";

/** The open invitations, each resent or withdrawn with a button. */
export function Invitations({ invitations }: { invitations: OpenInvitation[] }) {
  const columns: Column<OpenInvitation>[] = [
    { key: "email", header: "E-mail", cell: (i) => <span className="font-medium text-slate-900">{i.email}</span> },
    { key: "role", header: "Role", cell: (i) => ROLE_WORDS[i.role] },
    { key: "sent", header: "Sent", hideOnPhone: true, cell: (i) => `${formatWhen(i.sentAt)}${i.invitedBy ? ` by ${i.invitedBy}` : ""}` },
    {
      key: "expires",
      header: "Link",
      cell: (i) => (i.expired ? <Badge tone="warning">Expired</Badge> : `Valid until ${formatDay(i.expiresAt)}`),
    },
    {
      key: "actions",
      header: <span className="sr-only">Actions</span>,
      align: "right",
      cell: (i) => (
        <Form method="post" className="inline-flex gap-2">
          <input type="hidden" name="invitation" value={i.id} />
          <Button type="submit" name="intent" value="resend" variant="secondary" size="sm" aria-label={`Resend to ${i.email}`}>
            Resend
          </Button>
          <Button type="submit" name="intent" value="revoke" variant="secondary" size="sm" aria-label={`Withdraw ${i.email}`}>
            Withdraw
          </Button>
        </Form>
      ),
    },
  ];
  return (
    <Card padding="none">
      <div className="px-4 pt-4">
        <CardHeader title="Invitations" />
      </div>
      <Table caption="Open invitations" columns={columns} rows={invitations} rowKey={(i) => i.id} empty="No open invitations." />
    </Card>
  );
}
