import { sql } from "drizzle-orm";
import { env } from "../../infrastructure/config/env";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { OrgRole } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { hashPassword } from "../auth";
import { randomToken, sha256 } from "../../infrastructure/security/crypto";
import { sendMail } from "../../infrastructure/mail/transport";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { invitationMail } from "../../infrastructure/mail/messages";
import { formatDay } from "~/lib/dates";
import { refuseTeam, TEAM_MESSAGES } from "./refusals";
import { requireTeamManager, roleWords, type Actor, type AssignableRole } from "./members";
import { englishOf, words } from "../../infrastructure/words/said";
import { isUuid } from "../../infrastructure/db/keyset";
import { notifyInvitationAccepted } from "../notifications";
import { inLocale } from "../../infrastructure/http/display-zone";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";
import type { PlatformRole } from "~/lib/roles";

/** How long an invitation's link works. */
export const INVITATION_DAYS = 7;
const DAY_MS = 24 * 3600_000;

export interface OpenInvitation {
  id: string;
  email: string;
  role: AssignableRole;
  invitedBy: string | null;
  sentAt: Date;
  expiresAt: Date;
  expired: boolean;
}

/** Invitations not yet accepted or withdrawn, newest first (an expired one stays, to resend or withdraw). */
export async function listOpenInvitations(organizationId: string, now = new Date()): Promise<OpenInvitation[]> {
  const rows = await rawQuery<{
    id: string;
    email: string;
    role: AssignableRole;
    inviter: string | null;
    sent_at: Date | string;
    expires_at: Date | string;
  }>(
    `select i.id, i.email, i.role, nullif(trim(u.first_name || ' ' || u.last_name), '') as inviter, i.sent_at, i.expires_at
     from invitations i left join users u on u.id = i.invited_by
     where i.organization_id = $1 and i.accepted_at is null and i.revoked_at is null
     order by i.sent_at desc, i.id`,
    [organizationId],
  );
  return rows.map((r) => {
    const expiresAt = new Date(r.expires_at);
    return {
      id: r.id,
      email: r.email,
      role: r.role,
      invitedBy: r.inviter,
      sentAt: new Date(r.sent_at),
      expiresAt,
      expired: expiresAt <= now,
    };
  });
}

/** A fresh link: only its hash is kept, so the database alone opens no invitation. */
export function newLink() {
  const token = randomToken(32);
  return { token, tokenHash: sha256(token), link: `${env().APP_URL}/invitations/${token}` };
}

/** The role as the invitation's sentence says it ("as an admin"), in the language being written. */
const ROLE_WITH_ARTICLE: Record<AssignableRole, () => string> = {
  admin: m.validation_auth_invite_as_admin,
  agent: m.validation_auth_invite_as_agent,
  viewer: m.validation_auth_invite_as_viewer,
};

/** A console staff invitation's role as its sentence says it ("as finance staff of the Jumbe console"; issue 74). */
const STAFF_ROLE_WITH_ARTICLE: Record<PlatformRole, () => string> = {
  owner: m.admin_staff_invite_as_owner,
  finance: m.admin_staff_invite_as_finance,
  support: m.admin_staff_invite_as_support,
};

/** Invitation e-mails go out from a job, so an SMTP failure never fails the request (the job retries). */
export const INVITATION_MAIL_QUEUE = "team.invitation-mail";

export interface InvitationMailPayload {
  invitationId: string;
}

/**
 * Queues the e-mail of an invitation, in the caller's transaction. The request stores a link nobody
 * knows (a random hash); the job gives the invitation its real link as it mails it. One pending job an
 * invitation: resending twice before it ran mails once.
 */
export async function queueInvitationMail(invitationId: string, executor?: Executor) {
  await enqueueJob(INVITATION_MAIL_QUEUE, { invitationId } satisfies InvitationMailPayload, {
    executor,
    uniqueKey: `invitation-mail:${invitationId}`,
  });
}

/**
 * The job: for each invitation still open and unexpired, a new link (the one mailed before, if any,
 * stops working) and the e-mail with it. A retry after a failed send mails a newer link; only the
 * latest works. Invitations closed or expired meanwhile get nothing. The invitee has no account yet,
 * so no language of their own: the mail is in the inviting organisation's (its default_locale).
 */
export async function sendInvitationMails(jobs: Job<InvitationMailPayload>[]) {
  for (const { payload } of jobs) {
    const { tokenHash, link } = newLink();
    const [row] = await rawQuery<{
      email: string;
      role: AssignableRole;
      platform_role: PlatformRole | null;
      expires_at: Date | string;
      organization: string;
      inviter: string | null;
      locale: Locale;
    }>(
      `update invitations i set token_hash = $2
       from organizations o
       where i.id = $1 and o.id = i.organization_id and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()
       returning i.email, i.role, i.platform_role, i.expires_at, o.name as organization, o.default_locale as locale,
                 (select nullif(trim(u.first_name || ' ' || u.last_name), '') from users u where u.id = i.invited_by) as inviter`,
      [payload.invitationId, tokenHash],
    );
    if (!row) continue;
    // Written in the organisation's language: its words, and the day as that language writes it.
    const mail = inLocale(row.locale, () =>
      invitationMail(
        row.email,
        {
          organization: row.organization,
          invitedBy: row.inviter ?? m.validation_auth_invite_team_at({ organization: row.organization }),
          role: row.platform_role ? STAFF_ROLE_WITH_ARTICLE[row.platform_role]() : ROLE_WITH_ARTICLE[row.role](),
          link,
          expiresOn: formatDay(new Date(row.expires_at)),
        },
        row.locale,
      ),
    );
    await sendMail(mail);
  }
}

/**
 * Invites someone by e-mail with a role. An address already invited gets a new link (the old one
 * stops working) with the role now chosen. An address that already has an account is refused:
 * an account belongs to one organisation.
 */
export async function inviteMember(actor: Actor, input: { email: string; role: AssignableRole }, meta?: RequestMeta, now = new Date()) {
  requireTeamManager(actor);
  const email = input.email.trim().toLowerCase();
  const [existing] = await rawQuery<{ organization_id: string }>(`select organization_id from users where lower(email) = $1`, [email]);
  if (existing?.organization_id === actor.organization.id) throw refuseTeam(409, "already_member", TEAM_MESSAGES.alreadyMember, "email");
  if (existing) throw refuseTeam(409, "account_exists", TEAM_MESSAGES.accountExists, "email");
  // A link nobody knows until the mail job gives it a real one.
  const { tokenHash } = newLink();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * DAY_MS);
  // One open invitation an address: a second invitation refreshes the first (invitations_open_key).
  // The invitation and its mail job in one transaction: a crash leaves both or neither.
  const row = await db().transaction(async (tx) => {
    const inserted = await queryRows<{ id: string }>(
      tx,
      sql`
      insert into invitations (organization_id, email, role, token_hash, invited_by, sent_at, expires_at)
      values (${actor.organization.id}, ${email}, ${input.role}, ${tokenHash}, ${actor.user.id}, ${now}, ${expiresAt})
      on conflict (organization_id, lower(email)) where accepted_at is null and revoked_at is null
      do update set role = excluded.role, token_hash = excluded.token_hash, invited_by = excluded.invited_by,
                    sent_at = excluded.sent_at, expires_at = excluded.expires_at
      returning id`,
    );
    await queueInvitationMail(inserted[0]!.id, tx);
    return inserted[0]!;
  });
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action: "Member invited",
    details: englishOf(words("app_activity_detail_member_invited", { email, role: roleWords(input.role) })),
    meta,
  });
  return { id: row!.id };
}

async function openInvitationOf(actor: Actor, id: string) {
  if (!isUuid(id)) throw refuseTeam(404, "invitation_not_found", TEAM_MESSAGES.invitationNotFound);
  const [row] = await rawQuery<{ id: string; email: string; role: AssignableRole; accepted_at: Date | null; revoked_at: Date | null }>(
    `select id, email, role, accepted_at, revoked_at from invitations where id = $1 and organization_id = $2`,
    [id, actor.organization.id],
  );
  if (!row) throw refuseTeam(404, "invitation_not_found", TEAM_MESSAGES.invitationNotFound);
  if (row.accepted_at || row.revoked_at) throw refuseTeam(409, "invitation_closed", TEAM_MESSAGES.invitationClosed);
  return row;
}

/** Sends an open invitation again with a new link, valid for another 7 days (the old link stops working). */
export async function resendInvitation(actor: Actor, id: string, meta?: RequestMeta, now = new Date()) {
  requireTeamManager(actor);
  const invitation = await openInvitationOf(actor, id);
  const { tokenHash } = newLink();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * DAY_MS);
  const resent = await db().transaction(async (tx) => {
    const updated = await queryRows<unknown>(
      tx,
      sql`
      update invitations set token_hash = ${tokenHash}, sent_at = ${now}, expires_at = ${expiresAt}, invited_by = ${actor.user.id}
      where id = ${invitation.id} and accepted_at is null and revoked_at is null returning id`,
    );
    if (updated.length) await queueInvitationMail(invitation.id, tx);
    return updated.length > 0;
  });
  if (!resent) throw refuseTeam(409, "invitation_closed", TEAM_MESSAGES.invitationClosed);
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action: "Invitation resent",
    details: invitation.email,
    meta,
  });
}

/** Withdraws an open invitation: its link stops working. */
export async function revokeInvitation(actor: Actor, id: string, meta?: RequestMeta, now = new Date()) {
  requireTeamManager(actor);
  const invitation = await openInvitationOf(actor, id);
  await rawQuery(`update invitations set revoked_at = $2 where id = $1 and accepted_at is null and revoked_at is null`, [
    invitation.id,
    now,
  ]);
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "warning",
    action: "Invitation withdrawn",
    details: invitation.email,
    meta,
  });
}

export type InvitationState = "open" | "expired" | "accepted" | "revoked";

/** What a link leads to, for the page that accepts it (null: no such link). */
export async function invitationByToken(token: string, now = new Date()) {
  if (!token || token.length > 100) return null;
  const [row] = await rawQuery<{
    id: string;
    email: string;
    role: AssignableRole;
    platform_role: PlatformRole | null;
    organization_name: string;
    expires_at: Date | string;
    accepted_at: Date | null;
    revoked_at: Date | null;
  }>(
    `select i.id, i.email, i.role, i.platform_role, o.name as organization_name, i.expires_at, i.accepted_at, i.revoked_at
     from invitations i join organizations o on o.id = i.organization_id where i.token_hash = $1`,
    [sha256(token)],
  );
  if (!row) return null;
  const state: InvitationState = row.accepted_at
    ? "accepted"
    : row.revoked_at
      ? "revoked"
      : new Date(row.expires_at) <= now
        ? "expired"
        : "open";
  return { id: row.id, email: row.email, role: row.role, platformRole: row.platform_role, organization: row.organization_name, state };
}

/**
 * Accepts an invitation: a verified account in the inviting organisation, with the invited role,
 * and the invitation closed, in one transaction (two tabs cannot both use the link). Answers the
 * new member's user id; the caller opens their session.
 */
export async function acceptInvitation(
  token: string,
  person: { firstName: string; lastName: string; password: string },
  meta?: RequestMeta,
  now = new Date(),
) {
  // A link that opens nothing is refused before the password's (deliberately slow) hash is made;
  // the transaction checks it again under the row's lock.
  const found = await invitationByToken(token, now);
  if (!found) throw refuseTeam(404, "invitation_not_found", TEAM_MESSAGES.invitationNotFound);
  if (found.state === "expired") throw refuseTeam(410, "invitation_expired", TEAM_MESSAGES.invitationExpired);
  if (found.state !== "open") throw refuseTeam(410, "invitation_closed", TEAM_MESSAGES.invitationClosed);
  const passwordHash = await hashPassword(person.password);
  const accepted = await db().transaction(async (tx) => {
    const [invitation] = await queryRows<{
      id: string;
      invited_by: string | null;
      organization_id: string;
      email: string;
      role: OrgRole;
      platform_role: PlatformRole | null;
      expires_at: string;
      accepted_at: string | null;
      revoked_at: string | null;
    }>(
      tx,
      sql`
        select id, organization_id, email, role, platform_role, expires_at, accepted_at, revoked_at, invited_by from invitations
        where token_hash = ${sha256(token)} for update`,
    );
    if (!invitation) throw refuseTeam(404, "invitation_not_found", TEAM_MESSAGES.invitationNotFound);
    if (invitation.accepted_at || invitation.revoked_at) throw refuseTeam(410, "invitation_closed", TEAM_MESSAGES.invitationClosed);
    if (new Date(invitation.expires_at) <= now) throw refuseTeam(410, "invitation_expired", TEAM_MESSAGES.invitationExpired);
    const [taken] = await queryRows<unknown>(tx, sql`select 1 from users where lower(email) = ${invitation.email.toLowerCase()}`);
    if (taken) throw refuseTeam(409, "account_exists", TEAM_MESSAGES.accountExists);
    const [user] = await queryRows<{ id: string }>(
      tx,
      sql`
        insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, org_role, usertype,
                           platform_role, two_factor_required)
        values (${invitation.organization_id}, ${invitation.email}, ${person.firstName}, ${person.lastName}, ${passwordHash}, true,
                ${invitation.role}, ${invitation.platform_role ? "admin" : "individual"},
                ${invitation.platform_role}, ${invitation.platform_role !== null})
        returning id`,
    );
    await tx.execute(sql`update invitations set accepted_at = ${now}, accepted_by = ${user!.id} where id = ${invitation.id}`);
    await notifyInvitationAccepted(tx, {
      organizationId: invitation.organization_id,
      invitationId: invitation.id,
      userId: user!.id,
      name: `${person.firstName} ${person.lastName}`.trim(),
      email: invitation.email,
      role: invitation.role,
      invitedBy: invitation.invited_by,
    });
    return {
      userId: user!.id,
      organizationId: invitation.organization_id,
      email: invitation.email,
      role: invitation.role,
      // Console staff (issue 74): they set up two-factor sign-in first, then land in the console.
      staff: invitation.platform_role !== null,
    };
  });
  await recordActivity({
    organizationId: accepted.organizationId,
    userId: accepted.userId,
    type: "settings",
    status: "success",
    action: "Invitation accepted",
    details: englishOf(words("app_activity_detail_member_joined", { email: accepted.email, role: roleWords(accepted.role) })),
    meta,
  });
  return accepted;
}
