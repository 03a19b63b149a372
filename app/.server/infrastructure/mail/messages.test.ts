import { beforeAll, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "../config/env";
import { inLocale } from "../http/display-zone";
import { invitationMail, notificationMail, passwordChangedMail, signInCodeMail, verificationCodeMail } from "./messages";

// Issue 43: each e-mail in its reader's language; English word for word as before.
beforeAll(() => setEnv({ ...parseEnv({ ...process.env, APP_URL: "https://app.jumbe.test" }) }));

describe("the e-mails", () => {
  it("keep their English", () => {
    expect(verificationCodeMail("a@b.co.ke", "123456")).toEqual({
      to: "a@b.co.ke",
      subject: "Your Jumbe verification code: 123456",
      text: "Your Jumbe verification code is 123456.\n\nEnter it on the Verify Email page within 10 minutes. If you did not create a Jumbe account, you can ignore this e-mail.\n\nKaribu,\nThe Jumbe team",
    });
    expect(passwordChangedMail("a@b.co.ke").text).toBe(
      `The password of your Jumbe account was just changed. If this was not you, reset it now at ${env().APP_URL}/forgot-password.\n\nKaribu,\nThe Jumbe team`,
    );
    expect(signInCodeMail("a@b.co.ke", "654321", { device: "Chrome on Android", ip: "" }).text).toContain(
      "from a new browser (Chrome on Android, IP address unknown).",
    );
  });

  it("speak the language they are given, or the request's", () => {
    const sw = verificationCodeMail("a@b.co.ke", "123456", "sw");
    expect(sw.subject).toBe("Msimbo wako wa uthibitishaji wa Jumbe: 123456");
    expect(sw.text.endsWith("Karibu,\nTimu ya Jumbe")).toBe(true);
    const fr = inLocale("fr", () => passwordChangedMail("a@b.co.ke"));
    expect(fr.subject).toBe("Votre mot de passe Jumbe a été modifié");
    expect(fr.text).toContain(`${env().APP_URL}/forgot-password`);
    // The language given wins over the request's: a member's e-mail is in the member's language.
    expect(inLocale("fr", () => verificationCodeMail("a@b.co.ke", "1", "sw")).subject).toBe(sw.subject.replace("123456", "1"));
  });

  it("keep the people's, organisations' and links' own words as they are", () => {
    const invite = invitationMail(
      "w@b.co.ke",
      {
        organization: "Soko Huru",
        invitedBy: "Wanjiru Mwangi",
        role: "mhudumu",
        link: "https://app.jumbe.test/invitation/x",
        expiresOn: "4 Des 2026",
      },
      "sw",
    );
    expect(invite.subject).toBe("Umealikwa na Wanjiru Mwangi kujiunga na Soko Huru kwenye Jumbe");
    expect(invite.text).toContain("https://app.jumbe.test/invitation/x");
    const notice = notificationMail(
      "w@b.co.ke",
      { title: "Kampeni imekamilika", body: "", link: "/messaging/campaigns/1", organization: "Soko Huru", event: "Kampeni" },
      "fr",
    );
    expect(notice.text).toContain("Voir dans Jumbe : https://app.jumbe.test/messaging/campaigns/1");
    expect(notice.text).toContain("« Kampeni »");
  });
});
