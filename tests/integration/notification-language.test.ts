import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { organizations, users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { roleOf } from "~/.server/domains/auth/permissions";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { changeMemberRole, type Actor } from "~/.server/domains/team/members";
import { notifyWebhookFailing } from "~/.server/domains/notifications/emitters";
import { eventLabel } from "~/lib/notifications";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";
import { appFetch } from "../support/in-process-app";
import { getRequest } from "../support/http";
import { createVerifiedUser, latestMailTo, META, signedInCookie, uniqueEmail } from "../support/accounts";

// Issue 43: a notification is said in its reader's language: the bell, /notifications and its
// e-mail. Its messages are stored beside its English, and said again for each reader.

registerJobHandlers();

const PASSWORD = "Member#Pass1";

/** An owner (no language saved) and an agent whose saved language is `locale`. */
async function team(locale: Locale) {
  const owner = await createVerifiedUser({ businessName: "Ushirika wa Wakulima Nyeri", password: PASSWORD });
  const [agent] = await db()
    .insert(users)
    .values({
      organizationId: owner.organization.id,
      email: uniqueEmail("agent"),
      firstName: "Baraka",
      lastName: "Otieno",
      passwordHash: await hashPassword(PASSWORD),
      isVerified: true,
      orgRole: "agent",
      locale,
    })
    .returning();
  const actor: Actor = {
    user: { id: owner.user.id, email: owner.email, firstName: owner.user.firstName, lastName: owner.user.lastName },
    organization: { id: owner.organization.id, name: "Ushirika wa Wakulima Nyeri" },
    role: roleOf(owner.user),
  };
  return { owner, agent: agent!, actor };
}

/** The first bell the live stream sends the signed-in member. */
async function firstBell(cookie: string) {
  const abort = new AbortController();
  const response = await appFetch(
    new Request("http://jumbe.test/notifications/events", {
      headers: { cookie, "user-agent": "vitest", accept: "text/event-stream" },
      signal: abort.signal,
    }),
  );
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!/event: bell\ndata: .*\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  abort.abort();
  await reader.cancel().catch(() => undefined);
  const data = /event: bell\ndata: (.*)\n/.exec(text)![1]!;
  return JSON.parse(data) as { unread: number; items: { title: string }[] };
}

const role = (locale: Locale, to: "agent" | "viewer") =>
  to === "agent" ? m.validation_role_agent({}, { locale }) : m.validation_role_viewer({}, { locale });

describe("a notification in its reader's language", () => {
  it("shows a role change in Swahili to a member who saved Swahili: the list, the bell and the e-mail", async () => {
    const t = await team("sw");
    // Signed in first: a first sign-in's own notification and e-mail are sent before the change.
    const cookie = await signedInCookie(t.agent.email, PASSWORD);
    await drainJobs();
    await changeMemberRole(t.actor, t.agent.id, "viewer", META);
    const by = `${t.owner.user.firstName} ${t.owner.user.lastName}`.trim();
    const title = m.app_notice_role_title({ role: role("sw", "viewer") }, { locale: "sw" });
    const body = m.app_notice_role_body({ by, from: role("sw", "agent"), to: role("sw", "viewer") }, { locale: "sw" });
    expect(title).toBe("Jukumu lako sasa ni Mtazamaji");

    // Stored: the English as before, and the messages it is said from.
    const [row] = await rawQuery<{ title: string; body: string; words: unknown }>(
      `select title, body, words from notifications where user_id = $1 and event = 'role_changed'`,
      [t.agent.id],
    );
    expect(row).toMatchObject({ title: "Your role is now Viewer", body: `${by} changed your role from Agent to Viewer.` });
    expect(row!.words).toEqual({
      title: ["app_notice_role_title", { role: ["validation_role_viewer"] }],
      body: ["app_notice_role_body", { by, from: ["validation_role_agent"], to: ["validation_role_viewer"] }],
    });

    // The member's page, in the language they saved (whatever the browser asks for).
    const page = await appFetch(getRequest("/notifications", { cookie, headers: { "accept-language": "en" } }));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(title);
    expect(html).toContain(body);
    expect(html).not.toContain("Your role is now");

    // The bell's live stream.
    expect((await firstBell(cookie)).items.map((item) => item.title)).toContain(title);

    // The e-mail (every role is e-mailed a role change by default), sent from a job.
    await drainJobs();
    const mail = (await latestMailTo(t.agent.email))!;
    expect(mail.subject).toBe(title);
    expect(mail.textBody).toContain(body);
    expect(mail.textBody).toContain(eventLabel("role_changed", "sw"));
    expect(mail.textBody).not.toContain("changed your role");
  });

  it("shows the same kind of notification in English to a member who reads English", async () => {
    const t = await team("en");
    const cookie = await signedInCookie(t.agent.email, PASSWORD);
    await drainJobs();
    await changeMemberRole(t.actor, t.agent.id, "viewer", META);
    const html = await (await appFetch(getRequest("/notifications", { cookie }))).text();
    expect(html).toContain("Your role is now Viewer");
    expect((await firstBell(cookie)).items.map((item) => item.title)).toContain("Your role is now Viewer");
    await drainJobs();
    expect((await latestMailTo(t.agent.email))!.subject).toBe("Your role is now Viewer");
  });

  it("e-mails a disabled webhook in each recipient's language: theirs, else their organisation's", async () => {
    const t = await team("sw");
    await db().update(users).set({ orgRole: "admin" }).where(eq(users.id, t.agent.id));
    // The owner saved no language: their organisation's, French, is theirs.
    await db().update(organizations).set({ defaultLocale: "fr" }).where(eq(organizations.id, t.owner.organization.id));
    const url = "https://hooks.ushirika.co.ke/jumbe";
    await notifyWebhookFailing(db(), {
      organizationId: t.owner.organization.id,
      url,
      failingSince: new Date().toISOString(),
      disabled: true,
    });
    await drainJobs();
    const toAdmin = (await latestMailTo(t.agent.email))!;
    expect(toAdmin.subject).toBe(m.mail_webhook_disabled_subject({}, { locale: "sw" }));
    expect(toAdmin.textBody).toContain(url);
    const toOwner = (await latestMailTo(t.owner.email))!;
    expect(toOwner.subject).toBe(m.mail_webhook_disabled_subject({}, { locale: "fr" }));
    expect(toOwner.subject).not.toBe(m.mail_webhook_disabled_subject({}, { locale: "en" }));
  });
});
