import { Form } from "react-router";
import type { Member } from "~/.server/domains/team/members";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { type Column } from "~/components/ui/table";
import { formatDay, formatWhen } from "~/lib/dates";
import { INVITE_ROLES, ROLE_WORDS } from "~/lib/schemas/team-rules";
import { m } from "~/paraglide/messages";

interface MemberColumnsOptions {
  me: string;
  canManage: boolean;
  canHandOver: boolean;
}

/** The members' table: a role picker for whoever manages the team, Make owner and Remove links. */
export function memberColumns({ me, canManage, canHandOver }: MemberColumnsOptions): Column<Member>[] {
  return [
    {
      key: "name",
      header: m.settings_team_column_member(),
      cell: (member) => (
        <span>
          <span className="font-medium text-slate-900">{member.name}</span>
          {member.id === me ? <span className="text-slate-500"> {m.settings_team_you()}</span> : null}
          <span className="block text-sm text-slate-600">{member.email}</span>
        </span>
      ),
    },
    {
      key: "role",
      header: m.settings_team_role(),
      cell: (member) =>
        canManage && member.role !== "owner" && member.id !== me ? (
          <Form method="post" className="flex items-center gap-2">
            <input type="hidden" name="member" value={member.id} />
            <label className="sr-only" htmlFor={`role-${member.id}`}>
              {m.settings_team_role_of({ name: member.name })}
            </label>
            <select
              id={`role-${member.id}`}
              name="role"
              defaultValue={member.role}
              className="min-w-32 rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm"
            >
              {INVITE_ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_WORDS[role]}
                </option>
              ))}
            </select>
            <Button type="submit" name="intent" value="role" variant="secondary" size="sm">
              {m.settings_team_change_role()}
            </Button>
          </Form>
        ) : (
          <Badge tone={member.role === "owner" ? "success" : "neutral"}>{ROLE_WORDS[member.role]}</Badge>
        ),
    },
    { key: "joined", header: m.settings_team_column_joined(), hideOnPhone: true, cell: (member) => formatDay(member.joinedAt) },
    {
      key: "seen",
      header: m.settings_team_column_last_sign_in(),
      hideOnPhone: true,
      cell: (member) => (member.lastLoginAt ? formatWhen(member.lastLoginAt) : m.settings_team_not_yet()),
    },
    ...(canManage || canHandOver
      ? [
          {
            key: "actions",
            header: <span className="sr-only">{m.settings_actions()}</span>,
            align: "right" as const,
            cell: (member: Member) =>
              member.role === "owner" || member.id === me ? null : (
                <span className="inline-flex gap-2">
                  {canHandOver ? (
                    <ButtonLink
                      to={`?handover=${member.id}`}
                      variant="secondary"
                      size="sm"
                      aria-label={m.settings_team_make_owner_of({ name: member.name })}
                    >
                      {m.settings_team_make_owner()}
                    </ButtonLink>
                  ) : null}
                  {canManage ? (
                    <ButtonLink
                      to={`?confirm=remove&member=${member.id}`}
                      variant="secondary"
                      size="sm"
                      aria-label={m.settings_team_remove_name({ name: member.name })}
                    >
                      {m.settings_team_remove()}
                    </ButtonLink>
                  ) : null}
                </span>
              ),
          },
        ]
      : []),
  ];
}
