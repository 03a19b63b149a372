import { chargeAccepted } from "~/.server/domains/billing/charging";
import { describe, expect, it } from "vitest";
import { foldAnalytics } from "~/.server/domains/analytics/fold";
import { eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, contacts, messageTemplates, messages, organizations, users } from "~/.server/infrastructure/db/schema";
import { action as profileAction, loader as profileLoader } from "~/routes/app/profile";
import { loader as dashboardLoader } from "~/routes/app/dashboard";
import { loader as apiMe } from "~/routes/api/auth.me";
import { action as apiSignin } from "~/routes/api/auth.signin";
import { formRequest, getRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, latestCodeFor, signedInCookie, uniqueEmail } from "../support/accounts";

async function signedIn(options: Parameters<typeof createVerifiedUser>[0] = {}) {
  const account = await createVerifiedUser(options);
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

describe("profile", () => {
  it("saves business name and phone (E.164) and logs the change", async () => {
    const me = await signedIn({ businessName: "Old Name" });
    const res = await run(
      profileAction,
      formRequest(
        "/profile",
        { intent: "save", businessName: "Tumaini Hardware", email: me.email, phoneNumber: "0722 000 111" },
        { cookie: me.cookie },
      ),
    );
    expect(res.status).toBe(302);
    const page = await run(profileLoader, getRequest("/profile", { cookie: me.cookie }));
    expect(page.data.profile).toMatchObject({
      businessName: "Tumaini Hardware",
      phoneNumber: "+254722000111",
      businessId: me.organization.businessId,
      whatsappNumber: "",
    });
    const [log] = await db().select().from(activityLogs).where(eq(activityLogs.action, "Profile updated"));
    expect(log).toMatchObject({ type: "profile", organizationId: me.organization.id, userId: me.user.id });
  });

  it("lets an agent or viewer save their phone but not rename the organisation (owners and admins do)", async () => {
    const me = await signedIn({ businessName: "Nyota Sacco" });
    for (const role of ["agent", "viewer"] as const) {
      await db().update(users).set({ orgRole: role }).where(eq(users.id, me.user.id));
      const page = await run(profileLoader, getRequest("/profile?edit=1", { cookie: me.cookie }));
      expect(page.data.canRename).toBe(false);
      const renamed = await run(
        profileAction,
        formRequest("/profile", { intent: "save", businessName: "Someone Else Ltd", email: me.email }, { cookie: me.cookie }),
      );
      expect(renamed.status).toBe(403);
      expect(renamed.data.result.error.businessName).toEqual(["Only the owner or an admin can rename the organisation."]);
      const [org] = await db().select().from(organizations).where(eq(organizations.id, me.organization.id));
      expect(org!.name).toBe("Nyota Sacco");
      const phone = await run(
        profileAction,
        formRequest(
          "/profile",
          { intent: "save", businessName: "Nyota Sacco", email: me.email, phoneNumber: "0722 000 111" },
          { cookie: me.cookie },
        ),
      );
      expect(phone.status).toBe(302);
    }
    await db().update(users).set({ orgRole: "admin" }).where(eq(users.id, me.user.id));
    expect((await run(profileLoader, getRequest("/profile", { cookie: me.cookie }))).data.canRename).toBe(true);
  });

  it("refuses a bad phone and an empty business name, changing nothing", async () => {
    const me = await signedIn({ businessName: "Keep Me" });
    const phone = await run(
      profileAction,
      formRequest("/profile", { intent: "save", businessName: "Changed", email: me.email, phoneNumber: "12" }, { cookie: me.cookie }),
    );
    expect(phone.status).toBe(400);
    expect(phone.data.result.error.phoneNumber).toEqual(["Please enter a valid phone number"]);
    const name = await run(
      profileAction,
      formRequest("/profile", { intent: "save", businessName: "", email: me.email }, { cookie: me.cookie }),
    );
    expect(name.data.result.error.businessName).toEqual(["Business name is required"]);
    const [org] = await db().select().from(organizations).where(eq(organizations.id, me.organization.id));
    expect(org!.name).toBe("Keep Me");
  });

  it("changes the e-mail only after the code sent to the new address is confirmed", async () => {
    const me = await signedIn();
    const newEmail = uniqueEmail("new");
    await run(profileAction, formRequest("/profile", { intent: "save", businessName: "Biashara", email: newEmail }, { cookie: me.cookie }));
    const pending = await run(profileLoader, getRequest("/profile", { cookie: me.cookie }));
    expect(pending.data.profile.email).toBe(me.email);
    expect(pending.data.pendingEmail).toBe(newEmail);
    const code = await latestCodeFor(newEmail);
    const confirmed = await run(
      profileAction,
      formRequest("/profile", { intent: "confirm-email", otp: code.split("") }, { cookie: me.cookie }),
    );
    expect(confirmed.status).toBe(302);
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: me.cookie }))).data.user.email).toBe(newEmail);
    expect((await run(apiSignin, jsonRequest("/api/auth/signin", { email: newEmail, password: me.password }))).status).toBe(200);
  });

  it("never lets one tenant touch another's organisation, whatever the form says", async () => {
    const a = await signedIn({ businessName: "Tenant A" });
    const b = await signedIn({ businessName: "Tenant B" });
    await run(
      profileAction,
      formRequest(
        "/profile",
        { intent: "save", businessName: "Renamed", email: a.email, organizationId: b.organization.id, userId: b.user.id },
        { cookie: a.cookie },
      ),
    );
    const [orgB] = await db().select().from(organizations).where(eq(organizations.id, b.organization.id));
    const [orgA] = await db().select().from(organizations).where(eq(organizations.id, a.organization.id));
    expect(orgB!.name).toBe("Tenant B");
    expect(orgA!.name).toBe("Renamed");
    const pageB = await run(profileLoader, getRequest("/profile", { cookie: b.cookie }));
    expect(pageB.data.profile.businessName).toBe("Tenant B");
    expect(JSON.stringify(pageB.data.activity)).not.toContain("Renamed");
    const [userB] = await db().select().from(users).where(eq(users.id, b.user.id));
    expect(userB!.email).toBe(b.email);
  });
});

describe("dashboard overview", () => {
  it("shows zero for a new tenant and counts only the tenant's own rows", async () => {
    const fresh = await signedIn();
    const empty = await run(dashboardLoader, getRequest("/dashboard", { cookie: fresh.cookie }));
    expect(empty.data.overview).toMatchObject({
      messagesSent: 0,
      activeContacts: 0,
      templatesApproved: 0,
      templatesTotal: 0,
      accountStatus: "Setup",
      whatsapp: { connected: false },
    });

    const busy = await signedIn();
    const [contact] = await db()
      .insert(contacts)
      .values({ organizationId: busy.organization.id, name: "Amina", phone: "+254712345678", lastSeenAt: new Date() })
      .returning();
    const sent = await db()
      .insert(messages)
      .values([
        // Sent: accepted by Meta (this month's figure counts acceptances).
        {
          organizationId: busy.organization.id,
          contactId: contact!.id,
          direction: "outbound",
          status: "delivered",
          body: "Habari",
          acceptedAt: new Date(),
          chargeState: "unbilled",
        },
        {
          organizationId: busy.organization.id,
          contactId: contact!.id,
          direction: "outbound",
          status: "read",
          body: "Karibu",
          acceptedAt: new Date(),
          chargeState: "unbilled",
        },
        {
          organizationId: busy.organization.id,
          contactId: contact!.id,
          direction: "inbound",
          status: "received",
          body: "Asante",
          sentAt: new Date(),
        },
      ])
      .returning({ id: messages.id, createdAt: sql<string>`${messages.createdAt}::text` });
    // Meta accepted both outbound messages: the plan counts them as used (postpaid usage).
    await chargeAccepted(db(), sent);
    await db()
      .insert(messageTemplates)
      .values({
        organizationId: busy.organization.id,
        name: "welcome",
        category: "MARKETING",
        language: "en",
        components: [{ type: "BODY", text: "Hi" }],
      });
    // The figures come from the analytics rollups, which the fold job keeps up with.
    await foldAnalytics();
    const full = await run(dashboardLoader, getRequest("/dashboard", { cookie: busy.cookie }));
    expect(full.data.overview).toMatchObject({ messagesSent: 2, activeContacts: 1, templatesApproved: 0, templatesTotal: 1 });
    expect((await run(apiMe, getRequest("/api/auth/me", { cookie: busy.cookie }))).data.user.messagesUsed).toBe(2);
    const stillEmpty = await run(dashboardLoader, getRequest("/dashboard", { cookie: fresh.cookie }));
    expect(stillEmpty.data.overview).toMatchObject({ messagesSent: 0, activeContacts: 0, templatesApproved: 0, templatesTotal: 0 });
  });
});
