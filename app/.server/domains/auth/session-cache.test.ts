import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionCache } from "./session-cache";

// The cache's own rules, with a LISTEN the test drives: a copy lives for the TTL, goes on its
// user's or organisation's notification, is never stored by a lookup an eviction overtook, and is
// never used while the LISTEN is down or a write of this instance is still being heard.

const handle = { kind: "pglite" } as never;

const SHELL_CHANNELS = { member: "member_channel", organization: "inbox_channel" };

function cacheWith(ttl = 5_000, shellChannels: typeof SHELL_CHANNELS | null = SHELL_CHANNELS) {
  const heard: { message?: (payload: string, channel?: string) => void; lost?: () => void; resync?: () => void } = {};
  let release: (() => void) | undefined;
  const cache = new SessionCache<{ id: string }, { id: string }, { id: string }>(
    () => ttl,
    async (message, lost, resync) => {
      Object.assign(heard, { message, lost, resync });
      return async () => {};
    },
    () => new Promise<void>((resolve) => (release = resolve)),
    () => handle,
    shellChannels ?? undefined,
  );
  return { cache, heard, release: () => release?.() };
}

const lookup = (user: string, organization: string) => ({
  session: { id: "s" },
  user: { id: user },
  organization: { id: organization },
  userId: user,
  organizationId: organization,
});

async function ready(cache: SessionCache<{ id: string }, { id: string }, { id: string }>) {
  cache.usable();
  await Promise.resolve();
  await Promise.resolve();
  expect(cache.usable()).toBe(true);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("SessionCache", () => {
  it("is off until its LISTEN is in place, and with a TTL of 0", async () => {
    const { cache } = cacheWith();
    expect(cache.ticket()).toBeUndefined();
    await ready(cache);
    expect(cacheWith(0).cache.usable()).toBe(false);
  });

  it("keeps a copy for the TTL only", async () => {
    const { cache } = cacheWith(5_000);
    await ready(cache);
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000_000);
    cache.put("k", cache.ticket(), lookup("u1", "o1"));
    now.mockReturnValue(1_004_999);
    expect(cache.get("k")?.user.id).toBe("u1");
    now.mockReturnValue(1_005_000);
    expect(cache.get("k")).toBeUndefined();
  });

  it("drops the copies a notification names, and everything on '*'", async () => {
    const { cache, heard } = cacheWith();
    await ready(cache);
    cache.put("a", cache.ticket(), lookup("u1", "o1"));
    cache.put("b", cache.ticket(), lookup("u2", "o1"));
    cache.put("c", cache.ticket(), lookup("u3", "o2"));
    heard.message!("u:u9,u2");
    expect([cache.get("a"), cache.get("b"), cache.get("c")].map(Boolean)).toEqual([true, false, true]);
    heard.message!("o:o2");
    expect([cache.get("a"), cache.get("c")].map(Boolean)).toEqual([true, false]);
    heard.message!("*");
    expect(cache.size()).toBe(0);
  });

  it("does not store a lookup that an eviction of its user, its organisation or everyone overtook", async () => {
    const { cache, heard } = cacheWith();
    await ready(cache);
    for (const payload of ["u:u9,u1", "o:o1", "*"]) {
      const ticket = cache.ticket();
      heard.message!("u:someone-else");
      heard.message!(payload);
      cache.put("k", ticket, lookup("u1", "o1"));
      expect(cache.get("k"), payload).toBeUndefined();
    }
  });

  it("stores a lookup that only evictions of other people overtook", async () => {
    const { cache, heard } = cacheWith();
    await ready(cache);
    const ticket = cache.ticket();
    heard.message!("u:u2,u3");
    heard.message!("o:o2");
    cache.put("k", ticket, lookup("u1", "o1"));
    expect(cache.get("k")?.user.id).toBe("u1");
  });

  it("does not store a lookup older than every eviction it remembers", async () => {
    const { cache, heard } = cacheWith();
    await ready(cache);
    const ticket = cache.ticket();
    for (let i = 0; i < 300; i++) heard.message!(`u:other-${i}`);
    cache.put("k", ticket, lookup("u1", "o1"));
    expect(cache.get("k")).toBeUndefined();
  });

  it("answers nothing while the LISTEN is down, and starts empty when it is back", async () => {
    const { cache, heard } = cacheWith();
    await ready(cache);
    cache.put("k", cache.ticket(), lookup("u1", "o1"));
    heard.lost!();
    expect(cache.get("k")).toBeUndefined();
    expect(cache.ticket()).toBeUndefined();
    heard.resync!();
    expect(cache.usable()).toBe(true);
    expect(cache.get("k")).toBeUndefined();
  });

  it("bypasses the copies until the listener has heard a write of this instance", async () => {
    const { cache, release } = cacheWith();
    await ready(cache);
    cache.put("mine", cache.ticket(), lookup("u1", "o1"));
    cache.put("other", cache.ticket(), lookup("u2", "o1"));
    const before = cache.ticket();
    const done = cache.afterWrite("mine");
    expect(cache.get("other")).toBeUndefined();
    release();
    await done;
    expect(cache.get("mine")).toBeUndefined();
    expect(cache.get("other")?.user.id).toBe("u2");
    cache.put("late", before, lookup("u3", "o1"));
    expect(cache.get("late")).toBeUndefined();
  });
  it("keeps an organisation's month's usage for the TTL, and drops it with its organisation or everything", async () => {
    const { cache, heard } = cacheWith(5_000);
    await ready(cache);
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000_000);
    cache.putUsage("o1", cache.ticket(), 42);
    cache.putUsage("o2", cache.ticket(), 7);
    now.mockReturnValue(1_004_999);
    expect(cache.usage("o1")).toBe(42);
    // A user's notification (a member of o1 changed) leaves the organisation's usage alone.
    heard.message!("u:u1");
    expect(cache.usage("o1")).toBe(42);
    heard.message!("o:o9,o1");
    expect([cache.usage("o1"), cache.usage("o2")]).toEqual([undefined, 7]);
    now.mockReturnValue(1_005_000);
    expect(cache.usage("o2")).toBeUndefined();
    cache.putUsage("o3", cache.ticket(), 1);
    heard.message!("*");
    expect(cache.usage("o3")).toBeUndefined();
  });

  it("does not keep a usage read that an eviction of its organisation overtook, nor any while the LISTEN is down", async () => {
    const { cache, heard } = cacheWith();
    await ready(cache);
    const ticket = cache.ticket();
    heard.message!("o:o2");
    cache.putUsage("o1", ticket, 3);
    expect(cache.usage("o1"), "another organisation's change does not stop it").toBe(3);
    const late = cache.ticket();
    heard.message!("o:o1");
    cache.putUsage("o1", late, 4);
    expect(cache.usage("o1")).toBeUndefined();
    cache.putUsage("o1", cache.ticket(), 5);
    heard.lost!();
    expect(cache.usage("o1")).toBeUndefined();
    heard.resync!();
    expect(cache.usage("o1"), "emptied when the LISTEN is back").toBeUndefined();
  });

  it("reads an organisation's usage again for a write of one of its members, and once more when the write was heard", async () => {
    const { cache, release } = cacheWith();
    await ready(cache);
    cache.putUsage("o1", cache.ticket(), 10);
    cache.putUsage("o2", cache.ticket(), 20);
    cache.writing("mine", "o1");
    expect([cache.usage("o1"), cache.usage("o2")]).toEqual([undefined, 20]);
    // Another member's read of o1 while the write runs, which may have seen the row before its commit.
    cache.putUsage("o1", cache.ticket(), 10);
    const before = cache.ticket();
    const done = cache.afterWrite("mine");
    expect(cache.usage("o2"), "bypassed while the write is being heard").toBeUndefined();
    release();
    await done;
    expect([cache.usage("o1"), cache.usage("o2")]).toEqual([undefined, 20]);
    // A read that began before the write was heard is not kept either.
    cache.putUsage("o1", before, 11);
    expect(cache.usage("o1")).toBeUndefined();
    cache.putUsage("o1", cache.ticket(), 12);
    expect(cache.usage("o1")).toBe(12);
  });

  it("keeps a member's shell counts for the TTL; a notification of the member or a change of the organisation's inbox drops them", async () => {
    const { cache, heard } = cacheWith(5_000);
    await ready(cache);
    const now = vi.spyOn(Date, "now").mockReturnValue(1_000_000);
    cache.putShell("u1", "o1", cache.ticket(), { unread: 2, inboxUnread: 5 });
    cache.putShell("u2", "o1", cache.ticket(), { unread: 1, inboxUnread: 5 });
    cache.putShell("u3", "o2", cache.ticket(), { unread: 0, inboxUnread: 9 });
    now.mockReturnValue(1_004_999);
    expect(cache.shell("u1", "o1")).toEqual({ unread: 2, inboxUnread: 5 });
    // Another member's notification leaves u1's counts alone; u2's own drops u2's.
    heard.message!("u2", "member_channel");
    expect([cache.shell("u1", "o1"), cache.shell("u2", "o1")].map(Boolean)).toEqual([true, false]);
    // A message into o1's inbox drops every o1 member's counts, not o2's.
    heard.message!("o1", "inbox_channel");
    expect([cache.shell("u1", "o1"), cache.shell("u3", "o2")].map(Boolean)).toEqual([false, true]);
    now.mockReturnValue(1_005_000);
    expect(cache.shell("u3", "o2"), "past the TTL").toBeUndefined();
    cache.putShell("u4", "o3", cache.ticket(), { unread: 1, inboxUnread: 1 });
    heard.message!("*");
    expect(cache.shell("u4", "o3")).toBeUndefined();
  });

  it("does not keep shell counts that a change of them overtook, and keeps them apart from the lookups' evictions", async () => {
    const { cache, heard } = cacheWith();
    await ready(cache);
    for (const [payload, channel] of [
      ["u1", "member_channel"],
      ["o1", "inbox_channel"],
      ["u:u1", undefined],
      ["*", undefined],
    ] as const) {
      const ticket = cache.ticket();
      heard.message!("o9", "inbox_channel");
      heard.message!(payload, channel);
      cache.putShell("u1", "o1", ticket, { unread: 1, inboxUnread: 1 });
      expect(cache.shell("u1", "o1"), `${channel}: ${payload}`).toBeUndefined();
    }
    // A burst of inbox changes elsewhere (a campaign's statuses) does not stop a session's lookup being stored.
    const ticket = cache.ticket();
    for (let i = 0; i < 300; i++) heard.message!(`other-${i}`, "inbox_channel");
    cache.put("k", ticket, lookup("u1", "o1"));
    expect(cache.get("k")?.user.id).toBe("u1");
  });

  it("keeps no shell counts without their channels, nor while the LISTEN is down or a write is being heard", async () => {
    const bare = cacheWith(5_000, null);
    await ready(bare.cache);
    bare.cache.putShell("u1", "o1", bare.cache.ticket(), { unread: 1, inboxUnread: 1 });
    expect(bare.cache.shell("u1", "o1"), "nothing would ever drop them").toBeUndefined();
    const { cache, heard, release } = cacheWith();
    await ready(cache);
    cache.putShell("u1", "o1", cache.ticket(), { unread: 1, inboxUnread: 1 });
    const done = cache.afterWrite("mine");
    expect(cache.shell("u1", "o1")).toBeUndefined();
    release();
    await done;
    expect(cache.shell("u1", "o1")).toEqual({ unread: 1, inboxUnread: 1 });
    heard.lost!();
    expect(cache.shell("u1", "o1")).toBeUndefined();
    heard.resync!();
    expect(cache.shell("u1", "o1"), "emptied when the LISTEN is back").toBeUndefined();
  });
});
