import { Refusal } from "~/.server/infrastructure/refusal";
import { describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { roleOf } from "~/.server/domains/auth/permissions";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { notify, NOTIFICATION_MAIL_QUEUE } from "~/.server/domains/notifications/notify";
import { bellOf, listNotifications, markAllRead, markRead } from "~/.server/domains/notifications/queries";
import { readEmailRules, saveEmailRules } from "~/.server/domains/notifications/rules";
import { notifyNewDeviceSignIn } from "~/.server/domains/notifications/new-device";
import { createCampaign, pauseCampaign } from "~/.server/domains/campaigns/lifecycle";
import { feedCampaign, feedCampaigns } from "~/.server/domains/campaigns/feeder";
import { changeMemberRole, type Actor } from "~/.server/domains/team/members";
import { acceptInvitation, inviteMember } from "~/.server/domains/team/invitations";
import { loader as eventsLoader } from "~/routes/app/notifications/events";
import { loader as openLoader } from "~/routes/app/notifications/open";
import { action as listAction, loader as listLoader } from "~/routes/app/notifications/index";
import { action as rulesAction, loader as rulesLoader } from "~/routes/app/settings/notifications";
import { createVerifiedUser, latestMailTo, META, signedInCookie, uniqueEmail } from "../support/accounts";
import { formRequest, getRequest, routeArgs, run } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";
import { approvedBodyTemplate, recipient, setBucketRate } from "../support/sending-kit";
import { nextMillisecond } from "../support/clock";

// Issue 15's notifications (decision 031): one row per member and cause, e-mail by the
// organisation's rules through the job queue, the member's own list, and the real events that
// write them, on PGlite and PostgreSQL.

const meta = metaSandboxForFile();
const PASSWORD = "Member#Pass1";

/** An organisation with an owner, an admin, an agent and a viewer. */
async function team(name = "Nyota Sacco") {
  const owner = await createVerifiedUser({ businessName: name, password: PASSWORD });
  const passwordHash = await hashPassword(PASSWORD);
  const add = async (role: "admin" | "agent" | "viewer", firstName: string) => {
    const [user] = await db()
      .insert(users)
      .values({
        organizationId: owner.organization.id,
        email: uniqueEmail(role),
        firstName,
        lastName: "Otieno",
        passwordHash,
        isVerified: true,
        orgRole: role,
      })
      .returning();
    return user!;
  };
  return {
    organizationId: owner.organization.id,
    owner: owner.user,
    admin: await add("admin", "Akinyi"),
    agent: await add("agent", "Baraka"),
    viewer: await add("viewer", "Chebet"),
  };
}
type Team = Awaited<ReturnType<typeof team>>;

const actorOf = (t: Team, user: Team["owner"]): Actor => ({
  user: { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName },
  organization: { id: t.organizationId, name: "Nyota Sacco" },
  role: roleOf(user),
});

const rowsOf = (organizationId: string, event?: string) =>
  rawQuery<{ user_id: string; event: string; title: string; body: string; link: string | null; read_at: Date | null }>(
    `select user_id, event, title, body, link, read_at from notifications where organization_id = $1 ${event ? "and event = $2" : ""}
     order by created_at, title`,
    event ? [organizationId, event] : [organizationId],
  );

const mailJobs = async () =>
  (await rawQuery<{ n: number }>(`select count(*)::int as n from jobs where queue = $1`, [NOTIFICATION_MAIL_QUEUE]))[0]!.n;

const finished = (t: Team, key: string, extra: Partial<Parameters<typeof notify>[0]> = {}) =>
  notify({
    organizationId: t.organizationId,
    event: "campaign_finished",
    title: "Campaign finished: Water rationing",
    body: "400 sent, 0 failed.",
    link: "/messaging",
    dedupeKey: key,
    ...extra,
  });

describe("notify", () => {
  it("notifies the event's roles once per cause, leaves out the actor, and e-mails those the rule picks through the queue", async () => {
    const t = await team();
    expect(await finished(t, "k1")).toEqual({ notified: 2, mailed: 2 });
    // A retried job or webhook: the same key notifies nobody again and queues no second mail.
    expect(await finished(t, "k1")).toEqual({ notified: 0, mailed: 0 });
    expect((await rowsOf(t.organizationId)).map((r) => r.user_id).sort()).toEqual([t.owner.id, t.admin.id].sort());
    expect(await mailJobs()).toBe(2);
    // Nothing is mailed by the caller: the queue sends it.
    expect(await latestMailTo(t.owner.email)).toBeNull();
    await drainJobs();
    const mail = await latestMailTo(t.owner.email);
    expect(mail?.subject).toBe("Campaign finished: Water rationing");
    expect(mail?.textBody).toContain("400 sent, 0 failed.");
    expect(mail?.textBody).toContain("http://jumbe.test/messaging");
    expect(await latestMailTo(t.agent.email)).toBeNull();

    // The actor is left out.
    expect(await finished(t, "k2", { excludeUserId: t.owner.id })).toEqual({ notified: 1, mailed: 1 });
    // Named members are added to the roles; `roles: []` names only them.
    expect(await finished(t, "k3", { userIds: [t.agent.id] })).toEqual({ notified: 3, mailed: 2 });
    expect(await finished(t, "k4", { userIds: [t.viewer.id], roles: [] })).toEqual({ notified: 1, mailed: 0 });
    // Never a link to another site.
    await expect(finished(t, "k5", { link: "https://evil.example/phish" })).rejects.toThrow(/inside Jumbe/);
    await expect(finished(t, "k5", { link: "//evil.example" })).rejects.toThrow(/inside Jumbe/);
  });

  it("follows the organisation's rules: a ticked role sees it and is mailed, an unticked one only sees it", async () => {
    const t = await team();
    const owner = actorOf(t, t.owner);
    expect((await readEmailRules(t.organizationId)).campaign_finished).toEqual(["owner", "admin"]);
    expect(await saveEmailRules(owner, { campaign_finished: ["agent"], new_device_sign_in: [] }, META)).toBeGreaterThan(0);
    expect((await readEmailRules(t.organizationId)).campaign_finished).toEqual(["agent"]);
    expect(await finished(t, "rules")).toEqual({ notified: 3, mailed: 1 });
    await drainJobs();
    expect(await latestMailTo(t.agent.email)).not.toBeNull();
    expect(await latestMailTo(t.owner.email)).toBeNull();
    const [logged] = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'Notification settings changed'`,
      [t.organizationId],
    );
    expect(logged!.details).toContain("Campaign finished: Owner, Admin to Agent");
    // Agents and viewers cannot change them.
    await expect(saveEmailRules(actorOf(t, t.agent), { campaign_finished: [] })).rejects.toBeInstanceOf(Refusal);
    expect((await readEmailRules(t.organizationId)).campaign_finished).toEqual(["agent"]);
  });

  it("joins the caller's transaction: rolled back, neither the notification nor its mail exists", async () => {
    const t = await team();
    await expect(
      db().transaction(async (tx) => {
        await notify(
          { organizationId: t.organizationId, event: "quality_drop", title: "Quality flagged", dedupeKey: "tx", link: "/whatsapp" },
          tx,
        );
        throw new Error("the caller failed");
      }),
    ).rejects.toThrow("the caller failed");
    expect(await rowsOf(t.organizationId)).toEqual([]);
    expect(await mailJobs()).toBe(0);
  });
});

describe("the member's notifications", () => {
  it("lists newest first by pages, counts unread, marks one and all read, and answers 404 for anyone else's", async () => {
    const t = await team();
    const other = await team("Baraka Traders");
    for (let i = 1; i <= 25; i++) {
      await finished(t, `page-${i}`, { title: `Campaign ${String(i).padStart(2, "0")} finished` });
      await nextMillisecond();
    }
    const reader = { userId: t.owner.id, organizationId: t.organizationId };
    const first = await listNotifications(reader);
    expect(first.items).toHaveLength(20);
    expect(first.items[0]!.title).toBe("Campaign 25 finished");
    const second = await listNotifications(reader, { cursor: first.next });
    expect(second.items.map((n) => n.title)).toEqual(["05", "04", "03", "02", "01"].map((n) => `Campaign ${n} finished`));
    expect(second.next).toBeNull();
    expect(await listNotifications(reader, { cursor: "not-a-cursor" })).toMatchObject({ paged: false });

    const bell = await bellOf(reader);
    expect(bell.unread).toBe(25);
    expect(bell.items.map((n) => n.title)).toEqual(["25", "24", "23", "22", "21"].map((n) => `Campaign ${n} finished`));
    expect(await markRead(reader, bell.items[0]!.id)).toEqual({ link: "/messaging" });
    expect((await bellOf(reader)).unread).toBe(24);

    // Another member's, another tenant's, or no id at all: not found.
    const adminsOwn = (await bellOf({ userId: t.admin.id, organizationId: t.organizationId })).items[0]!;
    expect(await markRead(reader, adminsOwn.id)).toBeUndefined();
    expect(await markRead({ userId: other.owner.id, organizationId: other.organizationId }, bell.items[1]!.id)).toBeUndefined();
    expect(await markRead(reader, "nope")).toBeUndefined();
    expect((await bellOf({ userId: t.admin.id, organizationId: t.organizationId })).unread).toBe(25);

    expect(await markAllRead(reader)).toBe(24);
    expect(await bellOf(reader)).toMatchObject({ unread: 0 });
    expect((await bellOf({ userId: t.admin.id, organizationId: t.organizationId })).unread).toBe(25);
  });

  it("through the routes: following one marks it read and goes to its link; forms mark read; foreign ids are 404", async () => {
    const t = await team();
    const other = await team("Baraka Traders");
    await finished(t, "route");
    await finished(other, "route-other");
    const cookie = await signedInCookie(t.admin.email, PASSWORD);
    const [mine] = (await bellOf({ userId: t.admin.id, organizationId: t.organizationId })).items;
    const [theirs] = (await bellOf({ userId: other.admin.id, organizationId: other.organizationId })).items;

    const open = (id: string) =>
      openLoader(routeArgs(getRequest(`/notifications/${id}`, { cookie }), { id })).catch((thrown: unknown) => thrown);
    const followed = (await open(mine!.id)) as Response;
    expect(followed.status).toBe(302);
    expect(followed.headers.get("location")).toBe("/messaging");
    expect((await bellOf({ userId: t.admin.id, organizationId: t.organizationId })).unread).toBe(0);
    expect(((await open(theirs!.id)) as { init?: { status?: number } }).init?.status).toBe(404);
    expect(((await open("123")) as { init?: { status?: number } }).init?.status).toBe(404);

    const list = await run(listLoader, getRequest("/notifications", { cookie }));
    expect(list.status).toBe(200);
    expect(list.data.items).toHaveLength(1);

    await finished(t, "route-2");
    const refused = await run(listAction, formRequest("/notifications", { intent: "read", notification: theirs!.id }, { cookie }));
    expect(refused.status).toBe(404);
    const readAll = await run(listAction, formRequest("/notifications", { intent: "read-all", redirectTo: "/templates" }, { cookie }));
    expect(readAll.status).toBe(302);
    expect(readAll.location).toBe("/templates");
    expect((await bellOf({ userId: t.admin.id, organizationId: t.organizationId })).unread).toBe(0);
    // Back to another site: no, to the list.
    const offsite = await run(listAction, formRequest("/notifications", { intent: "read-all", redirectTo: "//evil.example" }, { cookie }));
    expect(offsite.location).toBe("/notifications");
    expect((await bellOf({ userId: other.admin.id, organizationId: other.organizationId })).unread).toBe(1);
  });

  it("the rules page: owners and admins save the table; an unknown role is refused with nothing changed; agents are refused", async () => {
    const t = await team();
    const cookie = await signedInCookie(t.admin.email, PASSWORD);
    const page = await run(rulesLoader, getRequest("/settings/notifications", { cookie }));
    expect(page.data.rules.template_decision).toEqual(["owner", "admin"]);
    const saved = await run(
      rulesAction,
      formRequest(
        "/settings/notifications",
        { intent: "save", template_decision: ["owner"], quality_drop: ["owner", "agent"] },
        { cookie },
      ),
    );
    expect(saved.status).toBe(302);
    const rules = await readEmailRules(t.organizationId);
    expect(rules).toMatchObject({ template_decision: ["owner"], quality_drop: ["owner", "agent"], campaign_finished: [] });
    const bad = await run(
      rulesAction,
      formRequest("/settings/notifications", { intent: "save", template_decision: ["janitor"] }, { cookie }),
    );
    expect(bad.status).toBe(400);
    expect(await readEmailRules(t.organizationId)).toEqual(rules);
    const agent = await signedInCookie(t.agent.email, PASSWORD);
    const forbidden = await run(rulesAction, formRequest("/settings/notifications", { intent: "save" }, { cookie: agent }));
    expect(forbidden.status).toBeGreaterThanOrEqual(300);
    expect(await readEmailRules(t.organizationId)).toEqual(rules);
  });
});

describe("live", () => {
  it("pushes the bell when a notification is written, on any connection, and starts with the bell as it is", async () => {
    const t = await team();
    await finished(t, "before");
    const cookie = await signedInCookie(t.owner.email, PASSWORD);
    const abort = new AbortController();
    const request = new Request("http://jumbe.test/notifications/events", {
      headers: { cookie, "user-agent": "vitest", accept: "text/event-stream" },
      signal: abort.signal,
    });
    const response = (await eventsLoader(routeArgs(request))) as Response;
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const events = () =>
      text
        .split("\n\n")
        // The last piece is an event not yet complete (or nothing).
        .slice(0, -1)
        .filter((block) => block.includes("event: bell"))
        .map(
          (block) =>
            JSON.parse(
              block
                .split("\n")
                .find((line) => line.startsWith("data: "))!
                .slice(6),
            ) as { unread: number; items: { title: string }[] },
        );
    const until = async (check: () => boolean) => {
      while (!check()) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        text += decoder.decode(value);
      }
    };
    await until(() => events().length >= 1);
    expect(events()[0]).toMatchObject({ unread: 1 });
    // Another member's notification says nothing to this stream; the owner's own arrives.
    await finished(t, "for-agent", { userIds: [t.agent.id], roles: [] });
    await finished(t, "live", { title: "Campaign finished: Maji Safi" });
    await until(() => events().some((bell) => bell.unread === 2));
    expect(events().at(-1)!.items[0]!.title).toBe("Campaign finished: Maji Safi");
    // Marking all read (another tab) clears the dot live too.
    await markAllRead({ userId: t.owner.id, organizationId: t.organizationId });
    await until(() => events().at(-1)!.unread === 0);
    abort.abort();
    await reader.cancel().catch(() => undefined);
  });
});

describe("a browser that went away", () => {
  it("ends its stream quietly when a write fails (its keepalive never throws from a timer)", async () => {
    const t = await team();
    const cookie = await signedInCookie(t.owner.email, PASSWORD);
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      // No abort signal: the browser's connection closed without the request saying so.
      const request = new Request("http://jumbe.test/notifications/events", {
        headers: { cookie, "user-agent": "vitest", accept: "text/event-stream" },
      });
      const response = (await eventsLoader(routeArgs(request))) as Response;
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: bell");
      await reader.cancel();
      // The keepalive's turn, twice: before the fix its write threw from the timer (the process ended).
      expect(() => vi.advanceTimersByTime(60_000)).not.toThrow();
      await finished(t, "after-gone");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the events that notify", () => {
  it("team: an accepted invitation tells the inviter, owners and admins; a role change tells the member", async () => {
    const t = await team();
    const admin = actorOf(t, t.admin);
    const email = uniqueEmail("joiner");
    await inviteMember(admin, { email, role: "agent" }, META);
    await drainJobs(); // the invitation's mail job
    const token = (await latestMailTo(email))!.textBody.match(/\/invitations\/([\w-]+)/)![1]!;
    const joined = await acceptInvitation(token, { firstName: "Wanjiru", lastName: "Kamau", password: PASSWORD }, META);
    const accepted = await rowsOf(t.organizationId, "invitation");
    expect(accepted.map((r) => r.user_id).sort()).toEqual([t.owner.id, t.admin.id].sort());
    expect(accepted[0]).toMatchObject({ title: "Wanjiru Kamau joined the team", link: "/settings/team" });

    await changeMemberRole(admin, joined.userId, "viewer", META);
    const changed = await rowsOf(t.organizationId, "role_changed");
    expect(changed).toEqual([
      expect.objectContaining({
        user_id: joined.userId,
        title: "Your role is now Viewer",
        body: "Akinyi Otieno changed your role from Agent to Viewer.",
      }),
    ]);
    // The same role again changes nothing and tells nobody.
    await changeMemberRole(admin, joined.userId, "viewer", META);
    expect(await rowsOf(t.organizationId, "role_changed")).toHaveLength(1);
    await drainJobs();
    expect((await latestMailTo(email))?.subject).toBe("Your role is now Viewer");
  });

  it("a sign-in from a new device tells the member themself, once; a known device tells nobody", async () => {
    const t = await team();
    const at = new Date("2026-11-24T07:30:00Z");
    const meta = {
      ip: "41.90.64.12",
      userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36",
    };
    expect(await notifyNewDeviceSignIn({ user: t.agent, organizationId: t.organizationId, meta, knownDevice: true, at })).toBeNull();
    expect(await notifyNewDeviceSignIn({ user: t.agent, organizationId: t.organizationId, meta, knownDevice: false, at })).toEqual({
      notified: 1,
      mailed: 1,
    });
    expect(await notifyNewDeviceSignIn({ user: t.agent, organizationId: t.organizationId, meta, knownDevice: false, at })).toEqual({
      notified: 0,
      mailed: 0,
    });
    const [row] = await rowsOf(t.organizationId, "new_device_sign_in");
    expect(row).toMatchObject({ user_id: t.agent.id, title: "New sign-in from Chrome on Windows", link: "/settings/security" });
    expect(row!.body).toContain("41.90.64.12");
  });

  it("Meta's template decisions and a quality drop, through the real webhooks, notify once each however often they come", async () => {
    const t = await team();
    const connection = await meta.graph.connect(t.organizationId, "Nyota Sacco");
    const templateId = await approvedBodyTemplate(
      meta.graph,
      { organizationId: t.organizationId, ...connection },
      "loan_reminder",
      "UTILITY",
      "Habari {{1}}, your loan is due.",
    );
    await meta.sandbox.setTemplateStatus(templateId, "REJECTED");
    await meta.sandbox.setTemplateStatus(templateId, "PAUSED");
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await rowsOf(t.organizationId, "template_decision")).length).toBe(4);
      },
      { timeout: 30_000, interval: 20 },
    );
    const decisions = await rowsOf(t.organizationId, "template_decision");
    expect(new Set(decisions.map((r) => r.title))).toEqual(
      new Set(["Meta rejected the template loan_reminder", "Meta paused the template loan_reminder"]),
    );
    expect(decisions[0]!.link).toMatch(/^\/templates\?dialog=view&template=[0-9a-f-]{36}$/);

    // Meta sends the same webhook again (at-least-once): nothing new.
    const [event] = await rawQuery<{ body: string }>(`select body from webhook_events order by id desc limit 1`);
    await meta.receiver.post(event!.body);
    await drainJobs();
    expect(await rowsOf(t.organizationId, "template_decision")).toHaveLength(4);

    await meta.sandbox.sendQualityUpdate({ phoneNumberId: connection.phoneNumberId, event: "FLAGGED" });
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await rowsOf(t.organizationId, "quality_drop")).length).toBe(2);
      },
      { timeout: 30_000, interval: 20 },
    );
    expect((await rowsOf(t.organizationId, "quality_drop"))[0]).toMatchObject({ link: "/whatsapp" });
    await meta.sandbox.sendQualityUpdate({ phoneNumberId: connection.phoneNumberId, event: "UPGRADE" });
    await drainJobs();
    expect(await rowsOf(t.organizationId, "quality_drop")).toHaveLength(2);
  });

  it("campaigns: finished, paused by a member (not told of their own pause) and by Jumbe when Meta pauses its template", async () => {
    const t = await team();
    const connection = await meta.graph.connect(t.organizationId, "Nyota Sacco");
    const tenant = { organizationId: t.organizationId, ...connection };
    const templateId = await approvedBodyTemplate(meta.graph, tenant, "water_notice", "UTILITY", "Water rationing in {{1}} on Saturday.");
    const byAgent = { organizationId: t.organizationId, userId: t.agent.id };
    const campaign = (name: string, count: number) =>
      createCampaign(byAgent, {
        name,
        template: { name: "water_notice" },
        parameters: { body: [{ value: "Rongai" }] },
        audience: { phones: Array.from({ length: count }, (_, i) => recipient(i)) },
      });

    const small = await campaign("Maji Rongai", 3);
    await vi.waitFor(
      async () => {
        await feedCampaigns();
        await drainDispatcher();
        await drainJobs();
        expect((await rowsOf(t.organizationId, "campaign_finished")).length).toBe(3);
      },
      { timeout: 30_000, interval: 20 },
    );
    const done = await rowsOf(t.organizationId, "campaign_finished");
    // Its author (an agent), the owner and the admin.
    expect(done.map((r) => r.user_id).sort()).toEqual([t.owner.id, t.admin.id, t.agent.id].sort());
    expect(done[0]).toMatchObject({ title: "Campaign finished: Maji Rongai", link: `/messaging/campaigns/${small}` });

    await setBucketRate(connection.phoneNumberId, 80);
    const big = await campaign("Maji Kitengela", 300);
    await feedCampaign(big);
    await pauseCampaign({ organizationId: t.organizationId, userId: t.admin.id }, big);
    const pausedByAdmin = await rowsOf(t.organizationId, "campaign_paused");
    expect(pausedByAdmin.map((r) => r.user_id).sort()).toEqual([t.owner.id, t.agent.id].sort());
    expect(pausedByAdmin[0]).toMatchObject({ title: "Campaign paused: Maji Kitengela", link: `/messaging/campaigns/${big}` });

    const guarded = await campaign("Maji Ngong", 300);
    await feedCampaign(guarded);
    await meta.sandbox.setTemplateStatus(templateId, "PAUSED");
    await vi.waitFor(
      async () => {
        await drainJobs();
        expect((await rowsOf(t.organizationId, "campaign_paused")).length).toBe(5);
      },
      { timeout: 30_000, interval: 20 },
    );
    const byJumbe = (await rowsOf(t.organizationId, "campaign_paused")).filter((r) => r.title === "Campaign paused: Maji Ngong");
    expect(byJumbe.map((r) => r.user_id).sort()).toEqual([t.owner.id, t.admin.id, t.agent.id].sort());
    expect(byJumbe[0]!.body).toMatch(/^Meta paused the template water_notice/);
  });
});
