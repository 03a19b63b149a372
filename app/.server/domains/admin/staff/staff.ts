import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { isUuid } from "../../../infrastructure/db/keyset";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { Refusal, type RefusalStatus } from "../../../infrastructure/refusal";
import { can } from "~/lib/permissions";
import { EMAIL_PATTERN } from "~/lib/schemas/auth-rules";
import type { PlatformRole } from "~/lib/roles";
import { isPlatformRole } from "~/lib/staff";
import type { CurrentUser } from "../../auth";
import { INVITATION_DAYS, newLink, queueInvitationMail } from "../../team";
import { recordAdminAction } from "../audit";
import { m } from "~/paraglide/messages";

/**
 * The console's staff (issue 74, decision 112): every platform administrator, with a staff role
 * (owner, finance, support), two-factor sign-in, and whether their owner suspended them. Owners
 * invite staff (the team's invitation link, marked with the staff role), change roles, suspend
 * and reactivate; every change is written to the console's audit log in its own transaction, and
 * the console always keeps one owner who is not suspended (checked under a lock on the staff's rows).
 */

export interface StaffMember {
  id: string;
  email: string;
  name: string;
  role: PlatformRole;
  twoFactor: boolean;
  twoFactorRequired: boolean;
  suspendedAt: string | null;
  lastLoginAt: string | null;
}

export interface StaffInvitation {
  id: string;
  email: string;
  role: PlatformRole;
  sentAt: string;
  expiresAt: string;
  expired: boolean;
}

const refuse = (status: RefusalStatus, code: string, message: string, field?: string) =>
  new Refusal({ domain: "staff", status, code, message, field });

type Staff = Pick<CurrentUser, "user" | "role" | "organization">;

/** Only the console's owners manage staff; anyone else is answered as if there were nothing here. */
function requireStaffManager(actor: Staff) {
  if (!can(actor.role, "platform:staff")) throw refuse(404, "not_found", m.admin_staff_not_found());
}

/** The staff, owners first, then by name; and the invitations not yet accepted or withdrawn. */
export async function staffPage(_scope: PlatformScope, now = new Date()) {
  const members = await queryRows<{
    id: string;
    email: string;
    name: string;
    role: PlatformRole;
    two_factor: boolean;
    two_factor_required: boolean;
    suspended_at: string | Date | null;
    last_login_at: string | Date | null;
  }>(
    db(),
    sql`
    select id, email, trim(first_name || ' ' || last_name) as name, coalesce(platform_role, 'owner') as role,
           two_factor_enabled_at is not null as two_factor, two_factor_required, staff_suspended_at as suspended_at, last_login_at
    from users where usertype = 'admin'
    order by case coalesce(platform_role, 'owner') when 'owner' then 0 when 'finance' then 1 else 2 end, lower(first_name), lower(email)`,
  );
  const invitations = await queryRows<{ id: string; email: string; role: PlatformRole; sent_at: string | Date; expires_at: string | Date }>(
    db(),
    sql`
    select id, email, platform_role as role, sent_at, expires_at from invitations
    where platform_role is not null and accepted_at is null and revoked_at is null
    order by sent_at desc, id`,
  );
  const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());
  return {
    members: members.map((r): StaffMember => ({
      id: r.id,
      email: r.email,
      name: r.name,
      role: r.role,
      twoFactor: r.two_factor,
      twoFactorRequired: r.two_factor_required,
      suspendedAt: iso(r.suspended_at),
      lastLoginAt: iso(r.last_login_at),
    })),
    invitations: invitations.map((r): StaffInvitation => ({
      id: r.id,
      email: r.email,
      role: r.role,
      sentAt: new Date(r.sent_at).toISOString(),
      expiresAt: new Date(r.expires_at).toISOString(),
      expired: new Date(r.expires_at) <= now,
    })),
  };
}

/**
 * Invites a person to the console's staff with a role: the team's invitation (a link by e-mail, good
 * for 7 days, in the inviting owner's organisation, the platform's own), marked with the staff role.
 * Accepting it makes a verified platform administrator who must set up two-factor sign-in first.
 */
export async function inviteStaff(actor: Staff, meta: RequestMeta, input: { email: string; role: string }, now = new Date()) {
  requireStaffManager(actor);
  const email = input.email.trim().toLowerCase();
  if (!email || email.length > 254 || !EMAIL_PATTERN.test(email))
    throw refuse(400, "email_invalid", m.admin_staff_email_invalid(), "email");
  if (!isPlatformRole(input.role)) throw refuse(400, "role_invalid", m.admin_staff_role_invalid(), "role");
  const role = input.role;
  const [existing] = await queryRows<unknown>(db(), sql`select 1 from users where lower(email) = ${email}`);
  if (existing) throw refuse(409, "account_exists", m.admin_staff_account_exists(), "email");
  const { tokenHash } = newLink();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 24 * 3600_000);
  return db().transaction(async (tx) => {
    const [row] = await queryRows<{ id: string }>(
      tx,
      sql`
      insert into invitations (organization_id, email, role, platform_role, token_hash, invited_by, sent_at, expires_at)
      values (${actor.organization.id}, ${email}, 'admin', ${role}, ${tokenHash}, ${actor.user.id}, ${now}, ${expiresAt})
      on conflict (organization_id, lower(email)) where accepted_at is null and revoked_at is null
      do update set role = excluded.role, platform_role = excluded.platform_role, token_hash = excluded.token_hash,
                    invited_by = excluded.invited_by, sent_at = excluded.sent_at, expires_at = excluded.expires_at
      returning id`,
    );
    await queueInvitationMail(row!.id, tx);
    await recordAdminAction(tx, actor, meta, {
      action: "staff.invite",
      targetType: "staff_invitation",
      targetId: row!.id,
      after: { email, role },
    });
    return { id: row!.id, email, role };
  });
}

/** Withdraws an open staff invitation: its link stops working. */
export async function revokeStaffInvitation(actor: Staff, meta: RequestMeta, invitationId: string, now = new Date()) {
  requireStaffManager(actor);
  if (!isUuid(invitationId)) throw refuse(404, "not_found", m.admin_staff_not_found());
  return db().transaction(async (tx) => {
    const [row] = await queryRows<{ id: string; email: string; platform_role: PlatformRole }>(
      tx,
      sql`
      update invitations set revoked_at = ${now}
      where id = ${invitationId} and platform_role is not null and accepted_at is null and revoked_at is null
      returning id, email, platform_role`,
    );
    if (!row) throw refuse(404, "not_found", m.admin_staff_not_found());
    await recordAdminAction(tx, actor, meta, {
      action: "staff.invitation_revoke",
      targetType: "staff_invitation",
      targetId: row.id,
      before: { email: row.email, role: row.platform_role },
    });
    return { email: row.email };
  });
}

export type StaffChange = { kind: "role"; role: string } | { kind: "suspend" } | { kind: "reactivate" };

interface StaffRow {
  id: string;
  email: string;
  role: PlatformRole;
  suspended: boolean;
}

/**
 * Changes a staff member's role, suspends or reactivates them. In one transaction: every staff row
 * locked (so two owners demoting each other at once cannot leave none), the change, the sessions of
 * a suspended member ended (they are signed out at once, on every instance), and the audit record.
 * Refused: an unknown id (404), oneself (an owner asks another owner), or leaving no active owner.
 */
export async function changeStaff(actor: Staff, meta: RequestMeta, userId: string, change: StaffChange) {
  requireStaffManager(actor);
  if (!isUuid(userId)) throw refuse(404, "not_found", m.admin_staff_not_found());
  if (change.kind === "role" && !isPlatformRole(change.role)) throw refuse(400, "role_invalid", m.admin_staff_role_invalid(), "role");
  if (userId === actor.user.id) throw refuse(409, "not_yourself", m.admin_staff_not_yourself());
  return db().transaction(async (tx) => {
    const staff = await lockedStaff(tx);
    const target = staff.find((s) => s.id === userId);
    if (!target) throw refuse(404, "not_found", m.admin_staff_not_found());
    const after = {
      role: change.kind === "role" ? (change.role as PlatformRole) : target.role,
      suspended: change.kind === "suspend" ? true : change.kind === "reactivate" ? false : target.suspended,
    };
    const owners = staff.filter((s) => (s.id === userId ? after.role === "owner" && !after.suspended : s.role === "owner" && !s.suspended));
    if (owners.length === 0) throw refuse(409, "last_owner", m.admin_staff_last_owner());
    if (change.kind === "role") {
      if (after.role === target.role) return { email: target.email, changed: false };
      await tx.execute(sql`update users set platform_role = ${after.role} where id = ${userId}`);
    } else if (change.kind === "suspend") {
      if (target.suspended) return { email: target.email, changed: false };
      await tx.execute(sql`update users set staff_suspended_at = now() where id = ${userId}`);
      // Signed out at once: every session of theirs ends with the suspension.
      await tx.execute(sql`delete from sessions where user_id = ${userId}`);
    } else {
      if (!target.suspended) return { email: target.email, changed: false };
      await tx.execute(sql`update users set staff_suspended_at = null where id = ${userId}`);
    }
    await recordAdminAction(tx, actor, meta, {
      action: change.kind === "role" ? "staff.role_change" : change.kind === "suspend" ? "staff.suspend" : "staff.reactivate",
      targetType: "staff",
      targetId: userId,
      before: { email: target.email, role: target.role, suspended: target.suspended },
      after: { email: target.email, ...after },
    });
    return { email: target.email, changed: true };
  });
}

async function lockedStaff(tx: Executor): Promise<StaffRow[]> {
  const rows = await queryRows<{ id: string; email: string; role: PlatformRole; suspended: boolean }>(
    tx,
    sql`
    select id, email, coalesce(platform_role, 'owner') as role, staff_suspended_at is not null as suspended
    from users where usertype = 'admin' order by id for update`,
  );
  return rows;
}
