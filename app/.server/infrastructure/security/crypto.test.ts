import { describe, expect, it } from "vitest";
import { constantTimeEqual, decryptSecret, encryptSecret, randomDigits, randomToken } from "./crypto";

describe("crypto helpers", () => {
  it("seals secrets so only the key opens them, and detects tampering", () => {
    const sealed = encryptSecret("EAAG-secret-token");
    expect(sealed).not.toContain("EAAG");
    expect(decryptSecret(sealed)).toBe("EAAG-secret-token");
    const parts = sealed.split(".");
    parts[3] = Buffer.from("tampered").toString("base64url");
    expect(() => decryptSecret(parts.join("."))).toThrow();
  });

  it("makes digit codes and tokens of the right shape", () => {
    expect(randomDigits(6)).toMatch(/^\d{6}$/);
    expect(randomToken(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(Array.from({ length: 50 }, () => randomToken())).size).toBe(50);
  });

  it("compares in constant time without throwing on length", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
  });
});
