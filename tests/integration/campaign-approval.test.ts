import { describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { saveContact } from "~/.server/domains/contacts/manage";
import { roleOf } from "~/.server/domains/auth/permissions";
import { cancelCampaign, confirmCampaign, type CampaignInput } from "~/.server/domains/campaigns/lifecycle";
import { approveCampaign, declineCampaign, type Approver } from "~/.server/domains/campaigns/approval";
import { feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { getCampaign, listCampaigns } from "~/.server/domains/campaigns/queries";
import { setBroadcastApproval } from "~/.server/domains/team/broadcast-approval";
import type { Actor as TeamActor } from "~/.server/domains/team/members";
import { action as campaignAction, loader as campaignLoader } from "~/routes/app/messaging/campaigns/campaign";
import { action as teamAction, loader as teamLoader } from "~/routes/app/settings/team";
import { loader as campaignsLoader } from "~/routes/app/messaging/campaigns";
import { createVerifiedUser, META, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, routeArgs, run } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, metaReceived, recipient, setBucketRate } from "../support/sending-kit";
import { isRefusal } from "~/.server/infrastructure/refusal";

// Issue 15's maker-checker (decision 033): with broadcast approval on, a campaign or broadcast to
// more recipients than the owner's threshold waits in "awaiting_approval" until an owner or admin
// other than its author approves it (it then sends through the sandbox) or declines it with a reason.

const meta = metaSandboxForFile();

type Role = "owner" | "admin" | "agent" | "viewer";
interface Person {
  userId: string;
  email: string;
  password: string;
  role: Role;
  organizationId: string;
}

/** An organisation with a connected number, an approved utility template and its owner. */
async function organisation(name = "Kaunti ya Nakuru") {
  const owner = await createVerifiedUser({ businessName: name });
  const connection = await meta.graph.connect(owner.organization.id, name);
  const t = { organizationId: owner.organization.id, userId: owner.user.id, ...connection };
  await approvedBodyTemplate(meta.graph, t, "water_notice", "UTILITY", "Habari {{1}}, water will be off on {{2}}.");
  const people: Person = {
    userId: owner.user.id,
    email: owner.email,
    password: owner.password,
    role: "owner",
    organizationId: t.organizationId,
  };
  return { ...t, owner: people };
}
type Org = Awaited<ReturnType<typeof organisation>>;

/** A member of the organisation in `role` (an account moved into it: the team tests cover invitations). */
async function member(org: Org, role: Exclude<Role, "owner">, firstName: string, lastName: string): Promise<Person> {
  const account = await createVerifiedUser();
  await rawQuery(`update users set organization_id = $2, org_role = $3, first_name = $4, last_name = $5 where id = $1`, [
    account.user.id,
    org.organizationId,
    role,
    firstName,
    lastName,
  ]);
  return { userId: account.user.id, email: account.email, password: account.password, role, organizationId: org.organizationId };
}

const teamActor = (p: Person): TeamActor => ({
  user: { id: p.userId, email: p.email, firstName: "Test", lastName: "User" },
  organization: { id: p.organizationId, name: "Org" },
  role: roleOf({ usertype: "individual", orgRole: p.role }),
});
const approver = (p: Person): Approver => ({ organizationId: p.organizationId, userId: p.userId, role: p.role, meta: META });

const input = (phones: string[], extra: Partial<CampaignInput> = {}): CampaignInput => ({
  name: "Nakuru water rationing",
  template: { name: "water_notice" },
  parameters: { body: [{ field: "first_name", fallback: "Mteja" }, { value: "Tuesday" }] },
  audience: { phones },
  ...extra,
});
const phones = (from: number, n: number) => Array.from({ length: n }, (_, i) => recipient(from + i));

const row = async (id: string) =>
  (
    await rawQuery<{
      status: string;
      audience_size: number | null;
      started_at: Date | null;
      approved_by: string | null;
      approved_at: Date | null;
      declined_by: string | null;
      decline_reason: string | null;
    }>(`select * from campaigns where id = $1`, [id])
  )[0]!;
const messagesOf = async (id: string) =>
  (await rawQuery<{ n: number }>(`select count(*)::int as n from messages where campaign_id = $1`, [id]))[0]!.n;
const activity = async (organizationId: string, action: string) =>
  rawQuery<{ user_id: string | null; details: string }>(
    `select user_id, details from activity_logs where organization_id = $1 and action = $2 order by created_at`,
    [organizationId, action],
  );

async function refusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "campaign") || isRefusal(error, "team"))
      return { status: error.status, code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

/** Feeds and dispatches until the campaign has ended. */
async function runToTheEnd(org: Org, id: string) {
  await setBucketRate(org.phoneNumberId, 1000);
  await vi.waitFor(
    async () => {
      await feedCampaigns();
      await drainDispatcher();
      await drainJobs();
      expect((await row(id)).status).toBe("completed");
    },
    { timeout: 30_000, interval: 20 },
  );
}

/** The campaign page's action as a browser without JavaScript posts it. */
async function postToCampaign(person: Person, id: string, fields: Record<string, string>) {
  const cookie = await signedInCookie(person.email, person.password);
  const request = formRequest(`/messaging/campaigns/${id}`, fields, { cookie });
  let value: unknown;
  try {
    value = await campaignAction(routeArgs(request, { id }));
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response) return { status: value.status, data: await value.text(), location: value.headers.get("location") };
  const wrapped = value as {
    data: { result?: { error?: Record<string, string[]> }; toast?: { message: string } };
    init?: { status?: number };
  };
  return { status: wrapped.init?.status ?? 200, data: wrapped.data, location: null };
}

describe("the setting", () => {
  it("is the owner's alone: validated, logged, and shown to every member", async () => {
    const org = await organisation();
    const admin = await member(org, "admin", "Grace", "Wanjiru");
    const viewer = await member(org, "viewer", "Peter", "Kiprono");

    // An admin approves campaigns but cannot switch the check off or on.
    expect(await refusal(setBroadcastApproval(teamActor(admin), 10, META))).toMatchObject({ status: 403, code: "forbidden" });
    const adminPost = await run(
      teamAction,
      formRequest(
        "/settings/team",
        { intent: "approval", enabled: "on", threshold: "10" },
        { cookie: await signedInCookie(admin.email, admin.password) },
      ),
    );
    expect(adminPost.status).toBe(403);

    // The owner's form: a bad number is refused at the field, and nothing changes.
    const ownerCookie = await signedInCookie(org.owner.email, org.owner.password);
    for (const threshold of ["", "12.5", "-3", "1000001", "lots"]) {
      const bad = await run(
        teamAction,
        formRequest("/settings/team", { intent: "approval", enabled: "on", threshold }, { cookie: ownerCookie }),
      );
      expect(bad.status, threshold).toBe(400);
      expect(bad.data.result.error.threshold, threshold).toEqual([
        threshold ? "Give a whole number from 0 to 1,000,000." : "Give the number of recipients above which a campaign needs approval.",
      ]);
    }
    const [before] = await rawQuery<{ approval_threshold: number | null }>(`select approval_threshold from organizations where id = $1`, [
      org.organizationId,
    ]);
    expect(before!.approval_threshold).toBeNull();

    const on = await run(
      teamAction,
      formRequest("/settings/team", { intent: "approval", enabled: "on", threshold: "1,500" }, { cookie: ownerCookie }),
    );
    expect(on.status).toBe(302);
    const viewerPage = await run(teamLoader, getRequest("/settings/team", { cookie: await signedInCookie(viewer.email, viewer.password) }));
    expect(viewerPage.data).toMatchObject({ approvalThreshold: 1500, canConfigureApproval: false });
    expect(viewerPage.data.approvalWords).toContain("on for more than 1,500 recipients");

    // Off again: the threshold is ignored.
    await run(teamAction, formRequest("/settings/team", { intent: "approval", threshold: "9" }, { cookie: ownerCookie }));
    const ownerPage = await run(teamLoader, getRequest("/settings/team", { cookie: ownerCookie }));
    expect(ownerPage.data).toMatchObject({ approvalThreshold: null, canConfigureApproval: true });
    expect((await activity(org.organizationId, "Broadcast approval turned on")).map((a) => a.user_id)).toEqual([org.owner.userId]);
    expect(await activity(org.organizationId, "Broadcast approval turned off")).toHaveLength(1);
  });
});

describe("waiting for approval", () => {
  it("holds a campaign above the threshold, not one at or below it, nor any when approval is off", async () => {
    const org = await organisation();
    const agent = await member(org, "agent", "Brian", "Otieno");
    const by = { organizationId: org.organizationId, userId: agent.userId, meta: META };

    // Off: three recipients start at once.
    expect((await confirmCampaign(by, input(phones(1, 3)))).status).toBe("sending");

    await setBroadcastApproval(teamActor(org.owner), 2, META);
    const below = await confirmCampaign(by, input(phones(10, 1)));
    const at = await confirmCampaign(by, input([...phones(20, 2), "12"])); // the invalid number is left out, not counted
    const above = await confirmCampaign(by, input(phones(30, 3)));
    expect([below.status, at.status, above.status]).toEqual(["sending", "sending", "awaiting_approval"]);
    // Its audience is frozen (approving sends exactly those), but it has not started and nothing is queued.
    expect(await row(above.id)).toMatchObject({ status: "awaiting_approval", audience_size: 3, started_at: null });
    await feedCampaigns();
    await drainDispatcher();
    expect(await messagesOf(above.id)).toBe(0);
    expect((await row(above.id)).status).toBe("awaiting_approval");

    // One scheduled above the threshold waits too, counted now with the engine's rules.
    const scheduled = await confirmCampaign(by, input(phones(40, 3), { scheduledFor: new Date(Date.now() + 3_600_000) }));
    expect(scheduled.status).toBe("awaiting_approval");
    expect(await row(scheduled.id)).toMatchObject({ audience_size: null });

    // The page and the list say so; the list's status filter finds them.
    const view = await getCampaign(org.organizationId, above.id);
    expect(view.status).toBe("awaiting_approval");
    expect(view.createdBy).toEqual({ id: agent.userId, name: "Brian Otieno" });
    expect(view.approval).toMatchObject({ requestedAt: expect.any(String), approvedBy: null, declinedBy: null });
    const waiting = await listCampaigns(org.organizationId, { status: "awaiting_approval" });
    expect(waiting.campaigns.map((c) => c.id).sort()).toEqual([above.id, scheduled.id].sort());
    const listPage = await run(
      campaignsLoader,
      getRequest("/messaging?status=awaiting_approval", { cookie: await signedInCookie(agent.email, agent.password) }),
    );
    expect(listPage.data.status).toBe("awaiting_approval");
    expect(listPage.data.page.campaigns).toHaveLength(2);
    const requested = await activity(org.organizationId, "Campaign awaiting approval");
    expect(requested.map((a) => a.details)).toEqual([
      "Nakuru water rationing: 3 recipients, more than the approval threshold of 2. An owner or admin other than its author must approve it.",
      "Nakuru water rationing: 3 recipients, more than the approval threshold of 2. An owner or admin other than its author must approve it.",
    ]);

    // Its author can still cancel it: nobody is sent to.
    await cancelCampaign(by, above.id);
    expect((await row(above.id)).status).toBe("cancelled");
    expect(await messagesOf(above.id)).toBe(0);
  });

  it("holds a scheduled campaign whose audience grew past the threshold by its time, until approved", async () => {
    const org = await organisation();
    const by = { organizationId: org.organizationId, userId: org.owner.userId };
    await setBroadcastApproval(teamActor(org.owner), 2, META);
    for (const [i, name] of ["Amina Wekesa", "Baraka Otieno"].entries())
      await saveContact(org, { name, phone: recipient(50 + i), tags: ["ward"] });
    const scheduled = await confirmCampaign(
      by,
      input([], { audience: { tags: ["ward"] }, scheduledFor: new Date(Date.now() + 3_600_000) }),
    );
    expect(scheduled.status).toBe("scheduled");
    await saveContact(org, { name: "Chebet Kiprop", phone: recipient(52), tags: ["ward"] });
    await rawQuery(`update campaigns set scheduled_for = now() - interval '1 minute' where id = $1`, [scheduled.id]);
    await feedCampaigns();
    expect(await row(scheduled.id)).toMatchObject({ status: "awaiting_approval", audience_size: 3, started_at: null });
    expect(await messagesOf(scheduled.id)).toBe(0);

    const admin = await member(org, "admin", "Grace", "Wanjiru");
    expect(await approveCampaign(approver(admin), scheduled.id)).toEqual({ outcome: "sending" });
    await runToTheEnd(org, scheduled.id);
    expect((await metaReceived(meta.graph, org.phoneNumberId)).map((m) => m.to).sort()).toEqual(phones(50, 3).sort());
  });
});

describe("deciding", () => {
  it("refuses the author, agents, viewers and other tenants; another admin approves and it sends through the sandbox", async () => {
    const org = await organisation();
    const author = await member(org, "admin", "Grace", "Wanjiru");
    const agent = await member(org, "agent", "Brian", "Otieno");
    const viewer = await member(org, "viewer", "Peter", "Kiprono");
    await setBroadcastApproval(teamActor(org.owner), 1, META);
    const { id, status } = await confirmCampaign(
      { organizationId: org.organizationId, userId: author.userId, meta: META },
      input(phones(60, 3), { kind: "broadcast", name: "Quick broadcast: water_notice" }),
    );
    expect(status).toBe("awaiting_approval");

    // The author, even an admin: refused on the server, and the page hides the buttons.
    expect(await refusal(approveCampaign(approver(author), id))).toMatchObject({ status: 403, code: "own_campaign" });
    const own = await postToCampaign(author, id, { intent: "approve" });
    expect(own.status).toBe(403);
    expect(JSON.stringify(own.data)).toContain("You made this campaign, so you cannot approve or decline it");
    const authorPage = await campaignLoader(
      routeArgs(getRequest(`/messaging/campaigns/${id}`, { cookie: await signedInCookie(author.email, author.password) }), { id }),
    );
    expect(authorPage).toMatchObject({ isAuthor: true, canDecide: false });
    // Agents and viewers cannot decide (403), whatever they post.
    for (const person of [agent, viewer]) {
      expect((await postToCampaign(person, id, { intent: "approve" })).status).toBe(403);
      expect((await postToCampaign(person, id, { intent: "decline", reason: "No" })).status).toBe(403);
    }
    // Another organisation's owner: not found.
    const other = await organisation("Kaunti ya Kisumu");
    expect((await postToCampaign(other.owner, id, { intent: "approve" })).status).toBe(404);
    expect(await refusal(approveCampaign(approver(other.owner), id))).toMatchObject({ status: 404 });
    expect((await row(id)).status).toBe("awaiting_approval");

    // The owner sees Approve and Decline, approves through the page, and it sends.
    const ownerPage = await campaignLoader(
      routeArgs(getRequest(`/messaging/campaigns/${id}`, { cookie: await signedInCookie(org.owner.email, org.owner.password) }), { id }),
    );
    expect(ownerPage).toMatchObject({ isAuthor: false, canDecide: true });
    const approved = await postToCampaign(org.owner, id, { intent: "approve" });
    expect(approved).toMatchObject({ status: 302, location: `/messaging/campaigns/${id}` });
    expect(await row(id)).toMatchObject({ status: "sending", approved_by: org.owner.userId, approved_at: expect.any(Date) });
    await runToTheEnd(org, id);
    expect((await metaReceived(meta.graph, org.phoneNumberId)).map((m) => m.to).sort()).toEqual(phones(60, 3).sort());
    const view = await getCampaign(org.organizationId, id);
    expect(view.approval).toMatchObject({ approvedBy: "Test User", approvedAt: expect.any(String), requestedAt: null });
    expect((await activity(org.organizationId, "Broadcast approved")).map((a) => a.user_id)).toEqual([org.owner.userId]);
    // Decided once: a second approval is refused.
    expect(await refusal(approveCampaign(approver(org.owner), id))).toMatchObject({ status: 409, code: "campaign_state" });
  });

  it("starts a campaign approved twice at once only once", async () => {
    const org = await organisation();
    const author = await member(org, "agent", "Brian", "Otieno");
    const first = await member(org, "admin", "Grace", "Wanjiru");
    await setBroadcastApproval(teamActor(org.owner), 2, META);
    const { id } = await confirmCampaign({ organizationId: org.organizationId, userId: author.userId }, input(phones(70, 4)));
    const results = await Promise.allSettled([approveCampaign(approver(org.owner), id), approveCampaign(approver(first), id)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ status: 409, code: "campaign_state" });
    await runToTheEnd(org, id);
    const received = (await metaReceived(meta.graph, org.phoneNumberId)).map((m) => m.to);
    expect(received.sort()).toEqual(phones(70, 4).sort());
    expect(await activity(org.organizationId, "Campaign approved")).toHaveLength(1);
  });

  it("declines with a required reason: cancelled, nobody sent to, who and why on the page", async () => {
    const org = await organisation();
    const author = await member(org, "agent", "Brian", "Otieno");
    const admin = await member(org, "admin", "Grace", "Wanjiru");
    await setBroadcastApproval(teamActor(org.owner), 0, META);
    const { id, status } = await confirmCampaign({ organizationId: org.organizationId, userId: author.userId }, input(phones(80, 2)));
    expect(status).toBe("awaiting_approval");

    // No reason: 400 at the field, nothing changed.
    const empty = await postToCampaign(admin, id, { intent: "decline", reason: "   " });
    expect(empty.status).toBe(400);
    expect((empty.data as { result: { error: Record<string, string[]> } }).result.error.reason).toEqual([
      "Say why you decline it: the author reads it.",
    ]);
    expect((await row(id)).status).toBe("awaiting_approval");

    const declined = await postToCampaign(admin, id, { intent: "decline", reason: "Wrong date: the water is off on Wednesday." });
    expect(declined.status).toBe(302);
    expect(await row(id)).toMatchObject({
      status: "cancelled",
      declined_by: admin.userId,
      decline_reason: "Wrong date: the water is off on Wednesday.",
      approved_by: null,
    });
    await feedCampaigns();
    await drainDispatcher();
    expect(await messagesOf(id)).toBe(0);
    const view = await getCampaign(org.organizationId, id);
    expect(view.approval).toMatchObject({ declinedBy: "Grace Wanjiru", declineReason: "Wrong date: the water is off on Wednesday." });
    expect(view.leftOut).toEqual({ cancelled: 2 });
    expect((await activity(org.organizationId, "Campaign declined")).map((a) => [a.user_id, a.details])).toEqual([
      [admin.userId, "Nakuru water rationing: Wrong date: the water is off on Wednesday."],
    ]);
    expect(await refusal(declineCampaign(approver(org.owner), id, "Again"))).toMatchObject({ status: 409 });
    // The bells: the request went to the owner and the admin (not the author), the decision to the author alone.
    const bells = await rawQuery<{ user_id: string; event: string; title: string }>(
      `select user_id, event, title from notifications where organization_id = $1 and event like 'approval_%' order by created_at, user_id`,
      [org.organizationId],
    );
    expect(
      bells
        .filter((b) => b.event === "approval_requested")
        .map((b) => b.user_id)
        .sort(),
    ).toEqual([admin.userId, org.owner.userId].sort());
    expect(bells.filter((b) => b.event === "approval_decided")).toEqual([
      { user_id: author.userId, event: "approval_decided", title: "Campaign declined: Nakuru water rationing" },
    ]);
  });

  it("approving a scheduled one keeps its time; one whose time has passed sends now", async () => {
    const org = await organisation();
    const author = await member(org, "agent", "Brian", "Otieno");
    await setBroadcastApproval(teamActor(org.owner), 1, META);
    const later = new Date(Date.now() + 2 * 3_600_000);
    const ahead = await confirmCampaign(
      { organizationId: org.organizationId, userId: author.userId },
      input(phones(90, 2), { scheduledFor: later }),
    );
    const passed = await confirmCampaign(
      { organizationId: org.organizationId, userId: author.userId },
      input(phones(95, 2), { scheduledFor: new Date(Date.now() + 3_600_000) }),
    );
    await rawQuery(`update campaigns set scheduled_for = now() - interval '5 minutes' where id = $1`, [passed.id]);
    expect(await approveCampaign(approver(org.owner), ahead.id)).toEqual({ outcome: "scheduled" });
    expect(await row(ahead.id)).toMatchObject({ status: "scheduled", approved_by: org.owner.userId });
    expect(await approveCampaign(approver(org.owner), passed.id)).toEqual({ outcome: "sending" });
    await runToTheEnd(org, passed.id);
    // Started at its (approved) time with its audience frozen then: approval is not asked for again.
    expect((await row(ahead.id)).status).toBe("scheduled");
    expect((await metaReceived(meta.graph, org.phoneNumberId)).map((m) => m.to).sort()).toEqual(phones(95, 2).sort());
  });
});
