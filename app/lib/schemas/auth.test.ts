import { describe, expect, it } from "vitest";
import { ChangePasswordSchema, EmailOnlySchema, OtpSchema, ProfileSchema, SigninSchema, SignupSchema } from "./auth";
import { passwordStrength } from "~/assets/forms.js";
import { normalizePhone } from "../phone";
import { joinOtpBoxes } from "../otp";

const messagesOf = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.error?.issues.map((i) => i.message) ?? [];

describe("validation texts (spec section 5)", () => {
  it("sign-in", () => {
    expect(messagesOf(SigninSchema.safeParse({ email: "", password: "" }))).toEqual(["Email is required", "Password is required"]);
    expect(messagesOf(SigninSchema.safeParse({ email: "a b@c.d", password: "12345" }))).toEqual([
      "Email is invalid",
      "Password must be at least 6 characters",
    ]);
    expect(SigninSchema.safeParse({ email: "juma@example.co.ke", password: "123456" }).success).toBe(true);
  });

  it("sign-up", () => {
    expect(messagesOf(SignupSchema.safeParse({ firstName: "A" }))).toEqual(["Please fill in all required fields."]);
    const base = { firstName: "A", lastName: "B", email: "a@b.co", password: "Karibu#2026", agreedToTerms: true };
    expect(messagesOf(SignupSchema.safeParse({ ...base, confirmPassword: "x" }))).toEqual(["Passwords do not match."]);
    expect(messagesOf(SignupSchema.safeParse({ ...base, agreedToTerms: false }))).toEqual(["You must agree to the terms and conditions."]);
    expect(SignupSchema.safeParse(base).success).toBe(true);
  });

  it("OTP strips non-digits and wants six", () => {
    expect(OtpSchema.parse({ otp: "12-34 56" }).otp).toBe("123456");
    expect(messagesOf(OtpSchema.safeParse({ otp: "12a4" }))).toEqual(["Please enter the complete 6-digit OTP code"]);
    const boxes = new FormData();
    for (const d of "123456") boxes.append("otp", d);
    boxes.append("email", "a@b.co");
    expect(joinOtpBoxes(boxes).get("otp")).toBe("123456");
  });

  it("an e-mail with NUL or another control character is invalid (PostgreSQL cannot store NUL)", () => {
    for (const email of [
      "juma\u0000@example.co.ke",
      "juma@exa\u0000mple.co.ke",
      "juma@example.co.ke\u0000",
      "ju\u0001ma@example.co.ke",
      "juma@example.co\u007f.ke",
      "juma@example.co.k\u009fe",
    ]) {
      expect(messagesOf(SigninSchema.safeParse({ email, password: "123456" }))).toEqual(["Email is invalid"]);
      expect(messagesOf(EmailOnlySchema.safeParse({ email }))).toEqual(["Email is invalid"]);
      expect(messagesOf(ProfileSchema.safeParse({ businessName: "Duka", email }))).toEqual(["Email is invalid"]);
      expect(
        messagesOf(SignupSchema.safeParse({ firstName: "A", lastName: "B", email, password: "Karibu#2026", agreedToTerms: true })),
      ).toEqual(["Email is invalid"]);
    }
    expect(EmailOnlySchema.safeParse({ email: "wanjiru.müller@example.co.ke" }).success).toBe(true);
  });

  it("change password", () => {
    expect(messagesOf(ChangePasswordSchema.safeParse({}))).toEqual([
      "Current password is required",
      "New password is required",
      "Please confirm your new password",
    ]);
    expect(
      messagesOf(ChangePasswordSchema.safeParse({ currentPassword: "OldPass#1", newPassword: "OldPass#1", confirmPassword: "OldPass#1" })),
    ).toEqual(["New password must be different from current password"]);
  });
});

describe("password strength (spec section 5)", () => {
  it.each([
    ["", "Weak"],
    ["abc", "Weak"],
    ["abcdefgh", "Fair"],
    ["Abcdefgh", "Good"],
    ["Abcdefg1", "Strong"],
    ["Abcdef1!", "Strong"],
  ])("%s is %s", (password, label) => {
    expect(passwordStrength(password).label).toBe(label);
  });
});

describe("Kenyan phone numbers", () => {
  it.each([
    ["0712345678", "+254712345678"],
    ["0112345678", "+254112345678"],
    ["+254 712 345 678", "+254712345678"],
    ["254712345678", "+254712345678"],
    ["12", null],
  ])("%s becomes %s", (input, expected) => {
    expect(normalizePhone(input)).toBe(expected);
  });
});
