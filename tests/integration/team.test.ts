import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { roleOf } from "~/.server/domains/auth/permissions";
import { changeMemberRole, listMembers, removeMember, transferOwnership, type Actor } from "~/.server/domains/team/members";
import {
  acceptInvitation,
  INVITATION_DAYS,
  invitationByToken,
  inviteMember,
  listOpenInvitations,
  resendInvitation,
  revokeInvitation,
} from "~/.server/domains/team/invitations";
import { TEAM_MESSAGES } from "~/.server/domains/team/refusals";
import { platformOverview } from "~/.server/domains/admin/overview/figures";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { loader as developersLoader } from "~/routes/app/developers";
import { loader as campaignsLoader } from "~/routes/app/messaging/campaigns";
import { action as teamAction } from "~/routes/app/settings/team";
import { createVerifiedUser, latestMailTo, META, signedInCookie, uniqueEmail } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { detailsInWords } from "~/.server/domains/activity/words";

// Issue 15: an organisation's team. Roles live on the member (users.org_role) and are read with the
// session on every request; invitations are single-use links by e-mail, valid for 7 days.

const DAY = 24 * 3600_000;

// Invitation mail goes out from a job (team/invitations.ts); tests run it with drainJobs().
registerJobHandlers();

/** The actor the guards would resolve for a user, with their role as stored. */
async function actorFor(userId: string): Promise<Actor> {
  const [row] = await rawQuery<{
    id: string;
    email: string;
    first_name: string;
    last_name: string;
    usertype: "individual" | "admin";
    org_role: "owner" | "admin" | "agent" | "viewer";
    organization_id: string;
    name: string;
  }>(
    `select u.id, u.email, u.first_name, u.last_name, u.usertype, u.org_role, u.organization_id, o.name
     from users u join organizations o on o.id = u.organization_id where u.id = $1`,
    [userId],
  );
  return {
    user: { id: row!.id, email: row!.email, firstName: row!.first_name, lastName: row!.last_name },
    organization: { id: row!.organization_id, name: row!.name },
    role: roleOf({ usertype: row!.usertype, orgRole: row!.org_role }),
  };
}

/** The link's token from the newest invitation mailed to `email`. */
async function mailedToken(email: string) {
  // Invitations are mailed by a job (an SMTP failure never fails the request).
  await drainJobs();
  const mail = await latestMailTo(email);
  const token = mail?.textBody.match(/\/invitations\/([\w-]+)/)?.[1];
  if (!token) throw new Error(`no invitation mailed to ${email}`);
  return { token, mail: mail! };
}

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isRefusal(error, "team")) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}

/** An owner with a member who joined by invitation in `role`. */
async function teamWith(role: "admin" | "agent" | "viewer") {
  const owner = await createVerifiedUser({ businessName: "Nyota Sacco" });
  const ownerActor = await actorFor(owner.user.id);
  const email = uniqueEmail("member");
  await inviteMember(ownerActor, { email, role }, META);
  const { token } = await mailedToken(email);
  const joined = await acceptInvitation(token, { firstName: "Wanjiru", lastName: "Kamau", password: "Member#Pass1" }, META);
  return { owner, ownerActor, member: { id: joined.userId, email, password: "Member#Pass1" }, memberActor: await actorFor(joined.userId) };
}

describe("the team", () => {
  it("makes the person who signs up the one owner, and the database refuses a second", async () => {
    const owner = await createVerifiedUser();
    expect((await actorFor(owner.user.id)).role).toBe("owner");
    const { member } = await teamWith("admin");
    await expect(rawQuery(`update users set org_role = 'owner' where id = $1`, [member.id])).rejects.toThrow(/users_one_owner_key/);
    await expect(rawQuery(`update users set org_role = 'boss' where id = $1`, [member.id])).rejects.toThrow(/users_org_role_check/);
  });

  it("invites by e-mail: a single-use link that makes a verified member with the role, who signs in with it", async () => {
    const platform = platformScope({ role: "platform_admin" });
    const before = (await platformOverview(platform)).kpis;
    const owner = await createVerifiedUser({ businessName: "Kaunti ya Nakuru" });
    const actor = await actorFor(owner.user.id);
    const email = uniqueEmail("Agent.Otieno");
    await inviteMember(actor, { email: `  ${email.toUpperCase()} `, role: "agent" }, META);
    const { token, mail } = await mailedToken(email.toLowerCase());
    expect(mail.subject).toBe("Test User invited you to Kaunti ya Nakuru on Jumbe");
    expect(mail.textBody).toContain("as an agent");
    expect(await listOpenInvitations(owner.organization.id)).toMatchObject([{ email: email.toLowerCase(), role: "agent", expired: false }]);
    // Only the link's hash is stored.
    const [stored] = await rawQuery<{ token_hash: string }>(`select token_hash from invitations where organization_id = $1`, [
      owner.organization.id,
    ]);
    expect(stored!.token_hash).not.toContain(token);
    expect(await invitationByToken(token)).toMatchObject({ state: "open", organization: "Kaunti ya Nakuru", role: "agent" });

    const joined = await acceptInvitation(token, { firstName: "Brian", lastName: "Otieno", password: "Agent#Pass12" }, META);
    expect(joined).toMatchObject({ organizationId: owner.organization.id, role: "agent" });
    expect((await listMembers(owner.organization.id)).map((m) => [m.name, m.role])).toEqual([
      ["Test User", "owner"],
      ["Brian Otieno", "agent"],
    ]);
    expect(await listOpenInvitations(owner.organization.id)).toEqual([]);
    // The admin console's Overview counts one more organisation (the owner's sign-up): joining by invitation makes none.
    const after = (await platformOverview(platform)).kpis;
    expect(after.organizations - before.organizations).toBe(1);
    // Used once: the link is closed, and accepting again changes nothing.
    expect(await invitationByToken(token)).toMatchObject({ state: "accepted" });
    expect(await refusal(acceptInvitation(token, { firstName: "X", lastName: "Y", password: "Another#Pass1" }))).toMatchObject({
      status: 410,
      code: "invitation_closed",
    });
    expect(await listMembers(owner.organization.id)).toHaveLength(2);

    // The agent signs in and meets the role's limits on the server.
    const cookie = await signedInCookie(email.toLowerCase(), "Agent#Pass12");
    expect((await run(campaignsLoader, getRequest("/messaging", { cookie }))).status).toBe(200);
    expect((await run(developersLoader, getRequest("/developers", { cookie }))).location).toBe("/unauthorized");
    expect(await refusal(inviteMember(await actorFor(joined.userId), { email: uniqueEmail(), role: "viewer" }))).toMatchObject({
      status: 403,
      code: "forbidden",
    });
  });

  it("answers the team page's forms with the reason at the field, or 403 for a role that may not change the team", async () => {
    const { owner, member } = await teamWith("viewer");
    const ownerCookie = await signedInCookie(owner.email, owner.password);
    const taken = await run(
      teamAction,
      formRequest("/settings/team", { intent: "invite", email: member.email, role: "agent" }, { cookie: ownerCookie }),
    );
    expect(taken.status).toBe(409);
    expect(taken.data.result.error).toEqual({ email: [TEAM_MESSAGES.alreadyMember] });
    const bad = await run(
      teamAction,
      formRequest("/settings/team", { intent: "invite", email: "not-an-address", role: "boss" }, { cookie: ownerCookie }),
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.data.result.error).sort()).toEqual(["email", "role"]);

    const viewerCookie = await signedInCookie(member.email, member.password);
    const refused = await run(
      teamAction,
      formRequest("/settings/team", { intent: "invite", email: uniqueEmail(), role: "agent" }, { cookie: viewerCookie }),
    );
    expect(refused.status).toBe(403);
    expect(refused.data.toast.message).toBe(TEAM_MESSAGES.forbidden);
    expect(await listOpenInvitations(owner.organization.id)).toEqual([]);
  });

  it("refuses an expired link, an unknown one, and an address that already has an account", async () => {
    const owner = await createVerifiedUser();
    const actor = await actorFor(owner.user.id);
    const email = uniqueEmail("late");
    await inviteMember(actor, { email, role: "viewer" }, META);
    const { token } = await mailedToken(email);
    // A day past its 7 days.
    const later = new Date(Date.now() + (INVITATION_DAYS + 1) * DAY);
    expect(await invitationByToken(token, later)).toMatchObject({ state: "expired" });
    expect((await listOpenInvitations(owner.organization.id, later))[0]).toMatchObject({ expired: true });
    expect(await refusal(acceptInvitation(token, { firstName: "A", lastName: "B", password: "Viewer#Pass1" }, META, later))).toMatchObject({
      status: 410,
      code: "invitation_expired",
    });
    expect(await invitationByToken("no-such-token")).toBeNull();
    expect(await refusal(acceptInvitation("no-such-token", { firstName: "A", lastName: "B", password: "Viewer#Pass1" }))).toMatchObject({
      status: 404,
    });

    const elsewhere = await createVerifiedUser();
    expect(await refusal(inviteMember(actor, { email: elsewhere.email, role: "agent" }))).toMatchObject({
      status: 409,
      code: "account_exists",
    });
    expect(await refusal(inviteMember(actor, { email: owner.email, role: "agent" }))).toMatchObject({
      status: 409,
      code: "already_member",
    });
    // An invitation outstanding when the address signs up elsewhere cannot be used any more.
    const racer = uniqueEmail("racer");
    await inviteMember(actor, { email: racer, role: "agent" }, META);
    const racerLink = await mailedToken(racer);
    await createVerifiedUser({ email: racer });
    expect(await refusal(acceptInvitation(racerLink.token, { firstName: "A", lastName: "B", password: "Racer#Pass12" }))).toMatchObject({
      status: 409,
      code: "account_exists",
    });
  });

  it("resends with a new link (the old one stops working), and a withdrawn invitation opens nothing", async () => {
    const owner = await createVerifiedUser();
    const actor = await actorFor(owner.user.id);
    const email = uniqueEmail("resend");
    const { id } = await inviteMember(actor, { email, role: "agent" }, META);
    const first = (await mailedToken(email)).token;
    await resendInvitation(actor, id, META);
    const second = (await mailedToken(email)).token;
    expect(second).not.toBe(first);
    expect(await invitationByToken(first)).toBeNull();
    expect(await invitationByToken(second)).toMatchObject({ state: "open" });
    // Inviting the same address again is the same invitation, with the role now chosen.
    expect((await inviteMember(actor, { email, role: "admin" }, META)).id).toBe(id);
    const third = (await mailedToken(email)).token;
    expect(await invitationByToken(third)).toMatchObject({ state: "open", role: "admin" });

    // Another tenant's owner cannot touch it.
    const other = await actorFor((await createVerifiedUser()).user.id);
    expect(await refusal(revokeInvitation(other, id))).toMatchObject({ status: 404 });
    expect(await refusal(resendInvitation(other, "not-a-uuid"))).toMatchObject({ status: 404 });

    await revokeInvitation(actor, id, META);
    expect(await invitationByToken(third)).toMatchObject({ state: "revoked" });
    expect(await refusal(acceptInvitation(third, { firstName: "A", lastName: "B", password: "Revoked#Pass1" }))).toMatchObject({
      status: 410,
    });
    expect(await refusal(resendInvitation(actor, id))).toMatchObject({ status: 409, code: "invitation_closed" });
    expect(await listOpenInvitations(owner.organization.id)).toEqual([]);
  });

  it("changes roles at once for the member's next request; the owner's and one's own role stay", async () => {
    const { ownerActor, member, owner } = await teamWith("admin");
    const cookie = await signedInCookie(member.email, member.password);
    expect((await run(developersLoader, getRequest("/developers", { cookie }))).status).toBe(200);
    await changeMemberRole(ownerActor, member.id, "viewer", META);
    expect((await run(developersLoader, getRequest("/developers", { cookie }))).location).toBe("/unauthorized");

    // Now a viewer, they may change nobody's role.
    expect(await refusal(changeMemberRole(await actorFor(member.id), owner.user.id, "agent"))).toMatchObject({ status: 403 });
    expect(await refusal(changeMemberRole(ownerActor, owner.user.id, "agent"))).toMatchObject({ status: 409, code: "not_yourself" });
    const admin = await teamWithAdminBeside(ownerActor);
    expect(await refusal(changeMemberRole(admin, owner.user.id, "agent"))).toMatchObject({ status: 409, code: "owner_fixed" });
    const stranger = await actorFor((await createVerifiedUser()).user.id);
    expect(await refusal(changeMemberRole(stranger, member.id, "admin"))).toMatchObject({ status: 404 });
    expect((await listMembers(owner.organization.id)).find((m) => m.id === member.id)?.role).toBe("viewer");
  });

  it("removes a member: their sessions end at once; the owner cannot be removed", async () => {
    const { ownerActor, member, owner } = await teamWith("agent");
    const cookie = await signedInCookie(member.email, member.password);
    expect((await run(campaignsLoader, getRequest("/messaging", { cookie }))).status).toBe(200);
    const admin = await teamWithAdminBeside(ownerActor);
    expect(await refusal(removeMember(admin, owner.user.id))).toMatchObject({ status: 409, code: "owner_fixed" });
    await removeMember(admin, member.id, META);
    expect((await run(campaignsLoader, getRequest("/messaging", { cookie }))).location).toMatch(/^\/login/);
    expect(await rawQuery(`select 1 from sessions s join users u on u.id = s.user_id where u.email = $1`, [member.email])).toEqual([]);
    expect((await listMembers(owner.organization.id)).map((m) => m.email)).not.toContain(member.email);
    const [logged] = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and action = 'Member removed'`,
      [owner.organization.id],
    );
    expect(logged).toEqual({ action: "Member removed", details: `${member.email} (Agent)` });
    // Stored in English whatever the remover read; the log says the role in its reader's words (issue 43).
    expect(inLocale("sw", () => detailsInWords(logged!.details))).toBe(`${member.email} (Mhudumu)`);
    expect(inLocale("fr", () => detailsInWords(logged!.details))).toBe(`${member.email} (Agent)`);
  });

  it("hands the ownership over with the owner's password, keeping exactly one owner", async () => {
    const { owner, ownerActor, member, memberActor } = await teamWith("admin");
    expect(await refusal(transferOwnership(memberActor, owner.user.id, member.password))).toMatchObject({ status: 403 });
    expect(await refusal(transferOwnership(ownerActor, member.id, "wrong password"))).toMatchObject({
      status: 400,
      code: "wrong_password",
    });
    expect((await listMembers(owner.organization.id)).map((m) => m.role)).toEqual(["owner", "admin"]);

    await transferOwnership(ownerActor, member.id, owner.password, META);
    const members = await listMembers(owner.organization.id);
    expect(members.map((m) => [m.email, m.role])).toEqual([
      [member.email, "owner"],
      [owner.email, "admin"],
    ]);
    // The former owner, now an admin, cannot hand it over again.
    expect(await refusal(transferOwnership(await actorFor(owner.user.id), member.id, owner.password))).toMatchObject({ status: 403 });
    // A stale actor (read before the handover) is refused by the database's own check.
    expect(await refusal(transferOwnership(ownerActor, member.id, owner.password))).toMatchObject({ status: 403 });
    expect(members.filter((m) => m.role === "owner")).toHaveLength(1);
  });
});

/** A second member, an admin, in the same organisation as `ownerActor`. */
async function teamWithAdminBeside(ownerActor: Actor) {
  const email = uniqueEmail("admin");
  await inviteMember(ownerActor, { email, role: "admin" }, META);
  const { token } = await mailedToken(email);
  const joined = await acceptInvitation(token, { firstName: "Halima", lastName: "Abdi", password: "Admin#Pass12" }, META);
  return actorFor(joined.userId);
}
