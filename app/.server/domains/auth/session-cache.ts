import { currentDatabaseHandle, listenChannel, listenerCaughtUp, type DatabaseHandle } from "../../infrastructure/db/client";
import { log } from "../../infrastructure/log";

/** The channel migration 0084's triggers notify: 'u:<user ids>', 'o:<organisation ids>' (comma-separated) or '*'. */
export const SESSION_CHANGES_CHANNEL = "session_changes";

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

/** A notification (or a clear: no field) as `put` checks a lookup against it. */
interface Eviction {
  generation: number;
  field?: "userId" | "organizationId";
  ids?: Set<string>;
}

/** Taken before a lookup reads the database; a lookup may be cached only if nothing was invalidated since. */
export interface CacheTicket {
  generation: number;
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
 * notification announces a charge, so that figure alone may be up to the TTL behind.
 */
export class SessionCache<S = unknown, U = unknown, O = unknown> {
  private readonly entries = new Map<string, Entry<S, U, O>>();
  /** The month's usage by organisation id (decision 170). */
  private readonly usages = new Map<string, Usage>();
  /** The organisation of each request of this instance that may write, by its session key, until afterWrite. */
  private readonly writers = new Map<string, string>();
  private healthy = false;
  private generation = 0;
  /** The latest evictions, newest last: what `put` checks a lookup against ('*' for everything). */
  private evictions: Eviction[] = [];
  private fences = 0;
  private subscribed?: { handle: DatabaseHandle; stop?: Promise<() => Promise<void>> };

  constructor(
    private readonly ttlMs: () => number,
    private readonly listen: (
      onMessage: (payload: string) => void,
      onLost: () => void,
      onResync: () => void,
    ) => Promise<() => Promise<void>>,
    private readonly caughtUp: () => Promise<void>,
    private readonly handle: () => DatabaseHandle | undefined = currentDatabaseHandle,
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
    if (!ticket || !this.usable() || this.overtaken(ticket, { organizationId })) return;
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

  /** Before a lookup reads the database: what `put` checks nothing was invalidated meanwhile. */
  ticket(): CacheTicket | undefined {
    if (!this.usable()) return undefined;
    return { generation: this.generation, at: Date.now() };
  }

  put(key: string, ticket: CacheTicket | undefined, value: CachedSession<S, U, O> & { userId: string; organizationId: string }) {
    if (!ticket || !this.usable() || this.overtaken(ticket, value)) return;
    if (this.entries.size >= MAX_ENTRIES) this.sweep();
    this.entries.set(key, { ...value, readAt: ticket.at });
  }

  /** Updates what a cached entry says of its session (this instance touched it). */
  patchSession(key: string, patch: Partial<S>) {
    const entry = this.entries.get(key);
    if (entry) entry.session = { ...entry.session, ...patch };
  }

  /** A notification's payload: the lookups of these users or organisations, or all. */
  evict(payload: string) {
    const kind = payload.slice(0, 2);
    const field = kind === "u:" ? "userId" : kind === "o:" ? "organizationId" : undefined;
    if (payload === "*" || !field) return this.clear();
    const ids = new Set(payload.slice(2).split(","));
    this.remember({ generation: ++this.generation, field, ids });
    for (const [key, entry] of this.entries) if (ids.has(entry[field])) this.entries.delete(key);
    if (field === "organizationId") for (const id of ids) this.usages.delete(id);
  }

  /**
   * Whether an eviction since the ticket concerns this lookup (its user, its organisation, or
   * everything), so that what it read may already be stale. Evictions of other people do not stop
   * it: under a steady trickle of changes elsewhere the cache still fills. Past the evictions
   * remembered, every lookup counts as overtaken.
   */
  private overtaken(ticket: CacheTicket, value: { userId?: string; organizationId: string }) {
    if (ticket.generation === this.generation) return false;
    const oldest = this.evictions[0];
    if (!oldest || oldest.generation > ticket.generation + 1) return true;
    return this.evictions.some(
      (eviction) => eviction.generation > ticket.generation && (!eviction.field || eviction.ids!.has(value[eviction.field] ?? "")),
    );
  }

  private remember(eviction: Eviction) {
    this.evictions.push(eviction);
    if (this.evictions.length > REMEMBERED_EVICTIONS) this.evictions.shift();
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
    this.remember({ generation: ++this.generation });
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
    this.remember({ generation: ++this.generation });
    this.entries.clear();
    this.usages.clear();
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
      (payload) => current() && this.evict(payload),
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

/** A cache subscribed through the process's database (listenChannel), with the TTL read on each use. */
export function databaseSessionCache<S, U, O>(ttlMs: () => number) {
  return new SessionCache<S, U, O>(
    ttlMs,
    (onMessage, onLost, onResync) => listenChannel(SESSION_CHANGES_CHANNEL, { onMessage, onLost, onResync }),
    listenerCaughtUp,
  );
}
