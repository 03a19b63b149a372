import { describe, expect, it } from "vitest";
import { signIn } from "~/.server/domains/auth/signin";
import { deviceOf } from "~/.server/domains/auth/session-list";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { action as securityAction, loader as securityLoader } from "~/routes/app/settings/security";
import { createVerifiedUser } from "../support/accounts";
import { cookieHeader, formRequest, getRequest, run } from "../support/http";

// Issue 15, Account Settings' Security section: where you are signed in, and signing the others out.

const PHONE = "Mozilla/5.0 (Linux; Android 14; SM-A546E) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const LAPTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15";

async function signedInFrom(email: string, password: string, userAgent: string, ip: string) {
  const outcome = await signIn(email, password, false, { ip, userAgent });
  if (!outcome.ok) throw new Error(outcome.message);
  return cookieHeader([outcome.setCookie]);
}

describe("the sessions of Account Settings' Security section", () => {
  it("names devices in a few words", () => {
    expect(deviceOf(PHONE)).toBe("Chrome on Android");
    expect(deviceOf(LAPTOP)).toBe("Firefox on Windows");
    expect(deviceOf(MAC)).toBe("Safari on macOS");
    expect(
      deviceOf("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 CriOS/126.0 Mobile/15E148 Safari/604.1"),
    ).toBe("Chrome on iOS");
    expect(deviceOf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131.0")).toBe(
      "Edge on Windows",
    );
    expect(deviceOf("curl/8.5.0")).toBe("curl/8.5.0");
    expect(deviceOf(null)).toBe("Unknown device");
  });

  it("lists this session first with the others, signs one out at once, then all the others", async () => {
    const user = await createVerifiedUser();
    const phone = await signedInFrom(user.email, user.password, PHONE, "41.90.64.10");
    const laptop = await signedInFrom(user.email, user.password, LAPTOP, "105.163.1.20");
    const mac = await signedInFrom(user.email, user.password, MAC, "197.248.5.30");

    const page = await run(securityLoader, getRequest("/settings/security", { cookie: phone, userAgent: PHONE }));
    const sessions = page.data.sessions as { id: string; device: string; ip: string; current: boolean }[];
    expect(sessions).toHaveLength(3);
    expect([sessions[0]!.device, sessions[0]!.ip, sessions[0]!.current]).toEqual(["Chrome on Android", "41.90.64.10", true]);
    expect(
      sessions
        .slice(1)
        .map((s) => [s.device, s.current])
        .sort(),
    ).toEqual([
      ["Firefox on Windows", false],
      ["Safari on macOS", false],
    ]);

    // Sign the laptop out: its next request is signed out.
    const laptopSession = sessions.find((s) => s.device === "Firefox on Windows")!;
    const one = await run(
      securityAction,
      formRequest("/settings/security", { intent: "one", session: laptopSession.id }, { cookie: phone }),
    );
    expect(one.location).toBe("/settings/security");
    expect((await run(securityLoader, getRequest("/settings/security", { cookie: laptop }))).location).toMatch(/^\/login/);
    expect((await run(securityLoader, getRequest("/settings/security", { cookie: mac }))).status).toBe(200);

    // Another person's session, or this one, is not signed out from here.
    const stranger = await createVerifiedUser();
    const strangerCookie = await signedInFrom(stranger.email, stranger.password, LAPTOP, "102.0.0.1");
    const [strangerSession] = await rawQuery<{ id: string }>(
      `select s.id from sessions s join users u on u.id = s.user_id where u.email = $1`,
      [stranger.email],
    );
    expect(
      (await run(securityAction, formRequest("/settings/security", { intent: "one", session: strangerSession!.id }, { cookie: phone })))
        .status,
    ).toBe(404);
    expect((await run(securityLoader, getRequest("/settings/security", { cookie: strangerCookie }))).status).toBe(200);
    const own = sessions[0]!.id;
    expect((await run(securityAction, formRequest("/settings/security", { intent: "one", session: own }, { cookie: phone }))).status).toBe(
      404,
    );

    // All the others: the Mac goes, this phone stays.
    await run(securityAction, formRequest("/settings/security", { intent: "others" }, { cookie: phone }));
    expect((await run(securityLoader, getRequest("/settings/security", { cookie: mac }))).location).toMatch(/^\/login/);
    const after = await run(securityLoader, getRequest("/settings/security", { cookie: phone }));
    expect((after.data.sessions as { current: boolean }[]).map((s) => s.current)).toEqual([true]);
    const logged = await rawQuery<{ action: string; details: string }>(
      `select action, details from activity_logs where organization_id = $1 and type = 'security' order by id`,
      [user.organization.id],
    );
    expect(logged).toEqual([
      { action: "Session signed out", details: "Firefox on Windows" },
      { action: "Other sessions signed out", details: "1 session ended" },
    ]);
  });
});
