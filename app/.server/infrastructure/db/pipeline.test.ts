import { describe, expect, it } from "vitest";
import { isBatchable, SLOW_STATEMENT_MS, StatementDurations } from "./pipeline";

describe("isBatchable", () => {
  it("lets plain reads go in a turn's batch", () => {
    for (const text of [
      "select id, name from organizations where id = $1",
      "  SELECT 1",
      "with page as (select * from contacts where organization_id = $1) select * from page",
      "/* planned for its values */ select * from messages where body like $1",
      "values (1), (2)",
      "select locked_until, updated_at, deleted_at from messages where id = $1",
    ])
      expect(isBatchable(text), text).toBe(true);
  });

  it("sends alone what writes, locks, waits or holds several statements", () => {
    for (const text of [
      "insert into api_usage_minutely (organization_id) values ($1)",
      "update messages set locked_until = now() where id = $1",
      "delete from messages where id = $1",
      "with moved as (delete from billing_usage_pending returning *) select count(*) from moved",
      "with k as (select id from api_keys where key_hash = $1), touched as (update api_keys set last_used_at = now()) select * from k",
      "select id from messages where accepted_at is null order by next_attempt_at limit 10 for update skip locked",
      "select * from jobs for no key update",
      "select * from organizations where id = $1 for share",
      "select pg_advisory_xact_lock($1)",
      "select pg_sleep(1)",
      "select nextval('invoice_numbers')",
      "select pg_notify('jumbe_inbox', $1)",
      "select set_config('jumbe.actor', $1, true)",
      "lock table messages in share mode",
      "begin",
      "set local statement_timeout = 1000",
      "select 1; select 2",
    ])
      expect(isBatchable(text), text).toBe(false);
  });
});

describe("StatementDurations", () => {
  it("counts a text slow while every one of its latest runs took over the limit", () => {
    const durations = new StatementDurations();
    expect(durations.isSlow("select 1")).toBe(false);
    durations.note("select 1", SLOW_STATEMENT_MS * 5);
    expect(durations.isSlow("select 1")).toBe(true);
    // One quick run among slow ones: the slow ones were waits (for a connection, for the event loop).
    durations.note("select 1", 0.1);
    expect(durations.isSlow("select 1")).toBe(false);
    for (let i = 0; i < 4; i++) durations.note("select 1", SLOW_STATEMENT_MS * 2);
    expect(durations.isSlow("select 1")).toBe(false);
    // Five slow runs in a row push the quick one out.
    durations.note("select 1", SLOW_STATEMENT_MS * 2);
    expect(durations.isSlow("select 1")).toBe(true);
  });

  it("does not count a quick text slow for waits of a busy process that come and go", () => {
    const durations = new StatementDurations();
    // Under load most runs wait tens of milliseconds for the event loop; an average of them was over the limit.
    for (const ms of [35, 40, 0.4, 28, 50, 31, 0.6, 44, 39, 27]) durations.note("select 2", ms);
    expect(durations.isSlow("select 2")).toBe(false);
  });

  it("keeps at most its limit of texts, forgetting the oldest", () => {
    const durations = new StatementDurations(2);
    durations.note("a", 100);
    durations.note("b", 100);
    durations.note("c", 100);
    expect(durations.isSlow("a")).toBe(false);
    expect(durations.isSlow("b")).toBe(true);
    expect(durations.isSlow("c")).toBe(true);
  });
});
