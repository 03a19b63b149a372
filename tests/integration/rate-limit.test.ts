import { describe, expect, it } from "vitest";
import { hitRateLimit } from "~/.server/security/rate-limit";

describe("database rate limits", () => {
  it("counts concurrent hits exactly, so instances sharing the database agree", async () => {
    const rule = { name: "test:concurrent", limit: 10, windowSeconds: 60 };
    const results = await Promise.all(Array.from({ length: 25 }, () => hitRateLimit(rule, "subject")));
    expect(results.map((r) => r.hits).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results.every((r) => r.retryAfterSeconds > 0 && r.retryAfterSeconds <= 60)).toBe(true);
  });

  it("keeps subjects and buckets apart, and treats e-mail case alike", async () => {
    const rule = { name: "test:apart", limit: 1, windowSeconds: 60 };
    expect((await hitRateLimit(rule, "A@Example.com")).allowed).toBe(true);
    expect((await hitRateLimit(rule, "a@example.com")).allowed).toBe(false);
    expect((await hitRateLimit(rule, "b@example.com")).allowed).toBe(true);
    expect((await hitRateLimit({ ...rule, name: "test:other" }, "a@example.com")).allowed).toBe(true);
  });
});
