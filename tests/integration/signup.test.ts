import { describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { activityLogs, mailOutbox, organizations, users, verificationCodes } from "~/.server/infrastructure/db/schema";
import { action as signupAction, loader as signupLoader } from "~/routes/auth/signup";
import { action as apiSignup } from "~/routes/api/auth.signup";
import { formRequest, getRequest, jsonRequest, run } from "../support/http";
import { createVerifiedUser, latestMailTo, uniqueEmail } from "../support/accounts";
import { appFetch } from "../support/in-process-app";

const valid = (email: string) => ({
  firstName: "Wanjiku",
  lastName: "Mwangi",
  businessName: "Mama Mboga Supplies",
  email,
  phoneNumber: "0712 345 678",
  password: "Karibu#2026",
  confirmPassword: "Karibu#2026",
  agreedToTerms: "on",
});

async function honeypotFields() {
  const page = await run<{ honeypot: { nameFieldName: string; validFromFieldName: string; encryptedValidFrom: string } }>(
    signupLoader,
    getRequest("/signup"),
  );
  const h = page.data.honeypot;
  return { [h.nameFieldName]: "", [h.validFromFieldName]: h.encryptedValidFrom };
}

async function tableCount(table: typeof users | typeof organizations) {
  const [row] = await db().select({ value: count() }).from(table);
  return row!.value;
}

describe("sign-up", () => {
  it("creates a pending Starter organisation and an unverified individual user, and e-mails a hashed 6-digit code", async () => {
    const email = uniqueEmail();
    const res = await run(signupAction, formRequest("/signup", { ...valid(email), ...(await honeypotFields()) }));
    expect(res.status).toBe(200);
    expect(res.data.success).toBe("Registration Successful! Please check your email for the verification OTP.");
    expect(res.setCookies.some((c) => c.startsWith("otp_email="))).toBe(true);

    const [user] = await db().select().from(users).where(eq(users.email, email));
    expect(user).toMatchObject({ usertype: "individual", isVerified: false, firstName: "Wanjiku", phoneNumber: "+254712345678" });
    expect(user!.passwordHash).toMatch(/^\$argon2id\$/);
    const [org] = await db().select().from(organizations).where(eq(organizations.id, user!.organizationId));
    expect(org).toMatchObject({
      name: "Mama Mboga Supplies",
      planType: "Starter",
      billingType: "postpaid",
      messageLimit: 1000,
      status: "pending",
    });

    const mail = await latestMailTo(email);
    const code = mail!.textBody.match(/\b(\d{6})\b/)![1]!;
    const [stored] = await db().select().from(verificationCodes).where(eq(verificationCodes.userId, user!.id));
    expect(stored!.codeHash).not.toContain(code);
    expect(stored!.codeHash).toHaveLength(64);
    const [logged] = await db().select().from(activityLogs).where(eq(activityLogs.userId, user!.id));
    expect(logged).toMatchObject({
      type: "auth",
      status: "success",
      action: "Account created",
      ipAddress: "198.51.100.7",
      userAgent: "vitest",
    });
  });

  it("names the organisation 'First Last' when no business name is given", async () => {
    const email = uniqueEmail();
    await run(signupAction, formRequest("/signup", { ...valid(email), businessName: "" }));
    const [row] = await db()
      .select({ name: organizations.name })
      .from(organizations)
      .innerJoin(users, eq(users.organizationId, organizations.id))
      .where(eq(users.email, email));
    expect(row!.name).toBe("Wanjiku Mwangi");
  });

  it("answers an existing e-mail exactly like a new one and sends that address a notice, not a code", async () => {
    const { email } = await createVerifiedUser();
    const fresh = await run(signupAction, formRequest("/signup", valid(uniqueEmail())));
    const again = await run(
      signupAction,
      formRequest("/signup", { ...valid(email.toUpperCase()), firstName: "Other" }, { ip: "203.0.113.9" }),
    );
    expect(again.status).toBe(fresh.status);
    expect(again.data.success).toBe(fresh.data.success);
    expect(again.setCookies.map((c) => c.split("=")[0])).toEqual(fresh.setCookies.map((c) => c.split("=")[0]));
    expect(await tableCount(users)).toBe(2);
    expect(await tableCount(organizations)).toBe(2);
    const notice = await latestMailTo(email);
    expect(notice!.subject).toBe("Someone tried to sign up with your e-mail");
    expect(notice!.textBody).not.toMatch(/\b\d{6}\b/);
  });

  it.each([
    [{ firstName: "" }, "Please fill in all required fields."],
    [{ password: "" }, "Please fill in all required fields."],
    [{ confirmPassword: "Different#1" }, "Passwords do not match."],
    [{ agreedToTerms: [] as string[] }, "You must agree to the terms and conditions."],
    [{ email: "not-an-email" }, "Email is invalid"],
    [{ phoneNumber: "12" }, "Please enter a valid phone number"],
  ])("refuses %o with the spec's message and stores nothing", async (change, message) => {
    const res = await run(signupAction, formRequest("/signup", { ...valid(uniqueEmail()), ...change }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.data.result.error)).toContain(message);
    expect(await tableCount(users)).toBe(0);
    expect(await tableCount(organizations)).toBe(0);
  });

  // Issue 39: a refused sign-up posted without JavaScript comes back with what was typed, except the passwords.
  it.each([
    ["passwords that do not match", { confirmPassword: "Different#1" }, "Passwords do not match."],
    ["a phone number the server refuses", { phoneNumber: "12" }, "Please enter a valid phone number"],
  ])("keeps the names, e-mail, phone and ticked terms box after %s, and clears the passwords", async (_case, change, message) => {
    const email = uniqueEmail();
    const res = await appFetch(formRequest("/signup", { ...valid(email), ...change }));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(message);
    const input = (name: string) => html.match(new RegExp(`<input[^>]*name="${name}"[^>]*>`))?.[0] ?? "";
    expect(input("firstName")).toContain('value="Wanjiku"');
    expect(input("lastName")).toContain('value="Mwangi"');
    expect(input("businessName")).toContain('value="Mama Mboga Supplies"');
    expect(input("email")).toContain(`value="${email}"`);
    expect(input("phoneNumber")).toContain(`value="${"phoneNumber" in change ? change.phoneNumber : "0712 345 678"}"`);
    expect(input("agreedToTerms")).toContain('checked=""');
    expect(input("password")).not.toContain("value=");
    expect(input("confirmPassword")).not.toContain("value=");
    expect(html).not.toContain("Karibu#2026");
  });

  it("leaves the terms box unticked when it was not ticked", async () => {
    const res = await appFetch(formRequest("/signup", { ...valid(uniqueEmail()), agreedToTerms: [] }));
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("You must agree to the terms and conditions.");
    expect(html.match(/<input[^>]*name="agreedToTerms"[^>]*>/)![0]).not.toContain("checked");
  });

  it("treats a filled honeypot as spam and creates nothing", async () => {
    const fields = await honeypotFields();
    const trap = Object.keys(fields).find((k) => fields[k] === "")!;
    const res = await run(signupAction, formRequest("/signup", { ...valid(uniqueEmail()), ...fields, [trap]: "http://spam.example" }));
    expect(res.status).toBe(400);
    expect(await tableCount(users)).toBe(0);
  });

  it("limits sign-ups per IP with a clear message", async () => {
    for (let i = 0; i < 10; i++)
      expect((await run(signupAction, formRequest("/signup", valid(uniqueEmail())), { ip: "192.0.2.50" })).status).toBe(200);
    const res = await run(signupAction, formRequest("/signup", valid(uniqueEmail())), { ip: "192.0.2.50" });
    expect(res.status).toBe(429);
    expect(JSON.stringify(res.data.result.error)).toMatch(/Too many attempts\. Please try again in \d+ minutes?\./);
    expect(await tableCount(users)).toBe(10);
    // Another address is not affected.
    expect((await run(signupAction, formRequest("/signup", valid(uniqueEmail())), { ip: "192.0.2.51" })).status).toBe(200);
  });

  describe("POST /api/auth/signup", () => {
    it("accepts the spec's payload and answers 201", async () => {
      const email = uniqueEmail();
      const res = await run(
        apiSignup,
        jsonRequest("/api/auth/signup", {
          firstName: "Juma",
          lastName: "Otieno",
          email,
          phoneNumber: "+254 722 000 111",
          password: "Karibu#2026",
          usertype: "individual",
          businessName: "",
          agreedToTerms: true,
        }),
      );
      expect(res.status).toBe(201);
      expect(res.data).toEqual({ message: "Registration Successful! Please check your email for the verification OTP.", email });
      expect(await latestMailTo(email)).not.toBeNull();
    });

    it("never creates an admin", async () => {
      const res = await run(
        apiSignup,
        jsonRequest("/api/auth/signup", {
          firstName: "Eve",
          lastName: "Admin",
          email: uniqueEmail(),
          password: "Karibu#2026",
          usertype: "admin",
        }),
      );
      expect(res.status).toBe(400);
      expect(res.data).toEqual({ message: "Invalid user type." });
      expect(await tableCount(users)).toBe(0);
    });

    it("answers 400 with a message for missing fields and bad JSON", async () => {
      const missing = await run(apiSignup, jsonRequest("/api/auth/signup", { email: uniqueEmail() }));
      expect(missing.status).toBe(400);
      expect(missing.data).toEqual({ message: "Please fill in all required fields." });
      const bad = await run(
        apiSignup,
        new Request("http://jumbe.test/api/auth/signup", { method: "POST", body: "{", headers: { "content-type": "application/json" } }),
      );
      expect(bad.status).toBe(400);
      expect(bad.data).toEqual({ message: "Request body must be valid JSON." });
      const [mails] = await db().select({ value: count() }).from(mailOutbox);
      expect(mails!.value).toBe(0);
    });
  });
});
