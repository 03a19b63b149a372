import { Form } from "react-router";
import type { OpenInvitation } from "~/.server/domains/team/invitations";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Table, type Column } from "~/components/ui/table";
import { formatDay, formatWhen } from "~/lib/dates";
import { ROLE_WORDS } from "~/lib/schemas/team-rules";
import { m } from "~/paraglide/messages";

/** The open invitations, each resent or withdrawn with a button. */
export function Invitations({ invitations }: { invitations: OpenInvitation[] }) {
  const columns: Column<OpenInvitation>[] = [
    { key: "email", header: m.settings_team_email(), cell: (i) => <span className="font-medium text-slate-900">{i.email}</span> },
    { key: "role", header: m.settings_team_role(), cell: (i) => ROLE_WORDS[i.role] },
    {
      key: "sent",
      header: m.settings_team_invitations_column_sent(),
      hideOnPhone: true,
      cell: (i) =>
        i.invitedBy ? m.settings_team_invitation_sent_by({ when: formatWhen(i.sentAt), name: i.invitedBy }) : formatWhen(i.sentAt),
    },
    {
      key: "expires",
      header: m.settings_team_invitations_column_link(),
      cell: (i) =>
        i.expired ? (
          <Badge tone="warning">{m.settings_team_invitation_expired()}</Badge>
        ) : (
          m.settings_team_invitation_valid_until({ date: formatDay(i.expiresAt) })
        ),
    },
    {
      key: "actions",
      header: <span className="sr-only">{m.settings_actions()}</span>,
      align: "right",
      cell: (i) => (
        <Form method="post" className="inline-flex gap-2">
          <input type="hidden" name="invitation" value={i.id} />
          <Button
            type="submit"
            name="intent"
            value="resend"
            variant="secondary"
            size="sm"
            aria-label={m.settings_team_invitation_resend_to({ email: i.email })}
          >
            {m.settings_team_invitation_resend()}
          </Button>
          <Button
            type="submit"
            name="intent"
            value="revoke"
            variant="secondary"
            size="sm"
            aria-label={m.settings_team_invitation_withdraw_email({ email: i.email })}
          >
            {m.settings_team_invitation_withdraw()}
          </Button>
        </Form>
      ),
    },
  ];
  return (
    <Card padding="none">
      <div className="px-4 pt-4">
        <CardHeader title={m.settings_team_invitations_title()} />
      </div>
      <Table
        caption={m.settings_team_invitations_caption()}
        columns={columns}
        rows={invitations}
        rowKey={(i) => i.id}
        empty={m.settings_team_invitations_empty()}
      />
    </Card>
  );
}
