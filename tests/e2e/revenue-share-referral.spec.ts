import path from "node:path";
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { test, expect } from "./fixtures";
import { TEXT, field, fillOtpBoxes, latestCode, newUser } from "./helpers";
import { ownServer } from "./own-server";

// Issue 46: a visitor who follows a partner's referral link signs up and verifies the e-mail code,
// with scripts on and off, and the new organisation ends attributed to that partner (read in the
// database). A server of its own: the partner is enrolled in its database while it is stopped.

test("a sign-up from a partner's referral link ends attributed to the partner", async ({ page, request }) => {
  test.slow();
  const server = await ownServer("referral");
  const code = `E2E${randomBytes(3).toString("hex").toUpperCase()}`;
  const open = async <T>(work: (db: PGlite) => Promise<T>) => {
    const db = await PGlite.create(path.join(server.dataDir, "pglite"));
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  };
  try {
    // The seeded copy the server first starts on (migrated, the demo's data): the partner is a demo
    // organisation, enrolled before the server's first start.
    await server.prepare();
    const partnerId = await open(async (db) => {
      const result = await db.query<{ id: string }>(
        `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
         select id, $1, 'Nairobi Growth Agency', 'Agency', 'active', 1500, 'mpesa', '254712345678', 'P051234567Q', now()
         from organizations order by created_at limit 1 returning id`,
        [code],
      );
      return result.rows[0]!.id;
    });
    await server.start();

    const user = newUser();
    // The link as a partner shares it, in lower case.
    await page.goto(`${server.base}/signup?ref=${code.toLowerCase()}`);
    await field(page, "First name").fill(user.firstName);
    await field(page, "Last name").fill(user.lastName);
    await field(page, "Email").fill(user.email);
    await field(page, "Password").fill(user.password);
    await field(page, "Confirm password").fill(user.password);
    await page.getByRole("checkbox", { name: /I agree to the Terms of Service/ }).check();
    await page.getByRole("button", { name: "Create Account" }).click();
    await page.waitForURL("**/verify-otp", { timeout: 30_000 });

    const otp = await latestCode(request, user.email, { kind: "verification", base: server.base });
    await fillOtpBoxes(page, otp);
    await page.getByRole("button", { name: "Verify Account" }).click();
    await expect(page.getByText(TEXT.verifySuccess).first()).toBeVisible();
    await page.waitForURL(`${server.base}/login`);

    await page.goto("about:blank");
    await server.stop();
    const attributed = await open(
      async (db) =>
        (
          await db.query<{ partner_id: string; source: string; is_verified: boolean }>(
            `select a.partner_id, a.source, u.is_verified from users u
             join partner_attributions a on a.organization_id = u.organization_id and a.ended_at is null
             where lower(u.email) = lower($1)`,
            [user.email],
          )
        ).rows,
    );
    expect(attributed).toEqual([{ partner_id: partnerId, source: "referral", is_verified: true }]);
  } finally {
    await page.goto("about:blank");
    await server.dispose();
  }
});
