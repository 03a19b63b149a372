import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, rawQuery, setCurrentDatabase, type DatabaseHandle } from "~/.server/infrastructure/db/client";
import { codeForStep, stepAt } from "~/.server/domains/auth/two-factor/totp";
import { action as loginAction } from "~/routes/auth/login";
import { action as twoFactorAction } from "~/routes/auth/two-factor";
import { action as securityAction, loader as securityLoader } from "~/routes/app/settings/security";
import { appFetch } from "../support/in-process-app";
import { cookieHeader, formRequest, getRequest, run } from "../support/http";
import { createVerifiedUser } from "../support/accounts";
import { adminQuery } from "../support/database";

/**
 * Issue 74: a production install had no documented way to make its first platform administrator.
 * `npm run admin:create` (scripts/admin-create.ts) runs here as operators run it, a child process
 * against a fresh database (a new PostgreSQL database on TEST_DATABASE_URL, or a new PGlite
 * directory), its answers on standard input (no terminal: one a line). The account it stores signs
 * in, sets up two-factor sign-in first, and opens the console.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const PASSWORD = "Mlinzi#Mkuu2026";

interface Fresh {
  env: Record<string, string>;
  open: () => Promise<DatabaseHandle>;
  drop: () => Promise<void>;
}

/** A database nobody has used: the command migrates it, as on a fresh install. */
async function freshDatabase(): Promise<Fresh> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const name = `jumbe_admin_create_${randomBytes(5).toString("hex")}`;
    await adminQuery(adminUrl, `create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
      env: { DATABASE_URL: url.toString() },
      open: () => openDatabase({ databaseUrl: url.toString(), poolSize: 2 }),
      drop: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`),
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-admin-create-"));
  return {
    env: { DATA_DIR: dir },
    open: () => openDatabase({ dataDir: path.join(dir, "pglite") }),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The command with its answers piped in; answers its exit code and what it printed. */
function adminCreate(env: Record<string, string>, answers: string[], args: string[] = []) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const { DATABASE_URL: _url, TEST_DATABASE_URL: _test, ...inherited } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/admin-create.ts"), ...args], {
      cwd: ROOT,
      env: { ...inherited, NODE_ENV: "test", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
    child.stdin.end(answers.map((line) => `${line}\n`).join(""));
  });
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
}, 60_000);

describe("npm run admin:create", () => {
  it("makes the first platform administrator on a fresh database, who sets up two-factor sign-in and then opens the console", async () => {
    const fresh = await freshDatabase();
    cleanups.push(fresh.drop);

    // Sign-up's rules: a short password is refused; nothing is stored (two that differ: the next test).
    const weak = await adminCreate(fresh.env, ["mkuu@jumbe.example", "Amina", "Otieno", "short", "short"]);
    expect(weak.code).toBe(1);
    expect(weak.err).toContain("Password must be at least 8 characters long");
    // Never a password on the command line.
    const argv = await adminCreate(fresh.env, [], ["--password", PASSWORD]);
    expect(argv.code).toBe(1);
    expect(argv.err).toContain("takes no arguments");

    const made = await adminCreate(fresh.env, ["Mkuu@Jumbe.example", "Amina", "Otieno", PASSWORD, PASSWORD]);
    expect(made.err).toBe("");
    expect(made.code).toBe(0);
    expect(made.out).toContain("Platform administrator mkuu@jumbe.example created.");
    // Again: nothing changes, and it says so.
    const again = await adminCreate(fresh.env, ["mkuu@jumbe.example", "Amina", "Otieno", PASSWORD, PASSWORD]);
    expect(again.code).toBe(0);
    expect(again.out).toContain("mkuu@jumbe.example is already a platform administrator: nothing changed.");

    // The test's own database steps aside while the fresh one is read and signed in to.
    const previous = currentHandle();
    const handle = await fresh.open();
    try {
      const stored = await rawQuery<Record<string, unknown>>(
        `select u.email, u.first_name, u.last_name, u.usertype, u.platform_role, u.org_role, u.is_verified, u.two_factor_required,
                u.password_hash like '$argon2id$%' as argon2, o.status, (select count(*)::int from users) as users
         from users u join organizations o on o.id = u.organization_id`,
      );
      expect(stored).toEqual([
        {
          email: "mkuu@jumbe.example",
          first_name: "Amina",
          last_name: "Otieno",
          usertype: "admin",
          platform_role: "owner",
          org_role: "owner",
          is_verified: true,
          two_factor_required: true,
          argon2: true,
          status: "active",
          users: 1,
        },
      ]);

      // Signing in: the console first asks for two-factor sign-in to be set up.
      const signedIn = await run(loginAction, formRequest("/login", { email: "mkuu@jumbe.example", password: PASSWORD }));
      expect(signedIn.status).toBe(302);
      const cookie = cookieHeader(signedIn.setCookies);
      const console1 = await appFetch(getRequest("/admin", { cookie, headers: { accept: "text/html" } }));
      expect(console1.status).toBe(302);
      expect(console1.headers.get("location")).toBe("/settings/security");
      await run(securityAction, formRequest("/settings/security", { intent: "2fa-start" }, { cookie }));
      const secret: string = (await run(securityLoader, getRequest("/settings/security", { cookie }))).data.twoFactor.setup.secret;
      const confirmed = await run(
        securityAction,
        formRequest("/settings/security", { intent: "2fa-confirm", code: codeForStep(secret, stepAt(Date.now())) }, { cookie }),
      );
      expect(confirmed.status).toBe(200);
      const console2 = await appFetch(getRequest("/admin", { cookie, headers: { accept: "text/html" } }));
      expect(console2.status).toBe(200);
      expect(await console2.text()).toContain("Staff");

      // A new sign-in asks for the code, then lands in the console.
      const password = await run(loginAction, formRequest("/login", { email: "mkuu@jumbe.example", password: PASSWORD }));
      expect(password.location).toBe("/login/two-factor");
      const step = await run(
        twoFactorAction,
        formRequest(
          "/login/two-factor",
          { code: codeForStep(secret, stepAt(Date.now()) + 1) },
          { cookie: cookieHeader(password.setCookies) },
        ),
      );
      expect(step.status).toBe(302);
      expect(step.location).toBe("/admin");
    } finally {
      await handle.close();
      setCurrentDatabase(previous);
    }
  }, 600_000);

  it("refuses an address that belongs to a business's account, and changes nothing", async () => {
    // Run against the test's database through the same function the command calls.
    const { createFirstAdministrator, BUSINESS_ACCOUNT } = await import("~/.server/domains/admin/staff/first-admin");
    const owner = await createVerifiedUser({ businessName: "Duka la Mama" });
    const result = await createFirstAdministrator({
      email: owner.email.toUpperCase(),
      firstName: "A",
      lastName: "B",
      password: PASSWORD,
      confirmPassword: PASSWORD,
    });
    expect(result).toEqual({ outcome: "refused", problems: [BUSINESS_ACCOUNT] });
    const [row] = await rawQuery<{ usertype: string; platform_role: string | null }>(
      `select usertype, platform_role from users where id = $1`,
      [owner.user.id],
    );
    expect(row).toEqual({ usertype: "individual", platform_role: null });
    // Two passwords that differ: refused as sign-up refuses them.
    const differ = await createFirstAdministrator({
      email: "mkuu@jumbe.example",
      firstName: "A",
      lastName: "B",
      password: PASSWORD,
      confirmPassword: `${PASSWORD}x`,
    });
    expect(differ).toEqual({ outcome: "refused", problems: ["Passwords do not match."] });
    expect(await rawQuery(`select 1 from users where email = 'mkuu@jumbe.example'`)).toEqual([]);
  });
});

/** The database the test file opened (process state "database", app/.server/infrastructure/db/client.ts), to put back. */
function currentHandle(): DatabaseHandle {
  const store = globalThis as unknown as Record<symbol, { current?: DatabaseHandle } | undefined>;
  return store[Symbol.for("jumbe.database")]!.current!;
}
