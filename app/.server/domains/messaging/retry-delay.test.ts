import { describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { createGraphClient, GraphApiError, GraphNetworkError } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { IN_DOUBT_WAIT_MS, MAX_SEND_ATTEMPTS, retryDelayMs } from "./dispatcher";

const apiError = (code: number, status = 400) => new GraphApiError({ step: "messages.send", status, code, message: `(#${code}) error` });

describe("when a failed send is tried again", () => {
  it("backs off throttling and Meta's temporary errors, and fails permanent ones at once", () => {
    expect([1, 2, 3].map((n) => retryDelayMs(apiError(130429), n))).toEqual([2000, 4000, 8000]);
    // The pair rate: 4^n seconds, as Meta asks.
    expect([1, 2, 3].map((n) => retryDelayMs(apiError(131056), n))).toEqual([4000, 16_000, 64_000]);
    expect(retryDelayMs(apiError(131000, 500), 1)).toBe(2000);
    for (const permanent of [131026, 131047, 131051, 132000, 132001, 100]) expect(retryDelayMs(apiError(permanent), 1)).toBeNull();
    expect(retryDelayMs(apiError(130429), MAX_SEND_ATTEMPTS)).toBeNull();
  });

  it("waits for Meta's status webhook when a send may have reached Meta, and retries soon when it never left", () => {
    const refused = new GraphNetworkError("messages.send", "Graph messages.send unreachable", { inDoubt: false });
    const timedOut = new GraphNetworkError("messages.send", "Graph messages.send timed out after 10000 ms");
    expect(retryDelayMs(refused, 1)).toBe(2000);
    expect(retryDelayMs(timedOut, 1)).toBe(IN_DOUBT_WAIT_MS);
    expect(retryDelayMs(timedOut, 7)).toBe(128_000);
  });

  it("tells a refused connection (never sent) from a timeout (in doubt)", async () => {
    // A port that was free a moment ago refuses; a server that never answers times out.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const silent = createServer(() => {}).listen(0, "127.0.0.1");
    await new Promise((resolve) => silent.once("listening", resolve));
    const client = (port: number) =>
      createGraphClient({ baseUrl: `http://127.0.0.1:${port}`, version: "v23.0", appId: "1", appSecret: "s", timeoutMs: 300, attempts: 1 });
    try {
      const refused = await client(closed)
        .sendMessage("1", "t", { to: "254700000001" })
        .catch((e: unknown) => e);
      const timedOut = await client((silent.address() as { port: number }).port)
        .sendMessage("1", "t", { to: "254700000001" })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(GraphNetworkError);
      expect((refused as GraphNetworkError).inDoubt).toBe(false);
      expect(timedOut).toBeInstanceOf(GraphNetworkError);
      expect((timedOut as GraphNetworkError).inDoubt).toBe(true);
    } finally {
      silent.close();
    }
  });
});
