import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { databaseKind, db, listenChannel, listenerCaughtUp, rawQuery } from "~/.server/infrastructure/db/client";
import { createPgListener } from "~/.server/infrastructure/db/pg-listener";
import { currentUser } from "~/.server/domains/auth/guards";
import { deleteUserSessions, findSession, sessionCache, setSessionCache } from "~/.server/domains/auth/sessions";
import { listenSessionChannels, SESSION_CHANGES_CHANNEL, SessionCache } from "~/.server/domains/auth/session-cache";
import { notify } from "~/.server/domains/notifications";
import { INBOX_CHANNEL, NOTIFICATION_CHANNEL } from "~/.server/infrastructure/db/channels";
import { markRead } from "~/.server/domains/notifications/queries";
import { logConversationEvents } from "~/.server/domains/messaging/conversation-events";
import { conversationOr404 } from "~/.server/domains/inbox/list";
import { markConversationOpened } from "~/.server/domains/inbox/actions";
import { changeMemberRole, removeMember } from "~/.server/domains/team/members";
import { sha256 } from "~/.server/infrastructure/security/crypto";
import { countStatements } from "~/.server/infrastructure/db/statement-count";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, META, passwordHashFor, signedInCookie, uniqueEmail } from "../support/accounts";
import { getRequest, jsonRequest } from "../support/http";
import { users } from "~/.server/infrastructure/db/schema";

/**
 * Decision 166: each instance keeps a short-lived copy of a session's lookup, and PostgreSQL's
 * NOTIFY (migration 0084's triggers) drops it on every instance the moment the session, its user or
 * its organisation changes. Two instances here are two caches, each with its own LISTEN on the same
 * database: "A" is this process's (the one requests go through by default) and "B" a second one
 * (on PostgreSQL a LISTEN connection of its own). The TTL is a minute, so only the notification can
 * take a copy away within a test. "The next request on B" is sent once B's listener has heard what
 * was committed before it (one round trip on B's LISTEN connection: the delivery a real instance
 * waits for too, well under a millisecond on one machine).
 */

const LONG_TTL = { NODE_ENV: "test", APP_URL: "http://jumbe.test", SESSION_CACHE_MS: "60000" } as const;

interface Instance {
  cache: SessionCache<never, never, never>;
  /** Every notification committed so far has reached this instance's cache. */
  heard: () => Promise<void>;
  /** The LISTEN connection's server process (PostgreSQL), to cut it. */
  pid?: () => Promise<number | undefined>;
  close: () => Promise<void>;
}

let a: ReturnType<typeof sessionCache>;
let b: Instance;

/** The shell's channels (decision 182), as the process's own cache listens to them. */
const SHELL_CHANNELS = { member: NOTIFICATION_CHANNEL, organization: INBOX_CHANNEL };

function secondInstance(): Instance {
  const ttl = () => 60_000;
  if (databaseKind() === "pglite") {
    // PGlite: one connection, whose LISTEN hears every NOTIFY as the committing statement answers.
    const cache = new SessionCache<never, never, never>(
      ttl,
      (onMessage, onLost, onResync) => listenSessionChannels(SHELL_CHANNELS, listenChannel, onMessage, onLost, onResync),
      async () => undefined,
      undefined,
      SHELL_CHANNELS,
    );
    return { cache, heard: async () => undefined, close: () => cache.close() };
  }
  const name = `session_cache_b_${process.pid}`;
  const listener = createPgListener(`${databaseUrl()}?application_name=${name}`);
  const marker = { kind: "postgres" } as never;
  const cache = new SessionCache<never, never, never>(
    ttl,
    (onMessage, onLost, onResync) =>
      listenSessionChannels(SHELL_CHANNELS, (channel, handlers) => listener.listen(channel, handlers), onMessage, onLost, onResync),
    () => listener.caughtUp(),
    () => marker,
    SHELL_CHANNELS,
  );
  return {
    cache,
    heard: () => listener.caughtUp(),
    pid: async () => (await rawQuery<{ pid: number }>(`select pid from pg_stat_activity where application_name = $1`, [name]))[0]?.pid,
    close: async () => {
      await cache.close();
      await listener.close();
    },
  };
}

let url = "";
function databaseUrl() {
  return url;
}

beforeEach(async () => {
  setEnv(parseEnv(LONG_TTL));
  if (databaseKind() === "postgres") {
    const [row] = await rawQuery<{ name: string }>(`select current_database() as name`);
    const admin = new URL(process.env.TEST_DATABASE_URL!);
    admin.pathname = `/${row!.name}`;
    url = admin.toString();
  }
  a = sessionCache();
  b = secondInstance();
  await listening(a);
  await listening(b.cache as never);
});

afterEach(async () => {
  setSessionCache(a);
  await b.close();
});

/** Until the cache's LISTEN is in place (on PostgreSQL, once its connection is open and listening). */
async function listening(cache: ReturnType<typeof sessionCache>) {
  for (let turn = 0; turn < 2000 && !cache.usable(); turn++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(cache.usable(), "the cache's LISTEN is in place").toBe(true);
}

/** A request through instance `on` (its cache answers the lookups). */
async function on<T>(instance: "a" | "b", request: () => Promise<T>): Promise<T> {
  setSessionCache(instance === "a" ? a : (b.cache as never));
  try {
    return await request();
  } finally {
    setSessionCache(a);
  }
}

const me = (cookie: string) => appFetch(getRequest("/api/auth/me", { cookie, headers: { accept: "application/json" } }));
const roleOn = async (instance: "a" | "b", cookie: string) =>
  on(instance, async () => (await currentUser({ request: getRequest("/api/auth/me", { cookie }), context: undefined }))?.role ?? null);
const keyOf = (cookie: string) => sha256(decodeURIComponent(/(?:^|; *)jumbe_session=([^;]+)/.exec(cookie)![1]!));

async function teamOf() {
  const owner = await createVerifiedUser();
  await db().execute(sql`update users set org_role = 'owner' where id = ${owner.user.id}`);
  const email = uniqueEmail("agent");
  const [agent] = await db()
    .insert(users)
    .values({
      organizationId: owner.organization.id,
      email,
      firstName: "Wanjiru",
      lastName: "Kamau",
      usertype: "individual",
      orgRole: "agent",
      passwordHash: await passwordHashFor("Correct#Horse1"),
      isVerified: true,
    })
    .returning();
  return {
    owner,
    agent: agent!,
    ownerCookie: await signedInCookie(owner.email, owner.password),
    agentCookie: await signedInCookie(email, "Correct#Horse1"),
  };
}

/** B answers the member from its copy: a second request on B sends no lookup of the session. */
async function cachedOnB(cookie: string) {
  // B hears the sign-in's own writes first: a notification of this user arriving during the lookup
  // would rightly keep B from storing it.
  await b.heard();
  expect((await on("b", () => me(cookie))).status).toBe(200);
  expect(b.cache.get(keyOf(cookie)), "B holds a copy of the lookup").toBeDefined();
}

describe("the session cache across two instances", () => {
  it("answers from its copy when no notification comes (what the triggers are for)", async () => {
    const { agentCookie, agent } = await teamOf();
    await cachedOnB(agentCookie);
    expect(await roleOn("b", agentCookie)).toBe("agent");
    // The same change with the triggers off (as a restore does): no NOTIFY, so B keeps its copy.
    await db().transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update users set org_role = 'viewer' where id = ${agent.id}`);
    });
    await b.heard();
    expect(await roleOn("b", agentCookie)).toBe("agent");
    // With the cache off (SESSION_CACHE_MS=0), an instance reads the database.
    setEnv(parseEnv({ ...LONG_TTL, SESSION_CACHE_MS: "0" }));
    expect(await roleOn("a", agentCookie)).toBe("viewer");
  });

  it("refuses on B a session signed out on A", async () => {
    const { agentCookie } = await teamOf();
    await cachedOnB(agentCookie);
    const out = await on("a", () => appFetch(jsonRequest("/api/auth/logout", {}, { cookie: agentCookie })));
    expect(out.status).toBe(200);
    await b.heard();
    expect((await on("b", () => me(agentCookie))).status).toBe(401);
  });

  it("refuses on B every session ended on A (signed out everywhere, the member removed)", async () => {
    const team = await teamOf();
    const second = await signedInCookie(team.owner.email, team.owner.password);
    await cachedOnB(team.ownerCookie);
    await cachedOnB(second);
    await cachedOnB(team.agentCookie);
    await on("a", () => deleteUserSessions(team.owner.user.id));
    await b.heard();
    expect((await on("b", () => me(team.ownerCookie))).status).toBe(401);
    expect((await on("b", () => me(second))).status).toBe(401);
    expect((await on("b", () => me(team.agentCookie))).status).toBe(200);

    const owner = await signedInCookie(team.owner.email, team.owner.password);
    const actor = await on("a", () => currentUser({ request: getRequest("/", { cookie: owner }), context: undefined }));
    await on("a", () => removeMember(actor!, team.agent.id, META));
    await b.heard();
    expect((await on("b", () => me(team.agentCookie))).status).toBe(401);
  });

  it("shows on B a role changed on A", async () => {
    const team = await teamOf();
    await cachedOnB(team.agentCookie);
    expect(await roleOn("b", team.agentCookie)).toBe("agent");
    const actor = await on("a", () => currentUser({ request: getRequest("/", { cookie: team.ownerCookie }), context: undefined }));
    await on("a", () => changeMemberRole(actor!, team.agent.id, "viewer", META));
    await b.heard();
    expect(await roleOn("b", team.agentCookie)).toBe("viewer");
  });

  it("refuses on B a member disabled on A, and every member of an organisation suspended on A", async () => {
    const team = await teamOf();
    await cachedOnB(team.agentCookie);
    await cachedOnB(team.ownerCookie);
    // Disabled: the account's e-mail no longer confirmed (the session checks make them a visitor).
    await db().execute(sql`update users set is_verified = false where id = ${team.agent.id}`);
    await b.heard();
    expect((await on("b", () => me(team.agentCookie))).status).toBe(401);
    expect((await on("b", () => me(team.ownerCookie))).status).toBe(200);
    // Suspended, sessions left in place: the organisation's own row is what changed.
    await db().execute(sql`update organizations set status = 'suspended' where id = ${team.owner.organization.id}`);
    await b.heard();
    expect((await on("b", () => me(team.ownerCookie))).status).toBe(401);
  });

  it("sees its own write at once: a sign-out's answer waits until the instance heard it", async () => {
    const { agentCookie } = await teamOf();
    // Instance A's cache, with its wait for the listener counted.
    let waits = 0;
    const fenced = new SessionCache<never, never, never>(
      () => 60_000,
      (onMessage, onLost, onResync) => listenChannel(SESSION_CHANGES_CHANNEL, { onMessage, onLost, onResync }),
      async () => {
        waits++;
        await listenerCaughtUp();
      },
    );
    setSessionCache(fenced as never);
    try {
      await listening(fenced as never);
      expect((await me(agentCookie)).status).toBe(200);
      expect((await me(agentCookie)).status).toBe(200);
      expect(fenced.get(keyOf(agentCookie))).toBeDefined();
      expect(waits, "a GET waits for nothing").toBe(0);
      expect((await appFetch(jsonRequest("/api/auth/logout", {}, { cookie: agentCookie }))).status).toBe(200);
      expect(waits, "the sign-out's answer came after the listener caught up").toBe(1);
      expect((await me(agentCookie)).status).toBe(401);
    } finally {
      setSessionCache(a);
      await fenced.close();
    }
  });

  it("keeps the touch: a cached session last used over an hour ago is touched once", async () => {
    const { agentCookie } = await teamOf();
    const key = keyOf(agentCookie);
    await db().execute(sql`update sessions set last_used_at = now() - interval '2 hours' where id = ${key}`);
    await b.heard();
    expect((await on("b", () => me(agentCookie))).status).toBe(200);
    const [first] = await rawQuery<{ last_used_at: Date }>(`select last_used_at from sessions where id = $1`, [key]);
    expect(Date.now() - new Date(first!.last_used_at).getTime()).toBeLessThan(60_000);
    // Put back behind again with the triggers off: B's copy says it was just touched, and a lookup from it does not touch.
    await db().transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update sessions set last_used_at = now() - interval '2 hours' where id = ${key}`);
    });
    expect((await on("b", () => me(agentCookie))).status).toBe(200);
    const [second] = await rawQuery<{ last_used_at: Date }>(`select last_used_at from sessions where id = $1`, [key]);
    expect(Date.now() - new Date(second!.last_used_at).getTime()).toBeGreaterThan(3_600_000);
  });
});

describe("a cached hit of /api/auth/me (decision 170)", () => {
  const usedOn = async (instance: "a" | "b", cookie: string) => {
    const { result, statements } = await countStatements(() => on(instance, () => me(cookie)));
    expect(result.status).toBe(200);
    return { used: ((await result.json()) as { user: { messagesUsed: number } }).user.messagesUsed, statements };
  };
  const charge = (organizationId: string, messages: number) =>
    db().execute(sql`
      insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
      values (${organizationId}, (now() at time zone 'Africa/Nairobi')::date, 'test-number', 'marketing', ${messages}, 0)
      on conflict (organization_id, day, phone_number_id, category) do update set messages = billing_usage_daily.messages + excluded.messages`);

  it("sends no statement: the session and the month's usage both come from B's copies", async () => {
    const { agentCookie } = await teamOf();
    await b.heard();
    const first = await usedOn("b", agentCookie);
    expect(first.statements, "a miss reads the session with the usage, in one statement").toBe(1);
    expect(await usedOn("b", agentCookie)).toEqual({ used: first.used, statements: 0 });
  });

  it("shows a charge within the TTL at worst, and at once after a write of a member on the instance or a change of the organisation", async () => {
    const team = await teamOf();
    const organizationId = team.owner.organization.id;
    await b.heard();
    expect((await usedOn("b", team.agentCookie)).used).toBe(0);
    // A charge announces nothing: B answers its copy, read less than the TTL (a minute here) ago.
    await charge(organizationId, 5);
    await b.heard();
    expect(await usedOn("b", team.agentCookie)).toEqual({ used: 0, statements: 0 });
    // On A, a member's write (here signing out) makes A read the usage again after it: the session
    // still comes from A's copy, the usage alone is read.
    expect((await usedOn("a", team.agentCookie)).used).toBe(5);
    await charge(organizationId, 2);
    expect(await usedOn("a", team.agentCookie)).toEqual({ used: 5, statements: 0 });
    const out = await on("a", () => appFetch(jsonRequest("/api/auth/logout", {}, { cookie: team.ownerCookie })));
    expect(out.status).toBe(200);
    expect(await usedOn("a", team.agentCookie)).toEqual({ used: 7, statements: 1 });
    expect((await usedOn("b", team.agentCookie)).used, "B's copy is still within its TTL").toBe(0);
    // The organisation's own row changes (a limit set in the console): every instance reads the usage again.
    await db().execute(sql`update organizations set message_limit_override = 5000 where id = ${organizationId}`);
    await b.heard();
    expect((await usedOn("b", team.agentCookie)).used).toBe(7);
  });
});

describe("the session cache when notifications may be missed", () => {
  it("bypasses the cache while its LISTEN connection is down, and empties it when the connection is back", async () => {
    const { agentCookie, agent } = await teamOf();
    let cut: { lost: () => void; resync: () => void } | undefined;
    let cache = b.cache;
    if (databaseKind() === "pglite") {
      // PGlite's LISTEN is never lost: a listener whose loss the test announces, as pg-listener does.
      await b.close();
      cache = new SessionCache<never, never, never>(
        () => 60_000,
        async (onMessage, onLost, onResync) => {
          cut = { lost: onLost, resync: onResync };
          return listenChannel(SESSION_CHANGES_CHANNEL, { onMessage });
        },
        async () => undefined,
      );
      b = { cache, heard: async () => undefined, close: () => cache.close() };
      await listening(cache as never);
    }
    await cachedOnB(agentCookie);
    // The connection goes.
    if (cut) cut.lost();
    else {
      const pid = await b.pid!();
      expect(pid, "B's LISTEN connection").toBeDefined();
      await rawQuery(`select pg_terminate_backend($1)`, [pid]);
      for (let turn = 0; turn < 2000 && cache.usable(); turn++) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(cache.usable()).toBe(false);
    // A change whose notification B cannot hear: the next request on B reads the database.
    await db().execute(sql`update users set is_verified = false where id = ${agent.id}`);
    expect((await on("b", () => me(agentCookie))).status).toBe(401);
    await db().execute(sql`update users set is_verified = true where id = ${agent.id}`);
    expect((await on("b", () => me(agentCookie))).status).toBe(200);
    expect(cache.size(), "nothing is cached while the connection is down").toBe(0);
    // Back: the cache starts empty and is used again.
    if (cut) cut.resync();
    else await waitForResync(cache);
    expect(cache.usable()).toBe(true);
    expect(cache.size()).toBe(0);
    await cachedOnB(agentCookie);
  });
});

/** pg-listener connects again after a pause of its own (half a second first) and then tells the cache to resync. */
async function waitForResync(cache: SessionCache<never, never, never>) {
  await new Promise<void>((resolve) => {
    const check = () => (cache.usable() ? resolve() : setTimeout(check, 50));
    check();
  });
}

describe("the shell's counts kept beside the session (decision 182)", () => {
  /** A page's lookup through `instance`: the shell's counts, and the statements it sent. */
  const shellOn = async (instance: "a" | "b", cookie: string) => {
    const { result, statements } = await countStatements(() =>
      on(instance, () => findSession(getRequest("/dashboard", { cookie }), { shell: true })),
    );
    return { shell: result?.shell, statements };
  };
  /** A conversation of the organisation with unread messages, announced as the inbox's writes announce it. */
  const unreadConversation = async (organizationId: string) => {
    const phone = `+2547${String(Date.now()).slice(-8)}`;
    const [row] = await rawQuery<{ id: string }>(
      `with c as (insert into contacts (organization_id, name, phone, wa_id) values ($1, 'Mteja', $2, $3) returning id)
       insert into conversations (organization_id, phone_number_id, contact_id, last_message_at, unread_count)
       select $1, '106540352242922', id, now(), 2 from c returning id`,
      [organizationId, phone, phone.slice(1)],
    );
    await logConversationEvents(db(), [{ organizationId, conversationId: row!.id }]);
    return row!.id;
  };
  const finished = (organizationId: string, key: string) =>
    notify({
      organizationId,
      event: "campaign_finished",
      title: "Campaign finished: Water rationing",
      body: "400 sent, 0 failed.",
      link: "/messaging",
      dedupeKey: key,
    });

  it("answers a page's hit on B with no statement, and reads the counts again for a notification of the member or a change of the inbox made on A", async () => {
    const team = await teamOf();
    const organizationId = team.owner.organization.id;
    await b.heard();
    expect(await shellOn("b", team.ownerCookie)).toEqual({ shell: { unread: 0, inboxUnread: 0 }, statements: 1 });
    expect(await shellOn("b", team.ownerCookie)).toEqual({ shell: { unread: 0, inboxUnread: 0 }, statements: 0 });
    expect(await shellOn("b", team.agentCookie)).toMatchObject({ statements: 1 });
    // The campaign's end notifies the owner (its audience), not the agent.
    await finished(organizationId, "shell-1");
    await b.heard();
    expect(await shellOn("b", team.ownerCookie)).toEqual({ shell: { unread: 1, inboxUnread: 0 }, statements: 1 });
    expect(await shellOn("b", team.agentCookie), "another member's notification leaves the agent's counts").toEqual({
      shell: { unread: 0, inboxUnread: 0 },
      statements: 0,
    });
    // A conversation with unread messages: every member of the organisation reads the counts again.
    await unreadConversation(organizationId);
    await b.heard();
    expect(await shellOn("b", team.ownerCookie)).toEqual({ shell: { unread: 1, inboxUnread: 1 }, statements: 1 });
    expect(await shellOn("b", team.agentCookie)).toEqual({ shell: { unread: 0, inboxUnread: 1 }, statements: 1 });
    // Another organisation's inbox leaves them alone.
    await unreadConversation((await teamOf()).owner.organization.id);
    await b.heard();
    expect(await shellOn("b", team.ownerCookie)).toEqual({ shell: { unread: 1, inboxUnread: 1 }, statements: 0 });
  });

  it("shows the next page the counts after a GET of the same instance changed them: a conversation opened, a notification followed", async () => {
    const team = await teamOf();
    const organizationId = team.owner.organization.id;
    const conversationId = await unreadConversation(organizationId);
    await finished(organizationId, "shell-2");
    await listenerCaughtUp();
    expect(await shellOn("a", team.ownerCookie)).toMatchObject({ shell: { unread: 1, inboxUnread: 1 } });
    expect(await shellOn("a", team.ownerCookie)).toEqual({ shell: { unread: 1, inboxUnread: 1 }, statements: 0 });
    // Opening the conversation (a page's GET) zeroes its unread count; the next page, at once, shows it.
    await markConversationOpened(organizationId, await conversationOr404(organizationId, conversationId));
    expect(await shellOn("a", team.ownerCookie)).toEqual({ shell: { unread: 1, inboxUnread: 0 }, statements: 1 });
    // Following the notification marks it read; the page it leads to shows the bell without it.
    const [notification] = await rawQuery<{ id: string }>(`select id from notifications where user_id = $1`, [team.owner.user.id]);
    expect(await markRead({ userId: team.owner.user.id, organizationId }, notification!.id)).toEqual({ link: "/messaging" });
    expect(await shellOn("a", team.ownerCookie)).toEqual({ shell: { unread: 0, inboxUnread: 0 }, statements: 1 });
    // And B, once it has heard both.
    await b.heard();
    expect((await shellOn("b", team.ownerCookie)).shell).toEqual({ unread: 0, inboxUnread: 0 });
  });
});
