import { describe, expect, it } from "vitest";
import { createCookie } from "react-router";
import { readCookie } from "./cookies";

const withCookie = (cookie: string) => new Request("http://jumbe.test/", { headers: { cookie } });

describe("reading cookies", () => {
  it("reads a cookie among others and decodes it", () => {
    expect(readCookie(withCookie("a=1; jumbe_session=abc%2Bdef; b=2"), "jumbe_session")).toBe("abc+def");
    expect(readCookie(withCookie("a=1"), "jumbe_session")).toBeUndefined();
    expect(readCookie(new Request("http://jumbe.test/"), "jumbe_session")).toBeUndefined();
  });

  it("treats a value that does not decode, or decodes to a control character, as absent", () => {
    for (const value of ["%", "%ZZ", "x%2", "%E0%A4%A", "abc%00def", "%0A"]) {
      expect(readCookie(withCookie(`jumbe_session=${value}`), "jumbe_session")).toBeUndefined();
    }
  });

  it("React Router's cookies (otp_email, reset_email, toasts, the sidebar) survive the same values", async () => {
    const signed = createCookie("otp_email", { secrets: ["s".repeat(32)] });
    const plain = createCookie("jumbe_sidebar");
    for (const value of ["%", "%ZZ", "x%2", "%00"]) {
      expect(await signed.parse(`otp_email=${value}`)).toBeNull();
      await expect(plain.parse(`jumbe_sidebar=${value}`)).resolves.not.toBe("collapsed");
    }
  });
});
