import { currentDatabaseHandle, listenChannel, listenerCaughtUp, type DatabaseHandle } from "../../infrastructure/db/client";
import { log } from "../../infrastructure/log";

/** The channel migration 0084's triggers notify: 'u:<user ids>', 'o:<organisation ids>' (comma-separated) or '*'. */
export const SESSION_CHANGES_CHANNEL = "session_changes";

/**
 * The channels whose notifications change the shell's counts (decision 182): a member's id when one
 * of their notifications is added or read (notifications' NOTIFICATION_CHANNEL), an organisation's
 * id when its inbox changed (messaging's INBOX_CHANNEL: a message in, a conversation opened).
 */
export interface ShellChannels {
  member: string;
  organization: string;
}

/** The shell's two counts as a page shows them. */
export interface ShellCounts {
  unread: number;
  inboxUnread: number;
}

/** What the cache holds of a lookup: the session, its user and organisation, never the counts that change all the time. */
export interface CachedSession<S, U, O> {
  session: S;
  user: U;
  organization: O;
}

interface Entry<S, U, O> extends CachedSession<S, U, O> {
  userId: string;
  organizationId: string;
  /** Date.now() when the lookup it holds began. */
  readAt: number;
}

/** An organisation's month's usage as read (decision 170): kept beside the lookups, under the same TTL. */
interface Usage {
  value: number;
  readAt: number;
}

/** A member's shell counts as read (decision 182), kept under the same TTL. */
interface Shell extends ShellCounts {
  userId: string;
  organizationId: string;
  readAt: number;
}

/** A notification (or a clear: no field) as `put` checks a lookup against it. */
interface Eviction {
  generation: number;
  field?: "userId" | "organizationId";
  ids?: Set<string>;
}

/**
 * The evictions of one kind of copy, newest last, and their generation: what a read that took a
 * ticket before it began is checked against. Evictions of other people do not stop it: under a
 * steady trickle of changes elsewhere the cache still fills. Past the evictions remembered, every
 * read counts as overtaken.
 */
class Evictions {
  generation = 0;
  private list: Eviction[] = [];

  add(field?: Eviction["field"], ids?: Set<string>) {
    this.list.push({ generation: ++this.generation, field, ids });
    if (this.list.length > REMEMBERED_EVICTIONS) this.list.shift();
  }

  overtaken(generation: number, value: { userId?: string; organizationId: string }) {
    if (generation === this.generation) return false;
    const oldest = this.list[0];
    if (!oldest || oldest.generation > generation + 1) return true;
    return this.list.some(
      (eviction) => eviction.generation > generation && (!eviction.field || eviction.ids!.has(value[eviction.field] ?? "")),
    );
  }
}

/** Taken before a lookup reads the database; a lookup may be cached only if nothing was invalidated since. */
export interface CacheTicket {
  generation: number;
  /** The shell counts' generation (decision 182): their notifications come far more often than a session's. */
  shellGeneration: number;
  at: number;
}

/**
 * This instance's short-lived cache of session lookups, keyed by the token's hash (decision 166).
 * It answers only while its LISTEN on session_changes is healthy: from the moment LISTEN is in place,
 * every change a trigger reports evicts the lookups it concerns; a lost connection empties the
 * cache and turns it off until the connection is back. A lookup that began before an eviction (it
 * may have read the row just before the change) is not stored. After a write through this instance
 * (`afterWrite`), lookups bypass the cache until the listener has heard everything committed so far.
 * Beside the lookups it keeps each organisation's month's usage for the same TTL (decision 170): no
 * notification announces a charge, so that figure alone may be up to the TTL behind. And each
 * member's shell counts (decision 182), dropped by the notifications and inbox channels' NOTIFY.
 */
export class SessionCache<S = unknown, U = unknown, O = unknown> {
  private readonly entries = new Map<string, Entry<S, U, O>>();
  /** The month's usage by organisation id (decision 170). */
  private readonly usages = new Map<string, Usage>();
  /** The shell's counts by member and organisation (decision 182). */
  private readonly shells = new Map<string, Shell>();
  /** The organisation of each request of this instance that may write, by its session key, until afterWrite. */
  private readonly writers = new Map<string, string>();
  private healthy = false;
  /** The lookups' and usages' evictions ('*' for everything): what `put` checks a lookup against. */
  private readonly evictions = new Evictions();
  /** The shell counts' own (every inbox change notifies its organisation). */
  private readonly shellEvictions = new Evictions();
  private fences = 0;
  private subscribed?: { handle: DatabaseHandle; stop?: Promise<() => Promise<void>> };

  constructor(
    private readonly ttlMs: () => number,
    /** LISTEN on session_changes and the shell's channels; `channel` undefined is session_changes. */
    private readonly listen: (
      onMessage: (payload: string, channel?: string) => void,
      onLost: () => void,
      onResync: () => void,
    ) => Promise<() => Promise<void>>,
    private readonly caughtUp: () => Promise<void>,
    private readonly handle: () => DatabaseHandle | undefined = currentDatabaseHandle,
    /** The shell's channels; without them no shell counts are kept (they would never be dropped). */
    private readonly shellChannels?: ShellChannels,
  ) {}

  /** Whether lookups may come from the cache now (on, listening, no write of this instance waiting to be heard). */
  usable() {
    if (this.ttlMs() <= 0) return false;
    this.ensureListening();
    return this.healthy && this.fences === 0;
  }

  /** The cached lookup for `key` read less than the TTL ago, or undefined. */
  get(key: string): CachedSession<S, U, O> | undefined {
    if (!this.usable()) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.readAt >= this.ttlMs() || Date.now() < entry.readAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /**
   * The organisation's month's usage read less than the TTL ago, or undefined (decision 170). No
   * notification announces a charge, so unlike a lookup it may be up to the TTL behind the
   * database; a change of the organisation's own row (its plan, its limit) still drops it at once.
   */
  usage(organizationId: string): number | undefined {
    if (!this.usable()) return undefined;
    const usage = this.usages.get(organizationId);
    if (!usage) return undefined;
    if (Date.now() - usage.readAt >= this.ttlMs() || Date.now() < usage.readAt) {
      this.usages.delete(organizationId);
      return undefined;
    }
    return usage.value;
  }

  /** Keeps the month's usage as a read that took `ticket` before it began found it (unless an eviction of its organisation overtook it). */
  putUsage(organizationId: string, ticket: CacheTicket | undefined, value: number) {
    if (!ticket || !this.usable() || this.evictions.overtaken(ticket.generation, { organizationId })) return;
    if (this.usages.size >= MAX_ENTRIES) this.sweepUsages();
    this.usages.set(organizationId, { value, readAt: ticket.at });
  }

  /**
   * A request that may write, with the session `key`, is under way for this organisation: its usage
   * is read again from now on, and once more after the write (afterWrite drops what a read made
   * meanwhile may have kept from before the write's commit).
   */
  writing(key: string, organizationId: string) {
    this.usages.delete(organizationId);
    if (this.writers.size >= MAX_ENTRIES) this.writers.clear();
    this.writers.set(key, organizationId);
  }

  /**
   * The member's shell counts read less than the TTL ago, or undefined (decision 182). A
   * notification added or read for the member, or any change of the organisation's inbox, drops
   * them on every instance; a GET that changes them waits until this instance has heard its NOTIFY
   * (heardOwnChange), so the next page of the person who changed them shows the change.
   */
  shell(userId: string, organizationId: string): ShellCounts | undefined {
    if (!this.shellChannels || !this.usable()) return undefined;
    const key = `${userId}|${organizationId}`;
    const shell = this.shells.get(key);
    if (!shell) return undefined;
    if (Date.now() - shell.readAt >= this.ttlMs() || Date.now() < shell.readAt) {
      this.shells.delete(key);
      return undefined;
    }
    return { unread: shell.unread, inboxUnread: shell.inboxUnread };
  }

  /** Keeps the member's shell counts as a read that took `ticket` before it began found them (unless a change of them overtook it). */
  putShell(userId: string, organizationId: string, ticket: CacheTicket | undefined, counts: ShellCounts) {
    if (!this.shellChannels || !ticket || !this.usable()) return;
    const value = { userId, organizationId };
    if (this.shellEvictions.overtaken(ticket.shellGeneration, value) || this.evictions.overtaken(ticket.generation, value)) return;
    if (this.shells.size >= MAX_ENTRIES) this.sweepShells();
    this.shells.set(`${userId}|${organizationId}`, { ...counts, ...value, readAt: ticket.at });
  }

  /** Before a lookup reads the database: what `put` checks nothing was invalidated meanwhile. */
  ticket(): CacheTicket | undefined {
    if (!this.usable()) return undefined;
    return { generation: this.evictions.generation, shellGeneration: this.shellEvictions.generation, at: Date.now() };
  }

  put(key: string, ticket: CacheTicket | undefined, value: CachedSession<S, U, O> & { userId: string; organizationId: string }) {
    if (!ticket || !this.usable() || this.evictions.overtaken(ticket.generation, value)) return;
    if (this.entries.size >= MAX_ENTRIES) this.sweep();
    this.entries.set(key, { ...value, readAt: ticket.at });
  }

  /** Updates what a cached entry says of its session (this instance touched it). */
  patchSession(key: string, patch: Partial<S>) {
    const entry = this.entries.get(key);
    if (entry) entry.session = { ...entry.session, ...patch };
  }

  /**
   * A notification's payload: on session_changes the lookups of these users or organisations, or
   * all; on a shell channel (decision 182) the shell counts of that member or organisation.
   */
  evict(payload: string, channel?: string) {
    if (channel !== undefined && channel !== SESSION_CHANGES_CHANNEL) {
      const field =
        channel === this.shellChannels?.member ? "userId" : channel === this.shellChannels?.organization ? "organizationId" : undefined;
      if (!field) return;
      this.shellEvictions.add(field, new Set([payload]));
      for (const [key, shell] of this.shells) if (shell[field] === payload) this.shells.delete(key);
      return;
    }
    const kind = payload.slice(0, 2);
    const field = kind === "u:" ? "userId" : kind === "o:" ? "organizationId" : undefined;
    if (payload === "*" || !field) return this.clear();
    const ids = new Set(payload.slice(2).split(","));
    this.evictions.add(field, ids);
    for (const [key, entry] of this.entries) if (ids.has(entry[field])) this.entries.delete(key);
    for (const [key, shell] of this.shells) if (ids.has(shell[field])) this.shells.delete(key);
    if (field === "organizationId") for (const id of ids) this.usages.delete(id);
  }

  /**
   * After a request of this instance that may have written (any method but GET and HEAD): the
   * request's own session is forgotten, and lookups bypass the cache until the listener has heard
   * every notification committed so far (one round trip on its connection). The request's answer
   * waits for it, so the next request of the same person never meets what the write changed. A
   * read that began before it (a lookup, a usage) is not stored.
   */
  async afterWrite(key?: string) {
    const writer = key === undefined ? undefined : this.writers.get(key);
    if (key !== undefined) this.writers.delete(key);
    if (this.ttlMs() <= 0 || !this.subscribed) return;
    this.fences++;
    this.evictions.add();
    if (key) this.entries.delete(key);
    try {
      await this.caughtUp();
    } catch {
      // Not listening: the cache is off until the connection is back, and emptied then.
      this.lost();
    } finally {
      this.fences--;
    }
    // A usage read between the write's commit and the fence may have kept the figure from before it.
    if (writer) this.usages.delete(writer);
  }

  /** Forgets every lookup (tests between files; a resync). */
  clear() {
    this.evictions.add();
    this.shellEvictions.add();
    this.entries.clear();
    this.usages.clear();
    this.shells.clear();
  }

  size() {
    return this.entries.size;
  }

  /** Stops listening (the process ends, or a test is done with this instance). */
  async close() {
    const subscribed = this.subscribed;
    this.subscribed = undefined;
    this.healthy = false;
    this.clear();
    const stop = await subscribed?.stop?.catch(() => undefined);
    await stop?.();
  }

  private lost() {
    this.healthy = false;
    this.clear();
  }

  private sweep() {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (now - entry.readAt >= this.ttlMs()) this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
  }

  private sweepShells() {
    const now = Date.now();
    for (const [key, shell] of this.shells) if (now - shell.readAt >= this.ttlMs()) this.shells.delete(key);
    if (this.shells.size >= MAX_ENTRIES) this.shells.clear();
  }

  private sweepUsages() {
    const now = Date.now();
    for (const [id, usage] of this.usages) if (now - usage.readAt >= this.ttlMs()) this.usages.delete(id);
    if (this.usages.size >= MAX_ENTRIES) this.usages.clear();
  }

  /** Subscribes on first use, and again when another database was opened (tests open one per file). */
  private ensureListening() {
    const handle = this.handle();
    if (!handle) {
      this.healthy = false;
      return;
    }
    if (this.subscribed?.handle === handle) return;
    this.lost();
    const subscription: NonNullable<typeof this.subscribed> = { handle };
    this.subscribed = subscription;
    let lostMeanwhile = false;
    const current = () => this.subscribed === subscription;
    subscription.stop = this.listen(
      (payload, channel) => current() && this.evict(payload, channel),
      () => {
        lostMeanwhile = true;
        if (current()) this.lost();
      },
      () => {
        if (!current()) return;
        this.clear();
        this.healthy = true;
      },
    );
    subscription.stop.then(
      () => {
        // LISTEN is in place unless the connection failed on the way (then the resync turns the cache on).
        if (current() && !lostMeanwhile) this.healthy = true;
      },
      (error: unknown) => {
        log().warn({ reason: (error as Error).message }, "session cache: LISTEN failed; the cache stays off");
      },
    );
  }
}

/** Evictions `put` can check a lookup against; a lookup older than all of them is not stored. */
const REMEMBERED_EVICTIONS = 256;

/** Lookups held at most; past it the stale ones go, or all (the cache only saves work). */
const MAX_ENTRIES = 50_000;

/**
 * LISTEN on session_changes and the shell's channels through `listenOne` (one channel's LISTEN):
 * in place once all are; a loss or a resync of any is the cache's. Answers the unsubscribe of all.
 */
export async function listenSessionChannels(
  shellChannels: ShellChannels,
  listenOne: (
    channel: string,
    listener: { onMessage: (payload: string) => void; onLost: () => void; onResync: () => void },
  ) => Promise<() => Promise<void>>,
  onMessage: (payload: string, channel?: string) => void,
  onLost: () => void,
  onResync: () => void,
) {
  const channels = [SESSION_CHANGES_CHANNEL, shellChannels.member, shellChannels.organization];
  const stops = await Promise.allSettled(
    channels.map((channel) => listenOne(channel, { onMessage: (payload) => onMessage(payload, channel), onLost, onResync })),
  );
  const stopAll = async () => {
    await Promise.all(stops.map((stop) => (stop.status === "fulfilled" ? stop.value() : undefined)));
  };
  const failed = stops.find((stop) => stop.status === "rejected");
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  return stopAll;
}

/** A cache subscribed through the process's database (listenChannel), with the TTL read on each use. */
export function databaseSessionCache<S, U, O>(ttlMs: () => number, shellChannels: ShellChannels) {
  return new SessionCache<S, U, O>(
    ttlMs,
    (onMessage, onLost, onResync) => listenSessionChannels(shellChannels, listenChannel, onMessage, onLost, onResync),
    listenerCaughtUp,
    currentDatabaseHandle,
    shellChannels,
  );
}
