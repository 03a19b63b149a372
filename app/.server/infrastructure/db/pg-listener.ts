import { log } from "../log";

/** What a LISTEN subscriber hears: each notification's payload, and a resync after the connection came back. */
export interface ChannelListener {
  onMessage: (payload: string) => void;
  /** Called when notifications may have been missed (the listening connection was lost and is back). */
  onResync?: () => void;
  /** Called when the listening connection is lost, or could not listen: notifications may be missed until onResync. */
  onLost?: () => void;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks a channel name once, so it can go into LISTEN without quoting. */
export function checkChannel(channel: string) {
  if (!CHANNEL.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  return channel;
}

/**
 * LISTEN on PostgreSQL: one dedicated connection per process (outside the pool, which would hand it
 * to other queries), opened when the first subscriber comes, listening to every channel somebody
 * subscribed to. A lost connection is opened again with a growing pause (up to 30 s); once it is
 * back every subscriber is told to resync, since NOTIFY keeps nothing for a listener that was away.
 */
// long: one connection's life (open, listen, lost, back with a growing pause, resync) is one state machine; its closures share the client and the channels
export function createPgListener(url: string) {
  const channels = new Map<string, Set<ChannelListener>>();
  type Client = import("pg").Client;
  let client: Client | undefined;
  let connecting: Promise<Client> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let closed = false;

  const tellLost = () => {
    for (const set of channels.values()) for (const listener of set) listener.onLost?.();
  };

  const dispatch = (channel: string, payload: string) => {
    for (const listener of channels.get(channel) ?? []) {
      try {
        listener.onMessage(payload);
      } catch (error) {
        log().warn({ err: error, channel }, "a LISTEN subscriber failed");
      }
    }
  };

  async function connect(): Promise<Client> {
    const { default: pg } = await import("pg");
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    next.on("notification", (message) => dispatch(message.channel, message.payload ?? ""));
    next.on("error", (error) => {
      log().warn({ reason: error.message }, "LISTEN connection lost");
      lost(next);
    });
    next.on("end", () => lost(next));
    await next.connect();
    for (const channel of channels.keys()) await next.query(`listen ${channel}`);
    if (closed) {
      await next.end().catch(() => undefined);
      throw new Error("listener closed");
    }
    const wasAway = failures > 0;
    client = next;
    failures = 0;
    if (wasAway) for (const set of channels.values()) for (const listener of set) listener.onResync?.();
    return next;
  }

  function lost(which: Client) {
    if (client !== which) return;
    client = undefined;
    failures = Math.max(failures, 1);
    tellLost();
    schedule();
  }

  function schedule() {
    if (closed || retry || !channels.size) return;
    retry = setTimeout(
      () => {
        retry = undefined;
        ensure().catch(() => {
          failures++;
          schedule();
        });
      },
      Math.min(30_000, 500 * 2 ** Math.min(failures, 6)),
    );
    retry.unref?.();
  }

  function ensure(): Promise<Client> {
    if (client) return Promise.resolve(client);
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  return {
    async listen(channel: string, listener: ChannelListener): Promise<() => Promise<void>> {
      checkChannel(channel);
      let set = channels.get(channel);
      const first = !set;
      if (!set) channels.set(channel, (set = new Set()));
      set.add(listener);
      try {
        const current = await ensure();
        if (first) await current.query(`listen ${channel}`);
      } catch (error) {
        // Not listening yet: the retry listens to it, then tells the subscriber to resync.
        log().warn({ reason: (error as Error).message, channel }, "LISTEN failed; retrying");
        failures = Math.max(failures, 1);
        listener.onLost?.();
        schedule();
      }
      return async () => {
        const subscribers = channels.get(channel);
        if (!subscribers?.delete(listener) || subscribers.size) return;
        channels.delete(channel);
        await client?.query(`unlisten ${channel}`).catch(() => undefined);
      };
    },
    /**
     * Resolves once every notification committed before the call has reached the subscribers: one
     * round trip on the listening connection, whose backend sends what it was signalled before it
     * answers. Rejects when the connection is down (what was sent meanwhile may be lost).
     */
    async caughtUp(): Promise<void> {
      if (!client) throw new Error("not listening");
      await client.query("select 1");
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      channels.clear();
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
