import { confirmOwnPassword, can, type Role } from "../auth";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { isUuid } from "../../infrastructure/db/keyset";
import type { OrgRole } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { refuseTeam, TEAM_MESSAGES } from "./refusals";
import { englishOf, words, type Message } from "../../infrastructure/words/said";
import { notifyRoleChanged } from "../notifications";

/** A role as the activity log keeps it: said in its reader's language (ROLE_WORDS' messages). */
export const roleWords = (role: OrgRole): Message => words(`validation_role_${role}`);

/** Who acts: the signed-in member, as the guards resolve them. */
export interface Actor {
  user: { id: string; email: string; firstName: string; lastName: string };
  organization: { id: string; name: string };
  role: Role;
}

/** The roles a member can be given; the owner's comes only with the ownership. */
export const ASSIGNABLE_ROLES = ["admin", "agent", "viewer"] as const satisfies readonly OrgRole[];
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

export interface Member {
  id: string;
  name: string;
  email: string;
  role: OrgRole;
  joinedAt: Date;
  lastLoginAt: Date | null;
}

/** The organisation's members: the owner first, then admins, agents and viewers, each by name. */
export async function listMembers(organizationId: string): Promise<Member[]> {
  const rows = await rawQuery<{
    id: string;
    first_name: string;
    last_name: string;
    email: string;
    org_role: OrgRole;
    created_at: Date | string;
    last_login_at: Date | string | null;
  }>(
    `select id, first_name, last_name, email, org_role, created_at, last_login_at from users
     where organization_id = $1
     order by array_position(array['owner', 'admin', 'agent', 'viewer'], org_role), lower(first_name), lower(last_name), id`,
    [organizationId],
  );
  return rows.map((r) => ({
    id: r.id,
    name: `${r.first_name} ${r.last_name}`.trim(),
    email: r.email,
    role: r.org_role,
    joinedAt: new Date(r.created_at),
    lastLoginAt: r.last_login_at === null ? null : new Date(r.last_login_at),
  }));
}

/** Owners and admins change the team; anybody else is refused before anything is read. */
export function requireTeamManager(actor: Actor) {
  if (!can(actor.role, "team:manage")) throw refuseTeam(403, "forbidden", TEAM_MESSAGES.forbidden);
}

/** A member of the actor's organisation other than the actor (another tenant's member is not found). */
async function otherMember(actor: Actor, memberId: string) {
  if (!isUuid(memberId)) throw refuseTeam(404, "member_not_found", TEAM_MESSAGES.memberNotFound);
  const [member] = await rawQuery<{ id: string; email: string; org_role: OrgRole }>(
    `select id, email, org_role from users where id = $1 and organization_id = $2`,
    [memberId, actor.organization.id],
  );
  if (!member) throw refuseTeam(404, "member_not_found", TEAM_MESSAGES.memberNotFound);
  if (member.id === actor.user.id) throw refuseTeam(409, "not_yourself", TEAM_MESSAGES.notYourself);
  return member;
}

/** Gives a member another role (admin, agent or viewer). It applies to their next request, on every instance. */
export async function changeMemberRole(actor: Actor, memberId: string, role: AssignableRole, meta?: RequestMeta) {
  requireTeamManager(actor);
  const member = await otherMember(actor, memberId);
  if (member.org_role === "owner") throw refuseTeam(409, "owner_fixed", TEAM_MESSAGES.ownerFixed, "role");
  if (member.org_role === role) return;
  // The owner check is repeated in the statement: an ownership handed over meanwhile is not undone.
  const changed = await rawQuery(
    `update users set org_role = $3 where id = $1 and organization_id = $2 and org_role <> 'owner' returning id`,
    [member.id, actor.organization.id, role],
  );
  if (changed.length)
    await notifyRoleChanged(undefined, {
      organizationId: actor.organization.id,
      memberId: member.id,
      from: member.org_role,
      to: role,
      by: `${actor.user.firstName} ${actor.user.lastName}`.trim() || actor.user.email,
    });
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action: "Member role changed",
    details: englishOf(
      words("app_activity_detail_member_role_changed", { email: member.email, from: roleWords(member.org_role), to: roleWords(role) }),
    ),
    meta,
  });
}

/** Removes a member: their account goes, and with it every session they had, at once. */
export async function removeMember(actor: Actor, memberId: string, meta?: RequestMeta) {
  requireTeamManager(actor);
  const member = await otherMember(actor, memberId);
  if (member.org_role === "owner") throw refuseTeam(409, "owner_fixed", TEAM_MESSAGES.ownerStays);
  // Sessions, codes and the like go with the account (foreign keys cascade); what they did stays in
  // the activity log and on the campaigns and templates they made, without their name.
  await rawQuery(`delete from users where id = $1 and organization_id = $2 and org_role <> 'owner'`, [member.id, actor.organization.id]);
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "warning",
    action: "Member removed",
    details: englishOf(words("app_activity_detail_member_removed", { email: member.email, role: roleWords(member.org_role) })),
    meta,
  });
}

/**
 * The owner hands the ownership to another member, confirming with their password: in one
 * transaction the owner becomes an admin and the member the owner, so the organisation always has
 * exactly one (users_one_owner_key refuses a second).
 */
export async function transferOwnership(actor: Actor, memberId: string, password: string, meta?: RequestMeta) {
  if (!can(actor.role, "ownership:transfer")) throw refuseTeam(403, "forbidden", TEAM_MESSAGES.ownerOnly);
  const member = await otherMember(actor, memberId);
  // Wrong passwords count in the member's own bucket (as on the change-password form).
  const checked = await confirmOwnPassword(actor.user.id, password, TEAM_MESSAGES.wrongPassword);
  if (!checked.ok)
    throw refuseTeam(checked.status, checked.status === 429 ? "rate_limited" : "wrong_password", checked.message, "password");
  const handedOver = await db().transaction(async (tx) => {
    const demoted = await queryRows<{ id: string }>(
      tx,
      sql`update users set org_role = 'admin'
          where id = ${actor.user.id} and organization_id = ${actor.organization.id} and org_role = 'owner' returning id`,
    );
    if (!demoted.length) return false;
    await tx.execute(sql`update users set org_role = 'owner' where id = ${member.id} and organization_id = ${actor.organization.id}`);
    return true;
  });
  if (!handedOver) throw refuseTeam(403, "forbidden", TEAM_MESSAGES.ownerOnly);
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action: "Ownership handed over",
    details: englishOf(words("app_activity_detail_ownership_handed_over", { email: member.email })),
    meta,
  });
}
