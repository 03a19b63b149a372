import { describe, expect, it } from "vitest";
import { isDatabaseUnavailableError } from "../db/availability";
import { MailNotSentError } from "./transport";

describe("MailNotSentError", () => {
  it("keeps the mail server's network error in words, never as a database outage a job worker would hand back", () => {
    for (const code of ["ETIMEDOUT", "ECONNREFUSED", "ECONNRESET"]) {
      const network = Object.assign(new Error(`connect ${code} 127.0.0.1:2525`), { code });
      expect(isDatabaseUnavailableError(network)).toBe(true);
      const wrapped = new MailNotSentError(network);
      expect(isDatabaseUnavailableError(wrapped)).toBe(false);
      expect(wrapped.message).toBe(`mail not sent: connect ${code} 127.0.0.1:2525`);
      expect(wrapped.reason).toBe(network);
    }
  });
});
