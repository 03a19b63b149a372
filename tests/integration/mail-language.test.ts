import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { organizations, users } from "~/.server/infrastructure/db/schema";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { loader as signupLoader } from "~/routes/auth/signup";
import { m } from "~/paraglide/messages";
import { appFetch } from "../support/in-process-app";
import { formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser, latestCodeFor, latestMailTo, signedInCookie, uniqueEmail } from "../support/accounts";

// Issue 43: an e-mail is written in its reader's language. In the reader's own request (signing up),
// the request's; from a job or another member's action, the language the member chose, else their
// organisation's (mailLocaleOf); an invitee, who has no account yet, gets the organisation's.

registerJobHandlers();

async function honeypotFields() {
  const page = await run<{ honeypot: { nameFieldName: string; validFromFieldName: string; encryptedValidFrom: string } }>(
    signupLoader,
    getRequest("/signup"),
  );
  const h = page.data.honeypot;
  return { [h.nameFieldName]: "", [h.validFromFieldName]: h.encryptedValidFrom };
}

/** A sign-up form posted through the whole application (its middleware reads the request's language). */
async function signUp(email: string, headers: Record<string, string>) {
  const fields = {
    firstName: "Wanjiku",
    lastName: "Mwangi",
    businessName: "Duka la Mama Wanjiku",
    email,
    phoneNumber: "0712 345 678",
    password: "Karibu#2026",
    confirmPassword: "Karibu#2026",
    agreedToTerms: "on",
    ...(await honeypotFields()),
  };
  const response = await appFetch(formRequest("/signup", fields, { headers }));
  expect(response.status).toBeLessThan(400);
}

async function savedLocale(email: string) {
  const [row] = await db().select({ locale: users.locale }).from(users).where(eq(users.email, email));
  return row?.locale;
}

describe("e-mails in the reader's language", () => {
  it("sends a sign-up made in Swahili its code in Swahili, and keeps Swahili as the new member's language", async () => {
    const byCookie = uniqueEmail("swahili");
    await signUp(byCookie, { cookie: "lng=sw", "accept-language": "en" });
    const code = await latestCodeFor(byCookie);
    const mail = (await latestMailTo(byCookie))!;
    expect(mail.subject).toBe(m.mail_verification_subject({ code }, { locale: "sw" }));
    expect(mail.subject).not.toBe(m.mail_verification_subject({ code }, { locale: "en" }));
    expect(mail.textBody).toContain(m.mail_verification_text({ code }, { locale: "sw" }));
    expect(await savedLocale(byCookie)).toBe("sw");

    // The browser's languages alone say the same.
    const byBrowser = uniqueEmail("swahili");
    await signUp(byBrowser, { "accept-language": "sw-KE,sw;q=0.9,en;q=0.5" });
    expect((await latestMailTo(byBrowser))!.subject).toBe(
      m.mail_verification_subject({ code: await latestCodeFor(byBrowser) }, { locale: "sw" }),
    );
    expect(await savedLocale(byBrowser)).toBe("sw");

    // And a sign-up in English stays English.
    const inEnglish = uniqueEmail("english");
    await signUp(inEnglish, { "accept-language": "en-GB" });
    expect((await latestMailTo(inEnglish))!.subject).toBe(`Your Jumbe verification code: ${await latestCodeFor(inEnglish)}`);
    expect(await savedLocale(inEnglish)).toBe("en");
  });

  it("mails a password reset in the member's saved language, even when an English page asked for it", async () => {
    const member = await createVerifiedUser({ businessName: "Boulangerie du Lac" });
    await db().update(users).set({ locale: "fr" }).where(eq(users.id, member.user.id));
    const response = await appFetch(formRequest("/forgot-password", { email: member.email }, { headers: { "accept-language": "en" } }));
    expect(response.status).toBeLessThan(400);
    // The mail goes from a job, outside any request.
    await drainJobs();
    const code = await latestCodeFor(member.email);
    const mail = (await latestMailTo(member.email))!;
    expect(mail.subject).toBe(m.mail_reset_subject({ code }, { locale: "fr" }));
    expect(mail.textBody).toContain(m.mail_reset_text({ code }, { locale: "fr" }));
  });

  it("mails a reset to a member who chose no language in their organisation's, whatever the page that asked", async () => {
    const member = await createVerifiedUser();
    await db().update(organizations).set({ defaultLocale: "sw" }).where(eq(organizations.id, member.organization.id));
    await appFetch(formRequest("/forgot-password", { email: member.email }, { headers: { cookie: "lng=fr" } }));
    await drainJobs();
    const code = await latestCodeFor(member.email);
    expect((await latestMailTo(member.email))!.subject).toBe(m.mail_reset_subject({ code }, { locale: "sw" }));
  });

  it("sends an invitation in the organisation's language, whatever the language of the member who invites", async () => {
    const owner = await createVerifiedUser({ businessName: "Ushirika wa Wakulima Nyeri" });
    await db().update(organizations).set({ defaultLocale: "sw" }).where(eq(organizations.id, owner.organization.id));
    const cookie = await signedInCookie(owner.email, owner.password);
    const invitee = uniqueEmail("invitee");
    const response = await appFetch(
      formRequest(
        "/settings/team",
        { intent: "invite", email: invitee, role: "agent" },
        { cookie: `${cookie}; lng=en`, headers: { "accept-language": "en" } },
      ),
    );
    expect(response.status).toBeLessThan(400);
    await drainJobs();
    const mail = (await latestMailTo(invitee))!;
    expect(mail.subject).toBe(
      m.mail_invitation_subject({ invitedBy: "Test User", organization: "Ushirika wa Wakulima Nyeri" }, { locale: "sw" }),
    );
    // Its role in Swahili too, not an English word in a Swahili sentence.
    expect(mail.textBody).toContain(` ${m.validation_auth_invite_as_agent({}, { locale: "sw" })}.`);
    expect(mail.textBody).not.toContain("an agent");
  });
});
