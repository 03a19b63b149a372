import { describe, expect, it } from "vitest";
import { base32Encode, codeForStep, matchingStep, otpauthUri, stepAt, TOTP_STEP_SECONDS } from "./totp";

// RFC 6238's SHA-1 test key, "12345678901234567890".
const secret = base32Encode(Buffer.from("12345678901234567890"));
const now = 1_700_000_000_000;
const step = stepAt(now);

describe("TOTP codes", () => {
  it("accepts a code from the step before, now and the step after, answering the step it matched", () => {
    expect(matchingStep(secret, codeForStep(secret, step - 1), now)).toBe(step - 1);
    expect(matchingStep(secret, codeForStep(secret, step), now)).toBe(step);
    expect(matchingStep(secret, codeForStep(secret, step + 1), now)).toBe(step + 1);
  });

  it("refuses a wrong code, a code two steps off, and anything that is not six digits", () => {
    const right = codeForStep(secret, step);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    expect(matchingStep(secret, wrong, now)).toBeNull();
    expect(matchingStep(secret, codeForStep(secret, step - 2), now)).toBeNull();
    expect(matchingStep(secret, codeForStep(secret, step + 2), now)).toBeNull();
    expect(matchingStep(secret, right.slice(0, 5), now)).toBeNull();
    expect(matchingStep(secret, `${right}0`, now)).toBeNull();
    expect(matchingStep(secret, "12345a", now)).toBeNull();
  });

  it("reads a secret typed in lower case with spaces as the same secret", () => {
    const typed = secret.toLowerCase().replace(/(.{4})/g, "$1 ");
    expect(codeForStep(typed, step)).toBe(codeForStep(secret, step));
  });

  it("gives authenticator apps a Key Uri with the secret, SHA-1, 6 digits and 30 s", () => {
    const [label, query] = otpauthUri(secret, "wanjiru@example.co.ke").split("?");
    expect(label).toBe("otpauth://totp/Jumbe:wanjiru%40example.co.ke");
    expect(Object.fromEntries(new URLSearchParams(query))).toEqual({
      secret,
      issuer: "Jumbe",
      algorithm: "SHA1",
      digits: "6",
      period: String(TOTP_STEP_SECONDS),
    });
  });
});
