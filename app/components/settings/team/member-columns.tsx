import { Form } from "react-router";
import type { Member } from "~/.server/domains/team/members";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { type Column } from "~/components/ui/table";
import { formatDay, formatWhen } from "~/lib/dates";
import { INVITE_ROLES, ROLE_WORDS } from "~/lib/schemas/team-rules";

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
      header: "Member",
      cell: (m) => (
        <span>
          <span className="font-medium text-slate-900">{m.name}</span>
          {m.id === me ? <span className="text-slate-500"> (you)</span> : null}
          <span className="block text-sm text-slate-600">{m.email}</span>
        </span>
      ),
    },
    {
      key: "role",
      header: "Role",
      cell: (m) =>
        canManage && m.role !== "owner" && m.id !== me ? (
          <Form method="post" className="flex items-center gap-2">
            <input type="hidden" name="member" value={m.id} />
            <label className="sr-only" htmlFor={`role-${m.id}`}>
              Role of {m.name}
            </label>
            <select
              id={`role-${m.id}`}
              name="role"
              defaultValue={m.role}
              className="min-w-32 rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm"
            >
              {INVITE_ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_WORDS[role]}
                </option>
              ))}
            </select>
            <Button type="submit" name="intent" value="role" variant="secondary" size="sm">
              Change
            </Button>
          </Form>
        ) : (
          <Badge tone={m.role === "owner" ? "success" : "neutral"}>{ROLE_WORDS[m.role]}</Badge>
        ),
    },
    { key: "joined", header: "Joined", hideOnPhone: true, cell: (m) => formatDay(m.joinedAt) },
    { key: "seen", header: "Last sign-in", hideOnPhone: true, cell: (m) => (m.lastLoginAt ? formatWhen(m.lastLoginAt) : "Not yet") },
    ...(canManage || canHandOver
      ? [
          {
            key: "actions",
            header: <span className="sr-only">Actions</span>,
            align: "right" as const,
            cell: (m: Member) =>
              m.role === "owner" || m.id === me ? null : (
                <span className="inline-flex gap-2">
                  {canHandOver ? (
                    <ButtonLink to={`?handover=${m.id}`} variant="secondary" size="sm" aria-label={`Make ${m.name} the owner`}>
                      Make owner
                    </ButtonLink>
                  ) : null}
                  {canManage ? (
                    <ButtonLink to={`?confirm=remove&member=${m.id}`} variant="secondary" size="sm" aria-label={`Remove ${m.name}`}>
                      Remove
                    </ButtonLink>
                  ) : null}
                </span>
              ),
          },
        ]
      : []),
  ];
}
