import { afterAll, describe, expect, it } from "vitest";
import { buildExists, DEMO, signInCookie, startBuiltServer, type BuiltServer } from "../support/built-server";
import { postgresBinDir, startPrivateCluster, type PrivateCluster } from "../support/private-postgres";

// A rolling restart behind nginx stops instances with SIGTERM. Browsers hold live streams open on
// them (the bell on every signed-in page, the inbox): those must end properly, so each EventSource
// reconnects to an instance still running, and must not hold the stopping instance until its
// deadline, only to be cut then (the browser's "net::ERR_INCOMPLETE_CHUNKED_ENCODING").

let server: BuiltServer | undefined;
let cluster: PrivateCluster | undefined;

afterAll(async () => {
  await server?.stop();
  cluster?.destroy();
});

/** Opens a live stream (its headers answered), and waits for its first event if `firstEvent`. */
async function openStream(path: string, cookie: string, { firstEvent = false } = {}) {
  const response = await fetch(`${server!.base}${path}`, { headers: { cookie, accept: "text/event-stream" } });
  expect(response.status, path).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream\b/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (firstEvent && !text.includes("\n\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${path} ended before its first event`);
    text += decoder.decode(value, { stream: true });
  }
  /** The rest of the body, to its end; a response cut rather than ended throws ("terminated"). */
  const rest = async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  };
  return { first: text, rest };
}

describe.skipIf(!buildExists())("shutting down (built server)", () => {
  // The server starts in the test: on the PostgreSQL pass the first built server of a run also seeds
  // the run's demo for the others (decision 134), two starts in one.
  it("on SIGTERM ends the open live streams properly and exits cleanly", { timeout: 240_000 }, async () => {
    server = await startBuiltServer();
    const cookie = await signInCookie(server, DEMO);
    const bell = await openStream("/notifications/events", cookie, { firstEvent: true });
    expect(bell.first).toMatch(/^id: .+\nevent: bell\ndata: \{"unread":\d+,"items":\[/);
    // The inbox sends nothing until something changes: open is enough.
    const inbox = await openStream("/chat/events", cookie);
    const exited = new Promise<number | null>((resolve) => server!.child.once("exit", (code) => resolve(code)));

    server.child.kill("SIGTERM");
    const [bellText] = await Promise.all([bell.rest(), inbox.rest()]);
    expect(bellText.startsWith(bell.first)).toBe(true);
    expect(await exited).toBe(0);
    expect(server.output()).not.toMatch(/error/i);
  });
});

// Issue 38: a process whose database stopped answering (a hung host, a frozen embedded database)
// still stops on SIGTERM, by its deadline, instead of waiting for ever until kill -9.
describe.skipIf(!buildExists() || !postgresBinDir())("shutting down while the database does not answer (built server)", () => {
  it("on SIGTERM ends by its deadline, saying why, though a request and the database never answer", { timeout: 240_000 }, async () => {
    cluster = await startPrivateCluster();
    const own = await startBuiltServer({ SHUTDOWN_GRACE_MS: "500" }, { databaseUrl: cluster.url });
    try {
      const cookie = await signInCookie(own, DEMO);
      cluster.freeze();
      // A request on a pooled connection whose database went silent: it waits with no answer.
      const hanging = fetch(`${own.base}/dashboard`, { headers: { cookie } }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const exited = new Promise<number | null>((resolve) => own.child.once("exit", (code) => resolve(code)));
      own.child.kill("SIGTERM");
      expect(await exited).toBe(1);
      expect(own.output()).toMatch(/shutdown did not finish in time/);
      await hanging;
    } finally {
      cluster.thaw();
      await own.stop();
    }
  });
});
