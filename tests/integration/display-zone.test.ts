import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { formatWhen, zonedInstant } from "~/lib/dates";
import { inDisplayZone } from "~/.server/infrastructure/http/display-zone";
import { createSession } from "~/.server/domains/auth/sessions";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, META } from "../support/accounts";
import { APP, cookieHeader } from "../support/http";

// Issue 15: the organisation's default time zone (Account Settings, Organisation) is the one its
// pages show dates in; Africa/Nairobi unless changed, and Nairobi wherever no organisation is signed in.

const AT = "2026-11-20T10:00:00.000Z"; // 13:00 in Nairobi, 11:00 in Lagos

async function notificationsPage(timeZone: string) {
  const { user, organization } = await createVerifiedUser();
  await rawQuery(`update organizations set time_zone = $2 where id = $1`, [organization.id, timeZone]);
  await rawQuery(
    `insert into notifications (organization_id, user_id, event, title, body, created_at) values ($1, $2, 'role_changed', 'Your role is now Agent', '', $3)`,
    [organization.id, user.id, AT],
  );
  const cookie = cookieHeader([(await createSession(user.id, false, META)).setCookie]);
  const res = await appFetch(new Request(`${APP}/notifications`, { headers: { cookie, "user-agent": "vitest" } }));
  expect(res.status).toBe(200);
  return res.text();
}

describe("the organisation's time zone", () => {
  it("is the one its pages show times in", async () => {
    const nairobi = await notificationsPage("Africa/Nairobi");
    expect(nairobi).toContain("20 Nov 2026, 13:00");
    const lagos = await notificationsPage("Africa/Lagos");
    expect(lagos).toContain("20 Nov 2026, 11:00");
    expect(lagos).not.toContain("20 Nov 2026, 13:00");
    // Outside a signed-in request (jobs, e-mails): Nairobi.
    expect(formatWhen(AT)).toBe("20 Nov 2026, 13:00");
    // Inside one, the campaign form's schedule is read on the organisation's clocks.
    expect(inDisplayZone("Africa/Lagos", () => zonedInstant("2026-11-30", "09:30"))?.toISOString()).toBe("2026-11-30T08:30:00.000Z");
    expect(zonedInstant("2026-11-30", "09:30")?.toISOString()).toBe("2026-11-30T06:30:00.000Z");
  });
});
