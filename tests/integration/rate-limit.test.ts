import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { hitRateLimit, refundRateLimit } from "~/.server/infrastructure/security/rate-limit";

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

  it("gives a refunded hit back in its own window only", async () => {
    const rule = { name: "test:refund", limit: 2, windowSeconds: 60 };
    const first = await hitRateLimit(rule, "s");
    await refundRateLimit(rule, "s", first);
    expect((await hitRateLimit(rule, "s")).hits).toBe(1);
    await refundRateLimit(rule, "s", { windowStamp: "2000-01-01 00:00:00+00" });
    expect((await hitRateLimit(rule, "s")).hits).toBe(2);
  });

  it("counts a per-IP rule per IPv6 /64 and an IPv4-mapped address as IPv4", async () => {
    const rule = { name: "test:ip", limit: 1, windowSeconds: 60, perIp: true };
    expect((await hitRateLimit(rule, "2001:db8:5:6::1")).allowed).toBe(true);
    expect((await hitRateLimit(rule, "2001:db8:5:6:ffff::2")).allowed).toBe(false);
    expect((await hitRateLimit(rule, "2001:db8:5:7::1")).allowed).toBe(true);
    expect((await hitRateLimit(rule, "203.0.113.9")).allowed).toBe(true);
    expect((await hitRateLimit(rule, "::ffff:203.0.113.9")).allowed).toBe(false);
  });

  it("keeps its counters in an unlogged table, so a hit's commit waits for no disk flush (decision 178)", async () => {
    const [table] = await rawQuery<{ relpersistence: string }>(`select relpersistence from pg_class where oid = 'rate_limits'::regclass`);
    expect(table?.relpersistence).toBe("u");
    // Its primary key index goes with it: nothing of the table is logged.
    const logged = await rawQuery<{ relname: string }>(
      `select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'rate_limits'::regclass and c.relpersistence <> 'u'`,
    );
    expect(logged).toEqual([]);
  });
});
